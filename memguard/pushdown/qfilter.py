"""Payload keys of the scope fields in a Qdrant point, shared by both Qdrant targets.

The qdrant-client translator (:mod:`memguard.pushdown.qdrant`) and the qdrant-edge one
(:mod:`memguard.pushdown.edge`) name a field the same way; this module imports neither engine, so
the embedded default (qdrant-edge) never loads qdrant-client to name a key.
"""

from __future__ import annotations

from memguard.errors import UntranslatableCondition
from memguard.scope import FIELDS

__all__ = ["PREFIX", "field_key"]

PREFIX = "memguard."


def field_key(name: str) -> str:
    """The payload key of scope field ``name`` (an unknown field is untranslatable)."""
    if name not in FIELDS:
        raise UntranslatableCondition(f"unknown scope field `{name}`")
    return PREFIX + name
