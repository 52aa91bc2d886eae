"""The store seam: what a vector store must do for the guard, and the payload layout it keeps.

A point's payload is ``{"text", "metadata", "memguard": {...}}``. ``memguard`` is the reserved key: the
indexed fields scope conditions filter on, the record digest, and the full provenance record. Caller
metadata lives under ``metadata`` and can never reach the reserved key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from memguard.provenance import Provenance
from memguard.scope import Condition, FieldValue, index_fields

__all__ = [
    "RESERVED_PAYLOAD_KEY",
    "Hit",
    "MemoryStore",
    "StoredPoint",
    "build_payload",
    "reserved_block",
]

RESERVED_PAYLOAD_KEY = "memguard"


@dataclass(frozen=True, slots=True)
class StoredPoint:
    fact_id: str
    payload: Mapping[str, Any]
    vector: Sequence[float] | None = None

    @property
    def index(self) -> Mapping[str, FieldValue]:
        reserved = self.payload.get(RESERVED_PAYLOAD_KEY)
        return reserved if isinstance(reserved, Mapping) else {}


@dataclass(frozen=True, slots=True)
class Hit:
    fact_id: str
    score: float
    payload: Mapping[str, Any]


def reserved_block(prov: Provenance) -> dict[str, Any]:
    """What a backend keeps next to a fact under the reserved key: the indexed fields scope
    conditions filter on, the version, the record digest and the full provenance record."""
    reserved: dict[str, Any] = dict(index_fields(prov))
    reserved["version"] = prov.version
    reserved["record_digest"] = prov.record_digest
    reserved["record"] = prov.json_dict()
    return reserved


def build_payload(text: str, metadata: Mapping[str, Any], prov: Provenance) -> dict[str, Any]:
    return {"text": text, "metadata": dict(metadata), RESERVED_PAYLOAD_KEY: reserved_block(prov)}


class MemoryStore(Protocol):
    """A vector store the guard can push a scope condition into.

    ``search`` must apply ``condition`` inside the store's own query (``None`` means unrestricted) and
    raise :class:`~memguard.scope_translation.UntranslatableCondition` for anything it cannot express.
    Every method raises :class:`~memguard.errors.StoreError` on backend failure.
    """

    dimension: int

    def upsert(self, points: Sequence[StoredPoint]) -> None: ...

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]: ...

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
    ) -> list[Hit]: ...

    def scroll(
        self, *, condition: Condition | None, limit: int, cursor: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        """Points the condition admits in fact-id order, from ``cursor`` (inclusive) on; returns
        the page and the cursor of the next one (``None`` at the end)."""
        ...

    def set_trust(self, trust_by_id: Mapping[str, int]) -> None:
        """Overwrite the indexed ``trust`` of stored points (quarantine sync); unknown ids are
        skipped. The ledger stays the authority: this only keeps pushed-down queries from
        spending their top-k on facts the guard would withhold."""
        ...

    def delete(self, fact_ids: Sequence[str]) -> None: ...

    def close(self) -> None: ...
