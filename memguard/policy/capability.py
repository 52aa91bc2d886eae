"""Which backends can push down a policy set's read scopes: checked before the set loads.

Every translator covers the whole condition language except where its backend truly cannot
express something (today: LangGraph, see :mod:`memguard.pushdown.langgraph`). Such a policy is
reported by ``memguard policy validate`` for that backend, and a
:class:`~memguard.policy.resolver.PolicyResolver` that serves the backend refuses to load it (an
adapter registers its backend with :func:`require`), rather than refusing reads later.

How: a read plan depends on the principal and the context only through the values the rules
compare them with, so the check enumerates principal/context environments built from those values
(each literal a rule compares an attribute with, the values just below and at each ``gte`` bound,
one other value, none at all; lists of 0 to 3 values for list attributes compared with a fact
attribute), compiles the plan for each (the real partial evaluator, :mod:`memguard.policy.compile`),
folds what the backend fixes (LangGraph's tenant partition fixes the owner) and translates it. At
most :data:`MAX_ENVIRONMENTS` environments are tried (a deterministic sample beyond that). The
translators refuse anything they cannot express at run time anyway: a read is then denied, never
post-filtered.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from memguard.errors import ConfigurationError, UntranslatableCondition
from memguard.policy.compile import plan_for_rules
from memguard.policy.evaluate import Engine, PrincipalEnv
from memguard.policy.model import (
    ATTRIBUTES,
    AllOf,
    AnyOf,
    AttrType,
    Cmp,
    Expr,
    NotExpr,
    PolicyError,
    PolicySet,
    Problem,
    Ref,
    Rule,
    Scalar,
)
from memguard.pushdown.normal import NormalForm, fold
from memguard.scope import PlanKind

__all__ = ["BACKENDS", "MAX_ENVIRONMENTS", "Unsupported", "check", "report", "require"]

#: The backends with a translator, and the read actions each pushes into its store's query.
BACKENDS: Final[Mapping[str, tuple[str, ...]]] = {
    "qdrant": ("search", "get", "update", "delete"),
    "sql": ("search", "get", "update", "delete"),
    "mem0": ("search", "get", "update", "delete"),
    "langgraph": ("search",),
}
MAX_ENVIRONMENTS: Final = 4096
_NOW: Final = 1_800_000_000
_OTHER: Final = "\x00other"
_LIST_SIZES: Final = (0, 1, 2, 3)
#: every principal has an issuer and a subject
_ALWAYS_SET: Final = frozenset(
    {"principal.issuer", "principal.subject", "principal.actor", "principal.depth"}
)
_OWNER_MIRROR: Final = {"fact.owner_iss": "principal.issuer", "fact.owner_sub": "principal.subject"}


@dataclass(frozen=True, slots=True)
class Unsupported:
    """One read scope a backend cannot express: which action, which rules, for which environment."""

    backend: str
    action: str
    rule_ids: tuple[str, ...]
    environment: str
    reason: str

    def problem(self, policy: PolicySet) -> Problem:
        rules = {r.id: r for r in policy.rules}
        first = next((rules[i] for i in self.rule_ids if i in rules), None)
        return Problem(
            first.file if first else ", ".join(policy.files) or "<policy>",
            first.line if first else 0,
            f"not translatable for `{self.backend}` ({self.action}, {self.environment}): "
            f"{self.reason}; rules {', '.join(self.rule_ids) or '-'}",
            first.id if first else None,
        )


def _translator(backend: str) -> Callable[[NormalForm, Mapping[str, Scalar]], object]:
    """The backend's translation, with what its layout fixes (the owner for LangGraph)."""
    if backend == "langgraph":
        from memguard.pushdown.langgraph import to_langgraph_filters

        return lambda cond, owner: to_langgraph_filters(fold(cond, {**owner, "tags": None}))
    if backend == "qdrant":
        from memguard.pushdown.qdrant import to_qdrant_filter

        return lambda cond, owner: to_qdrant_filter(cond)
    if backend == "mem0":
        from memguard.pushdown.mem0 import to_mem0_filter

        return lambda cond, owner: to_mem0_filter(fold(cond, dict(owner)))
    if backend == "sql":
        from sqlalchemy import MetaData

        from memguard.pushdown.sql import fact_tables, to_sql_where

        tables = fact_tables(MetaData())
        return lambda cond, owner: to_sql_where(cond, tables)
    raise ConfigurationError(f"unknown push-down backend `{backend}`")


