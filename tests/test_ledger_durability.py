"""One durable commit per guarded write call (memguard/ledger/durability.py).

What SQLite fsyncs is modelled from the statements the ledger sends: a transaction that wrote
is synced at commit when its connection runs ``synchronous=FULL`` (WAL mode), not under
``NORMAL``. benchmarks/bench_ledger_fsync.py counts the real fdatasync calls with strace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from memguard import FactInput, MemoryGuard, Source, SourceKind, Turn
from memguard.ledger import FactState, Ledger
from memguard.ledger.durability import transaction
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService

SRC = Source(kind=SourceKind.USER_MESSAGE)
_WRITES = ("INSERT", "UPDATE", "DELETE", "BEGIN IMMEDIATE")


class SyncModel:
    """Counts the commits SQLite makes durable (fsync of the WAL) on one engine."""

    def __init__(self, ledger: Ledger) -> None:
        self.full: dict[int, bool] = {}
        self.wrote: dict[int, bool] = {}
        self.durable = 0
        self.relaxed = 0
        engine = ledger.engine
        event.listen(engine, "before_cursor_execute", self._execute)
        event.listen(engine, "commit", self._commit)

    def _execute(self, conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        key = id(conn.connection.dbapi_connection)
        text = statement.strip().upper()
        if text.startswith("PRAGMA SYNCHRONOUS="):
            self.full[key] = text.endswith("FULL")
        elif text.startswith(_WRITES):
            self.wrote[key] = True

    def _commit(self, conn: Any) -> None:
        key = id(conn.connection.dbapi_connection)
        if self.wrote.pop(key, False):
            if self.full.get(key, True):  # the connect hook sets FULL
                self.durable += 1
            else:
                self.relaxed += 1


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[MemoryGuard]:
    tokens = LocalTokenService(tmp_path / "keys")
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    ledger.log.checkpoint_interval = 1e9  # no checkpoint inside the measured window
    g = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger, verifier=tokens.verifier())
    g.test_tokens = tokens  # type: ignore[attr-defined]
    yield g
    g.close()


def _facts(n: int, prefix: str = "fact") -> list[FactInput]:
    return [FactInput(text=f"{prefix} {i}", namespace="n", source=SRC,
                      turn=Turn(session_id="s", turn_index=i)) for i in range(n)]  # fmt: skip


def test_a_new_fact_costs_one_durable_commit(guard: MemoryGuard) -> None:
    me = guard.authenticate(guard.test_tokens.issue("alice"))  # type: ignore[attr-defined]
    guard.write(me, "warm", namespace="n", source=SRC, turn=Turn(session_id="s", turn_index=0))
    model = SyncModel(guard.ledger)
    for fact in _facts(10):
        guard.write(me, fact.text or "", namespace="n", source=SRC, turn=fact.turn)
    assert model.durable == 10  # the commit; the staging before it was relaxed
    guard.write_many(me, _facts(8, "batch"))
    assert model.durable == 11
    guard.ledger.log.integrate()  # integrating queued leaves without a checkpoint: relaxed
    assert model.durable == 11 and model.relaxed >= 12
    assert len(guard.ledger.in_state(FactState.COMMITTED)) == 19


def test_a_new_version_is_staged_durably(guard: MemoryGuard) -> None:
    """Its store point replaces the committed one's: the pending row must survive a power loss."""
    me = guard.authenticate(guard.test_tokens.issue("alice"))  # type: ignore[attr-defined]
    first = guard.write(me, "v1", namespace="n", source=SRC, turn=Turn(session_id="s", turn_index=0))
    model = SyncModel(guard.ledger)
    guard.update(me, first.fact_id, "v2", source=SRC, turn=Turn(session_id="s", turn_index=1))
    assert model.durable == 2  # staging and commit


def test_a_relaxed_transaction_leaves_the_pool_durable(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    try:
        with transaction(ledger.engine, durable=False) as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        with pytest.raises(RuntimeError), transaction(ledger.engine, durable=False):
            raise RuntimeError("a failed relaxed transaction")
        for _ in range(3):  # the pool hands back the same connection
            with ledger.engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    finally:
        ledger.close()


def test_postgres_relaxes_only_the_one_transaction(pg_url: str) -> None:
    ledger = Ledger.from_url(pg_url)
    try:
        with transaction(ledger.engine, durable=False) as conn:
            assert conn.exec_driver_sql("SHOW synchronous_commit").scalar() == "off"
        with ledger.engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
    finally:
        ledger.close()


def test_a_read_is_audited_without_an_fsync_and_a_denial_with_one(guard: MemoryGuard) -> None:
    """The allow event that ends a read (and its turn reads) is relaxed: a later durable commit
    covers it. A denial is a security event: committed durably on its own."""
    from memguard.errors import MemguardError

    me = guard.authenticate(guard.test_tokens.issue("alice"))  # type: ignore[attr-defined]
    fact = guard.write(me, "warm", namespace="n", source=SRC, turn=Turn(session_id="s", turn_index=0))
    model = SyncModel(guard.ledger)
    for i in range(5):
        assert guard.search(me, "warm", k=3, turn=Turn(session_id="s", turn_index=i + 1))
        guard.get(me, fact.fact_id)
    assert model.durable == 0 and model.relaxed >= 10
    reads = [e for e in guard.ledger.events() if e.action in ("search", "get")]
    assert len(reads) == 10  # every read is in the log
    with pytest.raises(MemguardError):
        guard.get(me, "no-such-fact")
    assert model.durable == 1
