"""A guarded LangGraph ``BaseStore`` (which also covers LangMem): every call goes through memguard.

    from langgraph.store.memory import InMemoryStore
    from memguard.adapters.langgraph import GuardedStore

    store = GuardedStore(InMemoryStore(index=...), kernel=kernel, identity=me, context=CallContext(
        source=Source(kind=SourceKind.USER_MESSAGE, name="chat"), turn=Turn(session_id="s-1", turn_index=0)))
    store.put(("memories", "prefs"), "theme", {"text": "likes dark mode"})
    store.search(("memories",), query="dark mode")      # only the caller's own, verified items
    store.provenance(("memories", "prefs"), "theme")    # who wrote it, from where, at what trust

Every convenience method of ``BaseStore`` (``get``, ``search``, ``put``, ``delete``,
``list_namespaces`` and their ``a``-twins) goes through :meth:`GuardedStore.batch` /
:meth:`GuardedStore.abatch`, which run each operation as one audited kernel operation.

Layout in the inner store (see ``docs/adapters/langgraph.md``):

- **Tenant partition.** Every namespace is stored under a first label derived from the verified
  identity's (issuer, subject) (:func:`tenant_segment`) and shown to the caller without it, so one
  user's ``("memories",)`` is physically apart from another's; reads and listings never leave it.
- **Reserved keys.** The value keeps the caller's keys at the top level (so the caller's own
  ``filter`` works unchanged) plus ``__memguard_*`` keys: the indexed fields of
  :func:`memguard.scope.index_fields` (integers as order-preserving fixed-width strings, so a
  text comparison such as PostgresStore's ``->>`` orders them as numbers), the version, the record
  digest and the full provenance record. They are stripped from every returned item.
- **Scope push-down.** A read plan's residual condition becomes part of the inner store's own
  ``filter`` (``$eq``/``$ne``/``$gte``/``$lt`` on the reserved keys), by
  :mod:`memguard.pushdown.langgraph`: one inner query per disjunct (LangGraph has no ``or``), merged
  exactly by score; what the filter language cannot express (a negation of a nullable field, two
  excluded values of one string field) raises :class:`~memguard.errors.UntranslatableCondition`:
  the read is refused, never post-filtered.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
from collections.abc import Generator, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Final, Literal, TypeVar

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from memguard.compat import require_version
from memguard.context import (
    Binding,
    CallContext,
    current_binding,
    external_fact_id,
    principal_label,
)
from memguard.errors import (
    FactNotFound,
    IdentityError,
    InvalidRequest,
    ReservedField,
)
from memguard.identity import Identity
from memguard.integrity import Candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.ledger import FactState
from memguard.policy.capability import require as require_pushdown
from memguard.ports import FlowPort
from memguard.provenance import Provenance, Source, Turn, value_digest
from memguard.pushdown.langgraph import (
    RESERVED_PREFIX,
    Merge,
    decode,
    encode,
    to_langgraph_filters,
)
from memguard.pushdown.normal import NormalForm, conj, fold
from memguard.scope import FieldValue, Gte, PlanKind, ReadRequest, ScopePlan, fields_of
from memguard.stores.base import reserved_block
from memguard.trust import TrustLevel

from ._toolkit import backend_error, scan_text

__all__ = [
    "BINDING_KEY",
    "RESERVED_PREFIX",
    "SUPPORTED_BELOW",
    "SUPPORTED_MIN",
    "GuardedStore",
    "namespace_name",
    "tenant_segment",
]

#: The ``langgraph-checkpoint`` releases this adapter supports: ``>=SUPPORTED_MIN,<SUPPORTED_BELOW``.
SUPPORTED_MIN: Final = "4.3.2"
SUPPORTED_BELOW: Final = "5"
_DISTRIBUTION: Final = "langgraph-checkpoint"

#: where a run carries its caller: ``graph.invoke(..., context={"memguard": ...})`` (the runtime
#: context, a dict or an object with this attribute) or ``config={"configurable": {"memguard": ...}}``;
#: the value is a :class:`memguard.context.Binding` or an access token the store verifies
BINDING_KEY: Final = "memguard"
#: ``configurable`` key of the turn index a token-bound run stamps (its session is the thread id)
TURN_KEY: Final = "memguard_turn"

_DOC: Final = "doc"  # ``__memguard_doc``: a copy of the caller's value, embedded in place of ``$``
_DOC_KEY: Final = RESERVED_PREFIX + _DOC
_MAX_WINDOW: Final = 10_000  # offset + limit of one search
_FILL_ROUNDS: Final = 6
_LIST_PAGE: Final = 1000

_T = TypeVar("_T")
#: A sans-I/O operation: yields batches of inner-store ops, receives their results, returns a value.
Flow = Generator[list[Op], list[Result], _T]


@functools.lru_cache(maxsize=8)
def _require_supported(minimum: str, below: str) -> str:
    return require_version(_DISTRIBUTION, minimum, below)


def tenant_segment(issuer: str, subject: str) -> str:
    """The first namespace label of everything stored for the principal (issuer, subject)."""
    return principal_label(issuer, subject)


def namespace_name(namespace: Sequence[str]) -> str:
    """The memguard namespace of a LangGraph namespace: its labels joined with ``.``.

    Injective because LangGraph forbids ``.`` (and empty labels) inside a label; the result must
    also pass memguard's identifier rules (NFC, no control or invisible characters, 1-1024 chars).
    """
    return ".".join(namespace)


# -- values ------------------------------------------------------------------------------------------


def _is_reserved(key: str) -> bool:
    return key.lower().startswith(RESERVED_PREFIX)


def _reserved_items(prov: Provenance) -> dict[str, Any]:
    return {RESERVED_PREFIX + k: encode(k, v) for k, v in reserved_block(prov).items()}


def _json_copy(value: Any) -> Any:
    """A private copy of a JSON value (the caller cannot alias into the stored one, or back)."""
    return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))


def _split(value: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The caller's part of a stored value and the reserved block (decoded)."""
    caller: dict[str, Any] = {}
    reserved: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(key, str) and key.startswith(RESERVED_PREFIX):
            name = key[len(RESERVED_PREFIX) :]
            reserved[name] = decode(name, item)
        else:
            caller[key] = item
    return caller, reserved