# -- the environments -------------------------------------------------------------------------------


def _cmps(expr: Expr) -> Iterable[Cmp]:
    match expr:
        case Cmp():
            yield expr
        case AllOf(items) | AnyOf(items):
            for item in items:
                yield from _cmps(item)
        case NotExpr(item):
            yield from _cmps(item)


def _candidates(rules: Sequence[Rule]) -> dict[str, list[tuple[Scalar, ...]]]:
    """For each principal/context attribute the rules read, the values worth trying.

    A literal comparison can only come out true or false: its literals plus one other value (a
    missing attribute behaves like another value) reach both; ``gte v`` needs ``v - 1`` and ``v``.
    An attribute a fact attribute is compared with (``{attr: principal.subject}``) contributes its
    value to the residual: one symbolic value, or lists of 0 to 3 symbolic values for a list."""
    literals: dict[str, set[Scalar]] = {}
    refs: set[str] = set()
    links: list[tuple[str, str]] = []
    for rule in rules:
        for cmp in _cmps(rule.when):
            spec = ATTRIBUTES[cmp.attr]
            if isinstance(cmp.value, Ref):
                if spec.scope == "fact":
                    refs.add(cmp.value.attr)
                else:
                    links.append((cmp.attr, cmp.value.attr))
                    literals.setdefault(cmp.attr, set())
                    literals.setdefault(cmp.value.attr, set())
                continue
            if spec.scope == "fact":
                # a store that partitions by owner (LangGraph) folds the owner fields with the
                # principal's issuer and subject: try those equal to each literal a rule names
                mirror = _OWNER_MIRROR.get(cmp.attr)
                if mirror is not None and not isinstance(cmp.value, Ref):
                    values = cmp.value if isinstance(cmp.value, tuple) else (cmp.value,)
                    literals.setdefault(mirror, set()).update(values)
                    refs.add(mirror)
                continue
            found = literals.setdefault(cmp.attr, set())
            if cmp.op == "gte":
                assert isinstance(cmp.value, int)
                found.update((cmp.value - 1, cmp.value))
            else:
                found.update(cmp.value if isinstance(cmp.value, tuple) else (cmp.value,))
    for attr in refs:
        literals.setdefault(attr, set()).add(f"\x00ref:{attr}")
    linked = {a for pair in links for a in pair}
    for a, b in links:  # an attribute compared with another: let them take each other's values
        merged = literals[a] | literals[b] | {f"\x00ref:{a}"}
        literals[a] = literals[b] = merged
    out: dict[str, list[tuple[Scalar, ...]]] = {}
    for attr, found in sorted(literals.items()):
        spec = ATTRIBUTES[attr]
        plain = sorted((v for v in found if not (isinstance(v, str) and v.startswith("\x00ref:"))),
                       key=repr)  # fmt: skip
        options: list[tuple[Scalar, ...]] = []
        if spec.is_list:
            options += [(), *((v,) for v in plain)]
            if attr in linked and not plain:
                options.append((f"\x00ref:{attr}",))
            if len(plain) > 1:
                options.append(tuple(plain))
            if attr in refs:
                options += [
                    tuple(f"\x00ref:{attr}#{i}" for i in range(n)) for n in _LIST_SIZES if n
                ]
        else:
            if attr in refs or any(isinstance(v, str) and v.startswith("\x00ref:") for v in found):
                options.append((f"\x00ref:{attr}",))
            if (attr in refs or attr in linked) and attr not in _ALWAYS_SET:
                options.append(())  # a reference to a missing value is unknown, not false
            options += [(v,) for v in plain]
            if spec.type is AttrType.INT:  # a value no literal names: every `eq` comes out false
                options.append((max((v for v in plain if isinstance(v, int)), default=-2) + 1,))
            else:
                options.append((_OTHER,))
        out[attr] = list(dict.fromkeys(options))
    return out


