"""Partial evaluation: rules + a known principal/context -> a tri-state :class:`~memguard.scope.ScopePlan`.

Principal and context attributes are known when a plan is made, so every comparison on them folds to a
constant; only fact comparisons remain. The result is in negation normal form: ``Not`` wraps single
atoms only, and IR ``Not(atom)`` is true only if the field is present — exactly the policy rule that a
comparison *and* its negation are false on a missing attribute. The plan selects the facts where
``any permit`` is definitely true and ``every forbid`` is definitely false, which is what the point
evaluator (:mod:`memguard.policy.evaluate`) decides fact by fact. The plan's condition is in the
normal form of :mod:`memguard.pushdown.normal`, which every store translator starts from.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from memguard.policy.evaluate import Fn, PrincipalEnv, compile_expr
from memguard.policy.model import ATTRIBUTES, AllOf, AnyOf, Cmp, Effect, Expr, NotExpr, Ref, Rule
from memguard.pushdown.normal import NormalForm, conj, disj, normalize
from memguard.scope import Condition, Eq, Gte, In, Not, PlanKind, ScopePlan

__all__ = ["Residual", "plan_for_rules", "residual"]

Residual = NormalForm


@functools.lru_cache(maxsize=1 << 16)
def _env_fn(cmp: Cmp) -> Fn:
    """A principal/context comparison's closure, compiled once per comparison."""
    return compile_expr(cmp)


@functools.lru_cache(maxsize=1 << 16)
def _literal_atom(cmp: Cmp, positive: bool) -> Residual:
    """A fact comparison with a literal (no reference, not ``fact.age``) in the normal form: it
    depends on nothing but the comparison, so it is worked out once."""
    return _atom(cmp, positive, {}, 0)


def _atom(cmp: Cmp, positive: bool, penv: PrincipalEnv, now: int) -> Residual:
    spec = ATTRIBUTES[cmp.attr]
    if spec.scope != "fact":
        v = _env_fn(cmp)(penv, {}, now)
        if v is None:
            return False  # unknown: neither the comparison nor its negation holds
        return v if positive else not v
    if penv and cmp.attr != "fact.age" and not isinstance(cmp.value, Ref):
        return _literal_atom(cmp, positive)
    name = spec.field
    assert name is not None
    if cmp.op == "gte":
        assert isinstance(cmp.value, int)
        if cmp.attr == "fact.age":
            newer = Gte(name, now - cmp.value + 1)  # created_at > now - N  <=>  age < N
            return normalize(Not(newer) if positive else newer)
        atom: Condition = Gte(name, cmp.value)
    else:
        value = cmp.value
        if isinstance(value, Ref):
            wanted = tuple(penv.get(value.attr, ()))
            if not wanted:
                return False
        elif isinstance(value, tuple):
            wanted = value
        else:
            wanted = (value,)
        if cmp.op == "eq" and len(wanted) == 1:
            atom = Eq(name, wanted[0])
        else:
            atom = In(name, tuple(dict.fromkeys(wanted)))
    # each literal in the normal form (types, integer domains); conj/disj keep it normal
    return normalize(atom if positive else Not(atom))


def residual(expr: Expr, penv: PrincipalEnv, now: int, positive: bool = True) -> Residual:
    """The fact condition under which ``expr`` is definitely true (``positive``) or definitely false."""
    match expr:
        case Cmp():
            return _atom(expr, positive, penv, now)
        case AllOf(items):
            parts = [residual(i, penv, now, positive) for i in items]
            return conj(parts) if positive else disj(parts)
        case AnyOf(items):
            parts = [residual(i, penv, now, positive) for i in items]
            return disj(parts) if positive else conj(parts)
        case NotExpr(item):
            return residual(item, penv, now, not positive)
    raise TypeError(f"unknown expression `{expr!r}`")


def plan_for_rules(
    rules: Sequence[Rule], penv: PrincipalEnv, now: int, digest: str
) -> tuple[ScopePlan, Residual]:
    """The plan for the candidate rules of one action; also returns the policy residual itself."""
    permits: list[Residual] = []
    permit_ids: list[str] = []
    guards: list[Residual] = []
    forbid_ids: list[str] = []
    always_forbid: list[str] = []
    for rule in rules:
        if rule.effect is Effect.PERMIT:
            r = residual(rule.when, penv, now, True)
            if r is not False:
                permits.append(r)
                permit_ids.append(rule.id)
        else:
            g = residual(rule.when, penv, now, False)
            if g is False:
                always_forbid.append(rule.id)
            elif g is not True:
                guards.append(g)
                forbid_ids.append(rule.id)
    if always_forbid:
        return ScopePlan(
            PlanKind.DENY, digest, rule_ids=tuple(always_forbid), reason="forbid"
        ), False
    # the normal form (typed, integers beyond a field's range folded: no translator rounds), as
    # every literal is normal and conj/disj keep it so
    allowed = conj([disj(permits), *guards])
    ids = tuple(permit_ids + forbid_ids)
    if allowed is False:
        return ScopePlan(
            PlanKind.DENY, digest, rule_ids=ids, reason="default deny: no permit applies"
        ), False
    if allowed is True:
        return ScopePlan(PlanKind.ALLOW, digest, rule_ids=ids, reason="permit"), True
    return ScopePlan(
        PlanKind.RESIDUAL, digest, condition=allowed, rule_ids=ids, reason="residual"
    ), allowed
