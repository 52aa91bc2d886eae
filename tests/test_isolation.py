"""Owner isolation: a chain acting for alice never reads, changes or deletes bob's facts.

Run through the ``api`` fixture, so the same assertions hold for the sync and the async shell.
Every positive control (bob sees his own facts, the chain sees alice's) is asserted next to the
refusal, so an empty result cannot pass for isolation.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, PLANNER, Clock

from memguard import (
    Actor,
    FactNotFound,
    FactState,
    IdentityError,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    Principal,
    PrincipalId,
    QdrantStore,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
)
from memguard.guard import RecalledFact
from memguard.provenance import Provenance
from memguard.scope import DefaultScopeResolver, ReadRequest, index_fields

BOB_FACTS = [
    ("bob's passport number is X1234567", "travel"),
    ("bob is allergic to penicillin", "health"),
    ("bob's bank PIN is 4321", "finance"),
]
ALICE_FACT = ("alice prefers aisle seats on long flights", "travel")


def ledger_of(api: Any) -> Ledger:
    guard = api if isinstance(api, MemoryGuard) else api.guard
    return guard.ledger


def user_source() -> Source:
    return Source(kind=SourceKind.USER_MESSAGE)


def turn(i: int = 0) -> Turn:
    return Turn(session_id="s-iso", turn_index=i, trace_id=f"trace-{i}")


def write(api: Any, ident: Any, text: str, namespace: str) -> Provenance:
    prov = api.write(ident, text, namespace=namespace, source=user_source(), turn=turn())
    assert isinstance(prov, Provenance)
    return prov


class World:
    """Bob's facts, alice's fact, and three identities on one guard."""

    def __init__(self, api: Any, tokens: LocalTokenService) -> None:
        self.api = api
        self.bob = api.authenticate(tokens.issue("bob"))
        self.alice = api.authenticate(tokens.issue("alice"))
        self.chain = api.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
        self.bob_facts = [write(api, self.bob, t, ns) for t, ns in BOB_FACTS]
        self.alice_fact = write(api, self.alice, *ALICE_FACT)
        self.bob_ids = {p.fact_id for p in self.bob_facts}

    def bob_view(self) -> dict[str, tuple[str, int, str]]:
        out = {}
        for prov in self.bob_facts:
            fact = self.api.get(self.bob, prov.fact_id)
            out[prov.fact_id] = (fact.text, fact.provenance.version, fact.provenance.record_digest)
        return out


@pytest.fixture
def world(api: Any, tokens: LocalTokenService) -> World:
    return World(api, tokens)


def test_chain_principal_is_alice_through_two_agents(world: World) -> None:
    p = world.chain.principal
    assert p.subject.subject == "alice"
    assert [a.subject for a in p.actors] == [PLANNER, BROWSER]
    assert p.depth == 2


def test_bob_sees_his_own_facts(world: World) -> None:
    # the positive control every refusal below is measured against
    hits = world.api.search(world.bob, "bob", k=50)
    assert {h.fact_id for h in hits} == world.bob_ids
    assert all(h.provenance.owner.subject == "bob" for h in hits)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"namespaces": None, "min_trust": None},
        {"namespaces": None, "min_trust": None, "k": 1000},
        {"namespaces": ["travel", "health", "finance"], "k": 1000},
        {"min_trust": TrustLevel.QUARANTINED, "k": 1000},
        {"namespaces": ["health"]},
    ],
    ids=[
        "default",
        "no-filters",
        "no-filters-k1000",
        "all-namespaces",
        "min-quarantined",
        "health",
    ],
)
def test_chain_search_never_returns_bobs_facts(world: World, kwargs: dict[str, Any]) -> None:
    for query in [t for t, _ in BOB_FACTS] + ["bob", "passport PIN penicillin"]:
        hits = world.api.search(world.chain, query, **kwargs)
        assert world.bob_ids.isdisjoint(h.fact_id for h in hits)
        assert all(h.provenance.owner.subject == "alice" for h in hits)
        for hit in hits:
            assert "bob" not in hit.text
    # and alice's own fact is found by her chain where its namespace is in scope
    hits = world.api.search(world.chain, ALICE_FACT[0], **kwargs)
    wanted = kwargs.get("namespaces")
    if wanted is None or "travel" in wanted:
        assert [h.fact_id for h in hits] == [world.alice_fact.fact_id]
    else:
        assert hits == []


def test_chain_search_with_bobs_exact_vector(world: World) -> None:
    guard = world.api if isinstance(world.api, MemoryGuard) else world.api.guard
    for text, _ in BOB_FACTS:
        vec = guard.embedder.embed([text])[0]
        hits = world.api.search(world.chain, vector=vec, k=1000, namespaces=None, min_trust=None)
        assert [h.fact_id for h in hits] == [world.alice_fact.fact_id]
        own = world.api.search(world.bob, vector=vec, k=1)
        assert own[0].text == text  # the vector really is bob's


def test_search_isolation_is_pushed_down_not_alarmed(world: World) -> None:
    world.api.search(world.chain, "bob", k=1000, namespaces=None, min_trust=None)
    alarms = ledger_of(world.api).events(decision="alarm")
    assert alarms == []  # the store never handed bob's facts up to be caught by the re-check


def _denies_for(ledger: Ledger, fact_id: str) -> list[Any]:
    return [e for e in ledger.events(decision="deny") if fact_id in e.fact_ids]


def _assert_not_found_and_logged(world: World, action: str, call: Callable[[str], object]) -> None:
    ledger = ledger_of(world.api)
    before = world.bob_view()
    for prov in world.bob_facts:
        with pytest.raises(FactNotFound) as info:
            call(prov.fact_id)
        assert info.value.code == "not_found"
        events = [e for e in _denies_for(ledger, prov.fact_id) if e.action == action]
        assert len(events) == 1
        event = events[0]
        assert event.reason == "not_found"
        assert event.principal is not None
        assert event.principal["subject"] == "alice"
        assert event.principal["actors"] == [PLANNER, BROWSER]
    assert world.bob_view() == before
    for prov in world.bob_facts:
        versions = ledger.versions(prov.fact_id)
        assert [(r.version, r.state) for r in versions] == [(1, FactState.COMMITTED)]


def test_chain_cannot_get_bobs_fact(world: World) -> None:
    _assert_not_found_and_logged(world, "get", lambda fid: world.api.get(world.chain, fid))
    assert world.api.get(world.chain, world.alice_fact.fact_id).text == ALICE_FACT[0]


def test_chain_cannot_update_bobs_fact(world: World) -> None:
    def update(fid: str) -> object:
        return world.api.update(
            world.chain,
            fid,
            "bob's passport number is EVIL000",
            source=user_source(),
            turn=turn(1),
        )

    _assert_not_found_and_logged(world, "update", update)
    hits = world.api.search(world.bob, "passport", k=50)
    assert all("EVIL" not in h.text for h in hits)


def test_chain_cannot_delete_bobs_fact(world: World) -> None:
    _assert_not_found_and_logged(world, "delete", lambda fid: world.api.delete(world.chain, fid))
    assert {h.fact_id for h in world.api.search(world.bob, "bob", k=50)} == world.bob_ids


def test_direct_alice_cannot_reach_bob_either(world: World) -> None:
    for prov in world.bob_facts:
        with pytest.raises(FactNotFound):
            world.api.get(world.alice, prov.fact_id)
        with pytest.raises(FactNotFound):
            world.api.delete(world.alice, prov.fact_id)
    assert len(world.bob_view()) == 3


def test_guessed_ids_are_not_found(world: World) -> None:
    ledger = ledger_of(world.api)
    guesses = [str(uuid.uuid4()) for _ in range(10)] + ["", "*", "' OR 1=1 --", "../bob"]
    for guess in guesses:
        for call in (
            lambda fid: world.api.get(world.chain, fid),
            lambda fid: world.api.delete(world.chain, fid),
            lambda fid: world.api.update(world.chain, fid, "x", source=user_source(), turn=turn(2)),
        ):
            with pytest.raises(FactNotFound) as info:
                call(guess)
            assert info.value.code == "not_found"
    denies = ledger.events(decision="deny")
    assert {e.reason for e in denies} == {"not_found"}
    assert len(denies) == 3 * len(guesses)


def test_unknown_and_foreign_ids_are_indistinguishable(world: World) -> None:
    foreign = world.bob_facts[0].fact_id
    unknown = str(uuid.uuid4())
    errors = []
    for fid in (foreign, unknown):
        with pytest.raises(FactNotFound) as info:
            world.api.get(world.chain, fid)
        errors.append((type(info.value), info.value.code, str(info.value)))
    assert errors[0] == errors[1]


def test_bob_cannot_reach_alices_fact_either(world: World) -> None:
    with pytest.raises(FactNotFound):
        world.api.get(world.bob, world.alice_fact.fact_id)
    hits = world.api.search(world.bob, ALICE_FACT[0], k=1000, namespaces=None, min_trust=None)
    assert world.alice_fact.fact_id not in {h.fact_id for h in hits}


def test_derived_from_bobs_fact_is_not_found(world: World) -> None:
    ledger = ledger_of(world.api)
    rows_before = len(ledger.in_state(FactState.COMMITTED)) + len(
        ledger.in_state(FactState.PENDING)
    )
    with pytest.raises(FactNotFound):
        world.api.write(
            world.chain,
            "summary of bob's secrets",
            namespace="travel",
            source=Source(kind=SourceKind.AGENT_INFERENCE),
            turn=turn(3),
            derived_from=[world.bob_facts[0].fact_id],
        )
    rows_after = len(ledger.in_state(FactState.COMMITTED)) + len(ledger.in_state(FactState.PENDING))
    assert rows_after == rows_before


@pytest.mark.parametrize(
    "lookalike",
    [
        "alice\u00a0",
        "\uff41lice",
        "al\u200bice",
        "alice ",
        " alice",
        "al  ice",
        "alice\u1680",
        "alice\u3164",
    ],
    ids=repr,
)
def test_lookalike_subject_that_nfkc_changes_or_spacing_hides_is_refused(
    api: Any, tokens: LocalTokenService, lookalike: str
) -> None:
    with pytest.raises(IdentityError) as info:
        api.authenticate(tokens.issue(lookalike))
    assert info.value.code == "identity.bad_identifier"


@pytest.mark.parametrize("lookalike", ["Alice", "\u0430lice"], ids=repr)
def test_lookalike_subject_is_another_owner(
    api: Any, tokens: LocalTokenService, lookalike: str
) -> None:
    alice = api.authenticate(tokens.issue("alice"))
    other = api.authenticate(tokens.issue(lookalike))
    assert other.principal.subject.subject == lookalike  # accepted, and kept byte-exact
    prov = write(api, alice, *ALICE_FACT)
    with pytest.raises(FactNotFound):
        api.get(other, prov.fact_id)
    assert api.search(other, ALICE_FACT[0], k=100) == []
    assert [h.fact_id for h in api.search(alice, ALICE_FACT[0], k=100)] == [prov.fact_id]


# -- the issuer is part of the owner -------------------------------------------------------------


@pytest.fixture
def two_issuers(
    tmp_path: Path, tokens: LocalTokenService, clock: Clock
) -> Iterator[tuple[MemoryGuard, MemoryGuard, LocalTokenService]]:
    """Two guards over the same store and ledger, each trusting one issuer."""
    other = LocalTokenService(tmp_path / "other-keys", issuer="https://other.example", clock=clock)
    store = QdrantStore(location=":memory:")
    ledger = Ledger.sqlite(tmp_path / "shared.db")
    local_guard = MemoryGuard(
        store=store, ledger=ledger, verifier=tokens.verifier(clock=clock), clock=clock
    )
    other_guard = MemoryGuard(
        store=store, ledger=ledger, verifier=other.verifier(clock=clock), clock=clock
    )
    yield local_guard, other_guard, other
    store.close()
    ledger.close()


def test_same_sub_from_another_issuer_is_another_owner(
    two_issuers: tuple[MemoryGuard, MemoryGuard, LocalTokenService], tokens: LocalTokenService
) -> None:
    local_guard, other_guard, other = two_issuers
    local_alice = local_guard.authenticate(tokens.issue("alice"))
    other_alice = other_guard.authenticate(other.issue("alice"))
    assert local_alice.principal.subject.subject == other_alice.principal.subject.subject
    assert local_alice.principal.subject != other_alice.principal.subject

    text, ns = ALICE_FACT
    local_prov = local_guard.write(
        local_alice, text, namespace=ns, source=user_source(), turn=turn()
    )
    other_prov = other_guard.write(
        other_alice,
        "other alice prefers window seats",
        namespace=ns,
        source=user_source(),
        turn=turn(),
    )
    assert local_prov.owner.issuer == "https://memguard.local"
    assert other_prov.owner.issuer == "https://other.example"

    # each sees only its own, though both facts sit in the same store and ledger
    everything = dict(k=1000, namespaces=None, min_trust=None)
    local_hits: list[RecalledFact] = local_guard.search(local_alice, "alice seats", **everything)
    other_hits: list[RecalledFact] = other_guard.search(other_alice, "alice seats", **everything)
    assert [h.fact_id for h in local_hits] == [local_prov.fact_id]
    assert [h.fact_id for h in other_hits] == [other_prov.fact_id]
    with pytest.raises(FactNotFound):
        other_guard.get(other_alice, local_prov.fact_id)
    with pytest.raises(FactNotFound):
        other_guard.delete(other_alice, local_prov.fact_id)
    with pytest.raises(FactNotFound):
        local_guard.get(local_alice, other_prov.fact_id)
    assert local_guard.get(local_alice, local_prov.fact_id).text == text

    # a token of the other issuer is not accepted by this guard at all
    with pytest.raises(Exception) as info:
        local_guard.authenticate(other.issue("alice"))
    assert getattr(info.value, "code", None) in {"identity.unknown_key", "identity.bad_issuer"}


def test_scope_plan_compares_issuer_and_subject(
    two_issuers: tuple[MemoryGuard, MemoryGuard, LocalTokenService], tokens: LocalTokenService
) -> None:
    local_guard, _, _ = two_issuers
    alice = local_guard.authenticate(tokens.issue("alice"))
    prov = local_guard.write(
        alice, ALICE_FACT[0], namespace="travel", source=user_source(), turn=turn()
    )
    fields = index_fields(prov)
    resolver = DefaultScopeResolver()

    def plan_for(issuer: str, subject: str) -> bool:
        principal = Principal(subject=PrincipalId(issuer=issuer, subject=subject), token_jti="j1")
        return resolver.read_plan(principal, ReadRequest("search")).allows(fields)

    assert plan_for("https://memguard.local", "alice")
    assert not plan_for("https://other.example", "alice")
    assert not plan_for("https://memguard.local", "bob")
    assert not plan_for("https://memguard.local/", "alice")
    assert not plan_for("https://memguard.local", "alice ")
    # the issuer of the subject decides, not that of an actor in the chain
    chain = Principal(
        subject=PrincipalId(issuer="https://other.example", subject="alice"),
        actors=(Actor(issuer="https://memguard.local", subject="alice"),),
        token_jti="j2",
    )
    assert not resolver.read_plan(chain, ReadRequest("get")).allows(fields)
