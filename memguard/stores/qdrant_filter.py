"""Translate a scope :data:`~memguard.scope.Condition` into a qdrant-client ``Filter``.

Qdrant's ``must_not`` lets a point with a missing field through, so each negation carries an
existence guard (``must_not: is_empty``) for every field it mentions; array fields match if any element
matches, which is also the reference semantics. Anything without an exact translation raises
:class:`~memguard.errors.UntranslatableCondition`: the query is refused, never post-filtered.
"""

from __future__ import annotations

from qdrant_client import models

from memguard.errors import UntranslatableCondition
from memguard.scope import FIELDS, And, Condition, Eq, Gte, In, Not, Or, fields_of

__all__ = ["field_key", "to_qdrant_filter"]

PREFIX = "memguard."


def field_key(name: str) -> str:
    if name not in FIELDS:
        raise UntranslatableCondition(f"unknown scope field `{name}`")
    return PREFIX + name


def _scalar(value: object) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise UntranslatableCondition("scope values must be strings or integers")
    return value


def _exists(name: str) -> models.Filter:
    return models.Filter(
        must_not=[models.IsEmptyCondition(is_empty=models.PayloadField(key=field_key(name)))]
    )


def _translate(cond: Condition) -> models.Condition:
    match cond:
        case Eq(name, value):
            return models.FieldCondition(
                key=field_key(name), match=models.MatchValue(value=_scalar(value))
            )
        case In(name, values):
            if not values:
                raise UntranslatableCondition("empty `in` list")
            strs = [v for v in values if isinstance(_scalar(v), str)]
            ints = [v for v in values if not isinstance(v, str)]
            parts: list[models.Condition] = []
            if strs:
                parts.append(
                    models.FieldCondition(key=field_key(name), match=models.MatchAny(any=strs))
                )
            if ints:
                parts.append(
                    models.FieldCondition(key=field_key(name), match=models.MatchAny(any=ints))
                )
            return parts[0] if len(parts) == 1 else models.Filter(should=parts)
        case Gte(name, value):
            if isinstance(value, bool) or not isinstance(value, int):
                raise UntranslatableCondition("`gte` needs an integer")
            return models.FieldCondition(key=field_key(name), range=models.Range(gte=value))
        case And(items):
            if not items:
                raise UntranslatableCondition("empty `and`")
            return models.Filter(must=[_translate(i) for i in items])
        case Or(items):
            if not items:
                raise UntranslatableCondition("empty `or`")
            return models.Filter(should=[_translate(i) for i in items])
        case Not(item):
            guards: list[models.Condition] = [_exists(n) for n in sorted(set(fields_of(item)))]
            return models.Filter(must=guards, must_not=[_translate(item)])
    raise UntranslatableCondition(f"unsupported condition `{type(cond).__name__}`")


def to_qdrant_filter(cond: Condition) -> models.Filter:
    """The Qdrant filter that selects exactly the points ``cond`` admits."""
    translated = _translate(cond)
    if isinstance(translated, models.Filter):
        return translated
    return models.Filter(must=[translated])
