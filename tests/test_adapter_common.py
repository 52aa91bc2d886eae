"""What every adapter shares (adapters/_toolkit.py, docs/adapters/common.md): the caller checks
and the one provenance summary.

Every adapter checks its caller the same way:

- **When built** (:func:`memguard.adapters.require_identity`): no identity, something that is not a
  verified ``Identity`` (a token string), an identity another guard verified, an expired one: the
  kernel's ``IdentityError`` with the same code in every adapter, and a deny event (action ``bind``).
- **On each call** (:func:`adapters._toolkit.check_binding`): a call made inside an ``acting_as``
  block for another caller is refused (``identity.conflict``) with a deny event naming both; the
  same caller in the block is served (positive control).

Results carry one :class:`~memguard.adapters.ProvenanceSummary` under ``"memguard"`` (mem0 also
under its deprecated ``"provenance"`` key; the SQL rows as ``MemoryRow.memguard``).

One guard (SQLite ledger, SQL store), one raw Qdrant, one offline mem0 and one LangGraph store
serve every case; the adapters themselves are cheap to build. Real tokens, real verification.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock
from langgraph.store.memory import InMemoryStore
from qdrant_client import AsyncQdrantClient, QdrantClient, models

from memguard import Identity, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.adapters import (
    SUMMARY_KEY,
    PerCallTurn,
    ProvenanceSummary,
    per_call_turn,
    provenance_summary,
    require_identity,
)
from memguard.adapters.langgraph import GuardedStore
from memguard.adapters.mem0 import (
    GuardedAsyncMemory,
    GuardedMemory,
    offline_async_memory,
    offline_memory,
)
from memguard.adapters.openai_agents import GuardedSession
from memguard.adapters.qdrant import AsyncGuardedQdrantClient, GuardedQdrantClient
from memguard.adapters.sql import GuardedSqlMemory, SqlStore
from memguard.context import CallContext, acting_as
from memguard.errors import IdentityError
from memguard.events import AuditEvent

CTX = CallContext(
    source=Source(kind=SourceKind.USER_MESSAGE, uri="chat://s-id"),
    turn=Turn(session_id="s-id", turn_index=0),
)


@dataclass
class World:
    guard: MemoryGuard
    qdrant: QdrantClient
    aqdrant: AsyncQdrantClient
    mem0: Any
    amem0: Any
    graph_store: InMemoryStore
    alice: Identity
    bob: Identity
    expired: Identity
    foreign: Identity

    def denies(self) -> list[AuditEvent]:
        return self.guard.ledger.events(decision="deny", limit=100_000)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("adapter-identity")
    clock = Clock()
    tokens = LocalTokenService(root / "keys", clock=clock)
    ledger = Ledger.sqlite(root / "ledger.db")
    guard = MemoryGuard(
        store=SqlStore(engine=ledger.engine, dimension=16),
        ledger=ledger,
        verifier=tokens.verifier(clock=clock),
        clock=clock,
    )
    # another guard's token service: its identities are verified, but not by this guard
    other = LocalTokenService(root / "other-keys", clock=clock, issuer="https://other.example")
    foreign = other.verifier(clock=clock).verify(other.issue("alice"))
    expired = guard.authenticate(tokens.issue("erin", ttl=5))
    world = World(
        guard=guard,
        qdrant=QdrantClient(":memory:"),
        aqdrant=AsyncQdrantClient(":memory:"),
        mem0=offline_memory(dimension=16, collection="identity"),
        amem0=offline_async_memory(dimension=16, collection="identity-async"),
        graph_store=InMemoryStore(),
        alice=guard.authenticate(tokens.issue("alice")),
        bob=guard.authenticate(tokens.issue("bob")),
        expired=expired,
        foreign=foreign,
    )
    vectors = models.VectorParams(size=4, distance=models.Distance.COSINE)
    world.qdrant.create_collection("notes", vectors_config=vectors)
    asyncio.run(world.aqdrant.create_collection("notes", vectors_config=vectors))
    clock.advance(10)  # erin's token has expired; the others have ~10 minutes left
    try:
        yield world
    finally:
        guard.close()


# -- each adapter: how it is built, and one read call through it -------------------------------------


def _qdrant(w: World, identity: Any) -> Any:
    return GuardedQdrantClient(w.qdrant, kernel=w.guard.kernel, identity=identity, context=CTX)


def _aqdrant(w: World, identity: Any) -> Any:
    return AsyncGuardedQdrantClient(w.aqdrant, kernel=w.guard.kernel, identity=identity, context=CTX)


def _mem0(w: World, identity: Any) -> Any:
    return GuardedMemory(w.mem0, kernel=w.guard.kernel, identity=identity, context=CTX)


def _amem0(w: World, identity: Any) -> Any:
    return GuardedAsyncMemory(w.amem0, kernel=w.guard.kernel, identity=identity, context=CTX)


def _langgraph(w: World, identity: Any) -> Any:
    store = GuardedStore(w.graph_store, kernel=w.guard.kernel, identity=identity, context=CTX)
    # pinned to its caller (with_context): a store built without one acts for each call's caller
    return store.with_context(purpose="answer") if identity is not None else store


def _sql(w: World, identity: Any) -> Any:
    return GuardedSqlMemory(w.guard, identity=identity, context=CTX)


def _session(w: World, identity: Any) -> Any:
    return GuardedSession("chat-id", guard=w.guard, identity=identity)


BUILD: dict[str, Callable[[World, Any], Any]] = {
    "qdrant": _qdrant,
    "qdrant-async": _aqdrant,
    "mem0": _mem0,
    "mem0-async": _amem0,
    "langgraph": _langgraph,
    "langgraph-async": _langgraph,
    "sql": _sql,
    "openai_agents": _session,
}

READ: dict[str, Callable[[Any], object]] = {
    "qdrant": lambda a: a.scroll("notes", limit=1),
    "qdrant-async": lambda a: asyncio.run(a.scroll("notes", limit=1)),
    "mem0": lambda a: a.get_all(),
    "mem0-async": lambda a: asyncio.run(a.get_all()),
    "langgraph": lambda a: a.search(("notes",)),
    "langgraph-async": lambda a: asyncio.run(a.asearch(("notes",))),
    "sql": lambda a: a.list(),
    "openai_agents": lambda a: asyncio.run(a.get_items()),
}
READ_ACTION = {"qdrant": "list", "qdrant-async": "list", "mem0": "list", "mem0-async": "list",
               "langgraph": "search", "langgraph-async": "search", "sql": "list",
               "openai_agents": "list"}  # fmt: skip

BAD = {
    "none": (lambda w: None, "identity.missing"),
    "token-string": (lambda w: "eyJhbGciOiJFZERTQSJ9.e30.sig", "identity.missing"),
    "other-guards": (lambda w: w.foreign, "identity.unverified"),
    "expired": (lambda w: w.expired, "identity.expired"),
}


@pytest.mark.parametrize("adapter", sorted(BUILD))
@pytest.mark.parametrize("bad", sorted(BAD))
def test_a_bad_identity_is_the_same_refusal_in_every_adapter(
    world: World, adapter: str, bad: str
) -> None:
    identity, code = BAD[bad][0](world), BAD[bad][1]
    before = len(world.denies())
    if adapter.startswith("langgraph") and identity is None:
        # no default caller is allowed (one graph, many users): the call without one is refused
        store = BUILD[adapter](world, None)
        with pytest.raises(IdentityError) as refused:
            READ[adapter](store)
        action = "search"
    else:
        with pytest.raises(IdentityError) as refused:
            BUILD[adapter](world, identity)
        action = "bind"
    assert refused.value.code == code
    denies = world.denies()
    assert len(denies) == before + 1, "the refusal was not audited"
    assert (denies[-1].action, denies[-1].reason) == (action, code)


@pytest.mark.parametrize("adapter", sorted(BUILD))
def test_a_call_inside_acting_as_for_another_caller_is_refused_and_audited(
    world: World, adapter: str
) -> None:
    built = BUILD[adapter](world, world.alice)
    READ[adapter](built)  # alice's own call: served
    with acting_as(world.alice, CTX):
        READ[adapter](built)  # the same caller in the block: served
    before = len(world.denies())
    with acting_as(world.bob, CTX), pytest.raises(IdentityError) as refused:
        READ[adapter](built)
    assert refused.value.code == "identity.conflict"
    denies = world.denies()
    assert len(denies) == before + 1, "the refusal was not audited"
    event = denies[-1]
    assert (event.action, event.reason) == (READ_ACTION[adapter], "identity.conflict")
    assert event.principal is not None and event.principal["subject"] == "alice"
    assert event.detail["conflicting"]["subject"] == "bob"


def test_an_unpinned_langgraph_store_acts_for_the_blocks_caller_but_not_against_the_run(
    world: World,
) -> None:
    """One compiled graph serves many users: a store built without pinning acts for the caller an
    ``acting_as`` block names (by design); a block and a run that name two callers are refused."""
    store = GuardedStore(world.graph_store, kernel=world.guard.kernel, identity=world.alice,
                         context=CTX)  # fmt: skip
    with acting_as(world.bob, CTX):
        store.put(("notes",), "bobs", {"text": "bob's note"})
    with acting_as(world.alice, CTX):
        assert store.get(("notes",), "bobs") is None  # bob's, not alice's

    from langchain_core.runnables import RunnableConfig, RunnableLambda

    from memguard.adapters.langgraph import BINDING_KEY
    from memguard.context import Binding

    def node(_: object, config: RunnableConfig) -> object:
        return store.search(("notes",))

    config: RunnableConfig = {"configurable": {BINDING_KEY: Binding(world.alice, CTX)}}
    assert RunnableLambda(node).invoke(None, config=config) == []  # alice's run: served
    before = len(world.denies())
    with acting_as(world.bob, CTX), pytest.raises(IdentityError) as refused:
        RunnableLambda(node).invoke(None, config=config)
    assert refused.value.code == "identity.conflict"
    assert world.denies()[-1].reason == "identity.conflict" and len(world.denies()) == before + 1


def test_require_identity_returns_a_good_identity_without_a_ledger_write(world: World) -> None:
    events = len(world.guard.ledger.events(limit=100_000))
    assert require_identity(world.guard.kernel, world.alice) is world.alice
    assert len(world.guard.ledger.events(limit=100_000)) == events


def test_a_revoked_identity_is_refused_when_an_adapter_is_built(
    tmp_path: Path,
) -> None:
    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    guard = MemoryGuard(store=SqlStore(engine=ledger.engine, dimension=16), ledger=ledger,
                        verifier=tokens.verifier(clock=clock), clock=clock)  # fmt: skip
    try:
        mallory = guard.authenticate(tokens.issue("mallory"))
        from memguard.revocation import RevocationSelector

        guard.revoke(None, RevocationSelector.subject(tokens.issuer, "mallory"),
                     operator="ops", reason="test")  # fmt: skip
        with pytest.raises(IdentityError) as refused:
            GuardedSqlMemory(guard, identity=mallory, context=CTX)
        assert refused.value.code == "identity.revoked"
        assert guard.ledger.events(decision="deny")[-1].action == "bind"
    finally:
        guard.close()


SUMMARY_FIELDS = {"fact_id", "version", "trust", "source", "writer"}


def _latest(world: World, fact_id: str) -> ProvenanceSummary:
    return provenance_summary(world.guard.ledger.latest([fact_id])[fact_id].provenance)


def test_qdrant_results_carry_the_shared_summary(world: World) -> None:
    client = _qdrant(world, world.alice)
    client.upsert("notes", [models.PointStruct(id=7, vector=[1, 0, 0, 0], payload={"t": "x"})])
    (point,), _ = client.scroll("notes", limit=10)
    summary = point.payload[SUMMARY_KEY]
    assert set(summary) == SUMMARY_FIELDS and summary["writer"] == "alice"
    assert summary == _latest(world, summary["fact_id"])
    assert point.payload["t"] == "x"


def test_mem0_results_carry_the_shared_summary_and_the_deprecated_key(world: World) -> None:
    mem = _mem0(world, world.alice)
    (added,) = mem.add("alice likes green tea", infer=False)["results"]
    assert added[SUMMARY_KEY] == added["provenance"] == _latest(world, added[SUMMARY_KEY]["fact_id"])
    (hit,) = mem.search("green tea", top_k=5)["results"]
    assert set(hit[SUMMARY_KEY]) == SUMMARY_FIELDS and hit["provenance"] == hit[SUMMARY_KEY]
    assert hit[SUMMARY_KEY]["fact_id"] == added[SUMMARY_KEY]["fact_id"]


def test_one_summary_shape_and_the_exports(world: World) -> None:
    mem = _sql(world, world.alice)
    row = mem.add("the summary is shared", namespace="notes", ttl=3600)
    summary: ProvenanceSummary = row.memguard
    assert summary == provenance_summary(row.provenance)
    assert set(summary) == {"fact_id", "version", "trust", "source", "writer", "expires_at"}
    assert (summary["fact_id"], summary["trust"], summary["writer"]) == (row.id, "user", "alice")
    assert summary["source"] == "user_message:chat://s-id"
    assert SUMMARY_KEY == "memguard"
    assert isinstance(per_call_turn("s"), PerCallTurn)


def test_an_error_while_checking_the_identity_is_a_refusal_and_audited(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fail closed: a verifier that raises while an adapter is built refuses the build (the
    kernel's ``internal`` refusal) and records a deny event; nothing is built."""
    from memguard.errors import MemguardError

    def broken(identity: object) -> bool:
        raise RuntimeError("verifier state lost")

    monkeypatch.setattr(world.guard.kernel.verifier, "minted", broken)
    before = len(world.denies())
    with pytest.raises(MemguardError) as refused:
        _sql(world, world.alice)
    assert refused.value.code == "internal"
    assert len(world.denies()) == before + 1
    assert world.denies()[-1].action == "bind"
