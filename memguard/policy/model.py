"""The policy language's typed model: attributes, expressions, rules, policy sets, problems, decisions.

Stages (as in Cedar): :mod:`~memguard.policy.loader` parses YAML into this model and validates it;
:mod:`~memguard.policy.evaluate` decides a point request; :mod:`~memguard.policy.compile` partially
evaluates a rule set for a known principal into a scope :data:`~memguard.scope.Condition`.

Expression semantics (the reference every stage must equal): a comparison on a *missing* fact
attribute (absent, null or an empty list), or with a reference to a missing value, is unknown; ``not``
of unknown is unknown; ``all``/``any`` are Kleene and/or. Principal and context attributes are known
exactly: a missing one (no workload id, no scopes) simply does not match, and its negation holds.
A rule applies only if its condition is definitely true. A request is allowed only if some
permit applies and every forbid that names the action is definitely false: a forbid whose condition is
unknown denies (an evaluation error is a deny). A list-valued attribute matches if any element matches.
"""

from __future__ import annotations

import builtins
import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from memguard.errors import ConfigurationError
from memguard.trust import TrustLevel

__all__ = [
    "ACTIONS",
    "API_VERSION",
    "ATTRIBUTES",
    "TRUE",
    "AllOf",
    "AnyOf",
    "AttrSpec",
    "Cmp",
    "Effect",
    "Expr",
    "NotExpr",
    "PolicyDecision",
    "PolicyError",
    "PolicySet",
    "Problem",
    "Ref",
    "Rule",
]

API_VERSION = "memguard/v1"

#: Every action a rule may name. ``read`` in YAML is shorthand for ``search`` and ``get``.
ACTIONS: tuple[str, ...] = (
    "write",
    "search",
    "get",
    "update",
    "delete",
    "audit",
    "endorse",
    "revoke",
)

Scalar = str | int


class AttrType(enum.StrEnum):
    STR = "string"
    INT = "integer"
    TRUST = "trust"
    SOURCE_KIND = "source_kind"


