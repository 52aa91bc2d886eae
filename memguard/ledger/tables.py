"""SQLModel tables of the ledger. Names are prefixed ``mg_`` to live beside an application's tables."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Index, Text, text
from sqlmodel import Field, SQLModel

__all__ = [
    "AuditEventRow",
    "AuditFactRow",
    "ChangeFactRow",
    "LedgerMetaRow",
    "LineageRow",
    "ProvenanceRow",
    "QuarantineRow",
    "RevocationRow",
    "TurnReadRow",
]

#: the partial indexes' conditions (SQL text, the same on SQLite and PostgreSQL); a query that is
#: to use one repeats its condition verbatim (SQLite's planner matches the text, not its meaning)
FLAGGED = "decision <> 'allow'"
CHANGES = "action = 'ledger.change'"


class ProvenanceRow(SQLModel, table=True):
    """One version of one fact. ``state``: pending -> committed -> superseded | deleted; or aborted."""

    __tablename__ = "mg_provenance"
    #: the secondary indexes are those a lookup needs (memguard/ledger/provindexes.py says which
    #: query uses which; every write inserts into each): ``source_uri`` only where it is set
    __table_args__ = (
        Index(
            "ix_mg_provenance_source_uri_set",
            "source_uri",
            sqlite_where=text("source_uri IS NOT NULL"),
            postgresql_where=text("source_uri IS NOT NULL"),
        ),
    )

    fact_id: str = Field(primary_key=True, max_length=64)
    version: int = Field(primary_key=True)
    state: str = Field(index=True, max_length=16)
    purged: bool = Field(default=False)
    namespace: str
    owner_iss: str
    owner_sub: str = Field(index=True)
    trust: int
    source_kind: str = Field(max_length=32)
    source_uri: str | None = Field(default=None)
    session_id: str = Field(index=True)
    turn_index: int
    writer_sub: str
    workload_id: str | None = Field(default=None)
    token_jti: str = Field(index=True)
    record: str = Field(sa_column=Column(Text, nullable=False))
    record_digest: str = Field(max_length=80)
    content_digest: str = Field(max_length=80)
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class AuditEventRow(SQLModel, table=True):
    """One audit event; ``seq`` orders the log. On SQLite ``AUTOINCREMENT``: a deleted last event's
    seq is never handed out again (it would collide with its queued leaf hash, and every later
    write would fail).

    Indexes (issue 16: each one is a B-tree every read's event is inserted into): the primary key,
    the unique ``event_id`` and two partial indexes that hold only the rare rows the queries below
    look for, so a read's allow event goes into neither. ``events(decision=...)`` of a decision
    other than ``allow`` uses :data:`FLAGGED`; the change entries (``action = 'ledger.change'``:
    verify's replay, migrations, ``count_events``) use :data:`CHANGES`. No query filters on
    ``ts``, ``subject`` or ``trace_id``; ledgers from before had an index on each
    (memguard/ledger/auditschema.py drops them)."""

    __tablename__ = "mg_audit_event"
    __table_args__ = (
        Index(
            "ix_mg_audit_event_flagged", "decision",
            sqlite_where=text(FLAGGED), postgresql_where=text(FLAGGED),
        ),
        Index(
            "ix_mg_audit_event_changes", "action",
            sqlite_where=text(CHANGES), postgresql_where=text(CHANGES),
        ),
        {"sqlite_autoincrement": True},
    )  # fmt: skip

    seq: int | None = Field(default=None, primary_key=True)
    event_id: str = Field(unique=True, max_length=64)
    ts: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    action: str = Field(max_length=32)
    decision: str = Field(max_length=16)
    reason: str = Field(max_length=128)
    subject: str | None = Field(default=None)
    trace_id: str | None = Field(default=None)
    event: str = Field(sa_column=Column(Text, nullable=False))
    event_digest: str = Field(max_length=80)


class AuditFactRow(SQLModel, table=True):
    """Which facts an event touched, so a fact's reads can be listed."""

    __tablename__ = "mg_audit_fact"

    event_seq: int = Field(primary_key=True, foreign_key="mg_audit_event.seq")
    fact_id: str = Field(primary_key=True, index=True, max_length=64)


class ChangeFactRow(SQLModel, table=True):
    """Which facts a change entry (action ``ledger.change``) writes rows of: the read path finds a
    fact's change entries here by key, without walking its reads' links in ``mg_audit_fact``.
    Derived from the entries' signed ``fact_ids`` (``memguard ledger verify`` compares, ``repair``
    rewrites); no foreign key, so a link to an event that is gone is seen (and refused) on read."""

    __tablename__ = "mg_change_fact"

    fact_id: str = Field(primary_key=True, max_length=64)
    event_seq: int = Field(primary_key=True, index=True)


class LineageRow(SQLModel, table=True):
    """One lineage edge: ``child_id`` was written from ``parent_id``.

    ``kind``: ``derived`` (the write named the parent in ``derived_from``) or ``context`` (the parent
    was read in the same turn before the child was written: the turn's taint).
    """

    __tablename__ = "mg_lineage"

    child_id: str = Field(primary_key=True, max_length=64)
    parent_id: str = Field(primary_key=True, index=True, max_length=64)
    kind: str = Field(max_length=16)


class RevocationRow(SQLModel, table=True):
    """A revocation: what it selects (``kind`` + canonical JSON ``selector``), why, by whom, and
    whose future writes and calls it bars (``reach``)."""

    __tablename__ = "mg_revocation"

    revocation_id: str = Field(primary_key=True, max_length=64)
    kind: str = Field(index=True, max_length=32)
    selector: str = Field(sa_column=Column(Text, nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    actor: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    active: bool = Field(default=True, index=True)
    event_id: str = Field(max_length=64)
    #: whose writes and calls it bars while active: one owner (issuer, subject), or everyone (null)
    reach_iss: str | None = Field(default=None)
    reach_sub: str | None = Field(default=None)


class QuarantineRow(SQLModel, table=True):
    """``fact_id`` is quarantined by ``revocation_id`` until an endorsement lifts it.

    ``store_synced`` is false until the store's index copy of the fact's trust reflects the row
    (set to ``quarantined`` or restored); recovery redoes unfinished syncs.
    """

    __tablename__ = "mg_quarantine"

    fact_id: str = Field(primary_key=True, max_length=64)
    revocation_id: str = Field(primary_key=True, max_length=64, index=True)
    lifted: bool = Field(default=False)
    lifted_event_id: str | None = Field(default=None, max_length=64)
    store_synced: bool = Field(default=False, index=True)


class TurnReadRow(SQLModel, table=True):
    """A fact read during one turn of one owner's session; writes in that turn are tainted by it."""

    __tablename__ = "mg_turn_read"

    owner_iss: str = Field(primary_key=True)
    owner_sub: str = Field(primary_key=True)
    session_id: str = Field(primary_key=True)
    turn_index: int = Field(primary_key=True)
    fact_id: str = Field(primary_key=True, max_length=64)
    trust: int


class LedgerMetaRow(SQLModel, table=True):
    """Facts about the ledger itself, e.g. ``owner_scheme``: how owners of exchanged tokens' facts
    are keyed (1: the token service's issuer, before RFC 9493 ``sub_id``; 2: the subject's issuer)."""

    __tablename__ = "mg_ledger_meta"

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(sa_column=Column(Text, nullable=False))
