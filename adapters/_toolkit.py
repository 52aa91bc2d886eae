"""What every adapter shares: the one backend error table, the text the scanner sees, and the
step of the one driver pattern (:func:`flow_step`).

The driver pattern, in all three adapters (``adapters/qdrant/driver.py``, ``adapters/mem0/driver.py``,
``adapters/langgraph/driver.py``): an operation is a sans-I/O generator (the kernel's steps inside
it) that yields the backend calls it needs; a sync driver performs them and sends the results back,
an async driver awaits them on the event loop and runs each :func:`flow_step` (policy, ledger I/O)
in a worker thread; a backend exception goes back into the flow through :func:`backend_error`.

The error table (:func:`backend_error`), in one place for all four adapters:

    MemguardError                          -> itself (the guard's own refusal)
    backend unavailable                    -> StoreUnavailable  (code ``backend.unavailable``, 503)
        ConnectionError, TimeoutError, any other OSError, httpx / httpcore transport errors,
        qdrant-client ``ResponseHandlingException``, gRPC ``UNAVAILABLE`` / ``DEADLINE_EXCEEDED``,
        a lost SQL connection (SQLAlchemy ``DisconnectionError`` or an invalidated connection,
        psycopg ``OperationalError`` / ``InterfaceError``, sqlite3 "unable to open" / "locked"),
        redis ``ConnectionError``
    ValueError, TypeError, KeyError        -> InvalidRequest (the backend refused the call's shape)
    anything else                          -> StoreError        (code ``backend.store``, 503)

The gateway maps every :class:`~memguard.errors.BackendError` to 503 with ``Retry-After``
(``memguard/gateway/errors.py``), so a backend that is down is the same error and the same status
whichever adapter met it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any, TypeVar

from memguard.errors import InvalidRequest, MemguardError, StoreError, StoreUnavailable

__all__ = ["backend_error", "drive_async", "flow_step", "is_unavailable", "scan_text"]

_T = TypeVar("_T")

_UNAVAILABLE_NAMES = frozenset(
    {
        # qdrant-client (http and grpc transports)
        "ResponseHandlingException",
        # httpx / httpcore transport failures (connect, read, write, pool, protocol)
        "TransportError",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "NetworkError",
        "RemoteProtocolError",
        # redis-py
        "ConnectionError",
        "TimeoutError",
        "BusyLoadingError",
    }
)
_GRPC_UNAVAILABLE = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED"})


_SQLITE_UNAVAILABLE = ("unable to open", "database is locked", "disk i/o error")


def _sql_unavailable(exc: BaseException) -> bool | None:
    """SQL errors: a lost connection or a database that cannot be opened is unavailable; a
    missing table or a bad statement (also an ``OperationalError``) is not. ``None``: not SQL."""
    root = type(exc).__module__.split(".")[0]
    if root == "sqlalchemy":
        if type(exc).__name__ == "DisconnectionError" or getattr(exc, "connection_invalidated", False):
            return True
        orig = getattr(exc, "orig", None)
        return is_unavailable(orig) if isinstance(orig, BaseException) else False
    if root in ("psycopg", "psycopg2"):  # libpq: OperationalError is the connection class
        return any(c.__name__ in ("OperationalError", "InterfaceError") for c in type(exc).__mro__)
    if root == "sqlite3":
        return type(exc).__name__ == "OperationalError" and any(
            k in str(exc).lower() for k in _SQLITE_UNAVAILABLE
        )
    return None


def is_unavailable(exc: BaseException) -> bool:
    """Is ``exc`` a backend that cannot be reached (as opposed to one that refused the call)?"""
    if isinstance(exc, OSError):  # ConnectionError, TimeoutError, socket errors
        return True
    sql = _sql_unavailable(exc)
    if sql is not None:
        return sql
    for cls in type(exc).__mro__:
        if cls.__name__ in _UNAVAILABLE_NAMES and cls.__module__.split(".")[0] in (
            "qdrant_client", "httpx", "httpcore", "redis",
        ):  # fmt: skip
            return True
    code = getattr(exc, "code", None)
    if callable(code) and type(exc).__module__.startswith("grpc"):
        try:
            name = getattr(code(), "name", None)
        except Exception:
            return False
        return name in _GRPC_UNAVAILABLE
    return False


def backend_error(system: str, what: str, exc: BaseException) -> MemguardError:
    """The typed error for ``exc`` raised by ``system``'s ``what`` call (see the module table)."""
    if isinstance(exc, MemguardError):
        return exc
    if is_unavailable(exc):
        err: MemguardError = StoreUnavailable(f"{system} is unavailable (`{what}`)")
    elif isinstance(exc, ValueError | TypeError | KeyError | AssertionError):
        err = InvalidRequest(f"{system} refused `{what}`")
    else:
        err = StoreError(f"{system} `{what}` failed: {type(exc).__name__}")
    err.__cause__ = exc
    return err


