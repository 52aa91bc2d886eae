"""The read path's per-hit caches (memguard/integrity.py): a record's indexed fields, remembered
by the record text, and a residual plan's verdict, remembered by the typed values of the fields
its condition mentions. A verdict is never reused for a condition that is equal in Python but
another condition to the evaluator (a literal of another type), for a value of another type,
nor for another caller's scope; over random conditions and fields it always equals the
evaluator's."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from policy_strategies import IR_CONDITIONS, ir_fact

from memguard import FactNotFound, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.integrity import plan_admits, record_fields
from memguard.ledger.records import _parse
from memguard.scope import And, Condition, Eq, Gte, In, PlanKind, ScopePlan, evaluate, index_fields
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
        verdicts.append(plan_admits(plan, fields))
    assert verdicts == [True, False, False, True]


def test_a_stored_value_of_another_type_is_another_key() -> None:
    """A verdict for ``trust = 4`` is never served for a stored ``4.0`` or ``True`` (mistyped:
    never a match), nor one for ``tags = ["a"]`` for a scalar ``"a"``, nor for an absent field
    for a null one; in both orders (the first one evaluated fills the cache)."""
    plan = ScopePlan(PlanKind.RESIDUAL, "d", condition=And((Eq("trust", 4), In("tags", ("a",)))))
    cases: list[dict[str, Any]] = [
        {"trust": 4, "tags": ["a"]}, {"trust": 4.0, "tags": ["a"]}, {"trust": True, "tags": ["a"]},
        {"trust": 4, "tags": "a"}, {"trust": 4, "tags": ("a",)}, {"trust": 4}, {"trust": 4, "tags": None},
        {"trust": 4, "tags": [True]}, {"trust": 4, "tags": ["a", 1]},
    ]  # fmt: skip
    for order in (cases, cases[::-1], cases):
        assert [plan_admits(plan, f) for f in order] == [evaluate(plan.condition, f) for f in order]  # type: ignore[arg-type]
    assert plan_admits(plan, {"trust": 4, "tags": ["a"]}) is True


def test_an_unhashable_value_is_evaluated_not_cached() -> None:
    plan = ScopePlan(PlanKind.RESIDUAL, "d", condition=Eq("owner_sub", "a"))
    assert plan_admits(plan, {"owner_sub": {"x": 1}}) is False  # type: ignore[dict-item]
    assert plan_admits(plan, {"owner_sub": "a"}) is True


@settings(max_examples=150, deadline=None)
@given(st.lists(IR_CONDITIONS, min_size=1, max_size=4), st.integers(0, 2**32))
def test_cached_verdicts_equal_the_evaluator(conditions: list[Condition], seed: int) -> None:
    """Random conditions over random (partly mistyped) fields, each decided twice through the
    shared cache: every verdict is the evaluator's."""
    rng = random.Random(seed)
    facts = [ir_fact(rng, mistyped=0.3) for _ in range(12)]
    plans = [ScopePlan(PlanKind.RESIDUAL, "d", condition=c) for c in conditions]
    for _ in range(2):
        for plan in plans:
            for fields in facts:
                assert plan_admits(plan, fields) == evaluate(plan.condition, fields)  # type: ignore[arg-type]


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
