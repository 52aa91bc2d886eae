"""The provenance record stamped on every fact, and the canonical serialization its digests use.

Canonical JSON here: UTF-8, keys sorted, no insignificant white space, no NaN/Infinity, and only JSON
types. Digests are ``sha256:<hex>`` of that serialization. The same function serializes audit events.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cached_property
from typing import Annotated, Any, Self, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
    model_validator,
)

from memguard.errors import ReservedField
from memguard.identity import Actor, Principal, PrincipalId
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "RESERVED_KEYS",
    "JsonValue",
    "Provenance",
    "ScanRecord",
    "Source",
    "Turn",
    "WriterChain",
    "canonical_json",
    "check_metadata",
    "content_digest",
    "sha256_digest",
    "value_digest",
]

ProvenanceT = TypeVar("ProvenanceT", bound="Provenance")

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]

#: Keys a caller's metadata may not use: they name provenance, or memguard's reserved payload key.
RESERVED_KEYS = frozenset(
    {
        "memguard",
        "text",
        "metadata",
        "provenance",
        "fact_id",
        "id",
        "version",
        "namespace",
        "owner",
        "source",
        "turn",
        "trust",
        "trust_level",
        "writer",
        "derived_from",
        "created_at",
        "content_digest",
        "policy_digest",
        "record_digest",
    }
)
_MAX_METADATA_BYTES = 64 * 1024
_MAX_DEPTH = 16


#: ``json.dumps(value, **these options)`` builds a new encoder on every call (its arguments are
#: not the defaults); one encoder, built once, gives the same bytes (json.dumps is exactly
#: ``JSONEncoder(**options).encode(value)``) at about half the cost for small values
_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


#: ``_CANONICAL.encode`` builds the C encoder anew on every call (``JSONEncoder.iterencode``);
#: this is that C encoder with the same options, built once (a record's form ~11 -> ~8.5 us).
#: No circular-reference bookkeeping: a self-containing value is not JSON and still fails (a
#: ``RecursionError``, not a ``ValueError``); everything else gives the very same text.
_c_make = getattr(json.encoder, "c_make_encoder", None)
_c_string = getattr(json.encoder, "c_encode_basestring", None)
_C_ENCODE: Callable[[Any, int], tuple[str, ...]] | None = (
    _c_make(None, _CANONICAL.default, _c_string, None, ":", ",", True, False, False)
    if _c_make is not None and _c_string is not None
    else None
)


def canonical_json(value: Any) -> bytes:
    """Serialize JSON-typed ``value`` canonically (sorted keys, compact, UTF-8, no NaN)."""
    if _C_ENCODE is None:  # pragma: no cover - CPython has the C encoder
        return _CANONICAL.encode(value).encode("utf-8")
    return "".join(_C_ENCODE(value, 0)).encode("utf-8")


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def content_digest(text: str, metadata: Mapping[str, Any]) -> str:
    """Digest of what the fact says: its text and its caller metadata."""
    return sha256_digest(canonical_json({"metadata": dict(metadata), "text": text}))


def value_digest(value: Any) -> str:
    """Digest of any JSON value (an adapter's stored payload or document, minus the reserved key)."""
    return sha256_digest(canonical_json(value))


def _check_json(value: object, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise ValueError("metadata is nested too deeply")
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("metadata numbers must be finite")
        return
    if isinstance(value, list):
        for item in value:
            _check_json(item, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError("metadata keys must be strings")
            _check_json(item, depth + 1)
        return
    raise ValueError(f"metadata value of type `{type(value).__name__}` is not JSON")


def check_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Validate caller metadata: JSON only, bounded, and no reserved provenance keys."""
    if not isinstance(metadata, Mapping):
        raise ValueError("metadata must be a mapping")
    for key in metadata:
        if not isinstance(key, str):
            raise ValueError("metadata keys must be strings")
        lowered = key.lower()
        if lowered in RESERVED_KEYS or lowered.startswith(("memguard", "_memguard", "_mg")):
            raise ReservedField(f"metadata key `{key}` is reserved for provenance")
    out = dict(metadata)
    _check_json(out, 0)
    if len(canonical_json(out)) > _MAX_METADATA_BYTES:
        raise ValueError("metadata is too large")
    return out


#: a level's label by its value: ``TrustLevel.label`` goes through the enum's ``name`` property
#: (two descriptor calls); a record serialises two to four levels on every write
_LABELS = tuple(level.label for level in sorted(TrustLevel))


def _trust_label(level: TrustLevel) -> str:
    return _LABELS[level]


def _absent(value: object) -> bool:
    return value is None


TrustField = Annotated[TrustLevel, PlainSerializer(_trust_label, return_type=str)]


class Source(BaseModel):
    """Where a fact came from: the channel kind plus a URI or a name (a tool, a document title)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: SourceKind
    uri: str | None = Field(default=None, max_length=4096)
    name: str | None = Field(default=None, max_length=512)


class Turn(BaseModel):
    """The agent turn that injected the fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    session_id: str = Field(min_length=1, max_length=256)
    turn_index: int = Field(ge=0)
    trace_id: str | None = Field(default=None, max_length=128)
    span_id: str | None = Field(default=None, max_length=128)


class WriterChain(BaseModel):
    """Who wrote the fact: the subject, the actors in delegation order, the workload and the token."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: PrincipalId
    actors: tuple[Actor, ...] = ()
    workload_id: str | None = None
    client_id: str | None = None
    token_jti: str
    #: the Transaction Token ``txn`` of the call chain that wrote it (draft-ietf-oauth-transaction-
    #: tokens); absent from the serialized record when there is none (older records keep digests)
    txn: str | None = Field(default=None, max_length=256, exclude_if=lambda v: v is None)
    #: that Txn-Token's ``tctx`` / ``rctx`` (canonical, at most 2 KiB); absent when there are none,
    #: so the records and digests of writes without them do not change
    txn_context: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)

    @classmethod
    def from_principal(cls, principal: Principal) -> WriterChain:
        return cls(
            subject=principal.subject,
            actors=principal.actors,
            workload_id=principal.workload_id,
            client_id=principal.client_id,
            token_jti=principal.token_jti,
            txn=principal.txn,
            txn_context=json.loads(principal.txn_context) if principal.txn_context else None,
        )


class ScanRecord(BaseModel):
    """The write-time content scan of a fact (memguard.scan): the verdict and the cap it set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: clean, suspicious, malicious, or error (the scanner failed or timed out)
    label: str = Field(pattern=r"^(clean|suspicious|malicious|error)$")
    score: float = Field(ge=0.0, le=1.0)
    reasons: tuple[str, ...] = ()
    scanner: str = Field(max_length=256)
    version: str = Field(max_length=128)
    #: the trust cap the verdict set under the scan policy (``None``: no cap)
    cap: TrustField | None = None
    #: the policy refuses this label (the write was refused; kept for the audit event)
    refused: bool = False
    #: the trust the fact would have had without the cap (what an endorsement restores)
    uncapped: TrustField | None = None
    #: who lifted the cap (``endorse``): the endorser's chain, or ``operator:NAME``
    endorsed_by: str | None = Field(default=None, max_length=1024)

    @field_validator("cap", "uncapped", mode="before")
    @classmethod
    def _parse_cap(cls, value: object) -> TrustLevel | None:
        if value is None:
            return None
        if isinstance(value, str | int | TrustLevel):
            return TrustLevel.parse(value)
        raise ValueError("cap must be a level name")

    def summary(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class Provenance(BaseModel):
    """The full, immutable provenance of one version of one fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact_id: str
    version: int = Field(ge=1)
    namespace: str
    owner: PrincipalId
    source: Source
    turn: Turn
    trust: TrustField
    trust_reason: str
    writer: WriterChain
    derived_from: tuple[str, ...] = ()
    created_at: datetime
    content_digest: str
    policy_digest: str
    #: the lowest channel in the fact's lineage (memguard.lineage_trust); ``None`` on records
    #: written before the field existed, and then left out of the canonical form (their digests
    #: stay what they were)
    lineage_trust: TrustField | None = Field(default=None, exclude_if=_absent)
    #: the write-time content scan (memguard.scan); ``None`` on records written without a scanner
    #: or before the field existed, and then left out of the canonical form (digests unchanged)
    scan: ScanRecord | None = Field(default=None, exclude_if=_absent)
    #: when the fact expires (a time-to-live the writer set, enforced by the kernel: an expired
    #: fact is never served) and the time-to-live in seconds a read's refresh extends it by;
    #: both ``None`` on records without one, and then left out of the canonical form (digests
    #: unchanged)
    expires_at: datetime | None = Field(default=None, exclude_if=_absent)
    ttl_seconds: int | None = Field(default=None, ge=1, exclude_if=_absent)

    @field_validator("trust", "lineage_trust", mode="before")
    @classmethod
    def _parse_trust(cls, value: object) -> TrustLevel | None:
        if value is None:
            return None
        if isinstance(value, str | int | TrustLevel):
            return TrustLevel.parse(value)
        raise ValueError("trust must be a level name")

    @field_validator("created_at", "expires_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("created_at and expires_at must be timezone-aware")
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _expiry_pair(self) -> Provenance:
        if (self.expires_at is None) != (self.ttl_seconds is None):
            raise ValueError("expires_at and ttl_seconds go together")
        return self

    def expired(self, now: float) -> bool:
        """Has this fact expired at ``now`` (seconds since the epoch)?"""
        return self.expires_at is not None and self.expires_at.timestamp() <= now

    def canonical(self) -> bytes:
        return self._canonical

    def json_dict(self) -> dict[str, Any]:
        """The record as JSON types (a fresh copy; the store payload carries it)."""
        value: dict[str, Any] = json.loads(self._canonical)
        return value

    # Computed once per (immutable) record: a write needs it for the ledger row and the payload.
    # They live in the instance ``__dict__``, which pydantic's ``model_copy`` / ``__copy__`` copy
    # as it is: a copy (``model_copy(update=...)``: an owner migration's next version) drops
    # them, or it would carry the form and digest of the record it was copied from.
    def __copy__(self) -> Self:
        return _uncached(super().__copy__())

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        return _uncached(super().__deepcopy__(memo))

    @cached_property
    def _canonical(self) -> bytes:
        return canonical_json(self.model_dump(mode="json"))

    @cached_property
    def record_digest(self) -> str:
        """Digest over the whole record; the store payload must carry the same one."""
        return sha256_digest(self._canonical)


_CACHED = ("_canonical", "record_digest")


def _uncached(record: ProvenanceT) -> ProvenanceT:
    for name in _CACHED:
        record.__dict__.pop(name, None)
    return record


def new_uuid7() -> str:
    """A UUID version 7 (RFC 9562: 48 bits of Unix milliseconds, then 74 random bits from
    ``os.urandom``): unique and unguessable like a version 4, and ids made close in time sort
    close together, so rows keyed by them land on the last pages of their indexes."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")  # 80 bits: 12 for rand_a, 62 for rand_b
    value = (
        (ms & 0xFFFF_FFFF_FFFF) << 80
        | 0x7 << 76
        | (rand >> 68) << 64
        | 0b10 << 62
        | (rand & (2**62 - 1))
    )
    return str(uuid.UUID(int=value))


def now_utc() -> datetime:
    return datetime.now(UTC)
