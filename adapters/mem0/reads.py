"""The core without I/O: reads, pushed down and verified by the kernel."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")


from memguard.errors import (
    FactNotFound,
    InvalidRequest,
)
from memguard.ledger import FactState

from .base import _RESERVED, _Call, _Flow, _id_of, _results, _target, _top_k
from .scope import _CoreBase


class _Reads(_CoreBase):
    """mem0's reads (``search``, ``get_all``, ``get``, ``history``, ``memory_id_of``)."""

    __slots__ = ()

    # -- reads -----------------------------------------------------------------------------------

    def search(
        self,
        query: object,
        *,
        top_k: object,
        filters: Mapping[str, Any] | None,
        options: Mapping[str, Any],
        extra: Mapping[str, Any],
    ) -> _Flow[dict[str, Any]]:
        ctx = self.context
        with self.kernel.operation(
            "search", self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        ) as op:
            filters = self._merge_extra(filters, extra)
            k = _top_k(top_k)
            request = self._read("search")
            plan = op.read_plan(request)
            shown: dict[str, str] = {}
            mem0_filters = self.filters(plan, filters, shown=shown)
            facts = yield from self._verified_page(
                op,
                plan,
                request,
                k,
                lambda limit: _Call(
                    "memory",
                    "search",
                    (query,),
                    {"top_k": limit, "filters": mem0_filters, **options},
                ),
            )
            op.finish(returned=[f.fact_id for f in facts], top_k=k, returned_count=len(facts))
            return {"results": [self.present(f, shown) for f in facts]}

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None,
        top_k: object,
        show_expired: bool,
        extra: Mapping[str, Any],
    ) -> _Flow[dict[str, Any]]:
        ctx = self.context
        with self.kernel.operation(
            "list", self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        ) as op:
            filters = self._merge_extra(filters, extra)
            k = _top_k(top_k)
            request = self._read("search")  # a listing is a search without a query
            plan = op.read_plan(request)
            shown: dict[str, str] = {}
            mem0_filters = self.filters(plan, filters, shown=shown)
            facts = yield from self._verified_page(
                op,
                plan,
                request,
                k,
                lambda limit: _Call(
                    "memory",
                    "get_all",
                    (),
                    {"filters": mem0_filters, "top_k": limit, "show_expired": show_expired},
                ),
            )
            op.finish(returned=[f.fact_id for f in facts], returned_count=len(facts))
            return {"results": [self.present(f, shown) for f in facts]}

    def get(self, memory_id: object) -> _Flow[dict[str, Any] | None]:
        ctx = self.context
        try:
            with self.kernel.operation(
                "get", self.identity, purpose=ctx.purpose, turn=ctx.turn
            ) as op:
                mid, _ = _target(op, memory_id)
                request = self._read("get")
                fact = yield from self._current(op, op.read_plan(request), request, mid)
                op.finish(returned=[fact.fact_id])
                return self.present(fact)
        except FactNotFound:
            return None  # mem0's own "not found"; the deny event is recorded

    def history(self, memory_id: object) -> _Flow[list[dict[str, Any]]]:
        ctx = self.context
        try:
            with self.kernel.operation("history", self.identity, purpose=ctx.purpose) as op:
                mid, fact_id = _target(op, memory_id)
                request = self._read("get")
                plan = op.read_plan(request)
                record = self.kernel.ledger.latest([fact_id]).get(fact_id)
                # a deleted memory's (redacted) trail stays readable by whoever could read it
                if record is None or record.state not in (FactState.COMMITTED, FactState.DELETED):
                    op.note(why="no such fact")
                    raise FactNotFound("fact not found")
                if record.quarantined or not op.admits(plan, request, record):
                    op.note(why="quarantined") if record.quarantined else "out of scope"
                    raise FactNotFound("fact not found")
                rows = yield _Call("memory", "history", (mid,))
                op.finish(returned=[fact_id], rows=len(rows) if isinstance(rows, list) else 0)
                return list(rows) if isinstance(rows, list) else []
        except FactNotFound:
            return []  # mem0's answer for an unknown id

    def memory_id_of(self, fact_id: object) -> _Flow[str]:
        ctx = self.context
        with self.kernel.operation("get", self.identity, purpose=ctx.purpose) as op:
            if not isinstance(fact_id, str) or not 0 < len(fact_id) <= 64:
                raise InvalidRequest("`fact_id` must be a fact id")
            op.about([fact_id])
            request = self._read("get")
            plan = op.read_plan(request)
            by_fact = {f"{_RESERVED}.fact_id": {"eq": fact_id}}
            filters = self.filters(plan, extra=by_fact)
            items = _results(
                (
                    yield _Call(
                        "memory",
                        "get_all",
                        (),
                        {"filters": filters, "top_k": 2, "show_expired": True},
                    )
                )
            )
            cands = [
                c for c in map(self.candidate, items) if c is not None and c.fact_id == fact_id
            ]
            verified = op.verify(plan, request, cands, pushed_down=True)
            if len(verified) != 1:
                raise FactNotFound("fact not found")
            op.finish()
            return _id_of(verified[0])
