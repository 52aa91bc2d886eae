"""Red team (stop 30): the residual plan's per-hit verdict cache (memguard.integrity.plan_admits).

Verdicts are remembered per (condition repr, typed values of the fields it reads). Two records
must never share a cached verdict unless the reference evaluator decides them alike: values that
Python's ``==`` blurs (``1``/``True``/``1.0``, ``0.0``/``-0.0``, NaN, ``["a"]``/``("a",)``, a
missing field and ``None``), NFKC look-alikes, integers past the exact range, nested lists and
dicts. Each case warms the cache with one value and then asks about the look-alike; the cache
stays bounded however many distinct keys a reader sends.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memguard import integrity
from memguard.integrity import plan_admits
from memguard.scope import (
    EXACT_INT,
    And,
    Eq,
    Exists,
    Gte,
    In,
    Not,
    Or,
    PlanKind,
    ScopePlan,
    evaluate,
)

_ABSENT = object()

#: look-alike values: each group holds values Python may hash or compare alike
_LOOKALIKES: list[Any] = [
    1, True, 1.0, 0, False, 0.0, -0.0, math.nan, float("inf"),
    "a", ["a"], ("a",), ["a", 1], ["a", True], [["a"]], {"a": 1},
    "\ufb01", "fi", "\uff21", "A", "e\u0301", "\u00e9",
    EXACT_INT, EXACT_INT + 1, 2**63, -(2**63) - 1, 10**40,
    None, _ABSENT, [], "", 4, 4.0, "4",
]  # fmt: skip

_FIELDS = ("trust", "owner_sub", "tags", "created_at", "namespace")
_LITERALS = st.sampled_from([1, True, 4, 4.0, "a", "A", "fi", "\ufb01", "\u00e9", EXACT_INT, 0, -1])


def _atoms() -> st.SearchStrategy[Any]:
    field = st.sampled_from(_FIELDS)
    return st.one_of(
        st.builds(Eq, field, _LITERALS),
        st.builds(In, field, st.lists(_LITERALS, min_size=1, max_size=3).map(tuple)),
        st.builds(Gte, field, st.sampled_from([0, 1, 4, EXACT_INT, True])),
        st.builds(Exists, field),
    )


_CONDITIONS = st.recursive(
    _atoms(),
    lambda inner: st.one_of(
        st.builds(And, st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.builds(Or, st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.builds(Not, inner),
    ),
    max_leaves=6,
)


def _fields(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not _ABSENT}


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    _CONDITIONS,
    st.lists(st.fixed_dictionaries({f: st.sampled_from(_LOOKALIKES) for f in _FIELDS}),
             min_size=2, max_size=8),
)  # fmt: skip
def test_a_cached_verdict_is_the_reference_verdict_for_every_look_alike(
    condition: Any, records: list[dict[str, Any]]
) -> None:
    plan = ScopePlan(PlanKind.RESIDUAL, "sha256:x", condition)
    for values in records + records[::-1]:  # each asked twice: once cold, once from the cache
        fields = _fields(values)
        assert plan_admits(plan, fields) is evaluate(condition, fields), (condition, fields)


def test_one_principals_verdict_is_not_another_principals() -> None:
    """Two principals' plans: equal shape, different owner literal; the same fact fields."""
    fact = {"owner_sub": "alice", "trust": 4, "namespace": "n"}
    for _ in range(2):
        alice = ScopePlan(PlanKind.RESIDUAL, "sha256:p", And((Eq("owner_sub", "alice"), Gte("trust", 3))))
        bob = ScopePlan(PlanKind.RESIDUAL, "sha256:p", And((Eq("owner_sub", "bob"), Gte("trust", 3))))
        # NFKC and case look-alikes of the owner are other principals (compared byte-exactly)
        fi = ScopePlan(PlanKind.RESIDUAL, "sha256:p", Eq("owner_sub", "\ufb01"))
        assert plan_admits(alice, fact) is True
        assert plan_admits(bob, fact) is False
        assert plan_admits(fi, {**fact, "owner_sub": "fi"}) is False
        assert plan_admits(fi, {**fact, "owner_sub": "\ufb01"}) is True


def test_the_cache_stays_bounded_under_many_distinct_keys() -> None:
    plan = ScopePlan(PlanKind.RESIDUAL, "sha256:x", Eq("namespace", "n"))
    for i in range(3 * integrity._MAX_VERDICTS):
        assert plan_admits(plan, {"namespace": f"n{i}"}) is False
    assert len(integrity._VERDICTS) <= integrity._MAX_VERDICTS
    for i in range(3 * integrity._MAX_CONDITIONS):  # a fresh condition object per read
        assert plan_admits(ScopePlan(PlanKind.RESIDUAL, "sha256:x", Eq("namespace", f"m{i}")),
                           {"namespace": f"m{i}"}) is True  # fmt: skip
    assert len(integrity._CONDITION_KEYS) <= integrity._MAX_CONDITIONS


def test_unhashable_field_values_are_evaluated_not_cached() -> None:
    plan = ScopePlan(PlanKind.RESIDUAL, "sha256:x", Not(Eq("tags", "a")))
    for value in ([["a"]], [{"a": 1}], {"a": 1}, [["b"]]):
        assert plan_admits(plan, {"tags": value}) is False  # mistyped: never a permit match