@dataclass(frozen=True, slots=True)
class AttrSpec:
    """One attribute a condition may name: where it lives, its type, and whether it is a list."""

    name: str
    type: AttrType
    is_list: bool = False
    #: the indexed fact field it maps to (fact attributes only; ``fact.age`` maps to ``created_at``)
    field: str | None = None
    doc: str = ""

    @property
    def scope(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def value_type(self) -> builtins.type[str] | builtins.type[int]:
        return str if self.type in (AttrType.STR, AttrType.SOURCE_KIND) else int


def _spec(
    name: str, t: AttrType, doc: str, *, is_list: bool = False, fld: str | None = None
) -> AttrSpec:
    return AttrSpec(name, t, is_list, fld, doc)


ATTRIBUTES: Mapping[str, AttrSpec] = {
    s.name: s
    for s in (
        _spec("principal.issuer", AttrType.STR, "issuer of the originating subject"),
        _spec("principal.subject", AttrType.STR, "the originating subject (the user)"),
        _spec("principal.actor", AttrType.STR, "the current actor (last hop), or the subject"),
        _spec(
            "principal.actors", AttrType.STR, "every actor, first delegate -> current", is_list=True
        ),
        _spec("principal.delegator", AttrType.STR, "who delegated to the current actor"),
        _spec("principal.depth", AttrType.INT, "number of actors in the chain (0 = the user)"),
        _spec("principal.workload_id", AttrType.STR, "the current actor's SPIFFE id, if any"),
        _spec("principal.client_id", AttrType.STR, "OAuth client id, if any"),
        _spec("principal.scopes", AttrType.STR, "token scopes", is_list=True),
        # entity profiles (``sub_profile``, memguard.tokens.entity_profiles): per hop, as the
        # token's issuer asserted them; a hop without one has none (``user`` = a human)
        _spec(
            "principal.subject_profile", AttrType.STR, "the subject's entity profile", is_list=True
        ),
        _spec(
            "principal.actor_profile",
            AttrType.STR,
            "the current actor's entity profile (the subject's when there is no actor)",
            is_list=True,
        ),
        _spec(
            "principal.delegator_profile",
            AttrType.STR,
            "the entity profile of who delegated to the current actor",
            is_list=True,
        ),
        _spec(
            "principal.actor_profiles",
            AttrType.STR,
            "the entity profiles of every actor",
            is_list=True,
        ),
        _spec("context.purpose", AttrType.STR, "what the read is for: answer, tool_argument, ..."),
        _spec("fact.id", AttrType.STR, "fact id", fld="fact_id"),
        _spec("fact.namespace", AttrType.STR, "namespace", fld="namespace"),
        _spec("fact.owner_iss", AttrType.STR, "owner issuer", fld="owner_iss"),
        _spec("fact.owner_sub", AttrType.STR, "owner subject", fld="owner_sub"),
        _spec("fact.trust", AttrType.TRUST, "trust level", fld="trust"),
        _spec("fact.source_kind", AttrType.SOURCE_KIND, "source kind", fld="source_kind"),
        _spec("fact.writer_sub", AttrType.STR, "the writing actor", fld="writer_sub"),
        _spec("fact.workload_id", AttrType.STR, "the writer's workload id", fld="workload_id"),
        _spec("fact.tags", AttrType.STR, "tags", is_list=True, fld="tags"),
        _spec("fact.age", AttrType.INT, "seconds since the fact was written", fld="created_at"),
        _spec("fact.created_at", AttrType.INT, "epoch seconds", fld="created_at"),
        _spec(
            "fact.derived_from_count",
            AttrType.INT,
            "number of input facts",
            fld="derived_from_count",
        ),
        _spec(
            "fact.lineage_trust",
            AttrType.TRUST,
            "the lowest channel in the fact's lineage: its own and every input's, transitively",
            fld="lineage_trust",
        ),
    )
}

#: Fact attributes a write rule may name (the fact does not exist yet; only its namespace is known).
WRITE_FACT_ATTRIBUTES = frozenset({"fact.namespace"})


class Effect(enum.StrEnum):
    PERMIT = "permit"
    FORBID = "forbid"


@dataclass(frozen=True, slots=True)
class Ref:
    """A value taken from another attribute (principal or context: known when a plan is made)."""

    attr: str


@dataclass(frozen=True, slots=True)
class Cmp:
    """``attr op value``; ``op`` is ``eq`` (any element equals), ``in`` or ``gte`` (integers)."""

    op: str
    attr: str
    value: Scalar | tuple[Scalar, ...] | Ref
    line: int = 0


@dataclass(frozen=True, slots=True)
class AllOf:
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class NotExpr:
    item: Expr


Expr = Cmp | AllOf | AnyOf | NotExpr

#: The condition of a rule without ``when``.
TRUE: Expr = AllOf(())


def attrs_of(expr: Expr) -> set[str]:
    """Every attribute an expression names, on either side."""
    match expr:
        case Cmp(_, attr, Ref(other)):
            return {attr, other}
        case Cmp(_, attr, _):
            return {attr}
        case AllOf(items) | AnyOf(items):
            return set().union(*(attrs_of(i) for i in items)) if items else set()
        case NotExpr(item):
            return attrs_of(item)
    raise TypeError(f"unknown expression `{expr!r}`")


def expr_json(expr: Expr) -> object:
    """A canonical JSON form (used for the digest and for ``explain``)."""
    match expr:
        case Cmp(op, attr, value):
            if isinstance(value, Ref):
                return {op: [attr, {"attr": value.attr}]}
            if isinstance(value, tuple):
                return {op: [attr, list(value)]}
            return {op: [attr, value]}
        case AllOf(items):
            return {"all": [expr_json(i) for i in items]}
        case AnyOf(items):
            return {"any": [expr_json(i) for i in items]}
        case NotExpr(item):
            return {"not": expr_json(item)}
    raise TypeError(f"unknown expression `{expr!r}`")


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    effect: Effect
    actions: frozenset[str]
    when: Expr = TRUE
    max_trust: TrustLevel | None = None
    description: str = ""
    file: str = "<string>"
    line: int = 0

    def canonical(self) -> dict[str, object]:
        return {
            "id": self.id,
            "effect": self.effect.value,
            "actions": sorted(self.actions),
            "when": expr_json(self.when),
            "max_trust": self.max_trust.label if self.max_trust is not None else None,
        }


@dataclass(frozen=True, slots=True)
class PolicySet:
    """A validated set of rules from one or more files, named by its digest."""

    rules: tuple[Rule, ...]
    digest: str
    files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Problem:
    """One load error: where it is and what is wrong."""

    file: str
    line: int
    message: str
    rule_id: str | None = None
    column: int = 0

    def __str__(self) -> str:
        rule = f" rule `{self.rule_id}`:" if self.rule_id else ""
        where = (
            f"{self.file}:{self.line}:{self.column}:"
            if self.column
            else f"{self.file}:{self.line}:"
        )
        return _one_line(f"{where}{rule} {self.message}")

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "rule_id": self.rule_id,
            "message": self.message,
        }


def _one_line(text: str) -> str:
    """Control characters (a newline in a quoted YAML key, say) escaped: one problem, one line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class PolicyError(ConfigurationError):
    """A policy file does not load: each problem names the file, the line and the rule id."""

    code = "configuration.policy"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = tuple(problems)
        first = str(problems[0]) if problems else "invalid policy"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(first + more)


class PolicyDecision(NamedTuple):
    """A point decision as a value: allow or deny, the determining rules and any evaluation errors.

    (A named tuple rather than a frozen dataclass: it is built on every decision, and this is ~2x
    cheaper to build.)
    """

    allowed: bool
    policy_digest: str
    rule_ids: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    reason: str = ""
    max_trust: TrustLevel | None = None

    @property
    def decision(self) -> str:
        return "allow" if self.allowed else "deny"

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "decision": self.decision,
            "policy_digest": self.policy_digest,
            "rules": list(self.rule_ids),
            "errors": list(self.errors),
            "reason": self.reason,
        }
        if self.max_trust is not None:
            out["max_trust"] = self.max_trust.label
        return out
