"""Audit events: one for every allow, every deny and every integrity alarm.

Events hold identifiers and digests, never raw tokens or fact content. ``digest`` is SHA-256 over the
event's canonical JSON, so an edited stored event no longer matches its digest.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memguard.provenance import canonical_json, new_uuid7, now_utc, sha256_digest

__all__ = ["AuditEvent", "Decision"]


class Decision(enum.StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    ALARM = "alarm"


class AuditEvent(BaseModel):
    """One security decision."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: str = Field(default_factory=new_uuid7)  # time-ordered: appends to its unique index
    ts: datetime = Field(default_factory=now_utc)
    action: str
    decision: Decision
    reason: str
    principal: dict[str, Any] | None = None
    fact_ids: tuple[str, ...] = ()
    trace_id: str | None = None
    purpose: str | None = None
    policy_digest: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)

    def canonical(self) -> bytes:
        return canonical_json(self.model_dump(mode="json"))

    @property
    def digest(self) -> str:
        return sha256_digest(self.canonical())
