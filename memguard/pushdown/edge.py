"""Scope condition -> a qdrant-edge ``Filter`` (the QdrantEdgeStore, the embedded default).

qdrant-edge evaluates the Qdrant server's Filter model, so this is the same translation as
:mod:`memguard.pushdown.qdrant` (node for node), built directly in qdrant-edge's Python types from
the normal form (:mod:`memguard.pushdown.normal`): the embedded default never imports qdrant-client.

- ``Eq``/``In`` -> ``MatchValue``/``MatchAny``; ``Gte`` -> ``RangeFloat(gte=...)`` (every integer
  that reaches here lies within +-10^14 after normalization, which a float holds exactly);
- Qdrant's ``must_not`` lets a point with a missing field through, so ``Not(atom)`` carries an
  existence guard (``must_not: is_empty``) for its field, and ``Exists`` is that guard alone;
- array fields match if any element matches, as in the reference semantics.

The differential test (tests/test_pushdown_edge.py) checks this against the point evaluator and
against qdrant-client local mode running :func:`~memguard.pushdown.qdrant.to_qdrant_filter`'s
filter. Anything outside the normal form raises
:class:`~memguard.errors.UntranslatableCondition` (the read is refused, never post-filtered).
"""

from __future__ import annotations

import qdrant_edge as qe

from memguard.errors import UntranslatableCondition
from memguard.pushdown.normal import NormalForm, normalize
from memguard.pushdown.qfilter import field_key, must_rank
from memguard.scope import And, Condition, Eq, Exists, Gte, In, Not, Or

__all__ = ["NOTHING", "to_edge_filter"]

EdgeCondition = qe.FieldCondition | qe.IsEmptyCondition | qe.HasIdCondition | qe.Filter


def _nothing() -> qe.Filter:
    """A filter no point matches (an empty ``has_id``)."""
    return qe.Filter(must=[qe.HasIdCondition(point_ids=set())])


NOTHING = _nothing()


def _exists(name: str) -> qe.Filter:
    return qe.Filter(must_not=[qe.IsEmptyCondition(key=field_key(name))])


def _atom(cond: Condition) -> qe.FieldCondition:
    match cond:
        case Eq(name, value):
            return qe.FieldCondition(key=field_key(name), match=qe.MatchValue(value))
        case In(name, values):
            return qe.FieldCondition(key=field_key(name), match=qe.MatchAny(list(values)))  # type: ignore[arg-type]
        case Gte(name, value):
            return qe.FieldCondition(key=field_key(name), range=qe.RangeFloat(gte=float(value)))
    raise UntranslatableCondition("not a normalized atom")


def _negated(item: Condition) -> qe.Filter:
    """``Not(atom)``: the field is present and the atom is false."""
    if not isinstance(item, Eq | In | Gte):
        raise UntranslatableCondition("not a normalized negation")
    return qe.Filter(must=[_exists(item.field)], must_not=[_atom(item)])


def _translate(cond: Condition) -> EdgeCondition:
    match cond:
        case Eq() | In() | Gte():
            return _atom(cond)
        case Exists(name):
            return _exists(name)
        case Not(item):
            return _negated(item)
        case And(items):
            return qe.Filter(must=[_translate(i) for i in sorted(items, key=must_rank)])
        case Or(items):
            return qe.Filter(should=[_translate(i) for i in items])
    raise UntranslatableCondition("not a normalized condition")


def to_edge_filter(cond: NormalForm) -> qe.Filter:
    """The qdrant-edge filter that selects exactly the points ``cond`` admits."""
    normal = normalize(cond)
    if normal is True:
        return qe.Filter()
    if normal is False:
        return _nothing()
    translated = _translate(normal)
    if isinstance(translated, qe.Filter):
        return translated
    return qe.Filter(must=[translated])
