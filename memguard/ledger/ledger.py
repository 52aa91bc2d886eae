"""The ledger: provenance rows and audit events in one SQL database (SQLite WAL or PostgreSQL).

Write protocol (crash safety): a fact's provenance row is inserted ``pending`` and committed *before*
the store sees the point; it becomes ``committed`` (with the allow event, in one transaction) only
after the store acknowledged the point, and only then is the write acknowledged to the caller. Reads
serve a point only if its latest row is ``committed`` and matches the point's record digest. After a
crash, :meth:`Ledger.pending` rows are reconciled against the store by the guard.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import (
    Connection,
    Engine,
    and_,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel

from memguard.denials import note_deny
from memguard.errors import Fenced, IntegrityError, LedgerError
from memguard.events import AuditEvent, Decision
from memguard.ledger import auditschema, provindexes, readlinks
from memguard.ledger.auditlog import AuditLog, VerifyReport
from memguard.ledger.changelinks import CHANGE_FACT, MARKER, entry_links, migrate
from memguard.ledger.changelog import CHANGE_ACTION, PROJECTIONS, ChangeSet, key_of
from memguard.ledger.checkpoint import CheckpointSigner, CheckpointVerifier
from memguard.ledger.durability import transaction
from memguard.ledger.engines import engine_for
from memguard.ledger.fence import fence_lock, fenced_facts
from memguard.ledger.inserts import BulkInsert, EventInsert, FactKeys, event_canonical
from memguard.ledger.lineage import Lineage
from memguard.ledger.opening import check_migrated
from memguard.ledger.readcache import VerifiedRows
from memguard.ledger.readevent import ReadEvents, event_row
from memguard.ledger.readpath import LATEST, MAX_IDS, ReadLookup
from memguard.ledger.records import (
    FactState,
    LedgerRecord,
    TurnRead,
    _record,
    _row_encoded,
    _row_values,
)
from memguard.ledger.recovery import OWNER, lease, ops_metadata, orphaned, this_process
from memguard.ledger.replay import EntryCache, LoggedHead, logged_heads
from memguard.ledger.supersede import supersede
from memguard.ledger.tables import (
    CHANGES,
    FLAGGED,
    AuditEventRow,
    AuditFactRow,
    LedgerMetaRow,
    LineageRow,
    ProvenanceRow,
    QuarantineRow,
    RevocationRow,
    TurnReadRow,
)
from memguard.ledger.verification import repair_ledger, verify_ledger
from memguard.ledger.witness import CheckpointWitness
from memguard.logging import get_logger
from memguard.provenance import Provenance, canonical_json
from memguard.stores.base import MemoryStore

__all__ = ["FactState", "Ledger", "LedgerRecord", "TurnRead"]

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_EVENT_FACT = AuditFactRow.__table__  # type: ignore[attr-defined]
_LINEAGE = LineageRow.__table__  # type: ignore[attr-defined]
_REVOCATION = RevocationRow.__table__  # type: ignore[attr-defined]
_QUARANTINE = QuarantineRow.__table__  # type: ignore[attr-defined]
_TURN_READ = TurnReadRow.__table__  # type: ignore[attr-defined]
_META = LedgerMetaRow.__table__  # type: ignore[attr-defined]
_TABLES = [_PROV, _EVENT, _EVENT_FACT, CHANGE_FACT, _LINEAGE, _REVOCATION, _QUARANTINE,
           _TURN_READ, _META]  # fmt: skip
#: How the owners of facts written through exchanged tokens are keyed in a ledger this code
#: creates: by the subject's own issuer (RFC 9493 ``sub_id``). A ledger without the mark was
#: written before (scheme 1: by the token service's issuer); memguard/owner_migration.py re-owns.
OWNER_SCHEME = 2


def _state_is(state: FactState) -> Any:
    """``state = ?`` written so that no index on ``state`` is used: next to a ``fact_id`` condition
    the primary key finds the rows, while the planner (SQLite has no statistics here) would
    otherwise walk every committed row through the state index."""
    return func.coalesce(_PROV.c.state, "") == state.value


class Ledger:
    """Provenance rows and audit events. Every database failure raises :class:`LedgerError`."""

    def __init__(
        self,
        engine: Engine,
        *,
        checkpoint_signer: CheckpointSigner | None = None,
        witness: CheckpointWitness | None = None,
        adopt_unlogged: bool = False,
    ) -> None:
        """``adopt_unlogged``: open a ledger whose events have no audit log tables (dropped, or
        from before the log) instead of refusing; only :meth:`repair` should (it logs that it did).
        """
        self.engine = engine
        self.dialect = engine.dialect.name
        self._insert_prov = BulkInsert(_PROV, engine.dialect)
        self._insert_event_fact = BulkInsert(_EVENT_FACT, engine.dialect)
        self._insert_change_fact = BulkInsert(CHANGE_FACT, engine.dialect)
        self._insert_owner = BulkInsert(OWNER, engine.dialect)  # staging owners (recovery.py)
        self._fact_keys = FactKeys(engine.dialect)  # state changes by (fact_id, version)
        self._entry_cache = EntryCache()  # change entries the read path has parsed (replay.py)
        self._read_lookup = ReadLookup(engine.dialect)  # latest_checked's statement (readpath.py)
        #: latest_checked's verified pairs while the database is unchanged (readcache.py; SQLite)
        self._verified = VerifiedRows.of(engine)  # one per engine, shared by its ledgers
        self._event_insert = EventInsert(engine.dialect)  # _insert_events' statements (inserts.py)
        #: a read's allow event on the driver connection (readevent.py; SQLite only)
        self._read_events = ReadEvents(engine) if self.dialect == "sqlite" else None
        with self._tx():
            pass
        fresh = self._create_tables()
        if not fresh and not adopt_unlogged:
            with self._tx() as conn:
                check_migrated(conn, PROJECTIONS, CHANGE_ACTION)
        self.lineage = Lineage(self)
        #: the tamper-evident audit log over this ledger's events (memguard/ledger/auditlog.py)
        self.log = AuditLog(
            engine, signer=checkpoint_signer, witness=witness, adopt_unlogged=adopt_unlogged
        )
        if fresh:
            changes = ChangeSet("ledger.create")
            with self._tx() as conn:
                self._insert_ignore(conn, _META, [{"key": "owner_scheme", "value":
                    str(OWNER_SCHEME)}, {"key": MARKER, "value": "1"}, *provindexes.created_rows(),
                   *auditschema.FRESH],
                    changes)  # fmt: skip
                self._log_changes(conn, changes)
            # the new ledger's first leaf, not left queued; signed (and witnessed) at once
            self.log.flush() if checkpoint_signer is not None else self.log.integrate()
        else:
            migrate(self)  # mg_change_fact, backfilled once (memguard/ledger/changelinks.py)
            provindexes.migrate(self)  # mg_provenance's index set (provindexes.py)
            auditschema.migrate(self)  # the audit tables' indexes (memguard/ledger/auditschema.py)
        readlinks.open_mark(self)  # reads' links as a projection (memguard/ledger/readlinks.py)

    def _create_tables(self) -> bool:
        """Create what is missing; whether the ledger is new. Several processes opening a new
        ledger at once may race on ``CREATE TABLE``: a failed attempt is retried (``checkfirst``
        then finds the other's tables)."""
        for attempt in range(5):
            try:
                fresh = not inspect(self.engine).has_table(_PROV.name)
                SQLModel.metadata.create_all(self.engine, tables=_TABLES, checkfirst=True)
                ops_metadata.create_all(self.engine, checkfirst=True)
                return fresh
            except SQLAlchemyError as exc:
                if attempt == 4:
                    raise LedgerError(
                        f"cannot create ledger tables: {type(exc).__name__}"
                    ) from exc
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        checkpoint_signer: CheckpointSigner | None = None,
        witness: CheckpointWitness | str | None = "default",
        adopt_unlogged: bool = False,
    ) -> Ledger:
        """``sqlite:///path/ledger.db`` or ``postgresql+psycopg://user@host/db``.

        ``witness``: where checkpoints are also published (:mod:`memguard.ledger.witness`);
        ``"default"``: a SQLite ledger's ``witness/`` directory next to its file, none for
        PostgreSQL (the caller names one in its state directory)."""
        engine, chosen = engine_for(url, witness)
        try:
            return cls(
                engine,
                checkpoint_signer=checkpoint_signer,
                witness=chosen,
                adopt_unlogged=adopt_unlogged,
            )
        except BaseException:
            engine.dispose()
            raise

    @classmethod
    def sqlite(
        cls,
        path: str | os.PathLike[str],
        *,
        checkpoint_signer: CheckpointSigner | None = None,
        witness: CheckpointWitness | str | None = "default",
        adopt_unlogged: bool = False,
    ) -> Ledger:
        return cls.from_url(
            f"sqlite:///{Path(path).resolve()}",
            checkpoint_signer=checkpoint_signer,
            witness=witness,
            adopt_unlogged=adopt_unlogged,
        )

    @contextmanager
    def _tx(self, *, durable: bool = True) -> Iterator[Connection]:
        """A transaction; ``durable=False``: one whose loss on power failure is harmless, committed
        without an fsync (memguard/ledger/durability.py)."""
        try:
            with transaction(self.engine, durable=durable) as conn:
                yield conn
        except LedgerError:
            raise
        except SQLAlchemyError as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc

    # -- writes ---------------------------------------------------------------------------------

    def begin(self, records: Sequence[Provenance]) -> None:
        """Insert ``pending`` rows, committed before the store is touched.

        One fsync per write: staging only new facts (version 1) commits without one; the
        :meth:`commit` after the store write makes it durable (a sequential log). Lost to a power
        failure before that, the store may hold a point no row describes: never served. A new
        version of a known fact is staged durably (its point replaces the committed one's, so
        recovery must find the pending row that describes it)."""
        rows = [_row_values(p) for p in records]
        changes = ChangeSet("fact.begin")
        durable = any(p.version > 1 for p in records)
        with self._tx(durable=durable) as conn:
            self._insert_prov.run(conn, rows)
            me, now = this_process().row(), time.time()  # the staging process (recovery.py)
            self._insert_owner.run(conn, [{"fact_id": p.fact_id, "version": p.version,
                                           "staged_at": now, **me} for p in records])  # fmt: skip
            changes.put_encoded(_PROV, [_row_encoded(p, r) for p, r in zip(records, rows, strict=True)])
            self._log_changes(conn, changes)

    def commit(
        self,
        records: Sequence[Provenance],
        events: Sequence[AuditEvent],
        edges: Sequence[tuple[str, str, str]] = (),
        *,
        fence: Sequence[str] = (),
        writer: Mapping[str, Any] | None = None,
    ) -> None:
        """Make ``records`` the current versions, in the same transaction as their audit events and
        their lineage ``edges`` (``(child_id, parent_id, kind)``).

        ``fence``: the facts the write read or derives from. If any of them is deleted (and not
        written again) or under an active quarantine when this transaction runs, nothing commits
        and :class:`~memguard.errors.Fenced` is raised: a delete or revocation that committed
        first is never undone by a write that was in flight with what it removed. The check and
        the commit are one transaction ordered against deletes and revocations (SQLite: ``BEGIN
        IMMEDIATE``; PostgreSQL: a shared advisory lock that they take exclusively).

        ``writer`` (the writing principal's summary): a fact that this same principal (issuer,
        subject and actor chain) deleted does not fence its own write. An agent that replaces a
        memory (reads it, deletes it, writes the merged one: LangMem's consolidation) meant the
        deletion; anyone else's deletion, and every quarantine, fences."""
        with self._tx() as conn:
            if fence:
                self.fence_lock(conn, exclusive=False)
                hit = fenced_facts(conn, fence, writer)
                if hit:
                    raise Fenced(
                        f"{len(hit)} fact(s) this write read or derives from were deleted or "
                        f"revoked before it committed: {', '.join(sorted(hit)[:5])}"
                    )
            self._commit(conn, records, events, edges)

    def fence_lock(self, conn: Connection, *, exclusive: bool) -> None:
        """Order fenced commits against deletes and revocations (see :meth:`commit`)."""
        fence_lock(conn, self.dialect, exclusive=exclusive)

    def _commit(
        self,
        conn: Connection,
        records: Sequence[Provenance],
        events: Sequence[AuditEvent],
        edges: Sequence[tuple[str, str, str]] = (),
    ) -> None:
        changes = ChangeSet("fact.commit")
        self._set_state(conn, records, FactState.PENDING, FactState.COMMITTED, changes)
        if edges:
            self._insert_ignore(
                conn,
                _LINEAGE,
                [{"child_id": c, "parent_id": p, "kind": k} for c, p, k in dict.fromkeys(edges)],
                changes,
            )
        supersede(conn, records, changes)  # older committed versions (supersede.py)
        # the events, then the change entry (after its rows), in one insert: seqs follow the
        # order given (one statement, one queue insert and one link insert each, not two)
        change = changes.event()
        self._insert_events(conn, [*events, change] if change is not None else events)

    def abort(self, records: Sequence[Provenance]) -> None:
        changes = ChangeSet("fact.abort")
        with self._tx(durable=False) as conn:  # lost: the row stays pending, recovery aborts it
            self._set_state(conn, records, FactState.PENDING, FactState.ABORTED, changes)
            self._log_changes(conn, changes)

    def mark_deleted(self, fact_ids: Sequence[str], events: Sequence[AuditEvent]) -> None:
        """Tombstone the committed versions; the store purge follows (and is redone by recovery)."""
        changes = ChangeSet("fact.delete")
        with self._tx() as conn:
            self.fence_lock(conn, exclusive=True)
            changes.update(
                conn,
                _PROV,
                and_(_PROV.c.fact_id.in_(list(fact_ids)), _state_is(FactState.COMMITTED)),
                {"state": FactState.DELETED.value},
            )
            self._insert_events(conn, events)
            self._log_changes(conn, changes)

    def mark_purged(self, fact_ids: Sequence[str]) -> None:
        changes = ChangeSet("fact.purge")
        with self._tx(durable=False) as conn:  # lost: recovery purges again
            changes.update(
                conn,
                _PROV,
                and_(
                    _PROV.c.fact_id.in_(list(fact_ids)),
                    _state_is(FactState.DELETED),
                    _PROV.c.purged.is_(False),
                ),
                {"purged": True},
            )
            self._log_changes(conn, changes)

    def record(
        self,
        events: Sequence[AuditEvent],
        turn_reads: Sequence[TurnRead] = (),
        *,
        durable: bool = True,
    ) -> None:
        """Append audit events (and the turn reads of a read) in their own transaction.

        ``durable=False`` (the allow event that ends a read, and its turn reads): committed
        without an fsync. It survives a crash of the process; a power failure can lose it until
        the next durable commit (any write's, or the log's checkpoint), since the log is
        sequential (memguard/ledger/durability.py). Denials and alarms stay durable."""
        if not durable and self._read_events is not None and ReadEvents.takes(events, turn_reads):
            now = self.log.queue_time()
            self.log.queued(len(self._read_events.record(events, now)), now)
            return  # allows only: nothing for the request's edge to note (below)
        if events or turn_reads:
            changes = ChangeSet("turn.read")
            with self._tx(durable=durable) as conn:
                self._insert_events(conn, events)
                if self._read_events is not None:  # a read's links: its batch (readlinks.py)
                    self._read_events.note_others(conn, events)
                if turn_reads:
                    self._insert_ignore(
                        conn,
                        _TURN_READ,
                        [
                            {
                                "owner_iss": r.owner_iss,
                                "owner_sub": r.owner_sub,
                                "session_id": r.session_id,
                                "turn_index": r.turn_index,
                                "fact_id": r.fact_id,
                                "trust": r.trust,
                            }
                            for r in turn_reads
                        ],
                        changes,
                    )
                self._log_changes(conn, changes)
        for ev in events:  # the request's edge records no second event for it (denials.py)
            if ev.decision is Decision.DENY:
                note_deny(ev.event_id)

    def _log_changes(self, conn: Connection, changes: ChangeSet) -> None:
        """Append the change entry of ``changes`` (after its rows: on PostgreSQL, a later change
        of the same row waits for this transaction's row lock, so gets a later seq)."""
        event = changes.event()
        if event is not None:
            self._insert_events(conn, [event])

    def _insert_ignore(
        self,
        conn: Connection,
        table: Any,
        rows: list[dict[str, Any]],
        changes: ChangeSet | None = None,
    ) -> None:
        """Insert rows, skipping those whose primary key is already there; the rows inserted
        go into ``changes``."""
        if not rows:
            return
        stmt: Any
        if self.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            stmt = pg_insert(table).on_conflict_do_nothing()
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            stmt = sqlite_insert(table).on_conflict_do_nothing()
        if changes is None:
            conn.execute(stmt, rows)
            return
        pk = list(table.primary_key)
        by_key = {tuple(key_of(table, r).values()): r for r in rows}
        inserted = [
            by_key[tuple(key_of(table, dict(got._mapping)).values())]
            for got in conn.execute(stmt.returning(*pk), rows)
        ]
        changes.put(table, inserted)

    def _set_state(
        self,
        conn: Connection,
        records: Sequence[Provenance],
        old: FactState,
        new: FactState,
        changes: ChangeSet,
    ) -> None:
        # One statement per chunk, its SQL built once per chunk length (inserts.py FactKeys)
        keys = [(p.fact_id, p.version) for p in records]
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            changed = self._fact_keys.set_state(conn, chunk, old.value, new.value)
            changes.set(_PROV, changed, {"state": new.value})
            if len(changed) != len(set(chunk)):
                raise LedgerError("ledger row is not in the expected state")
            if old is FactState.PENDING:  # the staging owner rows go with the state change
                self._fact_keys.drop_owners(conn, chunk)

    def _insert_events(self, conn: Connection, events: Sequence[AuditEvent]) -> None:
        if not events:
            return
        # the canonical JSON once per event: the stored text and its digest (the same row the
        # driver-level read event writes)
        rows = [event_row(ev, event_canonical(ev)) for ev in events]
        seqs = self._event_insert.events(conn, rows)  # compiled once (readpath.py)
        # same transaction: an event is never committed without its queued leaf hash
        self.log.enqueue(conn, zip(seqs, (str(row["event"]) for row in rows), strict=True))
        defer = self._read_events is not None  # a read's links: a projection (readlinks.py)
        links = [
            {"event_seq": seq, "fact_id": fact_id}
            for seq, ev in zip(seqs, events, strict=True)
            if not (defer and readlinks.deferrable(ev.action, ev.decision.value))
            for fact_id in dict.fromkeys(ev.fact_ids)
        ]
        if links:
            self._insert_event_fact.run_raw(conn, links, self.log._dbapi_error)
            self._insert_change_fact.run(conn, entry_links(seqs, events))

    # -- reads ----------------------------------------------------------------------------------

    def latest(self, fact_ids: Sequence[str]) -> dict[str, LedgerRecord]:
        """The newest non-aborted version of each fact id that the ledger knows, with whether an
        active quarantine holds it."""
        if not fact_ids:
            return {}
        with self._tx() as conn:
            return self._latest(conn, fact_ids)

    def _latest(self, conn: Connection, fact_ids: Sequence[str]) -> dict[str, LedgerRecord]:
        rows = conn.execute(LATEST, {"ids": list(dict.fromkeys(fact_ids))}).all()
        out: dict[str, LedgerRecord] = {}
        for row in rows:
            current = out.get(row.fact_id)
            if current is None or row.version > current.version:
                out[row.fact_id] = _record(row)
        return out

    def latest_checked(
        self, fact_ids: Sequence[str]
    ) -> tuple[dict[str, LedgerRecord], dict[str, LoggedHead]]:
        """:meth:`latest` and :meth:`logged_heads` of the facts it finds, in one transaction (one
        snapshot: the row and the log entry compared are read together)."""
        if not fact_ids:
            return {}, {}
        from memguard.integrity import ledger_problem

        cache, epoch, heads, held = self._verified, None, {}, {}  # readcache.py: agreed pairs
        if cache is not None and (every := cache.every(self.engine, fact_ids)) is not None:
            return every
        links: list[tuple[str, int, bytes | None]] | None = None
        with self.log._snapshot() as conn:
            if cache is not None:
                epoch = cache.open(conn)
                held = cache.get(epoch, fact_ids)
                fact_ids = [f for f in fact_ids if f not in held]
            if len(set(fact_ids)) <= MAX_IDS:  # rows and links in one compiled statement
                records, links = self._read_lookup.run(conn, fact_ids)
            else:
                records = self._latest(conn, fact_ids)
            if records:
                heads = logged_heads(conn, list(records), self._entry_cache, links=links,
                    agrees=lambda f, head: ledger_problem(records[f], head) is None)  # fmt: skip
        if cache is None:
            return records, heads
        cache.put(epoch, [(r, heads[f]) for f, r in records.items()
                          if f in heads and ledger_problem(r, heads[f]) is None])  # fmt: skip
        for fid, (record, head) in held.items():
            records[fid], heads[fid] = record, head
        return records, heads

    def logged_heads(self, fact_ids: Sequence[str]) -> dict[str, LoggedHead]:
        """What the signed log says each fact's head is, over every link that names a change
        entry (recovery's compare: off the read path)."""
        if not fact_ids:
            return {}
        with self._tx() as conn:
            return logged_heads(conn, fact_ids, self._entry_cache, wide=True)

    def next_versions(self, fact_ids: Sequence[str]) -> dict[str, int]:
        """The version number a new version of each known fact id gets (aborted ones count)."""
        from sqlalchemy import func

        if not fact_ids:
            return {}
        with self._tx() as conn:
            rows = conn.execute(
                select(_PROV.c.fact_id, func.max(_PROV.c.version))
                .where(_PROV.c.fact_id.in_(list(dict.fromkeys(fact_ids))))
                .group_by(_PROV.c.fact_id)
            ).all()
        return {str(r[0]): int(r[1]) + 1 for r in rows}

    def versions(self, fact_id: str) -> list[LedgerRecord]:
        """Every version of a fact, oldest first (aborted ones included, for the audit trail)."""
        return self.versions_many([fact_id]).get(fact_id, [])

    def versions_many(self, fact_ids: Sequence[str]) -> dict[str, list[LedgerRecord]]:
        """:meth:`versions` of each fact id the ledger knows, one query per 500 ids."""
        ids, out = list(dict.fromkeys(fact_ids)), dict[str, list[LedgerRecord]]()
        if not ids:
            return out
        with self._tx() as conn:
            for start in range(0, len(ids), 500):
                rows = conn.execute(select(_PROV).where(_PROV.c.fact_id.in_(ids[start : start + 500]))
                    .order_by(_PROV.c.fact_id, _PROV.c.version)).all()  # fmt: skip
                for r in rows:
                    out.setdefault(str(r.fact_id), []).append(_record(r))
        return out

    def in_state(self, state: FactState, *, purged: bool | None = None) -> list[LedgerRecord]:
        query = select(_PROV).where(_PROV.c.state == state.value)
        if purged is not None:
            query = query.where(_PROV.c.purged == purged)
        with self._tx() as conn:
            rows = conn.execute(query.order_by(_PROV.c.fact_id, _PROV.c.version)).all()
        return [_record(r) for r in rows]

    def events_for(self, fact_id: str) -> list[tuple[int, AuditEvent, str]]:
        """``(seq, event, stored digest)`` of every event that touched ``fact_id``, in log order:
        its links and, in the same snapshot, the reads above the links' mark that name it
        (memguard/ledger/readlinks.py)."""
        with self._tx() as conn:
            rows = readlinks.events_of(conn, fact_id)
        try:
            return [(r.seq, AuditEvent.model_validate_json(r.event), r.event_digest) for r in rows]
        except ValidationError as exc:  # edited: tampering, not the caller's invalid request
            raise IntegrityError(
                "a logged event is not an audit event", code="integrity.event_unreadable"
            ) from exc

    def events(self, *, limit: int = 1000, decision: str | None = None) -> list[AuditEvent]:
        query = (
            select(_EVENT.c.event)
            .where(_EVENT.c.action != CHANGE_ACTION)
            .order_by(_EVENT.c.seq.desc())
            .limit(limit)
        )
        if decision is not None:
            query = query.where(_EVENT.c.decision == decision)
            if decision != Decision.ALLOW.value:  # the partial index's condition, verbatim
                query = query.where(text(FLAGGED))
        with self._tx() as conn:
            rows = conn.execute(query).scalars().all()
        return [AuditEvent.model_validate_json(r) for r in reversed(rows)]

    def count_events(self) -> int:
        from sqlalchemy import func

        with self._tx() as conn:  # all, less the change entries (their partial index)
            every = conn.execute(select(func.count()).select_from(_EVENT)).scalar_one()
            changes = conn.execute(
                select(func.count()).select_from(_EVENT).where(text(CHANGES))
            ).scalar_one()
        return int(every) - int(changes)

    # -- owners of exchanged tokens' facts (memguard/owner_migration.py) -------------------------

    def owner_scheme(self) -> int:
        """:data:`OWNER_SCHEME` for ledgers written by this code, 1 for older ones."""
        with self._tx() as conn:
            value = conn.execute(
                select(_META.c.value).where(_META.c.key == "owner_scheme")
            ).scalar_one_or_none()
        return int(value) if value is not None else 1

    def owners(self) -> list[tuple[str, str]]:
        """Every ``(owner issuer, owner subject)`` the ledger holds facts of."""
        with self._tx() as conn:
            rows = conn.execute(select(_PROV.c.owner_iss, _PROV.c.owner_sub).distinct()).all()
        return [(str(r[0]), str(r[1])) for r in rows]

    def committed_owned_by(self, issuer: str) -> list[LedgerRecord]:
        """The committed versions of facts whose owner's issuer is ``issuer``, in fact-id order."""
        with self._tx() as conn:
            rows = conn.execute(
                select(_PROV)
                .where(and_(_PROV.c.owner_iss == issuer, _PROV.c.state == FactState.COMMITTED.value))
                .order_by(_PROV.c.fact_id)
            ).all()
        return [_record(r) for r in rows]

    def reown(self, records: Sequence[Provenance], events: Sequence[AuditEvent]) -> None:
        """Commit re-owned versions (already :meth:`begin`-staged) with their events, and mark the
        ledger as keyed by the subject's issuer (:data:`OWNER_SCHEME`), in one transaction."""
        changes = ChangeSet("ledger.owner_scheme")
        with self._tx() as conn:
            self._commit(conn, records, events)
            self._insert_ignore(conn, _META, [{"key": "owner_scheme", "value": "0"}], changes)
            changes.update(
                conn, _META, _META.c.key == "owner_scheme", {"value": str(OWNER_SCHEME)}
            )
            self._log_changes(conn, changes)

    # -- the policy in force (memguard/policy/resolver.py reports it) ----------------------------

    def policy_event(
        self, status: str, policy_digest: str, problems: Sequence[str] = ()
    ) -> None:
        """Log what the policy engine did: ``loaded`` (a set now in force), ``failed`` (a reload
        that did not validate: the last good set stays) or ``evaluation_failed`` (a decision
        raised: denied). One transaction: the ``policy`` meta row (a projection: a logged change
        entry) and an audit event, ``allow`` for a load and ``deny`` for a failure."""
        problems = [str(p)[:500] for p in problems[:20]]
        value = canonical_json(
            {"status": status, "policy_digest": policy_digest, "problems": problems}
        ).decode("utf-8")
        row = {"key": "policy", "value": value}
        changes = ChangeSet(f"policy.{status}")
        failed = status != "loaded"
        event = AuditEvent(
            action=f"policy.{status}",
            decision=Decision.DENY if failed else Decision.ALLOW,
            reason=f"policy.{status}",
            policy_digest=policy_digest,
            detail={"problems": problems} if problems else {},
        )
        with self._tx() as conn:
            stmt: Any
            if self.dialect == "postgresql":
                from sqlalchemy.dialects.postgresql import insert as pg_insert

                stmt = pg_insert(_META).on_conflict_do_update(
                    index_elements=[_META.c.key], set_={"value": value}
                )
            else:
                from sqlalchemy.dialects.sqlite import insert as sqlite_insert

                stmt = sqlite_insert(_META).on_conflict_do_update(
                    index_elements=[_META.c.key], set_={"value": value}
                )
            conn.execute(stmt, row)
            changes.put(_META, [row])
            self._log_changes(conn, changes)
            self._insert_events(conn, [event])

    # -- several processes: recovery (memguard/ledger/recovery.py) --------------------------------

    @contextmanager
    def recovery_lease(self, *, ttl: float = 600.0) -> Iterator[bool]:
        """Hold the recovery lease while the block runs (``True``), or ``False`` at once when a
        live process holds it (that process recovers; this one must not race it)."""
        with lease(self._tx, self.dialect, ttl=ttl) as held:
            yield held

    def orphaned_pending(
        self, records: Sequence[LedgerRecord], *, foreign_ttl: float = 300.0
    ) -> list[LedgerRecord]:
        """The ``pending`` ``records`` whose staging process is gone: only those may be
        recovered (committed or aborted); a live process's in-flight rows are left alone."""
        if not records:
            return []
        with self._tx() as conn:
            gone = orphaned(
                conn,
                [(r.fact_id, r.version) for r in records],
                now=time.time(),
                foreign_ttl=foreign_ttl,
            )
        return [r for r in records if (r.fact_id, r.version) in gone]

    # -- verification and repair (memguard/ledger/verification.py) -------------------------------

    def verify(
        self,
        *,
        verifier: CheckpointVerifier | None = None,
        external_checkpoints: Sequence[str] = (),
        max_pending_age: float = 300.0,
        max_problems: int = 1000,
        store: MemoryStore | None = None,
        since_checkpoint: bool = False,
        marker_signer: CheckpointSigner | None = None,
    ) -> VerifyReport:
        """The audit log's tree (:meth:`AuditLog.verify`, with the witness) and every projection
        row, event column and fact link replayed from it; with ``store``, every committed fact's
        store point against its row; ``since_checkpoint``: replay only after the verified marker
        (:func:`memguard.ledger.verification.verify_ledger`)."""
        return verify_ledger(
            self,
            verifier=verifier,
            external_checkpoints=external_checkpoints,
            max_pending_age=max_pending_age,
            max_problems=max_problems,
            store=store,
            since_checkpoint=since_checkpoint,
            marker_signer=marker_signer,
        )

    def repair(self, *, actor: str, reason: str) -> dict[str, int]:
        """Make the log cover what the database holds now, logged as one alarm event
        ``ledger.repair`` (:func:`memguard.ledger.verification.repair_ledger`)."""
        return repair_ledger(self, actor=actor, reason=reason)

    def drain(self) -> int:
        """Integrate every queued event (this process's or one that stopped before it did) and
        sign a checkpoint of them if there is a signer; returns how many were queued. Never
        raises: the events are durable in the queue either way (``verify`` reports a queue it
        cannot integrate, e.g. a damaged leaf hash), and a dead queue must not stop a start."""
        try:
            queued = self.log.pending_count()
            if queued:
                self.log.flush() if self.log.signer is not None else self.log.integrate()
            return queued
        except Exception as exc:
            try:
                get_logger().error("ledger.drain_failed", error=type(exc).__name__)
            except Exception:
                pass
            return 0

    def project_reads(self) -> int:
        """Write the reads' links not written yet (memguard/ledger/readlinks.py); how many."""
        return readlinks.project(self)

    def close(self, *, drain: bool = False) -> None:
        """Close the connections; ``drain``: first integrate and sign what is queued
        (:meth:`drain`; :meth:`MemoryGuard.close` does that through its own flush)."""
        try:
            if drain:
                self.drain()
            readlinks.project_at_close(self)
        finally:
            self.engine.dispose()
