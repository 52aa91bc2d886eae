"""One turn per top-level call when the caller names none (``adapters._toolkit.per_call_turn``).

An adapter built with a fixed turn keeps it for every call: once a fact it read is revoked, every
later write of that turn is fenced (the deletion fence, tests/test_deletion_fence.py). Built with
``per_call_turn(session)``, each call is a fresh turn of the session, so only the call that read
the fact is fenced. Explicit turns keep today's behaviour (the controls below). Real parts:
LangGraph's ``InMemoryStore``, a local qdrant-client, mem0 ``Memory`` / ``AsyncMemory`` (Qdrant
local mode, offline embedder and LLM), a SQLite ledger, signed tokens.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

# mem0 reads these when it is imported: no telemetry, and its config file in a scratch folder
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="memguard-mem0-"))

pytest.importorskip("langgraph", reason="the `langgraph` extra")

from helpers import Clock
from langgraph.store.memory import InMemoryStore
from qdrant_client import QdrantClient, models

from memguard import AccessDenied, Ledger, LocalTokenService, Source, SourceKind, Turn
from memguard.adapters._toolkit import PerCallTurn, call_context, per_call_turn
from memguard.adapters.langgraph import BINDING_KEY, GuardedStore
from memguard.adapters.qdrant import GuardedQdrantClient
from memguard.adapters.qdrant.base import fact_id_of
from memguard.context import CallContext, acting_as
from memguard.kernel import Kernel
from memguard.revocation import RevocationSelector

CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")
NS = ("notes",)


@pytest.fixture
def kernel(tmp_path: Path, tokens: LocalTokenService, clock: Clock) -> Kernel:
    return Kernel(
        ledger=Ledger.sqlite(tmp_path / "ledger.db"),
        verifier=tokens.verifier(clock=clock),
        clock=clock,
    )


def _revoke(kernel: Kernel, fact_id: str) -> None:
    report = kernel.revoke(None, RevocationSelector.fact(fact_id), reason="bad", operator="ops")
    assert fact_id in report.quarantined


def test_call_context_gives_each_call_a_fresh_turn_of_the_session() -> None:
    fixed = CallContext(source=CHAT, turn=Turn(session_id="s", turn_index=3))
    assert call_context(fixed) is fixed  # an explicit turn is kept
    auto = CallContext(source=CHAT, turn=per_call_turn("s", trace_id="t-1"))
    assert isinstance(auto.turn, PerCallTurn)
    one, two = call_context(auto), call_context(auto)
    assert not isinstance(one.turn, PerCallTurn) and type(one.turn) is Turn
    assert one.turn.session_id == two.turn.session_id == "s" and one.turn.trace_id == "t-1"
    assert one.turn.turn_index != two.turn.turn_index
    assert 0 < one.turn.turn_index < 2**31  # the ledger's turn index is a 32-bit integer on PG


@pytest.mark.parametrize("per_call", [True, False], ids=["per-call", "fixed-turn"])
def test_langgraph_a_revoked_read_fences_only_the_call_that_read_it(
    kernel: Kernel, tokens: LocalTokenService, per_call: bool
) -> None:
    turn = per_call_turn("s-1") if per_call else Turn(session_id="s-1", turn_index=0)
    me = kernel.authenticate(tokens.issue("alice", ttl=3600))
    store = GuardedStore(
        InMemoryStore(), kernel=kernel, identity=me, context=CallContext(source=CHAT, turn=turn)
    )
    store.put(NS, "a", {"text": "the door code is 4411"})
    assert store.get(NS, "a") is not None  # this call reads it
    _revoke(kernel, store.fact_id(NS, "a"))
    if per_call:
        store.put(NS, "b", {"text": "an unrelated note"})  # a later call: a fresh turn
        turns = {store.provenance(NS, k).turn.turn_index for k in ("b",)}
        assert turns and 0 not in turns
    else:  # today's behaviour with an explicit turn: every later write of it is fenced
        with pytest.raises(AccessDenied):
            store.put(NS, "b", {"text": "an unrelated note"})
    # the same through acting_as (one graph, many users): fenced in the fixed turn only
    with acting_as(me, CallContext(source=CHAT, turn=turn)):
        bound = GuardedStore(InMemoryStore(), kernel=kernel)
        if per_call:
            bound.put(NS, "c", {"text": "c"})
            assert bound.provenance(NS, "c").turn.turn_index != 0
        else:
            with pytest.raises(AccessDenied):
                bound.put(NS, "c", {"text": "c"})


def test_langgraph_a_token_run_without_a_turn_gets_one_per_call(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    from langgraph.config import get_config  # noqa: F401  (the run context the store reads)
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict, total=False):
        turns: list[int]

    def node(state: State, runtime: Any) -> State:
        s = runtime.store
        s.put(NS, "x", {"text": "one"})
        first = s.provenance(NS, "x").turn
        s.put(NS, "y", {"text": "two"})
        second = s.provenance(NS, "y").turn
        assert first.session_id == second.session_id == "thread-9"
        return {"turns": [first.turn_index, second.turn_index]}

    for per_call in (True, False):
        turn = per_call_turn("default") if per_call else Turn(session_id="default", turn_index=4)
        store = GuardedStore(InMemoryStore(), kernel=kernel, context=CallContext(source=CHAT, turn=turn))
        graph = StateGraph(State)
        graph.add_node("node", node)
        graph.add_edge(START, "node")
        graph.add_edge("node", END)
        app = graph.compile(store=store)
        token = tokens.issue("carol", ttl=3600)
        out = app.invoke({}, config={"configurable": {"thread_id": "thread-9", BINDING_KEY: token}})
        first, second = out["turns"]
        if per_call:
            assert first != second and 0 not in (first, second)
        else:
            assert first == second == 4  # the store's explicit default turn, as before


def test_qdrant_a_revoked_read_fences_only_the_call_that_read_it(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    raw = QdrantClient(":memory:")
    raw.create_collection("c", vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
    me = kernel.authenticate(tokens.issue("alice", ttl=3600))
    results: dict[bool, bool] = {}
    for per_call in (True, False):
        turn = per_call_turn("s-q") if per_call else Turn(session_id="s-q", turn_index=0)
        client = GuardedQdrantClient(
            raw, kernel=kernel, identity=me, context=CallContext(source=CHAT, turn=turn)
        )
        base = 10 if per_call else 20
        client.upsert("c", [models.PointStruct(id=base, vector=[1.0, 0.0], payload={"t": "a"})])
        (hit,) = client.retrieve("c", [base])  # this call reads it
        assert hit.id == base
        _revoke(kernel, fact_id_of("c", base))
        try:
            client.upsert("c", [models.PointStruct(id=base + 1, vector=[0.0, 1.0], payload={"t": "b"})])
            results[per_call] = True
        except AccessDenied:
            results[per_call] = False
    assert results == {True: True, False: False}


@pytest.mark.parametrize("per_call", [True, False], ids=["per-call", "fixed-turn"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_mem0_a_revoked_read_fences_only_the_call_that_read_it(
    kernel: Kernel, tokens: LocalTokenService, tmp_path: Path, kind: str, per_call: bool
) -> None:
    mem0_adapter = pytest.importorskip("memguard.adapters.mem0", reason="the `mem0` extra")
    make = mem0_adapter.offline_memory if kind == "sync" else mem0_adapter.offline_async_memory
    shell_type = mem0_adapter.GuardedMemory if kind == "sync" else mem0_adapter.GuardedAsyncMemory
    memory = make(str(tmp_path / "qdrant"), dimension=64, history_db_path=str(tmp_path / "h.db"))
    loop = asyncio.new_event_loop()
    turn = per_call_turn("s-m") if per_call else Turn(session_id="s-m", turn_index=0)
    me = kernel.authenticate(tokens.issue("alice", ttl=3600))
    shell = shell_type(memory, kernel=kernel, identity=me, context=CallContext(source=CHAT, turn=turn))

    def call(name: str, *args: Any, **kwargs: Any) -> Any:
        result = getattr(shell, name)(*args, **kwargs)
        return loop.run_until_complete(result) if asyncio.iscoroutine(result) else result

    def turn_of(memory_id: str) -> Turn:
        fact_id = mem0_adapter.memory_fact_id(memory_id)
        return kernel.ledger.latest([fact_id])[fact_id].provenance.turn

    try:
        first = call("add", "the door code is 4411", infer=False)["results"][0]
        second = call("add", "the office opens at 9", infer=False)["results"][0]
        one, two = turn_of(first["id"]), turn_of(second["id"])
        assert one.session_id == two.session_id == "s-m"
        assert shell.context.turn is turn  # the shell keeps the context as built
        if per_call:  # two calls, two turns
            assert one.turn_index != two.turn_index and 0 not in (one.turn_index, two.turn_index)
        else:
            assert one.turn_index == two.turn_index == 0
        assert call("get", first["id"]) is not None  # this call reads it
        _revoke(kernel, mem0_adapter.memory_fact_id(first["id"]))
        if per_call:  # a later call is a fresh turn: its write commits
            third = call("add", "an unrelated note", infer=False)["results"][0]
            fact_id = mem0_adapter.memory_fact_id(third["id"])
            assert kernel.ledger.latest([fact_id])[fact_id].state.value == "committed"
            assert turn_of(third["id"]).turn_index not in (0, one.turn_index, two.turn_index)
        else:  # an explicit turn: every later write of it is fenced, as before
            with pytest.raises(AccessDenied):
                call("add", "an unrelated note", infer=False)
            after = call("get_all", top_k=50)["results"]
            assert {m["memory"] for m in after} == {"the office opens at 9"}
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        memory.vector_store.client.close()
        if memory.db is not None:
            memory.db.close()
