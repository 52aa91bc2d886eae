"""SQLModel tables of the ledger. Names are prefixed ``mg_`` to live beside an application's tables."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Text
from sqlmodel import Field, SQLModel

__all__ = ["AuditEventRow", "AuditFactRow", "ProvenanceRow"]


class ProvenanceRow(SQLModel, table=True):
    """One version of one fact. ``state``: pending -> committed -> superseded | deleted; or aborted."""

    __tablename__ = "mg_provenance"

    fact_id: str = Field(primary_key=True, max_length=64)
    version: int = Field(primary_key=True)
    state: str = Field(index=True, max_length=16)
    purged: bool = Field(default=False)
    namespace: str = Field(index=True)
    owner_iss: str
    owner_sub: str = Field(index=True)
    trust: int
    source_kind: str = Field(index=True, max_length=32)
    source_uri: str | None = Field(default=None, index=True)
    session_id: str = Field(index=True)
    turn_index: int
    writer_sub: str
    workload_id: str | None = Field(default=None, index=True)
    token_jti: str = Field(index=True)
    record: str = Field(sa_column=Column(Text, nullable=False))
    record_digest: str = Field(max_length=80)
    content_digest: str = Field(max_length=80)
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class AuditEventRow(SQLModel, table=True):
    """One audit event; ``seq`` orders the log."""

    __tablename__ = "mg_audit_event"

    seq: int | None = Field(default=None, primary_key=True)
    event_id: str = Field(unique=True, max_length=64)
    ts: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False, index=True))
    action: str = Field(index=True, max_length=32)
    decision: str = Field(index=True, max_length=16)
    reason: str = Field(max_length=128)
    subject: str | None = Field(default=None, index=True)
    trace_id: str | None = Field(default=None, index=True)
    event: str = Field(sa_column=Column(Text, nullable=False))
    event_digest: str = Field(max_length=80)


class AuditFactRow(SQLModel, table=True):
    """Which facts an event touched, so a fact's reads can be listed."""

    __tablename__ = "mg_audit_fact"

    event_seq: int = Field(primary_key=True, foreign_key="mg_audit_event.seq")
    fact_id: str = Field(primary_key=True, index=True, max_length=64)
