"""The change-entry link table ``mg_change_fact``: (fact id, event seq) of every change entry
(action :data:`~memguard.ledger.changelog.CHANGE_ACTION`) and each fact its signed ``fact_ids``
name, written in the transaction of the entry.

Why a table of its own: ``mg_audit_fact`` links an event to every fact it touched, reads included,
so a fact read often has many links that are not change entries, and the read path (which needs
only the change entries, :func:`memguard.ledger.replay.logged_heads`) slowed as its facts were
read (issue 16: 4.5 ms CPU per search instead of 2.8 after 100 reads per fact).

Like ``mg_audit_fact`` the table is derived from the log, never trusted alone:

- the read path hashes each linked entry against its leaf and refuses (``integrity.log_mismatch``)
  a link whose entry is gone, edited, not a change entry, or does not name the fact;
- a read whose row disagrees with the head the links give is computed again over the wider set
  (these links and the change entries in ``mg_audit_fact``), so an entry the table misses (a
  process of the previous release wrote it, or a link row was deleted) is never a false alarm
  and never hides a change; ``memguard ledger verify`` names every missing or extra link and
  ``memguard ledger repair`` rewrites the table;
- a ledger from before the table gets it at open (:func:`migrate`): created and backfilled from
  the logged change entries in one transaction, with a logged meta row ``change_links = 1``;
  idempotent, and safe with several processes opening at once (SQLite ``BEGIN IMMEDIATE``,
  PostgreSQL a transaction-scoped advisory lock).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select, text

from memguard.events import AuditEvent
from memguard.ledger.changelog import CHANGE_ACTION, ChangeSet, ops_of
from memguard.ledger.logtables import LEAF, PENDING
from memguard.ledger.tables import AuditEventRow, ChangeFactRow, LedgerMetaRow
from memguard.logging import get_logger

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = [
    "CHANGE_FACT",
    "MARKER",
    "entry_links",
    "links_of",
    "logged_change_links",
    "migrate",
    "rewrite",
    "stored_links",
]

CHANGE_FACT = ChangeFactRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_META = LedgerMetaRow.__table__  # type: ignore[attr-defined]

#: the meta row that says the table holds every logged change entry's links
MARKER = "change_links"


def links_of(ev: Any) -> list[str]:
    """The facts a logged event (parsed JSON) links as a change entry: its ``fact_ids`` when its
    action is a change entry's, else none."""
    if not isinstance(ev, dict) or ev.get("action") != CHANGE_ACTION:
        return []
    fact_ids = ev.get("fact_ids")
    # (as strings first: an entry edited to hold a list or an object there must not stop verify)
    return list(dict.fromkeys(str(f) for f in fact_ids)) if isinstance(fact_ids, list) else []


def entry_links(seqs: Sequence[int], events: Sequence[AuditEvent]) -> list[dict[str, Any]]:
    """The ``mg_change_fact`` rows of freshly inserted events (only change entries link)."""
    return [
        {"fact_id": fact_id, "event_seq": seq}
        for seq, ev in zip(seqs, events, strict=True)
        if ev.action == CHANGE_ACTION
        for fact_id in dict.fromkeys(ev.fact_ids)
    ]


def logged_change_links(conn: Connection) -> set[tuple[int, str]]:
    """``(seq, fact id)`` of every logged change entry (in the tree or queued), from its JSON."""
    return _scan(conn)[0]


def _marker_ops(ev: dict[str, Any], marked: bool) -> bool:
    """Whether the marker row is logged as present after this change entry."""
    for op in ops_of(ev.get("detail") or {}):
        if not isinstance(op, dict):
            continue  # an edited entry: `ledger verify` names it (the open must not fail on it)
        key = op.get("key")
        if op.get("t") == _META.name and isinstance(key, dict) and key.get("key") == MARKER:
            marked = op.get("op") in ("put", "set") or (op.get("op") != "del" and marked)
    return marked


def _scan(conn: Connection) -> tuple[set[tuple[int, str]], bool]:
    """The logged change entries' links, and whether the log says the marker row exists."""
    query = (
        select(_EVENT.c.seq, _EVENT.c.event)
        .where(
            _EVENT.c.action == CHANGE_ACTION,
            func.coalesce(LEAF.c.event_seq, PENDING.c.event_seq).is_not(None),
        )
        .select_from(
            _EVENT.outerjoin(LEAF, LEAF.c.event_seq == _EVENT.c.seq).outerjoin(
                PENDING, PENDING.c.event_seq == _EVENT.c.seq
            )
        )
        .order_by(_EVENT.c.seq)
        .execution_options(yield_per=4096)
    )
    out: set[tuple[int, str]] = set()
    marked = False
    for seq, raw in conn.execute(query):
        try:
            ev = json.loads(raw)
        except ValueError:
            continue  # the tree pass reports an entry that is not JSON
        out.update((int(seq), f) for f in links_of(ev))
        if isinstance(ev, dict) and ev.get("action") == CHANGE_ACTION:
            marked = _marker_ops(ev, marked)
    return out, marked


