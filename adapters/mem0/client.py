"""The shells: :class:`GuardedMemory` and :class:`GuardedAsyncMemory`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import date
from typing import Any, NoReturn, TypeVar

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

from mem0 import AsyncMemory, Memory  # type: ignore[import-untyped]

from memguard.context import CallContext
from memguard.errors import (
    ConfigurationError,
)
from memguard.identity import Identity
from memguard.kernel import Kernel
from memguard.provenance import (
    Source,
    Turn,
)
from memguard.trust import TrustLevel

from .._toolkit import check_binding
from .base import _NO_ALIASES, _UNSET, ScopeAliases, check_mem0_version
from .core import _Core
from .driver import _adrive, _check_backend, _drive


class _Shell:
    """What both shells share: construction, context, identity-derived keys, and no pass-through.

    The mem0 object and the core live in name-mangled slots; nothing public returns them.
    """

    __slots__ = ("__core", "__memory")

    _expects: type = object

    def __init__(
        self,
        memory: Any,
        *,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        namespace: str = "mem0",
        aliases: ScopeAliases | None = None,
        allow_telemetry: bool = False,
    ) -> None:
        check_mem0_version()
        if not isinstance(memory, self._expects):
            raise ConfigurationError(f"`memory` must be a mem0 `{self._expects.__name__}`")
        _check_backend(memory, allow_telemetry)
        self.__memory = memory
        self.__core = _Core(kernel, identity, context, namespace, aliases or _NO_ALIASES)

    @classmethod
    def _bound(cls: type[_S], memory: Any, core: _Core) -> _S:
        self = object.__new__(cls)
        self.__memory = memory
        self.__core = core
        return self

    def with_context(
        self: _S,
        context: CallContext | None = None,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: tuple[str, ...] | None = None,
    ) -> _S:
        """The same guarded memory for another turn, source or purpose."""
        core = self.__core
        base = context if context is not None else core.context
        if not isinstance(base, CallContext):
            raise ConfigurationError("`context` must be a CallContext")
        new = base.replace(
            source=source, turn=turn, purpose=purpose, trust=trust, derived_from=derived_from
        )
        return type(self)._bound(self.__memory, core.replace(new))

    @property
    def identity(self) -> Identity:
        return self.__core.identity

    @property
    def context(self) -> CallContext:
        return self.__core.context

    @property
    def namespace(self) -> str:
        return self.__core.namespace

    @property
    def user_id(self) -> str:
        """The mem0 ``user_id`` this identity's memories carry."""
        return self.__core.user_id

    @property
    def agent_id(self) -> str | None:
        """The mem0 ``agent_id`` of the current actor's workload (``None`` for the user directly)."""
        return self.__core.agent_id

    @property
    def run_id(self) -> str:
        """The mem0 ``run_id`` of the context's session."""
        return self.__core.run_id

    def __getattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"`{name}` is not available through the memguard mem0 adapter")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(identity={self.identity!r}, namespace={self.namespace!r})"


_S = TypeVar("_S", bound=_Shell)


def _unwrap(shell: _Shell, action: str) -> tuple[Any, _Core]:
    """The mem0 object and the core of one top-level call (a fresh turn of the session when the
    shell was built with ``per_call_turn``: ``adapters._toolkit.call_context``). A call inside an
    ``acting_as`` block for another caller is refused first (``identity.conflict``, audited as
    ``action``)."""
    # a module function, not a method: the inner objects are not reachable through the shell
    core: _Core = shell._Shell__core
    check_binding(core.kernel, core.identity, action)
    return shell._Shell__memory, core.for_call()


def _options(
    threshold: float, rerank: bool, explain: bool, reference_date: object, show_expired: bool
) -> dict[str, Any]:
    return {
        "threshold": threshold,
        "rerank": rerank,
        "explain": explain,
        "reference_date": reference_date,
        "show_expired": show_expired,
    }


