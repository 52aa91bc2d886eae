"""Scope condition -> mem0's filter language (``filters=`` of ``Memory.search`` / ``get_all``).

mem0 keeps memguard's reserved block under the ``memguard`` payload key, so a field is the dotted
key ``memguard.<field>``, always in operator form (a bare ``"*"`` is mem0's wildcard). Over the
normal form (:mod:`memguard.pushdown.normal`):

- ``Eq`` -> ``eq``, ``In`` -> ``in``, ``Gte`` -> ``gte`` (a float bound in Qdrant: every integer that
  reaches here lies within +-10^14, which a float holds exactly);
- ``Exists`` -> ``nin: ["\\x00"]``: mem0 maps it to Qdrant's ``MatchExcept``, which an absent or
  null field does not satisfy, and no indexed value is ``"\\x00"`` (identifiers, namespaces and ids
  never hold control characters; the other fields are integers or enum values);
- ``Not(atom)`` -> that existence test ``AND`` ``NOT: [atom]`` (``must_not`` alone would let a
  missing field through);
- ``And`` -> field conditions on distinct keys side by side (one Qdrant ``must``, much cheaper in
  local mode than a filter per atom), the rest under ``AND``; ``Or`` -> ``OR``.

The differential test runs these filters through mem0's own ``Memory`` on its Qdrant local store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from memguard.errors import UntranslatableCondition
from memguard.pushdown.normal import NormalForm, normalize
from memguard.scope import FIELDS, And, Condition, Eq, Exists, Gte, In, Not, Or
from memguard.stores.base import RESERVED_PAYLOAD_KEY

__all__ = ["ABSENT", "LOGICAL", "NOTHING", "scoped_filters", "to_mem0_filter"]

LOGICAL: Final = frozenset({"AND", "OR", "NOT", "$and", "$or", "$not"})
#: the value of no indexed field: ``nin`` it is an existence test
ABSENT: Final = "\x00"
#: a filter no memory matches (``in`` an empty list)
NOTHING: Final[dict[str, Any]] = {f"{RESERVED_PAYLOAD_KEY}.fact_id": {"in": []}}


def _key(name: str) -> str:
    if name not in FIELDS:
        raise UntranslatableCondition(f"unknown scope field `{name}`")
    return f"{RESERVED_PAYLOAD_KEY}.{name}"


def _atom(cond: Condition) -> dict[str, Any]:
    match cond:
        case Eq(name, value):
            return {_key(name): {"eq": value}}
        case In(name, values):
            return {_key(name): {"in": list(values)}}
        case Gte(name, value):
            return {_key(name): {"gte": value}}
    raise UntranslatableCondition("not a normalized atom")  # pragma: no cover


def _translate(cond: Condition) -> dict[str, Any]:
    match cond:
        case Eq() | In() | Gte():
            return _atom(cond)
        case Exists(name):
            return {_key(name): {"nin": [ABSENT]}}
        case Not(item):
            guard = {_key(item.field): {"nin": [ABSENT]}}  # type: ignore[union-attr]
            return _conjunction([guard, {"NOT": [_atom(item)]}])
        case And(items):
            return _conjunction([_translate(i) for i in items])
        case Or(items):
            return {"OR": [_translate(i) for i in items]}
    raise UntranslatableCondition("not a normalized condition")  # pragma: no cover


def _conjunction(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One dict for an ``AND``: field conditions on distinct keys side by side, the rest under
    ``AND``."""
    out: dict[str, Any] = {}
    rest: list[dict[str, Any]] = []
    for part in parts:
        if all(k not in LOGICAL and k not in out for k in part):
            out.update(part)
        else:
            rest.append(part)
    if rest:
        out["AND"] = rest
    return out


def to_mem0_filter(cond: NormalForm) -> dict[str, Any]:
    """mem0 filter (Qdrant backend) selecting exactly the memories ``cond`` admits (``{}``: all)."""
    normal = normalize(cond)
    if normal is True:
        return {}
    if normal is False:
        return dict(NOTHING)
    return _translate(normal)


def scoped_filters(
    user_id: str,
    condition: NormalForm | None,
    *,
    narrow: Mapping[str, str] | None = None,
    nested: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The ``filters`` a guarded read hands mem0: ``user_id`` (and ``narrow``: the caller's own
    ``agent_id``/``run_id``), the condition's field conditions, then one ``AND`` of the
    condition's logical parts and ``nested`` (the caller's own, checked filter).

    mem0's search flattens a top-level ``AND`` one level and merges equal keys; ``nested`` sits one
    level deeper, so it reaches the vector store intact and can neither merge into nor overwrite
    a key of the condition (``memguard.*`` keys, always in operator form: never a ``"*"``).
    """
    top: dict[str, Any] = {"user_id": user_id, **(narrow or {})}
    parts: list[Mapping[str, Any]] = []
    if condition is not None:
        pushed = to_mem0_filter(condition)
        top.update({k: v for k, v in pushed.items() if k not in LOGICAL})
        logical = {k: v for k, v in pushed.items() if k in LOGICAL}
        if logical:
            parts.append(logical)
    parts.extend(nested)
    if parts:
        top["AND"] = [{"AND": list(parts)}]
    return top
