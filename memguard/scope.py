"""Read scopes: a small condition language, tri-state plans, and the seam a policy engine plugs into.

A :class:`ScopeResolver` turns (principal, request) into a :class:`ScopePlan`: always-deny, always-allow,
or a residual :data:`Condition` over a fact's indexed fields. Stores translate the residual into their
own query (a Qdrant ``Filter``); a store that cannot translate a condition must refuse the query. The
same plan evaluates a single fact (:meth:`ScopePlan.allows`), which re-checks every hit.

Semantics that translators must keep (DESIGN.md, push-down pitfalls):

- an atom on a missing (absent, null or empty-list) field is false;
- a list-valued field matches an atom if any element matches;
- ``Not(c)`` is true only if every field ``c`` mentions is present and ``c`` is false, so a translator
  adds an existence guard for each of those fields next to its negation.
"""

from __future__ import annotations

import enum
import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from memguard.identity import Principal
from memguard.provenance import Provenance, canonical_json, sha256_digest
from memguard.trust import TrustLevel

__all__ = [
    "FIELDS",
    "LIST_FIELDS",
    "And",
    "Condition",
    "DefaultScopeResolver",
    "Eq",
    "Gte",
    "In",
    "Not",
    "Or",
    "PlanKind",
    "PointDecider",
    "ReadRequest",
    "ScopePlan",
    "ScopeResolver",
    "WriteDecision",
    "evaluate",
    "index_fields",
]

Scalar = str | int
FieldValue = Scalar | list[Scalar] | None

#: Indexed fact fields a condition may name, and their value types.
FIELDS: Mapping[str, type] = {
    "fact_id": str,
    "namespace": str,
    "owner_iss": str,
    "owner_sub": str,
    "trust": int,
    "source_kind": str,
    "writer_sub": str,
    "workload_id": str,
    "created_at": int,
    "derived_from_count": int,
    "tags": str,
}

#: Fields that hold a list of values (any element matching an atom makes it match). Stores that cannot
#: keep a list in a column (SQL) keep these in a side table.
LIST_FIELDS: frozenset[str] = frozenset({"tags"})


@dataclass(frozen=True, slots=True)
class Eq:
    field: str
    value: Scalar


@dataclass(frozen=True, slots=True)
class In:
    field: str
    values: tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class Gte:
    field: str
    value: int


@dataclass(frozen=True, slots=True)
class And:
    items: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Or:
    items: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Not:
    item: Condition


Condition = Eq | In | Gte | And | Or | Not


def fields_of(cond: Condition) -> Iterator[str]:
    """Every field name a condition mentions."""
    match cond:
        case Eq(f, _) | In(f, _) | Gte(f, _):
            yield f
        case And(items) | Or(items):
            for item in items:
                yield from fields_of(item)
        case Not(item):
            yield from fields_of(item)


def _present(value: FieldValue) -> bool:
    return value is not None and value != []


def _values(value: FieldValue) -> list[Scalar]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def evaluate(cond: Condition, fields: Mapping[str, FieldValue]) -> bool:
    """Decide one fact; the reference semantics every store translation must equal."""
    match cond:
        case Eq(f, v):
            return any(type(x) is type(v) and x == v for x in _values(fields.get(f)))
        case In(f, vs):
            return any(type(x) is type(v) and x == v for x in _values(fields.get(f)) for v in vs)
        case Gte(f, v):
            return any(type(x) is int and x >= v for x in _values(fields.get(f)))
        case And(items):
            return all(evaluate(i, fields) for i in items)
        case Or(items):
            return any(evaluate(i, fields) for i in items)
        case Not(item):
            guarded = all(_present(fields.get(f)) for f in fields_of(item))
            return guarded and not evaluate(item, fields)
    raise TypeError(f"unknown condition `{cond!r}`")


def index_fields(prov: Provenance) -> dict[str, FieldValue]:
    """The indexed fields of a fact, as stores keep them next to the vector."""
    return {
        "fact_id": prov.fact_id,
        "namespace": prov.namespace,
        "owner_iss": prov.owner.issuer,
        "owner_sub": prov.owner.subject,
        "trust": int(prov.trust),
        "source_kind": prov.source.kind.value,
        "writer_sub": prov.writer.actors[-1].subject
        if prov.writer.actors
        else prov.writer.subject.subject,
        "workload_id": prov.writer.workload_id,
        "created_at": int(prov.created_at.timestamp()),
        "derived_from_count": len(prov.derived_from),
        # `tags` is an indexable list field; the provenance record carries no tags yet, so it is absent.
    }


