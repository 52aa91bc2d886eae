"""The read path's per-hit caches (memguard/integrity.py): a record's indexed fields and a
residual plan's verdict, both remembered by the record text. A verdict is never reused for a
condition that is equal in Python but another condition to the evaluator (a literal of another
type), nor for another caller's scope."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memguard import FactNotFound, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.integrity import plan_admits, record_fields
from memguard.ledger.records import _parse
from memguard.scope import And, Eq, Gte, PlanKind, ScopePlan, index_fields
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[MemoryGuard]:
    tokens = LocalTokenService(tmp_path / "keys")
    made = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                       verifier=tokens.verifier())  # fmt: skip
    made.test_tokens = tokens  # type: ignore[attr-defined]
    yield made
    made.close()


def test_a_literal_of_another_type_is_another_condition() -> None:
    fields = {"trust": 4, "owner_sub": "a"}
    verdicts = []
    for literal in (4, 4.0, True, 4):  # equal and hashing alike in Python
        plan = ScopePlan(PlanKind.RESIDUAL, "d",
                         condition=And((Eq("owner_sub", "a"), Gte("trust", literal))))  # fmt: skip
        verdicts.append(plan_admits(plan, "the same record text", fields))
    assert verdicts == [True, False, False, True]


def test_record_fields_are_the_index_fields_and_read_only(guard: MemoryGuard) -> None:
    me = guard.authenticate(guard.test_tokens.issue("alice"))  # type: ignore[attr-defined]
    fact = guard.write(me, "hello", namespace="n", source=SRC, turn=Turn(session_id="s", turn_index=0))
    (record,) = guard.ledger.latest([fact.fact_id]).values()
    fields = record_fields(record.record)
    assert dict(fields) == index_fields(_parse(record.record))
    with pytest.raises(TypeError):
        fields["owner_sub"] = "bob"  # type: ignore[index]


def test_warm_verdicts_never_cross_callers(guard: MemoryGuard) -> None:
    tokens = guard.test_tokens  # type: ignore[attr-defined]
    alice, bob = (guard.authenticate(tokens.issue(s)) for s in ("alice", "bob"))
    mine = {guard.write(alice, f"alice {i}", namespace="n", source=SRC,
                        turn=Turn(session_id="s", turn_index=i)).fact_id for i in range(5)}  # fmt: skip
    theirs = {guard.write(bob, f"bob {i}", namespace="n", source=SRC,
                          turn=Turn(session_id="t", turn_index=i)).fact_id for i in range(5)}  # fmt: skip
    for _ in range(3):  # warm: the same facts, the same text, other conditions
        assert {f.fact_id for f in guard.search(alice, "x", k=20)} == mine
        assert {f.fact_id for f in guard.search(bob, "x", k=20)} == theirs
    for fid in theirs:
        with pytest.raises(FactNotFound):
            guard.get(alice, fid)
