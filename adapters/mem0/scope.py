"""The core without I/O, first part: scope keys, filters, candidates, the shared read steps."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")


from typing import Self

from memguard.context import CallContext
from memguard.errors import (
    AccessDenied,
    ConfigurationError,
    FactNotFound,
    InvalidRequest,
    ReservedField,
    StoreError,
)
from memguard.identity import Identity
from memguard.integrity import Candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.provenance import (
    Provenance,
)
from memguard.pushdown.mem0 import scoped_filters
from memguard.pushdown.normal import NormalForm, fold
from memguard.scope import PlanKind, ReadRequest, ScopePlan
from memguard.trust import TrustLevel

from .._toolkit import call_context, require_identity
from .base import (
    _FILL_ROUNDS,
    _LOGICAL,
    _MAX_TOP_K,
    _NO_ALIASES,
    _PENDING,
    _PROMOTED,
    _RESERVED,
    _SCOPE_KEYS,
    ScopeAliases,
    _Call,
    _clean,
    _digest,
    _Flow,
    _results,
    _scope_refusal,
    _split_metadata,
    _token,
    memory_fact_id,
    summarized,
    user_scope_id,
)


class _CoreBase:
    """Everything but I/O to mem0: each public operation is a generator yielding :class:`_Call`. The scope keys, filters and
    shared read steps; the operations are in ``writes`` and ``reads``."""

    __slots__ = (
        "accepted",
        "agent_id",
        "aliases",
        "cap",
        "context",
        "identity",
        "kernel",
        "namespace",
        "run_id",
        "user_id",
    )

    def __init__(
        self,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        namespace: str,
        aliases: ScopeAliases = _NO_ALIASES,
        cap: TrustLevel | None = None,
    ) -> None:
        if not isinstance(kernel, Kernel):
            raise ConfigurationError("`kernel` must be a memguard Kernel")
        identity = require_identity(kernel, identity)  # the same refusal in every adapter
        if not isinstance(context, CallContext):
            raise ConfigurationError("`context` must be a CallContext")
        if not isinstance(namespace, str) or not namespace:
            raise ConfigurationError("`namespace` must be a non-empty string")
        if not isinstance(aliases, ScopeAliases):
            raise ConfigurationError("`aliases` must be a ScopeAliases")
        principal = identity.principal
        subject = principal.subject
        self.kernel = kernel
        self.identity = identity
        self.context = context
        self.namespace = namespace
        self.aliases = aliases
        #: an upper bound on the trust of every write (mem0's LLM output: ``derived``)
        self.cap = cap
        self.user_id = user_scope_id(subject.issuer, subject.subject)
        workload = principal.workload_id
        self.agent_id = _token(workload, "mga_") if workload else None
        self.run_id = _token(context.turn.session_id, "mgr_")
        users = {self.user_id}
        if aliases.subject_is_user_id and _clean(subject.subject):
            users.add(subject.subject)
        users.update(k for k, v in aliases.users.items() if v == (subject.issuer, subject.subject))
        agents: set[str] = set()
        if workload and self.agent_id is not None:
            agents = {self.agent_id, workload}
            agents.update(k for k, v in aliases.agents.items() if v == workload)
        self.accepted: dict[str, frozenset[str]] = {
            "user_id": frozenset(users),
            "agent_id": frozenset(agents),
            "run_id": frozenset({self.run_id, context.turn.session_id}),
        }

    def replace(self, context: CallContext, cap: TrustLevel | None = None) -> Self:
        return type(self)(self.kernel, self.identity, context, self.namespace, self.aliases, cap)

    def for_call(self) -> Self:
        """The core of one top-level call: a fresh turn of the session when the context names
        none (``adapters._toolkit.per_call_turn``), else this core as it is (an explicit turn).
        The scope keys do not change (``run_id`` is the session's), so they are copied."""
        context = call_context(self.context)
        if context is self.context:
            return self
        fresh = object.__new__(type(self))
        for name in _CoreBase.__slots__:
            object.__setattr__(fresh, name, getattr(self, name))
        fresh.context = context
        return fresh

    # -- scope keys and filters ------------------------------------------------------------------

    def _expected(self, key: str) -> str | None:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}[key]

    def canonical(self, key: str, value: object, shown: dict[str, str] | None = None) -> str:
        """The stored scope key a caller's ``value`` names, or a refusal if it names anyone else."""
        if not isinstance(value, str) or value not in self.accepted[key]:
            raise _scope_refusal(key)
        expected = self._expected(key)
        assert expected is not None  # an accepted agent id implies a workload
        if shown is not None:
            shown[key] = value
        return expected

    def check_scope_args(
        self, shown: dict[str, str] | None = None, **given: object
    ) -> dict[str, str]:
        """Scope keys a caller passed: each must name the identity's own; returns them stored-shaped."""
        return {
            key: self.canonical(key, value, shown)
            for key, value in given.items()
            if value is not None
        }

    def _rewrite_filter_tree(
        self, node: Mapping[str, Any], shown: dict[str, str], depth: int = 0
    ) -> dict[str, Any]:
        """The caller's filter checked, with each scope key replaced by its stored value."""
        if depth > 16:
            raise InvalidRequest("filters are nested too deeply")
        out: dict[str, Any] = {}
        for key, value in node.items():
            if not isinstance(key, str):
                raise InvalidRequest("filter keys must be strings")
            if _RESERVED in key.lower():  # also quoted paths such as '"memguard".trust'
                raise ReservedField(f"filter key `{key}` is reserved for provenance")
            if key in _SCOPE_KEYS:
                out[key] = self.canonical(key, value, shown)
            elif key in _LOGICAL:
                if not isinstance(value, list):
                    raise InvalidRequest(f"`{key}` takes a list of filters")
                subs = []
                for sub in value:
                    if not isinstance(sub, Mapping):
                        raise InvalidRequest(f"`{key}` takes a list of filters")
                    subs.append(self._rewrite_filter_tree(sub, shown, depth + 1))
                out[key] = subs
            else:
                out[key] = value
        return out

    def _without_owner(self, cond: NormalForm) -> NormalForm:
        """``cond`` with the owner fields decided: ``user_id`` (always in the filter) is a digest of
        the owner, so on every memory the guard wrote it says the same, for no payload condition
        instead of three (local mode evaluates each in Python). A memory whose ``user_id`` and
        owner disagree was edited, and verification withholds it with an alarm."""
        subject = self.identity.principal.subject
        return fold(cond, {"owner_iss": subject.issuer, "owner_sub": subject.subject})

    def filters(
        self,
        plan: ScopePlan,
        caller: Mapping[str, Any] | None = None,
        *,
        extra: dict[str, Any] | None = None,
        narrow: Mapping[str, str] | None = None,
        shown: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """mem0 filters for a read under ``plan``, narrowed by the caller's checked ``filters``
        (its scope keys rewritten to the stored ones; ``shown`` collects what the caller used)."""
        condition: NormalForm | None = None
        if plan.kind is not PlanKind.ALLOW:
            if plan.condition is None:
                raise AccessDenied("read not permitted", code="access_denied.policy")
            condition = self._without_owner(plan.condition)
            if condition is True:
                condition = None
        nested = [extra] if extra else []
        keys = dict(narrow or {})
        if caller is not None:
            if not isinstance(caller, Mapping):
                raise InvalidRequest("`filters` must be a dict")
            caller = self._rewrite_filter_tree(caller, {} if shown is None else shown)
            keys.update({k: v for k, v in caller.items() if k in _SCOPE_KEYS and k != "user_id"})
            rest = {k: v for k, v in caller.items() if k not in _SCOPE_KEYS}
            if rest:
                nested.append(rest)
        return scoped_filters(self.user_id, condition, narrow=keys, nested=nested)

    # -- candidates and results --------------------------------------------------------------------

    def promoted(
        self, role: str, name: str | None, expiration: object, attributed_to: str | None = None
    ) -> dict[str, Any]:
        """The fields mem0 stores next to a new memory's text, as it returns them."""
        out: dict[str, Any] = {"user_id": self.user_id, "run_id": self.run_id, "role": role}
        if self.agent_id is not None:
            out["agent_id"] = self.agent_id
        if name is not None:
            out["actor_id"] = name
        if attributed_to is not None:
            out["attributed_to"] = attributed_to
        if expiration is not None:
            out["expiration_date"] = expiration
        return out

    @staticmethod
    def candidate(item: Mapping[str, Any]) -> Candidate | None:
        """A hit as mem0 returned it; ``None`` for a memory whose add has not finished."""
        memory_id = item.get("id")
        if not isinstance(memory_id, str) or not memory_id:
            raise StoreError("mem0 returned a memory without an id")
        caller, reserved = _split_metadata(item)
        if reserved == _PENDING:
            return None  # an add in flight (or one that crashed): never served, no ledger row yet
        text = item.get("memory")
        promoted = {k: item[k] for k in _PROMOTED if k in item}
        try:
            digest = _digest(text, caller, promoted) if isinstance(text, str) else None
        except (TypeError, ValueError):
            digest = None
        score = item.get("score")
        return Candidate(
            memory_fact_id(memory_id),
            digest,
            reserved if isinstance(reserved, Mapping) else None,
            float(score) if isinstance(score, int | float) else None,
            item,
        )

    def show(self, item: dict[str, Any], shown: Mapping[str, str] | None) -> dict[str, Any]:
        """``item`` with the scope keys the call site used in place of the stored ones."""
        for key, alias in (shown or {}).items():
            if item.get(key) == self._expected(key):
                item[key] = alias
        return item

    def present(self, fact: VerifiedFact, shown: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The result mem0 gave, minus the reserved block, plus a provenance summary."""
        item = dict(fact.candidate.payload or {})
        caller, _ = _split_metadata(item)
        item["metadata"] = caller or None
        return self.show(summarized(item, fact.provenance), shown)

    def _verified_page(
        self,
        op: Operation,
        plan: ScopePlan,
        request: ReadRequest,
        top_k: int,
        call: Callable[[int], _Call],
    ) -> _Flow[list[VerifiedFact]]:
        """Up to ``top_k`` verified hits of a pushed-down query. Withheld hits (tampered,
        quarantined, uncommitted) are replaced by asking mem0 for more, never by widening."""
        seen: dict[str, VerifiedFact | None] = {}
        out: list[VerifiedFact] = []
        limit = top_k
        for _ in range(_FILL_ROUNDS):
            items = _results((yield call(limit)))
            order: dict[str, None] = {}
            fresh: list[Candidate] = []
            for item in items:
                cand = self.candidate(item)
                if cand is None or cand.fact_id in order:
                    continue
                order[cand.fact_id] = None
                if cand.fact_id not in seen:
                    seen[cand.fact_id] = None
                    fresh.append(cand)
            for fact in op.verify(plan, request, fresh, pushed_down=True):
                seen[fact.fact_id] = fact
            out = [f for f in (seen[i] for i in order) if f is not None][:top_k]
            if len(out) >= top_k or len(items) < limit or limit >= _MAX_TOP_K:
                break
            limit = min(_MAX_TOP_K, limit + 2 * (top_k - len(out)))
        return out

    def _current(
        self, op: Operation, plan: ScopePlan, request: ReadRequest, memory_id: str
    ) -> _Flow[VerifiedFact]:
        """The verified current version of one memory, or :class:`FactNotFound`."""
        item = yield _Call("memory", "get", (memory_id,))
        cand = self.candidate(item) if isinstance(item, Mapping) else None
        if cand is None:
            op.note(why="no such memory")
            raise FactNotFound("fact not found")
        verified = op.verify(plan, request, [cand])
        if not verified:
            raise FactNotFound("fact not found")
        return verified[0]

    def _read(self, action: str) -> ReadRequest:
        # like MemoryGuard's reads without `namespaces`: the policy decides which namespaces show
        return ReadRequest(action, purpose=self.context.purpose)

    def _write_request(
        self, digest: str, fact_id: str | None = None, text: str | None = None
    ) -> StampRequest:
        ctx = self.context
        return StampRequest(
            namespace=self.namespace,
            source=ctx.source,
            turn=ctx.turn,
            content_digest=digest,
            trust=ctx.trust,
            derived_from=tuple(i for i in ctx.derived_from if i != fact_id),
            fact_id=fact_id,
            text=text,
        )

    def stamp(self, op: Operation, requests: Sequence[StampRequest]) -> list[Provenance]:
        """``op.stamp``, each level capped at :attr:`cap` when set: the first pass finds what the
        channel, the inputs and the turn allow, the second asks for the lower of that and the cap
        (the kernel lets a writer lower its trust, never raise it)."""
        first = op.stamp(requests)
        cap = self.cap
        if cap is None or all(p.trust <= cap for p in first):
            return first
        return op.stamp(
            [
                dataclasses.replace(r, trust=min(p.trust, cap))
                for r, p in zip(requests, first, strict=True)
            ]
        )

    @staticmethod
    def _merge_extra(
        filters: Mapping[str, Any] | None, extra: Mapping[str, Any]
    ) -> Mapping[str, Any] | None:
        """Scope keys given as arguments (mem0 1.x call sites) join ``filters``; nothing else may."""
        if not extra:
            return filters
        for key in extra:
            if key not in _SCOPE_KEYS:
                raise InvalidRequest(f"unexpected argument `{key}`")
        if filters is not None and not isinstance(filters, Mapping):
            raise InvalidRequest("`filters` must be a dict")
        merged = dict(filters or {})
        for key, value in extra.items():
            if key in merged and merged[key] != value:
                raise InvalidRequest(f"`{key}` is given twice with different values")
            merged[key] = value
        return merged
