"""The lineage graph, revocations and quarantine, kept in the ledger's own database.

- edges ``child -> parent`` (``mg_lineage``) are written with the child's commit: ``derived``
  (named in ``derived_from``), ``context`` (to the read set of the turn it was written in) and
  ``read`` (from a read set to each fact the turn had read);
- a revocation (``mg_revocation``) and the quarantine rows of every fact it reaches
  (``mg_quarantine``) are written in one transaction with its audit event, so a fact is never
  half-quarantined: either the revocation and all its rows exist, or none;
- descendants are found with one recursive query (``WITH RECURSIVE``, SQLite and PostgreSQL alike),
  whatever the depth of the graph;
- the reads of a turn (``mg_turn_read``) give a later write in that turn its taint.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import and_, bindparam, func, insert, or_, select, text
from sqlalchemy.exc import SQLAlchemyError

from memguard.errors import LedgerError
from memguard.events import AuditEvent
from memguard.ledger.changelog import ChangeSet
from memguard.ledger.durability import ANY, DURABILITY_OPTION
from memguard.ledger.opening import precheck
from memguard.ledger.tables import (
    LineageRow,
    ProvenanceRow,
    QuarantineRow,
    RevocationRow,
    TurnReadRow,
)
from memguard.provenance import Provenance, now_utc
from memguard.revocation import RevocationSelector

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = [
    "READ_SET_PREFIX",
    "Edge",
    "Lineage",
    "QuarantineEntry",
    "Revocation",
    "is_read_set",
    "read_set_id",
]

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_LINEAGE = LineageRow.__table__  # type: ignore[attr-defined]
_REVOCATION = RevocationRow.__table__  # type: ignore[attr-defined]
_QUARANTINE = QuarantineRow.__table__  # type: ignore[attr-defined]
_TURN_READ = TurnReadRow.__table__  # type: ignore[attr-defined]

_CHUNK = 500
_T = TypeVar("_T")

_DESCENDANTS = """
WITH RECURSIVE d(id) AS (
  SELECT child_id FROM mg_lineage WHERE parent_id IN :roots {kinds}
  UNION
  SELECT l.child_id FROM mg_lineage l JOIN d ON l.parent_id = d.id {kinds_l}
)
SELECT id FROM d
"""

_ANCESTORS = """
WITH RECURSIVE a(child, parent, kind, depth) AS (
  SELECT child_id, parent_id, kind, 1 FROM mg_lineage WHERE child_id = :fact
  UNION
  SELECT l.child_id, l.parent_id, l.kind, a.depth + 1
  FROM mg_lineage l JOIN a ON l.child_id = a.parent
  WHERE a.depth < :max_depth
)
SELECT DISTINCT child, parent, kind FROM a
"""


@dataclass(frozen=True, slots=True)
class Edge:
    child_id: str
    parent_id: str
    kind: str


@dataclass(frozen=True, slots=True)
class Revocation:
    revocation_id: str
    selector: RevocationSelector
    reason: str
    actor: str
    created_at: datetime
    active: bool
    event_id: str
    #: the one owner (issuer, subject) whose writes and calls it bars, or ``None``: everyone's
    reach: tuple[str, str] | None = None

    def reaches(self, issuer: str, subject: str) -> bool:
        return self.reach is None or self.reach == (issuer, subject)


@dataclass(frozen=True, slots=True)
class QuarantineEntry:
    fact_id: str
    revocation_id: str
    lifted: bool
    lifted_event_id: str | None


#: Ids of read-set nodes start with this (a fact id may not): see :func:`read_set_id`.
READ_SET_PREFIX = "reads:"


def is_read_set(node: str) -> bool:
    return node.startswith(READ_SET_PREFIX)


def read_set_id(owner_iss: str, owner_sub: str, session_id: str, turn_index: int,
                fact_ids: Sequence[str]) -> str:  # fmt: skip
    """The lineage node of one turn's reads so far: a fact written in that turn gets one
    ``context`` edge to it, and it has one ``read`` edge to each fact read, so M writes after N
    reads cost N + M edges, not N x M. The id is a digest of the turn and the sorted fact ids, so
    a later write after more reads gets its own node: a fact read after a write never becomes that
    write's ancestor."""
    parts = [owner_iss, owner_sub, session_id, str(turn_index), *sorted(set(fact_ids))]
    key = "\x1f".join(f"{len(p)}:{p}" for p in parts).encode("utf-8")
    return READ_SET_PREFIX + hashlib.sha256(key).hexdigest()[:48]


