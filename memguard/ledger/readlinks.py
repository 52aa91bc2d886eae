"""A read's fact links as a projection of its logged event (SQLite; issue 16).

Every event's canonical JSON names the facts it touched (``fact_ids``), and ``mg_audit_fact``
holds one row per (event, fact) so "which events touched fact X" is an indexed lookup. Writing
those rows in the read's own transaction was about half of what a read's allow event cost at 10^5
facts: each lands on a random page of the ``fact_id`` index. Here a read's allow event
(memguard/ledger/readevent.py) commits its row and queued leaf hash only; its links are derived
from the events afterwards, in batches:

- **which events**: the allow events of :data:`DEFERRED_ACTIONS` (the reads, with or without an
  agent's turn, and ``audit``), on SQLite. Every other event still writes its links in its own
  transaction, so the deletion fence (memguard/ledger/fence.py) and the change-entry lookups see
  them at once, and verify can tell a deferred link from a deleted one by the event alone.
- **the mark**: ``mg_read_projection`` holds ``upto``, a log seq such that every event at or below
  it has its links in ``mg_audit_fact``.
- **the flush** (:func:`flush`): the deferred reads above the mark (every other event wrote its
  links in its own transaction; a write's JSON is neither parsed nor projected again), their
  ``fact_ids`` inserted (already-present links ignored) sorted by fact id, the mark moved to the
  newest event, all in the transaction of a read event every :data:`BATCH` reads of a process
  (:class:`~memguard.ledger.readevent.ReadEvents`), when a ledger that deferred reads is closed
  (:func:`project_at_close`), or on demand (:meth:`Ledger.project_reads`, ``memguard ledger
  repair``). SQLite has one writer at a time and
  the flush holds the write lock, so every event at or below the newest seq is committed and seen:
  the mark never passes an event whose links were not written.
- **the answers stay complete** without a write: :func:`events_above` gives the events above the
  mark that name a fact, read in the same snapshot as the links, and
  :meth:`Ledger.events_for` (``memguard audit``, the console, receipts) merges them. So a crash
  between a read's event and the flush loses nothing: the links are rebuilt from the events.
- **verify** (memguard/ledger/replay.py) compares links and events as before for every event at
  or below the mark and for every event that is not a deferred read; a deferred read above the
  mark may lack its links (the backlog), and a link no event names is still ``row_unlogged``. A
  mark past the newest event, and a row other than the mark, are reported; a mark moved up past a
  read whose links are not written shows as those links missing; a mark moved down has no effect
  but more work for the next flush (``tests/test_ledger_tamper.py`` leaves its value out).

A ledger from before this module has every link written: at its first open the table is created
with the mark at its newest event (:func:`migrate`, under the write lock). A mark row that is
gone is reported by verify; meanwhile answers look at every event, and the next flush puts it back
after rebuilding every read's links from the events (a warning; slow once, never incomplete).

PostgreSQL keeps writing the links in the read's transaction: there a seq is taken before its
transaction commits, so a mark over seqs could pass a transaction that commits later and lose its
links. A process of the previous release on the same SQLite ledger writes its links inline (the
flush's inserts then skip them); its own ``events_for`` does not merge the backlog.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    MetaData,
    Row,
    String,
    Table,
    and_,
    func,
    inspect,
    or_,
    select,
)

from memguard.errors import LedgerError
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.tables import AuditEventRow, AuditFactRow
from memguard.logging import get_logger
from memguard.provenance import canonical_json

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = [
    "BATCH",
    "DEFERRED_ACTIONS",
    "MARK",
    "backlog_start",
    "deferrable",
    "deferred",
    "events_above",
    "events_of",
    "fact_ids_of",
    "flush",
    "mark_row",
    "mark_value",
    "migrate",
    "newest_seq",
    "open_mark",
    "project",
    "projected_links",
]

_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_EVENT_FACT = AuditFactRow.__table__  # type: ignore[attr-defined]

#: reads a process writes between two flushes. The flush is paid by one read: 64 reads of 10 hits
#: measured a worst read of 53-70 ms against 105-121 ms with 256 (SQLite, 2 shared cores, load
#: ~7; the median read 0.11 ms either way, 0.23-0.27 ms with inline links), at about the same mean
BATCH = 64
#: the actions whose allow events defer their links: the reads (``get``, ``search``, ``list``)
#: and ``audit`` (whose events name the facts they showed). Every other event, and every denial
#: or alarm, writes its links in its own transaction.
DEFERRED_ACTIONS = ("get", "search", "list", "audit")
#: the stored events that defer their links (:func:`deferrable` on the columns)
_DEFERRED = and_(_EVENT.c.decision == "allow", _EVENT.c.action.in_(DEFERRED_ACTIONS))
_NAME = "mg_audit_fact"

mark_metadata = MetaData()
MARK = Table(
    "mg_read_projection",
    mark_metadata,
    Column("name", String(32), primary_key=True),
    Column("upto", BigInteger, nullable=False),
)

_SELECT_MARK = f"SELECT upto FROM {MARK.name} WHERE name = ?"
#: the deferred reads above the mark (every other event above it wrote its links at once: its
#: JSON, a write's can name 512 facts, is neither parsed nor projected again)
_ABOVE = (
    f"SELECT seq, event FROM {_EVENT.name} WHERE seq > ? AND decision = 'allow'"
    f" AND action IN ({', '.join('?' * len(DEFERRED_ACTIONS))}) ORDER BY seq"
)
_INSERT = f"INSERT OR IGNORE INTO {_EVENT_FACT.name} (event_seq, fact_id) VALUES (?, ?)"
_NEWEST = f"SELECT max(seq) FROM {_EVENT.name}"
_SET_MARK = f"INSERT OR REPLACE INTO {MARK.name} (name, upto) VALUES (?, ?)"


def fact_ids_of(text: str) -> list[str]:
    """The ``fact_ids`` an event's stored JSON names (none when it is not an event's JSON: the
    tree pass of ``memguard ledger verify`` reports that)."""
    try:
        ev = json.loads(text)
    except ValueError:
        return []
    ids = ev.get("fact_ids") if isinstance(ev, dict) else None
    # str() first: an edited event may name an object (unhashable), which is no fact's id
    return list(dict.fromkeys(str(f) for f in ids)) if isinstance(ids, list) else []


def flush(dbapi: Any, known: Mapping[int, Sequence[str]] = {}) -> int:
    """Project the events above the mark into ``mg_audit_fact`` and move the mark to the newest
    event, on ``dbapi`` (a ``sqlite3`` connection inside a transaction that holds the write lock:
    the caller commits). ``known``: fact ids by seq the caller has at hand (its own events), so
    their JSON is not parsed again. How many links it inserted or found present."""
    row = dbapi.execute(_SELECT_MARK, (_NAME,)).fetchone()
    mark = None if row is None else mark_value(row[0])
    upto = 0 if mark is None else mark  # gone: every read's links rebuilt from the events
    if mark is None:
        get_logger().warning("ledger.read_projection_mark_missing", rebuilt_from=0,
                             hint="memguard ledger verify")  # fmt: skip
    links: list[tuple[int, str]] = []
    for seq, text in dbapi.execute(_ABOVE, (upto, *DEFERRED_ACTIONS)).fetchall():
        ids = known.get(seq)
        links.extend((seq, f) for f in (ids if ids is not None else fact_ids_of(text)))
    links.sort(key=lambda link: (link[1], link[0]))  # the fact_id index's order: fewer pages
    if links:
        dbapi.executemany(_INSERT, links)
    newest = dbapi.execute(_NEWEST).fetchone()[0]
    if newest is not None and (mark is None or int(newest) > upto):
        dbapi.execute(_SET_MARK, (_NAME, int(newest)))
    return len(links)


def deferred(conn: Connection) -> bool:
    """Whether this ledger's reads defer their links (SQLite)."""
    return conn.dialect.name == "sqlite"


