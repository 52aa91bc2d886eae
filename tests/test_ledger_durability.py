"""One durable commit per guarded write call (memguard/ledger/durability.py).

What SQLite fsyncs is modelled from the statements the ledger sends and the level each
connection runs when it commits: a transaction that wrote is synced at commit when its connection
runs ``synchronous=FULL`` (WAL mode), not under ``NORMAL``. benchmarks/bench_ledger_fsync.py counts the real fdatasync calls with strace.
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
    """Counts the commits SQLite makes durable (fsync of the WAL) on one engine, from SQLite's own
    trace of every statement on the connections the pool hands out (the ledger runs some
    transactions on the driver connection, outside SQLAlchemy's events: a read's allow event,
    memguard/ledger/readevent.py): a connection's level is the last ``PRAGMA synchronous`` it
    ran (read when the model first sees it), and a ``COMMIT`` after a write is durable at
    ``FULL``."""

    def __init__(self, ledger: Ledger) -> None:
        self.wrote: dict[int, bool] = {}
        self.level: dict[int, str] = {}
        self.durable = 0
        self.relaxed = 0
        event.listen(ledger.engine, "checkout", self._checkout)

    def _checkout(self, dbapi_conn: Any, *_: Any) -> None:
        key = id(dbapi_conn)
        if key not in self.level:  # the level it runs now (the trace follows it from here)
            level = dbapi_conn.execute("PRAGMA synchronous").fetchone()[0]
            self.level[key] = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[level]
        dbapi_conn.set_trace_callback(lambda statement: self._trace(key, statement))

    def _trace(self, key: int, statement: str) -> None:
        upper = statement.strip().upper()
        if upper.startswith("PRAGMA SYNCHRONOUS="):
            self.level[key] = upper.split("=", 1)[1]
        elif upper.startswith(_WRITES):
            self.wrote[key] = True
        elif upper.startswith("COMMIT") and self.wrote.pop(key, False):
            if self.level.get(key, "FULL") == "FULL":
                self.durable += 1
            else:
                self.relaxed += 1
        elif upper.startswith("ROLLBACK"):
            self.wrote.pop(key, None)


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


def _statements(ledger: Ledger) -> list[tuple[int, str]]:
    """Every statement SQLite runs on the connections the pool hands out, from SQLite's own
    trace: (which connection, statement)."""
    seen: list[tuple[int, str]] = []

    def checkout(dbapi_conn: Any, *_: Any) -> None:
        key = id(dbapi_conn)
        dbapi_conn.set_trace_callback(lambda statement: seen.append((key, statement)))

    event.listen(ledger.engine, "checkout", checkout)
    return seen


def test_relaxed_transactions_in_a_row_set_the_level_once(tmp_path: Path) -> None:
    """A read's allow event used to toggle ``synchronous`` twice (two statements, two commits)
    per transaction; the level now follows the pooled connection and changes only when needed."""
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    try:
        seen = _statements(ledger)
        for _ in range(3):
            with transaction(ledger.engine, durable=True) as conn:
                conn.exec_driver_sql("SELECT 1")
            seen.clear()
            for _ in range(6):
                with transaction(ledger.engine, durable=False) as conn:
                    conn.exec_driver_sql("SELECT 1")
            pragmas = [(c, s) for c, s in seen if "synchronous" in s.lower()]
            used = {c for c, _ in seen}
            # once per pooled connection that was at FULL, never back within the run
            assert len(pragmas) <= len(used) < 6
            assert {s for _, s in pragmas} <= {"PRAGMA synchronous=NORMAL"}
            seen.clear()
            with transaction(ledger.engine, durable=True) as conn:
                conn.exec_driver_sql("SELECT 1")
                level = conn.connection.dbapi_connection.execute(  # type: ignore[union-attr]
                    "PRAGMA synchronous"
                ).fetchone()[0]
            assert level == 2  # FULL
    finally:
        ledger.close()


def test_a_direct_durable_transaction_after_a_relaxed_one_is_durable(tmp_path: Path) -> None:
    """Code that opens its own ``engine.begin()`` on the ledger's engine (the gateway's
    idempotency table does) gets a FULL connection even when the pool's connection ran a relaxed
    transaction last: fails if the begin hook does not set the level back."""
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    try:
        with ledger.engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        model = SyncModel(ledger)
        for _ in range(3):
            model.durable = model.relaxed = 0
            with transaction(ledger.engine, durable=False) as conn:
                conn.exec_driver_sql("INSERT INTO t VALUES (1)")
            assert (model.durable, model.relaxed) == (0, 1)
            with ledger.engine.begin() as conn:  # not through durability.transaction
                conn.exec_driver_sql("INSERT INTO t VALUES (2)")
            assert (model.durable, model.relaxed) == (1, 1)
            with ledger.engine.connect() as conn:  # autobegin, then an explicit commit
                conn.exec_driver_sql("INSERT INTO t VALUES (3)")
                with transaction(ledger.engine, durable=False) as other:  # a second connection
                    other.exec_driver_sql("SELECT 1")  # leaves its connection at NORMAL
                conn.commit()
            assert (model.durable, model.relaxed) == (2, 1)
            with ledger.engine.begin() as conn:
                conn.exec_driver_sql("DELETE FROM t WHERE x > 2")
            assert (model.durable, model.relaxed) == (3, 1)
    finally:
        ledger.close()


def test_the_level_cannot_be_set_inside_a_transaction_so_the_begin_fails(tmp_path: Path) -> None:
    """SQLite refuses to change ``synchronous`` inside a transaction: a connection found inside
    one (outside SQLAlchemy's knowledge) is refused, never committed at the wrong level."""
    from memguard.errors import LedgerError

    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    try:
        with transaction(ledger.engine, durable=False) as conn:
            conn.exec_driver_sql("SELECT 1")
        with ledger.engine.connect() as conn:
            conn.connection.dbapi_connection.execute("BEGIN")  # type: ignore[union-attr]
            with pytest.raises(LedgerError):
                conn.begin()
            conn.invalidate()
    finally:
        ledger.close()