def _listed(result: Result) -> list[Any]:
    """A list result of the inner store (``[]`` for anything else)."""
    return list(result) if isinstance(result, list) else []


def _candidate(fact_id: str, value: Any, score: float | None = None) -> Candidate:
    if not isinstance(value, Mapping):
        return Candidate(fact_id, None, {}, score, None)
    caller, reserved = _split(value)
    doc = reserved.pop(_DOC, caller)
    # an edited embedding copy changes what the item is found by: digest both, so it cannot match
    content = caller if doc == caller else {"value": caller, "embedded": doc}
    try:
        digest: str | None = value_digest(content)
    except (TypeError, ValueError):
        digest = None
    return Candidate(fact_id, digest, reserved, score, caller)


# -- the store ---------------------------------------------------------------------------------------


def _run_values() -> tuple[object, Mapping[str, Any]]:
    """The caller a LangGraph run carries (runtime context first, then ``configurable``) and the
    run's ``configurable``; ``(None, {})`` outside a run."""
    try:
        from langgraph.config import get_config

        config = get_config()
    except (ImportError, RuntimeError):
        return None, {}
    configurable = config.get("configurable") or {}
    if not isinstance(configurable, Mapping):
        return None, {}
    value: object = None
    runtime = configurable.get("__pregel_runtime")
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, Mapping):
        value = ctx.get(BINDING_KEY)
    elif ctx is not None:
        value = getattr(ctx, BINDING_KEY, None)
    if value is None:
        value = configurable.get(BINDING_KEY)
    return value, configurable