def mark_value(value: object) -> int | None:
    """A stored mark's value as a seq; ``None`` (taken as gone) for anything else SQLite holds
    in the column (text, a blob, a real: its type affinity keeps what it cannot convert): an
    answer then looks at every event, the next flush rebuilds every read's links and puts the
    mark back, and verify reports the row (``row_edited``)."""
    if type(value) is int and -(2**63) <= value < 2**63:
        return value
    return None


def mark_row(conn: Connection) -> int | None:
    """The stored mark (``None``: no row, or not a seq: :func:`mark_value`)."""
    value = conn.execute(select(MARK.c.upto).where(MARK.c.name == _NAME)).scalar_one_or_none()
    return None if value is None else mark_value(value)


def backlog_start(conn: Connection) -> int | None:
    """Where the links not written yet may start, for an answer that must be complete: the mark,
    0 when its row is gone (every event is looked at), ``None`` on a ledger that writes every
    link at once (PostgreSQL)."""
    if not deferred(conn):
        return None
    upto = mark_row(conn)
    return 0 if upto is None else upto


def events_above(conn: Connection, fact_id: str, upto: int) -> list[int]:
    """The seqs of the events above ``upto`` (not change entries) whose ``fact_ids`` name
    ``fact_id``: what the projection has not linked yet."""
    return [int(row.seq) for row in _rows_above(conn, fact_id, upto)]


