"""One compiled LangGraph graph, one GuardedStore, many users: the identity and the turn come with
each call (the run's runtime context or ``configurable``, or :func:`memguard.context.acting_as`), not
with the store. Real parts: LangGraph's ``StateGraph`` and ``InMemoryStore``, a SQLite ledger, signed
tokens. Each isolation check sits next to its positive control.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph", reason="the `langgraph` extra")

from helpers import Clock
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from memguard import (
    IdentityError,
    InvalidRequest,
    Ledger,
    LocalTokenService,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
)
from memguard.adapters.langgraph import BINDING_KEY, GuardedStore
from memguard.context import Binding, CallContext, acting_as, current_binding
from memguard.kernel import Kernel

CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")
WEB = Source(kind=SourceKind.WEB, uri="https://evil.example/")


def ctx(turn: int = 0, session: str = "s-1", source: Source = CHAT) -> CallContext:
    return CallContext(source=source, turn=Turn(session_id=session, turn_index=turn))


class State(TypedDict, total=False):
    note: str
    seen: list[str]


def remember_and_recall(state: State, runtime: Runtime[Any]) -> State:
    store = runtime.store
    assert store is not None
    store.put(("notes",), state["note"].split()[0], {"text": state["note"]})
    return {"seen": sorted(i.value["text"] for i in store.search(("notes",), limit=50))}


async def aremember_and_recall(state: State, runtime: Runtime[Any]) -> State:
    store = runtime.store
    assert store is not None
    await store.aput(("notes",), state["note"].split()[0], {"text": state["note"]})
    await asyncio.sleep(0)  # let the other user's run interleave
    found = await store.asearch(("notes",), limit=50)
    return {"seen": sorted(i.value["text"] for i in found)}


def graph(store: GuardedStore, node: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("memory", node)
    builder.add_edge(START, "memory")
    builder.add_edge("memory", END)
    return builder.compile(store=store)


@pytest.fixture
def kernel(tmp_path: Path, tokens: LocalTokenService, clock: Clock) -> Kernel:
    return Kernel(ledger=Ledger.sqlite(tmp_path / "ledger.db"), verifier=tokens.verifier(clock=clock), clock=clock)


def test_one_graph_serves_two_users_concurrently_without_cross_reads(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    alice = Binding(kernel.authenticate(tokens.issue("alice")), ctx(session="a"))
    bob = Binding(kernel.authenticate(tokens.issue("bob")), ctx(session="b"))
    store = GuardedStore(InMemoryStore(), kernel=kernel)  # no default identity: per call only
    app = graph(store, aremember_and_recall)

    async def both() -> list[Any]:
        runs = []
        for i in range(3):
            runs.append(app.ainvoke({"note": f"alice{i} likes tea"}, context={BINDING_KEY: alice}))
            runs.append(app.ainvoke({"note": f"bob{i} owes 50"}, context={BINDING_KEY: bob}))
        return list(await asyncio.gather(*runs))

    results = asyncio.run(both())
    for i, out in enumerate(results):
        who = "alice" if i % 2 == 0 else "bob"
        assert out["seen"], "a run saw nothing (its own note must be there)"
        assert all(t.startswith(who) for t in out["seen"]), out["seen"]
    # the last state: each sees exactly their own three, stamped with their own session
    with acting_as(alice.identity, alice.context):
        assert sorted(i.key for i in store.search(("notes",))) == ["alice0", "alice1", "alice2"]
        assert store.provenance(("notes",), "alice0").turn.session_id == "a"
    with acting_as(bob.identity, bob.context):
        assert sorted(i.key for i in store.search(("notes",))) == ["bob0", "bob1", "bob2"]
        assert store.get(("notes",), "alice0") is None


def test_sync_runs_in_threads_and_configurable_bindings(kernel: Kernel, tokens: LocalTokenService) -> None:
    store = GuardedStore(InMemoryStore(), kernel=kernel)
    app = graph(store, remember_and_recall)
    users = {name: Binding(kernel.authenticate(tokens.issue(name)), ctx(session=name)) for name in ("carol", "dave")}
    seen: dict[str, list[str]] = {}

    def run(name: str) -> None:
        for i in range(3):
            out = app.invoke({"note": f"{name}{i} x"}, config={"configurable": {BINDING_KEY: users[name]}})
            seen.setdefault(name, []).extend(out["seen"])

    threads = [threading.Thread(target=run, args=(n,)) for n in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, texts in seen.items():
        assert texts and all(t.startswith(name) for t in texts)


def test_a_token_in_the_run_is_verified_and_stamps_the_thread_and_turn(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    store = GuardedStore(InMemoryStore(), kernel=kernel, identity=None, context=ctx())
    app = graph(store, remember_and_recall)
    token = tokens.issue("erin")
    config = {"configurable": {BINDING_KEY: token, "thread_id": "t-9", "memguard_turn": 4}}
    assert app.invoke({"note": "erin1 likes rain"}, config=config)["seen"] == ["erin1 likes rain"]
    erin = kernel.authenticate(token)
    with acting_as(erin, ctx()):
        prov = store.provenance(("notes",), "erin1")
    assert (prov.turn.session_id, prov.turn.turn_index) == ("t-9", 4)
    assert prov.owner.subject == "erin"
    # a forged token, a wrong type of binding: refused, nothing written
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    for bad in [forged, {"sub": "erin"}]:
        with pytest.raises(IdentityError):
            app.invoke({"note": "erin2 planted"}, config={"configurable": {BINDING_KEY: bad}})
    with acting_as(erin, ctx()):
        assert [i.key for i in store.search(("notes",))] == ["erin1"]


def test_no_caller_anywhere_is_refused_and_audited(kernel: Kernel, tokens: LocalTokenService) -> None:
    store = GuardedStore(InMemoryStore(), kernel=kernel)
    with pytest.raises(IdentityError):
        store.put(("notes",), "k", {"text": "x"})
    with pytest.raises(IdentityError):
        store.search(("notes",))
    with pytest.raises(IdentityError):
        asyncio.run(store.asearch(("notes",)))
    denies = kernel.ledger.events(decision="deny")
    assert [e.reason for e in denies[-3:]] == ["identity.missing"] * 3
    assert current_binding() is None
    # positive control: the same store acts inside a binding
    me = kernel.authenticate(tokens.issue("frank"))
    with acting_as(me, ctx()):
        store.put(("notes",), "k", {"text": "x"})
        assert [i.key for i in store.search(("notes",))] == ["k"]
    with pytest.raises(InvalidRequest):
        GuardedStore(InMemoryStore(), kernel=kernel, identity=me)  # a default identity needs a context


def test_a_binding_overrides_the_default_and_with_context_pins(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    alice = kernel.authenticate(tokens.issue("alice"))
    bob = kernel.authenticate(tokens.issue("bob"))
    store = GuardedStore(InMemoryStore(), kernel=kernel, identity=alice, context=ctx())
    store.put(("notes",), "a", {"text": "alice's"})
    pinned = store.with_context(turn=Turn(session_id="s-1", turn_index=7))
    with acting_as(bob, ctx(session="b")):
        assert store.get(("notes",), "a") is None  # acts for bob here
        store.put(("notes",), "b", {"text": "bob's"})
        # pinned to alice: inside bob's block that is two callers, refused and audited
        with pytest.raises(IdentityError) as refused:
            pinned.get(("notes",), "a")
        assert refused.value.code == "identity.conflict"
    denied = kernel.ledger.events(decision="deny")[-1]
    assert (denied.reason, denied.action) == ("identity.conflict", "get")
    assert denied.principal is not None and denied.principal["subject"] == "alice"
    assert denied.detail["conflicting"]["subject"] == "bob"
    assert pinned.get(("notes",), "a") is not None  # outside the block: alice's, as pinned
    assert [i.key for i in store.search(("notes",))] == ["a"]


def test_min_trust_and_purpose_on_search(kernel: Kernel, tokens: LocalTokenService) -> None:
    me = kernel.authenticate(tokens.issue("alice"))
    store = GuardedStore(InMemoryStore(), kernel=kernel, identity=me, context=ctx())
    store.put(("notes",), "chat", {"text": "from chat"})
    store.with_context(source=WEB, turn=Turn(session_id="s-1", turn_index=1)).put(
        ("notes",), "web", {"text": "from the web"}
    )
    assert {i.key for i in store.search(("notes",))} == {"chat", "web"}
    assert [i.key for i in store.search(("notes",), min_trust=TrustLevel.USER)] == ["chat"]
    assert [i.key for i in asyncio.run(store.asearch(("notes",), min_trust=TrustLevel.USER))] == ["chat"]
    assert store.search(("notes",), min_trust=TrustLevel.SYSTEM) == []
    with pytest.raises(InvalidRequest):
        store.search(("notes",), min_trust=3)  # type: ignore[arg-type]
    store.search(("notes",), purpose="planning")
    assert kernel.ledger.events(decision="allow")[-1].purpose == "planning"


def test_async_calls_keep_the_ledger_off_the_event_loop(
    kernel: Kernel, tokens: LocalTokenService, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = kernel.authenticate(tokens.issue("alice"))
    store = GuardedStore(InMemoryStore(), kernel=kernel, identity=me, context=ctx())
    threads: list[int] = []
    real = kernel.operation

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(kernel, "operation", spy)

    async def go() -> int:
        await store.aput(("notes",), "k", {"text": "x"})
        assert [i.key for i in await store.asearch(("notes",))] == ["k"]
        assert (await store.aget(("notes",), "k")) is not None
        return threading.get_ident()

    loop_thread = asyncio.run(go())
    assert len(threads) >= 3 and loop_thread not in threads