class GuardedMemory(_Shell):
    """A mem0 ``Memory`` behind memguard: every call is one audited kernel operation."""

    __slots__ = ()
    _expects = Memory

    def add(
        self,
        messages: str | Mapping[str, Any] | list[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: object = None,
        expiration_date: str | date | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """mem0's ``add``: messages verbatim with ``infer=False``; with ``infer=True`` mem0's LLM
        extracts memories from them, stamped as derived (see :meth:`_Core._infer`)."""
        memory, core = _unwrap(self, "write")
        flow = core.add(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            memory_type=memory_type,
            prompt=prompt,
            instructions=getattr(memory, "custom_instructions", None),
        )
        return _drive(memory, flow)

    def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: Mapping[str, Any] | None = None,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        reference_date: object = None,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """mem0's search within the caller's scope; every hit verified against the ledger."""
        memory, core = _unwrap(self, "search")
        options = _options(threshold, rerank, explain, reference_date, show_expired)
        flow = core.search(query, top_k=top_k, filters=filters, options=options, extra=kwargs)
        return _drive(memory, flow)

    def get(self, memory_id: str) -> dict[str, Any] | None:
        """One memory by id; ``None`` if it does not exist or is outside the caller's scope."""
        memory, core = _unwrap(self, "get")
        return _drive(memory, core.get(memory_id))

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The caller's memories (the ``search`` scope), each verified."""
        memory, core = _unwrap(self, "list")
        flow = core.get_all(filters=filters, top_k=top_k, show_expired=show_expired, extra=kwargs)
        return _drive(memory, flow)

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> dict[str, Any]:
        """A new version of one of the caller's memories, with provenance from this context."""
        memory, core = _unwrap(self, "update")
        return _drive(memory, core.update(memory_id, text, metadata, expiration_date, data))

    def delete(self, memory_id: str) -> dict[str, Any]:
        """Delete one of the caller's memories and redact its text from mem0's history."""
        memory, core = _unwrap(self, "delete")
        return _drive(memory, core.delete(memory_id))

    def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        """Delete every memory of the caller the ``delete`` scope admits (narrowed by the ids given)."""
        memory, core = _unwrap(self, "delete")
        return _drive(memory, core.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """mem0's change log of one of the caller's memories (``[]`` if not visible)."""
        memory, core = _unwrap(self, "history")
        return _drive(memory, core.history(memory_id))

    def memory_id_of(self, fact_id: str) -> str:
        """The mem0 memory id of a fact id (the inverse of :func:`memory_fact_id`), in scope."""
        memory, core = _unwrap(self, "get")
        return _drive(memory, core.memory_id_of(fact_id))


class GuardedAsyncMemory(_Shell):
    """The async twin of :class:`GuardedMemory`, over a mem0 ``AsyncMemory``; same checks."""

    __slots__ = ()
    _expects = AsyncMemory

    async def add(
        self,
        messages: str | Mapping[str, Any] | list[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: object = None,
        expiration_date: str | date | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
        llm: object = None,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self, "write")
        flow = core.add(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            memory_type=memory_type,
            prompt=prompt,
            llm=llm,
            instructions=getattr(memory, "custom_instructions", None),
        )
        return await _adrive(memory, flow)

    async def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: Mapping[str, Any] | None = None,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        reference_date: object = None,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self, "search")
        options = _options(threshold, rerank, explain, reference_date, show_expired)
        flow = core.search(query, top_k=top_k, filters=filters, options=options, extra=kwargs)
        return await _adrive(memory, flow)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        memory, core = _unwrap(self, "get")
        return await _adrive(memory, core.get(memory_id))

    async def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self, "list")
        flow = core.get_all(filters=filters, top_k=top_k, show_expired=show_expired, extra=kwargs)
        return await _adrive(memory, flow)

    async def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> dict[str, Any]:
        memory, core = _unwrap(self, "update")
        return await _adrive(memory, core.update(memory_id, text, metadata, expiration_date, data))

    async def delete(self, memory_id: str) -> dict[str, Any]:
        memory, core = _unwrap(self, "delete")
        return await _adrive(memory, core.delete(memory_id))

    async def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        memory, core = _unwrap(self, "delete")
        flow = core.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id)
        return await _adrive(memory, flow)

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        memory, core = _unwrap(self, "history")
        return await _adrive(memory, core.history(memory_id))

    async def memory_id_of(self, fact_id: str) -> str:
        memory, core = _unwrap(self, "get")
        return await _adrive(memory, core.memory_id_of(fact_id))
