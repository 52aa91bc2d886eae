"""``memguard adopt ...``: turn an existing Qdrant collection, mem0 store, LangGraph store or SQL
table into guarded facts, as the local operator (docs/adopt.md).

Run with ``--dry-run`` first: it reads the legacy store and prints how many rows each owner would
get and why the others would be skipped, and writes nothing. Without it, every batch is one
audited ``adopt`` operation; a rerun continues where an interrupted one stopped.

Exit codes (the table of every ``memguard`` command): 0 done (skipped rows are reported, not an
error), 2 usage, 3 invalid input (a bad mapping, a table without the columns named), 5 denied (the
policy refuses an owner's write in the namespace), 1 any other failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.group import ConventionGroup
from memguard.clikit.output import emit
from memguard.clikit.progress import progress

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from memguard.adopt.rows import AdoptReport, LegacyRow, OwnerMapping
    from memguard.embedded import EmbeddedStack
    from memguard.ledger import Ledger
    from memguard.trust import TrustLevel

adopt_app = typer.Typer(
    cls=ConventionGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help=__doc__,
)

StateDir = Annotated[
    Path, typer.Option("--state-dir", help="The memguard state folder that receives the facts.")
]
LedgerUrl = Annotated[
    str | None,
    typer.Option("--ledger-url", help="A PostgreSQL ledger instead of STATE_DIR/ledger.db."),
]
Issuer = Annotated[
    str,
    typer.Option("--issuer", help="The issuer of the owners' tokens (owner = issuer + subject)."),
]
OwnerMap = Annotated[
    Path | None,
    typer.Option("--owner-map", help="A JSON object mapping stored owner values to subjects; "
                 "a value it does not list is skipped."),
]  # fmt: skip
TextField = Annotated[
    str, typer.Option("--text-field", help="The field or column holding the text ('' = the whole "
                      "record as JSON).")
]  # fmt: skip
Namespace = Annotated[
    str | None, typer.Option("--namespace", help="The namespace of the adopted facts.")
]
Trust = Annotated[str, typer.Option("--trust", help="The trust of adopted facts (at most `user`).")]
Batch = Annotated[int, typer.Option("--batch", min=1, max=10_000, help="Rows per audited batch.")]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Count owners and skipped rows; write nothing.")
]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _mapping(
    issuer: str, fields: list[str] | None, index: int | None, owner_map: Path | None
) -> OwnerMapping:
    from memguard.adopt.rows import OwnerMapping

    subjects = None
    if owner_map is not None:
        data = json.loads(owner_map.read_text("utf-8"))
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()
        ):
            raise CliError(ExitCode.INVALID, "invalid_input",
                           "`--owner-map` must be a JSON object of strings")  # fmt: skip
        subjects = data
    if not fields and index is None:
        raise CliError(ExitCode.USAGE, "usage", "say where the owner is (--owner-field, "
                       "--owner-column or --owner-namespace-index)")  # fmt: skip
    return OwnerMapping(issuer=issuer, fields=tuple(fields or ()), namespace_index=index,
                        subjects=subjects)  # fmt: skip


def _trust(value: str) -> TrustLevel:
    from memguard.trust import TrustLevel

    try:
        return TrustLevel.parse(value)
    except ValueError:
        raise CliError(ExitCode.USAGE, "usage", f"unknown trust level `{value}`") from None


def _operator() -> str:
    from memguard.cli import _operator as operator

    return operator()


def _has_ledger(state_dir: Path, ledger_url: str | None) -> bool:
    return ledger_url is not None or (state_dir / "ledger.db").exists()


def _dry_ledger(state_dir: Path, ledger_url: str | None) -> Ledger | None:
    from memguard.ledger import Ledger

    if ledger_url is not None:
        return Ledger.from_url(ledger_url)
    if (state_dir / "ledger.db").exists():
        return Ledger.sqlite(state_dir / "ledger.db")
    return None


def _stack(state_dir: Path, ledger_url: str | None) -> EmbeddedStack:
    from memguard.embedded import open_embedded

    return open_embedded(state_dir, ledger_url=ledger_url)


def _finish(report: AdoptReport, as_json: bool) -> None:
    emit(report.as_json(), as_json, report.text())


def _into_guard(
    rows: Callable[[], Iterable[LegacyRow]],
    *,
    uri: str,
    name: str | None,
    mapping: OwnerMapping,
    namespace: str | Callable[[LegacyRow], str],
    text_field: str,
    trust: str,
    keep_vectors: bool,
    batch: int,
    dry_run: bool,
    state_dir: Path,
    ledger_url: str | None,
    as_json: bool,
    total: int | None = None,
) -> None:
    from memguard.adopt.run import adopt_into_guard, legacy_source

    level = _trust(trust)
    source = legacy_source(uri, name)
    operator = _operator()
    ledger = _dry_ledger(state_dir, ledger_url) if dry_run else None
    stack = None if dry_run else _stack(state_dir, ledger_url)
    try:
        with progress("reading (dry run)" if dry_run else "adopting", total=total) as bar:
            report = adopt_into_guard(
                stack.guard if stack is not None else None, rows(), source=source,
                mapping=mapping, namespace=namespace, operator=operator,
                text_field=text_field or None, trust=level, keep_vectors=keep_vectors,
                batch=batch, dry_run=dry_run, on_batch=bar.advance, ledger=ledger,
            )  # fmt: skip
    finally:
        if ledger is not None:
            ledger.close()
        if stack is not None:
            stack.close()
    _finish(report, as_json)


@adopt_app.command("qdrant")
def adopt_qdrant(
    collection: Annotated[str, typer.Option("--collection", help="The collection to adopt.")],
    issuer: Issuer,
    path: Annotated[
        Path | None, typer.Option("--path", help="A qdrant-client local-mode folder.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="A Qdrant server.")] = None,
    edge: Annotated[
        Path | None, typer.Option("--edge", help="A qdrant-edge shard folder (edge_config.json).")
    ] = None,
    owner_field: Annotated[
        list[str] | None,
        typer.Option(
            "--owner-field",
            help="A payload field naming the owner (repeatable: the fields present must agree).",
        ),
    ] = None,
    owner_map: OwnerMap = None,
    text_field: TextField = "text",
    namespace: Namespace = None,
    trust: Trust = "untrusted",
    in_place: Annotated[
        bool,
        typer.Option(
            "--in-place",
            help="Stamp the points where they are, for GuardedQdrantClient (not with --edge).",
        ),
    ] = False,
    keep_vectors: Annotated[
        bool,
        typer.Option("--keep-vectors", help="Reuse the stored vectors (same embedding model)."),
    ] = False,
    batch: Batch = 256,
    dry_run: DryRun = False,
    state_dir: StateDir = Path(".memguard"),
    ledger_url: LedgerUrl = None,
    as_json: AsJson = False,
) -> None:
    """Adopt the points of a Qdrant collection (local folder, server, or qdrant-edge shard)."""
    _qdrant(collection, issuer, path, url, edge, owner_field, owner_map, text_field, namespace,
            trust, in_place, keep_vectors, batch, dry_run, state_dir, ledger_url, as_json)  # fmt: skip


@adopt_app.command("mem0")
def adopt_mem0(
    issuer: Issuer,
    path: Annotated[
        Path | None, typer.Option("--path", help="mem0's qdrant-client local folder.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="mem0's Qdrant server.")] = None,
    collection: Annotated[str, typer.Option("--collection", help="mem0's collection.")] = "mem0",
    owner_field: Annotated[
        list[str] | None, typer.Option("--owner-field", help="Owner fields (default user_id).")
    ] = None,
    owner_map: OwnerMap = None,
    namespace: Namespace = None,
    trust: Trust = "untrusted",
    in_place: Annotated[
        bool,
        typer.Option(
            "--in-place",
            help="Stamp the memories where they are, for GuardedMemory over the same mem0 store.",
        ),
    ] = False,
    batch: Batch = 256,
    dry_run: DryRun = False,
    state_dir: StateDir = Path(".memguard"),
    ledger_url: LedgerUrl = None,
    as_json: AsJson = False,
) -> None:
    """Adopt a mem0 store (its Qdrant collection: text in `data`, owner in `user_id`)."""
    from memguard.adopt.sources import MEM0_OWNER_FIELDS, MEM0_TEXT_FIELD

    _qdrant(collection, issuer, path, url, None, owner_field or list(MEM0_OWNER_FIELDS),
            owner_map, MEM0_TEXT_FIELD, namespace, trust, in_place, False, batch, dry_run,
            state_dir, ledger_url, as_json, mem0=True)  # fmt: skip


def _qdrant(
    collection: str, issuer: str, path: Path | None, url: str | None, edge: Path | None,
    owner_field: list[str] | None, owner_map: Path | None, text_field: str,
    namespace: str | None, trust: str, in_place: bool, keep_vectors: bool, batch: int,
    dry_run: bool, state_dir: Path, ledger_url: str | None, as_json: bool, mem0: bool = False,
) -> None:  # fmt: skip
    from memguard.adopt.sources import qdrant_edge_rows, qdrant_rows

    if sum(x is not None for x in (path, url, edge)) != 1:
        raise CliError(ExitCode.USAGE, "usage", "give one of --path, --url or --edge")
    mapping = _mapping(issuer, owner_field, None, owner_map)
    if edge is not None:
        if in_place:
            raise CliError(
                ExitCode.USAGE, "usage", "--in-place works on a qdrant-client collection"
            )
        uri = f"qdrant-edge:{edge.resolve()}"
        _into_guard(lambda: qdrant_edge_rows(edge, with_vectors=keep_vectors), uri=uri,
                    name=collection, mapping=mapping, namespace=namespace or collection,
                    text_field=text_field, trust=trust, keep_vectors=keep_vectors, batch=batch,
                    dry_run=dry_run, state_dir=state_dir, ledger_url=ledger_url,
                    as_json=as_json)  # fmt: skip
        return
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(path)) if path is not None else QdrantClient(url=url)
    uri = f"qdrant:{path.resolve() if path is not None else url}#{collection}"
    try:
        if not client.collection_exists(collection):
            raise CliError(ExitCode.INVALID, "invalid_input", f"no collection `{collection}`")
        if in_place:
            _in_place(client, collection, uri, mapping, text_field, trust, batch, dry_run,
                      state_dir, ledger_url, as_json, mem0_namespace=(namespace or "mem0")
                      if mem0 else None)  # fmt: skip
            return
        _into_guard(lambda: qdrant_rows(client, collection, with_vectors=keep_vectors), uri=uri,
                    name=collection, mapping=mapping, namespace=namespace or collection,
                    text_field=text_field, trust=trust, keep_vectors=keep_vectors, batch=batch,
                    dry_run=dry_run, state_dir=state_dir, ledger_url=ledger_url,
                    as_json=as_json, total=client.count(collection, exact=True).count)  # fmt: skip
    finally:
        client.close()


def _in_place(
    client: QdrantClient, collection: str, uri: str, mapping: OwnerMapping, text_field: str,
    trust: str, batch: int, dry_run: bool, state_dir: Path, ledger_url: str | None,
    as_json: bool, mem0_namespace: str | None = None,
) -> None:  # fmt: skip
    from memguard.adopt.mem0 import adopt_mem0_collection_in_place
    from memguard.adopt.run import adopt_qdrant_in_place

    level = _trust(trust)
    operator = _operator()
    ledger = _dry_ledger(state_dir, ledger_url) if dry_run else None
    stack = None if dry_run else _stack(state_dir, ledger_url)
    try:
        total = client.count(collection, exact=True).count
        with progress("reading (dry run)" if dry_run else "adopting in place", total=total) as bar:
            kernel = stack.guard.kernel if stack is not None else None
            if mem0_namespace is not None:  # mem0's layout (GuardedMemory)
                report = adopt_mem0_collection_in_place(
                    kernel, client, collection, mapping=mapping, operator=operator,
                    namespace=mem0_namespace, trust=level, source_uri=uri, batch=batch,
                    dry_run=dry_run, on_batch=bar.advance, ledger=ledger,
                )  # fmt: skip
            else:
                report = adopt_qdrant_in_place(
                    kernel, client, collection, mapping=mapping, operator=operator,
                    text_field=text_field or None, trust=level, source_uri=uri, batch=batch,
                    dry_run=dry_run, on_batch=bar.advance, ledger=ledger,
                )  # fmt: skip
    finally:
        if ledger is not None:
            ledger.close()
        if stack is not None:
            stack.close()
    _finish(report, as_json)


@adopt_app.command("langgraph")
def adopt_langgraph(
    issuer: Issuer,
    dump: Annotated[
        Path | None, typer.Option("--dump", help="A JSON dump of a store (InMemoryStore).")
    ] = None,
    sqlite: Annotated[
        Path | None, typer.Option("--sqlite", help="A LangGraph SQLite store file.")
    ] = None,
    postgres: Annotated[
        str | None, typer.Option("--postgres", help="A LangGraph PostgreSQL store URL.")
    ] = None,
    table: Annotated[str, typer.Option("--table", help="The store's table.")] = "store",
    owner_namespace_index: Annotated[
        int | None,
        typer.Option(
            "--owner-namespace-index",
            min=0,
            help="The namespace element naming the owner (users/ALICE/...: 1).",
        ),
    ] = None,
    owner_field: Annotated[
        list[str] | None, typer.Option("--owner-field", help="A value field naming the owner.")
    ] = None,
    owner_map: OwnerMap = None,
    text_field: TextField = "text",
    namespace: Namespace = None,
    trust: Trust = "untrusted",
    batch: Batch = 256,
    dry_run: DryRun = False,
    state_dir: StateDir = Path(".memguard"),
    ledger_url: LedgerUrl = None,
    as_json: AsJson = False,
) -> None:
    """Adopt the items of a LangGraph store (a JSON dump, or its SQLite / PostgreSQL table).
    Each fact's namespace is the item's namespace joined by `/` unless --namespace is given."""
    from memguard.adopt.sources import langgraph_dump_rows, langgraph_sql_rows

    if sum(x is not None for x in (dump, sqlite, postgres)) != 1:
        raise CliError(ExitCode.USAGE, "usage", "give one of --dump, --sqlite or --postgres")
    if owner_field and owner_namespace_index is not None:
        raise CliError(ExitCode.USAGE, "usage", "give the owner one way")
    mapping = _mapping(issuer, owner_field, owner_namespace_index, owner_map)
    rows: Callable[[], Iterable[LegacyRow]]
    if dump is not None:
        uri = f"langgraph-dump:{dump.resolve()}"
        rows = lambda: langgraph_dump_rows(dump)  # noqa: E731
    else:
        db = f"sqlite:///{sqlite.resolve()}" if sqlite is not None else str(postgres)
        uri = f"langgraph-sql:{_redact(db)}#{table}"
        rows = lambda: langgraph_sql_rows(db, table=table)  # noqa: E731

    def item_namespace(row: LegacyRow) -> str:
        return "/".join(row.path) or "langgraph"

    _into_guard(rows, uri=uri, name=None, mapping=mapping,
                namespace=namespace or item_namespace, text_field=text_field, trust=trust,
                keep_vectors=False, batch=batch, dry_run=dry_run, state_dir=state_dir,
                ledger_url=ledger_url, as_json=as_json)  # fmt: skip


@adopt_app.command("sql")
def adopt_sql(
    url: Annotated[
        str,
        typer.Option("--url", help="A SQLAlchemy URL (sqlite:///..., postgresql+psycopg://...)."),
    ],
    table: Annotated[str, typer.Option("--table", help="The table to adopt.")],
    issuer: Issuer,
    owner_column: Annotated[
        list[str], typer.Option("--owner-column", help="The column naming the owner (repeatable).")
    ],
    id_column: Annotated[str, typer.Option("--id-column", help="The row id column.")] = "id",
    owner_map: OwnerMap = None,
    text_column: Annotated[str, typer.Option("--text-column", help="The text column.")] = "text",
    namespace: Namespace = None,
    trust: Trust = "untrusted",
    batch: Batch = 256,
    dry_run: DryRun = False,
    state_dir: StateDir = Path(".memguard"),
    ledger_url: LedgerUrl = None,
    as_json: AsJson = False,
) -> None:
    """Adopt the rows of a SQL table: one fact per row, text from --text-column."""
    from memguard.adopt.sources import sql_rows

    mapping = _mapping(issuer, owner_column, None, owner_map)
    _into_guard(lambda: sql_rows(url, table, id_column=id_column),
                uri=f"sql:{_redact(url)}#{table}", name=table, mapping=mapping,
                namespace=namespace or table, text_field=text_column, trust=trust,
                keep_vectors=False, batch=batch, dry_run=dry_run, state_dir=state_dir,
                ledger_url=ledger_url, as_json=as_json)  # fmt: skip


def _redact(url: str) -> str:
    """A database URL without its password (it goes into every fact's provenance)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "sql"
