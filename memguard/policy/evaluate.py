"""The point evaluator: one request (principal, action, context, fact) -> a :class:`PolicyDecision`.

Each rule's condition is compiled once into a closure with Kleene three-valued logic (``None`` is
unknown: a comparison on a missing attribute). Rules are indexed by action and, where a rule's
condition starts with an equality on a principal or context attribute (``principal.subject eq alice``),
by that value, so a decision looks at the few rules that can apply, not at all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from memguard.identity import Principal
from memguard.policy.model import (
    ATTRIBUTES,
    AllOf,
    AnyOf,
    Cmp,
    Effect,
    Expr,
    NotExpr,
    PolicyDecision,
    PolicySet,
    Ref,
    Rule,
    Scalar,
    attrs_of,
)
from memguard.policy.types import check_rules
from memguard.scope import DOMAINS, FieldValue, typed_values
from memguard.trust import TrustLevel

__all__ = ["Engine", "PrincipalEnv", "principal_env"]

#: Principal and context attribute values: a tuple of values, empty when the attribute is missing.
PrincipalEnv = Mapping[str, tuple[Scalar, ...]]
Tri = bool | None
Fn = Callable[[PrincipalEnv, Mapping[str, FieldValue], int], Tri]

_EMPTY: tuple[Scalar, ...] = ()


def principal_env(
    principal: Principal, purpose: str | None = None
) -> dict[str, tuple[Scalar, ...]]:
    """What the policy language calls ``principal.*`` and ``context.*`` for this request."""
    actors = principal.actors
    subject_profile: tuple[Scalar, ...] = principal.subject_profile
    if len(actors) >= 2:
        delegator: tuple[Scalar, ...] = (actors[-2].subject,)
        delegator_profile: tuple[Scalar, ...] = actors[-2].profile
    elif actors:
        delegator, delegator_profile = (principal.subject.subject,), subject_profile
    else:
        delegator, delegator_profile = (), ()
    wid = principal.workload_id
    return {
        "principal.issuer": (principal.subject.issuer,),
        "principal.subject": (principal.subject.subject,),
        "principal.actor": (principal.current_actor.subject,),
        "principal.actors": tuple(a.subject for a in actors),
        "principal.delegator": delegator,
        "principal.depth": (len(actors),),
        "principal.workload_id": (wid,) if wid else (),
        "principal.client_id": (principal.client_id,) if principal.client_id else (),
        "principal.scopes": tuple(sorted(principal.scopes)),
        "principal.subject_profile": subject_profile,
        "principal.actor_profile": actors[-1].profile if actors else subject_profile,
        "principal.delegator_profile": delegator_profile,
        "principal.actor_profiles": tuple(sorted({p for a in actors for p in a.profile})),
        "context.purpose": (purpose,) if purpose else (),
    }


def compile_expr(expr: Expr) -> Fn:
    """A closure deciding ``expr`` with Kleene logic; ``None`` means unknown."""
    match expr:
        case Cmp(op, attr, value):
            return _compile_cmp(op, attr, value)
        case AllOf(items):
            fns = tuple(compile_expr(i) for i in items)
            if len(fns) == 1:
                return fns[0]
            if len(fns) == 2:
                first, second = fns

                def all_of2(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
                    a = first(p, f, now)
                    if a is False:
                        return False
                    b = second(p, f, now)
                    if b is False:
                        return False
                    return None if a is None or b is None else True

                return all_of2

            def all_of(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
                result: Tri = True
                for fn in fns:
                    v = fn(p, f, now)
                    if v is False:
                        return False
                    if v is None:
                        result = None
                return result

            return all_of
        case AnyOf(items):
            fns = tuple(compile_expr(i) for i in items)

            def any_of(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
                result: Tri = False
                for fn in fns:
                    v = fn(p, f, now)
                    if v is True:
                        return True
                    if v is None:
                        result = None
                return result

            return any_of
        case NotExpr(item):
            inner = compile_expr(item)

            def not_(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
                v = inner(p, f, now)
                return None if v is None else not v

            return not_
    raise TypeError(f"unknown expression `{expr!r}`")


def _compile_cmp(op: str, attr: str, value: Scalar | tuple[Scalar, ...] | Ref) -> Fn:
    spec = ATTRIBUTES[attr]
    if spec.scope == "fact":
        assert spec.field is not None
        return _compile_fact_cmp(op, attr, spec.field, spec.value_type, value)
    return _compile_env_cmp(op, attr, spec.value_type, value)


def _compile_fact_cmp(
    op: str, attr: str, name: str, vt: type, value: Scalar | tuple[Scalar, ...] | Ref
) -> Fn:
    """A comparison on a fact field: unknown (``None``) when the field is missing or holds a value
    of the wrong type (:func:`memguard.scope.typed_values`): a type mismatch never makes a permit
    match and always makes a forbid match."""
    # the common case inline: one well-typed scalar (the field's type, inside its domain)
    domain = DOMAINS[name]
    kind, low, high, allowed = domain.kind, domain.low, domain.high, domain.values
    scalar_field = not domain.is_list

    def values(v: object) -> list[Scalar] | None:
        if scalar_field and type(v) is kind:
            if kind is int:
                return [v] if low <= v <= high else None  # type: ignore[operator]
            return [v] if allowed is None or v in allowed else None
        return typed_values(name, v)

    if op == "gte":
        assert isinstance(value, int)
        bound = value
        if attr == "fact.age":
            # age >= N  <=>  no `created_at` after now - N (the compiled form is the same)
            def age_gte(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
                vals = values(f.get(name))
                if vals is None:
                    return None
                cut = now - bound + 1
                return not any(x >= cut for x in vals)  # type: ignore[operator]

            return age_gte

        def gte(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
            vals = values(f.get(name))
            if vals is None:
                return None
            return any(x >= bound for x in vals)  # type: ignore[operator]

        return gte
    if isinstance(value, Ref):
        ref_attr = value.attr

        def ref_cmp(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
            wanted = p.get(ref_attr, _EMPTY)
            if not wanted:
                return None  # comparing with a value that does not exist is unknown
            vals = values(f.get(name))
            if vals is None:
                return None
            return any(x in wanted for x in vals)

        return ref_cmp
    wanted_set: frozenset[Scalar] = frozenset(value if isinstance(value, tuple) else (value,))

    if scalar_field and kind is str and allowed is None:  # the commonest: a plain string field

        def str_member(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
            v = f.get(name)
            if type(v) is str:
                return v in wanted_set
            vals = typed_values(name, v)
            return None if vals is None else any(x in wanted_set for x in vals)

        return str_member

    def member(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
        vals = values(f.get(name))
        if vals is None:
            return None
        return any(x in wanted_set for x in vals)

    return member


def _compile_env_cmp(op: str, attr: str, vt: type, value: Scalar | tuple[Scalar, ...] | Ref) -> Fn:
    """A comparison on a principal/context attribute: known exactly, a missing one does not match."""
    if op == "gte":
        assert isinstance(value, int)
        bound = value

        def gte(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
            return any(type(x) is int and x >= bound for x in p.get(attr, _EMPTY))

        return gte
    if isinstance(value, Ref):
        ref_attr = value.attr

        def ref_cmp(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
            wanted = p.get(ref_attr, _EMPTY)
            if not wanted:
                return None  # comparing with a value that does not exist is unknown
            return any(type(x) is vt and x in wanted for x in p.get(attr, _EMPTY))

        return ref_cmp
    wanted_set: frozenset[Scalar] = frozenset(value if isinstance(value, tuple) else (value,))

    def member(p: PrincipalEnv, f: Mapping[str, FieldValue], now: int) -> Tri:
        return any(type(x) is vt and x in wanted_set for x in p.get(attr, _EMPTY))

    return member


def _index_key(expr: Expr) -> tuple[str, tuple[Scalar, ...]] | None:
    """An equality on a principal/context attribute that must hold for the rule to apply."""
    candidates = expr.items if isinstance(expr, AllOf) else (expr,)
    for item in candidates:
        if (
            isinstance(item, Cmp)
            and item.op in ("eq", "in")
            and ATTRIBUTES[item.attr].scope != "fact"
            and not isinstance(item.value, Ref)
        ):
            values = item.value if isinstance(item.value, tuple) else (item.value,)
            return item.attr, values
    return None


@dataclass(slots=True)
class _ActionIndex:
    generic: list[int] = field(default_factory=list)
    keyed: dict[str, dict[Scalar, list[int]]] = field(default_factory=dict)

    def candidates(self, penv: PrincipalEnv) -> list[int]:
        """Positions of the rules that can apply (unordered: generic first, then index hits)."""
        out = self.generic
        copied = False
        for attr, buckets in self.keyed.items():
            for v in penv.get(attr, _EMPTY):
                hit = buckets.get(v)
                if hit:
                    if not copied:
                        out, copied = list(out), True
                    out.extend(hit)
        # a rule keyed on several values (`in`, or a list attribute such as scopes) may be hit twice
        return list(dict.fromkeys(out)) if copied else out


class Engine:
    """Decides point requests against one validated :class:`PolicySet`."""

    def __init__(self, policy: PolicySet) -> None:
        check_rules(policy.rules)  # a set built in code obeys the loader's type rules too
        self.policy = policy
        self.rules: tuple[Rule, ...] = policy.rules
        self._compiled: tuple[tuple[Fn, bool, str, TrustLevel | None], ...] = tuple(
            (compile_expr(r.when), r.effect is Effect.FORBID, r.id, r.max_trust) for r in self.rules
        )
        #: the fact fields each rule reads (to say why a rule could not be decided)
        self._fields: tuple[tuple[str, ...], ...] = tuple(
            tuple(sorted({f for a in attrs_of(r.when) if (f := ATTRIBUTES[a].field) is not None}))
            for r in self.rules
        )
        self._pos = {r.id: i for i, r in enumerate(self.rules)}
        self._index: dict[str, _ActionIndex] = {}
        for pos, rule in enumerate(self.rules):
            key = _index_key(rule.when)
            for action in rule.actions:
                idx = self._index.setdefault(action, _ActionIndex())
                if key is None:
                    idx.generic.append(pos)
                else:
                    attr, values = key
                    buckets = idx.keyed.setdefault(attr, {})
                    for v in dict.fromkeys(values):
                        buckets.setdefault(v, []).append(pos)

    @property
    def digest(self) -> str:
        return self.policy.digest

    def _undecided(self, pos: int, fact: Mapping[str, FieldValue], what: str) -> str:
        """Why rule ``pos`` came out unknown on ``fact``: a type mismatch or a missing attribute."""
        rule_id = self.rules[pos].id
        bad = mistyped(self._fields[pos], fact)
        if bad:
            return (
                f"rule `{rule_id}`: {what} reads `{bad[0]}`, which holds a value of the wrong type"
            )
        return f"rule `{rule_id}`: {what} depends on a missing attribute"

    def candidates(self, action: str, penv: PrincipalEnv) -> list[Rule]:
        """The rules that can apply to ``action`` for this principal (index lookup)."""
        idx = self._index.get(action)
        return [] if idx is None else [self.rules[i] for i in sorted(idx.candidates(penv))]

    def decide_env(
        self,
        penv: PrincipalEnv,
        action: str,
        fact: Mapping[str, FieldValue],
        now: int,
    ) -> PolicyDecision:
        """Decide with a prepared principal/context environment (see :func:`principal_env`)."""
        idx = self._index.get(action)
        if idx is None:
            return PolicyDecision(
                False, self.policy.digest, reason="default deny: no rule names the action"
            )
        permits: list[str] = []
        forbids: list[str] = []
        errors: list[str] = []
        notes: list[str] = []  # permits a type mismatch kept from applying: reported on a deny
        caps: list[TrustLevel] = []
        compiled = self._compiled
        for pos in idx.candidates(penv):
            fn, forbid, rule_id, cap = compiled[pos]
            try:
                v = fn(penv, fact, now)
            except Exception as exc:  # any evaluation error is a deny
                errors.append(f"rule `{rule_id}`: {type(exc).__name__}")
                continue
            if forbid:
                if v is not False:
                    forbids.append(rule_id)
                    if v is None:
                        errors.append(self._undecided(pos, fact, "a forbid"))
            elif v is True:
                permits.append(rule_id)
                if cap is not None:
                    caps.append(cap)
            elif v is None and mistyped(self._fields[pos], fact):
                notes.append(self._undecided(pos, fact, "a permit"))
        digest = self.policy.digest
        if len(forbids) > 1:
            forbids.sort(key=self._pos.__getitem__)
        if len(permits) > 1:
            permits.sort(key=self._pos.__getitem__)
        if forbids:
            return PolicyDecision(
                False, digest, tuple(forbids), tuple(errors + notes), reason="forbid"
            )
        if errors:
            return PolicyDecision(False, digest, (), tuple(errors), reason="evaluation error")
        if not permits:
            return PolicyDecision(
                False, digest, errors=tuple(notes), reason="default deny: no permit applies"
            )
        cap = min(caps) if caps else None
        return PolicyDecision(True, digest, tuple(permits), reason="permit", max_trust=cap)

    def decide(
        self,
        principal: Principal,
        action: str,
        fact: Mapping[str, FieldValue] | None = None,
        *,
        purpose: str | None = "answer",
        now: int = 0,
    ) -> PolicyDecision:
        """A point decision; ``fact`` is the fact's indexed fields (or ``{"namespace": ...}`` for writes)."""
        try:
            penv = principal_env(principal, purpose)
            return self.decide_env(penv, action, fact or {}, now)
        except Exception as exc:  # fail closed, as a value
            return PolicyDecision(
                False, self.policy.digest, errors=(type(exc).__name__,), reason="evaluation error"
            )


def mistyped(fields: Sequence[str], fact: Mapping[str, FieldValue]) -> list[str]:
    """The ``fields`` that ``fact`` holds with a value of the wrong type (present, not well-typed)."""
    out = []
    for name in fields:
        value = fact.get(name)
        if value is not None and value != [] and typed_values(name, value) is None:
            out.append(name)
    return out


def deny_all_engine(digest: str) -> Engine:
    """An engine with no rules (everything is denied)."""
    return Engine(PolicySet((), digest))


def rules_by_id(rules: Sequence[Rule]) -> dict[str, Rule]:
    return {r.id: r for r in rules}
