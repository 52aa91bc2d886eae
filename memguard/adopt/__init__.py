"""``memguard adopt``: turn data that existed before memguard into guarded facts.

See :mod:`memguard.adopt.run` for the protocol (LangGraph stores adopted where they are:
``memguard.adapters.langgraph.adopt_in_place``), :mod:`memguard.adopt.sources` for the legacy
stores it reads and :mod:`memguard.adopt.rows` for the owner mapping (docs/adopt.md).
"""

from memguard.adopt.mem0 import adopt_mem0_in_place
from memguard.adopt.rows import AdoptReport, LegacyRow, OwnerMapping
from memguard.adopt.run import adopt_into_guard, adopt_qdrant_in_place, legacy_source

__all__ = [
    "AdoptReport",
    "LegacyRow",
    "OwnerMapping",
    "adopt_into_guard",
    "adopt_mem0_in_place",
    "adopt_qdrant_in_place",
    "legacy_source",
]
