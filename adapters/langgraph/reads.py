"""The read flows: get, provenance, search (scope pushed into the inner filter, merged exactly),
list_namespaces."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.store.base import GetOp, Item, ListNamespacesOp, MatchCondition, SearchItem, SearchOp

from memguard.context import external_fact_id
from memguard.errors import FactNotFound, ReservedField
from memguard.integrity import Candidate
from memguard.kernel import VerifiedFact
from memguard.provenance import Provenance
from memguard.pushdown.langgraph import Merge, to_langgraph_filters
from memguard.pushdown.normal import conj, fold
from memguard.scope import Gte, ReadRequest, fields_of

from .base import (
    _FILL_ROUNDS,
    _LIST_PAGE,
    Flow,
    _candidate,
    _is_reserved,
    _json_copy,
    _listed,
    _not_expired_filter,
    namespace_name,
)
from .call import _CallBase


class _Reads(_CallBase):
    __slots__ = ()

    def _item(self, item: Item, value: Mapping[str, Any], score: float | None = None) -> SearchItem:
        return SearchItem(
            namespace=self._outer_ns(item.namespace) or (),
            key=item.key,
            value=_json_copy(dict(value)),
            created_at=item.created_at,
            updated_at=item.updated_at,
            score=score,
        )

    def _get_flow(
        self, op_: GetOp, renew: list[tuple[VerifiedFact, Item]] | None = None
    ) -> Flow[tuple[VerifiedFact, Item] | None]:
        """``renew``: where to add the returned fact for a refresh on read."""
        namespace = tuple(op_.namespace)
        fact_id = self.fact_id(namespace, op_.key)
        with self._read_op("get", [fact_id]) as op:
            request = ReadRequest("get", purpose=self.ctx.purpose)
            plan = op.read_plan(request)
            (found,) = yield [GetOp(self._inner_ns(namespace), op_.key, False)]
            if not isinstance(found, Item):
                op.note(why="no such item")
                op.finish(returned=[])
                return None
            verified = op.verify(plan, request, [_candidate(fact_id, found.value)])
            op.finish(returned=[v.fact_id for v in verified])
            if not verified:
                return None
            if renew is not None and op_.refresh_ttl:
                renew.append((verified[0], found))
            plain = Item(
                value=_json_copy(dict(verified[0].candidate.payload or {})),
                key=found.key,
                namespace=namespace,
                created_at=found.created_at,
                updated_at=found.updated_at,
            )
            return verified[0], plain

    def _provenance_flow(self, op_: GetOp) -> Flow[Provenance]:
        self._check_ops([op_])
        fact = yield from self._get_flow(op_)
        if fact is None:
            raise FactNotFound("fact not found")
        return fact[0].provenance

    def _search_flow(
        self, op_: SearchOp, renew: list[tuple[VerifiedFact, Item]] | None = None
    ) -> Flow[list[SearchItem]]:
        """``renew``: where to add the returned facts for a refresh on read."""
        ctx = self.ctx
        with self._read_op("search") as op:
            caller_filter = dict(op_.filter or {})
            for key in caller_filter:
                if not isinstance(key, str) or _is_reserved(key):
                    raise ReservedField(f"filter key `{key}` is reserved for provenance")
            request = ReadRequest("search", purpose=ctx.purpose)
            plan = op.read_plan(request)
            # one inner filter per disjunct of the scope (LangGraph has no `or`), merged exactly
            residual = self._residual(plan)
            if self.min_trust is not None:
                residual = conj([residual, Gte("trust", int(self.min_trust))])
            filters = to_langgraph_filters(residual)
            if self.ttl_config is not None:  # the store's items carry their expiry: push it down
                filters = [{**f, **_not_expired_filter(self.kernel.clock())} for f in filters]
            if not filters:
                op.finish(returned=[], returned_count=0, why="scope admits nothing here")
                return []
            prefix = self._inner_ns(tuple(op_.namespace_prefix))
            # The caller's window [offset, offset+limit) counts visible items only, so read from
            # the start and verify; nothing withheld -> one inner call per filter, the same as the
            # raw store for one filter.
            want = op_.offset + op_.limit
            ranked = bool(op_.query) and bool(self.index_config)
            merge: Merge[SearchItem] = Merge(len(filters), ranked=ranked, page=want)
            kept: list[SearchItem] = []
            ids: list[str] = []
            raw: list[Item] = []
            facts: list[VerifiedFact] = []
            rounds = 0
            while len(kept) < want and not merge.done:
                batch = merge.ready()
                if not batch:
                    pages = merge.wanted(want - len(kept))
                    rounds += 1
                    if not pages or (ranked and rounds > _FILL_ROUNDS):
                        break
                    results = yield [
                        SearchOp(prefix, {**caller_filter, **filters[i]} or None, limit, offset,
                                 op_.query, False)
                        for i, offset, limit in pages
                    ]  # fmt: skip
                    for (i, _, limit), hits in zip(pages, results, strict=True):
                        found = [h for h in _listed(hits) if isinstance(h, SearchItem)]
                        merge.feed(i, found, limit)
                    continue
                by_id: dict[str, SearchItem] = {}
                candidates: list[Candidate] = []
                for hit in batch:
                    outer = self._outer_ns(hit.namespace)
                    if outer is None:  # the store answered outside the prefix it was given
                        op.alarm(
                            external_fact_id("langgraph", *hit.namespace, hit.key),
                            "scope.pushdown_mismatch",
                        )
                        continue
                    fid = self.fact_id(outer, hit.key)
                    by_id[fid] = hit
                    candidates.append(_candidate(fid, hit.value, hit.score))
                for fact in op.verify(plan, request, candidates, pushed_down=True):
                    if self.min_trust is not None and fact.provenance.trust < self.min_trust:
                        op.alarm(fact.fact_id, "scope.pushdown_mismatch")
                        continue
                    hit = by_id[fact.fact_id]
                    kept.append(self._item(hit, fact.candidate.payload or {}, hit.score))
                    ids.append(fact.fact_id)
                    facts.append(fact)
                    raw.append(hit)
            page = kept[op_.offset : want]
            returned = ids[op_.offset : want]
            if renew is not None and op_.refresh_ttl:
                renew.extend(zip(facts[op_.offset : want], raw[op_.offset : want], strict=True))
            op.finish(returned=returned, returned_count=len(page), limit=op_.limit)
            return page

    def _list_flow(self, op_: ListNamespacesOp) -> Flow[list[tuple[str, ...]]]:
        ctx = self.ctx
        with self._read_op("list") as op:
            request = ReadRequest("search", purpose=ctx.purpose)
            plan = op.read_plan(request)
            residual = self._residual(plan)
            if residual is False:
                op.finish(returned_count=0)
                return []
            conditions = list(op_.match_conditions or ())
            longest = max((len(c.path) for c in conditions if c.match_type == "suffix"), default=0)
            inner_conditions = (
                *(
                    MatchCondition(c.match_type, self._inner_ns(tuple(c.path)))
                    if c.match_type == "prefix"
                    else c
                    for c in conditions
                ),
                # the tenant label, and as many labels after it as the longest suffix needs, so a
                # suffix never matches into the tenant label itself
                MatchCondition("prefix", (self.tenant, *(("*",) * longest))),
            )
            by_name = residual is not True and "namespace" in set(fields_of(residual))
            if not by_name:
                depth = None if op_.max_depth is None else op_.max_depth + 1
                (names,) = yield [ListNamespacesOp(inner_conditions, depth, op_.limit, op_.offset)]
                out = [n for n in map(self._outer_ns, _listed(names)) if n is not None]
                op.finish(returned_count=len(out))
                return out
            # The policy restricts namespaces: list every one of the tenant, keep those the plan
            # could admit a fact in, then truncate, sort and page here.
            assert not isinstance(residual, bool)
            visible: set[tuple[str, ...]] = set()
            offset = 0
            while True:
                (names,) = yield [ListNamespacesOp(inner_conditions, None, _LIST_PAGE, offset)]
                page = _listed(names)
                for name in page:
                    outer = self._outer_ns(name)
                    if outer is None:
                        continue
                    if fold(residual, {"namespace": namespace_name(outer)}) is False:
                        continue
                    visible.add(outer if op_.max_depth is None else outer[: op_.max_depth])
                if len(page) < _LIST_PAGE:
                    break
                offset += _LIST_PAGE
            out = sorted(visible)[op_.offset : op_.offset + op_.limit]
            op.finish(returned_count=len(out))
            return out
