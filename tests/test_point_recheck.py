"""Every hit is re-checked by the resolver's own point evaluator, not only by the pushed-down plan."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from memguard import FactNotFound, MemoryGuard, Principal, Source, SourceKind, Turn
from memguard.scope import (
    DefaultScopeResolver,
    FieldValue,
    PointDecider,
    ReadRequest,
    ScopePlan,
    WriteDecision,
)


class DisagreeingResolver:
    """The default plan, plus a point evaluator that refuses web facts: the two disagree on purpose."""

    def __init__(self) -> None:
        self.inner = DefaultScopeResolver()
        self.asked: list[tuple[str, str | None]] = []

    @property
    def digest(self) -> str:
        return self.inner.digest

    def read_plan(self, principal: Principal, request: ReadRequest) -> ScopePlan:
        return self.inner.read_plan(principal, request)

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision:
        return self.inner.write_decision(principal, namespace)

    def point_allows(
        self, principal: Principal, request: ReadRequest, fields: Mapping[str, FieldValue]
    ) -> bool:
        self.asked.append((request.action, request.purpose))
        return fields.get("source_kind") != "web"


@pytest.mark.parametrize("store", ["memory", "qdrant-memory"])
def test_point_evaluator_veto_withholds_and_alarms(
    make_guard: Callable[..., MemoryGuard],
    tokens,
    store: str,  # type: ignore[no-untyped-def]
) -> None:
    resolver = DisagreeingResolver()
    assert isinstance(resolver, PointDecider)
    guard = make_guard(store, scope=resolver)
    me = guard.authenticate(tokens.issue("alice"))
    turn = Turn(session_id="s", turn_index=0)
    web = guard.write(
        me, "lisbon page", namespace="n", source=Source(kind=SourceKind.WEB), turn=turn
    )
    chat = guard.write(
        me, "lisbon chat", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE), turn=turn
    )
    hits = guard.search(me, "lisbon", k=5, purpose="planning")
    assert [h.fact_id for h in hits] == [chat.fact_id]
    with pytest.raises(FactNotFound):
        guard.get(me, web.fact_id)
    assert guard.get(me, chat.fact_id).fact_id == chat.fact_id
    assert ("search", "planning") in resolver.asked and ("get", "answer") in resolver.asked
    alarms = [
        e for e in guard.ledger.events(decision="alarm") if e.reason == "scope.point_mismatch"
    ]
    assert {e.fact_ids for e in alarms} == {(web.fact_id,)}
    assert {e.action for e in alarms} == {"search", "get"}


def test_point_evaluator_error_is_a_deny(make_guard: Callable[..., MemoryGuard], tokens) -> None:  # type: ignore[no-untyped-def]
    class Exploding(DisagreeingResolver):
        def point_allows(self, principal, request, fields):  # type: ignore[no-untyped-def]
            raise RuntimeError("boom")

    guard = make_guard("memory", scope=Exploding())
    me = guard.authenticate(tokens.issue("alice"))
    fact = guard.write(
        me,
        "x",
        namespace="n",
        source=Source(kind=SourceKind.USER_MESSAGE),
        turn=Turn(session_id="s", turn_index=0),
    )
    assert guard.search(me, "x", k=3) == []
    with pytest.raises(FactNotFound):
        guard.get(me, fact.fact_id)


def test_policy_resolver_is_a_point_decider() -> None:
    from memguard.policy.resolver import PolicyResolver

    assert issubclass(PolicyResolver, PointDecider)
