"""``memguard ledger ...``: integrate, checkpoint, prove and verify the tamper-evident audit log.

Exit codes (the table of every ``memguard`` command): 0 ok (verify: verified), 4 tamper detected
(verify, or a proof that does not verify), 6 not found (an event that is unknown, not yet
integrated or not yet covered by a checkpoint), 2 usage (no ledger in ``--state-dir``), 3 invalid
input (a key or checkpoint that does not parse), 1 any other failure. Results go to stdout, errors
to stderr (JSON on stdout under ``--json``).

The ledger is ``STATE_DIR/ledger.db`` unless ``--ledger-url`` names another (PostgreSQL); the
checkpoint signing key is ``STATE_DIR/keys/checkpoint.key`` (created, mode 0600, by ``checkpoint``);
every checkpoint is also published to the witness directory ``STATE_DIR/witness`` (``--witness``),
which ``verify`` holds the database to; ``verify --store`` also holds every store point (the
state folder's embedded store, or ``--store-url``) to its row.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from memguard.clikit import DEFAULT_STATE
from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.group import ConventionGroup
from memguard.clikit.output import emit
from memguard.clikit.progress import progress
from memguard.errors import IntegrityError
from memguard.ledger.auditlog import VerifyReport
from memguard.ledger.checkpoint import CheckpointSigner, CheckpointVerifier
from memguard.ledger.ledger import Ledger
from memguard.ledger.rfc6962 import leaf_hash
from memguard.ledger.witness import WitnessDir
from memguard.stores.base import MemoryStore

ledger_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help=__doc__,
)

StateDir = Annotated[
    Path, typer.Option("--state-dir", help="Folder of the ledger (ledger.db) and keys/.")
]
LedgerUrl = Annotated[
    str | None,
    typer.Option("--ledger-url", help="A ledger URL (PostgreSQL) instead of STATE_DIR/ledger.db."),
]
KeyFile = Annotated[
    Path | None,
    typer.Option("--key", help="Checkpoint signing key (default STATE_DIR/keys/checkpoint.key)."),
]
Witness = Annotated[
    Path | None,
    typer.Option(
        "--witness", help="Checkpoint witness directory (default STATE_DIR/witness)."
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
DEFAULT_DIR = DEFAULT_STATE


def _key_path(state_dir: Path, key: Path | None) -> Path:
    return key if key is not None else state_dir / "keys" / "checkpoint.key"


@contextmanager
def _open(
    state_dir: Path,
    ledger_url: str | None,
    signer: CheckpointSigner | None = None,
    witness: Path | None = None,
    *,
    adopt_unlogged: bool = False,
) -> Iterator[Ledger]:
    """Open the ledger (a usage error if ``state_dir`` holds none) with its witness directory;
    memguard errors propagate to the command line's one error path."""
    watcher = WitnessDir(witness if witness is not None else state_dir / "witness")
    if ledger_url:
        ledger = Ledger.from_url(
            ledger_url, checkpoint_signer=signer, witness=watcher, adopt_unlogged=adopt_unlogged
        )
    else:
        if not (state_dir / "ledger.db").exists():
            raise CliError(
                ExitCode.USAGE, "state.no_ledger", f"no ledger in `{state_dir}` (wrong --state-dir?)"
            )
        ledger = Ledger.sqlite(
            state_dir / "ledger.db",
            checkpoint_signer=signer,
            witness=watcher,
            adopt_unlogged=adopt_unlogged,
        )
    try:
        yield ledger
    finally:
        ledger.close()


@contextmanager
def _store(
    state_dir: Path, wanted: bool, url: str | None, collection: str, dimension: int
) -> Iterator[MemoryStore | None]:
    """The store ``verify --store`` holds to the ledger: a Qdrant server (``url``) or the state
    folder's embedded store (a usage error if the folder has none: never an empty new one)."""
    if not wanted:
        yield None
        return
    from memguard.embedded import open_store

    if url is None and not any((state_dir / d).exists() for d in ("edge", "qdrant")):
        raise CliError(
            ExitCode.USAGE,
            "state.no_store",
            f"no embedded store in `{state_dir}` (give --store-url for a Qdrant server)",
        )
    opened = open_store(state_dir, collection=collection, dimension=dimension, qdrant_url=url)
    try:
        yield opened
    finally:
        opened.close()