def _rows_above(conn: Connection, fact_id: str, upto: int) -> list[Row[Any]]:
    """``(seq, event, event_digest)`` of the deferred reads above ``upto`` whose ``fact_ids`` name
    ``fact_id`` (a text match narrows, each candidate is then read as JSON; every other event
    above the mark wrote its links at once, so the links' query finds it).
    The match is on the id as the stored JSON spells it: a caller-chosen id may hold ``"``,
    ``\\`` or a control character, which the event's JSON escapes."""
    spelled = {fact_id, canonical_json(fact_id).decode("utf-8")[1:-1]}
    rows = conn.execute(
        select(_EVENT.c.seq, _EVENT.c.event, _EVENT.c.event_digest).where(
            _EVENT.c.seq > upto,
            _DEFERRED,
            or_(*(_EVENT.c.event.contains(s, autoescape=True) for s in sorted(spelled))),
        )
    ).all()
    return [row for row in rows if fact_id in fact_ids_of(row.event)]


def deferrable(action: str, decision: str) -> bool:
    """Whether an event of this action and decision defers its links (on SQLite)."""
    return decision == "allow" and action in DEFERRED_ACTIONS


def projected_links(
    conn: Connection,
    logged: Iterable[tuple[int, str]],
    stored: set[tuple[int, str]],
    upto: int | None,
) -> set[tuple[int, str]]:
    """The links the projection must hold: every logged link at or below the mark, those of
    events that do not defer theirs, and those above it that are written already (``upto``
    ``None``: every logged link). Which events defer: their stored action and decision (verify
    compares those columns with the event JSON)."""
    if upto is None:
        return set(logged)
    backlog = {
        int(seq)
        for seq in conn.execute(
            select(_EVENT.c.seq).where(
                _EVENT.c.seq > upto,
                _DEFERRED,
            )
        ).scalars()
    }
    return {link for link in logged if link[0] not in backlog or link in stored}


def newest_seq(conn: Connection) -> int:
    return int(conn.execute(select(func.coalesce(func.max(_EVENT.c.seq), 0))).scalar_one())


def migrate(conn: Connection) -> bool:
    """Create the mark of a SQLite ledger that has no table for it, at its newest event (every
    link of a ledger from before is written), in the caller's transaction (which holds the write
    lock); whether it did. A table whose row is gone is left so: ``verify`` reports it, answers
    look at every event, and the next flush rebuilds every read's links from the events."""
    if not deferred(conn) or inspect(conn).has_table(MARK.name):
        return False
    MARK.create(conn)
    conn.execute(MARK.insert().values(name=_NAME, upto=newest_seq(conn)))
    return True


def open_mark(ledger: Ledger) -> bool:
    """:func:`migrate` at open, under the write lock (a second process opening at once waits,
    then finds the table); whether it created the mark."""
    if ledger.dialect != "sqlite" or inspect(ledger.engine).has_table(MARK.name):
        return False
    with ledger._tx() as conn:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        return migrate(conn)


def project(ledger: Ledger) -> int:
    """Flush the read links now (:meth:`Ledger.project_reads`): how many links it wrote or
    found present (0 on a ledger that writes every link at once); a driver error is raised as
    :class:`~memguard.errors.LedgerError`."""
    if ledger.dialect != "sqlite":
        return 0
    with ledger._tx() as conn:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        try:
            return flush(dbapi)
        except Exception as exc:  # a driver's, or a value it refuses: never the caller's error
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc


def project_at_close(ledger: Ledger) -> None:
    """At close: write the links of the reads this process deferred, so a short-lived process
    (the CLI, a serverless call, a ledger per request) leaves no backlog for every later
    ``events_for`` to scan and one later read to pay for. Never raises: the events are committed
    either way and the next flush writes their links; a failure is logged."""
    pending = ledger._read_events
    if pending is None or not pending.backlog():
        return
    try:
        project(ledger)
    except Exception as exc:
        try:
            get_logger().warning("ledger.read_links_left", error=type(exc).__name__)
        except Exception:
            pass


def events_of(conn: Connection, fact_id: str) -> list[Row[Any]]:
    """``(seq, event, event_digest)`` of every event but change entries that touched ``fact_id``,
    in log order (:meth:`Ledger.events_for`): its links and the deferred reads above the mark
    that name it. The mark is read first: an event at or below it has its links (read after
    it), one above it is read from the events (never deleted), so a flush in between loses
    none; the backlog's rows are merged here, not bound one variable each into the links'
    query (a backlog of one fact's reads can outgrow SQLite's bound-variable limit)."""
    upto = backlog_start(conn)
    above = [] if upto is None else _rows_above(conn, fact_id, upto)
    linked = select(_EVENT_FACT.c.event_seq).where(_EVENT_FACT.c.fact_id == fact_id)
    rows = conn.execute(
        select(_EVENT.c.seq, _EVENT.c.event, _EVENT.c.event_digest)
        .where(_EVENT.c.seq.in_(linked.scalar_subquery()), _EVENT.c.action != CHANGE_ACTION)
        .order_by(_EVENT.c.seq)
    ).all()
    if not above:
        return list(rows)
    merged = {int(row.seq): row for row in rows}
    for row in above:
        merged.setdefault(int(row.seq), row)
    return [merged[seq] for seq in sorted(merged)]
