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
  that made them: every SQLAlchemy transaction on the engine (every write of the ledger, the log's
  integration, reads in ``Ledger._tx`` too: they cannot be told apart) bumps the epoch when it
  begins and holds the cache **closed** (nothing served, nothing stored) until its connection is
  back in the pool, i.e. after its commit or rollback. A read whose snapshot began before a bump
  stores nothing (the epoch it started with is gone). The one write not made through a
  SQLAlchemy transaction is a read's own allow event on the driver
  (:mod:`memguard.ledger.readevent`); it inserts an audit event (an allow of a read, never a
  change entry), its queued leaf hash and, in batches, read links (``mg_audit_fact``) and their
  mark: none of which a row or a logged head is read from (rows: ``mg_provenance`` and
  ``mg_quarantine``; heads: ``mg_change_fact``, the change entries' events and their leaf or
  queued leaf hashes).

The engine's pool hands connections out last in, first out (``Ledger.from_url``): a thread's
snapshot and its allow event then use one connection, whose own commits do not move its
``data_version``; with several connections in turn, every read event would empty the cache
(safe, but useless).

What is stored: only pairs whose row and head agree (:func:`~memguard.integrity.ledger_problem`
finds nothing, so the head is intact), read in one snapshot. A fact without a row, a row the log
disagrees with, a broken entry: never stored, so read (and alarmed) again every time. Any doubt is
a miss: a closed cache, an unreadable ``data_version``, an epoch that moved while the read ran.
The caller still runs every per-hit check (the compare with the log included) on what it gets.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, event

from memguard.ledger.records import LedgerRecord
from memguard.ledger.replay import LoggedHead

__all__ = ["VerifiedRows"]

#: pairs kept (least recently used out): a caller's scope at 10^5 facts is ~10^4 facts; a row
#: with its record text and head is ~2-3 KB
SIZE = 16_384

_SEEN = "memguard_data_version"  # a pool record's info: the data_version its connection last saw
_OPEN = "memguard_tx_open"  # a pool record's info: a SQLAlchemy transaction began on it


class VerifiedRows:
    """The verified (row, logged head) pairs of one SQLite engine, by fact id."""

    def __init__(self, engine: Engine, size: int = SIZE) -> None:
        if engine.dialect.name != "sqlite":
            raise ValueError("the verified-rows cache is for SQLite")
        self._size = size
        self._pairs: OrderedDict[str, tuple[LedgerRecord, LoggedHead]] = OrderedDict()
        self._lock = threading.Lock()
        self._epoch = 0
        self._busy = 0  # SQLAlchemy transactions begun and not yet back in the pool
        self.hits = self.misses = 0  # facts served from / read past the cache (tests, benchmarks)
        self._errors: type[Exception] = engine.dialect.loaded_dbapi.Error
        event.listen(engine, "begin", self._on_begin)
        event.listen(engine.pool, "checkin", self._on_checkin)
        event.listen(engine.pool, "invalidate", self._on_gone)
        event.listen(engine.pool, "soft_invalidate", self._on_gone)

    # -- invalidation -------------------------------------------------------------------------

    def _bump(self) -> None:  # with the lock held
        self._epoch += 1
        self._pairs.clear()

    def _on_begin(self, conn: Connection) -> None:
        info = conn.info  # the pool record's, shared by every checkout of this connection
        with self._lock:
            if not info.get(_OPEN):
                info[_OPEN] = True
                self._busy += 1
            self._bump()

    def _on_checkin(self, _dbapi: Any, record: Any) -> None:
        info = getattr(record, "info", None)
        if info is None or not info.pop(_OPEN, False):
            return
        with self._lock:
            self._busy -= 1
            self._bump()  # after the commit: nothing stored meanwhile, but say so again

    def _on_gone(self, _dbapi: Any, record: Any, _exc: Any) -> None:
        info = getattr(record, "info", None)
        with self._lock:
            if info is not None:
                info.pop(_SEEN, None)
                if info.pop(_OPEN, False):
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
        dbapi = conn.connection.dbapi_connection
        info = conn.info
        try:
            cur = dbapi.cursor()  # type: ignore[union-attr]
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
            return None if self._busy or info.get(_OPEN) else self._epoch

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
                        out[fid] = pair
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
            held = self._pairs
            for record, head in pairs:
                held[record.fact_id] = (record, head)
                held.move_to_end(record.fact_id)
            while len(held) > self._size:
                held.popitem(last=False)