def _run_binding(kernel: Kernel, default: CallContext | None) -> Binding | None:
    """The caller of the current LangGraph run, if the run names one. A token is verified here,
    on every call, and stamps the store's default channel with the run's thread as its session."""
    value, configurable = _run_values()
    if value is None:
        return None
    if isinstance(value, Binding):
        return value
    if isinstance(value, str):
        if default is None:
            raise IdentityError(
                "a token in the run needs a store built with a default `context` (its channel)",
                code="identity.missing",
            )
        identity = kernel.authenticate(value)
        thread = configurable.get("thread_id")
        index = configurable.get(TURN_KEY, default.turn.turn_index)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise InvalidRequest(f"`{TURN_KEY}` must be a non-negative integer")
        session = str(thread) if thread is not None else default.turn.session_id
        turn = Turn(session_id=session, turn_index=index)
        return Binding(identity, default.replace(turn=turn))
    raise IdentityError(
        f"the run's `{BINDING_KEY}` must be a memguard Binding or an access token",
        code="identity.missing",
    )


def _step(flow: Flow[_T], send: Any, error: BaseException | None) -> tuple[bool, Any]:
    """One step of a flow: ``(False, next request)`` or ``(True, its result)`` (StopIteration
    cannot cross a worker thread's future)."""
    try:
        return False, (flow.throw(error) if error is not None else flow.send(send))
    except StopIteration as stop:
        return True, stop.value


