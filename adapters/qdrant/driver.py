"""The drivers that run a planner flow on a ``QdrantClient`` (sync) or ``AsyncQdrantClient``
(the kernel's steps in a worker thread), the one error table at the seam, and the shells' base."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memguard.compat import require_version
from memguard.context import CallContext
from memguard.errors import (
    InvalidRequest,
    MemguardError,
)
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.provenance import Source, Turn
from memguard.trust import TrustLevel

from .._toolkit import backend_error, call_context, drive_async, require_identity
from .._toolkit import flow_step as _advance
from .base import _T, SUPPORTED_VERSIONS, Flow, GuardedAttributeError, _Call
from .payload import _PLACEMENTS
from .planner import _Planner


@dataclass(frozen=True, slots=True)
class _Bound:
    raw: Any
    #: the planner as built (its context may name no turn: a ``PerCallTurn``)
    base: _Planner

    @property
    def planner(self) -> _Planner:
        """The planner of one top-level call: a fresh turn if the caller named none
        (``adapters._toolkit.call_context``), else the planner as built."""
        context = call_context(self.base.context)
        return self.base if context is self.base.context else replace(self.base, context=context)


# The raw client is kept here, not on the shell: nothing reachable from a guarded object leads to it.
_STATE: weakref.WeakKeyDictionary[object, _Bound] = weakref.WeakKeyDictionary()


def _backend_error(call: _Call, exc: Exception) -> MemguardError:
    return backend_error("qdrant", call.method, exc)


def _run(raw: Any, flow: Flow[_T]) -> _T:
    done, value = _advance(flow, None, None)
    while not done:
        call: _Call = value
        try:
            result = getattr(raw, call.method)(**call.kwargs)
        except Exception as exc:
            done, value = _advance(flow, None, _backend_error(call, exc))
        else:
            done, value = _advance(flow, result, None)
    out: _T = value
    return out


async def _run_async(raw: Any, flow: Flow[_T]) -> _T:
    # the kernel's steps (ledger I/O) run in a worker thread, the Qdrant calls on the event loop
    async def perform(call: _Call) -> Any:
        return await getattr(raw, call.method)(**call.kwargs)

    return await drive_async(flow, perform, _backend_error)


def _refuse_kwargs(kwargs: Mapping[str, Any]) -> None:
    for key in kwargs:
        raise InvalidRequest(f"unexpected argument `{key}`")


def _no_extra(kwargs: Mapping[str, Any], build: Callable[[], _T]) -> _T:
    _refuse_kwargs(kwargs)
    return build()


def _checked(planner: _Planner, action: str, check: Callable[[], _T]) -> _T:
    """A composite call's shape check; a refusal is recorded as a deny like any other."""
    try:
        return check()
    except MemguardError as exc:
        with planner._write(action):
            raise exc from None


class _Shell:
    """Attribute refusal shared by both shells: only the class's own methods exist."""

    __slots__ = ("__weakref__",)

    def __getattr__(self, name: str) -> Any:
        raise GuardedAttributeError(f"`{name}` is not available on a guarded qdrant client")

    def __setattr__(self, name: str, value: object) -> None:
        raise GuardedAttributeError(f"`{name}` cannot be set on a guarded qdrant client")

    def __delattr__(self, name: str) -> None:
        raise GuardedAttributeError(f"`{name}` cannot be deleted on a guarded qdrant client")

    def __reduce_ex__(self, protocol: object) -> Any:
        raise GuardedAttributeError("a guarded qdrant client cannot be copied or pickled")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} context={_STATE[self].base.context!r}>"

    @property
    def context(self) -> CallContext:
        """The channel, turn and purpose this client stamps and records."""
        return _STATE[self].base.context

    def _init(
        self,
        client: object,
        client_type: type,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        provenance_summary: bool,
        summary_in: str = "payload",
    ) -> None:
        require_version("qdrant-client", *SUPPORTED_VERSIONS)
        if summary_in not in _PLACEMENTS:
            raise InvalidRequest("`summary_in` must be `payload`, `metadata` or `node`")
        if not isinstance(client, client_type):
            raise InvalidRequest(f"`client` must be a {client_type.__name__}")
        if not isinstance(kernel, Kernel):
            raise InvalidRequest("`kernel` must be a memguard Kernel")
        identity = require_identity(kernel, identity)  # the same refusal in every adapter
        if not isinstance(context, CallContext):
            raise InvalidRequest("`context` must be a CallContext")
        local = type(getattr(client, "_client", None)).__name__ in (
            "QdrantLocal",
            "AsyncQdrantLocal",
        )
        planner = _Planner(kernel, identity, context, local, bool(provenance_summary), summary_in)
        _STATE[self] = _Bound(client, planner)

    def _derive(self, context: CallContext) -> Any:
        bound = _STATE[self]
        clone = object.__new__(type(self))
        planner = bound.base
        _STATE[clone] = _Bound(
            bound.raw,
            _Planner(
                planner.kernel,
                planner.identity,
                context,
                planner.local,
                planner.summary,
                planner.summary_in,
            ),
        )
        return clone

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] | None = None,
    ) -> Any:
        """The same guarded client for another turn, source, purpose or lineage."""
        return self._derive(
            self.context.replace(
                source=source,
                turn=turn,
                purpose=purpose,
                trust=trust,
                derived_from=tuple(derived_from) if derived_from is not None else None,
            )
        )
