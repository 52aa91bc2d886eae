"""The policy language's type rules: which literal each attribute takes, checked before anything runs.

Every attribute has a type (:class:`~memguard.policy.model.AttrType`): ``string``, ``integer``
(int64), ``trust`` (a level by name, held as its number ``0..6``) or ``source_kind`` (one of the
source kinds). A literal of another type, a boolean or a float for an integer, an integer beyond
int64, an unknown level or kind, an order operator on a string, or a reference to an attribute of
another type is a load error (``policy validate`` reports it with file, line and column); a policy
set built in code is checked by the same rules when an :class:`~memguard.policy.evaluate.Engine` is
made from it. At run time a *fact* value of the wrong type makes a comparison unknown, never true
(see :func:`memguard.scope.typed_values`).
"""

from __future__ import annotations

from collections.abc import Sequence

from memguard.policy.model import (
    ATTRIBUTES,
    AllOf,
    AnyOf,
    AttrType,
    Cmp,
    Expr,
    NotExpr,
    PolicyError,
    Problem,
    Ref,
    Rule,
    Scalar,
)
from memguard.trust import SourceKind, TrustLevel
from memguard.yamlsafe import INT64_MAX, INT64_MIN

__all__ = ["ORDER_OPS", "check_rules", "convert_literal", "literal_problem"]

ORDER_OPS = frozenset({"gte", "gt", "lte", "lt"})
_KINDS = frozenset(k.value for k in SourceKind)
_IR_OPS = frozenset({"eq", "in", "gte"})


def convert_literal(attr: str, value: object) -> tuple[Scalar, str | None]:
    """A YAML value as the typed literal of ``attr`` (trust levels by name become their number),
    or the problem with it."""
    spec = ATTRIBUTES[attr]
    if spec.type is AttrType.TRUST:
        if not isinstance(value, str):
            return 0, f"`{attr}` takes a trust level name (quarantined ... system)"
        try:
            return int(TrustLevel.parse(value)), None
        except ValueError:
            return 0, f"unknown trust level `{value}`"
    problem = literal_problem(attr, value)
    return (value if problem is None else 0), problem  # type: ignore[return-value]


def literal_problem(attr: str, value: object) -> str | None:
    """Why ``value`` is not a literal of ``attr``'s type (``None`` if it is one)."""
    spec = ATTRIBUTES[attr]
    if spec.type is AttrType.STR:
        return None if type(value) is str else f"`{attr}` takes a string, not {_what(value)}"
    if spec.type is AttrType.SOURCE_KIND:
        if type(value) is not str or value not in _KINDS:
            return (
                f"unknown source kind `{value}`"
                if type(value) is str
                else (f"`{attr}` takes a source kind, not {_what(value)}")
            )
        return None
    if type(value) is not int:
        return f"`{attr}` takes an integer, not {_what(value)}"
    if spec.type is AttrType.TRUST and not int(TrustLevel.QUARANTINED) <= value <= int(
        TrustLevel.SYSTEM
    ):
        return f"`{attr}` takes a trust level (0..6), not {value}"
    if not INT64_MIN <= value <= INT64_MAX:
        return f"`{attr}` takes an int64"
    return None


def _what(value: object) -> str:
    return {bool: "a boolean", float: "a float", int: "an integer", str: "a string"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _cmp_problem(cmp: Cmp) -> str | None:
    spec = ATTRIBUTES.get(cmp.attr)
    if spec is None:
        return f"unknown attribute `{cmp.attr}`"
    if cmp.op not in _IR_OPS:
        return f"unknown operator `{cmp.op}`"
    if cmp.op == "gte":
        if spec.type not in (AttrType.INT, AttrType.TRUST):
            return f"`gte` needs an integer or trust attribute, `{cmp.attr}` is a {spec.type.value}"
        if isinstance(cmp.value, Ref | tuple):
            return "`gte` takes one literal"
        return literal_problem(cmp.attr, cmp.value) if cmp.attr != "fact.age" else (
            None if type(cmp.value) is int and INT64_MIN <= cmp.value <= INT64_MAX
            else "`fact.age` takes an integer number of seconds"
        )  # fmt: skip
    if cmp.attr == "fact.age":
        return "`fact.age` takes `gte`, `gt`, `lte` or `lt`"
    value = cmp.value
    if isinstance(value, Ref):
        other = ATTRIBUTES.get(value.attr)
        if other is None or other.scope == "fact":
            return "a reference must name a principal or context attribute"
        if other.value_type is not spec.value_type or spec.type is AttrType.TRUST:
            return f"`{cmp.attr}` and `{value.attr}` have different types"
        if other.is_list and cmp.op != "in":
            return f"`{value.attr}` is a list: use `in`/`not_in`"
        return None
    values = value if isinstance(value, tuple) else (value,)
    if cmp.op == "in" and not values:
        return "unreachable: `in` with an empty list"
    for v in values:
        problem = literal_problem(cmp.attr, v)
        if problem is not None:
            return problem
    return None


def _expr_problems(expr: Expr, out: list[str]) -> None:
    match expr:
        case Cmp():
            problem = _cmp_problem(expr)
            if problem is not None:
                out.append(problem)
        case AllOf(items) | AnyOf(items):
            for item in items:
                _expr_problems(item, out)
        case NotExpr(item):
            _expr_problems(item, out)
        case _:
            out.append(f"unknown expression `{type(expr).__name__}`")


def check_rules(rules: Sequence[Rule]) -> None:
    """Refuse (:class:`PolicyError`) rules whose comparisons break the type rules."""
    problems: list[Problem] = []
    for rule in rules:
        found: list[str] = []
        _expr_problems(rule.when, found)
        problems.extend(Problem(rule.file, rule.line, msg, rule.id) for msg in found)
    if problems:
        raise PolicyError(problems)
