"""Read scopes: a small condition language, tri-state plans, and the seam a policy engine plugs into.

A :class:`ScopeResolver` turns (principal, request) into a :class:`ScopePlan`: always-deny, always-allow,
or a residual :data:`Condition` over a fact's indexed fields. Stores translate the residual into their
own query (a Qdrant ``Filter``); a store that cannot translate a condition must refuse the query. The
same plan evaluates a single fact (:meth:`ScopePlan.allows`), which re-checks every hit.

Semantics that translators must keep (DESIGN.md, push-down pitfalls):

- an atom on a missing (absent, null or empty-list) or mistyped field (:class:`FieldDomain`) is false;
- a list-valued field matches an atom if any element matches;
- ``Not(c)`` is true only if every field ``c`` mentions is present and ``c`` is false, so a translator
  adds an existence guard for each of those fields next to its negation;
- a comparison with a literal of the wrong type is unknown: neither it nor its negation holds.

:mod:`memguard.pushdown` brings a condition into one normal form and translates it for each store.
"""

from __future__ import annotations

import enum
import fnmatch
import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from memguard.identity import Principal
from memguard.provenance import Provenance, canonical_json, sha256_digest
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "DOMAINS",
    "EXACT_INT",
    "FIELDS",
    "LIST_FIELDS",
    "And",
    "Condition",
    "DefaultScopeResolver",
    "Eq",
    "Exists",
    "FieldDomain",
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
    "fields_of",
    "index_fields",
    "typed_values",
]

Scalar = str | int
FieldValue = Scalar | list[Scalar] | None

#: Integers an indexed field may hold are within +-EXACT_INT: exact as float64 (Qdrant's range
#: bounds, mem0's) and in the LangGraph adapter's fixed-width text encoding. A comparison with a
#: literal beyond a field's range is folded to a constant before any translator sees it.
EXACT_INT = 10**14


@dataclass(frozen=True, slots=True)
class FieldDomain:
    """What an indexed field may hold: its type, list or not, and its range or its values.

    A stored value outside its domain (wrong type, out of range, not one of the values, a list in
    a scalar field) is *mistyped*: every atom on it is unknown, so neither an atom nor its
    negation holds (a type mismatch never makes a permit match, always makes a forbid match)."""

    kind: type[str] | type[int]
    is_list: bool = False
    low: int = -EXACT_INT
    high: int = EXACT_INT
    values: frozenset[str] | None = None

    def accepts(self, value: object) -> bool:
        """Is ``value`` one element this field can hold?"""
        if self.kind is int:
            return type(value) is int and self.low <= value <= self.high
        return type(value) is str and (self.values is None or value in self.values)

    def literal_ok(self, value: object) -> bool:
        """Is ``value`` a literal of this field's type (a comparison with it can be decided)?"""
        return type(value) is self.kind


_TRUST = FieldDomain(int, low=int(TrustLevel.QUARANTINED), high=int(TrustLevel.SYSTEM))

#: The indexed fact fields a condition may name.
DOMAINS: Mapping[str, FieldDomain] = {
    "fact_id": FieldDomain(str),
    "namespace": FieldDomain(str),
    "owner_iss": FieldDomain(str),
    "owner_sub": FieldDomain(str),
    "trust": _TRUST,
    "source_kind": FieldDomain(str, values=frozenset(k.value for k in SourceKind)),
    "writer_sub": FieldDomain(str),
    "workload_id": FieldDomain(str),
    "created_at": FieldDomain(int),
    "derived_from_count": FieldDomain(int, low=0),
    "lineage_trust": _TRUST,
    "tags": FieldDomain(str, is_list=True),
}

#: Indexed fact fields and their value types.
FIELDS: Mapping[str, type] = {name: d.kind for name, d in DOMAINS.items()}

#: Fields that hold a list of values (any element matching an atom makes it match). Stores that cannot
#: keep a list in a column (SQL) keep these in a side table.
LIST_FIELDS: frozenset[str] = frozenset(name for name, d in DOMAINS.items() if d.is_list)


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
class Exists:
    """The field is present (not absent, null or an empty list) and holds a well-typed value."""

    field: str


