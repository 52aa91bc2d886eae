"""Does a store payload still match its ledger row? (A payload edited outside memguard does not.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memguard.ledger import LedgerRecord
from memguard.provenance import Provenance, canonical_json, content_digest, sha256_digest
from memguard.scope import index_fields
from memguard.stores.base import RESERVED_PAYLOAD_KEY

__all__ = ["payload_problem"]


def payload_problem(
    payload: Mapping[str, Any], record: LedgerRecord, prov: Provenance
) -> str | None:
    """Why a store payload does not match its ledger row, or ``None`` if it does."""
    reserved = payload.get(RESERVED_PAYLOAD_KEY)
    text, metadata = payload.get("text"), payload.get("metadata")
    if (
        not isinstance(reserved, Mapping)
        or not isinstance(text, str)
        or not isinstance(metadata, dict)
    ):
        return "integrity.malformed_payload"
    stored_record = reserved.get("record")
    try:
        if sha256_digest(canonical_json(stored_record)) != record.record_digest:
            return "integrity.record_mismatch"
        if content_digest(text, metadata) != prov.content_digest:
            return "integrity.content_mismatch"
    except (TypeError, ValueError):
        return "integrity.malformed_payload"
    expected = index_fields(prov)
    if any(reserved.get(k) != v for k, v in expected.items()):
        return "integrity.index_mismatch"
    if reserved.get("record_digest") != record.record_digest:
        return "integrity.record_mismatch"
    return None
