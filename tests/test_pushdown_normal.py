"""The one normal form (memguard.pushdown.normal): what every translator starts from.

Properties over random conditions (nested ``Not``/``And``/``Or``, ``Exists``, literals of the wrong
type, integers at +-2^53 .. +-2^63) and random facts (absent, null, empty, typed at the edges of
each field's domain, and mistyped):

- ``normalize`` keeps the meaning: ``evaluate(normalize(c), f) == evaluate(c, f)`` on every fact;
- its output is the normal form: negations only around one atom, literals of the field's type
  inside its domain (so no translator ever sees an integer beyond +-10^14), no ``Not(Exists)``;
- it is idempotent; ``fold`` with known fields is exact on facts that have those values; ``dnf``
  lists conjunctions whose disjunction means the same;
- type mismatches never make a condition or its negation hold (the fail-closed rule).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policy_strategies import IR_CONDITIONS, ir_fact

from memguard.errors import UntranslatableCondition
from memguard.pushdown.normal import dnf, fold, normalize
from memguard.scope import (
    DOMAINS,
    EXACT_INT,
    And,
    Condition,
    Eq,
    Exists,
    Gte,
    In,
    Not,
    Or,
    evaluate,
)

SETTINGS = settings(
    max_examples=600, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def _facts(seed: int, n: int = 40) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [ir_fact(rng, mistyped=0.3) for _ in range(n)]


def _is_normal(cond: Condition | bool) -> bool:
    match cond:
        case bool():
            return True
        case Eq(f, v) | Gte(f, v):
            return DOMAINS[f].literal_ok(v) and DOMAINS[f].accepts(v) if isinstance(cond, Eq) else (
                DOMAINS[f].kind is int and type(v) is int and DOMAINS[f].low < v <= DOMAINS[f].high
            )
        case In(f, vs):
            return len(vs) >= 2 and all(DOMAINS[f].accepts(v) for v in vs)
        case Exists(f):
            return f in DOMAINS
        case Not(item):
            return isinstance(item, Eq | In | Gte) and _is_normal(item)
        case And(items) | Or(items):
            return len(items) >= 2 and all(_is_normal(i) and not isinstance(i, type(cond)) for i in items)
    return False


def _ints(cond: Condition | bool) -> list[int]:
    match cond:
        case Eq(_, v) | Gte(_, v):
            return [v] if type(v) is int else []
        case In(_, vs):
            return [v for v in vs if type(v) is int]
        case Not(item):
            return _ints(item)
        case And(items) | Or(items):
            return [i for item in items for i in _ints(item)]
    return []


@SETTINGS
@given(cond=IR_CONDITIONS, seed=st.integers(0, 2**32))
def test_normalize_keeps_the_meaning_on_every_fact(cond: Condition, seed: int) -> None:
    normal = normalize(cond)
    assert _is_normal(normal), normal
    assert all(abs(i) <= EXACT_INT + 1 for i in _ints(normal))  # exact in every backend
    assert normalize(normal) == normal
    for fact in _facts(seed):
        expected = evaluate(cond, fact)
        got = normal if isinstance(normal, bool) else evaluate(normal, fact)
        assert got == expected, (cond, normal, fact)


@SETTINGS
@given(cond=IR_CONDITIONS, seed=st.integers(0, 2**32), data=st.data())
def test_fold_is_exact_on_facts_with_the_known_values(
    cond: Condition, seed: int, data: st.DataObject
) -> None:
    facts = _facts(seed, 30)
    template = data.draw(st.sampled_from(facts))
    names = data.draw(st.lists(st.sampled_from(sorted(DOMAINS)), max_size=3, unique=True))
    known = {n: template.get(n) for n in names}
    folded = fold(cond, known)
    for fact in facts:
        fact = {**fact, **known}
        expected = evaluate(cond, fact)
        got = folded if isinstance(folded, bool) else evaluate(folded, fact)
        assert got == expected, (cond, known, folded, fact)


@SETTINGS
@given(cond=IR_CONDITIONS, seed=st.integers(0, 2**32))
def test_dnf_means_the_same(cond: Condition, seed: int) -> None:
    try:
        terms = dnf(cond, 64)
    except UntranslatableCondition:
        return  # more than 64 conjunctions: refused, which is allowed
    for fact in _facts(seed, 20):
        got = any(all(evaluate(lit, fact) for lit in term) for term in terms)
        assert got == evaluate(cond, fact)


def test_dnf_limit_is_a_refusal() -> None:
    wide = And(tuple(Or((Eq("namespace", f"a{i}"), Eq("owner_sub", f"b{i}"))) for i in range(7)))
    assert len(dnf(wide, 200)) == 128
    with pytest.raises(UntranslatableCondition, match="more than 64 queries"):
        dnf(wide, 64)


# -- the fail-closed type rule ----------------------------------------------------------------------

FACT = {"trust": 4, "namespace": "n", "created_at": 1_800_000_000, "source_kind": "web"}


@pytest.mark.parametrize(
    "atom",
    [Eq("trust", "user"), Gte("trust", "4"), In("trust", ("x", "y")), Eq("namespace", 3),
     Gte("namespace", 1), Gte("source_kind", 2)],
    ids=repr,
)
def test_a_type_mismatch_makes_neither_the_atom_nor_its_negation_hold(atom: Condition) -> None:
    assert normalize(atom) is False and normalize(Not(atom)) is False
    assert not evaluate(atom, FACT) and not evaluate(Not(atom), FACT)
    # inside a larger condition too: a permit never matches because of it, a forbid's
    # "definitely false" never holds because of it
    assert not evaluate(Or((atom, Eq("namespace", "zz"))), FACT)
    assert not evaluate(Not(And((atom, Eq("namespace", "n")))), FACT)
    assert evaluate(Not(And((atom, Eq("namespace", "zz")))), FACT)  # decided by the other part


def test_a_mistyped_stored_value_makes_neither_hold() -> None:
    for stored in ({"trust": "4"}, {"trust": True}, {"trust": 9}, {"trust": [4]}, {"trust": 4.0},
                   {"created_at": 2**53}, {"source_kind": "rss"}):  # fmt: skip
        name = next(iter(stored))
        for atom in (Eq(name, 4), Gte(name, 1), Eq(name, "web"), Exists(name)):
            assert not evaluate(atom, stored) and not evaluate(Not(atom), stored), (stored, atom)


@pytest.mark.parametrize(
    ("cond", "expected"),
    [
        (Gte("created_at", 2**53 + 1), False),  # above the domain: nothing stored can reach it
        (Gte("created_at", -(2**63)), Exists("created_at")),  # below it: any stored value
        (Not(Gte("created_at", 2**63 - 1)), Exists("created_at")),
        (Not(Gte("created_at", -(2**53))), False),
        (Eq("derived_from_count", 2**62), False),
        (Not(Eq("derived_from_count", 2**62)), Exists("derived_from_count")),
        (In("created_at", (2**53, 5)), Eq("created_at", 5)),
        (Not(In("created_at", (2**53, 5))), Not(Eq("created_at", 5))),
        (Gte("trust", 7), False),
        (Gte("trust", 0), Exists("trust")),
        (Not(Eq("source_kind", "web")), Not(Eq("source_kind", "web"))),
        (Not(In("source_kind", ("web", "document"))), In("source_kind", ("agent_inference", "legacy",
                                                                         "subagent_report", "system",
                                                                         "tool_output", "user_message"))),
        (And((Gte("trust", 1), Gte("trust", 3), Not(Gte("trust", 6)), Not(Gte("trust", 5)))),
         And((Gte("trust", 3), Not(Gte("trust", 5))))),
        (And((Exists("trust"), Eq("trust", 4))), Eq("trust", 4)),
        (Not(Not(Eq("namespace", "a"))), Eq("namespace", "a")),
        (Not(Exists("namespace")), False),
        (Not(Or((Eq("namespace", "a"), Gte("trust", 3)))), And((Not(Eq("namespace", "a")), Not(Gte("trust", 3))))),
        (Not(And((Eq("namespace", "a"), Gte("trust", 3)))),
         And((Exists("namespace"), Exists("trust"), Or((Not(Eq("namespace", "a")), Not(Gte("trust", 3))))))),
    ],
    ids=repr,
)
def test_examples(cond: Condition, expected: Condition | bool) -> None:
    assert normalize(cond) == expected


@pytest.mark.parametrize(
    "cond",
    [Eq("colour", "x"), Exists("colour"), In("namespace", ()), And(()), Or(()), Eq("trust", True),
     Eq("namespace", None), Gte("trust", 1.0), Not(And((Eq("namespace", "a"), Or(()))))],  # type: ignore[arg-type]
    ids=repr,
)
def test_malformed_conditions_are_refused(cond: Condition) -> None:
    with pytest.raises(UntranslatableCondition):
        normalize(cond)