@dataclass(frozen=True, slots=True)
class And:
    items: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Or:
    items: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Not:
    item: Condition


Condition = Eq | In | Gte | Exists | And | Or | Not
Atom = Eq | In | Gte


def fields_of(cond: Condition) -> Iterator[str]:
    """Every field name a condition mentions."""
    match cond:
        case Eq(f, _) | In(f, _) | Gte(f, _) | Exists(f):
            yield f
        case And(items) | Or(items):
            for item in items:
                yield from fields_of(item)
        case Not(item):
            yield from fields_of(item)


def typed_values(name: str, value: FieldValue | object) -> list[Scalar] | None:
    """The elements of a stored field value, or ``None`` if it is missing (absent, null, an empty
    list) or mistyped (see :class:`FieldDomain`; an unknown field is missing)."""
    if value is None or value == []:
        return None
    domain = DOMAINS.get(name)
    if domain is None:
        return None
    if isinstance(value, list):
        if not domain.is_list:
            return None
        items: list[Scalar] = value
    else:
        items = [value]  # type: ignore[list-item]
    accepts = domain.accepts
    for item in items:
        if not accepts(item):
            return None
    return items


def _eval(cond: Condition, fields: Mapping[str, FieldValue]) -> bool | None:
    """Kleene evaluation: ``None`` is unknown (a comparison with a literal of the wrong type)."""
    match cond:
        case Eq(f, v):
            vals = typed_values(f, fields.get(f))
            if vals is None:
                return False
            if f not in DOMAINS or not DOMAINS[f].literal_ok(v):
                return None
            return v in vals
        case In(f, vs):
            vals = typed_values(f, fields.get(f))
            if vals is None:
                return False
            ok = DOMAINS[f].literal_ok
            good = [v for v in vs if ok(v)]
            if any(x in good for x in vals):
                return True
            return None if len(good) < len(vs) else False
        case Gte(f, v):
            vals = typed_values(f, fields.get(f))
            if vals is None:
                return False
            if type(v) is not int or DOMAINS[f].kind is not int:
                return None
            return any(x >= v for x in vals)  # type: ignore[operator]
        case Exists(f):
            return typed_values(f, fields.get(f)) is not None
        case And(items):
            result: bool | None = True
            for item in items:
                got = _eval(item, fields)
                if got is False:
                    return False
                if got is None:
                    result = None
            return result
        case Or(items):
            result = False
            for item in items:
                got = _eval(item, fields)
                if got is True:
                    return True
                if got is None:
                    result = None
            return result
        case Not(item):
            for name in fields_of(item):
                if typed_values(name, fields.get(name)) is None:
                    return False
            got = _eval(item, fields)
            return None if got is None else not got
    raise TypeError(f"unknown condition `{cond!r}`")


def evaluate(cond: Condition, fields: Mapping[str, FieldValue]) -> bool:
    """Decide one fact; the reference semantics every store translation must equal.

    An atom on a missing or mistyped field is false; a list field matches if any element does;
    ``Not(c)`` holds only if every field ``c`` mentions is present and well-typed and ``c`` is
    definitely false; a comparison with a literal of the wrong type is unknown (neither it nor its
    negation holds); ``Exists(f)``: ``f`` is present and well-typed.
    """
    return _eval(cond, fields) is True


def index_fields(prov: Provenance) -> dict[str, FieldValue]:
    """The indexed fields of a fact, as stores keep them next to the vector."""
    fields: dict[str, FieldValue] = {
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
    if prov.lineage_trust is not None:  # records written before the field existed have none
        fields["lineage_trust"] = int(prov.lineage_trust)
    return fields


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


@functools.lru_cache(maxsize=64)
def _default_scope_digest(namespaces: tuple[str, ...], min_trust: TrustLevel) -> str:
    config = {"kind": "memguard.default-scope/v1", "namespaces": list(namespaces),
              "min_trust": int(min_trust)}  # fmt: skip
    return sha256_digest(canonical_json(config))


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
        # every read and write records it: cached by value (a copy with other values gets its own)
        return _default_scope_digest(self.namespaces, self.min_trust)

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
