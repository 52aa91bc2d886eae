"""Verified ledger rows and their logged heads, kept while the database is unchanged (issue 16).

Every guarded read compares each hit's ledger row with what the signed log says of it
(:meth:`~memguard.ledger.Ledger.latest_checked`): one snapshot, the rows and change-entry links
looked up, each fact's head taken from its change entries. A fact read again in the same process
gets the very same row and head as long as nobody has written the database in between; this
cache keeps the pairs that agreed (the row matched its logged head) by fact id and serves them
only while that holds. SQLite only: PostgreSQL has no cheap, sound "did anything commit" counter
per connection (its ``pg_stat`` counters are asynchronous), so it always reads the rows.

When is the database unchanged? Two sources of change, both turned into a bump of one
**epoch** that empties the cache:

- **Another connection** (another process, another engine of this one, a ``sqlite3`` editing
  rows by hand, another pooled connection of this engine): SQLite's ``PRAGMA data_version``
  differs between two calls on one connection exactly when another connection committed in
  between. It is read on the snapshot's own connection at the start of every cached read and
  compared with what that connection last saw (its pool record's ``info``); a connection seen for
  the first time bumps the epoch too (its history is unknown). So a commit by anyone else after a
  pair was stored is seen by the next read on any connection, whichever it is: each connection's
  first call after that commit differs from its previous one (or is its first).
- **This engine's own transactions**, which ``data_version`` does not report on the connection
  that made them: every SQLAlchemy transaction on the engine holds the cache **closed** (nothing
  served, nothing stored) from its ``begin`` until its connection is back in the pool, i.e.
  after its commit or rollback; then it bumps the epoch if it wrote anything: if the
  connection's ``total_changes`` (rows changed by INSERT, UPDATE, DELETE, committed or not) or
  the ``schema_version`` (DDL) moved since the ``begin``, or either cannot be read. A read whose
  snapshot began before such a transaction stores nothing (it is closed or the epoch moved by
  the time it would store). Two kinds of writes keep the cache: the log's integration and its
  checkpoints (:data:`~memguard.ledger.auditlog.LOG_ONLY`): they add leaves (each the very hash
  its event was queued with, which the head check already read through ``mg_log_pending``),
  tree nodes and checkpoint rows, and remove the queued hashes they moved; and a read's own
  allow event, written on the driver outside any SQLAlchemy transaction
  (:mod:`memguard.ledger.readevent`): an audit event (an allow of a read, never a change entry),
  its queued leaf hash and, in batches, read links (``mg_audit_fact``) and their mark. No row
  and no logged head is read from those (rows: ``mg_provenance`` and ``mg_quarantine``; heads:
  ``mg_change_fact``, the change entries' events and their leaf or queued leaf hashes).

The engine's pool hands connections out last in, first out (``Ledger.from_url``): a thread's
snapshot and its allow event then use one connection, whose own commits do not move its
``data_version``; with several connections in turn, every read event would empty the cache
(safe, but useless).

What is stored: only pairs whose row and head agree (:func:`~memguard.integrity.ledger_problem`
finds nothing, so the head is intact), read in one snapshot. A fact without a row, a row the log
disagrees with, a broken entry: never stored, so read (and alarmed) again every time. Any doubt is
a miss: a closed cache, an unreadable ``data_version``, an epoch that moved while the read ran.
The caller still runs every per-hit check (the compare with the log included) on what it gets.

Only for a pool that hands a connection to one checkout at a time (SQLAlchemy's ``QueuePool``,
what ``Ledger.from_url`` builds, or ``NullPool``): the transaction bookkeeping above is per pooled
connection, from a transaction's ``begin`` to its connection's checkin. A pool that hands one
connection to two checkouts at once (``StaticPool``, which a caller building ``Ledger(engine)``
itself may pass) ends it at the first checkin while the other checkout may still write on that
connection, unseen by its ``data_version`` (redteam34): a ledger on any pool class but those
two has no cache.

Memory: at most :data:`SIZE` pairs and :data:`MAX_BYTES` of their estimated size (a record's
text can be ~10x the usual ~1 KB: 256 ``derived_from`` ids, a 4 KiB source URI); a pair larger
than that is not kept.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool, QueuePool

from memguard.errors import LedgerError
from memguard.ledger.auditlog import LOG_ONLY
from memguard.ledger.opening import precheck
from memguard.ledger.records import LedgerRecord
from memguard.ledger.replay import LoggedHead

__all__ = ["VerifiedRows"]

#: pairs kept (least recently used out): a caller's scope at 10^5 facts is ~10^4 facts; a row
#: with its record text and head is ~2-3 KB
SIZE = 16_384
#: the estimated bytes of the pairs kept (least recently used out): typical pairs (~1.6 KB) fill
#: :data:`SIZE` first; pairs of records near their size limits (~16 KB) stop at ~3,000
MAX_BYTES = 48 * 2**20
#: what a pair holds beyond its record text (the row's other strings, the head, the dict entry)
_PAIR_OVERHEAD = 768

_SEEN = "memguard_data_version"  # a pool record's info: the data_version its connection last saw
_OPEN = "memguard_tx_open"  # a pool record's info: a SQLAlchemy transaction began on it


#: each engine's one cache (:meth:`VerifiedRows.of`): every ledger opened on it shares it
_BY_ENGINE: weakref.WeakKeyDictionary[Engine, VerifiedRows] = weakref.WeakKeyDictionary()
_BY_ENGINE_LOCK = threading.Lock()


def _marks(dbapi: Any) -> tuple[int, int] | None:
    """What moves when a connection writes: its row changes (``total_changes``: every row an
    INSERT, UPDATE or DELETE changed, rolled back or not) and the schema's version (DDL, which
    ``total_changes`` does not count); ``None`` if either cannot be read (taken as a write)."""
    try:
        cur = dbapi.cursor()
        try:
            schema = int(cur.execute("PRAGMA schema_version").fetchone()[0])
        finally:
            cur.close()
        return int(dbapi.total_changes), schema
    except Exception:
        return None


class VerifiedRows:
    """The verified (row, logged head) pairs of one SQLite engine, by fact id."""

    def __init__(self, engine: Engine, size: int = SIZE, max_bytes: int = MAX_BYTES) -> None:
        if not self.fits(engine):
            raise ValueError(
                "the verified-rows cache is for SQLite with one checkout per connection"
            )
        self._size = size
        self.max_bytes = max_bytes
        self.held_bytes = 0  # the estimated memory of the pairs held (what max_bytes bounds)
        self._pairs: OrderedDict[str, tuple[LedgerRecord, LoggedHead, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._epoch = 0
        self._busy = 0  # SQLAlchemy transactions begun and not yet back in the pool
        self.hits = self.misses = 0  # facts served from / read past the cache (tests, benchmarks)
        self._errors: type[Exception] = engine.dialect.loaded_dbapi.Error
        event.listen(engine, "begin", self._on_begin)
        event.listen(engine.pool, "checkin", self._on_checkin)
        event.listen(engine.pool, "invalidate", self._on_gone)
        event.listen(engine.pool, "soft_invalidate", self._on_gone)

    @classmethod
    def of(cls, engine: Engine) -> VerifiedRows | None:
        """``engine``'s cache, made at the first call (``None``: it cannot have one, see
        :meth:`fits`). Every ledger opened on one engine shares it (one database): a cache per
        ledger would stay alive with its hooks, held by the engine, after its ledger is gone."""
        if not cls.fits(engine):
            return None
        with _BY_ENGINE_LOCK:
            found = _BY_ENGINE.get(engine)
            if found is None:
                found = _BY_ENGINE[engine] = cls(engine)
            return found

    @staticmethod
    def fits(engine: Engine) -> bool:
        """Whether ``engine`` can have the cache: SQLite, and a pool that never hands one
        connection to two checkouts at once (see the module docstring)."""
        return engine.dialect.name == "sqlite" and isinstance(engine.pool, (QueuePool, NullPool))

    # -- invalidation -------------------------------------------------------------------------

    def _bump(self) -> None:  # with the lock held
        self._epoch += 1
        self._pairs.clear()
        self.held_bytes = 0

    def _on_begin(self, conn: Connection) -> None:
        info = conn.info  # the pool record's, shared by every checkout of this connection
        mark = _marks(conn.connection.dbapi_connection)
        with self._lock:
            if _OPEN not in info:  # else its first transaction's marks stay: compared at checkin
                self._busy += 1
                info[_OPEN] = mark

    def _on_checkin(self, dbapi: Any, record: Any) -> None:
        info = getattr(record, "info", None)
        if info is None or _OPEN not in info:
            return
        began, log_only = info.pop(_OPEN), info.pop(LOG_ONLY, False)
        wrote = began is None or _marks(dbapi) != began
        with self._lock:
            self._busy -= 1
            if wrote and not log_only:
                self._bump()

    def _on_gone(self, _dbapi: Any, record: Any, _exc: Any) -> None:
        info = getattr(record, "info", None)
        with self._lock:
            if info is not None:
                info.pop(_SEEN, None)
                info.pop(LOG_ONLY, None)
                if _OPEN in info:
                    del info[_OPEN]
                    self._busy -= 1
            self._bump()

    def clear(self) -> None:
        """Forget every pair (the ledger's own repair and migrations call nothing here: they
        are SQLAlchemy transactions, which empty the cache anyway)."""
        with self._lock:
            self._bump()

    # -- use ----------------------------------------------------------------------------------

    def open(self, conn: Connection) -> int | None:
        """At the start of a read's snapshot on ``conn``: the epoch its pairs may be served and
        stored under, or ``None`` (closed: read everything, store nothing)."""
        return self._open(conn.connection)

    def _open(self, pooled: Any) -> int | None:
        info = pooled.info  # the pool record's
        try:
            cur = pooled.dbapi_connection.cursor()
            try:
                version = cur.execute("PRAGMA data_version").fetchone()[0]
            finally:
                cur.close()
        except self._errors:
            with self._lock:
                self._bump()
            return None
        with self._lock:
            if info.get(_SEEN) != version:
                info[_SEEN] = version
                self._bump()
            return None if self._busy or _OPEN in info else self._epoch

    def every(
        self, engine: Engine, fact_ids: Sequence[str]
    ) -> tuple[dict[str, LedgerRecord], dict[str, LoggedHead]] | None:
        """The rows and heads of ``fact_ids`` if the cache holds every one, else ``None``: a
        ``data_version`` check on a pooled connection and no snapshot (the pairs held are the
        database's rows as long as nobody changed it, which that check and the epoch say), after
        the same :func:`~memguard.ledger.opening.precheck` as every transaction.

        A fact not held now is a miss whatever ``data_version`` says (a check can only empty the
        cache), so that ``None`` comes first, from memory: a first read then checks out one
        connection, its snapshot's (whose :meth:`open` reads ``data_version``), not two."""
        wanted = set(fact_ids)
        with self._lock:
            if not wanted <= self._pairs.keys():
                return None
        precheck(engine)
        try:  # a pool that cannot connect: the ledger's error, as in every transaction
            pooled = engine.raw_connection()
            try:
                epoch = self._open(pooled)
            finally:
                pooled.close()
        except (SQLAlchemyError, self._errors) as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        with self._lock:
            pairs = self._pairs
            if epoch is None or epoch != self._epoch or self._busy or not wanted <= pairs.keys():
                return None
            for fid in wanted:
                pairs.move_to_end(fid)
            self.hits += len(wanted)
            return {f: pairs[f][0] for f in wanted}, {f: pairs[f][1] for f in wanted}

    def get(
        self, epoch: int | None, fact_ids: Iterable[str]
    ) -> dict[str, tuple[LedgerRecord, LoggedHead]]:
        """The pairs held for ``fact_ids`` if ``epoch`` is still current."""
        wanted = list(dict.fromkeys(fact_ids))
        out: dict[str, tuple[LedgerRecord, LoggedHead]] = {}
        if epoch is None:
            with self._lock:
                self.misses += len(wanted)
            return out
        with self._lock:
            if epoch == self._epoch and not self._busy:
                pairs = self._pairs
                for fid in wanted:
                    pair = pairs.get(fid)
                    if pair is not None:
                        pairs.move_to_end(fid)
                        out[fid] = pair[0], pair[1]
            self.hits += len(out)
            self.misses += len(wanted) - len(out)
        return out

    def put(self, epoch: int | None, pairs: Sequence[tuple[LedgerRecord, LoggedHead]]) -> None:
        """Keep ``pairs`` (each agreed with its logged head in one snapshot begun under
        ``epoch``) unless the epoch has moved since."""
        if epoch is None or not pairs:
            return
        with self._lock:
            if epoch != self._epoch or self._busy:
                return
            held, size, most = self._pairs, self._size, self.max_bytes
            total = self.held_bytes
            for record, head in pairs:
                fid = record.fact_id
                # its estimated memory: the record text (the part that varies) and the rest
                cost = len(record.record) + len(fid) + _PAIR_OVERHEAD
                old = held.get(fid)
                if old is not None:
                    total -= old[2]
                    if cost > most:
                        del held[fid]
                        continue
                    held.move_to_end(fid)
                elif cost > most:
                    continue  # larger than the bound: never kept
                held[fid] = (record, head, cost)
                total += cost
            while len(held) > size or total > most:
                total -= held.popitem(last=False)[1][2]
            self.held_bytes = total
