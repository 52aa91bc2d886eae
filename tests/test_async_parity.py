"""The async shell is the same contract as the sync guard: every public operation of
``MemoryGuard`` exists on ``AsyncMemoryGuard`` as a coroutine with the same parameters."""

from __future__ import annotations

import asyncio
import inspect

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
    for name in ops:
        twin = getattr(AsyncMemoryGuard, name, None)
        assert twin is not None, f"AsyncMemoryGuard lacks {name}"
        assert asyncio.iscoroutinefunction(twin), name
        sync_params = list(inspect.signature(getattr(MemoryGuard, name)).parameters.values())
        async_params = list(inspect.signature(twin).parameters.values())
        assert [(p.name, p.kind, p.default) for p in sync_params] == [
            (p.name, p.kind, p.default) for p in async_params
        ], name
