"""What the ledger hands out: a fact's state, a provenance row as held, a turn's read.

Moved out of memguard/ledger/ledger.py (import them from there or from ``memguard.ledger`` as
before)."""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any

from memguard.ledger.changelog import encode_value
from memguard.provenance import Provenance

__all__ = ["FactState", "LedgerRecord", "TurnRead"]


class FactState(enum.StrEnum):
    PENDING = "pending"
    COMMITTED = "committed"
    SUPERSEDED = "superseded"
    ABORTED = "aborted"
    DELETED = "deleted"


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    """A provenance row as the ledger holds it."""

    fact_id: str
    version: int
    state: FactState
    record_digest: str
    content_digest: str
    record: str
    purged: bool
    #: an active quarantine holds the fact (only :meth:`Ledger.latest` fills this in)
    quarantined: bool = False

    @property
    def provenance(self) -> Provenance:
        return _parse(self.record)


@dataclass(frozen=True, slots=True)
class TurnRead:
    """A fact a read returned during one turn of one owner's session (the turn's taint)."""

    owner_iss: str
    owner_sub: str
    session_id: str
    turn_index: int
    fact_id: str
    trust: int


@functools.lru_cache(maxsize=8192)
def _parse(record: str) -> Provenance:
    """The provenance a record text holds. A pure function of the text (the model is frozen), so
    the same text parsed for every hit of every read is parsed once: a row edited in the ledger
    is a different text, parsed afresh (and compared with the signed log by the read path)."""
    return Provenance.model_validate_json(record)


def _record(row: Any) -> LedgerRecord:
    return LedgerRecord(
        row.fact_id,
        row.version,
        FactState(row.state),
        row.record_digest,
        row.content_digest,
        row.record,
        bool(row.purged),
        bool(getattr(row, "quarantined", False)),
    )


def _row_values(prov: Provenance) -> dict[str, Any]:
    writer = prov.writer
    return {
        "fact_id": prov.fact_id,
        "version": prov.version,
        "state": FactState.PENDING.value,
        "purged": False,
        "namespace": prov.namespace,
        "owner_iss": prov.owner.issuer,
        "owner_sub": prov.owner.subject,
        "trust": int(prov.trust),
        "source_kind": prov.source.kind.value,
        "source_uri": prov.source.uri,
        "session_id": prov.turn.session_id,
        "turn_index": prov.turn.turn_index,
        "writer_sub": writer.actors[-1].subject if writer.actors else writer.subject.subject,
        "workload_id": writer.workload_id,
        "token_jti": writer.token_jti,
        "record": prov.canonical().decode("utf-8"),
        "record_digest": prov.record_digest,
        "content_digest": prov.content_digest,
        "created_at": prov.created_at,
    }


def _row_encoded(prov: Provenance, row: dict[str, Any]) -> dict[str, Any]:
    """``encode_row`` of :func:`_row_values`'s ``row`` for ``prov`` (its change-entry form),
    from what the record holds: the text is logged by its digest, which is ``record_digest``
    (the digest of the same bytes, not hashed again); every other value but ``created_at`` is a
    plain ``str`` / ``int`` / ``bool`` or ``None``, logged as it is."""
    created = encode_value("mg_provenance", "created_at", row["created_at"])
    return row | {"record": prov.record_digest, "created_at": created}