def stored_links(conn: Connection, seqs: Iterable[int] | None = None) -> set[tuple[int, str]]:
    """The table's rows as ``(seq, fact id)``; ``seqs``: only those events' links."""
    if seqs is None:
        rows = conn.execute(select(CHANGE_FACT.c.event_seq, CHANGE_FACT.c.fact_id)).all()
        return {(int(s), str(f)) for s, f in rows}
    wanted, out = sorted(set(seqs)), set[tuple[int, str]]()
    for start in range(0, len(wanted), 500):
        rows = conn.execute(
            select(CHANGE_FACT.c.event_seq, CHANGE_FACT.c.fact_id).where(
                CHANGE_FACT.c.event_seq.in_(wanted[start : start + 500])
            )
        ).all()
        out.update((int(s), str(f)) for s, f in rows)
    return out


def rewrite(conn: Connection, *, remove: bool = True, scan: Any = None) -> int:
    """Make the table the logged change entries' links (``memguard ledger repair``; the backfill
    only adds, ``remove=False``); returns how many rows were removed or added. The log is read
    before the table: an entry committed in between (PostgreSQL, each statement its own
    snapshot) has its links in both or only in the table, never counted as missing; a link
    that looks extra is checked against its entry once more before it is removed."""
    want = scan[0] if scan is not None else logged_change_links(conn)
    have = stored_links(conn)
    extra, missing = sorted(have - want) if remove else [], sorted(want - have)
    if extra:  # an entry committed since the log was read (PostgreSQL) keeps its links
        extra = sorted(set(extra) - _logged_links_of(conn, {s for s, _f in extra}))
    for seq, fact_id in extra:
        conn.execute(
            CHANGE_FACT.delete().where(
                (CHANGE_FACT.c.event_seq == seq) & (CHANGE_FACT.c.fact_id == fact_id)
            )
        )
    for start in range(0, len(missing), 1000):
        conn.execute(
            CHANGE_FACT.insert(),
            [{"event_seq": s, "fact_id": f} for s, f in missing[start : start + 1000]],
        )
    return len(extra) + len(missing)


def _logged_links_of(conn: Connection, seqs: set[int]) -> set[tuple[int, str]]:
    """The links of the logged change entries among ``seqs``, read now."""
    out: set[tuple[int, str]] = set()
    wanted = sorted(seqs)
    for start in range(0, len(wanted), 500):
        rows = conn.execute(
            select(_EVENT.c.seq, _EVENT.c.event)
            .select_from(
                _EVENT.outerjoin(LEAF, LEAF.c.event_seq == _EVENT.c.seq).outerjoin(
                    PENDING, PENDING.c.event_seq == _EVENT.c.seq
                )
            )
            .where(
                _EVENT.c.seq.in_(wanted[start : start + 500]),
                func.coalesce(LEAF.c.event_seq, PENDING.c.event_seq).is_not(None),
            )
        ).all()
        for seq, raw in rows:
            try:
                out.update((int(seq), f) for f in links_of(json.loads(raw)))
            except ValueError:
                continue
    return out


def _marked(conn: Connection) -> bool:
    return (
        conn.execute(select(_META.c.value).where(_META.c.key == MARKER)).scalar_one_or_none()
        is not None
    )


def migrate(ledger: Ledger) -> int | None:
    """Backfill ``mg_change_fact`` of a ledger from before it, once: None when the marker is
    already there, else the links written. One transaction under the ledger's write lock: a
    second process opening at once waits, then finds the marker and does nothing."""
    with ledger._tx() as conn:
        if _marked(conn):
            return None
    changes = ChangeSet("ledger.migrate.change_links")
    with ledger._tx() as conn:
        if ledger.dialect == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.execute(
                text(
                    "SELECT pg_advisory_xact_lock(hashtext('memguard.change_links:' ||"
                    " current_schema()))"
                )
            )
        if _marked(conn):
            return None
        scan = _scan(conn)
        if scan[1]:
            # the log put the marker and its row is gone: edited around the log. Not marked
            # again silently (`memguard ledger verify` names the row; reads are unaffected:
            # they never consult the marker); the missing links are still added.
            get_logger().warning("ledger.change_links_marker_missing",
                                 hint="memguard ledger verify")  # fmt: skip
        written = rewrite(conn, remove=False, scan=scan)
        if not scan[1]:
            ledger._insert_ignore(conn, _META, [{"key": MARKER, "value": "1"}], changes)
            ledger._log_changes(conn, changes)
    return written
