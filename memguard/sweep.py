"""The general expiry sweep of a guard's store (:meth:`memguard.guard.MemoryGuard.sweep_expired`,
``memguard sweep``): the facts whose latest ledger version has expired are deleted through the
kernel's ``expire`` operation (:mod:`memguard.expiry`), a tombstone and an audit event each batch,
then purged from the store.

The ledger is the authority: candidates are the committed facts whose record carries an expiry
(records without a time-to-live have no ``expires_at`` field at all), each operation decides again
on the kernel's clock (:meth:`memguard.kernel.Operation.expired`) before it tombstones anything, so
a fact renewed or rewritten meanwhile is kept. Only facts this guard's store holds are swept: an
expired fact kept in another backend on the same ledger (a LangGraph store) is left to that
backend's own sweep, which can purge its copy (a tombstone here could not), and is reported as
``elsewhere``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Final

from memguard.errors import InvalidRequest
from memguard.kernel import Kernel
from memguard.ledger import FactState
from memguard.stores.base import MemoryStore

__all__ = ["SweepReport", "sweep_expired"]

#: at most this many facts per ``expire`` operation unless told (one tombstone transaction)
DEFAULT_BATCH: Final = 256


@dataclass(frozen=True, slots=True)
class SweepReport:
    """What a sweep found and did. ``due``: the expired facts this store holds (a dry run stops
    there); ``deleted``: those the kernel tombstoned and the store purged; ``elsewhere``: expired
    facts this store does not hold (another backend's on the same ledger; not touched)."""

    now: float
    dry_run: bool
    due: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    elsewhere: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {
            "now": self.now,
            "dry_run": self.dry_run,
            "due": list(self.due),
            "deleted": list(self.deleted),
            "elsewhere": list(self.elsewhere),
        }


def _candidates(kernel: Kernel) -> list[str]:
    """Committed facts with an expiry in some version (the latest is checked afterwards)."""
    rows = kernel.ledger.in_state(FactState.COMMITTED)
    return sorted({r.fact_id for r in rows if '"expires_at"' in r.record})


def sweep_expired(
    kernel: Kernel,
    store: MemoryStore,
    *,
    operator: str,
    dry_run: bool = False,
    batch: int = DEFAULT_BATCH,
    on_batch: Callable[[int], object] | None = None,
) -> SweepReport:
    """Delete the facts of ``store`` whose latest ledger version has expired on the kernel's clock
    (see the module docstring); ``dry_run`` lists them and changes nothing. ``on_batch(n)`` is
    called after each batch of ``n`` candidates (a progress display). A failure inside an
    operation is a deny event and an error; what was tombstoned is never served again, and
    :meth:`~memguard.guard.MemoryGuard.recover` finishes an interrupted purge."""
    if not isinstance(operator, str) or not operator:
        raise InvalidRequest("`operator` must be a non-empty string")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= 10_000:
        raise InvalidRequest("batch must be between 1 and 10000")
    now = kernel.clock()
    ids = _candidates(kernel)
    due: list[str] = []
    deleted: list[str] = []
    elsewhere: list[str] = []
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        heads = kernel.ledger.latest(chunk)
        expired = [
            f for f in chunk
            if (h := heads.get(f)) is not None and h.state is FactState.COMMITTED
            and h.provenance.expired(now)
        ]  # fmt: skip
        held = {p.fact_id for p in store.retrieve(expired)} if expired else set()
        absent = [f for f in expired if f not in held]
        if absent:  # still committed: another backend's (not one a concurrent sweep just purged)
            again = kernel.ledger.latest(absent)
            elsewhere += [
                f for f in absent if (h := again.get(f)) and h.state is FactState.COMMITTED
            ]
        mine = [f for f in expired if f in held]
        due += mine
        if mine and not dry_run:
            with kernel.operation("expire", None, require_identity=False, fact_ids=mine) as op:
                op.note(operator=operator)
                gone = op.expired(mine)  # the kernel decides again, on its own clock
                if gone:
                    op.delete(gone, partial(store.delete, gone))
                    deleted += gone
                else:
                    op.note(why="nothing due")
        if on_batch is not None:
            on_batch(len(chunk))
    return SweepReport(now, dry_run, tuple(due), tuple(deleted), tuple(elsewhere))
