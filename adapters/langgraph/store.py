"""The shell: :class:`GuardedStore`, a LangGraph ``BaseStore`` that resolves the caller of each
call and runs the call's flows (``flows``) through the driver (``driver``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Op,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from memguard.context import CallContext, current_binding, external_fact_id
from memguard.errors import IdentityError, InvalidRequest
from memguard.expiry import ttl_seconds_of_minutes
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.policy.capability import require as require_pushdown
from memguard.provenance import Provenance, Source, Turn
from memguard.scope import FieldValue
from memguard.trust import TrustLevel

from .._toolkit import call_context, check_binding, conflict, require_identity, same_caller
from .base import (
    SUPPORTED_BELOW,
    SUPPORTED_MIN,
    _action_of,
    _listed,
    _require_supported,
    namespace_name,
    tenant_segment,
)
from .binding import _run_binding, _run_values
from .driver import adrive, drive
from .flows import _Flows
from .sweep import sweep_flow


def _ttl_config(ttl: object) -> TTLConfig | None:
    if ttl is None:
        return None
    if not isinstance(ttl, dict) or set(ttl) - {
        "refresh_on_read",
        "default_ttl",
        "sweep_interval_minutes",
    }:
        raise InvalidRequest("`ttl` must be a langgraph TTLConfig")
    default = ttl.get("default_ttl")
    ttl_seconds_of_minutes(default)  # a bad default is refused now, not at the first put
    refresh = ttl.get("refresh_on_read", True)
    if not isinstance(refresh, bool):
        raise InvalidRequest("`refresh_on_read` must be a bool")
    interval = ttl.get("sweep_interval_minutes")
    if interval is not None and (
        isinstance(interval, bool) or not isinstance(interval, int | float) or interval <= 0
    ):
        raise InvalidRequest("`sweep_interval_minutes` must be a positive number")
    return TTLConfig(**ttl)  # type: ignore[typeddict-item]


class _Sweeper:
    """A daemon thread that calls ``sweep`` every ``interval`` seconds until stopped."""

    def __init__(self, sweep: Callable[[], int], interval: float) -> None:
        self.future: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._stop = threading.Event()
        self._sweep = sweep
        self._interval = interval
        self._thread = threading.Thread(target=self._run, name="memguard-ttl-sweeper", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.future.set_running_or_notify_cancel()
        while not self._stop.wait(self._interval):
            try:
                self._sweep()
            except Exception:  # the kernel recorded the deny; the next round tries again
                continue
        self.future.set_result(None)

    def stop(self, timeout: float | None) -> bool:
        self._stop.set()
        self._thread.join(timeout)
        return not self._thread.is_alive()


def _trust_floor(value: TrustLevel | str | None) -> TrustLevel | None:
    """``min_trust`` as a level: a :class:`TrustLevel` or a level's name; an unknown name is a
    :class:`ValueError` naming the levels."""
    if value is None or isinstance(value, TrustLevel):
        return value
    if isinstance(value, str):
        try:
            return TrustLevel.parse(value)
        except ValueError:
            names = ", ".join(level.label for level in sorted(TrustLevel, reverse=True))
            raise ValueError(f"unknown trust level `{value}`; one of: {names}") from None
    raise InvalidRequest("`min_trust` must be a TrustLevel or a trust level name")


class GuardedStore(BaseStore):
    """A LangGraph ``BaseStore`` whose every operation is stamped, scoped, verified and audited.

    Bound to a :class:`~memguard.kernel.Kernel`, a verified :class:`~memguard.identity.Identity`
    (the chain the agent acts for) and a :class:`~memguard.context.CallContext` (the channel and
    turn stamped on writes, the purpose of reads). The inner store is not reachable through it.
    """

    __slots__ = (
        "__context",
        "__identity",
        "__inner",
        "__kernel",
        "__min_trust",
        "__owner",
        "__pinned",
        "__sweeper",
        "__tenant",
        "ttl_config",
    )

    #: ``put(ttl=)`` (minutes), ``ttl_config`` and ``refresh_ttl`` work as LangGraph defines them;
    #: the expiry is part of the fact's provenance and enforced by the kernel (memguard.expiry)
    supports_ttl: bool = True

    def __init__(
        self,
        inner: BaseStore,
        *,
        kernel: Kernel,
        identity: Identity | None = None,
        context: CallContext | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        """``identity`` and ``context`` are the defaults; a call made inside
        :func:`memguard.context.acting_as`, or in a LangGraph run that carries a caller
        (:data:`BINDING_KEY`), acts for that caller instead. Without a default, every call must
        carry one (one compiled graph, many users). A default ``identity`` is checked now
        (``adapters._toolkit.require_identity``: the kernel's ``IdentityError``, audited).

        ``ttl``: LangGraph's ``TTLConfig`` (``default_ttl`` minutes for puts without a ``ttl``,
        ``refresh_on_read``, ``sweep_interval_minutes`` for :meth:`start_ttl_sweeper`). With one,
        searches also push "not expired" into the inner store's filter (items written before
        memguard recorded expiries carry no expiry key and are then not found by search)."""
        _require_supported(SUPPORTED_MIN, SUPPORTED_BELOW)
        if not isinstance(inner, BaseStore):
            raise InvalidRequest("`inner` must be a langgraph BaseStore")
        if not isinstance(kernel, Kernel):
            raise InvalidRequest("`kernel` must be a memguard Kernel")
        if identity is not None:  # a default caller: the same refusal as in every adapter
            identity = require_identity(kernel, identity)
        if context is not None and not isinstance(context, CallContext):
            raise InvalidRequest("`context` must be a CallContext")
        if identity is not None and context is None:
            raise InvalidRequest("a default `identity` needs a default `context`")
        # a policy set whose scopes LangGraph filters cannot express does not load (now or later)
        require_pushdown(kernel.scope, "langgraph")
        self.__inner = inner
        self.__kernel = kernel
        self.__pinned = False
        self.__min_trust: TrustLevel | None = None
        self.__sweeper: _Sweeper | None = None
        self.ttl_config = _ttl_config(ttl)
        self.__bind(identity, context)

    def __bind(self, identity: Identity | None, context: CallContext | None) -> None:
        self.__identity = identity
        self.__context = context
        if identity is None:
            self.__tenant = ""
            self.__owner: dict[str, FieldValue] = {}
            return
        subject = identity.principal.subject
        self.__tenant = tenant_segment(subject.issuer, subject.subject)
        self.__owner = {"owner_iss": subject.issuer, "owner_sub": subject.subject}

    def _for_call(self, action: str) -> GuardedStore:
        """This store bound to the caller of the current call: an :func:`acting_as` block, else
        the LangGraph run's caller, else the defaults; none of them: a refusal (audited).

        Two named callers that differ are refused (``identity.conflict``, audited): an
        :func:`acting_as` block and the run's caller, or either of them and the caller a pinned
        store (:meth:`with_context`) acts for."""
        kernel = self.__kernel
        binding = current_binding()
        if self.__pinned:
            if self.__identity is not None:
                check_binding(kernel, self.__identity, action)
                run = _run_binding(kernel, self.__context)
                if run is not None and not same_caller(run.identity, self.__identity):
                    conflict(kernel, self.__identity, run.identity, action)
            return self
        if binding is None:
            binding = _run_binding(kernel, self.__context)
        elif _run_values()[0] is not None:  # a block and the run both name a caller: must agree
            run = _run_binding(kernel, self.__context)
            if run is not None and not same_caller(run.identity, binding.identity):
                conflict(kernel, run.identity, binding.identity, action)
        if binding is None:
            if self.__identity is None:
                with self.__kernel.operation(action, None):
                    pass  # raises identity.missing and records the deny
            return self
        if binding.identity is self.__identity and binding.context is self.__context:
            return self
        return self.__pin(binding.identity, binding.context)

    def __pin(
        self, identity: Identity, context: CallContext, min_trust: TrustLevel | None = None
    ) -> GuardedStore:
        """A copy acting for exactly ``identity`` and ``context`` (no per-call resolution)."""
        clone: GuardedStore = object.__new__(type(self))
        clone.__inner = self.__inner
        clone.__kernel = self.__kernel
        clone.__pinned = True
        clone.__min_trust = min_trust
        clone.__sweeper = None
        clone.ttl_config = self.ttl_config
        clone.__bind(identity, context)
        return clone

    @property
    def _ctx(self) -> CallContext:
        context = self.__context
        if context is None:  # only a store bound to a caller runs flows
            raise IdentityError("a verified identity is required", code="identity.missing")
        return context

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"`{name}` is not available on a guarded store")

    def __repr__(self) -> str:
        return f"GuardedStore(tenant={self.__tenant or None!r})"

    # -- public extras ----------------------------------------------------------------------------

    @property
    def context(self) -> CallContext:
        """The context of a call made now (see :meth:`__init__`)."""
        context = self._for_call("get").__context
        assert context is not None  # a bound store always has one
        return context

    @property
    def index_config(self) -> Any:
        """The inner store's semantic-search configuration (``None`` without one)."""
        return getattr(self.__inner, "index_config", None)

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] | None = None,
    ) -> GuardedStore:
        """The same store for another turn, channel, purpose or lineage, acting for the current
        caller (pinned: later bindings do not change it; a call inside a block or a run for
        another caller is refused, ``identity.conflict``)."""
        bound = self._for_call("get")
        assert bound.__identity is not None
        context = bound._ctx.replace(
            source=source,
            turn=turn,
            purpose=purpose,
            trust=trust,
            derived_from=tuple(derived_from) if derived_from is not None else None,
        )
        return bound.__pin(bound.__identity, context, bound.__min_trust)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        min_trust: TrustLevel | str | None = None,
        purpose: str | None = None,
    ) -> list[SearchItem]:
        """``BaseStore.search``, plus ``min_trust`` (only items at that trust or above, pushed
        into the inner store's filter; a :class:`TrustLevel` or its name, ``"user"``,
        ``"derived"``, ...) and ``purpose`` (the read purpose the policy sees)."""
        if min_trust is None and purpose is None:
            return super().search(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )
        validate_op_namespace(SearchOp(tuple(namespace_prefix)))
        store = self._searcher(min_trust, purpose)
        op = SearchOp(tuple(namespace_prefix), filter, limit, offset, query, bool(refresh_ttl))
        (result,) = store.batch([op])  # through `batch`, like every BaseStore method
        return [r for r in _listed(result) if isinstance(r, SearchItem)]

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        min_trust: TrustLevel | str | None = None,
        purpose: str | None = None,
    ) -> list[SearchItem]:
        """Async twin of :meth:`search`."""
        if min_trust is None and purpose is None:
            return await super().asearch(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )
        validate_op_namespace(SearchOp(tuple(namespace_prefix)))
        resolve = contextvars.copy_context().run
        store = await asyncio.to_thread(resolve, self._searcher, min_trust, purpose)
        op = SearchOp(tuple(namespace_prefix), filter, limit, offset, query, bool(refresh_ttl))
        (result,) = await store.abatch([op])
        return [r for r in _listed(result) if isinstance(r, SearchItem)]

    def _searcher(self, min_trust: TrustLevel | str | None, purpose: str | None) -> GuardedStore:
        min_trust = _trust_floor(min_trust)
        if purpose is not None and (not isinstance(purpose, str) or not purpose):
            raise InvalidRequest("`purpose` must be a non-empty string")
        if min_trust is None and purpose is None:
            return self  # resolved in `batch`, per call
        store = self._for_call("search")
        assert store.__identity is not None
        context = store._ctx.replace(purpose=purpose) if purpose is not None else store._ctx
        floor = min_trust if min_trust is not None else store.__min_trust
        return store.__pin(store.__identity, context, floor)

    def fact_id(self, namespace: tuple[str, ...], key: str) -> str:
        """The memguard fact id of ``key`` in the caller's ``namespace`` (for audit and revoke)."""
        tenant = self.__tenant if self.__identity is not None else self._for_call("get").__tenant
        return external_fact_id("langgraph", tenant, namespace_name(namespace), key)

    def provenance(self, namespace: tuple[str, ...], key: str) -> Provenance:
        """The provenance of a visible item; :class:`FactNotFound` otherwise. A ``get`` read."""
        store = self._for_call("get")
        return drive(
            store.__inner, store.__flows()._provenance_flow(GetOp(tuple(namespace), str(key)))
        )

    async def aprovenance(self, namespace: tuple[str, ...], key: str) -> Provenance:
        """Async twin of :meth:`provenance`."""
        store = await asyncio.to_thread(contextvars.copy_context().run, self._for_call, "get")
        return await adrive(
            store.__inner, store.__flows()._provenance_flow(GetOp(tuple(namespace), str(key)))
        )

    # -- BaseStore --------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` like the inner store would (reads first, then the puts, last one per key
        wins), each read and each group of writes as one audited operation."""
        ops = list(ops)
        store = self._for_call(_action_of(ops))
        return drive(store.__inner, store.__flows()._batch_flow(ops))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        # resolving may verify a token (ledger I/O): in a worker thread, with this task's context
        resolve = contextvars.copy_context().run
        store = await asyncio.to_thread(resolve, self._for_call, _action_of(ops))
        return await adrive(store.__inner, store.__flows()._batch_flow(ops))

    def __flows(self) -> _Flows:
        """The flows of a call made by this (bound) store."""
        context = self.__context
        return _Flows(
            kernel=self.__kernel,
            identity=self.__identity,
            # one turn per top-level call when the caller named none (adapters._toolkit)
            context=call_context(context) if context is not None else None,
            tenant=self.__tenant,
            owner=self.__owner,
            min_trust=self.__min_trust,
            index_config=self.index_config,
            ttl_config=self.ttl_config,
        )

    # -- TTL sweep --------------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Delete every expired item (all tenants: the operator's sweep) through the kernel's
        delete path, each with a tombstone and an ``expire`` audit event; returns how many."""
        return drive(self.__inner, sweep_flow(self.__kernel))

    async def asweep_ttl(self) -> int:
        """Async twin of :meth:`sweep_ttl`."""
        return await adrive(self.__inner, sweep_flow(self.__kernel))

    def start_ttl_sweeper(
        self, sweep_interval_minutes: int | None = None
    ) -> concurrent.futures.Future[None]:
        """Run :meth:`sweep_ttl` every ``sweep_interval_minutes`` (default: the ``ttl_config``'s,
        else 5) in a daemon thread until :meth:`stop_ttl_sweeper`. A failed sweep is audited by
        the kernel (a deny event) and retried at the next interval."""
        if self.__sweeper is not None and not self.__sweeper.future.done():
            return self.__sweeper.future
        config = self.ttl_config or {}
        minutes = sweep_interval_minutes or config.get("sweep_interval_minutes") or 5
        self.__sweeper = _Sweeper(self.sweep_ttl, float(minutes) * 60)
        return self.__sweeper.future

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; ``True`` once it has stopped (or none was running)."""
        sweeper = self.__sweeper
        if sweeper is None:
            return True
        stopped = sweeper.stop(timeout)
        if stopped:
            self.__sweeper = None
        return stopped
