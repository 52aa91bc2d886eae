"""The driver: one sans-I/O flow run over the inner store's ``batch`` (sync) or ``abatch``
(async; the flow's own steps in a worker thread), with the one error table at the seam."""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore

from memguard.errors import MemguardError

from .._toolkit import backend_error, drive_async
from .base import _T, Flow


def drive(inner: BaseStore, flow: Flow[_T]) -> _T:
    """Run ``flow`` against ``inner.batch``."""
    try:
        request = next(flow)
        while True:
            try:
                response = inner.batch(request)
            except Exception as exc:  # the one error table (a cancellation passes as it is)
                request = flow.throw(backend_error("langgraph store", "batch", exc))
            except BaseException as exc:
                request = flow.throw(exc)
            else:
                request = flow.send(response)
    except StopIteration as stop:
        result: _T = stop.value
        return result


async def adrive(inner: BaseStore, flow: Flow[_T]) -> _T:
    """The flow's own steps (policy, ledger I/O) run in a worker thread, so the event loop
    never waits on the ledger; the inner store's ``abatch`` is awaited on the loop; a
    cancellation aborts what the flow staged (:func:`adapters._toolkit.drive_async`)."""

    async def perform(request: Any) -> Any:
        return await inner.abatch(request)

    def error_of(request: Any, exc: Exception) -> MemguardError:
        return backend_error("langgraph store", "abatch", exc)

    return await drive_async(flow, perform, error_of)