def _collapse(edges: list[Edge]) -> list[Edge]:
    """Replace ``child -> read set -> fact`` by ``child -> fact`` (kind ``context``)."""
    reads: dict[str, list[str]] = {}
    for e in edges:
        if is_read_set(e.child_id):
            reads.setdefault(e.child_id, []).append(e.parent_id)
    out: list[Edge] = []
    for e in edges:
        if is_read_set(e.child_id):
            continue
        if is_read_set(e.parent_id):
            out.extend(Edge(e.child_id, p, "context") for p in reads.get(e.parent_id, []))
        else:
            out.append(e)
    return _prefer_derived(out)


def _prefer_derived(edges: list[Edge]) -> list[Edge]:
    """A fact both derived from a parent and written after reading it shows one ``derived`` edge."""
    derived = {(e.child_id, e.parent_id) for e in edges if e.kind == "derived"}
    return [e for e in edges if e.kind != "context" or (e.child_id, e.parent_id) not in derived]


def _like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _chunks(items: Sequence[_T]) -> Iterable[list[_T]]:
    for start in range(0, len(items), _CHUNK):
        yield list(items[start : start + _CHUNK])


class Lineage:
    """Lineage, revocation and quarantine queries over one :class:`~memguard.ledger.Ledger`."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._turn_sqls: dict[int, str] = {}  # turn-read lookups by turn count (_turn_sql)

    # -- the graph --------------------------------------------------------------------------------

    def _edges_of(self, column: str, fact_id: str) -> list[Edge]:
        c = _LINEAGE.c
        with self._ledger._tx() as conn:
            rows = conn.execute(
                select(_LINEAGE).where(getattr(c, column) == fact_id).order_by(c.child_id, c.parent_id)
            ).all()
        return [Edge(r.child_id, r.parent_id, r.kind) for r in rows]

    def parents(self, fact_id: str) -> list[Edge]:
        """Direct parents; a turn's read set shows as one ``context`` edge per fact it read."""
        out: list[Edge] = []
        for e in self._edges_of("child_id", fact_id):
            if is_read_set(e.parent_id):
                out.extend(
                    Edge(fact_id, r.parent_id, "context")
                    for r in self._edges_of("child_id", e.parent_id)
                )
            else:
                out.append(e)
        return sorted(set(_prefer_derived(out)), key=lambda e: (e.parent_id, e.kind))

    def children(self, fact_id: str) -> list[Edge]:
        """Direct children, through read sets as for :meth:`parents`."""
        out: list[Edge] = []
        for e in self._edges_of("parent_id", fact_id):
            if is_read_set(e.child_id):
                out.extend(
                    Edge(r.child_id, fact_id, "context")
                    for r in self._edges_of("parent_id", e.child_id)
                )
            else:
                out.append(e)
        return sorted(set(_prefer_derived(out)), key=lambda e: (e.child_id, e.kind))

    def ancestry(self, fact_id: str, *, max_depth: int = 64) -> list[Edge]:
        """Every edge on the way from ``fact_id`` up to its roots (at most ``max_depth`` hops),
        with read sets collapsed into ``context`` edges."""
        with self._ledger._tx() as conn:
            rows = conn.execute(
                text(_ANCESTORS), {"fact": fact_id, "max_depth": 2 * max_depth}
            ).all()
        return sorted(
            set(_collapse([Edge(r[0], r[1], r[2]) for r in rows])),
            key=lambda e: (e.child_id, e.parent_id),
        )

    def has_read_set(self, node: str) -> bool:
        with self._ledger._tx() as conn:
            return (
                conn.execute(
                    select(_LINEAGE.c.child_id).where(_LINEAGE.c.child_id == node).limit(1)
                ).first()
                is not None
            )

    def descendants(self, roots: Sequence[str], *, follow_context: bool = True) -> list[str]:
        """Every transitive descendant of ``roots`` (roots excluded unless they descend from one)."""
        if not roots:
            return []
        kinds = "" if follow_context else "AND kind = 'derived'"
        kinds_l = "" if follow_context else "WHERE l.kind = 'derived'"
        query = text(_DESCENDANTS.format(kinds=kinds, kinds_l=kinds_l)).bindparams(
            bindparam("roots", expanding=True)
        )
        found: dict[str, None] = {}
        with self._ledger._tx() as conn:
            for chunk in _chunks(list(dict.fromkeys(roots))):
                for row in conn.execute(query, {"roots": chunk}):
                    if not is_read_set(str(row[0])):
                        found[str(row[0])] = None
        return list(found)

    # -- selectors --------------------------------------------------------------------------------

    def match(self, selector: RevocationSelector) -> list[str]:
        """Fact ids with any non-aborted version the selector matches, in first-write order."""
        c = _PROV.c
        kind, value = selector.kind, selector.value
        precise = True  # the SQL condition is exact; otherwise rows are re-checked in Python
        cond: Any
        if kind == "source":
            cond = c.source_uri == value
        elif kind == "source_pattern":
            literal = value
            for i, ch in enumerate(value):
                if ch in "*?[":
                    literal = value[:i]
                    break
            cond = c.source_uri.like(_like_escape(literal) + "%", escape="\\")
            precise = False
        elif kind == "domain":
            cond = func.lower(c.source_uri).like("%" + _like_escape(value) + "%", escape="\\")
            precise = False
        elif kind == "session":
            cond = c.session_id == value
        elif kind == "turn":
            cond = and_(c.session_id == value, c.turn_index == selector.turn_index)
        elif kind == "workload":
            cond = or_(
                c.workload_id == value,
                c.record.like("%" + _like_escape(value) + "%", escape="\\"),
            )
            precise = False
        elif kind == "jti":
            cond = c.token_jti == value
        elif kind == "subject":
            cond = and_(c.owner_iss == selector.issuer, c.owner_sub == value)
        else:
            cond = c.fact_id == value
        query = (
            select(c.fact_id, c.record)
            .where(and_(cond, c.state != "aborted"))
            .order_by(c.created_at, c.fact_id)
        )
        with self._ledger._tx() as conn:
            rows = conn.execute(query).all()
        out: dict[str, None] = {}
        for row in rows:
            if precise or selector.matches(Provenance.model_validate_json(row.record)):
                out[str(row.fact_id)] = None
        return list(out)

    # -- revocation and quarantine ----------------------------------------------------------------

    def revoke(
        self,
        selector: RevocationSelector,
        *,
        reason: str,
        actor: str,
        event: AuditEvent,
        reach: tuple[str, str] | None = None,
    ) -> tuple[str, list[str]]:
        """Record the revocation and quarantine every fact in ``event.fact_ids``, atomically.

        The caller resolves the ids with :meth:`match` and :meth:`plan_revocation` (roots and all
        their descendants) and names the revocation in ``event.detail["revocation_id"]``; the event
        is appended in the same transaction. Returns ``(revocation_id, quarantined ids)``.
        """
        revocation_id = str(event.detail.get("revocation_id") or uuid.uuid4())
        affected = list(event.fact_ids)
        changes = ChangeSet("revocation.add")
        revocation = {
            "revocation_id": revocation_id,
            "kind": selector.kind,
            "selector": selector.canonical(),
            "reason": reason,
            "actor": actor,
            "created_at": now_utc(),
            "active": True,
            "event_id": event.event_id,
            "reach_iss": reach[0] if reach is not None else None,
            "reach_sub": reach[1] if reach is not None else None,
        }
        quarantine = [
            {
                "fact_id": fact_id,
                "revocation_id": revocation_id,
                "lifted": False,
                "lifted_event_id": None,
                "store_synced": False,
            }
            for fact_id in affected
        ]
        with self._ledger._tx() as conn:
            self._ledger.fence_lock(conn, exclusive=True)
            conn.execute(insert(_REVOCATION), [revocation])
            changes.put(_REVOCATION, [revocation])
            if affected:
                conn.execute(insert(_QUARANTINE), quarantine)
                changes.put(_QUARANTINE, quarantine)
            self._ledger._insert_events(conn, [event])
            self._ledger._log_changes(conn, changes)
        return revocation_id, affected

    def extend(self, revocation_id: str, fact_ids: Sequence[str], event: AuditEvent) -> list[str]:
        """Quarantine ``fact_ids`` under an existing revocation too: descendants that committed
        between the revocation's plan and its transaction (see :func:`memguard.revoking.revoke`).
        Returns the ids newly quarantined."""
        changes = ChangeSet("revocation.extend")
        with self._ledger._tx() as conn:
            self._ledger.fence_lock(conn, exclusive=True)
            held = {
                str(r[0])
                for chunk in _chunks(list(dict.fromkeys(fact_ids)))
                for r in conn.execute(
                    select(_QUARANTINE.c.fact_id).where(
                        and_(
                            _QUARANTINE.c.fact_id.in_(chunk),
                            _QUARANTINE.c.revocation_id == revocation_id,
                        )
                    )
                ).all()
            }
            new = [f for f in dict.fromkeys(fact_ids) if f not in held]
            rows = [
                {"fact_id": f, "revocation_id": revocation_id, "lifted": False,
                 "lifted_event_id": None, "store_synced": False}
                for f in new
            ]  # fmt: skip
            if rows:
                conn.execute(insert(_QUARANTINE), rows)
                changes.put(_QUARANTINE, rows)
                self._ledger._insert_events(conn, [event])
                self._ledger._log_changes(conn, changes)
        return new

    def plan_revocation(
        self, roots: Sequence[str], *, follow_context: bool = True
    ) -> list[str]:
        """Roots first, then every descendant: the ids a revocation of ``roots`` quarantines."""
        ordered = dict.fromkeys(roots)
        for fact_id in self.descendants(list(ordered), follow_context=follow_context):
            ordered.setdefault(fact_id, None)
        return list(ordered)

    def lift(self, fact_ids: Sequence[str], event: AuditEvent) -> list[str]:
        """Lift every active quarantine of ``fact_ids`` (an endorsement); returns the ids lifted."""
        lifted: dict[str, None] = {}
        changes = ChangeSet("quarantine.lift")
        with self._ledger._tx() as conn:
            for chunk in _chunks(list(dict.fromkeys(fact_ids))):
                keys = changes.update(
                    conn,
                    _QUARANTINE,
                    and_(_QUARANTINE.c.fact_id.in_(chunk), _QUARANTINE.c.lifted.is_(False)),
                    {"lifted": True, "lifted_event_id": event.event_id, "store_synced": False},
                )
                lifted.update((str(k["fact_id"]), None) for k in keys)
            self._ledger._insert_events(conn, [event])
            self._ledger._log_changes(conn, changes)
        return list(lifted)

    def deactivate(self, revocation_id: str, event: AuditEvent) -> list[str]:
        """End a revocation (it stops barring writes) and lift every quarantine it holds."""
        changes = ChangeSet("revocation.lift")
        with self._ledger._tx() as conn:
            ended = changes.update(
                conn,
                _REVOCATION,
                and_(
                    _REVOCATION.c.revocation_id == revocation_id,
                    _REVOCATION.c.active.is_(True),
                ),
                {"active": False},
            )
            if len(ended) != 1:
                return []  # nothing changed: nothing to log
            keys = changes.update(
                conn,
                _QUARANTINE,
                and_(
                    _QUARANTINE.c.revocation_id == revocation_id,
                    _QUARANTINE.c.lifted.is_(False),
                ),
                {"lifted": True, "lifted_event_id": event.event_id, "store_synced": False},
            )
            self._ledger._insert_events(conn, [event])
            self._ledger._log_changes(conn, changes)
        return [str(k["fact_id"]) for k in keys]

    def quarantined(self, fact_ids: Sequence[str]) -> set[str]:
        """The subset of ``fact_ids`` an active quarantine holds."""
        out: set[str] = set()
        with self._ledger._tx() as conn:
            for chunk in _chunks(list(dict.fromkeys(fact_ids))):
                rows = conn.execute(
                    select(_QUARANTINE.c.fact_id).where(
                        and_(_QUARANTINE.c.fact_id.in_(chunk), _QUARANTINE.c.lifted.is_(False))
                    )
                ).all()
                out.update(str(r[0]) for r in rows)
        return out

    def quarantine_entries(self, fact_id: str) -> list[tuple[QuarantineEntry, Revocation]]:
        """Every quarantine a fact has been under, with its revocation (for ``audit``)."""
        with self._ledger._tx() as conn:
            rows = conn.execute(
                select(_QUARANTINE, _REVOCATION)
                .join(_REVOCATION, _REVOCATION.c.revocation_id == _QUARANTINE.c.revocation_id)
                .where(_QUARANTINE.c.fact_id == fact_id)
                .order_by(_REVOCATION.c.created_at)
            ).all()
        return [
            (
                QuarantineEntry(r.fact_id, r.revocation_id, bool(r.lifted), r.lifted_event_id),
                _revocation(r),
            )
            for r in rows
        ]

    def revocations(self, *, active: bool | None = None) -> list[Revocation]:
        query = select(_REVOCATION).order_by(_REVOCATION.c.created_at)
        if active is not None:
            query = query.where(_REVOCATION.c.active.is_(active))
        with self._ledger._tx() as conn:
            rows = conn.execute(query).all()
        return [_revocation(r) for r in rows]

    def unsynced(self) -> list[tuple[str, bool]]:
        """``(fact_id, quarantined now?)`` for every fact whose store copy may be out of date."""
        with self._ledger._tx() as conn:
            ids = [
                str(r[0])
                for r in conn.execute(
                    select(_QUARANTINE.c.fact_id)
                    .where(_QUARANTINE.c.store_synced.is_(False))
                    .distinct()
                ).all()
            ]
        held = self.quarantined(ids)
        return [(fact_id, fact_id in held) for fact_id in ids]

    def mark_synced(self, fact_ids: Sequence[str]) -> None:
        changes = ChangeSet("quarantine.synced")
        with self._ledger._tx() as conn:
            for chunk in _chunks(list(dict.fromkeys(fact_ids))):
                changes.update(
                    conn,
                    _QUARANTINE,
                    and_(_QUARANTINE.c.fact_id.in_(chunk), _QUARANTINE.c.store_synced.is_(False)),
                    {"store_synced": True},
                )
            self._ledger._log_changes(conn, changes)

    # -- turns ------------------------------------------------------------------------------------

    def turn_reads(
        self, owner_iss: str, owner_sub: str, session_id: str, turn_index: int
    ) -> list[tuple[str, int]]:
        """``(fact_id, trust)`` of every fact read in that turn of that owner's session."""
        return self.turn_reads_many(owner_iss, owner_sub, [(session_id, turn_index)])[
            (session_id, turn_index)
        ]

    def turn_reads_many(
        self, owner_iss: str, owner_sub: str, turns: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], list[tuple[str, int]]]:
        """:meth:`turn_reads` of several turns of one owner (one query per 500 turns; a batch
        write stamps facts of many turns), as driver SQL built once per chunk length: SQLAlchemy
        compiled the tuple ``IN`` of every call anew, and each batch write runs this once."""
        wanted = list(dict.fromkeys(turns))
        out: dict[tuple[str, int], list[tuple[str, int]]] = {key: [] for key in wanted}
        ledger = self._ledger
        try:
            precheck(ledger.engine)
            with ledger.engine.connect() as conn:
                # one SELECT: no snapshot, no synchronous level (memguard/ledger/durability.py)
                conn.execution_options(**{DURABILITY_OPTION: ANY})
                for chunk in _chunks(wanted):
                    params: list[Any] = [owner_iss, owner_sub]
                    for session_id, turn_index in chunk:
                        params += (session_id, turn_index)
                    rows = conn.exec_driver_sql(self._turn_sql(len(chunk)), tuple(params)).all()
                    for session_id, turn_index, fact_id, trust in rows:
                        key = (str(session_id), int(turn_index))
                        if key in out:
                            out[key].append((str(fact_id), int(trust)))
        except SQLAlchemyError as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        return out

    def _turn_sql(self, n: int) -> str:
        """The turn-read lookup of ``n`` turns: what SQLAlchemy renders for ``tuple_(session_id,
        turn_index).in_(...)`` (a row-value ``IN (VALUES ...)``, as
        :class:`~memguard.ledger.inserts.FactKeys`), with the same order."""
        sql = self._turn_sqls.get(n)
        if sql is None:
            m = "?" if self._ledger.engine.dialect.paramstyle == "qmark" else "%s"
            sql = self._turn_sqls[n] = (
                "SELECT session_id, turn_index, fact_id, trust FROM mg_turn_read"
                f" WHERE owner_iss = {m} AND owner_sub = {m} AND (session_id, turn_index) IN"
                " (VALUES " + ", ".join([f"({m}, {m})"] * n) + ")"
                " ORDER BY session_id, turn_index, fact_id"
            )
        return sql


def _revocation(row: Any) -> Revocation:
    created = row.created_at
    if created.tzinfo is None:  # SQLite hands back naive datetimes; they were written in UTC
        created = created.replace(tzinfo=UTC)
    return Revocation(
        row.revocation_id,
        RevocationSelector.model_validate_json(row.selector),
        row.reason,
        row.actor,
        created,
        bool(row.active),
        row.event_id,
        (row.reach_iss, row.reach_sub) if row.reach_iss is not None else None,
    )