def environments(rules: Sequence[Rule]) -> Iterable[PrincipalEnv]:
    """Principal/context environments covering every branch the rules' comparisons can take."""
    cands = _candidates(rules)
    names = list(cands)
    total = 1
    for options in cands.values():
        total *= len(options)
    if total <= MAX_ENVIRONMENTS:
        combos: Iterable[tuple[tuple[Scalar, ...], ...]] = itertools.product(*cands.values())
    else:  # a deterministic sample (the run-time refusal stays the backstop)
        rng = random.Random(13)
        combos = (tuple(rng.choice(cands[n]) for n in names) for _ in range(MAX_ENVIRONMENTS))
    for combo in combos:
        env = dict(zip(names, combo, strict=True))
        env.setdefault("principal.issuer", ("\x00ref:principal.issuer",))
        env.setdefault("principal.subject", ("\x00ref:principal.subject",))
        yield env


def _describe(env: PrincipalEnv) -> str:
    parts = []
    for attr, values in sorted(env.items()):
        shown = [("<any>" if isinstance(v, str) and v.startswith("\x00") else v) for v in values]
        if attr in ("principal.issuer", "principal.subject") and shown == ["<any>"]:
            continue
        parts.append(
            f"{attr}={shown[0] if len(shown) == 1 else shown}" if shown else f"{attr} unset"
        )
    return ", ".join(parts) or "any principal"


# -- the check --------------------------------------------------------------------------------------


def _residuals(
    policy: PolicySet, action: str
) -> dict[tuple[NormalForm, tuple[Scalar, Scalar]], tuple[tuple[str, ...], str]]:
    """Each distinct (residual, owner) the action's plans take, with rule ids and an example."""
    engine = Engine(policy)
    rules = [r for r in policy.rules if action in r.actions]
    out: dict[tuple[NormalForm, tuple[Scalar, Scalar]], tuple[tuple[str, ...], str]] = {}
    if not rules:
        return out
    for env in environments(rules):
        plan, _ = plan_for_rules(engine.candidates(action, env), env, _NOW, policy.digest)
        if plan.kind is not PlanKind.RESIDUAL or plan.condition is None:
            continue
        owner = (env["principal.issuer"][0], env["principal.subject"][0])
        out.setdefault((plan.condition, owner), (plan.rule_ids, _describe(env)))
    return out


def report(policy: PolicySet, backends: Iterable[str] = BACKENDS) -> dict[str, list[Unsupported]]:
    """What each backend cannot push down of ``policy``'s read scopes (``[]``: everything)."""
    cache: dict[
        str, dict[tuple[NormalForm, tuple[Scalar, Scalar]], tuple[tuple[str, ...], str]]
    ] = {}
    out: dict[str, list[Unsupported]] = {}
    for backend in backends:
        translate = _translator(backend)
        found: dict[tuple[str, str], Unsupported] = {}
        for action in BACKENDS[backend]:
            if action not in cache:
                cache[action] = _residuals(policy, action)
            for (cond, (iss, sub)), (rule_ids, env) in cache[action].items():
                try:
                    translate(cond, {"owner_iss": iss, "owner_sub": sub})
                except UntranslatableCondition as exc:
                    found.setdefault(
                        (action, str(exc)), Unsupported(backend, action, rule_ids, env, str(exc))
                    )
        out[backend] = list(found.values())
    return out


def check(policy: PolicySet, backend: str) -> list[Unsupported]:
    """What ``backend`` cannot push down of ``policy``'s read scopes (``[]``: everything)."""
    return report(policy, [backend])[backend]


def refuse(policy: PolicySet, backends: Iterable[str]) -> None:
    """Raise :class:`PolicyError` if any of ``backends`` cannot push ``policy``'s scopes down."""
    problems = [u.problem(policy) for us in report(policy, backends).values() for u in us]
    if problems:
        raise PolicyError(problems)


def require(scope: object, backend: str) -> None:
    """Called by an adapter for its backend: a resolver that can check policy sets (the YAML
    :class:`~memguard.policy.resolver.PolicyResolver`) refuses, now and on every reload, a set the
    backend cannot push down. Other resolvers' plans are the caller's own business."""
    if backend not in BACKENDS:
        raise ConfigurationError(f"unknown push-down backend `{backend}`")
    hook = getattr(scope, "require_backend", None)
    if callable(hook):
        hook(backend)
