"""``memguard store ...``: check the embedded vector store against the ledger, rebuild it from it, and
build its HNSW index (``optimize``).

Exit codes (the table of every ``memguard`` command): 0 ok (check: every committed fact's point
matches its ledger row; rebuild: done, even with facts whose content was lost, which are listed),
4 check found damage, 2 usage (no ledger in ``--state-dir``), 1 any other failure (e.g. the store
is open in another process). Results on stdout, errors on stderr (JSON on stdout under ``--json``).
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memguard.clikit import DEFAULT_STATE
from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.group import ConventionGroup
from memguard.clikit.output import emit
from memguard.clikit.progress import progress
from memguard.logging import get_logger

if TYPE_CHECKING:
    from memguard.ledger import Ledger

store_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help=__doc__,
)

StateDir = Annotated[
    Path, typer.Option("--state-dir", help="Folder of the embedded ledger (ledger.db) and store.")
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
_log = get_logger("memguard.store")
PROGRESS = "progress.json"

if TYPE_CHECKING:
    from memguard.stores.repair import RebuildProgress


def _load_progress(staging: Path, expected: str) -> RebuildProgress | None:
    """The checkpoint of an interrupted rebuild into ``staging``, if it walks ``expected``."""
    import json

    from memguard.stores.repair import RebuildProgress

    try:
        data = json.loads((staging / PROGRESS).read_text("utf-8"))
        saved = RebuildProgress.from_json(data if isinstance(data, dict) else {})
    except (OSError, ValueError):
        return None
    return saved if saved.fingerprint == expected else None


def _save_progress(staging: Path, state: RebuildProgress) -> None:
    """Atomically: a kill leaves the previous checkpoint or this one, never half of one."""
    import json
    import os

    tmp = staging / (PROGRESS + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(state.as_json(), fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, staging / PROGRESS)


def _ledger(state_dir: Path) -> Ledger:
    from memguard.ledger import Ledger
    from memguard.ledger.checkpoint import CheckpointSigner

    if not (state_dir / "ledger.db").exists():
        raise CliError(
            ExitCode.USAGE, "state.no_ledger", f"no ledger in `{state_dir}` (wrong --state-dir?)"
        )
    key = state_dir / "keys" / "checkpoint.key"
    signer = CheckpointSigner.load(key) if key.exists() else None
    return Ledger.sqlite(state_dir / "ledger.db", checkpoint_signer=signer)


@store_app.command()
def check(state_dir: StateDir = DEFAULT_STATE, as_json: AsJson = False) -> None:
    """Compare every committed fact's store point with its ledger row; name what disagrees."""
    from memguard.embedded import open_store
    from memguard.ledger import FactState
    from memguard.stores.edge import QdrantEdgeStore
    from memguard.stores.repair import check_store

    ledger = _ledger(state_dir)
    try:
        store = open_store(state_dir)
        try:
            total = len(ledger.in_state(FactState.COMMITTED))
            with progress("checking the store", total=total) as bar:
                report = check_store(ledger, store, advance=bar.advance)
            # an index built under older HNSW settings: exact results need one `store optimize`
            stale = isinstance(store, QdrantEdgeStore) and store.stale_index()
        finally:
            store.close()
    finally:
        ledger.close()
    _log.info("store.check", ok=report.ok, checked=report.checked, problems=len(report.problems))
    lines = [f"checked {report.checked} committed facts: {report.matching} match the ledger"]
    lines += [f"  {fid}  {problem}" for fid, problem in sorted(report.problems.items())]
    if report.unknown_points:
        lines.append(f"{len(report.unknown_points)} points the ledger does not know")
    if not report.ok:
        lines.append("`memguard store rebuild` recreates the store from the ledger")
    if stale:
        lines.append(
            "the store's HNSW index was built with older settings (search may be "
            "approximate): run `memguard store optimize` once"
        )
    emit({**report.as_json(), "stale_index": stale}, as_json, "\n".join(lines))
    if not report.ok:
        raise typer.Exit(ExitCode.VERIFY_FAILED)