def _action_of(ops: Sequence[Op]) -> str:
    first = ops[0] if ops else None
    if isinstance(first, PutOp):
        return "write"
    if isinstance(first, ListNamespacesOp):
        return "list"
    return "search" if isinstance(first, SearchOp) else "get"


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
        "__tenant",
    )

    supports_ttl: bool = False
    ttl_config = None

    def __init__(
        self,
        inner: BaseStore,
        *,
        kernel: Kernel,
        identity: Identity | None = None,
        context: CallContext | None = None,
    ) -> None:
        """``identity`` and ``context`` are the defaults; a call made inside
        :func:`memguard.context.acting_as`, or in a LangGraph run that carries a caller
        (:data:`BINDING_KEY`), acts for that caller instead. Without a default, every call must
        carry one (one compiled graph, many users)."""
        _require_supported(SUPPORTED_MIN, SUPPORTED_BELOW)
        if not isinstance(inner, BaseStore):
            raise InvalidRequest("`inner` must be a langgraph BaseStore")
        if not isinstance(kernel, Kernel):
            raise InvalidRequest("`kernel` must be a memguard Kernel")
        if identity is not None and not isinstance(identity, Identity):
            raise InvalidRequest("`identity` must be a verified Identity")
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
        the LangGraph run's caller, else the defaults; none of them: a refusal (audited)."""
        if self.__pinned:
            return self
        binding = current_binding()
        if binding is None:
            binding = _run_binding(self.__kernel, self.__context)
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
        caller (pinned: later bindings do not change it)."""
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
        min_trust: TrustLevel | None = None,
        purpose: str | None = None,
    ) -> list[SearchItem]:
        """``BaseStore.search``, plus ``min_trust`` (only items at that trust or above, pushed
        into the inner store's filter) and ``purpose`` (the read purpose the policy sees)."""
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
        min_trust: TrustLevel | None = None,
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

    def _searcher(self, min_trust: TrustLevel | None, purpose: str | None) -> GuardedStore:
        if min_trust is not None and not isinstance(min_trust, TrustLevel):
            raise InvalidRequest("`min_trust` must be a TrustLevel")
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
        return store._drive(store._provenance_flow(GetOp(tuple(namespace), str(key))))

    async def aprovenance(self, namespace: tuple[str, ...], key: str) -> Provenance:
        """Async twin of :meth:`provenance`."""
        store = await asyncio.to_thread(contextvars.copy_context().run, self._for_call, "get")
        return await store._adrive(store._provenance_flow(GetOp(tuple(namespace), str(key))))

    # -- BaseStore --------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` like the inner store would (reads first, then the puts, last one per key
        wins), each read and each group of writes as one audited operation."""
        ops = list(ops)
        store = self._for_call(_action_of(ops))
        return store._drive(store._batch_flow(ops))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        # resolving may verify a token (ledger I/O): in a worker thread, with this task's context
        resolve = contextvars.copy_context().run
        store = await asyncio.to_thread(resolve, self._for_call, _action_of(ops))
        return await store._adrive(store._batch_flow(ops))

    # -- drivers: the same flows over the inner store's sync or async batch ------------------------

    def _drive(self, flow: Flow[_T]) -> _T:
        inner = self.__inner
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

    async def _adrive(self, flow: Flow[_T]) -> _T:
        """The flow's own steps (policy, ledger I/O) run in a worker thread, so the event loop
        never waits on the ledger; the inner store's ``abatch`` is awaited on the loop."""
        inner = self.__inner
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

    # -- flows ------------------------------------------------------------------------------------

    def _inner_ns(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        return (self.__tenant, *namespace)

    def _outer_ns(self, namespace: tuple[str, ...]) -> tuple[str, ...] | None:
        if not namespace or namespace[0] != self.__tenant:
            return None
        return tuple(namespace[1:])

    def _read_op(
        self, action: str, fact_ids: Sequence[str] = ()
    ) -> AbstractContextManager[Operation]:
        ctx = self._ctx
        return self.__kernel.operation(
            action,
            self.__identity,
            purpose=ctx.purpose,
            trace_id=ctx.turn.trace_id,
            turn=ctx.turn,
            fact_ids=fact_ids,
        )

    def _residual(self, plan: ScopePlan) -> NormalForm:
        """The plan within the caller's tenant: the owner fields are fixed by the partition."""
        if plan.kind is PlanKind.ALLOW:
            return True
        if plan.condition is None:
            return False
        return fold(plan.condition, {**self.__owner, "tags": None})

    @staticmethod
    def _check_ops(ops: list[Op]) -> None:
        """LangGraph's own input rules, checked before anything runs (nothing is audited)."""
        for op in ops:
            if not isinstance(op, GetOp | SearchOp | PutOp | ListNamespacesOp):
                raise InvalidRequest(f"unknown operation type `{type(op).__name__}`")
            validate_op_namespace(op)
            if isinstance(op, GetOp | PutOp) and not isinstance(op.key, str):
                raise InvalidRequest("a key must be a string")
            if isinstance(op, PutOp):
                if not op.namespace:
                    raise InvalidNamespaceError("Namespace cannot be empty.")
                if op.ttl is not None:
                    raise NotImplementedError(
                        "ttl is not supported by GuardedStore: an expiry would delete facts "
                        "without a ledger tombstone or an audit event; set ttl=None"
                    )
            if isinstance(op, SearchOp):
                for number in (op.limit, op.offset):
                    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                        raise InvalidRequest("limit and offset must be non-negative integers")
                if op.limit + op.offset > _MAX_WINDOW:
                    raise InvalidRequest(f"offset + limit must be at most {_MAX_WINDOW}")
                if op.filter is not None and not isinstance(op.filter, dict):
                    raise InvalidRequest("a filter must be a dict")
            if isinstance(op, ListNamespacesOp):
                for number in (op.limit, op.offset):
                    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                        raise InvalidRequest("limit and offset must be non-negative integers")
                if op.max_depth is not None and (
                    not isinstance(op.max_depth, int) or op.max_depth < 0
                ):
                    raise InvalidRequest("max_depth must be a non-negative integer")

    def _batch_flow(self, ops: list[Op]) -> Flow[list[Result]]:
        self._check_ops(ops)
        results: list[Result] = [None] * len(ops)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                fact = yield from self._get_flow(op)
                results[i] = fact[1] if fact is not None else None
            elif isinstance(op, SearchOp):
                results[i] = yield from self._search_flow(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = yield from self._list_flow(op)
            else:
                puts[(tuple(op.namespace), op.key)] = op  # the last put of a key wins
        upserts = [p for p in puts.values() if p.value is not None]
        deletes = [p for p in puts.values() if p.value is None]
        if upserts:
            yield from self._write_flow(upserts)
        if deletes:
            yield from self._delete_flow(deletes)
        return results

    # -- reads ------------------------------------------------------------------------------------

    def _item(self, item: Item, value: Mapping[str, Any], score: float | None = None) -> SearchItem:
        return SearchItem(
            namespace=self._outer_ns(item.namespace) or (),
            key=item.key,
            value=_json_copy(dict(value)),
            created_at=item.created_at,
            updated_at=item.updated_at,
            score=score,
        )

    def _get_flow(self, op_: GetOp) -> Flow[tuple[VerifiedFact, Item] | None]:
        namespace = tuple(op_.namespace)
        fact_id = self.fact_id(namespace, op_.key)
        with self._read_op("get", [fact_id]) as op:
            request = ReadRequest("get", purpose=self._ctx.purpose)
            plan = op.read_plan(request)
            (found,) = yield [GetOp(self._inner_ns(namespace), op_.key, op_.refresh_ttl)]
            if not isinstance(found, Item):
                op.note(why="no such item")
                op.finish(returned=[])
                return None
            verified = op.verify(plan, request, [_candidate(fact_id, found.value)])
            op.finish(returned=[v.fact_id for v in verified])
            if not verified:
                return None
            plain = Item(
                value=_json_copy(dict(verified[0].candidate.payload or {})),
                key=found.key,
                namespace=namespace,
                created_at=found.created_at,
                updated_at=found.updated_at,
            )
            return verified[0], plain

    def _provenance_flow(self, op_: GetOp) -> Flow[Provenance]:
        self._check_ops([op_])
        fact = yield from self._get_flow(op_)
        if fact is None:
            raise FactNotFound("fact not found")
        return fact[0].provenance

    def _search_flow(self, op_: SearchOp) -> Flow[list[SearchItem]]:
        ctx = self._ctx
        with self._read_op("search") as op:
            caller_filter = dict(op_.filter or {})
            for key in caller_filter:
                if not isinstance(key, str) or _is_reserved(key):
                    raise ReservedField(f"filter key `{key}` is reserved for provenance")
            request = ReadRequest("search", purpose=ctx.purpose)
            plan = op.read_plan(request)
            # one inner filter per disjunct of the scope (LangGraph has no `or`), merged exactly
            residual = self._residual(plan)
            if self.__min_trust is not None:
                residual = conj([residual, Gte("trust", int(self.__min_trust))])
            filters = to_langgraph_filters(residual)
            if not filters:
                op.finish(returned=[], returned_count=0, why="scope admits nothing here")
                return []
            prefix = self._inner_ns(tuple(op_.namespace_prefix))
            # The caller's window [offset, offset+limit) counts visible items only, so read from
            # the start and verify; nothing withheld -> one inner call per filter, the same as the
            # raw store for one filter.
            want = op_.offset + op_.limit
            ranked = bool(op_.query) and bool(self.index_config)
            merge: Merge[SearchItem] = Merge(len(filters), ranked=ranked, page=want)
            kept: list[SearchItem] = []
            ids: list[str] = []
            rounds = 0
            while len(kept) < want and not merge.done:
                batch = merge.ready()
                if not batch:
                    pages = merge.wanted(want - len(kept))
                    rounds += 1
                    if not pages or (ranked and rounds > _FILL_ROUNDS):
                        break
                    results = yield [
                        SearchOp(prefix, {**caller_filter, **filters[i]} or None, limit, offset,
                                 op_.query, op_.refresh_ttl)
                        for i, offset, limit in pages
                    ]  # fmt: skip
                    for (i, _, limit), hits in zip(pages, results, strict=True):
                        found = [h for h in _listed(hits) if isinstance(h, SearchItem)]
                        merge.feed(i, found, limit)
                    continue
                by_id: dict[str, SearchItem] = {}
                candidates: list[Candidate] = []
                for hit in batch:
                    outer = self._outer_ns(hit.namespace)
                    if outer is None:  # the store answered outside the prefix it was given
                        op.alarm(
                            external_fact_id("langgraph", *hit.namespace, hit.key),
                            "scope.pushdown_mismatch",
                        )
                        continue
                    fid = self.fact_id(outer, hit.key)
                    by_id[fid] = hit
                    candidates.append(_candidate(fid, hit.value, hit.score))
                for fact in op.verify(plan, request, candidates, pushed_down=True):
                    if self.__min_trust is not None and fact.provenance.trust < self.__min_trust:
                        op.alarm(fact.fact_id, "scope.pushdown_mismatch")
                        continue
                    hit = by_id[fact.fact_id]
                    kept.append(self._item(hit, fact.candidate.payload or {}, hit.score))
                    ids.append(fact.fact_id)
            page = kept[op_.offset : want]
            returned = ids[op_.offset : want]
            op.finish(returned=returned, returned_count=len(page), limit=op_.limit)
            return page

    def _list_flow(self, op_: ListNamespacesOp) -> Flow[list[tuple[str, ...]]]:
        ctx = self._ctx
        with self._read_op("list") as op:
            request = ReadRequest("search", purpose=ctx.purpose)
            plan = op.read_plan(request)
            residual = self._residual(plan)
            if residual is False:
                op.finish(returned_count=0)
                return []
            conditions = list(op_.match_conditions or ())
            longest = max((len(c.path) for c in conditions if c.match_type == "suffix"), default=0)
            inner_conditions = (
                *(
                    MatchCondition(c.match_type, self._inner_ns(tuple(c.path)))
                    if c.match_type == "prefix"
                    else c
                    for c in conditions
                ),
                # the tenant label, and as many labels after it as the longest suffix needs, so a
                # suffix never matches into the tenant label itself
                MatchCondition("prefix", (self.__tenant, *(("*",) * longest))),
            )
            by_name = residual is not True and "namespace" in set(fields_of(residual))
            if not by_name:
                depth = None if op_.max_depth is None else op_.max_depth + 1
                (names,) = yield [ListNamespacesOp(inner_conditions, depth, op_.limit, op_.offset)]
                out = [n for n in map(self._outer_ns, _listed(names)) if n is not None]
                op.finish(returned_count=len(out))
                return out
            # The policy restricts namespaces: list every one of the tenant, keep those the plan
            # could admit a fact in, then truncate, sort and page here.
            assert not isinstance(residual, bool)
            visible: set[tuple[str, ...]] = set()
            offset = 0
            while True:
                (names,) = yield [ListNamespacesOp(inner_conditions, None, _LIST_PAGE, offset)]
                page = _listed(names)
                for name in page:
                    outer = self._outer_ns(name)
                    if outer is None:
                        continue
                    if fold(residual, {"namespace": namespace_name(outer)}) is False:
                        continue
                    visible.add(outer if op_.max_depth is None else outer[: op_.max_depth])
                if len(page) < _LIST_PAGE:
                    break
                offset += _LIST_PAGE
            out = sorted(visible)[op_.offset : op_.offset + op_.limit]
            op.finish(returned_count=len(out))
            return out

    # -- writes -----------------------------------------------------------------------------------

    def _index(self, index: Literal[False] | list[str] | None) -> tuple[Any, bool]:
        """The inner put's ``index`` and whether it embeds the value copy (in place of ``$``)."""
        config = self.index_config
        if isinstance(index, list):
            for path in index:
                if not isinstance(path, str) or RESERVED_PREFIX in path.lower():
                    raise ReservedField("index paths may not name reserved keys")
        if not config or index is False:
            return index, False
        paths = index if index is not None else list(config.get("fields") or ["$"])
        if not any(p in ("$", "") for p in paths):
            return index, False
        return [_DOC_KEY if p in ("$", "") else p for p in paths], True

    def _write_flow(self, puts: list[PutOp]) -> Flow[None]:
        ctx = self._ctx
        with self.__kernel.operation("write", self.__identity, trace_id=ctx.turn.trace_id) as op:
            prepared: list[tuple[PutOp, dict[str, Any], str]] = []
            requests: list[StampRequest] = []
            for put in puts:
                if not isinstance(put.value, Mapping):
                    raise InvalidRequest("a value must be a mapping")
                for key in put.value:
                    if not isinstance(key, str):
                        raise InvalidRequest("value keys must be strings")
                    if _is_reserved(key):
                        raise ReservedField(f"value key `{key}` is reserved for provenance")
                value: dict[str, Any] = _json_copy(dict(put.value))
                namespace = tuple(put.namespace)
                fact_id = self.fact_id(namespace, put.key)
                prepared.append((put, value, fact_id))
                requests.append(
                    StampRequest(
                        namespace=namespace_name(namespace),
                        source=ctx.source,
                        turn=ctx.turn,
                        content_digest=value_digest(value),
                        trust=ctx.trust,
                        derived_from=ctx.derived_from,
                        fact_id=fact_id,
                        text=scan_text(value),
                    )
                )
            records = op.stamp(requests)
            inner_ops: list[Op] = []
            for (put, value, _), prov in zip(prepared, records, strict=True):
                index, embed_copy = self._index(put.index)
                stored = {**value, **_reserved_items(prov)}
                if embed_copy:
                    stored[_DOC_KEY] = _json_copy(value)
                inner_ops.append(
                    PutOp(self._inner_ns(tuple(put.namespace)), put.key, stored, index)
                )
            inner_keys = {
                fact_id: (self._inner_ns(tuple(put.namespace)), put.key)
                for put, _, fact_id in prepared
            }

            def put_flow(_: Sequence[Provenance]) -> Flow[None]:
                yield inner_ops
                return None

            def probe(fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
                found = yield [GetOp(*inner_keys[f]) for f in fact_ids]
                return [
                    _candidate(f, item.value)
                    for f, item in zip(fact_ids, found, strict=True)
                    if isinstance(item, Item)
                ]

            yield from op.persist_flow(records, FlowPort(put_flow, probe))
        return None

    def _delete_flow(self, deletes: list[PutOp]) -> Flow[None]:
        """Tombstone what the caller may delete, then purge it. A key with no live fact is passed
        to the store (a no-op, or a stray object in the caller's own partition); a fact the delete
        scope does not admit (quarantined, out of scope, being written) is left as it is, audited,
        with no error: unknown and out-of-scope keys are indistinguishable."""
        kernel = self.__kernel
        ids = [self.fact_id(tuple(d.namespace), d.key) for d in deletes]
        with self._read_op("delete", ids) as op:
            request = ReadRequest("delete", purpose=self._ctx.purpose)
            plan = op.read_plan(request)
            records = kernel.ledger.latest(ids)
            doomed: list[str] = []
            forward: list[Op] = []
            kept: list[str] = []
            for put, fact_id in zip(deletes, ids, strict=True):
                record = records.get(fact_id)
                inner = PutOp(self._inner_ns(tuple(put.namespace)), put.key, None)
                if record is None or record.state is FactState.DELETED:
                    forward.append(inner)
                    continue
                if (
                    record.state is FactState.COMMITTED
                    and not record.quarantined
                    and op.admits(plan, request, record)
                ):
                    doomed.append(fact_id)
                    forward.append(inner)
                else:
                    kept.append(fact_id)
            if kept:
                op.note(withheld=kept)
            op.about(doomed)

            def purge() -> Flow[None]:
                if forward:
                    yield forward
                return None

            if doomed:
                yield from op.delete_flow(doomed, purge)
            else:
                yield from purge()
        return None
