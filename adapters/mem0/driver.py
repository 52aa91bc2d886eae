"""The drivers that run a core flow on a ``Memory`` / ``AsyncMemory``, with the one error table."""

from __future__ import annotations

import asyncio
import os
from typing import Any

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

import mem0.memory.main as _mem0_main  # type: ignore[import-untyped]
import mem0.memory.telemetry as _mem0_telemetry  # type: ignore[import-untyped]

from memguard.errors import (
    ConfigurationError,
    MemguardError,
    StoreError,
)

from .._toolkit import backend_error, drive_async
from .base import T, _Call, _Flow


def _redact_history(db: Any, memory_id: str) -> None:
    """Null the text of one memory's rows in mem0's history table (the events and times stay)."""
    conn = getattr(db, "connection", None)
    lock = getattr(db, "_lock", None)  # mem0's SQLiteManager serializes its connection with it
    if conn is None or lock is None:
        raise StoreError("mem0's history store is closed or unknown")
    with lock:
        conn.execute("BEGIN")
        try:
            conn.execute(
                "UPDATE history SET old_memory = NULL, new_memory = NULL, actor_id = NULL "
                "WHERE memory_id = ?",
                (memory_id,),
            )
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise


def _perform(memory: Any, call: _Call) -> Any:
    if call.target == "memory":
        return getattr(memory, call.method)(*call.args, **call.kwargs)
    if call.target == "store":
        return getattr(memory.vector_store, call.method)(*call.args, **call.kwargs)
    if call.target == "llm":
        return getattr(memory.llm, call.method)(*call.args, **call.kwargs)
    return _redact_history(memory.db, *call.args)


def _drive(memory: Any, flow: _Flow[T]) -> T:
    """Run a core flow against a sync ``Memory``; backend errors go back into the flow (fail closed)."""
    send: Any = None
    error: Exception | None = None
    try:
        while True:
            try:
                call = flow.throw(error) if error is not None else flow.send(send)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            send, error = None, None
            try:
                send = _perform(memory, call)
            except Exception as exc:  # the one error table
                error = backend_error("mem0", f"{call.target}.{call.method}", exc)
    finally:
        flow.close()


async def _adrive(memory: Any, flow: _Flow[T]) -> T:
    """Run a core flow against an ``AsyncMemory`` (:func:`adapters._toolkit.drive_async`): mem0's
    coroutines are awaited, the core's own steps (ledger I/O) and mem0's sync parts run in a
    worker thread; a cancellation aborts what the flow staged, in a worker thread."""

    async def perform(call: _Call) -> Any:
        if call.target == "memory":
            return await getattr(memory, call.method)(*call.args, **call.kwargs)
        return await asyncio.to_thread(_perform, memory, call)

    def error_of(call: _Call, exc: Exception) -> MemguardError:
        return backend_error("mem0", f"{call.target}.{call.method}", exc)

    return await drive_async(flow, perform, error_of)


def _check_backend(memory: Any, allow_telemetry: bool) -> None:
    provider = getattr(
        getattr(getattr(memory, "config", None), "vector_store", None), "provider", None
    )
    if provider != "qdrant":
        raise ConfigurationError(
            f"the mem0 adapter supports the `qdrant` vector store, not `{provider}`"
        )
    if (_mem0_telemetry.MEM0_TELEMETRY or _mem0_main.MEM0_TELEMETRY) and not allow_telemetry:
        raise ConfigurationError(
            "mem0 telemetry is on: set MEM0_TELEMETRY=False before importing mem0 "
            "(or pass `allow_telemetry=True`)"
        )
