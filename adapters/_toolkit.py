"""What every adapter shares: the one backend error table, the text the scanner sees, the
step of the one driver pattern (:func:`flow_step`), one turn per top-level call when the
caller names none (:func:`per_call_turn`, :func:`call_context`), the caller's identity checks
(:func:`require_identity` when a shell is built, :func:`check_binding` on each call) and the one
compact provenance summary (:func:`provenance_summary`, under :data:`SUMMARY_KEY`).
See docs/adapters/common.md.

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
import itertools
import secrets
import threading
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any, Final, NotRequired, TypedDict, TypeVar

from memguard.context import CallContext, current_binding
from memguard.errors import (
    IdentityError,
    InvalidRequest,
    MemguardError,
    StoreError,
    StoreUnavailable,
)
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.provenance import Provenance, Turn

__all__ = [
    "SUMMARY_KEY",
    "PerCallTurn",
    "ProvenanceSummary",
    "backend_error",
    "call_context",
    "check_binding",
    "conflict",
    "drive_async",
    "flow_step",
    "is_unavailable",
    "per_call_turn",
    "provenance_summary",
    "require_identity",
    "same_caller",
    "scan_text",
]

_T = TypeVar("_T")


# -- turns: one per top-level call unless the caller names one -------------------------------------


class PerCallTurn(Turn):
    """A turn the caller did not name: every top-level call of an adapter built with it runs as a
    fresh turn of this session (:func:`call_context`), so what one call read taints (and fences)
    only that call's writes. Build it with :func:`per_call_turn`; an ordinary :class:`Turn` is an
    explicit turn and is kept for every call, as before."""


def per_call_turn(session_id: str, *, trace_id: str | None = None) -> Turn:
    """The ``turn`` of a :class:`CallContext` whose calls each get a fresh turn of ``session_id``."""
    return PerCallTurn(session_id=session_id, turn_index=0, trace_id=trace_id)


# A process-wide counter, started at a random point so two processes serving one session rarely
# hand out the same index (the ledger keeps turn indexes as 32-bit integers on PostgreSQL).
_TURN_BASE = 1 << 20
_turn_numbers = itertools.count(_TURN_BASE + secrets.randbelow(1 << 29))
_turn_lock = threading.Lock()


def _next_turn_index() -> int:
    global _turn_numbers
    with _turn_lock:
        index = next(_turn_numbers)
        if index >= 1 << 31:  # pragma: no cover - after ~1.5e9 calls in one process
            _turn_numbers = itertools.count(_TURN_BASE)
            index = next(_turn_numbers)
        return index


def call_context(context: CallContext) -> CallContext:
    """The context of one top-level call: a fresh turn of the same session when the caller named
    none (a :class:`PerCallTurn`), else ``context`` as it is (an explicit turn)."""
    turn = context.turn
    if not isinstance(turn, PerCallTurn):
        return context
    fresh = Turn(session_id=turn.session_id, turn_index=_next_turn_index(), trace_id=turn.trace_id)
    return context.replace(turn=fresh)


# -- the caller: checked when a shell is built, and on every call ------------------------------------


def require_identity(kernel: Kernel, identity: object, *, action: str = "bind") -> Identity:
    """``identity`` if this kernel would act for it now; else the kernel's own refusal, audited
    (a deny event with action ``action``): :class:`~memguard.errors.IdentityError` with code
    ``identity.missing`` (``None`` or anything that is not a verified :class:`Identity`, such as a
    token string), ``identity.unverified`` (verified by another guard's verifier),
    ``identity.expired`` or ``identity.revoked``. Every adapter calls it when it is built, so a
    wrong ``identity`` argument is the same error whichever adapter it was given to.

    A good identity costs no ledger write (nothing was read or written); every call re-checks it
    in its own operation, so an identity that expires or is revoked later is refused then."""
    if isinstance(identity, Identity) and _acceptable(kernel, identity):
        return identity
    with kernel.operation(action, identity if isinstance(identity, Identity) else None):
        pass  # the kernel's identity check raises the typed error and records the deny
    if isinstance(identity, Identity):  # the state changed in between: the kernel accepted it
        return identity
    raise IdentityError("a verified identity is required", code="identity.missing")  # unreachable


def _acceptable(kernel: Kernel, identity: Identity) -> bool:
    """The kernel's identity checks without an operation: not expired, minted by this kernel's
    verifier, not barred by an active revocation. Any error here is a "no", so the kernel's own
    check (in an audited operation) decides and records the outcome."""
    try:
        if identity.expires_at <= kernel.clock() or not kernel.verifier.minted(identity):
            return False
        return kernel.barring(identity.principal) is None
    except Exception:
        return False


def same_caller(a: Identity, b: Identity) -> bool:
    """Are two verified identities the same caller: the same object, or equal principals (the
    same subject, delegation chain, token, scopes)?"""
    return a is b or a.principal == b.principal


def check_binding(kernel: Kernel, identity: Identity, action: str) -> None:
    """The per-call check of a shell built for ``identity``: a call made inside a
    :func:`memguard.context.acting_as` block for another caller is refused with
    :class:`~memguard.errors.IdentityError` ``identity.conflict`` and a deny event (the shell
    never silently acts for one caller while the code around it says another)."""
    binding = current_binding()
    if binding is None or same_caller(binding.identity, identity):
        return
    conflict(kernel, identity, binding.identity, action)


def conflict(kernel: Kernel, identity: Identity, other: Identity, action: str) -> None:
    """Refuse (and audit) a call whose two named callers disagree: ``identity`` is the one the
    call would act for (the event's principal), ``other`` the one an
    :func:`~memguard.context.acting_as` block (or a LangGraph run) names (the event's
    ``detail.conflicting``)."""
    with kernel.operation(action, identity) as op:
        subject = other.principal.subject
        op.note(conflicting={"issuer": subject.issuer, "subject": subject.subject,
                             "actors": [a.subject for a in other.principal.actors]})  # fmt: skip
        raise IdentityError(
            "two callers are named for this call and they differ (an acting_as block or the "
            "run names another caller than the one this client acts for)",
            code="identity.conflict",
        )


# -- the compact provenance summary a result carries ----------------------------------------------

#: where a result carries its :class:`ProvenanceSummary`: a Qdrant payload's (or LangChain
#: metadata's, or a LlamaIndex node's) ``"memguard"`` key, a mem0 result's ``"memguard"`` key
SUMMARY_KEY: Final = "memguard"


class ProvenanceSummary(TypedDict):
    """What a result shows of its fact's provenance, the same in every adapter (JSON-ready).

    ``source``: ``kind:uri`` (or ``kind:name``, or the kind alone); ``writer``: the subject and
    its delegation chain, ``"alice -> spiffe://.../planner"``; ``expires_at``: only for a fact
    with a time-to-live (ISO 8601, UTC)."""

    fact_id: str
    version: int
    trust: str
    source: str
    writer: str
    expires_at: NotRequired[str]


def provenance_summary(prov: Provenance) -> ProvenanceSummary:
    """The :class:`ProvenanceSummary` of ``prov``."""
    src = prov.source
    where = src.uri or src.name
    chain = [prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)]
    summary = ProvenanceSummary(
        fact_id=prov.fact_id,
        version=prov.version,
        trust=prov.trust.label,
        source=f"{src.kind.value}:{where}" if where else src.kind.value,
        writer=" -> ".join(chain),
    )
    if prov.expires_at is not None:
        summary["expires_at"] = prov.expires_at.isoformat()
    return summary


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
        if type(exc).__name__ == "DisconnectionError" or getattr(
            exc, "connection_invalidated", False
        ):
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
