"""The write protocol the kernel runs for every caller: stage -> store -> commit, abort, and the
in-process resolution of a failed commit; and delete (tombstone -> purge -> purged).

The backend's half comes through a port (:mod:`memguard.ports`); these are the bodies of
:meth:`memguard.kernel.Operation.persist` / ``persist_flow`` / ``delete`` / ``delete_flow``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from memguard.errors import Fenced, InvalidRequest
from memguard.events import Decision
from memguard.ports import Flow, WritePort, done, holds, run_flow
from memguard.provenance import Provenance
from memguard.recovery import claim, is_committed

if TYPE_CHECKING:
    from memguard.kernel import Operation

__all__ = ["delete", "delete_flow", "persist", "persist_flow"]

T = TypeVar("T")


def persist(op: Operation, records: Sequence[Provenance], port: WritePort[T], **detail: Any) -> T:
    """:meth:`persist_flow` for a port whose flows yield no backend call (no driver)."""
    return run_flow(op.persist_flow(records, port, **detail))


def persist_flow(
    op: Operation, records: Sequence[Provenance], port: WritePort[T], **detail: Any
) -> Flow[T]:
    """Stage -> store -> commit, the one write protocol: ledger rows ``pending`` (durable
    before the backend sees anything), ``port.put``, then ``committed`` with the lineage edges
    and the allow event (``detail``) in one transaction.

    A failed put aborts the rows. A failed commit is resolved here, in-process: the port is
    probed, a write that landed is committed again, anything else is aborted; a row the ledger
    cannot move stays ``pending`` and is resolved when this kernel next touches its id (or by
    :meth:`Kernel.resolve_stuck`). The caller gets the result, or the error as a deny.
    """
    records = list(records)
    if not records:
        raise InvalidRequest("nothing to write")
    claim(op.kernel, op, [p.fact_id for p in records])
    op.fact_ids = [p.fact_id for p in records]
    op.kernel.ledger.begin(records)  # nothing is staged if this raises: a plain deny
    try:
        result = yield from port.put(records)
    except (Exception, GeneratorExit, asyncio.CancelledError):
        # the store failed, or the call was cancelled; a dying process (KeyboardInterrupt,
        # SystemExit) leaves the rows pending for recovery, which probes the store
        _abort(op, records)
        raise
    try:
        _commit(op, records, **detail)
    except Fenced:
        _abort(op, records)  # the deletion fence: what it read is gone; never commit it
        raise
    except Exception as exc:
        op.detail["commit_error"] = type(exc).__name__
        if not (yield from _resolve(op, records, port, detail)):
            raise
    return result


def _resolve(
    op: Operation, records: list[Provenance], port: WritePort[Any], detail: Mapping[str, Any]
) -> Flow[bool]:
    """After a failed commit: commit what the backend holds exactly, else abort (fail closed).
    True when the write stands committed."""
    landed = False
    try:
        found = yield from port.probe([p.fact_id for p in records])
        by_id = {c.fact_id: c for c in found}
        landed = all(p.fact_id in by_id and holds(by_id[p.fact_id], p) for p in records)
    except Exception as exc:  # cannot tell what the backend holds: never commit blind
        op.detail["probe_error"] = type(exc).__name__
    if landed:
        try:
            _commit(op, records, "recovered_commit", **detail)
            return True
        except Exception:
            if is_committed(op.kernel, records):  # the first commit went through after all
                op.finished = True
                return True
    _abort(op, records)
    return False


def _commit(
    op: Operation, records: Sequence[Provenance], reason: str = "ok", **detail: Any
) -> None:
    """Ledger rows ``committed``, lineage edges and the allow event, in one transaction; the
    event is emitted only once it is recorded."""
    edges = [e for p in records for e in op._edges.get(p.fact_id, ())]
    fence = sorted({f for p in records for f in op._fence.get(p.fact_id, ())})
    event = op.kernel._event(
        op, Decision.ALLOW, reason, versions=[p.version for p in records], **detail
    )
    if fence:
        writer = op.principal.summary() if op.principal is not None else None
        op.kernel.ledger.commit(records, [event], edges=edges, fence=fence, writer=writer)
    elif edges:
        op.kernel.ledger.commit(records, [event], edges=edges)
    else:
        op.kernel.ledger.commit(records, [event])
    op.kernel._emit(event)
    op.finished = True
    op.kernel.events_committed()


def _abort(op: Operation, records: Sequence[Provenance]) -> None:
    """Abort staged rows; rows the ledger cannot move are resolved on their next touch."""
    try:
        op.kernel.ledger.abort(records)
    except Exception as exc:
        op.detail["abort_error"] = type(exc).__name__
        op.kernel._stuck.update({p.fact_id: p for p in records})


def delete(op: Operation, fact_ids: Sequence[str], purge: Callable[[], T], **detail: Any) -> T:
    """:meth:`delete_flow` with a direct purge (no driver)."""
    return run_flow(op.delete_flow(fact_ids, lambda: done(purge()), **detail))


def delete_flow(
    op: Operation, fact_ids: Sequence[str], purge: Callable[[], Flow[T]], **detail: Any
) -> Flow[T]:
    """Delete: the ledger rows become ``deleted`` with the allow event, in one transaction,
    before the backend is touched (a deleted fact is never served again, even if the purge
    then fails), then ``purge()`` runs and the rows are marked purged (recovery redoes an
    unfinished purge)."""
    ids = list(fact_ids)
    claim(op.kernel, op, ids)
    op.fact_ids = ids
    event = op.kernel._event(op, Decision.ALLOW, "ok", **detail)
    op.kernel.ledger.mark_deleted(ids, [event])
    op.kernel._emit(event)
    op.finished = True
    op.kernel.events_committed()
    result = yield from purge()
    op.kernel.ledger.mark_purged(ids)
    return result
