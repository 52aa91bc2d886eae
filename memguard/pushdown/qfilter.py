"""Payload keys of the scope fields in a Qdrant point, shared by both Qdrant targets.

The qdrant-client translator (:mod:`memguard.pushdown.qdrant`) and the qdrant-edge one
(:mod:`memguard.pushdown.edge`) name a field the same way; this module imports neither engine, so
the embedded default (qdrant-edge) never loads qdrant-client to name a key.
"""

from __future__ import annotations

from memguard.errors import UntranslatableCondition
from memguard.scope import FIELDS, And, Condition, Eq, Gte, In, Or

__all__ = ["PREFIX", "field_key", "must_rank"]

PREFIX = "memguard."

# An engine that evaluates a `must` point by point stops at the first false condition (qdrant-client
# local mode does, in Python), so the most selective atoms go first (the owner subject rules out most
# points). Both translators emit the same order, so both engines get the same filter.
_RANK = {"owner_sub": 0, "fact_id": 0, "writer_sub": 1, "workload_id": 1, "source_kind": 2}


def field_key(name: str) -> str:
    """The payload key of scope field ``name`` (an unknown field is untranslatable)."""
    if name not in FIELDS:
        raise UntranslatableCondition(f"unknown scope field `{name}`")
    return PREFIX + name


def must_rank(cond: Condition) -> int:
    """The sort key of a part of a ``must``: selective atoms first, compounds, then negations."""
    if isinstance(cond, Eq | In | Gte):
        return _RANK.get(cond.field, 3)
    return 4 if isinstance(cond, And | Or) else 5
