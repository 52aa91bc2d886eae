"""Type-safe conditions: literals of the wrong type are load errors; at run time a fact value of the
wrong type never makes a permit match and always makes a forbid match, with the reason recorded.

The finding (issue 13): a string compared with a number made ``lt``, ``lte`` and ``ne`` true, so it
could permit.
"""

from __future__ import annotations

import pytest

from memguard import Principal, PrincipalId
from memguard.policy.evaluate import Engine
from memguard.policy.loader import digest_rules, load_policy_text
from memguard.policy.model import AllOf, Cmp, Effect, NotExpr, PolicyError, PolicySet, Ref, Rule
from memguard.policy.resolver import PolicyResolver
from memguard.scope import ReadRequest

HEAD = "apiVersion: memguard/v1\nrules:\n"
ALICE = Principal(subject=PrincipalId(issuer="i", subject="alice"), token_jti="t")
OWN = {"owner_iss": "i", "owner_sub": "alice"}


def _rule(when: str, effect: str = "permit") -> str:
    return HEAD + f"  - {{id: r1, effect: {effect}, actions: [get, search], when: {when}}}\n"


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ('{attr: fact.trust, lt: "3"}', "unknown trust level"),
        ("{attr: fact.trust, lt: 3}", "takes a trust level name"),
        ("{attr: fact.trust, eq: true}", "takes a trust level name"),
        ("{attr: fact.lineage_trust, gte: 1.5}", "takes a trust level name"),
        ('{attr: fact.created_at, lt: "100"}', "takes an integer, not a string"),
        ("{attr: fact.created_at, lt: 1.5}", "takes an integer, not a float"),
        ("{attr: fact.derived_from_count, ne: false}", "takes an integer, not a boolean"),
        ("{attr: fact.derived_from_count, in: [1, x]}", "takes an integer, not a string"),
        ("{attr: fact.owner_sub, eq: 3}", "takes a string, not an integer"),
        ("{attr: fact.owner_sub, lt: b}", "`lt` needs an integer or trust attribute"),
        ("{attr: fact.source_kind, eq: rss}", "unknown source kind"),
        ("{attr: principal.depth, gte: two}", "takes an integer, not a string"),
        ("{attr: fact.owner_sub, eq: {attr: principal.depth}}", "have different types"),
        ("{attr: fact.created_at, gte: 9223372036854775808}", "integer out of range (int64)"),
    ],
)
def test_literals_of_the_wrong_type_are_load_errors(when: str, message: str) -> None:
    with pytest.raises(PolicyError) as info:
        load_policy_text(_rule(when))
    assert message in str(info.value), str(info.value)
    assert info.value.problems[0].line == 3 and info.value.problems[0].column > 0


@pytest.mark.parametrize(
    "when",
    [
        Cmp("gte", "fact.created_at", "100"),
        Cmp("eq", "fact.owner_sub", 3),
        Cmp("eq", "fact.trust", 9),
        Cmp("in", "fact.trust", (4, "user")),
        Cmp("gte", "fact.owner_sub", 3),
        Cmp("eq", "fact.owner_sub", Ref("principal.depth")),
        Cmp("eq", "fact.colour", "red"),
        NotExpr(Cmp("eq", "fact.derived_from_count", True)),
    ],
    ids=repr,
)
def test_a_policy_set_built_in_code_obeys_the_same_rules(when: object) -> None:
    rules = (Rule("r1", Effect.PERMIT, frozenset({"get"}), when),)  # type: ignore[arg-type]
    with pytest.raises(PolicyError):
        Engine(PolicySet(rules, digest_rules(rules)))


MISTYPED = [
    {"created_at": "abc"}, {"created_at": 1.5}, {"created_at": True}, {"created_at": [1]},
    {"created_at": 2**60}, {"trust": "user"}, {"trust": 9}, {"derived_from_count": "3"},
    {"owner_sub": 5}, {"source_kind": "rss"}, {"lineage_trust": -1},
]  # fmt: skip


