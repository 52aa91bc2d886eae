"""redteam32: the batched supersede (memguard/ledger/supersede.py) and the batched lookups of
stamp (memguard/stamp.py) against batches built to slip past them: an update batch mixing the
writer's fact with another owner's, a batch naming an id twice, and two writers (two ledgers on
one SQLite file, as two processes) racing to write the next version of one fact.

What would fail: a refused batch that still superseded the writer's own older version (its
fact left with no committed version), or a race that left two committed versions of one fact,
or a lost version, or a ledger that no longer verifies.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memguard import (
    FactInput,
    FactNotFound,
    InvalidRequest,
    Ledger,
    LocalTokenService,
    MemguardError,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
)
from memguard.ledger import FactState
from memguard.stores.memory import InMemoryStore

CHAT = Source(kind=SourceKind.USER_MESSAGE)


def _fact(text: str, i: int = 0) -> FactInput:
    return FactInput(text=text, namespace="n", source=CHAT, turn=Turn(session_id="s", turn_index=i))


def _states(ledger: Ledger, fact_id: str) -> list[tuple[int, str]]:
    return [(r.version, r.state.value) for r in ledger.versions(fact_id)]


def _tamper(ledger: Ledger) -> list[str]:
    return [p.kind.value for p in ledger.verify().problems if p.severity == "tamper"]


@pytest.fixture
def guard(tmp_path: Path) -> tuple[MemoryGuard, LocalTokenService]:
    tokens = LocalTokenService(tmp_path / "keys")
    g = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                    verifier=tokens.verifier())  # fmt: skip
    return g, tokens


def test_an_update_batch_with_another_owners_fact_changes_nothing(
    guard: tuple[MemoryGuard, LocalTokenService],
) -> None:
    g, tokens = guard
    try:
        alice = g.authenticate(tokens.issue("alice"))
        bob = g.authenticate(tokens.issue("bob"))
        mine = [g.write(alice, f"mine {i}", namespace="n", source=CHAT,
                        turn=Turn(session_id="s", turn_index=0)) for i in range(3)]  # fmt: skip
        theirs = g.write(bob, "bob's", namespace="n", source=CHAT, turn=Turn(session_id="b", turn_index=0))
        ids = [m.fact_id for m in mine]
        for order in ([*ids, theirs.fact_id], [theirs.fact_id, *ids], [ids[0], theirs.fact_id, ids[1]]):
            with pytest.raises(FactNotFound):
                g.write_many(alice, [_fact(f"v2 {i}", 1) for i in range(len(order))], fact_ids=order)
        for fid in ids:
            assert _states(g.ledger, fid) == [(1, "committed")]
        assert _states(g.ledger, theirs.fact_id) == [(1, "committed")]
        assert g.get(bob, theirs.fact_id).text == "bob's"
        # a batch naming one id twice is refused before anything is read or staged
        with pytest.raises(InvalidRequest):
            g.write_many(alice, [_fact("a", 1), _fact("b", 1)], fact_ids=[ids[0], ids[0]])
        assert _states(g.ledger, ids[0]) == [(1, "committed")]
        # the same batch without bob's fact: every older version superseded, one committed each
        again = g.write_many(alice, [_fact(f"v2 {i}", 1) for i in range(3)], fact_ids=ids)
        assert [p.version for p in again] == [2, 2, 2]
        for fid in ids:
            assert _states(g.ledger, fid) == [(1, "superseded"), (2, "committed")]
        assert _tamper(g.ledger) == []
    finally:
        g.close()


def test_two_ledgers_racing_for_the_next_version_leave_one_committed_head(tmp_path: Path) -> None:
    tokens = LocalTokenService(tmp_path / "keys")
    store = InMemoryStore(dimension=8)
    guards = [MemoryGuard(store=store, ledger=Ledger.sqlite(tmp_path / "l.db"),
                          verifier=tokens.verifier()) for _ in range(2)]  # fmt: skip
    try:
        who = [g.authenticate(tokens.issue("alice")) for g in guards]
        base = guards[0].write_many(who[0], [_fact(f"base {i}") for i in range(8)])
        ids = [p.fact_id for p in base]
        barrier = threading.Barrier(2)
        outcome: list[list[str]] = [[], []]

        def writer(n: int) -> None:
            for round_ in range(6):
                barrier.wait(timeout=30)
                try:
                    guards[n].write_many(who[n], [_fact(f"w{n} r{round_} {i}", round_ + 1)
                                                  for i in range(len(ids))], fact_ids=ids)  # fmt: skip
                    outcome[n].append("ok")
                except MemguardError as exc:
                    outcome[n].append(type(exc).__name__)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert "ok" in outcome[0] + outcome[1]
        ledger = guards[0].ledger
        for fid in ids:
            states = _states(ledger, fid)
            versions = [v for v, _ in states]
            assert versions == sorted(set(versions)), states  # no version twice
            committed = [v for v, s in states if s == FactState.COMMITTED.value]
            assert committed == [max(v for v, s in states if s != "aborted")], states
            assert all(s in ("superseded", "aborted") for v, s in states if v not in committed)
        assert _tamper(ledger) == []
    finally:
        for g in guards:
            g.close()
