"""Hypothesis strategies and fixtures shared by the policy differential and Cedar-oracle tests.

Small value domains on purpose: random principal values, policy literals and fact fields collide
often, so random conditions select interesting (neither empty nor full) subsets of the facts.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from memguard import Actor, Principal, PrincipalId
from memguard.policy.loader import digest_rules
from memguard.policy.model import (
    ATTRIBUTES,
    AllOf,
    AnyOf,
    AttrType,
    Cmp,
    Effect,
    Expr,
    NotExpr,
    PolicySet,
    Ref,
    Rule,
)
from memguard.scope import FIELDS, And, Condition, Eq, Exists, FieldValue, Gte, In, Not, Or
from memguard.trust import TrustLevel

NOW = 1_800_000_000
ISSUERS = ["i1", "i2"]
SUBJECTS = ["alice", "bob", "carol"]
AGENTS = ["spiffe://d/agent/a", "spiffe://d/agent/b", "bob", "agent-c"]
SCOPES = ["memguard:auditor", "read", "x"]
PURPOSES = ["answer", "tool_argument", "planning"]
NAMESPACES = ["a", "b", "c"]
TAGS = ["x", "y", "z"]
KINDS = ["web", "user_message", "tool_output"]
AGES = [0, 5, 10, 50, 100, 500, 1000, 2000]
ACTIONS = ["search", "get"]

#: value domain of each fact field (list fields: the element domain)
FACT_DOMAIN: Mapping[str, list[Any]] = {
    "fact_id": [f"{i:08x}-0000-4000-8000-000000000000" for i in range(3)],
    "namespace": NAMESPACES,
    "owner_iss": ISSUERS,
    "owner_sub": SUBJECTS,
    "trust": list(range(7)),
    "source_kind": KINDS,
    "writer_sub": SUBJECTS + AGENTS,
    "workload_id": ["spiffe://d/agent/a", "spiffe://d/agent/b"],
    "created_at": [NOW - a for a in AGES],
    "derived_from_count": [0, 1, 2, 3],
    "lineage_trust": list(range(7)),
    "tags": TAGS,
}

PROFILES = ["user", "ai_agent", "service"]

STR_DOMAIN: Mapping[str, list[str]] = {
    "principal.issuer": ISSUERS,
    "principal.subject": SUBJECTS,
    "principal.actor": SUBJECTS + AGENTS,
    "principal.actors": AGENTS,
    "principal.delegator": SUBJECTS + AGENTS,
    "principal.workload_id": ["spiffe://d/agent/a", "spiffe://d/agent/b"],
    "principal.client_id": ["c1", "c2"],
    "principal.scopes": SCOPES,
    "principal.subject_profile": PROFILES,
    "principal.actor_profile": PROFILES,
    "principal.delegator_profile": PROFILES,
    "principal.actor_profiles": PROFILES,
    "context.purpose": PURPOSES,
}
#: integers at the edges of what a backend represents exactly: float64 (2^53), the stored domain
#: (10^14), int64 (2^63)
EDGE_INTS = [2**53, 2**53 + 1, 2**63 - 1, 10**14, 10**14 + 1, 2**62]
EDGE_INTS += [-v for v in EDGE_INTS] + [-(2**63)]

INT_DOMAIN: Mapping[str, list[int]] = {
    "principal.depth": [0, 1, 2, 3],
    "fact.trust": list(range(7)),
    "fact.lineage_trust": list(range(7)),
    "fact.age": [*AGES, 1, 7, 3000, *(v for v in EDGE_INTS if -(2**63) < v < 2**62)],
    "fact.created_at": [*(NOW - a for a in AGES), NOW + 1, *EDGE_INTS],
    "fact.derived_from_count": [0, 1, 2, 3, 4, *EDGE_INTS],
}
REF_TARGETS = [a for a, s in ATTRIBUTES.items() if s.scope != "fact" and s.type is AttrType.STR]


def _str_domain(attr: str) -> list[str]:
    spec = ATTRIBUTES[attr]
    if spec.scope == "fact":
        assert spec.field is not None
        return [str(v) for v in FACT_DOMAIN[spec.field]]
    return STR_DOMAIN[attr]


@st.composite
def comparisons(draw: st.DrawFn) -> Expr:
    attr = draw(st.sampled_from(sorted(ATTRIBUTES)))
    spec = ATTRIBUTES[attr]
    line = 1
    if spec.type in (AttrType.INT, AttrType.TRUST):
        domain = INT_DOMAIN[attr]
        op = draw(st.sampled_from(["gte", "eq", "in"]))
        if op == "gte":
            return Cmp("gte", attr, draw(st.sampled_from(domain)), line)
        if attr == "fact.age":  # eq/in on age are not in the language; use gte
            return Cmp("gte", attr, draw(st.sampled_from(domain)), line)
        if op == "eq":
            return Cmp("eq", attr, draw(st.sampled_from(domain)), line)
        values = draw(st.lists(st.sampled_from(domain), min_size=1, max_size=3, unique=True))
        return Cmp("in", attr, tuple(values), line)
    domain = _str_domain(attr)
    op = draw(st.sampled_from(["eq", "in", "ref"]))
    if op == "eq":
        return Cmp("eq", attr, draw(st.sampled_from(domain)), line)
    if op == "in":
        values = draw(st.lists(st.sampled_from(domain), min_size=1, max_size=3, unique=True))
        return Cmp("in", attr, tuple(values), line)
    target = draw(st.sampled_from([t for t in REF_TARGETS if t != attr]))
    if ATTRIBUTES[target].is_list:
        return Cmp("in", attr, Ref(target), line)
    return Cmp(draw(st.sampled_from(["eq", "in"])), attr, Ref(target), line)


def _expressions() -> st.SearchStrategy[Expr]:
    return st.recursive(
        comparisons(),
        lambda inner: st.one_of(
            st.builds(NotExpr, inner),
            st.lists(inner, min_size=0, max_size=3).map(lambda xs: AllOf(tuple(xs))),
            st.lists(inner, min_size=0, max_size=3).map(lambda xs: AnyOf(tuple(xs))),
        ),
        max_leaves=8,
    )


EXPRESSIONS = _expressions()
CONDITIONS = st.one_of(st.just(AllOf(())), EXPRESSIONS)
ACTION_SETS = st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=2, unique=True)
EFFECTS = st.sampled_from([Effect.PERMIT, Effect.PERMIT, Effect.FORBID])


def expressions() -> st.SearchStrategy[Expr]:
    return EXPRESSIONS


@st.composite
def rules(draw: st.DrawFn, index: int) -> Rule:
    effect = draw(EFFECTS)
    actions = frozenset(draw(ACTION_SETS))
    when = draw(CONDITIONS)
    return Rule(f"r{index}", effect, actions, when)


@st.composite
def policies(draw: st.DrawFn) -> PolicySet:
    n = draw(st.integers(min_value=1, max_value=5))
    rs = tuple(draw(rules(i)) for i in range(n))
    return PolicySet(rs, digest_rules(rs))


@st.composite
def principals(draw: st.DrawFn) -> Principal:
    issuer = draw(st.sampled_from(ISSUERS))
    actors = draw(st.lists(st.sampled_from(AGENTS), max_size=3))
    profile = st.lists(st.sampled_from(PROFILES), max_size=2, unique=True).map(tuple)
    return Principal(
        subject=PrincipalId(issuer=issuer, subject=draw(st.sampled_from(SUBJECTS))),
        actors=tuple(Actor(issuer=issuer, subject=a, profile=draw(profile)) for a in actors),
        subject_profile=draw(profile),
        client_id=draw(st.sampled_from([None, "c1", "c2"])),
        token_jti="t",
        scopes=frozenset(draw(st.lists(st.sampled_from(SCOPES), max_size=2))),
    )


def random_fact(rng: random.Random, i: int) -> dict[str, FieldValue]:
    """One fact whose fields are each present, absent, null (or for lists empty) at random."""
    fields: dict[str, FieldValue] = {}
    for name, domain in FACT_DOMAIN.items():
        if name == "fact_id":
            continue  # the store's id; set by the caller
        roll = rng.random()
        if name == "tags":
            if roll < 0.15:
                continue
            if roll < 0.3:
                fields[name] = []
            else:
                fields[name] = rng.sample(domain, rng.randint(1, len(domain)))
            continue
        if roll < 0.1:
            continue  # absent
        if roll < 0.17:
            fields[name] = None  # null
        else:
            fields[name] = rng.choice(domain)
    return fields


@st.composite
def facts(draw: st.DrawFn) -> dict[str, FieldValue]:
    return random_fact(random.Random(draw(st.integers(0, 2**32))), 0)


def universe(n: int, seed: int = 4) -> dict[str, dict[str, FieldValue]]:
    rng = random.Random(seed)
    out = {}
    for i in range(n):
        fid = f"{i:08x}-0000-4000-8000-000000000000"
        out[fid] = {"fact_id": fid, **random_fact(rng, i)}
    return out


def yaml_expr(expr: Expr) -> object:
    """A rule condition as the YAML (JSON) a policy author would write."""
    match expr:
        case Cmp(op, attr, value):
            if isinstance(value, Ref):
                return {"attr": attr, op: {"attr": value.attr}}
            if ATTRIBUTES[attr].type is AttrType.TRUST:  # levels by name, as an author writes them
                named = [TrustLevel(v).label if v in range(7) else v for v in
                         (value if isinstance(value, tuple) else (value,))]  # fmt: skip
                return {"attr": attr, op: named if isinstance(value, tuple) else named[0]}
            return {"attr": attr, op: list(value) if isinstance(value, tuple) else value}
        case AllOf(items):
            return {"all": [yaml_expr(i) for i in items]}
        case AnyOf(items):
            return {"any": [yaml_expr(i) for i in items]}
        case NotExpr(item):
            return {"not": yaml_expr(item)}
    raise TypeError(expr)


# -- scope conditions (the IR every translator takes) -----------------------------------------------

IR_INTS = [-1, 0, 1, 2, 3, 4, 6, 7, NOW, NOW + 1, 10**14, 10**14 + 1, -(10**14), *EDGE_INTS]
IR_STRS = ["a", "b", "", "web", "tool_output", "user_message", *SUBJECTS, *ISSUERS]


def _ir_literal(name: str) -> st.SearchStrategy[Any]:
    """A literal for a field: usually of its type, sometimes of the other one (a type mismatch)."""
    right = st.sampled_from(IR_INTS) if FIELDS[name] is int else st.sampled_from(IR_STRS)
    wrong = st.sampled_from(IR_STRS) if FIELDS[name] is int else st.sampled_from(IR_INTS)
    return st.one_of(right, right, right, right, wrong)


@st.composite
def ir_atoms(draw: st.DrawFn) -> Condition:
    name = draw(st.sampled_from(sorted(FIELDS)))
    kind = draw(st.sampled_from(["eq", "in", "gte", "exists"]))
    if kind == "eq":
        return Eq(name, draw(_ir_literal(name)))
    if kind == "in":
        return In(name, tuple(draw(st.lists(_ir_literal(name), min_size=1, max_size=3))))
    if kind == "gte":
        return Gte(name, draw(st.one_of(st.sampled_from(IR_INTS), _ir_literal(name))))
    return Exists(name)


IR_CONDITIONS: st.SearchStrategy[Condition] = st.recursive(
    ir_atoms(),
    lambda inner: st.one_of(
        st.builds(Not, inner),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: Or(tuple(xs))),
    ),
    max_leaves=8,
)

#: stored values: in the domain (with its edges), and mistyped (out of range, other type, bool,
#: a list in a scalar field, a float), which memguard never writes but a tampered payload may hold
TYPED_VALUES: Mapping[str, list[Any]] = {
    **{k: list(v) for k, v in FACT_DOMAIN.items()},
    "created_at": [*FACT_DOMAIN["created_at"], 10**14, -(10**14), 0, 10**14 - 1],
    "derived_from_count": [*FACT_DOMAIN["derived_from_count"], 10**14],
}
MISTYPED_VALUES: list[Any] = [2**53, 2**53 + 1, 2**63 - 1, -(2**63), 10**14 + 1, True, "7", 1.5, ["a"]]


def ir_fact(rng: random.Random, *, mistyped: float = 0.0) -> dict[str, FieldValue]:
    """Random indexed fields: each absent, null, empty, typed (edges included) or, with
    probability ``mistyped``, a value outside its domain."""
    fields: dict[str, Any] = {}
    for name, domain in TYPED_VALUES.items():
        roll = rng.random()
        if roll < 0.1:
            continue
        if roll < 0.15:
            fields[name] = None
        elif rng.random() < mistyped:
            fields[name] = rng.choice(MISTYPED_VALUES)
        elif name == "tags":
            fields[name] = rng.sample(domain, rng.randint(0, len(domain)))
        else:
            fields[name] = rng.choice(domain)
    return fields
