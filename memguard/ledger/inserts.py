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

__all__ = ["BulkInsert", "EventInsert", "FactKeys", "event_canonical"]


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


class FactKeys:
    """The write path's statements over a set of ``(fact_id, version)`` keys (a batch's state
    change ``pending`` -> ``committed`` or ``aborted``, and the removal of its staging-owner rows),
    as driver SQL built once per chunk length: SQLAlchemy expanded the tuple ``IN`` of each call
    anew (``_literal_execute_expanding_parameter``, about 1 ms of CPU per 64 keys and statement).
    The SQL is what SQLAlchemy renders for ``tuple_(fact_id, version).in_(keys)``: a row-value
    ``IN (VALUES ...)``, on SQLite and PostgreSQL alike; every value is a plain string or integer
    (no bind processor applies). SQLAlchemy's statement events still see each statement."""

    def __init__(self, dialect: Dialect) -> None:
        self._mark = "?" if dialect.paramstyle == "qmark" else "%s"
        self._sql: dict[tuple[str, int], str] = {}

    def _in(self, n: int) -> str:
        m = self._mark
        return "(fact_id, version) IN (VALUES " + ", ".join([f"({m}, {m})"] * n) + ")"

    def set_state(
        self, conn: Connection, keys: Sequence[tuple[str, int]], old: str, new: str
    ) -> list[dict[str, Any]]:
        """``UPDATE mg_provenance SET state = new WHERE key IN keys AND state = old``; the keys
        of the rows it changed (``RETURNING``), as ``{"fact_id", "version"}`` dicts."""
        sql = self._sql.get(("state", len(keys)))
        if sql is None:
            m = self._mark
            sql = self._sql[("state", len(keys))] = (
                f"UPDATE mg_provenance SET state={m} WHERE {self._in(len(keys))} AND "
                f"mg_provenance.state = {m} RETURNING mg_provenance.fact_id, mg_provenance.version"
            )
        params: list[Any] = [new]
        for fact_id, version in keys:
            params += (fact_id, version)
        params.append(old)
        rows = conn.exec_driver_sql(sql, tuple(params)).all()
        return [{"fact_id": row[0], "version": row[1]} for row in rows]

    def drop_owners(self, conn: Connection, keys: Sequence[tuple[str, int]]) -> None:
        """``DELETE FROM mg_pending_owner WHERE key IN keys`` (memguard/ledger/recovery.py)."""
        sql = self._sql.get(("owner", len(keys)))
        if sql is None:
            sql = self._sql[("owner", len(keys))] = (
                f"DELETE FROM mg_pending_owner WHERE {self._in(len(keys))}"
            )
        params: list[Any] = []
        for fact_id, version in keys:
            params += (fact_id, version)
        conn.exec_driver_sql(sql, tuple(params))
