"""Scope condition -> a qdrant-client ``Filter`` (the QdrantStore, the qdrant adapter, mem0's Qdrant).

Over the normal form (:mod:`memguard.pushdown.normal`):

- ``Eq``/``In`` -> ``MatchValue``/``MatchAny``; ``Gte`` -> ``Range(gte=...)`` (Qdrant's range bounds
  are floats; every integer that reaches here lies within +-10^14, which a float holds exactly);
- Qdrant's ``must_not`` lets a point with a missing field through, so ``Not(atom)`` carries an
  existence guard (``must_not: is_empty``) for its field, and ``Exists`` is that guard alone;
- array fields match if any element matches, as in the reference semantics.

Exact on every point memguard writes; on a point with a mistyped field (edited outside memguard) it
may select more than the reference, never less, and the guard's re-check withholds it.
"""

from __future__ import annotations

from qdrant_client import models

from memguard.errors import UntranslatableCondition
from memguard.pushdown.normal import NormalForm, normalize
from memguard.pushdown.qfilter import PREFIX, field_key, must_rank
from memguard.scope import And, Condition, Eq, Exists, Gte, In, Not, Or

__all__ = ["NOTHING", "PREFIX", "field_key", "to_qdrant_filter"]

#: A filter no point matches (an empty ``has_id``).
NOTHING = models.Filter(must=[models.HasIdCondition(has_id=[])])


def _exists(name: str) -> models.Filter:
    return models.Filter(
        must_not=[models.IsEmptyCondition(is_empty=models.PayloadField(key=field_key(name)))]
    )


def _atom(cond: Condition) -> models.Condition:
    match cond:
        case Eq(name, value):
            return models.FieldCondition(key=field_key(name), match=models.MatchValue(value=value))
        case In(name, values):
            return models.FieldCondition(
                key=field_key(name),
                match=models.MatchAny(any=list(values)),
            )
        case Gte(name, value):
            return models.FieldCondition(key=field_key(name), range=models.Range(gte=value))
    raise UntranslatableCondition("not a normalized atom")  # pragma: no cover


def _translate(cond: Condition) -> models.Condition:
    match cond:
        case Eq() | In() | Gte():
            return _atom(cond)
        case Exists(name):
            return _exists(name)
        case Not(item):
            return models.Filter(must=[_exists(item.field)], must_not=[_atom(item)])  # type: ignore[union-attr]
        case And(items):
            ordered = sorted(items, key=must_rank)
            return models.Filter(must=[_translate(i) for i in ordered])
        case Or(items):
            return models.Filter(should=[_translate(i) for i in items])
    raise UntranslatableCondition("not a normalized condition")  # pragma: no cover


def to_qdrant_filter(cond: NormalForm) -> models.Filter:
    """The Qdrant filter that selects exactly the points ``cond`` admits."""
    normal = normalize(cond)
    if normal is True:
        return models.Filter()
    if normal is False:
        return NOTHING
    translated = _translate(normal)
    if isinstance(translated, models.Filter):
        return translated
    return models.Filter(must=[translated])
