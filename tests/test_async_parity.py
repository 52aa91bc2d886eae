"""The async shell is the same contract as the sync guard: every public operation of
``MemoryGuard`` exists on ``AsyncMemoryGuard`` as a coroutine with the same parameters."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from memguard.aio import AsyncMemoryGuard
from memguard.guard import MemoryGuard

# accessors of the wrapped guard's parts, reached as ``AsyncMemoryGuard.guard.<name>``
NOT_OPERATIONS = {"ledger", "verifier", "scope", "trust_policy", "kernel", "store", "embedder"}


def _operations() -> list[str]:
    return sorted(
        name
        for name, member in inspect.getmembers(MemoryGuard)
        if not name.startswith("_") and callable(member) and name not in NOT_OPERATIONS
    )


def test_every_sync_operation_has_an_async_twin_with_the_same_parameters() -> None:
    ops = _operations()
    assert {"write", "search", "list_facts", "revoke", "endorse", "audit"} <= set(ops)
    for name in ("write", "write_many"):  # the time-to-live is on both sides
        assert "ttl" in inspect.signature(getattr(MemoryGuard, name)).parameters
        assert "ttl" in inspect.signature(getattr(AsyncMemoryGuard, name)).parameters
    for name in ops:
        twin = getattr(AsyncMemoryGuard, name, None)
        assert twin is not None, f"AsyncMemoryGuard lacks {name}"
        assert asyncio.iscoroutinefunction(twin), name
        sync_params = list(inspect.signature(getattr(MemoryGuard, name)).parameters.values())
        async_params = list(inspect.signature(twin).parameters.values())
        assert [(p.name, p.kind, p.default) for p in sync_params] == [
            (p.name, p.kind, p.default) for p in async_params
        ], name


# -- the adapters' sync/async pairs ----------------------------------------------------------------
#
# Each pair is enumerated from the sync class (every public callable) and back from the async
# class, so a method added to one side only fails here. The scenarios themselves run through both
# sides in the adapters' own suites (their `sync`/`async` fixture parameters).


def _params(fn: Any) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def _public_callables(cls: type) -> set[str]:
    return {
        name
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_") and callable(member) and not isinstance(member, type)
    }


def _check_pair(
    sync_cls: type,
    async_cls: type,
    twin_name: dict[str, str],
    plain: set[str],
    extra_params: dict[str, set[str]],
) -> None:
    """``twin_name``: sync name -> async name (identity when absent); ``plain``: sync helpers
    that do no I/O and are plain methods on both; ``extra_params``: async-only keyword parameters
    the wrapped library's own async class has (mirrored, not invented)."""
    sync_ops = _public_callables(sync_cls)
    async_ops = _public_callables(async_cls)
    expected_async = {twin_name.get(name, name) for name in sync_ops}
    assert async_ops == expected_async, (
        f"{async_cls.__name__} extra: {sorted(async_ops - expected_async)}, "
        f"missing: {sorted(expected_async - async_ops)}"
    )
    for name in sorted(sync_ops):
        twin = getattr(async_cls, twin_name.get(name, name))
        if name in plain:
            assert not asyncio.iscoroutinefunction(twin), name
        else:
            assert asyncio.iscoroutinefunction(twin), f"{async_cls.__name__}.{name} is not async"
        extra = extra_params.get(name, set())
        assert _params(getattr(sync_cls, name)) == [
            p for p in _params(twin) if p[0] not in extra
        ], name
    assert "add" in sync_ops or "upsert" in sync_ops or "batch" in sync_ops  # not vacuous


def test_qdrant_clients_are_one_contract() -> None:
    from memguard.adapters.qdrant import AsyncGuardedQdrantClient, GuardedQdrantClient

    _check_pair(GuardedQdrantClient, AsyncGuardedQdrantClient, {}, {"with_context"}, {})


def test_mem0_memories_are_one_contract() -> None:
    from mem0 import AsyncMemory, Memory

    from memguard.adapters.mem0 import GuardedAsyncMemory, GuardedMemory

    # mem0's own AsyncMemory.add takes `llm` and Memory.add does not: the shells mirror mem0
    assert "llm" in inspect.signature(AsyncMemory.add).parameters
    assert "llm" not in inspect.signature(Memory.add).parameters
    _check_pair(GuardedMemory, GuardedAsyncMemory, {}, {"with_context"}, {"add": {"llm"}})


def test_guarded_store_has_every_sync_async_pair() -> None:
    from langgraph.store.base import BaseStore

    from memguard.adapters.langgraph import GuardedStore

    # one class, LangGraph's convention: `x` and `ax`; the guarded extras follow it
    names = _public_callables(GuardedStore)
    sync_ops = {n for n in names if f"a{n}" in names}
    assert {"batch", "get", "put", "delete", "search", "list_namespaces", "provenance"} <= sync_ops
    base_pairs = {n for n in _public_callables(BaseStore) if f"a{n}" in dir(BaseStore)}
    assert base_pairs <= sync_ops
    # what is sync only: pure helpers (no store I/O of their own) and the TTL sweeper's thread
    # controls (the sweeps themselves are `sweep_ttl` / `asweep_ttl`)
    assert names - sync_ops - {f"a{n}" for n in sync_ops} == {
        "fact_id", "with_context", "start_ttl_sweeper", "stop_ttl_sweeper"
    }
    for name in sorted(sync_ops):
        twin = getattr(GuardedStore, f"a{name}")
        assert asyncio.iscoroutinefunction(twin), name
        assert _params(getattr(GuardedStore, name)) == _params(twin), name