def _fail(message: str, exit_code: ExitCode = ExitCode.FAILURE, code: str = "ledger") -> CliError:
    return CliError(exit_code, code, message)


def _signer(state_dir: Path, key: Path | None, *, create: bool) -> CheckpointSigner | None:
    path = _key_path(state_dir, key)
    if create:
        return CheckpointSigner.load_or_create(path)
    return CheckpointSigner.load(path) if path.exists() else None


def _read_arg(value: str) -> str:
    """A key or note argument: the value itself, or ``@file``."""
    return Path(value[1:]).read_text("utf-8") if value.startswith("@") else value


def _render(report: VerifyReport) -> str:
    last = report.last_checkpoint
    when = (
        dt.datetime.fromtimestamp(last.created_at, dt.UTC).isoformat(timespec="seconds")
        if last
        else "-"
    )
    head = "verified" if report.ok else "TAMPERED"
    lines = [
        f"{head}: {report.tree_size} leaves, {report.events} events, {report.pending} queued",
        f"last checkpoint: {f'size {last.tree_size} at {when}' if last else 'none'}"
        f" ({report.checkpoints_checked} stored, {report.external_checked} external checked;"
        f" {report.leaves_after_checkpoint} leaves after it)",
    ]
    if report.replay_from:
        lines.append(f"incremental: replayed the log from leaf {report.replay_from}")
    if report.marked_verified is not None:
        lines.append(f"recorded tree size {report.marked_verified} as verified")
    for p in report.problems:
        where = ", ".join(
            part
            for part in (
                f"leaf {p.leaf_index}" if p.leaf_index is not None else "",
                f"event seq {p.event_seq}" if p.event_seq is not None else "",
                f"node {p.node}" if p.node is not None else "",
                f"checkpoint {p.tree_size}" if p.tree_size is not None else "",
                f"{p.table} {json.dumps(p.key, sort_keys=True)}" if p.table is not None else "",
                f"column {p.column}" if p.column is not None else "",
            )
            if part
        )
        label = "warning" if p.severity == "warning" else "problem"
        lines.append(f"{label}: {p.kind.value} [{where or 'log'}] {p.message}")
    if report.problems_omitted:
        lines.append(f"... and {report.problems_omitted} more problems")
    return "\n".join(lines)


