"""The driver: one sans-I/O flow run over the inner store's ``batch`` (sync) or ``abatch``
(async; the flow's own steps in a worker thread), with the one error table at the seam."""

from __future__ import annotations

import asyncio

from langgraph.store.base import BaseStore

from .._toolkit import backend_error
from .._toolkit import flow_step as _step
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
    never waits on the ledger; the inner store's ``abatch`` is awaited on the loop."""
    done, value = await asyncio.to_thread(_step, flow, None, None)
    while not done:
        try:
            response = await inner.abatch(value)
        except BaseException as exc:  # a cancellation too: the flow aborts what it staged
            err = backend_error("langgraph store", "abatch", exc) if isinstance(
                exc, Exception) else exc  # fmt: skip
            done, value = await asyncio.to_thread(_step, flow, None, err)
        else:
            done, value = await asyncio.to_thread(_step, flow, response, None)
    result: _T = value
    return result
