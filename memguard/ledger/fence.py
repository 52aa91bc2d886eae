"""The deletion fence (issue 21): a write commits only if nothing it read or derives from was
deleted (by another principal) or quarantined meanwhile, checked in the commit's transaction.
Moved out of memguard/ledger/ledger.py (``Ledger.commit(fence=...)``, ``Ledger.fence_lock``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from memguard.events import Decision
from memguard.ledger.records import FactState
from memguard.ledger.tables import AuditEventRow, AuditFactRow, ProvenanceRow, QuarantineRow

__all__ = ["deleted_by", "fence_lock", "fenced_facts"]

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_EVENT_FACT = AuditFactRow.__table__  # type: ignore[attr-defined]
_QUARANTINE = QuarantineRow.__table__  # type: ignore[attr-defined]
_FENCE_LOCK = 0x6D67_6665_6E63_65  # the deletion fence's PostgreSQL advisory lock key ("mgfence")


def fence_lock(conn: Connection, dialect: str, *, exclusive: bool) -> None:
    """Order fenced commits against deletes and revocations (see :meth:`Ledger.commit`)."""
    if dialect == "postgresql":
        fn = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
        conn.exec_driver_sql(f"SELECT {fn}({_FENCE_LOCK})")
    elif dialect == "sqlite":
        # pysqlite opens the transaction at the first write: take the write lock now, so
        # the check below and the commit see one state
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def deleted_by(conn: Connection, fact_id: str, writer: Mapping[str, Any] | None) -> bool:
    """Whether ``writer`` made the newest allowed delete of ``fact_id`` (not, when unknown)."""
    if writer is None:
        return False
    row = conn.execute(
        select(_EVENT.c.event)
        .select_from(_EVENT_FACT.join(_EVENT, _EVENT.c.seq == _EVENT_FACT.c.event_seq))
        .where(
            _EVENT_FACT.c.fact_id == fact_id,
            _EVENT.c.action == "delete",
            _EVENT.c.decision == Decision.ALLOW.value,
        )
        .order_by(_EVENT.c.seq.desc())
        .limit(1)
    ).first()
    if row is None:
        return False
    try:
        principal = json.loads(row[0]).get("principal") or {}
    except (ValueError, AttributeError):
        return False
    keys = ("issuer", "subject", "actors")
    return all(principal.get(k) == writer.get(k) for k in keys) and bool(principal.get("subject"))

def fenced_facts(
    conn: Connection, fact_ids: Sequence[str], writer: Mapping[str, Any] | None
) -> set[str]:
    hit: set[str] = set()
    for start in range(0, len(fact_ids), 500):
        chunk = list(fact_ids[start : start + 500])
        states: dict[str, set[str]] = {}
        for fid, state in conn.execute(
            select(_PROV.c.fact_id, _PROV.c.state).where(
                _PROV.c.fact_id.in_(chunk),
                _PROV.c.state.in_([FactState.DELETED.value, FactState.COMMITTED.value]),
            )
        ).all():
            states.setdefault(str(fid), set()).add(str(state))
        deleted = [f for f, st in states.items() if st == {FactState.DELETED.value}]
        hit.update(f for f in deleted if not deleted_by(conn, f, writer))
        hit.update(
            str(r[0])
            for r in conn.execute(
                select(_QUARANTINE.c.fact_id).where(
                    _QUARANTINE.c.fact_id.in_(chunk), _QUARANTINE.c.lifted.is_(False)
                )
            ).all()
        )
    return hit