@ledger_app.command("verify")
def verify(
    state_dir: StateDir = DEFAULT_DIR,
    ledger_url: LedgerUrl = None,
    key: KeyFile = None,
    witness: Witness = None,
    checkpoint: Annotated[
        list[Path] | None,
        typer.Option(
            "--checkpoint",
            help="A signed checkpoint kept outside the database (repeatable); detects rollbacks.",
        ),
    ] = None,
    verifier_key: Annotated[
        list[str] | None,
        typer.Option(
            "--verifier-key",
            help="Trusted checkpoint key `name+id+base64` or @file (repeatable); "
            "default: the public half of --key.",
        ),
    ] = None,
    max_pending_age: Annotated[
        float, typer.Option("--max-pending-age", help="Seconds before a queued event is a warning.")
    ] = 300.0,
    store: Annotated[
        bool,
        typer.Option(
            "--store",
            help="Also hold every committed fact's store point to its row (the state folder's "
            "embedded store, or --store-url).",
        ),
    ] = False,
    store_url: Annotated[
        str | None,
        typer.Option("--store-url", help="A Qdrant server URL to check instead (implies --store)."),
    ] = None,
    collection: Annotated[
        str, typer.Option("--collection", help="The store's collection (with --store-url).")
    ] = "memguard_facts",
    dimension: Annotated[
        int, typer.Option("--dimension", min=1, help="The store's vector dimension.")
    ] = 384,
    incremental: Annotated[
        bool,
        typer.Option(
            "--incremental",
            help="Replay only the log after the checkpoint the last clean full verify recorded "
            "(the tree, checkpoints and witness are still checked in full).",
        ),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Recompute the log and replay it: report edited, deleted, reordered or truncated events,
    every projection row, event column or fact link that differs from the log (table, key,
    column, logged and stored value), and a database behind its witness. With --store, every
    store point too (a missing point, or a payload that differs from its row: table `store`)."""
    try:
        external = [path.read_text("utf-8") for path in checkpoint or []]
        vkeys = [_read_arg(v) for v in verifier_key or []]
    except UnicodeDecodeError as exc:
        raise _fail(f"cannot read input: {exc}", ExitCode.INVALID, "invalid_input") from None
    verifier: CheckpointVerifier | None = None
    # the key signs the "verified up to" marker a clean full verify leaves in the witness folder
    signer = _signer(state_dir, key, create=False)
    if vkeys:
        verifier = CheckpointVerifier.from_verifier_keys(vkeys)
    else:
        verifier = signer.verifier() if signer is not None else None
    with _open(state_dir, ledger_url, witness=witness) as ledger, _store(
        state_dir, store or store_url is not None, store_url, collection, dimension
    ) as points:
        with progress(f"verifying the audit log ({ledger.log.size()} leaves)"):
            report = ledger.verify(
                verifier=verifier,
                external_checkpoints=external,
                max_pending_age=max_pending_age,
                store=points,
                since_checkpoint=incremental,
                marker_signer=signer,
            )
    emit(report.as_json(), as_json, _render(report))
    if not report.ok:
        raise typer.Exit(ExitCode.VERIFY_FAILED)


@ledger_app.command("integrate")
def integrate(
    state_dir: StateDir = DEFAULT_DIR,
    ledger_url: LedgerUrl = None,
    max_batch: Annotated[int, typer.Option("--max-batch", min=1)] = 4096,
    as_json: AsJson = False,
) -> None:
    """Move every queued event into the Merkle tree (batches of --max-batch)."""
    total = 0
    with _open(state_dir, ledger_url) as ledger:
        while True:
            n = ledger.log.integrate(max_batch)
            total += n
            if n < max_batch:
                break
        size = ledger.log.size()
    emit({"integrated": total, "tree_size": size}, as_json, f"integrated {total}; tree size {size}")


@ledger_app.command("checkpoint")
def checkpoint(
    state_dir: StateDir = DEFAULT_DIR,
    ledger_url: LedgerUrl = None,
    key: KeyFile = None,
    witness: Witness = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the signed note here (for a witness).")
    ] = None,
) -> None:
    """Integrate everything queued and print a signed checkpoint (creating the key if needed)."""
    signer = _signer(state_dir, key, create=True)
    with _open(state_dir, ledger_url, signer, witness) as ledger:
        info = ledger.log.flush()
    assert info is not None
    if out is not None:
        out.write_text(info.note, "utf-8")
    typer.echo(info.note, nl=False)


@ledger_app.command("repair")
def repair(
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded in the alarm event).")],
    actor: Annotated[str, typer.Option("--actor", help="Who repairs (recorded).")] = "operator",
    state_dir: StateDir = DEFAULT_DIR,
    ledger_url: LedgerUrl = None,
    key: KeyFile = None,
    witness: Witness = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Confirm: the current rows become logged history.")
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Adopt what the log does not cover (events, rows, columns) as it is now, logged as one
    alarm event `ledger.repair`; run `verify` first and decide the current rows are right."""
    if not yes:
        raise _fail(
            "repair turns the current rows into logged history: run `memguard ledger verify` "
            "first, then repeat with --yes",
            ExitCode.USAGE,
            "usage",
        )
    signer = _signer(state_dir, key, create=False)
    with _open(state_dir, ledger_url, signer, witness, adopt_unlogged=True) as ledger:
        counts = ledger.repair(actor=actor, reason=reason)
        info = ledger.log.flush()
    data: dict[str, object] = {**counts, "tree_size": info.tree_size if info else None}
    emit(data, as_json, ", ".join(f"{k} {v}" for k, v in data.items()))


@ledger_app.command("public-key")
def public_key(state_dir: StateDir = DEFAULT_DIR, key: KeyFile = None) -> None:
    """Print the checkpoint verifier key (`name+id+base64`) to hand to witnesses and auditors."""
    signer = _signer(state_dir, key, create=False)
    if signer is None:
        raise _fail(
            f"no checkpoint key at `{_key_path(state_dir, key)}`", ExitCode.NOT_FOUND, "not_found"
        )
    typer.echo(signer.verifier_key())


@ledger_app.command("prove")
def prove(
    event_seq: Annotated[int, typer.Argument(help="The event's seq in mg_audit_event.")],
    state_dir: StateDir = DEFAULT_DIR,
    ledger_url: LedgerUrl = None,
    key: KeyFile = None,
    tree_size: Annotated[
        int | None,
        typer.Option("--tree-size", help="Prove in this tree (default: the latest checkpoint)."),
    ] = None,
) -> None:
    """Print the inclusion proof of one event as JSON, checked against a signed checkpoint."""
    signer = _signer(state_dir, key, create=False)
    with _open(state_dir, ledger_url) as ledger:
        log = ledger.log
        event = log.event_text(event_seq)
        leaf = log.leaf_for_event(event_seq)
        if event is None or leaf is None:
            what = (
                "unknown"
                if event is None
                else "not integrated yet (run `memguard ledger integrate`)"
            )
            raise _fail(f"event seq {event_seq} is {what}", ExitCode.NOT_FOUND, "not_found")
        checkpoints = {c.tree_size: c for c in log.checkpoints()}
        if tree_size is None:
            covering = [s for s in checkpoints if s > leaf]
            if not covering:
                raise _fail(
                    f"event seq {event_seq} is not covered by a checkpoint yet "
                    "(run `memguard ledger checkpoint`)",
                    ExitCode.NOT_FOUND,
                    "not_found",
                )
            tree_size = max(covering)
        proof = log.inclusion_proof(leaf, tree_size)
        note = checkpoints[tree_size].note if tree_size in checkpoints else None
    data: dict[str, object] = {
        "format": "memguard.inclusion-proof/v1",
        "event_seq": event_seq,
        "event": event,
        **proof.as_json(),
        "checkpoint": note,
    }
    code = ExitCode.OK
    try:
        if leaf_hash(event.encode("utf-8")) != proof.leaf_hash:
            raise IntegrityError("the event no longer matches its leaf hash")
        root = proof.root_hash
        if note is not None:
            if signer is None:
                raise _fail(
                    "no checkpoint key to check the checkpoint with",
                    ExitCode.INVALID,
                    "configuration",
                )
            root = signer.verifier().verify_checkpoint(note).root_hash
        proof.verify(root)
        data["verified"] = True
    except IntegrityError as exc:
        data["verified"], data["error"] = False, str(exc)
        code = ExitCode.VERIFY_FAILED
    emit(data, True, "")
    raise typer.Exit(code)


@ledger_app.command("consistency")
def consistency(
    old: Annotated[int, typer.Argument(help="The older tree size.")],
    new: Annotated[int, typer.Argument(help="The newer tree size.")],
    state_dir: StateDir = DEFAULT_DIR,
    ledger_url: LedgerUrl = None,
    key: KeyFile = None,
) -> None:
    """Print the consistency proof between two tree sizes as JSON (checked against checkpoints)."""
    signer = _signer(state_dir, key, create=False)
    with _open(state_dir, ledger_url) as ledger:
        proof = ledger.log.consistency_proof(old, new)
        checkpoints = {c.tree_size: c for c in ledger.log.checkpoints()}
    notes = {size: checkpoints[size].note if size in checkpoints else None for size in (old, new)}
    data: dict[str, object] = {
        "format": "memguard.consistency-proof/v1",
        **proof.as_json(),
        "old_checkpoint": notes[old],
        "new_checkpoint": notes[new],
    }
    code = ExitCode.OK
    try:
        roots = [proof.old_root, proof.new_root]
        for i, size in enumerate((old, new)):
            note = notes[size]
            if note is not None:
                if signer is None:
                    raise _fail(
                        "no checkpoint key to check the checkpoints with",
                        ExitCode.INVALID,
                        "configuration",
                    )
                roots[i] = signer.verifier().verify_checkpoint(note).root_hash
        proof.verify(roots[0], roots[1])
        data["verified"] = True
    except IntegrityError as exc:
        data["verified"], data["error"] = False, str(exc)
        code = ExitCode.VERIFY_FAILED
    emit(data, True, "")
    raise typer.Exit(code)
