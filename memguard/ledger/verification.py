"""``Ledger.verify`` and ``Ledger.repair``: the log's tree with its witness, every projection row
replayed from the log (in full, or incrementally after the verified marker), every store point
against its row; and the explicit, logged repair. Moved out of memguard/ledger/ledger.py (the
methods there call these)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from memguard.errors import IntegrityError
from memguard.events import AuditEvent, Decision
from memguard.ledger.auditlog import ProblemKind, VerifyReport, _Problems
from memguard.ledger.changelog import PROJECTIONS, ChangeSet, encode_row, key_of
from memguard.ledger.checkpoint import CheckpointSigner, CheckpointVerifier
from memguard.ledger.records import FactState
from memguard.ledger.replay import check_projections, expected_projection, repair_derived
from memguard.ledger.replay_since import check_projections_since
from memguard.ledger.verified import VerifiedMark, read_mark, write_mark
from memguard.ledger.witness import WitnessDir
from memguard.logging import get_logger
from memguard.stores.base import MemoryStore
from memguard.trust import TrustLevel

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = ["check_store", "repair_ledger", "verify_ledger"]


def verify_ledger(
    ledger: Ledger,
    *,
    verifier: CheckpointVerifier | None = None,
    external_checkpoints: Sequence[str] = (),
    max_pending_age: float = 300.0,
    max_problems: int = 1000,
    store: MemoryStore | None = None,
    since_checkpoint: bool = False,
    marker_signer: CheckpointSigner | None = None,
) -> VerifyReport:
    """The audit log's tree (:meth:`AuditLog.verify`, with the witness) and every projection
    row, event column and fact link replayed from it (:func:`check_projections`); with
    ``store``, every committed fact's store point against its (verified) row.

    A full verify that finds nothing records its latest checkpoint as verified in the witness
    folder (signed with ``marker_signer``, default the log's signer; memguard/ledger/verified.py).
    ``since_checkpoint``: replay only the log after that marker (the tree, checkpoints and
    witness are still checked in full); without a marker that holds, the replay is full."""
    report = ledger.log.verify(
        verifier=verifier,
        external_checkpoints=external_checkpoints,
        max_pending_age=max_pending_age,
        max_problems=max_problems,
    )
    problems = _Problems(max_problems)
    problems.items.extend(report.problems)
    start = _replay_start(ledger, verifier, problems) if since_checkpoint else 0
    with ledger.log._snapshot() as conn:
        if start:
            check_projections_since(conn, problems, start)
        else:
            check_projections(conn, problems)
    if store is not None:
        check_store(ledger, store, problems)
    omitted = report.problems_omitted + problems.omitted
    ok = not any(p.severity == "tamper" for p in problems.items) and not omitted
    marked = None
    if ok and start == 0:
        marked = _mark_verified(ledger, report, marker_signer)
    return replace(report, ok=ok, problems=tuple(problems.items), problems_omitted=omitted,
                   replay_from=start, marked_verified=marked)  # fmt: skip

def _witness_dir(ledger: Ledger) -> Path | None:
    witness = ledger.log.witness
    return witness.path if isinstance(witness, WitnessDir) else None

def _replay_start(
    ledger: Ledger, verifier: CheckpointVerifier | None, problems: _Problems) -> int:
    """Where an incremental replay may start: the verified marker's tree size, if its
    signature verifies and its root is the tree's root at that size; else 0 (full), with a
    problem for a marker that does not hold (fail closed: never skip on doubt)."""
    folder = _witness_dir(ledger)
    verifier = verifier if verifier is not None else ledger.log.verifier
    if folder is None or verifier is None:
        return 0
    try:
        mark = read_mark(folder, verifier)
        if mark is None or mark.tree_size == 0:
            return 0
        size = ledger.log.size()
        if mark.tree_size > size or ledger.log.root(mark.tree_size) != mark.root_hash:
            raise IntegrityError("its root is not the tree's at that size")
        return mark.tree_size
    except Exception as exc:
        problems.add(
            ProblemKind.BAD_SIGNATURE,
            f"the verified marker in `{folder}` does not hold ({exc}): replayed in full",
        )
        return 0

def _mark_verified(
    ledger: Ledger, report: VerifyReport, signer: CheckpointSigner | None) -> int | None:
    """Record the latest checkpoint of a clean full verify as verified (never raises: a
    marker that cannot be written only makes the next incremental verify a full one)."""
    folder = _witness_dir(ledger)
    signer = signer if signer is not None else ledger.log.signer
    last = report.last_checkpoint
    if folder is None or signer is None or last is None:
        return None
    try:
        write_mark(folder, VerifiedMark(last.tree_size, last.root_hash, time.time()), signer)
        return last.tree_size
    except Exception as exc:
        get_logger().warning("ledger.verified_mark_failed", error=type(exc).__name__)
        return None

def check_store(ledger: Ledger, store: MemoryStore, problems: _Problems) -> None:
    """Each committed fact's point: present, and its payload (text and metadata digest,
    reserved record, record digest, version, index fields) matching the row."""
    from memguard.integrity import payload_problem
    from memguard.stores.base import RESERVED_PAYLOAD_KEY

    ids = [r.fact_id for r in ledger.in_state(FactState.COMMITTED)]
    # a quarantine change not yet synced to the store: its copy may still say quarantined
    unsynced = {fact_id for fact_id, _ in ledger.lineage.unsynced()}
    for start in range(0, len(ids), 500):
        heads = {
            fact_id: replace(rec, quarantined=True) if fact_id in unsynced else rec
            for fact_id, rec in ledger.latest(ids[start : start + 500]).items()
        }
        points = {p.fact_id: p for p in store.retrieve(list(heads))}
        for fact_id, rec in heads.items():
            key = {"fact_id": fact_id}
            point = points.get(fact_id)
            if point is None:
                problems.add(ProblemKind.ROW_DELETED,
                             f"store point {fact_id}: a committed fact has no point",
                             table="store", key=key)  # fmt: skip
                continue
            reserved = point.payload.get(RESERVED_PAYLOAD_KEY)
            problem = payload_problem(point.payload, rec, rec.provenance)
            if problem is None and (
                not isinstance(reserved, dict) or reserved.get("version") != rec.version
            ):
                problem = "integrity.version_mismatch"
            if (problem is None and rec.quarantined and fact_id not in unsynced
                    and isinstance(reserved, dict)
                    and reserved.get("trust") != int(TrustLevel.QUARANTINED)):
                # a synced quarantine marks the store copy; a copy without the mark would
                # pass pushed-down trust filters (the kernel still withholds it on reads)
                problem = "integrity.quarantine_mark_missing"
            if problem is not None:
                problems.add(ProblemKind.ROW_EDITED,
                             f"store point {fact_id}: {problem}", table="store", key=key,
                             column=problem, expected=rec.record_digest)  # fmt: skip

def repair_ledger(ledger: Ledger, *, actor: str, reason: str) -> dict[str, int]:
    """Make the log cover what the database holds now, and log that: queue events that are
    neither in the tree nor queued, rewrite event columns and fact links (``mg_audit_fact``,
    ``mg_change_fact``) from the event JSON, and append one change entry that puts every projection row as it is now (and removes the
    rows the log wrote that are gone), then an alarm event ``ledger.repair`` with the counts.

    Run it only after ``verify`` and a decision that the current rows are right: it turns
    whatever they say into logged history (it does not restore anything)."""
    adopted = ledger.log.adopt_unlogged()
    counts = {"events_adopted": adopted, "rows_put": 0, "rows_removed": 0,
              "event_columns": 0, "fact_links": 0, "change_links": 0}  # fmt: skip
    changes = ChangeSet("ledger.repair")
    with ledger._tx() as conn:
        if ledger.dialect == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        counts.update(repair_derived(conn))
        expected = expected_projection(conn)
        for name, table in PROJECTIONS.items():
            want = expected[name]
            seen: set[tuple[Any, ...]] = set()
            for raw in conn.execute(select(table)):
                row = dict(raw._mapping)
                key = tuple(key_of(table, row).values())
                seen.add(key)
                if want.get(key) != encode_row(table, row):
                    changes.put(table, [row])
                    counts["rows_put"] += 1
            gone = [k for k in want if k not in seen]
            pk = [c.name for c in table.primary_key]
            changes.delete(table, [dict(zip(pk, k, strict=True)) for k in gone])
            counts["rows_removed"] += len(gone)
        ledger._log_changes(conn, changes)
        alarm = AuditEvent(
            action="ledger.repair",
            decision=Decision.ALARM,
            reason=reason[:128] or "repair",
            principal={"subject": actor},
            detail=dict(counts),
        )
        ledger._insert_events(conn, [alarm])
    return counts
