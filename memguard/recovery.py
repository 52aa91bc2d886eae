"""Recovery and concurrency for the write protocol, one implementation for every backend.

- claims: one writer per fact id at a time in this process (:func:`claim` / :func:`release`);
- stuck rows: staged rows whose abort the ledger refused, aborted on their next touch
  (:func:`resolve_stuck`);
- after a crash: ``pending`` rows reconciled with what the backend holds (:func:`recover_pending`,
  the logic ``MemoryGuard.recover`` had), unfinished purges redone (:func:`redo_purges`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memguard.errors import AccessDenied, LedgerError, MemguardError
from memguard.events import Decision
from memguard.integrity import Candidate, candidate_problem, staged_problem
from memguard.ledger import FactState
from memguard.ports import Flow, run_flow
from memguard.provenance import Provenance

if TYPE_CHECKING:
    from memguard.kernel import Kernel, Operation

__all__ = [
    "claim",
    "is_committed",
    "is_pending",
    "recover_pending",
    "redo_purges",
    "release",
    "resolve_stuck",
]


def claim(kernel: Kernel, op: Operation, fact_ids: Sequence[str]) -> None:
    """Hold ``fact_ids`` for ``op`` until it ends: concurrent writes of one id in this process
    run one after the other (a waiter gives up with a conflict after ``claim_timeout``; on an
    event loop's own thread it does not wait at all)."""
    ids = [f for f in dict.fromkeys(fact_ids) if f not in op._claims]
    if not ids:
        return
    wait = kernel.claim_timeout
    try:
        asyncio.get_running_loop()
        wait = 0.0  # never block the loop: the holder may be a coroutine on it
    except RuntimeError:
        pass
    deadline = time.monotonic() + wait
    with kernel._claim_cond:
        while any(f in kernel._claimed for f in ids):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AccessDenied("the fact is being written", code="access_denied.conflict")
            kernel._claim_cond.wait(left)
        for fact_id in ids:
            kernel._claimed[fact_id] = id(op)
    op._claims.update(ids)


def release(kernel: Kernel, op: Operation) -> None:
    if not op._claims:
        return
    with kernel._claim_cond:
        for fact_id in op._claims:
            if kernel._claimed.get(fact_id) == id(op):
                del kernel._claimed[fact_id]
        kernel._claim_cond.notify_all()
    op._claims.clear()


def is_committed(kernel: Kernel, records: Sequence[Provenance]) -> bool:
    """Are these exact versions committed (a commit whose answer was lost)?"""
    try:
        for prov in records:
            versions = {r.version: r.state for r in kernel.ledger.versions(prov.fact_id)}
            if versions.get(prov.version) is not FactState.COMMITTED:
                return False
        return True
    except Exception:
        return False


def is_pending(kernel: Kernel, prov: Provenance) -> bool:
    return any(
        r.version == prov.version and r.state is FactState.PENDING
        for r in kernel.ledger.versions(prov.fact_id)
    )


def resolve_stuck(kernel: Kernel, fact_ids: Sequence[str] | None = None) -> list[str]:
    """Abort the staged rows of this process's failed writes that the ledger refused to move
    (all, or those of ``fact_ids``); idempotent. Returns the ids now resolved."""
    ids = [
        f for f in (fact_ids if fact_ids is not None else list(kernel._stuck)) if f in kernel._stuck
    ]
    done_ids: list[str] = []
    for fact_id in ids:
        prov = kernel._stuck[fact_id]
        try:
            with kernel.operation(
                "recover", None, require_identity=False, fact_ids=[fact_id]
            ) as op:
                try:
                    kernel.ledger.abort([prov])
                except LedgerError:
                    if is_pending(kernel, prov):
                        raise  # still stuck: stays listed, the touch that asked is refused
                op.finish("recovered_abort", version=prov.version)
        except MemguardError:
            continue
        kernel._stuck.pop(fact_id, None)
        done_ids.append(fact_id)
    return done_ids


def redo_purges(kernel: Kernel, purge: Callable[[list[str]], object]) -> list[str]:
    """Finish deletes whose backend purge did not complete: ``purge(ids)``, then mark them."""
    ids = list(dict.fromkeys(
        r.fact_id for r in kernel.ledger.in_state(FactState.DELETED, purged=False)
    ))  # fmt: skip
    if ids:
        purge(ids)
        kernel.ledger.mark_purged(ids)
    return ids


def recover_pending(
    kernel: Kernel,
    probe: Callable[[Sequence[str]], Flow[Sequence[Candidate]]],
    *,
    older_than: float = 0.0,
) -> tuple[list[str], list[str]]:
    """Reconcile ``pending`` ledger rows with the backend (after a crash): a row whose exact
    version the backend holds (``probe``, run directly) and that the signed log staged is
    committed, any other is aborted. Rows younger than ``older_than`` seconds are left (other
    processes may have them in flight). Idempotent. Returns ``(committed, aborted)`` ids."""
    committed: list[str] = []
    aborted: list[str] = []
    cutoff = kernel.clock() - older_than
    # only rows whose staging process is gone (memguard/ledger/recovery.py): another live
    # process's writes in flight are its own to finish
    pending = kernel.ledger.orphaned_pending(kernel.ledger.in_state(FactState.PENDING))
    logged = kernel.ledger.logged_heads([r.fact_id for r in pending])
    for rec in pending:
        prov = rec.provenance
        if prov.created_at.timestamp() > cutoff:
            continue
        forged = staged_problem(rec, logged.get(rec.fact_id))
        if forged is not None:
            # a pending row the log never staged (inserted around it, with a store point to
            # match): never committed; an alarm, and aborted (it stays unlogged for verify)
            with kernel.operation(
                "recover", None, require_identity=False, fact_ids=[rec.fact_id]
            ) as op:
                op.alarm(rec.fact_id, forged)
                op.finished = True
            found: Sequence[Candidate] = []
        else:
            found = run_flow(probe([rec.fact_id]))
        matches = any(
            c.fact_id == rec.fact_id and candidate_problem(c, rec, prov) is None for c in found
        )
        try:
            with kernel.operation(
                "recover", None, require_identity=False, fact_ids=[rec.fact_id]
            ) as op:
                if matches:
                    event = kernel._event(
                        op, Decision.ALLOW, "recovered_commit", version=rec.version
                    )
                    kernel.ledger.commit([prov], [event])
                    kernel._emit(event)
                    op.finished = True
                    kernel.events_committed()
                    committed.append(rec.fact_id)
                else:
                    kernel.ledger.abort([prov])
                    op.finish("recovered_abort", version=rec.version)
                    aborted.append(rec.fact_id)
                kernel._stuck.pop(rec.fact_id, None)
        except LedgerError:
            # several processes starting on one ledger: another one's recovery (or the
            # writer itself) moved the row on first; anything else is still an error
            if is_pending(kernel, prov):
                raise
    return committed, aborted
