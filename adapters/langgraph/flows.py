"""The flows of one call: a batch of LangGraph ops run as audited kernel operations (reads first,
then the puts, last one per key wins)."""

from __future__ import annotations

from langgraph.store.base import GetOp, Item, ListNamespacesOp, Op, PutOp, Result, SearchOp

from memguard.kernel import VerifiedFact

from .base import Flow
from .reads import _Reads
from .writes import _Writes


class _Flows(_Reads, _Writes):
    __slots__ = ()

    def _batch_flow(self, ops: list[Op]) -> Flow[list[Result]]:
        self._check_ops(ops)
        results: list[Result] = [None] * len(ops)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        renew: list[tuple[VerifiedFact, Item]] = []
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                fact = yield from self._get_flow(op, renew)
                results[i] = fact[1] if fact is not None else None
            elif isinstance(op, SearchOp):
                results[i] = yield from self._search_flow(op, renew)
            elif isinstance(op, ListNamespacesOp):
                results[i] = yield from self._list_flow(op)
            else:
                puts[(tuple(op.namespace), op.key)] = op  # the last put of a key wins
        if renew:  # refresh on read: after the reads, before this batch's own writes
            yield from self._refresh_flow(renew)
        upserts = [p for p in puts.values() if p.value is not None]
        deletes = [p for p in puts.values() if p.value is None]
        if upserts:
            yield from self._write_flow(upserts)
        if deletes:
            yield from self._delete_flow(deletes)
        return results
