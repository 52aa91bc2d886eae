"""The ledger's inserts, compiled once for the engine's dialect and run as driver SQL (the write
path's 64-row inserts and every read's audit event spent more in SQLAlchemy's per-row parameter
processing than in the database). Each value goes through its column type's bind processor first,
as SQLAlchemy would, so the stored rows are byte-identical (tests/test_writepath.py,
tests/test_readpath.py); SQLAlchemy's statement events still see every statement."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, bindparam, insert
from sqlalchemy.sql.compiler import SQLCompiler

from memguard.errors import LedgerError
from memguard.events import AuditEvent
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.tables import AuditEventRow
from memguard.provenance import canonical_json

__all__ = ["BulkInsert", "EventInsert", "event_canonical"]


def event_canonical(ev: AuditEvent) -> bytes:
    """``ev.canonical()``, the same bytes; a change entry's ops are JSON values already (built
    by :func:`~memguard.ledger.changelog.encode_value`), so they skip pydantic's walk of them,
    which cost more than their serialisation (1.7 vs 0.65 ms for a 64-row entry)."""
    if ev.action != CHANGE_ACTION or list(ev.detail) != ["ops"]:
        return ev.canonical()
    data = ev.model_dump(mode="json", exclude={"detail"})
    data["detail"] = ev.detail
    return canonical_json(data)


class BulkInsert:
    """``INSERT INTO table`` (every column) compiled once for the engine's dialect and run with
    ``exec_driver_sql``, each value through its column type's bind processor first (what
    SQLAlchemy applies, e.g. SQLite's datetime text): the write path's 64-row inserts spent
    more in SQLAlchemy's per-row parameter processing than in the database. Every row names
    every column. Driver errors are still wrapped by SQLAlchemy (and become LedgerError)."""

    def __init__(self, table: Any, dialect: Any) -> None:
        compiled = insert(table).compile(dialect=dialect)
        self.sql = str(compiled)
        self._names: tuple[str, ...] | None = (
            tuple(compiled.positiontup or ()) if compiled.positional else None
        )
        processors = {}
        for column in table.columns:
            process = column.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                processors[column.name] = process
        self._processors = processors
        names = self._names
        if names is not None:
            if len(names) < 2 or set(processors) - set(names):  # pragma: no cover
                raise LedgerError(f"cannot compile the insert of {table.name}")
            self._values = operator.itemgetter(*names)
            self._at = [(names.index(n), p) for n, p in processors.items()]

    def run(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            conn.exec_driver_sql(self.sql, self._params(rows))

    def run_raw(
        self, conn: Connection, rows: Sequence[Mapping[str, Any]], errors: type[Exception]
    ) -> None:
        """:meth:`run` on the driver's own cursor, in the same transaction (the links of every
        read's event: SQLAlchemy's execution context cost about as much as inserting them).
        Driver errors (PEP 249 ``errors``) become :class:`LedgerError` here."""
        if not rows:
            return
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        cursor = dbapi.cursor()
        try:
            cursor.executemany(self.sql, self._params(rows))
        except errors as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        finally:
            cursor.close()

    def _params(self, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        params: list[Any]
        if self._names is None:  # named parameters (psycopg): the rows as dicts
            processors = self._processors
            params = [dict(row) for row in rows]
            for row in params:
                for name, process in processors.items():
                    row[name] = process(row[name])
        else:
            values, at = self._values, self._at
            if at:
                params = []
                for row in rows:
                    got = list(values(row))
                    for i, process in at:
                        got[i] = process(got[i])
                    params.append(tuple(got))
            else:
                params = [values(row) for row in rows]
        return params


_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_EVENT_COLUMNS = (
    "event_id", "ts", "action", "decision", "reason", "subject", "trace_id", "event",
    "event_digest",
)  # fmt: skip


class EventInsert:
    """The insert of one audit event (``RETURNING seq``), compiled once for the engine's dialect
    (every read ends with one event; its ``mg_audit_fact`` links go in through
    :class:`BulkInsert`).

    The event goes through ``exec_driver_sql`` (SQLAlchemy's statement events still see it: the
    durability model of the tests counts a transaction that wrote by them), each value through
    its column type's bind processor, as SQLAlchemy would (a ``DateTime`` on SQLite is text in
    SQLAlchemy's format).
    """

    def __init__(self, dialect: Dialect) -> None:
        values = {c: bindparam(c, type_=_EVENT.c[c].type) for c in _EVENT_COLUMNS}
        compiled = insert(_EVENT).values(values).returning(_EVENT.c.seq).compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self._names = tuple(compiled.positiontup or ()) if compiled.positional else None
        self._process = {
            c: _EVENT.c[c].type.dialect_impl(dialect).bind_processor(dialect)
            for c in _EVENT_COLUMNS
        }

    def _bound(self, row: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for c in _EVENT_COLUMNS:
            value, process = row[c], self._process[c]
            out[c] = process(value) if process is not None and value is not None else value
        return out

    def events(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> list[int]:
        """Insert each event row (in order); their ``seq``."""
        seqs = []
        for row in rows:
            bound = self._bound(row)
            params: Any = bound if self._names is None else tuple(bound[n] for n in self._names)
            seqs.append(int(conn.exec_driver_sql(self.sql, params).scalar_one()))
        return seqs
