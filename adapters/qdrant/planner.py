"""The guarded client's logic without I/O (:class:`_Planner`): each method is a flow that yields the
Qdrant calls it needs; the kernel runs the protocol (stage -> store -> commit) around them."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qdrant_client import models
from qdrant_client.conversions import common_types as types

from memguard.context import CallContext
from memguard.errors import (
    AccessDenied,
    FactNotFound,
    InvalidRequest,
)
from memguard.identity import Identity
from memguard.integrity import Candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.ledger import FactState
from memguard.ports import FlowPort
from memguard.pushdown.qdrant import field_key
from memguard.scope import (
    FIELDS,
    ReadRequest,
    ScopePlan,
)
from memguard.stores.base import reserved_block

from .._toolkit import check_binding, provenance_summary, scan_text
from .base import _PAGE, _RESERVED, Flow, _Call, _kw, _one, _point_id, fact_id_of
from .payload import (
    _caller_payload,
    _digest,
    _PayloadChange,
    _place_summary,
    _project,
    _split,
)
from .points import _points, _selector
from .query import (
    _filter,
    _lookup,
    _narrow,
    _query_refs,
    _scope_filter,
    _scoped_params,
    _scoped_prefetch,
)


@dataclass(frozen=True, slots=True)
class _Planner:
    """The guarded client's logic without I/O: each method is a flow that yields backend calls."""

    kernel: Kernel
    identity: Identity
    context: CallContext
    local: bool
    summary: bool
    summary_in: str = "payload"

    # -- helpers -----------------------------------------------------------------------------------

    def _read(self, action: str) -> Any:
        ctx = self.context
        check_binding(self.kernel, self.identity, action)
        return self.kernel.operation(
            action, self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        )

    def _write(self, action: str) -> Any:
        check_binding(self.kernel, self.identity, action)
        return self.kernel.operation(action, self.identity, trace_id=self.context.turn.trace_id)

    def _port(
        self,
        method: str,
        kwargs: dict[str, Any],
        collection_name: str,
        points: Mapping[str, int | str],
        shard_key: Any,
    ) -> FlowPort[Any]:
        """The kernel's port for one write: ``method(**kwargs)``, and a probe that reads the
        points back (payloads only) when the ledger failed after Qdrant took the write."""

        def probe(fact_ids: Sequence[str]) -> Flow[Sequence[Candidate]]:
            ids = [points[f] for f in fact_ids]
            points = yield _Call(
                "retrieve",
                _kw(
                    collection_name=collection_name,
                    ids=ids,
                    with_payload=True,
                    with_vectors=False,
                    shard_key_selector=shard_key,
                ),
            )
            return [self._candidate(collection_name, p) for p in points]

        return FlowPort(lambda _: _one(_Call(method, kwargs)), probe)

    def _candidate(self, collection_name: str, point: Any) -> Candidate:
        caller, reserved = _split(point.payload)
        try:
            digest: str | None = _digest(caller)
        except (TypeError, ValueError):
            digest = None
        return Candidate(
            fact_id_of(collection_name, point.id), digest, reserved, getattr(point, "score", None),
            caller,
        )  # fmt: skip

    def _request(self, action: str, collection_name: str) -> ReadRequest:
        if not isinstance(collection_name, str) or not collection_name:
            raise InvalidRequest("`collection_name` must be a non-empty string")
        return ReadRequest(action, namespaces=(collection_name,), purpose=self.context.purpose)

    def _verify(
        self,
        op: Operation,
        plan: ScopePlan,
        request: ReadRequest,
        collection_name: str,
        points: Sequence[Any],
        *,
        pushed_down: bool,
    ) -> list[tuple[Any, VerifiedFact]]:
        """The points whose payload matches their ledger row and the scope, with their facts."""
        candidates = [self._candidate(collection_name, point) for point in points]
        verified = op.verify(plan, request, candidates, pushed_down=pushed_down)
        by_candidate = {id(v.candidate): v for v in verified}
        return [
            (point, by_candidate[id(cand)])
            for point, cand in zip(points, candidates, strict=True)
            if id(cand) in by_candidate
        ]

    def _shown(
        self, point: Any, fact: VerifiedFact, with_payload: types.WithPayloadInterface
    ) -> Any:
        payload = _project(dict(fact.candidate.payload or {}), with_payload)
        if payload is not None and self.summary:
            _place_summary(payload, provenance_summary(fact.provenance), self.summary_in)
        return point.model_copy(update={"payload": payload})

    def _check_refs(self, op: Operation, refs: Sequence[tuple[str, int | str]]) -> None:
        """A query "by point id" reads that point's vector: the point must be visible (``get``)."""
        by_collection: dict[str, list[str]] = {}
        for collection_name, pid in refs:
            by_collection.setdefault(collection_name, []).append(fact_id_of(collection_name, pid))
        for collection_name, fact_ids in by_collection.items():
            request = self._request("get", collection_name)
            op.visible_records(op.read_plan(request), request, list(dict.fromkeys(fact_ids)))

    def _ids_in_scope(
        self,
        op: Operation,
        plan: ScopePlan,
        request: ReadRequest,
        collection_name: str,
        selector: object,
        *,
        states: tuple[FactState, ...],
        strict: bool,
    ) -> Flow[tuple[list[int | str], Any]]:
        """The point ids a selector names that are facts in the caller's ``request`` scope.

        A filter is resolved inside the scope first; ids outside it (unknown, another tenant's,
        quarantined for an update) are dropped, or with ``strict`` refused as not found."""
        ids, caller_filter, shard_key = _selector(selector)
        by_ids = ids is not None
        if ids is None:
            scope = _scope_filter(plan, collection_name)
            ids = []
            if scope is not False:
                flt = _narrow(scope, _filter(caller_filter, "filter"))
                offset: Any = None
                while True:
                    records, offset = yield _Call(
                        "scroll",
                        _kw(
                            collection_name=collection_name,
                            scroll_filter=flt,
                            limit=_PAGE,
                            offset=offset,
                            with_payload=False,
                            with_vectors=False,
                            shard_key_selector=shard_key,
                        ),
                    )
                    ids.extend(_point_id(r.id) for r in records)
                    if offset is None:
                        break
        ids = list(dict.fromkeys(ids))
        fact_ids = [fact_id_of(collection_name, pid) for pid in ids]
        records = self.kernel.ledger.latest(fact_ids) if fact_ids else {}
        kept: list[int | str] = []
        for pid, fact_id in zip(ids, fact_ids, strict=True):
            record = records.get(fact_id)
            ok = record is not None and record.state in states
            if ok and record is not None:
                if FactState.DELETED not in states and record.quarantined:
                    ok = False
                else:
                    ok = op.admits(plan, request, record)
            if ok:
                kept.append(pid)
            elif strict and by_ids:
                op.note(why="no such fact in scope")
                raise FactNotFound("fact not found")
        return kept, shard_key

    # -- writes ------------------------------------------------------------------------------------

    def upsert(
        self,
        collection_name: str,
        points: types.Points,
        wait: bool,
        ordering: types.WriteOrdering | None,
        shard_key_selector: types.ShardKeySelector | None,
        update_filter: types.Filter | None,
        update_mode: Any,
        timeout: int | None,
    ) -> Flow[types.UpdateResult]:
        ctx = self.context
        with self._write("write") as op:
            if update_filter is not None or update_mode is not None:
                raise InvalidRequest("`update_filter` and `update_mode` are not supported")
            self._request("write", collection_name)
            items = _points(points)
            if not items:
                raise InvalidRequest("empty batch")
            records = op.stamp(
                [
                    StampRequest(
                        namespace=collection_name,
                        source=ctx.source,
                        turn=ctx.turn,
                        content_digest=_digest(payload),
                        trust=ctx.trust,
                        derived_from=ctx.derived_from,
                        fact_id=fact_id_of(collection_name, pid),
                        text=scan_text(payload),
                    )
                    for pid, _, payload in items
                ]
            )
            structs = [
                models.PointStruct(
                    id=pid, vector=vector, payload={**payload, _RESERVED: reserved_block(prov)}
                )
                for (pid, vector, payload), prov in zip(items, records, strict=True)
            ]
            # `wait` is forced: a committed ledger row must not point at a write still queued
            put = _kw(
                collection_name=collection_name,
                points=structs,
                wait=True,
                ordering=ordering,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
            result = yield from op.persist_flow(
                records,
                self._port(
                    "upsert",
                    put,
                    collection_name,
                    {fact_id_of(collection_name, pid): pid for pid, _, _ in items},
                    shard_key_selector,
                ),
            )
            out: types.UpdateResult = result
            return out

    def update_payload(
        self,
        collection_name: str,
        selector: object,
        change: _PayloadChange,
        ordering: types.WriteOrdering | None,
        timeout: int | None,
    ) -> Flow[types.UpdateResult]:
        """``set_payload`` and its kin: each changed point becomes a new version of its fact."""
        ctx = self.context
        with self._write("update") as op:
            request = self._request("update", collection_name)
            plan = op.read_plan(request)
            change.check()
            ids, shard_key = yield from self._ids_in_scope(
                op,
                plan,
                request,
                collection_name,
                selector,
                states=(FactState.COMMITTED,),
                strict=True,
            )
            if not ids:
                op.finish("ok", changed=0)
                return models.UpdateResult(operation_id=None, status=models.UpdateStatus.COMPLETED)
            points = yield _Call(
                "retrieve",
                _kw(
                    collection_name=collection_name,
                    ids=ids,
                    with_payload=True,
                    with_vectors=False,
                    shard_key_selector=shard_key,
                ),
            )
            verified = self._verify(op, plan, request, collection_name, points, pushed_down=False)
            if len(verified) != len(ids) and _selector(selector)[0] is not None:
                raise FactNotFound("fact not found")  # tampered or vanished: never build on it
            changes = []
            for point, fact in verified:
                new = _caller_payload(
                    change.apply(copy.deepcopy(dict(fact.candidate.payload or {})))
                )
                changes.append((point.id, fact, new))
            if not changes:
                op.finish("ok", changed=0)
                return models.UpdateResult(operation_id=None, status=models.UpdateStatus.COMPLETED)
            records = op.stamp(
                [
                    StampRequest(
                        namespace=collection_name,
                        source=ctx.source,
                        turn=ctx.turn,
                        content_digest=_digest(new),
                        trust=ctx.trust,
                        derived_from=tuple(
                            dict.fromkeys((*fact.provenance.derived_from, *ctx.derived_from))
                        ),
                        fact_id=fact.fact_id,
                        text=scan_text(new),
                    )
                    for _, fact, new in changes
                ]
            )
            operations = [
                models.OverwritePayloadOperation(
                    overwrite_payload=models.SetPayload(
                        payload={**new, _RESERVED: reserved_block(prov)},
                        points=[pid],
                        shard_key=shard_key,
                    )
                )
                for (pid, _, new), prov in zip(changes, records, strict=True)
            ]
            put = _kw(
                collection_name=collection_name,
                update_operations=operations,
                wait=True,
                ordering=ordering,
                timeout=timeout,
            )
            results = yield from op.persist_flow(
                records,
                self._port(
                    "batch_update_points",
                    put,
                    collection_name,
                    {fact.fact_id: pid for pid, fact, _ in changes},
                    shard_key,
                ),
                changed=len(records),
            )
            last: types.UpdateResult = results[-1]
            return last

    def delete(
        self,
        collection_name: str,
        points_selector: object,
        ordering: types.WriteOrdering | None,
        timeout: int | None,
    ) -> Flow[types.UpdateResult]:
        """Delete the in-scope facts the selector names: ids outside the scope are left alone,
        a filter is resolved inside the scope first. Ledger tombstone first, then Qdrant."""
        with self._write("delete") as op:
            request = self._request("delete", collection_name)
            plan = op.read_plan(request)
            ids, shard_key = yield from self._ids_in_scope(
                op,
                plan,
                request,
                collection_name,
                points_selector,
                states=(FactState.COMMITTED, FactState.DELETED),  # DELETED: a purge to redo
                strict=False,
            )
            fact_ids = [fact_id_of(collection_name, pid) for pid in ids]
            op.about(fact_ids)
            if not ids:
                op.finish("ok", deleted=0)
                return models.UpdateResult(operation_id=None, status=models.UpdateStatus.COMPLETED)
            purge = _Call(
                "delete",
                _kw(
                    collection_name=collection_name,
                    points_selector=models.PointIdsList(points=ids, shard_key=shard_key),
                    wait=True,
                    ordering=ordering,
                    timeout=timeout,
                ),
            )
            # tombstoned first: never served again, even if Qdrant fails
            result = yield from op.delete_flow(fact_ids, lambda: _one(purge), deleted=len(ids))
            out: types.UpdateResult = result
            return out

    # -- reads -------------------------------------------------------------------------------------

    def query_points(self, collection_name: str, groups: bool, **kw: Any) -> Flow[Any]:
        """``query_points`` (``groups=False``) or ``query_points_groups``."""
        with self._read("search") as op:
            request = self._request("search", collection_name)
            plan = op.read_plan(request)
            with_payload = kw.pop("with_payload")
            _project({}, with_payload)  # refuse a bad selector before any I/O
            if kw.get("with_lookup") is not None:
                raise AccessDenied(
                    "`with_lookup` reads another collection unscoped",
                    code="access_denied.not_allowed",
                )
            scope = _scope_filter(plan, collection_name)
            active = scope if scope is not False else None
            refs: list[tuple[str, int | str]] = []
            lookup = _lookup(kw.get("lookup_from"), collection_name)
            refs.extend((lookup, r) for r in _query_refs(kw.get("query")))
            kw["prefetch"] = _scoped_prefetch(kw.get("prefetch"), active, collection_name, refs)
            if refs:
                self._check_refs(op, refs)
            if scope is False:
                op.finish(returned=[], returned_count=0)
                return models.GroupsResult(groups=[]) if groups else types.QueryResponse(points=[])
            kw["query_filter"] = _narrow(scope, _filter(kw.get("query_filter"), "query_filter"))
            kw["search_params"] = _scoped_params(kw.get("search_params"), scope, kw.get("query"))
            call = "query_points_groups" if groups else "query_points"
            response = yield _Call(
                call, _kw(collection_name=collection_name, with_payload=True, **kw)
            )
            if groups:
                hits = [h for g in response.groups for h in g.hits]
            else:
                hits = list(response.points)
            verified = self._verify(op, plan, request, collection_name, hits, pushed_down=True)
            shown = {id(p): self._shown(p, f, with_payload) for p, f in verified}
            returned = [f.fact_id for _, f in verified]
            op.finish(returned=returned, returned_count=len(returned))
            if not groups:
                return types.QueryResponse(points=[shown[id(h)] for h in hits if id(h) in shown])
            out = []
            for group in response.groups:
                kept = [shown[id(h)] for h in group.hits if id(h) in shown]
                if kept:
                    out.append(group.model_copy(update={"hits": kept}))
            return models.GroupsResult(groups=out)

    def retrieve(
        self,
        collection_name: str,
        ids: Sequence[types.PointId],
        with_payload: types.WithPayloadInterface,
        with_vectors: types.WithVector,
        **kw: Any,
    ) -> Flow[list[types.Record]]:
        """Points by id; unknown and out-of-scope ids are both simply absent (Qdrant's own shape)."""
        with self._read("get") as op:
            request = self._request("get", collection_name)
            plan = op.read_plan(request)
            _project({}, with_payload)
            if isinstance(ids, str | bytes) or not isinstance(ids, Iterable):
                raise InvalidRequest("`ids` must be a list of point ids")
            wanted = [_point_id(p) for p in ids]
            op.about([fact_id_of(collection_name, p) for p in wanted])
            points = yield _Call(
                "retrieve",
                _kw(
                    collection_name=collection_name,
                    ids=wanted,
                    with_payload=True,
                    with_vectors=with_vectors,
                    **kw,
                ),
            )
            verified = self._verify(op, plan, request, collection_name, points, pushed_down=False)
            op.finish(returned=[f.fact_id for _, f in verified], returned_count=len(verified))
            return [self._shown(p, f, with_payload) for p, f in verified]

    def scroll(
        self,
        collection_name: str,
        scroll_filter: types.Filter | None,
        limit: int,
        with_payload: types.WithPayloadInterface,
        **kw: Any,
    ) -> Flow[tuple[list[types.Record], types.PointId | None]]:
        """A page of the caller's points; a page is shorter than ``limit`` when facts were withheld."""
        with self._read("list") as op:
            request = self._request("search", collection_name)
            plan = op.read_plan(request)
            _project({}, with_payload)
            scope = _scope_filter(plan, collection_name)
            if scope is False:
                op.finish(returned=[], returned_count=0)
                return [], None
            records, next_offset = yield _Call(
                "scroll",
                _kw(
                    collection_name=collection_name,
                    scroll_filter=_narrow(scope, _filter(scroll_filter, "scroll_filter")),
                    limit=limit,
                    with_payload=True,
                    **kw,
                ),
            )
            verified = self._verify(op, plan, request, collection_name, records, pushed_down=True)
            op.finish(returned=[f.fact_id for _, f in verified], returned_count=len(verified))
            return [self._shown(p, f, with_payload) for p, f in verified], next_offset

    def count(
        self,
        collection_name: str,
        count_filter: types.Filter | None,
        shard_key_selector: types.ShardKeySelector | None,
        timeout: int | None,
    ) -> Flow[types.CountResult]:
        """The number of points a full scroll would return: every one verified, so it is exact."""
        with self._read("list") as op:
            request = self._request("search", collection_name)
            plan = op.read_plan(request)
            n = yield from self._count(
                op, plan, request, collection_name, count_filter, shard_key_selector, timeout
            )
            op.finish("ok", returned=[], count=n)
            return models.CountResult(count=n)

    def _count(
        self,
        op: Operation,
        plan: ScopePlan,
        request: ReadRequest,
        collection_name: str,
        count_filter: types.Filter | None,
        shard_key_selector: types.ShardKeySelector | None,
        timeout: int | None,
    ) -> Flow[int]:
        scope = _scope_filter(plan, collection_name)
        if scope is False:
            return 0
        flt = _narrow(scope, _filter(count_filter, "count_filter"))
        n, offset = 0, None
        while True:
            records, offset = yield _Call(
                "scroll",
                _kw(
                    collection_name=collection_name,
                    scroll_filter=flt,
                    limit=_PAGE,
                    offset=offset,
                    with_payload=True,
                    with_vectors=False,
                    shard_key_selector=shard_key_selector,
                    timeout=timeout,
                ),
            )
            n += len(self._verify(op, plan, request, collection_name, records, pushed_down=True))
            if offset is None:
                return n

    # -- collections -------------------------------------------------------------------------------

    def get_collection(self, collection_name: str) -> Flow[types.CollectionInfo]:
        """Collection info with ``points_count`` counted through the caller's scope and
        ``indexed_vectors_count`` withheld (both would describe other tenants' points)."""
        with self._read("list") as op:
            request = self._request("search", collection_name)
            plan = op.read_plan(request)
            info = yield _Call("get_collection", {"collection_name": collection_name})
            n = yield from self._count(op, plan, request, collection_name, None, None, None)
            op.finish("ok", returned=[], count=n)
            shown: types.CollectionInfo = info.model_copy(
                update={"points_count": n, "indexed_vectors_count": None}
            )
            return shown

    def passthrough(self, method: str, **kw: Any) -> Flow[Any]:
        """Collection names are not secret: ``get_collections`` and ``collection_exists``."""
        with self._read("collections") as op:
            result = yield _Call(method, kw)
            op.finish("ok", returned=[], call=method)
            return result

    def create_collection(self, collection_name: str, **kw: Any) -> Flow[bool]:
        """Allowed where the caller may write (the collection is its namespace); a server also
        gets payload indexes on the memguard fields, so pushed-down scopes use indexes."""
        with self._write("create_collection") as op:
            self._request("write", collection_name)
            self._may_write(op, collection_name)
            created = yield _Call(
                "create_collection", {"collection_name": collection_name, **_kw(**kw)}
            )
            if created and not self.local:  # local mode has no payload indexes
                for name, kind in FIELDS.items():
                    schema: Any
                    if name == "owner_sub":
                        schema = models.KeywordIndexParams(
                            type=models.KeywordIndexType.KEYWORD, is_tenant=True
                        )
                    elif kind is int:
                        schema = models.PayloadSchemaType.INTEGER
                    else:
                        schema = models.PayloadSchemaType.KEYWORD
                    yield _Call(
                        "create_payload_index",
                        {
                            "collection_name": collection_name,
                            "field_name": field_key(name),
                            "field_schema": schema,
                        },
                    )
            op.finish("ok", returned=[], collection=collection_name)
            return bool(created)

    def create_payload_index(self, collection_name: str, **kw: Any) -> Flow[types.UpdateResult]:
        with self._write("create_payload_index") as op:
            self._request("write", collection_name)
            self._may_write(op, collection_name)
            result = yield _Call(
                "create_payload_index", {"collection_name": collection_name, **_kw(**kw)}
            )
            op.finish("ok", returned=[], collection=collection_name)
            out: types.UpdateResult = result
            return out

    def _may_write(self, op: Operation, collection_name: str) -> None:
        op.decide_write(collection_name)