class PlanKind(enum.StrEnum):
    DENY = "deny"
    ALLOW = "allow"
    RESIDUAL = "residual"


@dataclass(frozen=True, slots=True)
class ScopePlan:
    """What a principal may read: never, everything, or what ``condition`` selects."""

    kind: PlanKind
    policy_digest: str
    condition: Condition | None = None
    rule_ids: tuple[str, ...] = ()
    reason: str = ""

    def allows(self, fields: Mapping[str, FieldValue]) -> bool:
        if self.kind is PlanKind.ALLOW:
            return True
        if self.kind is PlanKind.DENY or self.condition is None:
            return False
        return evaluate(self.condition, fields)


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """What the caller asked for; it can only narrow the scope, never widen it."""

    action: str
    namespaces: tuple[str, ...] | None = None
    min_trust: TrustLevel | None = None
    purpose: str = "answer"


@dataclass(frozen=True, slots=True)
class WriteDecision:
    allowed: bool
    policy_digest: str
    rule_ids: tuple[str, ...] = ()
    reason: str = ""
    max_trust: TrustLevel = TrustLevel.SYSTEM
    extra: dict[str, str] = field(default_factory=dict)


class ScopeResolver(Protocol):
    """The policy seam. The YAML policy engine implements this; :class:`DefaultScopeResolver` is the default."""

    @property
    def digest(self) -> str: ...

    def read_plan(self, principal: Principal, request: ReadRequest) -> ScopePlan: ...

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision: ...


@runtime_checkable
class PointDecider(Protocol):
    """Optional for a resolver: an independent point evaluator the guard asks about every hit.

    The guard serves a fact only if the plan admits it *and* ``point_allows`` says yes; a fact the
    plan admitted and the point evaluator refused is withheld and audited (``scope.point_mismatch``).
    """

    def point_allows(
        self, principal: Principal, request: ReadRequest, fields: Mapping[str, FieldValue]
    ) -> bool: ...


class DefaultScopeResolver(BaseModel):
    """Built-in scope: owner isolation, namespace allowlist and a minimum trust.

    - a chain acting for subject S reads and writes only facts owned by S (issuer and subject);
    - ``namespaces`` are glob patterns a principal may use (default: any);
    - reads never return facts below ``min_trust`` (default ``untrusted``: quarantined never shows);
    - ``endorse`` (lifting a quarantine) is for the user directly, not for an agent acting for them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    namespaces: tuple[str, ...] = ("*",)
    min_trust: TrustLevel = TrustLevel.UNTRUSTED

    @property
    def digest(self) -> str:
        config = {"kind": "memguard.default-scope/v1", **self.model_dump(mode="json")}
        return sha256_digest(canonical_json(config))

    def _namespace_ok(self, namespace: str) -> bool:
        return any(fnmatch.fnmatchcase(namespace, pattern) for pattern in self.namespaces)

    def read_plan(self, principal: Principal, request: ReadRequest) -> ScopePlan:
        digest = self.digest
        if request.action == "endorse" and principal.depth > 0:
            # lifting a quarantine is the user's own call, never an agent's
            return ScopePlan(PlanKind.DENY, digest, rule_ids=("endorse-by-user",), reason="endorse")
        if request.namespaces is not None and not all(map(self._namespace_ok, request.namespaces)):
            return ScopePlan(PlanKind.DENY, digest, rule_ids=("namespaces",), reason="namespace")
        floor = max(
            self.min_trust, request.min_trust or TrustLevel.QUARANTINED, TrustLevel.UNTRUSTED
        )
        parts: list[Condition] = [
            Eq("owner_iss", principal.subject.issuer),
            Eq("owner_sub", principal.subject.subject),
            Gte("trust", int(floor)),
        ]
        if request.namespaces is not None:
            parts.append(In("namespace", tuple(request.namespaces)))
        rules = ("owner-isolation", "min-trust") + (("namespaces",) if request.namespaces else ())
        return ScopePlan(PlanKind.RESIDUAL, digest, condition=And(tuple(parts)), rule_ids=rules)

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision:
        if not self._namespace_ok(namespace):
            return WriteDecision(False, self.digest, ("namespaces",), reason="namespace")
        return WriteDecision(True, self.digest, ("owner-isolation",))


def conjunction(items: Sequence[Condition]) -> Condition:
    return items[0] if len(items) == 1 else And(tuple(items))