@store_app.command()
def rebuild(state_dir: StateDir = DEFAULT_STATE, as_json: AsJson = False) -> None:
    """Write a fresh qdrant-edge store from the ledger; keep the old one beside it.

    Each committed fact's reserved block comes from its ledger record; its content and vector from
    the old store when their digest matches the ledger (the ledger keeps digests, not content).
    The new store is built in ``edge.rebuild/`` and swapped in; the old one is kept as
    ``edge.old-<time>/`` (or ``qdrant/`` stays, for an older folder). Resumable: progress is
    checkpointed after each batch (``edge.rebuild/progress.json``), and a rebuild that was stopped
    or killed continues where it was when run again (it starts over if the ledger's committed facts
    changed since).
    """
    from memguard.embedded import store_engine
    from memguard.events import AuditEvent, Decision
    from memguard.stores.base import MemoryStore
    from memguard.stores.edge import QdrantEdgeStore, StoreDamaged
    from memguard.stores.repair import committed_ids, fingerprint, rebuild_store

    ledger = _ledger(state_dir)
    try:
        engine = store_engine(state_dir)
        source: MemoryStore | None = None
        try:
            if engine == "edge" and (state_dir / "edge").exists():
                source = QdrantEdgeStore(state_dir / "edge")
            elif engine == "local":
                from memguard.stores.qdrant import QdrantStore

                source = QdrantStore(path=str(state_dir / "qdrant"))
        except StoreDamaged as exc:
            _log.warning("store.rebuild.source_unreadable", reason=str(exc))
        staging = state_dir / "edge.rebuild"
        committed = committed_ids(ledger)
        resume = _load_progress(staging, fingerprint(committed))
        if resume is None and staging.exists():
            shutil.rmtree(staging)  # not resumable (no checkpoint, or the ledger moved on): redo
        target = QdrantEdgeStore(staging)

        def save(state: RebuildProgress) -> None:
            target.flush()  # the points before the checkpoint that says they are there
            _save_progress(staging, state)

        try:
            with progress("rebuilding the store", total=len(committed)) as bar:
                report = rebuild_store(ledger, source, target, advance=bar.advance,
                                       resume=resume, checkpoint=save)  # fmt: skip
        finally:
            target.close()
            if source is not None:
                source.close()
        (staging / PROGRESS).unlink(missing_ok=True)
        old = None
        if (state_dir / "edge").exists():
            old = state_dir / f"edge.old-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%S')}"
            (state_dir / "edge").rename(old)
        staging.rename(state_dir / "edge")
        ledger.record(
            [
                AuditEvent(
                    action="store_rebuild",
                    decision=Decision.ALLOW,
                    reason="ok",
                    fact_ids=tuple(sorted(report.lost)),
                    detail={
                        "restored": report.restored,
                        "lost": len(report.lost),
                        "from": engine,
                        "resumed_after": None if resume is None else resume.after,
                    },
                )
            ]
        )
    finally:
        ledger.close()
    _log.info("store.rebuild", restored=report.restored, lost=len(report.lost), kept=str(old))
    data = {
        **report.as_json(),
        "kept": None if old is None else str(old),
        "resumed_after": None if resume is None else resume.after,
    }
    lines = [f"restored {report.restored} of {report.committed} committed facts into `edge/`"]
    if resume is not None:
        lines.append(f"(resumed an interrupted rebuild after `{resume.after}`)")
    lines += [f"  lost {fid}  {why} (stays withheld)" for fid, why in sorted(report.lost.items())]
    if old is not None:
        lines.append(f"the old store is kept in `{old}`")
    emit(data, as_json, "\n".join(lines))


@store_app.command()
def optimize(state_dir: StateDir = DEFAULT_STATE, as_json: AsJson = False) -> None:
    """Build the qdrant-edge store's per-owner HNSW graphs now (blocks for minutes at 10^5 facts).

    Run it off the request path (no other process may hold the store). Searches are exact until
    then; after it, a search scoped to one owner with more vector data than the full-scan threshold
    (32 MiB) walks that owner's graph, and every other search stays exact (docs/storage.md; recall@10
    in docs/benchmarks.md). Run it once after upgrading: segments indexed before keep their graphs."""
    import time

    from memguard.embedded import store_engine
    from memguard.stores.edge import QdrantEdgeStore

    if store_engine(state_dir) != "edge" or not (state_dir / "edge").exists():
        raise CliError(ExitCode.USAGE, "store.not_edge", f"no qdrant-edge store in `{state_dir}`")
    store = QdrantEdgeStore(state_dir / "edge")
    try:
        t0 = time.perf_counter()
        with progress("building the HNSW index"):
            changed = store.optimize()
        seconds = time.perf_counter() - t0
    finally:
        store.close()
    _log.info("store.optimize", changed=changed, seconds=round(seconds, 3))
    emit({"optimized": changed, "seconds": round(seconds, 3)}, as_json,
         f"{'optimized' if changed else 'already optimal'} in {seconds:.1f} s")  # fmt: skip
