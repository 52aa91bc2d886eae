"""One call's binding: the kernel, the verified caller, its context and tenant, and what every
flow of the call shares (namespace mapping, the read operation, the residual scope, input rules).

A :class:`GuardedStore` builds one per call from its private state; nothing reachable from the
store leads to it (or to the kernel and the inner store)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    Op,
    PutOp,
    SearchOp,
    validate_op_namespace,
)

from memguard.context import CallContext, external_fact_id
from memguard.errors import IdentityError, InvalidRequest
from memguard.expiry import ttl_seconds_of_minutes
from memguard.identity import Identity
from memguard.kernel import Kernel, Operation
from memguard.pushdown.normal import NormalForm, fold
from memguard.scope import FieldValue, PlanKind, ScopePlan
from memguard.trust import TrustLevel

from .base import _MAX_WINDOW, namespace_name


@dataclass(frozen=True, slots=True)
class _CallBase:
    kernel: Kernel
    identity: Identity | None
    context: CallContext | None
    tenant: str
    owner: dict[str, FieldValue]
    min_trust: TrustLevel | None
    index_config: Any
    #: the store's ``TTLConfig`` (``None``: no time-to-live by default, no expiry push-down)
    ttl_config: Any = None

    @property
    def ctx(self) -> CallContext:
        context = self.context
        if context is None:  # only a store bound to a caller runs flows
            raise IdentityError("a verified identity is required", code="identity.missing")
        return context

    def fact_id(self, namespace: tuple[str, ...], key: str) -> str:
        return external_fact_id("langgraph", self.tenant, namespace_name(namespace), key)

    def _inner_ns(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        return (self.tenant, *namespace)

    def _outer_ns(self, namespace: tuple[str, ...]) -> tuple[str, ...] | None:
        if not namespace or namespace[0] != self.tenant:
            return None
        return tuple(namespace[1:])

    def _read_op(
        self, action: str, fact_ids: Sequence[str] = ()
    ) -> AbstractContextManager[Operation]:
        ctx = self.ctx
        return self.kernel.operation(
            action,
            self.identity,
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
        return fold(plan.condition, {**self.owner, "tags": None})

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
                ttl_seconds_of_minutes(op.ttl)  # a bad ttl is refused before anything runs
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