def flow_step(
    flow: Generator[Any, Any, Any], send: Any, error: BaseException | None
) -> tuple[bool, Any]:
    """One step of a driver's flow: ``(False, the next request)`` or ``(True, the flow's result)``.
    The end comes back as a value because ``StopIteration`` cannot cross a worker thread's future."""
    try:
        return False, (flow.throw(error) if error is not None else flow.send(send))
    except StopIteration as stop:
        return True, stop.value


async def drive_async(
    flow: Generator[Any, Any, _T],
    perform: Callable[[Any], Awaitable[Any]],
    error_of: Callable[[Any, Exception], MemguardError],
) -> _T:
    """The async driver of every adapter: the flow's steps (policy, ledger I/O) run in a worker
    thread, each backend request is awaited on the loop through ``perform``, and a backend
    exception goes back into the flow as ``error_of(request, exc)``.

    A cancellation is the flow's business too: the step that is running in its worker thread
    cannot be stopped, so it is waited for; then the flow is closed in a worker thread, where a
    write it staged is aborted (:func:`memguard.protocol.persist_flow`), and the cancellation is
    raised. Nothing is left staged for garbage collection to abort on whatever thread it runs.
    A step that already committed stays committed: the caller only loses the answer."""
    send: Any = None
    error: MemguardError | None = None
    try:
        while True:
            done, value = await _settled(flow_step, flow, send, error)
            if done:
                result: _T = value
                return result
            send, error = None, None
            try:
                send = await perform(value)
            except Exception as exc:  # the one error table
                error = error_of(value, exc)
    except asyncio.CancelledError:
        await _settled(flow.close)
        raise


async def _settled(fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` in a worker thread, waited for to its end even if the caller is cancelled
    meanwhile; the cancellation is raised once it has ended (and wins over its result)."""
    step = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    cancelled: asyncio.CancelledError | None = None
    while not step.done():
        try:
            await asyncio.shield(step)
        except asyncio.CancelledError as exc:
            if step.cancelled():
                raise
            cancelled = cancelled or exc
        except Exception:
            break  # the step's own error: taken from it below
    if cancelled is not None:
        if not step.cancelled() and step.exception() is not None:
            step.exception()  # retrieved, so asyncio does not report it as never seen
        raise cancelled
    return step.result()


def scan_text(value: Any) -> str:
    """The text the kernel's scanner sees for a structured value (a Qdrant payload, a LangGraph
    item): every string in it, depth first, one per line. Keys are included unless they look like
    plain field names, so an instruction hidden in a key is scanned too; a value with one string
    field is scanned exactly as that string is through ``MemoryGuard.write``."""
    out: list[str] = []
    _collect(value, out, 0)
    return "\n".join(out)


def _collect(value: Any, out: list[str], depth: int) -> None:
    if depth > 64:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and not _plain_key(key):
                out.append(key)
            _collect(item, out, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, out, depth + 1)


def _plain_key(key: str) -> bool:
    return 0 < len(key) <= 64 and key.replace("_", "").replace("-", "").replace(".", "").isalnum() \
        and key.isascii()  # fmt: skip
