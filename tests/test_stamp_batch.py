"""The stamp step decides once per batch what is the same for every fact of it (memguard/stamp.py):
the policy's write decision per namespace, the channel's trust per (source kind, requested trust,
policy cap), the writer chain. These tests pin that a batch still gets, fact by fact, what
separate writes would get: a cached decision never answers for another namespace or channel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from memguard import AccessDenied, FactInput, MemoryGuard, Source, SourceKind, TrustLevel, Turn
from memguard.identity import Principal
from memguard.ledger import Ledger
from memguard.scope import DefaultScopeResolver, WriteDecision
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService


class CountingScope(DefaultScopeResolver):
    """The default scope, counting write decisions and capping namespace ``capped`` at derived."""

    calls: ClassVar[list[str]] = []

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision:
        self.calls.append(namespace)
        decision = super().write_decision(principal, namespace)
        if namespace == "capped" and decision.allowed:
            return WriteDecision(True, decision.policy_digest, decision.rule_ids,
                                 max_trust=TrustLevel.DERIVED)  # fmt: skip
        return decision


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[MemoryGuard]:
    tokens = LocalTokenService(tmp_path / "keys")
    CountingScope.calls = []
    g = MemoryGuard(
        store=InMemoryStore(dimension=8),
        ledger=Ledger.sqlite(tmp_path / "ledger.db"),
        verifier=tokens.verifier(),
        scope=CountingScope(namespaces=("notes", "capped", "other")),
    )
    g.test_tokens = tokens  # type: ignore[attr-defined]
    yield g
    g.close()


def _fact(namespace: str, kind: SourceKind, i: int, trust: TrustLevel | None = None) -> FactInput:
    return FactInput(text=f"fact {namespace} {kind.value} {i}", namespace=namespace,
                     source=Source(kind=kind), turn=Turn(session_id="s", turn_index=0),
                     trust=trust)  # fmt: skip


def _me(guard: MemoryGuard) -> Any:
    return guard.authenticate(guard.test_tokens.issue("alice"))  # type: ignore[attr-defined]


def test_a_mixed_batch_gets_what_separate_writes_get(guard: MemoryGuard) -> None:
    me = _me(guard)
    plan = [("notes", SourceKind.USER_MESSAGE, None), ("capped", SourceKind.USER_MESSAGE, None),
            ("notes", SourceKind.WEB, None), ("notes", SourceKind.USER_MESSAGE, TrustLevel.UNTRUSTED),
            ("capped", SourceKind.TOOL_OUTPUT, None), ("notes", SourceKind.USER_MESSAGE, None)]  # fmt: skip
    batch = [_fact(ns, kind, i, trust) for i, (ns, kind, trust) in enumerate(plan)]
    together = guard.write_many(me, batch)
    alone = [guard.write_many(me, [_fact(ns, kind, 100 + i, trust)])[0]
             for i, (ns, kind, trust) in enumerate(plan)]  # fmt: skip
    assert [(p.trust, p.trust_reason) for p in together] == [(p.trust, p.trust_reason) for p in alone]
    assert together[1].trust == TrustLevel.DERIVED  # the namespace's cap, not the first fact's
    assert together[2].trust < TrustLevel.USER  # web: its own channel default
    assert {p.writer for p in together} == {alone[0].writer}


def test_the_policy_is_asked_once_per_namespace_of_a_batch(guard: MemoryGuard) -> None:
    me = _me(guard)
    CountingScope.calls.clear()
    guard.write_many(me, [_fact(["notes", "capped"][i % 2], SourceKind.USER_MESSAGE, i) for i in range(10)])
    assert sorted(CountingScope.calls) == ["capped", "notes"]


def test_a_refused_namespace_refuses_the_batch_wherever_it_is(guard: MemoryGuard) -> None:
    """A cached allow for one namespace never answers for another: a forbidden namespace after
    nine allowed facts still refuses the whole batch, and nothing is written."""
    me = _me(guard)
    batch = [_fact("notes", SourceKind.USER_MESSAGE, i) for i in range(9)]
    batch.append(_fact("forbidden", SourceKind.USER_MESSAGE, 9))
    with pytest.raises(AccessDenied):
        guard.write_many(me, batch)
    assert guard.list_facts(me)[0] == []


def test_a_requested_trust_above_the_cap_is_refused_after_a_cached_assignment(
    guard: MemoryGuard,
) -> None:
    """The trust cache keeps assignments only: a refusal (asking for more than the namespace's
    cap) is raised for the fact that asks, even after facts of the same channel were assigned."""
    from memguard.errors import TrustEscalation

    me = _me(guard)
    batch = [_fact("capped", SourceKind.USER_MESSAGE, i) for i in range(3)]
    batch.append(_fact("capped", SourceKind.USER_MESSAGE, 3, trust=TrustLevel.USER))
    with pytest.raises(TrustEscalation):
        guard.write_many(me, batch)


@pytest.mark.parametrize(
    "bad",
    ["a\x00b", "a\nb", "a\x1bb", "a\u202eb", "a\u200bb", "a\u2028b", "\ufeffa", "\uff41b", "a\ud800"],
)
def test_a_caller_chosen_fact_id_with_hidden_or_control_characters_refuses_the_batch(
    guard: MemoryGuard, bad: str
) -> None:
    """A fact id is stored, logged, put in audit answers and shown in the console: the identifier
    rules (no control, bidi, zero-width, separator, surrogate or NFKC-changed code points) hold
    for it, for the whole batch, and nothing is written."""
    from memguard.errors import InvalidRequest

    me = _me(guard)
    batch = [_fact("notes", SourceKind.USER_MESSAGE, i) for i in range(3)]
    with pytest.raises(InvalidRequest):
        guard.write_many(me, batch, fact_ids=["ok-1", "ok-2", bad])
    assert guard.list_facts(me)[0] == []


def test_a_printable_caller_chosen_fact_id_is_kept_as_given(guard: MemoryGuard) -> None:
    me = _me(guard)
    (fact,) = guard.write_many(me, [_fact("notes", SourceKind.USER_MESSAGE, 0)],
                               fact_ids=['note"1\\x'])  # fmt: skip
    assert fact.fact_id == 'note"1\\x'
