"""PolicyResolver: plans, write caps, digests, hot reload that keeps the last good set, deny-all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import Clock

from memguard import Actor, PolicyError, PolicyResolver, Principal, PrincipalId, TrustLevel
from memguard.policy.resolver import NO_POLICY_DIGEST
from memguard.scope import And, Eq, Gte, In, Not, PlanKind, ReadRequest

HEAD = "apiVersion: memguard/v1\nrules:\n"
ALICE = Principal(subject=PrincipalId(issuer="i", subject="alice"), token_jti="t")
RESEARCH = Principal(
    subject=PrincipalId(issuer="i", subject="alice"),
    actors=(Actor(issuer="i", subject="spiffe://d/agent/research"),),
    token_jti="t",
)


def resolver(rules: str, clock: Clock | None = None) -> PolicyResolver:
    return PolicyResolver.from_text(HEAD + rules, clock=clock or Clock())


OWN = "  - {id: own, effect: permit, actions: [read], when: {attr: fact.owner_sub, eq: {attr: principal.subject}}}\n"


def test_principal_attributes_are_evaluated_away() -> None:
    r = resolver(
        OWN
        + "  - {id: agents-trusted, effect: forbid, actions: [read], when: [{attr: principal.depth, gte: 1}, {attr: fact.trust, lt: user}]}\n"
    )
    plan = r.read_plan(ALICE, ReadRequest("search"))
    assert plan.kind is PlanKind.RESIDUAL
    assert plan.condition == Eq("owner_sub", "alice")  # the depth forbid folded away for depth 0
    plan = r.read_plan(RESEARCH, ReadRequest("search"))
    assert plan.condition == And((Eq("owner_sub", "alice"), Gte("trust", 4)))
    assert plan.policy_digest == r.digest
    assert plan.rule_ids == ("own", "agents-trusted")


def test_plans_are_tri_state() -> None:
    r = resolver(
        "  - {id: p, effect: permit, actions: [search]}\n"
        "  - {id: f, effect: forbid, actions: [get], when: {attr: context.purpose, eq: tool_argument}}\n"
        "  - {id: g, effect: permit, actions: [get]}\n"
    )
    assert r.read_plan(ALICE, ReadRequest("search")).kind is PlanKind.ALLOW
    denied = r.read_plan(ALICE, ReadRequest("get", purpose="tool_argument"))
    assert denied.kind is PlanKind.DENY and denied.rule_ids == ("f",)
    assert r.read_plan(ALICE, ReadRequest("get")).kind is PlanKind.ALLOW
    assert r.read_plan(ALICE, ReadRequest("delete")).kind is PlanKind.DENY  # default deny
    narrowed = r.read_plan(ALICE, ReadRequest("search", namespaces=("a",), min_trust=TrustLevel.USER))
    assert narrowed.kind is PlanKind.RESIDUAL
    assert narrowed.condition == And((Eq("namespace", "a"), Gte("trust", 4)))  # normal form


def test_negations_carry_existence_semantics() -> None:
    r = resolver("  - {id: p, effect: permit, actions: [get], when: {attr: fact.namespace, ne: secret}}\n")
    plan = r.read_plan(ALICE, ReadRequest("get"))
    assert plan.condition == Not(Eq("namespace", "secret"))
    assert plan.allows({"namespace": "public"})
    assert not plan.allows({"namespace": "secret"})
    assert not plan.allows({})  # a fact without a namespace is not "not secret"
    assert not r.decide(ALICE, "get", {}).allowed


def test_point_decisions_are_values_with_rule_ids_and_errors() -> None:
    r = resolver(
        OWN + "  - {id: no-web, effect: forbid, actions: [read], when: {attr: fact.source_kind, eq: web}}\n"
    )
    ok = r.decide(ALICE, "get", {"owner_sub": "alice", "source_kind": "user_message"})
    assert ok.allowed and ok.rule_ids == ("own",) and ok.policy_digest == r.digest
    web = r.decide(ALICE, "get", {"owner_sub": "alice", "source_kind": "web"})
    assert not web.allowed and web.rule_ids == ("no-web",) and web.reason == "forbid"
    unknown = r.decide(ALICE, "get", {"owner_sub": "alice"})
    assert not unknown.allowed and unknown.errors  # the forbid could not be decided: deny
    other = r.decide(ALICE, "get", {"owner_sub": "bob", "source_kind": "user_message"})
    assert not other.allowed and other.rule_ids == () and "default deny" in other.reason


def test_write_caps_compose_to_the_lowest() -> None:
    r = resolver(
        "  - {id: anyone, effect: permit, actions: [write]}\n"
        "  - id: research-cap\n    effect: permit\n    actions: [write]\n    max_trust: untrusted\n"
        "    when: {attr: principal.workload_id, eq: 'spiffe://d/agent/research'}\n"
        "  - {id: no-system-ns, effect: forbid, actions: [write], when: {attr: fact.namespace, eq: system}}\n"
    )
    user = r.write_decision(ALICE, "notes")
    assert user.allowed and user.max_trust is TrustLevel.SYSTEM and user.rule_ids == ("anyone",)
    agent = r.write_decision(RESEARCH, "notes")
    assert agent.allowed and agent.max_trust is TrustLevel.UNTRUSTED
    assert set(agent.rule_ids) == {"anyone", "research-cap"}
    denied = r.write_decision(ALICE, "system")
    assert not denied.allowed and denied.rule_ids == ("no-system-ns",)
    assert denied.policy_digest == r.digest


def test_an_evaluation_error_is_a_deny(monkeypatch: pytest.MonkeyPatch) -> None:
    r = resolver(OWN)
    from memguard.policy import resolver as mod

    def boom(*a: object, **k: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(mod, "plan_for_rules", boom)
    plan = r.read_plan(ALICE, ReadRequest("search"))
    assert plan.kind is PlanKind.DENY and "evaluation error" in plan.reason
    monkeypatch.setattr(r.engine, "decide_env", boom)
    d = r.decide(ALICE, "get", {"owner_sub": "alice"})
    assert not d.allowed and d.errors == ("RuntimeError",)


def _touch(path: Path, text: str, clock: Clock) -> None:
    path.write_text(text)
    stamp = int(clock.now) * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_hot_reload_and_keeping_the_last_good_set(tmp_path: Path) -> None:
    clock = Clock()
    policy = tmp_path / "p.yaml"
    _touch(policy, HEAD + OWN, clock)
    r = PolicyResolver.from_path(tmp_path, clock=clock, reload_interval=1.0)
    first = r.digest
    assert r.read_plan(ALICE, ReadRequest("search")).kind is PlanKind.RESIDUAL

    clock.advance(5)
    _touch(policy, HEAD + "  - {id: all, effect: permit, actions: [read]}\n", clock)
    assert r.read_plan(ALICE, ReadRequest("search")).kind is PlanKind.ALLOW  # reloaded
    second = r.digest
    assert second != first and r.last_error is None

    clock.advance(5)
    _touch(policy, HEAD + "  - {id: broken, effect: permit, actions: [read], when: {attr: nope, eq: 1}}\n", clock)
    plan = r.read_plan(ALICE, ReadRequest("search"))
    assert plan.kind is PlanKind.ALLOW and plan.policy_digest == second  # last good set kept
    assert r.last_error is not None and "rule `broken`" in str(r.last_error)

    clock.advance(5)
    _touch(policy, HEAD + OWN, clock)
    assert r.digest == first and r.last_error is None


def test_no_valid_policy_denies_everything(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(HEAD + "  - {id: x, effect: permit, actions: [fly]}\n")
    with pytest.raises(PolicyError):
        PolicyResolver.from_path(tmp_path)
    r = PolicyResolver.from_path(tmp_path, strict=False)
    assert not r.valid and r.digest == NO_POLICY_DIGEST
    plan = r.read_plan(ALICE, ReadRequest("search"))
    assert plan.kind is PlanKind.DENY and plan.policy_digest == NO_POLICY_DIGEST
    assert not r.write_decision(ALICE, "notes").allowed
    assert not r.decide(ALICE, "get", {"owner_sub": "alice"}).allowed


@pytest.mark.parametrize(
    "cond",
    [Eq("colour", "red"), In("namespace", ()), And(()), Gte("trust", 1.5), Eq("trust", True)],  # type: ignore[arg-type]
)
def test_malformed_conditions_are_refused_by_every_translator(cond: object) -> None:
    from sqlalchemy import MetaData

    from memguard import UntranslatableCondition
    from memguard.pushdown.langgraph import to_langgraph_filters
    from memguard.pushdown.mem0 import to_mem0_filter
    from memguard.pushdown.qdrant import to_qdrant_filter
    from memguard.pushdown.sql import fact_tables, to_sql_where

    with pytest.raises(UntranslatableCondition):
        to_sql_where(cond, fact_tables(MetaData()))  # type: ignore[arg-type]
    with pytest.raises(UntranslatableCondition):
        to_qdrant_filter(cond)  # type: ignore[arg-type]
    with pytest.raises(UntranslatableCondition):
        to_mem0_filter(cond)  # type: ignore[arg-type]
    with pytest.raises(UntranslatableCondition):
        to_langgraph_filters(cond)  # type: ignore[arg-type]


def test_a_rule_keyed_on_several_values_is_decided_once() -> None:
    r = resolver(
        "  - {id: agents, effect: permit, actions: [get], when: {attr: principal.actors, in: [a, b]}}\n"
    )
    twice = Principal(
        subject=PrincipalId(issuer="i", subject="alice"),
        actors=(Actor(issuer="i", subject="a"), Actor(issuer="i", subject="b")),
        token_jti="t",
    )
    assert r.decide(twice, "get", {}).rule_ids == ("agents",)
