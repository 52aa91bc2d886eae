"""A cancelled async adapter call leaves nothing staged and never runs ledger I/O on the loop.

The async guarded qdrant-client over a real ``AsyncQdrantClient`` (``":memory:"``): a gate in
front of it holds the backend call or the ledger commit while the calling task is cancelled.
- cancelled while the backend call is in flight: the staged rows are aborted at once, in a
  worker thread (not left ``pending`` for garbage collection to abort on some thread), the
  point that lands later is never served, and the id can be written again;
- cancelled while the kernel's commit runs in its worker thread: the commit finishes (the write
  stands, the caller only loses the answer) and the cancellation still reaches the caller.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_adapter_mem0
from conftest import Clock
from qdrant_adapter_helpers import context, make_kernel
from qdrant_client import AsyncQdrantClient, models

from memguard import FactState, LocalTokenService
from memguard.adapters.mem0 import GuardedAsyncMemory
from memguard.adapters.qdrant import AsyncGuardedQdrantClient
from memguard.kernel import Kernel

C = "memories"


class Gate(AsyncQdrantClient):
    """The real async client, except that ``upsert`` waits for ``release`` before it runs."""

    def __init__(self) -> None:
        super().__init__(location=":memory:")
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def upsert(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        await self.release.wait()
        return await super().upsert(*args, **kwargs)


class AbortRecorder:
    """Notes the thread and the fact ids of every ``ledger.abort``."""

    def __init__(self, kernel: Kernel) -> None:
        self.calls: list[tuple[int, list[str]]] = []
        real = kernel.ledger.abort

        def abort(records: Any) -> Any:
            self.calls.append((threading.get_ident(), [p.fact_id for p in records]))
            return real(records)

        kernel.ledger.abort = abort  # type: ignore[method-assign]


@pytest.fixture
def kernel(tmp_path: Path, tokens: LocalTokenService, clock: Clock) -> Iterator[Kernel]:
    k = make_kernel(tmp_path, tokens, clock)
    yield k
    k.ledger.close()


def _point(pid: int, text: str) -> models.PointStruct:
    return models.PointStruct(id=pid, vector=[1.0, 0.0, 0.0, 0.0], payload={"text": text})


async def _client(kernel: Kernel, tokens: LocalTokenService) -> tuple[Any, Gate]:
    gate = Gate()
    await gate.create_collection(
        C, vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE)
    )
    me = kernel.authenticate(tokens.issue("alice"))
    guarded = AsyncGuardedQdrantClient(gate, kernel=kernel, identity=me, context=context())
    return guarded, gate


def test_a_write_cancelled_in_the_backend_call_is_aborted_at_once_off_the_loop(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    aborts = AbortRecorder(kernel)

    async def scenario() -> None:
        guarded, gate = await _client(kernel, tokens)
        loop_thread = threading.get_ident()
        task = asyncio.create_task(guarded.upsert(C, points=[_point(7, "tea at five")]))
        await gate.entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # aborted before the cancellation reached the caller, in a worker thread
        ((thread, (fact_id,)),) = aborts.calls
        assert thread != loop_thread
        assert [r.state for r in kernel.ledger.versions(fact_id)] == [FactState.ABORTED]
        # the backend call the cancellation abandoned lands after all: never served
        gate.release.set()
        await gate.upsert(C, points=[_point(7, "tea at five")])
        assert (await guarded.retrieve(C, ids=[7])) == []
        assert (await guarded.scroll(C, limit=10))[0] == []
        # and the id is not left refused: the next write of it commits and is served
        await guarded.upsert(C, points=[_point(7, "tea at six")])
        (record,) = await guarded.retrieve(C, ids=[7])
        assert record.payload["text"] == "tea at six"
        assert kernel.ledger.versions(fact_id)[-1].state is FactState.COMMITTED
        await gate.close()

    asyncio.run(scenario())


def test_a_write_cancelled_during_its_commit_stands_and_the_caller_sees_the_cancellation(
    kernel: Kernel, tokens: LocalTokenService
) -> None:
    aborts = AbortRecorder(kernel)
    in_commit, go_on = threading.Event(), threading.Event()
    real_commit = kernel.ledger.commit

    def slow_commit(*args: Any, **kwargs: Any) -> Any:
        in_commit.set()
        assert go_on.wait(10)
        return real_commit(*args, **kwargs)

    kernel.ledger.commit = slow_commit  # type: ignore[method-assign]

    async def scenario() -> None:
        guarded, gate = await _client(kernel, tokens)
        gate.release.set()
        task = asyncio.create_task(guarded.upsert(C, points=[_point(8, "coffee")]))
        await asyncio.to_thread(in_commit.wait, 10)
        task.cancel()
        await asyncio.sleep(0.05)  # the cancellation is delivered while the commit runs
        assert not task.done()  # the step in its worker thread is waited for
        go_on.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert aborts.calls == []
        (record,) = await guarded.retrieve(C, ids=[8])
        assert record.payload["text"] == "coffee"
        await gate.close()

    asyncio.run(scenario())


def test_a_mem0_add_cancelled_in_the_backend_call_is_aborted_at_once_off_the_loop(
    tmp_path: Path, tokens: LocalTokenService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same through the mem0 adapter's async driver (real ``AsyncMemory``, offline parts)."""
    world = test_adapter_mem0.World("async", tmp_path, tokens, clock)
    aborts = AbortRecorder(world.kernel)
    store = world.memory.vector_store
    real_update = store.update
    entered, release = threading.Event(), threading.Event()

    def gated_update(*args: Any, **kwargs: Any) -> Any:  # mem0 runs it in a worker thread
        entered.set()
        assert release.wait(10)
        return real_update(*args, **kwargs)

    monkeypatch.setattr(store, "update", gated_update)

    async def scenario() -> None:
        guarded = GuardedAsyncMemory(
            world.memory, kernel=world.kernel, identity=world.alice_id,
            context=test_adapter_mem0.ctx(turn=5),
        )  # fmt: skip
        loop_thread = threading.get_ident()
        task = asyncio.create_task(guarded.add("alice keeps her passport in the safe", infer=False))
        await asyncio.to_thread(entered.wait, 10)  # the staged write is in the store call
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        ((thread, fact_ids),) = aborts.calls
        assert thread != loop_thread and fact_ids
        for fact_id in fact_ids:
            assert [r.state for r in world.kernel.ledger.versions(fact_id)] == [FactState.ABORTED]
        release.set()  # the abandoned store call ends after all: still never served
        await asyncio.sleep(0.05)
        found = await guarded.get_all()
        assert "alice keeps her passport in the safe" not in {m["memory"] for m in found["results"]}

    try:
        world.loop.run_until_complete(scenario())
    finally:
        world.loop.close()
        world.ledger.close()
