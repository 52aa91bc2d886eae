"""The TTL sweep: expired items deleted through the kernel's delete path (a tombstone and an
audit event each), never by the inner store's own expiry.

The inner store is asked for the items whose ``__memguard_expires_at`` has passed (in every
tenant: the sweep is the operator's, like ``memguard adopt``); the kernel decides which of them
are due (:meth:`memguard.kernel.Operation.expired`: the ledger's latest committed version has
expired), tombstones them with one ``expire`` event per batch, then the inner copies are purged.
"""

from __future__ import annotations

from typing import Final

from langgraph.store.base import Op, PutOp, SearchItem, SearchOp

from memguard.context import external_fact_id
from memguard.kernel import Kernel

from .base import _EXPIRES_KEY, Flow, _expires_text, _listed, namespace_name

__all__ = ["sweep_flow"]

_PAGE: Final = 500
#: at most this many facts per ``expire`` operation (one tombstone transaction, one event)
_BATCH: Final = 256


def sweep_flow(kernel: Kernel) -> Flow[int]:
    """Delete every expired item of the inner store through the kernel; returns how many."""
    now = kernel.clock()
    expired = {_EXPIRES_KEY: {"$ne": None, "$lte": _expires_text(int(now))}}
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    offset = 0
    while True:
        (page,) = yield [SearchOp((), expired, _PAGE, offset, None, False)]
        hits = [h for h in _listed(page) if isinstance(h, SearchItem)]
        for hit in hits:
            if len(hit.namespace) < 2:
                continue  # not a guard-written item (no tenant label and namespace)
            tenant, *rest = hit.namespace
            fact_id = external_fact_id("langgraph", tenant, namespace_name(rest), hit.key)
            found[fact_id] = (tuple(hit.namespace), hit.key)
        if len(hits) < _PAGE:
            break
        offset += _PAGE
    ids = list(found)
    deleted = 0
    for start in range(0, len(ids), _BATCH):
        chunk = ids[start : start + _BATCH]
        with kernel.operation("expire", None, require_identity=False, fact_ids=chunk) as op:
            due = op.expired(chunk)
            if not due:
                op.note(why="nothing due")
                continue
            purge_ops: list[Op] = [PutOp(*found[f], None) for f in due]

            def purge(ops: list[Op] = purge_ops) -> Flow[None]:
                yield ops
                return None

            yield from op.delete_flow(due, purge)
            deleted += len(due)
    return deleted
