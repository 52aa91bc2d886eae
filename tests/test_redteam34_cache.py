"""redteam34: attacks on the verified-rows cache (``memguard.ledger.readcache.VerifiedRows``).

Each test is an attack that served a stale or oversized answer, or raised the wrong error, before
this round's fix in the cache's shared mechanism:

- a pool that hands one connection to two checkouts at once (``StaticPool``, what a caller that
  builds ``Ledger(engine)`` itself may pass): the first checkin ended the transaction bookkeeping
  of the connection, so a write committed by the other checkout afterwards emptied nothing and
  its connection's ``data_version`` did not move: the old row was served, unalarmed;
- a failing pool on the all-held path (no snapshot) raised the driver's error, not
  :class:`~memguard.errors.LedgerError` (the ledger's contract: every database failure is one);
- large records (a fact's ``derived_from``, source URI and name at their limits): the count bound
  alone let 16,384 pairs hold hundreds of MiB.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.pool import NullPool, Pool, QueuePool, SingletonThreadPool, StaticPool
from test_verified_rows import Served, _forged

from memguard import MemoryGuard
from memguard.errors import LedgerError
from memguard.ledger import Ledger
from memguard.ledger.readcache import VerifiedRows
from memguard.ledger.records import FactState, LedgerRecord
from memguard.ledger.replay import LoggedHead
from memguard.stores.memory import InMemoryStore


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    yield s
    s.guard.close()


class PooledServed(Served):
    """The same guard over a ledger whose engine the caller built with pool class ``pool``
    (``StaticPool`` hands one connection to every checkout at once; ``SingletonThreadPool``
    shares one checkout per thread, checked in when its last user is done)."""

    def __init__(self, root: Path, pool: type[Pool]) -> None:
        self.pool = pool
        super().__init__(root)

    def open(self) -> MemoryGuard:
        extra: dict[str, Any] = {} if self.pool is QueuePool else {"poolclass": self.pool}
        engine = create_engine(f"sqlite:///{self.root / 'l.db'}", **extra,
                               connect_args={"check_same_thread": False})  # fmt: skip

        @event.listens_for(engine, "connect")
        def _wal(dbapi: object, _record: object) -> None:
            dbapi.execute("PRAGMA journal_mode=WAL")  # type: ignore[attr-defined]

        return MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger(engine),
                           verifier=self.tokens.verifier(clock=self.clock), clock=self.clock)  # fmt: skip


@pytest.mark.parametrize("pool", [StaticPool, SingletonThreadPool, NullPool, QueuePool])
def test_a_write_by_a_second_checkout_of_one_shared_connection_is_alarmed(
    tmp_path: Path, pool: type[Pool]
) -> None:
    """With ``QueuePool`` (first in, first out here) the two checkouts are two connections."""
    served = PooledServed(tmp_path, pool)
    try:
        facts = served.write()
        ledger = served.guard.ledger
        ids = [p.fact_id for p in facts]
        for _ in range(3):  # stored, then served (if this pool has a cache at all)
            ledger.latest_checked(ids)
        outer = ledger.engine.connect()  # one checkout holds a transaction open ...
        outer.execute(text("SELECT 1"))
        with ledger.engine.begin() as inner:  # ... a second one, on the same connection
            inner.execute(text("SELECT 1"))
        # the inner checkin came first; the outer checkout now edits the row and commits
        outer.execute(text("UPDATE mg_provenance SET record = :r WHERE fact_id = :f"),
                      {"r": _forged(facts[1]), "f": facts[1].fact_id})  # fmt: skip
        outer.commit()
        outer.close()
        assert facts[1].fact_id not in served.found()
        assert "integrity.record_mismatch" in served.alarms()
    finally:
        served.guard.close()


def test_the_cache_is_only_kept_for_a_pool_of_one_checkout_per_connection(tmp_path: Path) -> None:
    shared = create_engine(f"sqlite:///{tmp_path / 'a.db'}", poolclass=StaticPool)
    with pytest.raises(ValueError):
        VerifiedRows(shared)
    assert not VerifiedRows.fits(shared)
    pooled = create_engine(f"sqlite:///{tmp_path / 'b.db'}")
    assert VerifiedRows.fits(pooled)
    shared.dispose()
    pooled.dispose()


def test_a_failing_pool_on_the_all_held_path_is_a_ledger_error(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    ledger = served.guard.ledger
    pool = ledger.engine.pool
    pool.dispose()  # no idle connection: the next checkout connects

    def refused() -> object:
        raise sqlite3.OperationalError("unable to open database file")

    real = pool._creator  # type: ignore[attr-defined]
    pool._creator = refused  # type: ignore[attr-defined]
    try:
        with pytest.raises(LedgerError):
            ledger.latest_checked([p.fact_id for p in facts])
    finally:
        pool._creator = real  # type: ignore[attr-defined]
    assert set(ledger.latest_checked([p.fact_id for p in facts])[0]) == {p.fact_id for p in facts}


def _pair(fact_id: str, record: str) -> tuple[LedgerRecord, LoggedHead]:
    row = LedgerRecord(fact_id, 1, FactState.COMMITTED, "sha256:r", "sha256:c", record, False)
    return row, LoggedHead(1, "committed", "sha256:r", False, True)


def test_large_records_are_bounded_by_bytes_not_only_by_count(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'c.db'}")
    try:
        cache = VerifiedRows(engine)
        pooled = engine.raw_connection()
        epoch = cache._open(pooled)  # what a read's data_version check gives
        pooled.close()
        assert epoch is not None
        big = "x" * 16_000  # ~ a record with 256 inputs, a 4 KiB URI and a long source name
        for start in range(0, 16_384, 512):
            cache.put(epoch, [_pair(f"f{i}", big + str(i)) for i in range(start, start + 512)])
        held = sum(len(pair[0].record) for pair in cache._pairs.values())
        assert held <= cache.max_bytes
        assert cache.held_bytes <= cache.max_bytes
        assert len(cache._pairs) >= cache.max_bytes // 20_000  # still holding what fits
        small = [_pair(f"s{i}", "y" * 100) for i in range(200)]
        cache.put(epoch, small)
        assert {f"s{i}" for i in range(200)} <= cache._pairs.keys()
        huge = _pair("huge", "z" * (cache.max_bytes + 1))
        cache.put(epoch, [huge])
        assert "huge" not in cache._pairs  # larger than the bound: never kept
        assert cache.held_bytes <= cache.max_bytes
    finally:
        engine.dispose()


def test_ledgers_opened_on_one_engine_share_its_cache(tmp_path: Path) -> None:
    """``Ledger(engine)`` again and again on one engine (a ledger per request): each used to add
    its own cache and four listeners that the engine kept alive, pairs and all, for as long as it
    lived (N ledgers: N times the bound, and N hooks on every transaction)."""
    engine = create_engine(f"sqlite:///{tmp_path / 'l.db'}")
    try:
        first = Ledger(engine)
        hooks = len(engine.dispatch.begin), len(engine.pool.dispatch.checkin)
        for _ in range(3):
            again = Ledger(engine)
            assert again._verified is first._verified is not None
        assert (len(engine.dispatch.begin), len(engine.pool.dispatch.checkin)) == hooks
    finally:
        engine.dispose()
