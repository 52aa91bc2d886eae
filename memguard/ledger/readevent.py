"""The allow event that ends a read, written on the driver connection (SQLite; issue 16).

Every search, get and list ends with one audit event: its row and its queued leaf hash
(``mg_log_pending``) in one relaxed transaction (no fsync at commit:
memguard/ledger/durability.py). Its ``mg_audit_fact`` links (one per returned fact) are a
projection of the logged event, written in batches: every :data:`~memguard.ledger.readlinks.BATCH`
reads of a process, the read's transaction also links the events above the projection's mark
(memguard/ledger/readlinks.py). Through SQLAlchemy, its connection checkout,
``begin`` hook, execution context and commit cost about as much as SQLite's own work on the three
inserts. Here the same transaction runs on a pooled connection's driver (``sqlite3``): the same
statements, compiled by SQLAlchemy once, each value through its column type's bind processor (the
stored rows are byte-identical to the SQLAlchemy path's: tests/test_readevent.py), the same
``synchronous`` bookkeeping as the ``begin`` hook (:func:`~memguard.ledger.durability.relax`),
and the same :func:`~memguard.ledger.opening.precheck` first.

Only allow events that are not change entries and come without turn reads take this path (a
read's allow event); anything else goes through :meth:`Ledger.record`'s transaction as before. Any
driver error rolls the whole transaction back (an event is never committed without its queued
leaf hash) and is raised as :class:`~memguard.errors.LedgerError`: the read then fails closed. So
is anything else raised there (a value a bind processor or the driver refuses with ``TypeError``, an
insert a trigger dropped so its ``RETURNING`` gives no row): SQLAlchemy raises those as
``StatementError``, and the kernel would file a bare ``TypeError`` or ``ValueError`` as the
caller's ``invalid_request``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, insert
from sqlalchemy.sql.compiler import SQLCompiler

from memguard.errors import LedgerError, MemguardError
from memguard.events import AuditEvent
from memguard.ledger import readlinks
from memguard.ledger.durability import relax, synchronous_hook
from memguard.ledger.logtables import PENDING
from memguard.ledger.opening import precheck
from memguard.ledger.rfc6962 import leaf_hash
from memguard.ledger.tables import AuditEventRow
from memguard.provenance import sha256_digest

__all__ = ["ReadEvents", "event_row"]

_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]


def event_row(ev: AuditEvent, canonical: bytes) -> dict[str, Any]:
    """The ``mg_audit_event`` row of ``ev`` whose canonical JSON is ``canonical`` (the columns
    :meth:`Ledger._insert_events` writes too)."""
    return {
        "event_id": ev.event_id,
        "ts": ev.ts,
        "action": ev.action,
        "decision": ev.decision.value,
        "reason": ev.reason[:128],
        "subject": (ev.principal or {}).get("subject"),
        "trace_id": ev.trace_id,
        "event": canonical.decode("utf-8"),
        "event_digest": sha256_digest(canonical),
    }


class _Insert:
    """One insert compiled for SQLite (``?`` parameters in a fixed order) with the bind
    processors of its columns."""

    def __init__(self, stmt: Any, table: Any, dialect: Any) -> None:
        compiled = stmt.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler) and compiled.positional
        self.sql = str(compiled)
        self.names: tuple[str, ...] = tuple(compiled.positiontup or ())
        self._process = [
            table.c[n].type.dialect_impl(dialect).bind_processor(dialect) for n in self.names
        ]

    def params(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(
            p(row[n]) if p is not None and row[n] is not None else row[n]
            for n, p in zip(self.names, self._process, strict=True)
        )


class ReadEvents:
    """The read path's event transaction for one SQLite engine."""

    def __init__(self, engine: Engine) -> None:
        if engine.dialect.name != "sqlite":
            raise ValueError("the driver-level read event is for SQLite")
        dialect = engine.dialect
        self._engine = engine
        columns = [c.name for c in _EVENT.columns if c.name != "seq"]
        values = {c: bindparam(c, type_=_EVENT.c[c].type) for c in columns}
        self._event = _Insert(insert(_EVENT).values(values).returning(_EVENT.c.seq), _EVENT, dialect)
        self._pending = _Insert(insert(PENDING), PENDING, dialect)
        #: this process's events not linked yet (seq -> fact ids), so a flush need not parse them
        self._unlinked: dict[int, list[str]] = {}
        #: and how many reads with turn reads it wrote through the SQLAlchemy path (note_others)
        self._others = 0
        self._lock = threading.Lock()
        # the hook that sets a connection this leaves at NORMAL back to FULL for the next
        # durable transaction: installed before the first relaxed one, as transaction() does
        synchronous_hook(engine)

    def backlog(self) -> bool:
        """Whether this process committed reads whose links are not written yet."""
        with self._lock:
            return bool(self._unlinked) or self._others > 0

    @staticmethod
    def takes(events: Sequence[AuditEvent], turn_reads: Sequence[Any]) -> bool:
        """Whether these are a read's allow events (no turn reads; each of an action that defers
        its links: memguard/ledger/readlinks.py)."""
        return bool(events) and not turn_reads and all(
            readlinks.deferrable(e.action, e.decision.value) for e in events
        )

    def note_others(self, conn: Any, events: Sequence[AuditEvent]) -> None:
        """Count the deferred reads ``events`` written in ``conn``'s transaction through the
        SQLAlchemy path (a read with turn reads), after their inserts (the write lock is held):
        the batch's turn flushes there."""
        n = sum(readlinks.deferrable(e.action, e.decision.value) for e in events)
        if not n:
            return
        with self._lock:
            self._others += n
            due = len(self._unlinked) + self._others >= readlinks.BATCH
            self._others = 0 if due else self._others
        if due:
            dbapi = conn.connection.dbapi_connection
            assert dbapi is not None
            try:
                readlinks.flush(dbapi)
            except MemguardError:
                raise
            except Exception as exc:  # the caller's transaction rolls back: the read fails
                raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc

    def record(self, events: Sequence[AuditEvent], now: float) -> list[tuple[int, str]]:
        """Insert ``events`` with their queued leaves (``queued_at`` = ``now``) in one relaxed
        transaction (with a flush of the read links every :data:`readlinks.BATCH` reads); their
        ``(seq, canonical JSON)``."""
        precheck(self._engine)  # a read-only state: the typed error, before SQLite writes
        raw = self._engine.raw_connection()
        try:
            dbapi: Any = raw.driver_connection
            try:
                relax(raw.info, dbapi)
                dbapi.execute("BEGIN")
                try:
                    return self._insert(dbapi, events, now)
                except BaseException:
                    dbapi.rollback()
                    raise
            except MemguardError:
                raise
            except Exception as exc:  # see the module docstring: never the caller's error
                raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        finally:
            raw.close()

    def _insert(self, dbapi: Any, events: Sequence[AuditEvent], now: float) -> list[tuple[int, str]]:
        from memguard.ledger.inserts import event_canonical

        done: list[tuple[int, str]] = []
        pending: list[tuple[Any, ...]] = []
        ids: dict[int, list[str]] = {}
        for ev in events:
            canonical = event_canonical(ev)  # once: the stored text, its digest and leaf
            row = event_row(ev, canonical)
            seq = int(dbapi.execute(self._event.sql, self._event.params(row)).fetchone()[0])
            done.append((seq, row["event"]))
            pending.append(self._pending.params(
                {"event_seq": seq, "leaf_hash": leaf_hash(canonical), "queued_at": now}
            ))  # fmt: skip
            ids[seq] = list(dict.fromkeys(ev.fact_ids))
        dbapi.executemany(self._pending.sql, pending)
        with self._lock:
            due = len(self._unlinked) + self._others + len(ids) >= readlinks.BATCH
            known = {**self._unlinked, **ids} if due else {}
            self._others = 0 if due else self._others
        if due:  # in this transaction: the write lock is held, every lower seq is committed
            readlinks.flush(dbapi, known)
        dbapi.commit()
        with self._lock:
            if due:
                for seq in known:
                    self._unlinked.pop(seq, None)
            else:
                self._unlinked.update(ids)
        return done
