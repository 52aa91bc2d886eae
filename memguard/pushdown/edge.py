"""A qdrant-client ``Filter`` -> the same filter in qdrant-edge's Python types (the QdrantEdgeStore).

qdrant-edge evaluates the Qdrant server's Filter model; only its Python classes differ from
qdrant-client's. So there is no second translation of a scope here: :func:`to_qdrant_filter`
(:mod:`memguard.pushdown.qdrant`) does the one translation, and this module maps its output node by
node. It maps exactly the node kinds that translator emits (``Filter`` with must / should /
must_not, ``FieldCondition`` with ``MatchValue`` / ``MatchAny`` / ``Range``, ``IsEmptyCondition``,
``HasIdCondition``); anything else raises :class:`~memguard.errors.UntranslatableCondition` (the
read is refused, never post-filtered).
"""

from __future__ import annotations

from collections.abc import Sequence

import qdrant_edge as qe
from qdrant_client import models

from memguard.errors import UntranslatableCondition
from memguard.pushdown.normal import NormalForm
from memguard.pushdown.qdrant import to_qdrant_filter

__all__ = ["from_client_filter", "to_edge_filter"]

EdgeCondition = (
    qe.FieldCondition
    | qe.IsEmptyCondition
    | qe.IsNullCondition
    | qe.HasIdCondition
    | qe.HasVectorCondition
    | qe.NestedCondition
    | qe.Filter
)


def to_edge_filter(cond: NormalForm) -> qe.Filter:
    """The qdrant-edge filter that selects exactly the points ``cond`` admits."""
    return from_client_filter(to_qdrant_filter(cond))


def from_client_filter(flt: models.Filter) -> qe.Filter:
    """The same filter in qdrant-edge's types."""
    if flt.min_should is not None:
        raise UntranslatableCondition("min_should is not used by memguard's translator")
    return qe.Filter(
        must=_conditions(flt.must),
        should=_conditions(flt.should),
        must_not=_conditions(flt.must_not),
    )


def _conditions(
    items: Sequence[models.Condition] | models.Condition | None,
) -> list[EdgeCondition] | None:
    if items is None:
        return None
    seq = items if isinstance(items, list) else [items]
    return [_condition(c) for c in seq]


def _condition(cond: object) -> EdgeCondition:
    if isinstance(cond, models.Filter):
        return from_client_filter(cond)
    if isinstance(cond, models.IsEmptyCondition):
        return qe.IsEmptyCondition(key=cond.is_empty.key)
    if isinstance(cond, models.HasIdCondition):
        return qe.HasIdCondition(point_ids={str(i) for i in cond.has_id})
    if isinstance(cond, models.FieldCondition):
        return _field(cond)
    raise UntranslatableCondition(f"no qdrant-edge form for `{type(cond).__name__}`")


def _field(cond: models.FieldCondition) -> qe.FieldCondition:
    others = (
        cond.geo_bounding_box,
        cond.geo_radius,
        cond.geo_polygon,
        cond.values_count,
        cond.is_empty,
        cond.is_null,
    )
    if any(o is not None for o in others) or (cond.match is None) == (cond.range is None):
        raise UntranslatableCondition("unsupported field condition")
    if cond.range is not None:
        r = cond.range
        if not isinstance(r, models.Range):
            raise UntranslatableCondition("datetime ranges are not used by memguard")
        return qe.FieldCondition(
            key=cond.key, range=qe.RangeFloat(gte=_f(r.gte), gt=_f(r.gt), lte=_f(r.lte), lt=_f(r.lt))
        )
    match = cond.match
    if isinstance(match, models.MatchValue):
        return qe.FieldCondition(key=cond.key, match=qe.MatchValue(match.value))
    if isinstance(match, models.MatchAny):
        values: list[str] | list[int] = list(match.any)  # type: ignore[assignment]
        return qe.FieldCondition(key=cond.key, match=qe.MatchAny(values))
    raise UntranslatableCondition("unsupported match")


def _f(value: float | None) -> float | None:
    return None if value is None else float(value)