@pytest.mark.parametrize("bad", MISTYPED, ids=repr)
def test_a_mistyped_value_never_makes_a_permit_match(bad: dict[str, object]) -> None:
    """`lt`, `lte` and `ne` are negations: on a mistyped value they must be unknown, not true."""
    resolver = PolicyResolver.from_text(
        HEAD
        + "  - id: r1\n    effect: permit\n    actions: [get]\n    when:\n      any:\n"
        "        - {attr: fact.created_at, lt: 100}\n"
        "        - {attr: fact.created_at, lte: 100}\n"
        "        - {attr: fact.trust, lt: user}\n"
        "        - {attr: fact.lineage_trust, lte: tool}\n"
        "        - {attr: fact.derived_from_count, ne: 0}\n"
        "        - {attr: fact.owner_sub, ne: bob}\n"
        "        - {attr: fact.source_kind, ne: web}\n"
    )
    fact = {**bad}
    decision = resolver.decide(ALICE, "get", fact)
    assert not decision.allowed
    assert any("wrong type" in e for e in decision.errors), decision
    plan = resolver.read_plan(ALICE, ReadRequest("get"))
    assert not plan.allows(fact)  # the plan agrees with the point evaluator


@pytest.mark.parametrize("bad", MISTYPED, ids=repr)
def test_a_mistyped_value_always_makes_a_forbid_match(bad: dict[str, object]) -> None:
    name = next(iter(bad))
    attr = {"trust": "fact.trust", "lineage_trust": "fact.lineage_trust", "created_at": "fact.created_at",
            "derived_from_count": "fact.derived_from_count", "owner_sub": "fact.owner_sub",
            "source_kind": "fact.source_kind"}[name]  # fmt: skip
    value = {"fact.trust": "user", "fact.lineage_trust": "user", "fact.source_kind": "web",
             "fact.owner_sub": "bob"}.get(attr, 100)  # fmt: skip
    op = "eq" if attr in ("fact.owner_sub", "fact.source_kind") else "gte"
    resolver = PolicyResolver.from_text(
        HEAD
        + "  - {id: own, effect: permit, actions: [get], when: [{attr: fact.owner_iss, eq: i}]}\n"
        + f"  - {{id: f1, effect: forbid, actions: [get], when: {{attr: {attr}, {op}: {value}}}}}\n"
        + f"  - {{id: f2, effect: forbid, actions: [get], when: {{not: {{attr: {attr}, {op}: {value}}}}}}}\n"
    )
    fact = {"owner_iss": "i", **bad}
    decision = resolver.decide(ALICE, "get", fact)
    assert not decision.allowed and set(decision.rule_ids) == {"f1", "f2"}
    assert all("wrong type" in e for e in decision.errors) and len(decision.errors) == 2
    assert not resolver.read_plan(ALICE, ReadRequest("get")).allows(fact)


def test_well_typed_values_still_decide_normally() -> None:
    resolver = PolicyResolver.from_text(_rule("{attr: fact.created_at, lt: 100}"))
    assert resolver.decide(ALICE, "get", {"created_at": 99}).allowed
    assert not resolver.decide(ALICE, "get", {"created_at": 100}).allowed
    assert resolver.decide(ALICE, "get", {"created_at": 100}).errors == ()
    assert resolver.decide(ALICE, "get", {}).errors == ()  # missing is not a type error


def test_a_permit_condition_tree_with_a_mistyped_part_is_decided_by_the_rest() -> None:
    rules = (
        Rule("r1", Effect.PERMIT, frozenset({"get"}), AllOf((
            Cmp("eq", "fact.owner_sub", "alice"), NotExpr(Cmp("gte", "fact.trust", 5))))),
    )  # fmt: skip
    engine = Engine(PolicySet(rules, digest_rules(rules)))
    assert engine.decide(ALICE, "get", {"owner_sub": "alice", "trust": 4}).allowed
    assert not engine.decide(ALICE, "get", {"owner_sub": "alice", "trust": "4"}).allowed
    assert not engine.decide(ALICE, "get", {"owner_sub": "bob", "trust": 4}).allowed
