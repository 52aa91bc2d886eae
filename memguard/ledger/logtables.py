"""The audit log's tables (in the ledger's own database) and the compiled statements that fill
them; see memguard/ledger/auditlog.py for what each holds."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    ClauseElement,
    Column,
    Connection,
    Dialect,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
)
from sqlalchemy.sql.compiler import SQLCompiler

from memguard.errors import LedgerError
from memguard.ledger.rfc6962 import HASH_SIZE
from memguard.ledger.tables import AuditEventRow

_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]

# SQLite: an INTEGER PRIMARY KEY is the rowid (no second index); PostgreSQL: BIGINT.
_Index = BigInteger().with_variant(Integer, "sqlite")

log_metadata = MetaData()

PENDING = Table(
    "mg_log_pending",
    log_metadata,
    Column("event_seq", _Index, primary_key=True, autoincrement=False),
    Column("leaf_hash", LargeBinary(HASH_SIZE), nullable=False),
    Column("queued_at", Float, nullable=False),
)
LEAF = Table(
    "mg_log_leaf",
    log_metadata,
    Column("leaf_index", _Index, primary_key=True, autoincrement=False),
    Column("event_seq", BigInteger, nullable=False, unique=True),
    Column("leaf_hash", LargeBinary(HASH_SIZE), nullable=False),
)
NODE = Table(
    "mg_log_node",
    log_metadata,
    Column("level", Integer, primary_key=True, autoincrement=False),
    Column("node_index", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", LargeBinary(HASH_SIZE), nullable=False),
)
CHECKPOINT = Table(
    "mg_log_checkpoint",
    log_metadata,
    Column("tree_size", _Index, primary_key=True, autoincrement=False),
    Column("root_hash", LargeBinary(HASH_SIZE), nullable=False),
    Column("note", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

_LOCK_CLASS = 0x6D67_6C67  # "mglg": pg_advisory_xact_lock(class, hashtext(current_schema()))
_CHUNK = 500


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


class _Compiled:
    """A statement compiled once for the engine's dialect, run with ``exec_driver_sql``.

    The hot paths (one queued row per event, thousands of leaf and node rows per batch) spent most
    of their time in SQLAlchemy's per-row parameter processing; the driver takes plain tuples or
    dicts. Errors are still wrapped by SQLAlchemy (and become :class:`LedgerError`).
    """

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self._names: tuple[str, ...] | None = (
            tuple(compiled.positiontup or ()) if compiled.positional else None
        )

    def _params(self, rows: Sequence[dict[str, object]]) -> list[Any]:
        names = self._names
        return list(rows) if names is None else [tuple(row[n] for n in names) for row in rows]

    def run(self, conn: Connection, rows: Sequence[dict[str, object]]) -> None:
        if rows:
            conn.exec_driver_sql(self.sql, self._params(rows))

    def run_raw(
        self, conn: Connection, rows: Sequence[dict[str, object]], errors: type[Exception]
    ) -> None:
        """On the driver's own cursor, in the same transaction: the once-per-event path, where
        SQLAlchemy's execution context cost three times the insert itself. Driver errors (PEP 249
        ``errors``) become :class:`LedgerError` here, since SQLAlchemy does not see them."""
        params = self._params(rows)
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        cursor = dbapi.cursor()
        try:
            if len(params) == 1:
                cursor.execute(self.sql, params[0])
            else:
                cursor.executemany(self.sql, params)
        except errors as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        finally:
            cursor.close()
