"""The store seam: what a vector store must do for the guard, and the payload layout it keeps.

A point's payload is ``{"text", "metadata", "memguard": {...}}``. ``memguard`` is the reserved key: the
indexed fields scope conditions filter on, the record digest, and the full provenance record. Caller
metadata lives under ``metadata`` and can never reach the reserved key.

The guard's own stores (:func:`build_payload`) keep the record as its canonical JSON text, the
very bytes the ledger row holds and ``record_digest`` covers: one string is cheaper for an engine
to take and hand back than a dozen nested objects (qdrant-edge converted the nested record in
~9 ms of a 64-fact upsert), and the read path checks it by hashing the text as it is. Payloads
written before (the record as a nested object) are still read and checked
(:func:`memguard.integrity.candidate_problem` takes both); adapters writing into their user's
own collections (:func:`reserved_block`) keep the nested object.
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
    "store_reserved_block",
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


def store_reserved_block(prov: Provenance) -> dict[str, Any]:
    """:func:`reserved_block` with the record as its canonical JSON text (the guard's stores)."""
    reserved: dict[str, Any] = dict(index_fields(prov))
    reserved["version"] = prov.version
    reserved["record_digest"] = prov.record_digest
    reserved["record"] = prov.canonical().decode("utf-8")
    return reserved


def build_payload(text: str, metadata: Mapping[str, Any], prov: Provenance) -> dict[str, Any]:
    """A guard store's payload: text, caller metadata and :func:`store_reserved_block`."""
    return {
        "text": text,
        "metadata": dict(metadata),
        RESERVED_PAYLOAD_KEY: store_reserved_block(prov),
    }


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
