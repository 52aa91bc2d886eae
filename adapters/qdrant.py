"""Guarded qdrant-client: the client's own methods, every call one audited memguard operation.

Wrap the client you already have::

    guarded = GuardedQdrantClient(QdrantClient(path="./qdrant"), kernel=kernel, identity=me,
                                  context=CallContext(source=Source(kind=SourceKind.USER_MESSAGE),
                                                      turn=Turn(session_id="s-1", turn_index=0)))
    guarded.upsert("notes", points=[models.PointStruct(id=1, vector=v, payload={"text": "..."})])
    guarded.query_points("notes", query=v, limit=5)

Layout: a point's payload is the caller's payload, as-is at the top level, plus the reserved key
``memguard`` = :func:`~memguard.stores.base.reserved_block` (indexed fields, record digest, record).
A caller payload with a ``memguard`` key (any case) is refused. The fact id of a point is
``external_fact_id("qdrant", collection, str(point_id))``, its namespace is the collection name, and its
content digest is ``value_digest({"payload": <caller payload>})``; vectors are not covered (Qdrant
normalizes cosine vectors, so the stored vector is not the written one).

Reads push the scope into Qdrant: ``Filter(must=[scope, caller_filter])`` at the top level and in every
prefetch (recursively), so a caller filter can only narrow. Every hit is then verified against the
ledger; results carry the caller payload plus a compact summary under ``memguard`` (fact id, version,
trust, source) instead of the reserved block. Payload changes are new fact versions. Filter deletes
delete only the in-scope facts the filter matches. See docs/adapters/qdrant.md for the full contract.

Structure: a sync core without I/O (:class:`_Planner`, whose flows are generators that yield the
backend calls they need) and two thin shells, :class:`GuardedQdrantClient` and
:class:`AsyncGuardedQdrantClient`, which run those calls on a ``QdrantClient`` / ``AsyncQdrantClient``.
The shells hold no reference to the raw client: it lives in a module-private table keyed by shell.
"""

from __future__ import annotations

import asyncio
import copy
import json
import unicodedata
import uuid
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic_core import to_jsonable_python
from qdrant_client import AsyncQdrantClient, QdrantClient, models
from qdrant_client.conversions import common_types as types

from memguard.compat import require_version
from memguard.context import CallContext, external_fact_id
from memguard.errors import (
    AccessDenied,
    FactNotFound,
    InvalidRequest,
    MemguardError,
    ReservedField,
)
from memguard.identity import Identity
from memguard.integrity import Candidate
from memguard.kernel import Kernel, Operation, StampRequest, VerifiedFact
from memguard.ledger import FactState
from memguard.ports import FlowPort
from memguard.provenance import Provenance, Source, Turn, value_digest
from memguard.pushdown.normal import fold
from memguard.pushdown.qdrant import field_key, to_qdrant_filter
from memguard.scope import (
    FIELDS,
    PlanKind,
    ReadRequest,
    ScopePlan,
)
from memguard.stores.base import RESERVED_PAYLOAD_KEY, reserved_block
from memguard.trust import TrustLevel

from ._toolkit import backend_error, scan_text

__all__ = [
    "ALLOWED_METHODS",
    "SUPPORTED_VERSIONS",
    "AsyncGuardedQdrantClient",
    "GuardedAttributeError",
    "GuardedQdrantClient",
    "fact_id_of",
]

#: qdrant-client versions this adapter supports: ``>= [0]`` and ``< [1]``.
#: (The payload semantics come from qdrant-client's own local-mode helpers, imported where used so
#: that an older client still imports this module and is refused at construction.)
SUPPORTED_VERSIONS = ("1.20", "2")

#: The operations a guarded client exposes; everything else raises :class:`GuardedAttributeError`.
ALLOWED_METHODS = frozenset(
    {
        "upsert",
        "query_points",
        "query_points_groups",
        "retrieve",
        "scroll",
        "count",
        "delete",
        "set_payload",
        "overwrite_payload",
        "delete_payload",
        "clear_payload",
        "get_collection",
        "get_collections",
        "collection_exists",
        "create_collection",
        "create_payload_index",
        "upload_points",
        "upload_collection",
        "batch_update_points",
        "query_batch_points",
        "close",
        "with_context",
        "context",
    }
)

_SYSTEM = "qdrant"
_RESERVED = RESERVED_PAYLOAD_KEY
_PAGE = 4096  # scroll page size when the guard itself pages (count, filter deletes and updates)
_T = TypeVar("_T")


class GuardedAttributeError(AccessDenied, AttributeError):
    """An attribute that is not on the guarded client's allowlist (raw transports, private state)."""

    code = "access_denied.not_allowed"


@dataclass(frozen=True, slots=True)
class _Call:
    """One backend call a flow needs: a raw client method and its keyword arguments."""

    method: str
    kwargs: dict[str, Any]


Flow = Generator[_Call, Any, _T]
_Scope = (
    models.Filter | None | Literal[False]
)  # False: the scope admits no point of this collection


def fact_id_of(collection_name: str, point_id: types.PointId) -> str:
    """The memguard fact id of a Qdrant point (ids are normalized as Qdrant does)."""
    return external_fact_id(_SYSTEM, collection_name, str(_point_id(point_id)))


def _point_id(point_id: object) -> int | str:
    """Qdrant's own identity of a point id: an unsigned integer, or a UUID in canonical form."""
    if isinstance(point_id, bool):
        raise InvalidRequest("a point id is an unsigned integer or a UUID")
    if isinstance(point_id, int):
        if point_id < 0:
            raise InvalidRequest("a point id is an unsigned integer or a UUID")
        return point_id
    if isinstance(point_id, uuid.UUID):
        return str(point_id)
    if isinstance(point_id, str):
        try:
            return str(uuid.UUID(point_id))
        except ValueError:
            raise InvalidRequest("a point id is an unsigned integer or a UUID") from None
    raise InvalidRequest("a point id is an unsigned integer or a UUID")


def _is_reserved(key: object) -> bool:
    return isinstance(key, str) and unicodedata.normalize("NFKC", key).casefold() == _RESERVED


def _caller_payload(payload: object) -> dict[str, Any]:
    """The caller's payload as Qdrant stores it (JSON types); the reserved key is refused."""
    if payload is None:
        return {}
    if not isinstance(payload, Mapping):
        raise InvalidRequest("a payload must be a mapping")
    for key in payload:
        if not isinstance(key, str):
            raise InvalidRequest("payload keys must be strings")
        if _is_reserved(key):
            raise ReservedField(f"payload key `{key}` is reserved for provenance")
    jsonable = to_jsonable_python(dict(payload))
    if not isinstance(jsonable, dict):
        raise InvalidRequest("a payload must be a mapping")
    return jsonable


def _check_path(key: str) -> None:
    """A payload path (``set_payload(key=...)``, ``delete_payload``) may not start at the reserved key."""
    from qdrant_client.local.json_path_parser import JsonPathItemType, parse_json_path

    if not isinstance(key, str):
        raise InvalidRequest("a payload key must be a string")
    items = parse_json_path(key)
    if items and items[0].item_type is JsonPathItemType.KEY and _is_reserved(items[0].key):
        raise ReservedField(f"payload key `{key}` is reserved for provenance")


def _digest(payload: Mapping[str, Any]) -> str:
    return value_digest({"payload": payload})


def _split(payload: Mapping[str, Any] | None) -> tuple[dict[str, Any], Mapping[str, Any]]:
    """(caller payload, reserved block) of a stored payload."""
    stored = dict(payload or {})
    reserved = stored.pop(_RESERVED, None)
    return stored, reserved if isinstance(reserved, Mapping) else {}


def _project(
    payload: dict[str, Any], with_payload: types.WithPayloadInterface
) -> dict[str, Any] | None:
    """``with_payload`` applied as Qdrant applies it (qdrant-client's local-mode selector code)."""
    from qdrant_client.local.payload_value_extractor import exclude_payload, include_payload

    if with_payload is None or with_payload is False:
        return None
    if with_payload is True:
        return payload
    if isinstance(with_payload, models.PayloadSelectorExclude):
        return exclude_payload(payload, list(with_payload.exclude))
    if isinstance(with_payload, models.PayloadSelectorInclude):
        return include_payload(payload, list(with_payload.include))
    if isinstance(with_payload, list) and all(isinstance(k, str) for k in with_payload):
        return include_payload(payload, list(with_payload))
    raise InvalidRequest(
        "`with_payload` must be a bool, a list of keys or a models.PayloadSelector"
    )


def _summary(prov: Provenance) -> dict[str, Any]:
    where = prov.source.uri or prov.source.name or "-"
    return {
        "fact_id": prov.fact_id,
        "version": prov.version,
        "trust": prov.trust.label,
        "source": f"{prov.source.kind.value}:{where}",
    }


#: where a returned payload carries the provenance summary: its top level (``payload["memguard"]``),
#: LangChain's ``payload["metadata"]`` (``Document.metadata["memguard"]``), or LlamaIndex's node
#: (``metadata["memguard"]`` inside ``_node_content``, and the top level for legacy nodes)
SummaryPlacement = Literal["payload", "metadata", "node"]
_PLACEMENTS: frozenset[str] = frozenset({"payload", "metadata", "node"})


def _place_summary(payload: dict[str, Any], summary: dict[str, Any], where: str) -> None:
    """Put ``summary`` where the framework reading ``payload`` shows it. A value the writer stored
    under the same key is always overwritten, so a planted "summary" never shows."""
    if where == "metadata":
        meta = payload.get("metadata")
        payload["metadata"] = {**(meta if isinstance(meta, Mapping) else {}), _RESERVED: summary}
        return
    payload[_RESERVED] = summary
    if where == "node" and isinstance(payload.get("_node_content"), str):
        try:
            node = json.loads(payload["_node_content"])
        except ValueError:
            return  # not a node LlamaIndex can load either
        if isinstance(node, dict):
            meta = node.get("metadata")
            node["metadata"] = {**(meta if isinstance(meta, Mapping) else {}), _RESERVED: summary}
            payload["_node_content"] = json.dumps(node)


def _kw(**kwargs: Any) -> dict[str, Any]:
    """Keyword arguments for a raw call, without the optional ones left at ``None`` (so a client
    release that lacks a newer parameter still works when the caller does not use it)."""
    return {k: v for k, v in kwargs.items() if v is not None}


# -- scope -> Qdrant filter -------------------------------------------------------------------------


def _scope_filter(plan: ScopePlan, collection_name: str) -> _Scope:
    """The Qdrant filter of ``plan`` in one collection: ``None`` (everything), ``False`` (nothing).

    Every fact in a collection has that collection as its namespace (the adapter stamps it so),
    so ``namespace`` atoms are decided here instead of per point; each hit is re-checked anyway."""
    if plan.kind is PlanKind.ALLOW:
        return None
    if plan.condition is None:
        return False
    folded = fold(plan.condition, {"namespace": collection_name})
    if folded is True:
        return None
    if folded is False:
        return False
    return to_qdrant_filter(folded)


def _filter(value: object, what: str) -> models.Filter | None:
    if value is None or isinstance(value, models.Filter):
        return value
    raise InvalidRequest(f"`{what}` must be a qdrant_client.models.Filter")


def _as_list(clause: Any) -> list[Any]:
    return [] if clause is None else list(clause) if isinstance(clause, list) else [clause]


def _narrow(scope: models.Filter | None, caller: models.Filter | None) -> models.Filter | None:
    """The caller's filter inside the scope (it can only narrow): the scope is one more ``must``
    item of the caller's own filter, i.e. ``scope AND caller``.

    Not ``Filter(must=[scope, caller])``: Qdrant propagates a query's filter into its prefetches by
    concatenating clauses field-wise, so the caller's top-level ``should`` and a prefetch's ``should``
    become alternatives of each other; keeping the caller's clauses at the top level keeps that
    behaviour, while the scope, always a ``must`` item, is ANDed at every level whatever merges."""
    if scope is None:
        return caller
    plain = scope.should is None and scope.must_not is None and scope.min_should is None
    items = (
        _as_list(scope.must) if plain else [scope]
    )  # an And of atoms is inlined (local mode cost)
    if caller is None:
        return models.Filter(must=items)
    return caller.model_copy(update={"must": [*items, *_as_list(caller.must)]})


def _term_query(query: object) -> bool:
    """Does ``query`` score by term statistics (a sparse vector, which may have the IDF modifier,
    or a BM25 text query)?"""
    if isinstance(query, models.NearestQuery):
        query = query.nearest
    text_query = getattr(models, "TextQuery", None)
    return isinstance(query, models.SparseVector) or (
        text_query is not None and isinstance(query, text_query)
    )


def _scoped_params(
    params: object, scope: models.Filter | None, query: object
) -> models.SearchParams | None:
    """Search params whose IDF statistics are computed inside the scope only: collection-wide
    statistics count other tenants' documents. Set for term queries (sparse, BM25) and whenever the
    caller set ``idf`` itself; dense queries are left as they are (IDF does not apply to them)."""
    if params is not None and not isinstance(params, models.SearchParams):
        raise InvalidRequest("`search_params` must be a qdrant_client.models.SearchParams")
    idf = params.idf if params is not None else None
    if scope is None or (idf is None and not _term_query(query)):
        return params
    corpus = scope
    if isinstance(idf, models.IdfCorpusParams):
        corpus = models.Filter(must=[scope, idf.corpus])
    scoped = models.IdfCorpusParams(corpus=corpus)
    if params is None:
        return models.SearchParams(idf=scoped)
    return params.model_copy(update={"idf": scoped})


# -- point references inside queries ----------------------------------------------------------------

_NO_REFS = tuple(
    getattr(models, name)
    for name in (
        "OrderByQuery",
        "FusionQuery",
        "RrfQuery",
        "SampleQuery",
        "FormulaQuery",
        "TextQuery",
        "SparseVector",
        "Document",
        "Image",
        "InferenceObject",
    )
    if hasattr(models, name)
)


def _vector_refs(value: object) -> list[int | str]:
    """Point ids a ``VectorInput`` names (a query "by id" uses that point's stored vector)."""
    if isinstance(value, bool):
        raise InvalidRequest("unsupported query input")
    if isinstance(value, int | str | uuid.UUID):
        return [_point_id(value)]
    return []


def _query_refs(query: object) -> list[int | str]:
    """Every point id a query reads a vector from; an unknown query type is refused."""
    if query is None or isinstance(query, _NO_REFS):
        return []
    if isinstance(query, int | str | uuid.UUID | bool):
        return _vector_refs(query)
    if isinstance(query, list) or type(query).__module__.startswith("numpy"):
        return []
    if isinstance(query, models.NearestQuery):
        return _vector_refs(query.nearest)
    if isinstance(query, models.RecommendQuery):
        rec = query.recommend
        return [r for v in [*(rec.positive or []), *(rec.negative or [])] for r in _vector_refs(v)]
    if isinstance(query, models.DiscoverQuery):
        pairs = query.discover.context
        refs = _vector_refs(query.discover.target)
        return refs + _pair_refs(pairs if isinstance(pairs, list) else [pairs])
    if isinstance(query, models.ContextQuery):
        ctx = query.context
        return _pair_refs(ctx if isinstance(ctx, list) else [ctx])
    feedback_query = getattr(models, "RelevanceFeedbackQuery", None)
    if feedback_query is not None and isinstance(query, feedback_query):
        fb = query.relevance_feedback
        refs = _vector_refs(fb.target)
        return refs + [r for item in fb.feedback for r in _vector_refs(item.example)]
    raise AccessDenied(
        f"query type `{type(query).__name__}` is not supported by the guarded client",
        code="access_denied.not_allowed",
    )


def _pair_refs(pairs: Iterable[models.ContextPair]) -> list[int | str]:
    return [r for p in pairs for v in (p.positive, p.negative) for r in _vector_refs(v)]


def _lookup(location: object, collection_name: str) -> str:
    if location is None:
        return collection_name
    if not isinstance(location, models.LookupLocation):
        raise InvalidRequest("`lookup_from` must be a qdrant_client.models.LookupLocation")
    return location.collection


def _scoped_prefetch(
    prefetch: object,
    scope: models.Filter | None,
    collection_name: str,
    refs: list[tuple[str, int | str]],
) -> Any:
    """Every prefetch, recursively, with the scope added to its filter and its point references noted."""
    if prefetch is None:
        return None
    if isinstance(prefetch, list):
        return [_scoped_prefetch(p, scope, collection_name, refs) for p in prefetch]
    if not isinstance(prefetch, models.Prefetch):
        raise InvalidRequest("`prefetch` must be qdrant_client.models.Prefetch")
    lookup = _lookup(prefetch.lookup_from, collection_name)
    refs.extend((lookup, r) for r in _query_refs(prefetch.query))
    return prefetch.model_copy(
        update={
            "filter": _narrow(scope, _filter(prefetch.filter, "prefetch.filter")),
            "params": _scoped_params(prefetch.params, scope, prefetch.query),
            "prefetch": _scoped_prefetch(prefetch.prefetch, scope, collection_name, refs),
        }
    )


# -- points written by the caller -------------------------------------------------------------------


def _points(points: object) -> list[tuple[int | str, Any, dict[str, Any]]]:
    """``(id, vector, caller payload)`` of every point in ``points`` (a Batch or PointStructs)."""
    if isinstance(points, models.Batch):
        n = len(points.ids)
        payloads = points.payloads if points.payloads is not None else [None] * n
        vectors: Any = points.vectors
        if len(payloads) != n:
            raise InvalidRequest("a batch needs one payload per id")
        if isinstance(vectors, dict):
            per_point = [{name: vs[i] for name, vs in vectors.items()} for i in range(n)]
        else:
            if len(vectors) != n:
                raise InvalidRequest("a batch needs one vector per id")
            per_point = list(vectors)
        return [
            (_point_id(pid), vec, _caller_payload(payload))
            for pid, vec, payload in zip(points.ids, per_point, payloads, strict=True)
        ]
    if isinstance(points, Mapping | str | bytes) or not isinstance(points, Iterable):
        raise InvalidRequest("`points` must be a models.Batch or a list of models.PointStruct")
    out = []
    for point in points:
        if not isinstance(point, models.PointStruct):
            raise InvalidRequest("`points` must be a models.Batch or a list of models.PointStruct")
        out.append((_point_id(point.id), point.vector, _caller_payload(point.payload)))
    return out


def _selector(selector: object) -> tuple[list[int | str] | None, models.Filter | None, Any]:
    """``(ids, filter, shard key)`` of a points selector; exactly one of ids and filter is set."""
    if isinstance(selector, models.PointIdsList):
        return [_point_id(p) for p in selector.points], None, selector.shard_key
    if isinstance(selector, models.FilterSelector):
        return None, selector.filter, selector.shard_key
    if isinstance(selector, models.Filter):
        return None, selector, None
    if isinstance(selector, list | tuple):
        return [_point_id(p) for p in selector], None, None
    raise InvalidRequest("a points selector is a list of ids, models.PointIdsList or a filter")


# -- the core ---------------------------------------------------------------------------------------


def _one(call: _Call) -> Flow[Any]:
    """A flow of one backend call, returning its result."""
    result = yield call
    return result


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
        return self.kernel.operation(
            action, self.identity, purpose=ctx.purpose, trace_id=ctx.turn.trace_id, turn=ctx.turn
        )

    def _write(self, action: str) -> Any:
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
            _place_summary(payload, _summary(fact.provenance), self.summary_in)
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


@dataclass(frozen=True, slots=True)
class _PayloadChange:
    """What ``set_payload`` / ``overwrite_payload`` / ``delete_payload`` / ``clear_payload`` do to
    one caller payload, with qdrant-client's own (local-mode, server-equivalent) payload semantics."""

    kind: Literal["set", "overwrite", "delete", "clear"]
    payload: Mapping[str, Any] | None = None
    key: str | None = None
    keys: tuple[str, ...] = ()

    def check(self) -> None:
        if self.kind in ("set", "overwrite"):
            _caller_payload(self.payload)
        if self.key is not None:
            _check_path(self.key)
        for key in self.keys:
            _check_path(key)

    def apply(self, current: dict[str, Any]) -> dict[str, Any]:
        from qdrant_client.local.json_path_parser import parse_json_path
        from qdrant_client.local.payload_value_setter import (
            delete_value_by_key,
            merge_payload,
            set_value_by_key,
        )

        value = copy.deepcopy(_caller_payload(self.payload)) if self.payload is not None else {}
        if self.kind == "overwrite":
            return value
        if self.kind == "clear":
            return {}
        if self.kind == "delete":
            for key in self.keys:
                delete_value_by_key(current, parse_json_path(key))
            return current
        if self.key is None:
            return merge_payload(current, value)
        set_value_by_key(current, parse_json_path(self.key), value)
        return current


# -- shells -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Bound:
    raw: Any
    planner: _Planner


# The raw client is kept here, not on the shell: nothing reachable from a guarded object leads to it.
_STATE: weakref.WeakKeyDictionary[object, _Bound] = weakref.WeakKeyDictionary()


def _backend_error(call: _Call, exc: Exception) -> MemguardError:
    return backend_error("qdrant", call.method, exc)


def _advance(flow: Flow[_T], value: Any, exc: MemguardError | None) -> tuple[bool, Any]:
    try:
        return False, flow.throw(exc) if exc is not None else flow.send(value)
    except StopIteration as stop:
        return True, stop.value


def _run(raw: Any, flow: Flow[_T]) -> _T:
    done, value = _advance(flow, None, None)
    while not done:
        call: _Call = value
        try:
            result = getattr(raw, call.method)(**call.kwargs)
        except Exception as exc:
            done, value = _advance(flow, None, _backend_error(call, exc))
        else:
            done, value = _advance(flow, result, None)
    out: _T = value
    return out


async def _run_async(raw: Any, flow: Flow[_T]) -> _T:
    # the kernel's steps (ledger I/O) run in a worker thread, the Qdrant calls on the event loop
    done, value = await asyncio.to_thread(_advance, flow, None, None)
    while not done:
        call: _Call = value
        try:
            result = await getattr(raw, call.method)(**call.kwargs)
        except Exception as exc:
            done, value = await asyncio.to_thread(_advance, flow, None, _backend_error(call, exc))
        else:
            done, value = await asyncio.to_thread(_advance, flow, result, None)
    out: _T = value
    return out


# -- composite calls (uploads, batches): each part is one guarded call --------------------------------


def _plain(vector: Any) -> Any:
    """A vector as plain lists (numpy arrays from ``upload_collection``)."""
    if isinstance(vector, Mapping):
        return {name: _plain(v) for name, v in vector.items()}
    tolist = getattr(vector, "tolist", None)
    return tolist() if callable(tolist) else vector


def _positive(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidRequest(f"`{name}` must be a positive integer")
    return value


def _upload_batches(points: object, batch_size: object) -> Iterator[list[models.PointStruct]]:
    """``upload_points``' points in batches, as qdrant-client batches them."""
    size = _positive(batch_size, "batch_size")
    if isinstance(points, Mapping | str | bytes) or not isinstance(points, Iterable):
        raise InvalidRequest("`points` must be an iterable of models.PointStruct")
    batch: list[models.PointStruct] = []
    for point in points:
        if not isinstance(point, models.PointStruct):
            raise InvalidRequest("`points` must be an iterable of models.PointStruct")
        batch.append(point)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _collection_points(vectors: object, payload: object, ids: object) -> list[models.PointStruct]:
    """``upload_collection``'s columns as points; missing ids become fresh UUIDs, as in
    qdrant-client. Columns of different lengths are refused (qdrant-client would truncate)."""
    if isinstance(vectors, Mapping):
        names = list(vectors)
        columns = [list(vectors[n]) for n in names]
        if len({len(c) for c in columns}) > 1:
            raise InvalidRequest("named vector columns differ in length")
        rows: list[Any] = [dict(zip(names, vals, strict=True)) for vals in zip(*columns, strict=True)]
    elif isinstance(vectors, str | bytes) or not isinstance(vectors, Iterable):
        raise InvalidRequest("`vectors` must be an iterable of vectors or a dict of columns")
    else:
        rows = list(vectors)
    payloads = [None] * len(rows) if payload is None else list(payload)  # type: ignore[call-overload]
    point_ids = [str(uuid.uuid4()) for _ in rows] if ids is None else list(ids)  # type: ignore[call-overload]
    if not len(payloads) == len(point_ids) == len(rows):
        raise InvalidRequest("`vectors`, `payload` and `ids` differ in length")
    return [
        models.PointStruct(id=pid, vector=_plain(vec), payload=pl)
        for pid, vec, pl in zip(point_ids, rows, payloads, strict=True)
    ]


def _payload_selector(points: object, filter_: object) -> Any:
    if (points is None) == (filter_ is None):
        raise InvalidRequest("a payload operation names either `points` or `filter`")
    return points if points is not None else filter_


#: one part of ``batch_update_points``: the guarded method and its keyword arguments
_Step = tuple[str, dict[str, Any]]


def _batch_steps(update_operations: object) -> list[_Step]:
    """``batch_update_points``' operations as guarded calls, all checked before any runs. Vector
    updates and deletes are refused (the guarded client has no vector-only write)."""
    if isinstance(update_operations, Mapping | str | bytes) or not isinstance(
        update_operations, Iterable
    ):
        raise InvalidRequest("`update_operations` must be a list of update operations")
    steps: list[_Step] = []
    for item in update_operations:
        if isinstance(item, models.UpsertOperation):
            up = item.upsert
            points = up.points if isinstance(up, models.PointsList) else up.batch
            steps.append(
                (
                    "upsert",
                    {
                        "points": points,
                        "shard_key_selector": up.shard_key,
                        "update_filter": up.update_filter,
                        "update_mode": up.update_mode,
                    },
                )
            )
        elif isinstance(item, models.DeleteOperation):
            steps.append(("delete", {"points_selector": item.delete}))
        elif isinstance(item, models.SetPayloadOperation | models.OverwritePayloadOperation):
            sp = item.set_payload if isinstance(item, models.SetPayloadOperation) else item.overwrite_payload
            kwargs: dict[str, Any] = {
                "payload": sp.payload,
                "points": _payload_selector(sp.points, sp.filter),
                "shard_key_selector": sp.shard_key,
            }
            if isinstance(item, models.SetPayloadOperation):
                steps.append(("set_payload", {**kwargs, "key": sp.key}))
            elif sp.key is not None:
                raise InvalidRequest("`key` is not supported when overwriting a payload")
            else:
                steps.append(("overwrite_payload", kwargs))
        elif isinstance(item, models.DeletePayloadOperation):
            dp = item.delete_payload
            steps.append(
                (
                    "delete_payload",
                    {
                        "keys": dp.keys,
                        "points": _payload_selector(dp.points, dp.filter),
                        "shard_key_selector": dp.shard_key,
                    },
                )
            )
        elif isinstance(item, models.ClearPayloadOperation):
            steps.append(("clear_payload", {"points_selector": item.clear_payload}))
        else:
            raise InvalidRequest(
                f"`{type(item).__name__}` is not supported by the guarded client"
            )
    return steps


def _query_kwargs(request: object) -> dict[str, Any]:
    """One ``query_batch_points`` request as ``query_points`` arguments (Qdrant's defaults for a
    request: limit 10, no payload, no vectors)."""
    if not isinstance(request, models.QueryRequest):
        raise InvalidRequest("`requests` must be a list of models.QueryRequest")
    return {
        "query": request.query,
        "using": request.using,
        "prefetch": request.prefetch,
        "query_filter": request.filter,
        "search_params": request.params,
        "limit": 10 if request.limit is None else request.limit,
        "offset": request.offset,
        "with_payload": False if request.with_payload is None else request.with_payload,
        "with_vectors": False if request.with_vector is None else request.with_vector,
        "score_threshold": request.score_threshold,
        "lookup_from": request.lookup_from,
        "shard_key_selector": request.shard_key,
    }


def _refuse_kwargs(kwargs: Mapping[str, Any]) -> None:
    for key in kwargs:
        raise InvalidRequest(f"unexpected argument `{key}`")


def _no_extra(kwargs: Mapping[str, Any], build: Callable[[], _T]) -> _T:
    _refuse_kwargs(kwargs)
    return build()


def _checked(planner: _Planner, action: str, check: Callable[[], _T]) -> _T:
    """A composite call's shape check; a refusal is recorded as a deny like any other."""
    try:
        return check()
    except MemguardError as exc:
        with planner._write(action):
            raise exc from None


class _Shell:
    """Attribute refusal shared by both shells: only the class's own methods exist."""

    __slots__ = ("__weakref__",)

    def __getattr__(self, name: str) -> Any:
        raise GuardedAttributeError(f"`{name}` is not available on a guarded qdrant client")

    def __setattr__(self, name: str, value: object) -> None:
        raise GuardedAttributeError(f"`{name}` cannot be set on a guarded qdrant client")

    def __delattr__(self, name: str) -> None:
        raise GuardedAttributeError(f"`{name}` cannot be deleted on a guarded qdrant client")

    def __reduce_ex__(self, protocol: object) -> Any:
        raise GuardedAttributeError("a guarded qdrant client cannot be copied or pickled")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} context={_STATE[self].planner.context!r}>"

    @property
    def context(self) -> CallContext:
        """The channel, turn and purpose this client stamps and records."""
        return _STATE[self].planner.context

    def _init(
        self,
        client: object,
        client_type: type,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        provenance_summary: bool,
        summary_in: str = "payload",
    ) -> None:
        require_version("qdrant-client", *SUPPORTED_VERSIONS)
        if summary_in not in _PLACEMENTS:
            raise InvalidRequest("`summary_in` must be `payload`, `metadata` or `node`")
        if not isinstance(client, client_type):
            raise InvalidRequest(f"`client` must be a {client_type.__name__}")
        if not isinstance(kernel, Kernel):
            raise InvalidRequest("`kernel` must be a memguard Kernel")
        if not isinstance(identity, Identity):
            raise InvalidRequest("`identity` must be a verified Identity")
        if not isinstance(context, CallContext):
            raise InvalidRequest("`context` must be a CallContext")
        local = type(getattr(client, "_client", None)).__name__ in (
            "QdrantLocal",
            "AsyncQdrantLocal",
        )
        planner = _Planner(kernel, identity, context, local, bool(provenance_summary), summary_in)
        _STATE[self] = _Bound(client, planner)

    def _derive(self, context: CallContext) -> Any:
        bound = _STATE[self]
        clone = object.__new__(type(self))
        planner = bound.planner
        _STATE[clone] = _Bound(
            bound.raw,
            _Planner(
                planner.kernel,
                planner.identity,
                context,
                planner.local,
                planner.summary,
                planner.summary_in,
            ),
        )
        return clone

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] | None = None,
    ) -> Any:
        """The same guarded client for another turn, source, purpose or lineage."""
        return self._derive(
            self.context.replace(
                source=source,
                turn=turn,
                purpose=purpose,
                trust=trust,
                derived_from=tuple(derived_from) if derived_from is not None else None,
            )
        )


class GuardedQdrantClient(_Shell):
    """A ``QdrantClient`` whose every call is one audited, scoped memguard operation (sync)."""

    __slots__ = ()

    def __init__(
        self,
        client: QdrantClient,
        *,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        provenance_summary: bool = True,
        summary_in: SummaryPlacement = "payload",
    ) -> None:
        """``provenance_summary``: add ``memguard: {fact_id, version, trust, source}`` to each
        returned payload (the stored reserved block itself is never returned); ``summary_in``:
        where (``"metadata"`` for LangChain documents, ``"node"`` for LlamaIndex nodes)."""
        self._init(client, QdrantClient, kernel, identity, context, provenance_summary, summary_in)

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] | None = None,
    ) -> GuardedQdrantClient:
        clone: GuardedQdrantClient = super().with_context(
            source=source, turn=turn, purpose=purpose, trust=trust, derived_from=derived_from
        )
        return clone

    def _go(self, flow: Flow[_T]) -> _T:
        bound = _STATE[self]
        return _run(bound.raw, flow)

    # -- writes ------------------------------------------------------------------------------------

    def upsert(
        self,
        collection_name: str,
        points: types.Points,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        """Write points; each is a fact (a new version when the id exists and is the caller's)."""
        return self._go(
            _STATE[self].planner.upsert(
                collection_name,
                points,
                wait,
                ordering,
                shard_key_selector,
                update_filter,
                update_mode,
                timeout,
            )
        )

    def set_payload(
        self,
        collection_name: str,
        payload: types.Payload,
        points: types.PointsSelector,
        key: str | None = None,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("set", payload=payload, key=key)
        return self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    def overwrite_payload(
        self,
        collection_name: str,
        payload: types.Payload,
        points: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("overwrite", payload=payload)
        return self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    def delete_payload(
        self,
        collection_name: str,
        keys: Sequence[str],
        points: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("delete", keys=_keys(keys))
        return self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    def clear_payload(
        self,
        collection_name: str,
        points_selector: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("clear")
        return self._go(
            _STATE[self].planner.update_payload(
                collection_name,
                _with_shard(points_selector, shard_key_selector),
                change,
                ordering,
                timeout,
            )
        )

    def delete(
        self,
        collection_name: str,
        points_selector: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        """Delete the caller's points the selector names; others' are left alone, silently."""
        return self._go(
            _STATE[self].planner.delete(
                collection_name, _with_shard(points_selector, shard_key_selector), ordering, timeout
            )
        )

    # -- reads -------------------------------------------------------------------------------------

    def query_points(
        self,
        collection_name: str,
        query: Any = None,
        using: str | None = None,
        prefetch: types.Prefetch | list[types.Prefetch] | None = None,
        query_filter: types.Filter | None = None,
        search_params: types.SearchParams | None = None,
        limit: int = 10,
        offset: int | None = None,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        score_threshold: float | None = None,
        lookup_from: types.LookupLocation | None = None,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.QueryResponse:
        """Scoped ``query_points``: the scope is in the filter and in every prefetch."""
        result: types.QueryResponse = self._go(
            _STATE[self].planner.query_points(
                collection_name,
                False,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=query_filter,
                search_params=search_params,
                limit=limit,
                offset=offset,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
                lookup_from=lookup_from,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )
        return result

    def query_points_groups(
        self,
        collection_name: str,
        group_by: str,
        query: Any = None,
        using: str | None = None,
        prefetch: types.Prefetch | list[types.Prefetch] | None = None,
        query_filter: types.Filter | None = None,
        search_params: types.SearchParams | None = None,
        limit: int = 10,
        group_size: int = 3,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        score_threshold: float | None = None,
        with_lookup: types.WithLookupInterface | None = None,
        lookup_from: types.LookupLocation | None = None,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.GroupsResult:
        """Scoped ``query_points_groups``; ``with_lookup`` is refused."""
        result: types.GroupsResult = self._go(
            _STATE[self].planner.query_points(
                collection_name,
                True,
                group_by=group_by,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=query_filter,
                search_params=search_params,
                limit=limit,
                group_size=group_size,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
                with_lookup=with_lookup,
                lookup_from=lookup_from,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )
        return result

    def retrieve(
        self,
        collection_name: str,
        ids: Sequence[types.PointId],
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> list[types.Record]:
        return self._go(
            _STATE[self].planner.retrieve(
                collection_name,
                ids,
                with_payload,
                with_vectors,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )

    def scroll(
        self,
        collection_name: str,
        scroll_filter: types.Filter | None = None,
        limit: int = 10,
        order_by: types.OrderBy | None = None,
        offset: types.PointId | None = None,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> tuple[list[types.Record], types.PointId | None]:
        return self._go(
            _STATE[self].planner.scroll(
                collection_name,
                scroll_filter,
                limit,
                with_payload,
                order_by=order_by,
                offset=offset,
                with_vectors=with_vectors,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )

    def count(
        self,
        collection_name: str,
        count_filter: types.Filter | None = None,
        exact: bool = True,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.CountResult:
        """The caller's points (always exact: every point is verified, ``exact`` is ignored)."""
        return self._go(
            _STATE[self].planner.count(collection_name, count_filter, shard_key_selector, timeout)
        )

    # -- collections -------------------------------------------------------------------------------

    def get_collection(self, collection_name: str) -> types.CollectionInfo:
        return self._go(_STATE[self].planner.get_collection(collection_name))

    def get_collections(self) -> types.CollectionsResponse:
        result: types.CollectionsResponse = self._go(
            _STATE[self].planner.passthrough("get_collections")
        )
        return result

    def collection_exists(self, collection_name: str) -> bool:
        return bool(
            self._go(
                _STATE[self].planner.passthrough(
                    "collection_exists", collection_name=collection_name
                )
            )
        )

    def create_collection(
        self,
        collection_name: str,
        vectors_config: types.VectorParams | Mapping[str, types.VectorParams] | None = None,
        sparse_vectors_config: Mapping[str, types.SparseVectorParams] | None = None,
        shard_number: int | None = None,
        sharding_method: types.ShardingMethod | None = None,
        replication_factor: int | None = None,
        write_consistency_factor: int | None = None,
        on_disk_payload: bool | None = None,
        hnsw_config: types.HnswConfigDiff | None = None,
        optimizers_config: types.OptimizersConfigDiff | None = None,
        wal_config: types.WalConfigDiff | None = None,
        quantization_config: types.QuantizationConfig | None = None,
        timeout: int | None = None,
        strict_mode_config: types.StrictModeConfig | None = None,
        metadata: types.Payload | None = None,
    ) -> bool:
        """Create a collection if the caller may write to it (its name is the namespace)."""
        return self._go(
            _STATE[self].planner.create_collection(
                collection_name,
                vectors_config=vectors_config,
                sparse_vectors_config=sparse_vectors_config,
                shard_number=shard_number,
                sharding_method=sharding_method,
                replication_factor=replication_factor,
                write_consistency_factor=write_consistency_factor,
                on_disk_payload=on_disk_payload,
                hnsw_config=hnsw_config,
                optimizers_config=optimizers_config,
                wal_config=wal_config,
                quantization_config=quantization_config,
                timeout=timeout,
                strict_mode_config=strict_mode_config,
                metadata=metadata,
            )
        )

    def create_payload_index(
        self,
        collection_name: str,
        field_name: str,
        field_schema: types.PayloadSchemaType | None = None,
        field_type: types.PayloadSchemaType | None = None,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return self._go(
            _STATE[self].planner.create_payload_index(
                collection_name,
                field_name=field_name,
                field_schema=field_schema,
                field_type=field_type,
                wait=wait,
                ordering=ordering,
                timeout=timeout,
            )
        )


    # -- composite calls (LlamaIndex, LangChain): each part is one guarded call --------------------

    def upload_points(
        self,
        collection_name: str,
        points: Iterable[types.PointStruct],
        batch_size: int = 64,
        parallel: int = 1,
        method: str | None = None,
        max_retries: int = 3,
        wait: bool = False,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        **kwargs: Any,
    ) -> None:
        """``upload_points`` as guarded ``upsert`` calls of ``batch_size`` points each, in order
        and in this process (``parallel``, ``method`` and ``max_retries`` are accepted and unused:
        a retried upsert is a second fact version, so nothing is retried behind the caller)."""
        planner = _STATE[self].planner
        _checked(planner, "write", lambda: _refuse_kwargs(kwargs))
        batches = _upload_batches(points, batch_size)
        while True:
            batch = _checked(planner, "write", lambda: next(batches, None))
            if batch is None:
                return
            self.upsert(
                collection_name,
                points=batch,
                shard_key_selector=shard_key_selector,
                update_filter=update_filter,
                update_mode=update_mode,
            )

    def upload_collection(
        self,
        collection_name: str,
        vectors: Any,
        payload: Iterable[dict[Any, Any]] | None = None,
        ids: Iterable[types.PointId] | None = None,
        batch_size: int = 64,
        parallel: int = 1,
        method: str | None = None,
        max_retries: int = 3,
        wait: bool = False,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        **kwargs: Any,
    ) -> None:
        """``upload_collection`` as :meth:`upload_points` (missing ids: fresh UUIDs)."""
        planner = _STATE[self].planner
        points = _checked(
            planner, "write", lambda: _no_extra(kwargs, lambda: _collection_points(vectors, payload, ids))
        )
        self.upload_points(
            collection_name,
            points,
            batch_size=batch_size,
            shard_key_selector=shard_key_selector,
            update_filter=update_filter,
            update_mode=update_mode,
        )

    def batch_update_points(
        self,
        collection_name: str,
        update_operations: Sequence[types.UpdateOperation],
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        timeout: int | None = None,
        **kwargs: Any,
    ) -> list[types.UpdateResult]:
        """Each operation as the guarded call of the same name, in order; all are checked before
        the first runs. Not atomic: a refused operation stops the batch, earlier ones stay."""
        planner = _STATE[self].planner
        steps = _checked(
            planner, "write", lambda: _no_extra(kwargs, lambda: _batch_steps(update_operations))
        )
        out: list[types.UpdateResult] = []
        for name, step in steps:
            call = getattr(self, name)
            out.append(call(collection_name, **step, ordering=ordering, timeout=timeout))
        return out

    def query_batch_points(
        self,
        collection_name: str,
        requests: Sequence[types.QueryRequest],
        consistency: types.ReadConsistency | None = None,
        timeout: int | None = None,
        **kwargs: Any,
    ) -> list[types.QueryResponse]:
        """Each request as a guarded :meth:`query_points` (its own scope, verification and event)."""
        planner = _STATE[self].planner
        queries = _checked(
            planner, "search", lambda: _no_extra(kwargs, lambda: [_query_kwargs(r) for r in requests])
        )
        return [
            self.query_points(collection_name, **q, consistency=consistency, timeout=timeout)
            for q in queries
        ]

    def close(self) -> None:
        """Close the wrapped client."""
        _STATE[self].raw.close()


class AsyncGuardedQdrantClient(_Shell):
    """The async twin over an ``AsyncQdrantClient``: the same core, the same checks and events."""

    __slots__ = ()

    def __init__(
        self,
        client: AsyncQdrantClient,
        *,
        kernel: Kernel,
        identity: Identity,
        context: CallContext,
        provenance_summary: bool = True,
        summary_in: SummaryPlacement = "payload",
    ) -> None:
        self._init(
            client, AsyncQdrantClient, kernel, identity, context, provenance_summary, summary_in
        )

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] | None = None,
    ) -> AsyncGuardedQdrantClient:
        clone: AsyncGuardedQdrantClient = super().with_context(
            source=source, turn=turn, purpose=purpose, trust=trust, derived_from=derived_from
        )
        return clone

    async def _go(self, flow: Flow[_T]) -> _T:
        bound = _STATE[self]
        return await _run_async(bound.raw, flow)

    async def upsert(
        self,
        collection_name: str,
        points: types.Points,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return await self._go(
            _STATE[self].planner.upsert(
                collection_name,
                points,
                wait,
                ordering,
                shard_key_selector,
                update_filter,
                update_mode,
                timeout,
            )
        )

    async def set_payload(
        self,
        collection_name: str,
        payload: types.Payload,
        points: types.PointsSelector,
        key: str | None = None,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("set", payload=payload, key=key)
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    async def overwrite_payload(
        self,
        collection_name: str,
        payload: types.Payload,
        points: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("overwrite", payload=payload)
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    async def delete_payload(
        self,
        collection_name: str,
        keys: Sequence[str],
        points: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("delete", keys=_keys(keys))
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name, _with_shard(points, shard_key_selector), change, ordering, timeout
            )
        )

    async def clear_payload(
        self,
        collection_name: str,
        points_selector: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        change = _PayloadChange("clear")
        return await self._go(
            _STATE[self].planner.update_payload(
                collection_name,
                _with_shard(points_selector, shard_key_selector),
                change,
                ordering,
                timeout,
            )
        )

    async def delete(
        self,
        collection_name: str,
        points_selector: types.PointsSelector,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return await self._go(
            _STATE[self].planner.delete(
                collection_name, _with_shard(points_selector, shard_key_selector), ordering, timeout
            )
        )

    async def query_points(
        self,
        collection_name: str,
        query: Any = None,
        using: str | None = None,
        prefetch: types.Prefetch | list[types.Prefetch] | None = None,
        query_filter: types.Filter | None = None,
        search_params: types.SearchParams | None = None,
        limit: int = 10,
        offset: int | None = None,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        score_threshold: float | None = None,
        lookup_from: types.LookupLocation | None = None,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.QueryResponse:
        result: types.QueryResponse = await self._go(
            _STATE[self].planner.query_points(
                collection_name,
                False,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=query_filter,
                search_params=search_params,
                limit=limit,
                offset=offset,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
                lookup_from=lookup_from,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )
        return result

    async def query_points_groups(
        self,
        collection_name: str,
        group_by: str,
        query: Any = None,
        using: str | None = None,
        prefetch: types.Prefetch | list[types.Prefetch] | None = None,
        query_filter: types.Filter | None = None,
        search_params: types.SearchParams | None = None,
        limit: int = 10,
        group_size: int = 3,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        score_threshold: float | None = None,
        with_lookup: types.WithLookupInterface | None = None,
        lookup_from: types.LookupLocation | None = None,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.GroupsResult:
        result: types.GroupsResult = await self._go(
            _STATE[self].planner.query_points(
                collection_name,
                True,
                group_by=group_by,
                query=query,
                using=using,
                prefetch=prefetch,
                query_filter=query_filter,
                search_params=search_params,
                limit=limit,
                group_size=group_size,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
                with_lookup=with_lookup,
                lookup_from=lookup_from,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )
        return result

    async def retrieve(
        self,
        collection_name: str,
        ids: Sequence[types.PointId],
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> list[types.Record]:
        return await self._go(
            _STATE[self].planner.retrieve(
                collection_name,
                ids,
                with_payload,
                with_vectors,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )

    async def scroll(
        self,
        collection_name: str,
        scroll_filter: types.Filter | None = None,
        limit: int = 10,
        order_by: types.OrderBy | None = None,
        offset: types.PointId | None = None,
        with_payload: types.WithPayloadInterface = True,
        with_vectors: types.WithVector = False,
        consistency: types.ReadConsistency | None = None,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> tuple[list[types.Record], types.PointId | None]:
        return await self._go(
            _STATE[self].planner.scroll(
                collection_name,
                scroll_filter,
                limit,
                with_payload,
                order_by=order_by,
                offset=offset,
                with_vectors=with_vectors,
                consistency=consistency,
                shard_key_selector=shard_key_selector,
                timeout=timeout,
            )
        )

    async def count(
        self,
        collection_name: str,
        count_filter: types.Filter | None = None,
        exact: bool = True,
        shard_key_selector: types.ShardKeySelector | None = None,
        timeout: int | None = None,
    ) -> types.CountResult:
        return await self._go(
            _STATE[self].planner.count(collection_name, count_filter, shard_key_selector, timeout)
        )

    async def get_collection(self, collection_name: str) -> types.CollectionInfo:
        return await self._go(_STATE[self].planner.get_collection(collection_name))

    async def get_collections(self) -> types.CollectionsResponse:
        result: types.CollectionsResponse = await self._go(
            _STATE[self].planner.passthrough("get_collections")
        )
        return result

    async def collection_exists(self, collection_name: str) -> bool:
        return bool(
            await self._go(
                _STATE[self].planner.passthrough(
                    "collection_exists", collection_name=collection_name
                )
            )
        )

    async def create_collection(
        self,
        collection_name: str,
        vectors_config: types.VectorParams | Mapping[str, types.VectorParams] | None = None,
        sparse_vectors_config: Mapping[str, types.SparseVectorParams] | None = None,
        shard_number: int | None = None,
        sharding_method: types.ShardingMethod | None = None,
        replication_factor: int | None = None,
        write_consistency_factor: int | None = None,
        on_disk_payload: bool | None = None,
        hnsw_config: types.HnswConfigDiff | None = None,
        optimizers_config: types.OptimizersConfigDiff | None = None,
        wal_config: types.WalConfigDiff | None = None,
        quantization_config: types.QuantizationConfig | None = None,
        timeout: int | None = None,
        strict_mode_config: types.StrictModeConfig | None = None,
        metadata: types.Payload | None = None,
    ) -> bool:
        return await self._go(
            _STATE[self].planner.create_collection(
                collection_name,
                vectors_config=vectors_config,
                sparse_vectors_config=sparse_vectors_config,
                shard_number=shard_number,
                sharding_method=sharding_method,
                replication_factor=replication_factor,
                write_consistency_factor=write_consistency_factor,
                on_disk_payload=on_disk_payload,
                hnsw_config=hnsw_config,
                optimizers_config=optimizers_config,
                wal_config=wal_config,
                quantization_config=quantization_config,
                timeout=timeout,
                strict_mode_config=strict_mode_config,
                metadata=metadata,
            )
        )

    async def create_payload_index(
        self,
        collection_name: str,
        field_name: str,
        field_schema: types.PayloadSchemaType | None = None,
        field_type: types.PayloadSchemaType | None = None,
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        timeout: int | None = None,
    ) -> types.UpdateResult:
        return await self._go(
            _STATE[self].planner.create_payload_index(
                collection_name,
                field_name=field_name,
                field_schema=field_schema,
                field_type=field_type,
                wait=wait,
                ordering=ordering,
                timeout=timeout,
            )
        )


    # -- composite calls: as on GuardedQdrantClient ------------------------------------------------

    async def upload_points(
        self,
        collection_name: str,
        points: Iterable[types.PointStruct],
        batch_size: int = 64,
        parallel: int = 1,
        method: str | None = None,
        max_retries: int = 3,
        wait: bool = False,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        **kwargs: Any,
    ) -> None:
        planner = _STATE[self].planner
        _checked(planner, "write", lambda: _refuse_kwargs(kwargs))
        batches = _upload_batches(points, batch_size)
        while True:
            batch = _checked(planner, "write", lambda: next(batches, None))
            if batch is None:
                return
            await self.upsert(
                collection_name,
                points=batch,
                shard_key_selector=shard_key_selector,
                update_filter=update_filter,
                update_mode=update_mode,
            )

    async def upload_collection(
        self,
        collection_name: str,
        vectors: Any,
        payload: Iterable[dict[Any, Any]] | None = None,
        ids: Iterable[types.PointId] | None = None,
        batch_size: int = 64,
        parallel: int = 1,
        method: str | None = None,
        max_retries: int = 3,
        wait: bool = False,
        shard_key_selector: types.ShardKeySelector | None = None,
        update_filter: types.Filter | None = None,
        update_mode: types.UpdateMode | None = None,
        **kwargs: Any,
    ) -> None:
        planner = _STATE[self].planner
        points = _checked(
            planner, "write", lambda: _no_extra(kwargs, lambda: _collection_points(vectors, payload, ids))
        )
        await self.upload_points(
            collection_name,
            points,
            batch_size=batch_size,
            shard_key_selector=shard_key_selector,
            update_filter=update_filter,
            update_mode=update_mode,
        )

    async def batch_update_points(
        self,
        collection_name: str,
        update_operations: Sequence[types.UpdateOperation],
        wait: bool = True,
        ordering: types.WriteOrdering | None = None,
        timeout: int | None = None,
        **kwargs: Any,
    ) -> list[types.UpdateResult]:
        planner = _STATE[self].planner
        steps = _checked(
            planner, "write", lambda: _no_extra(kwargs, lambda: _batch_steps(update_operations))
        )
        out: list[types.UpdateResult] = []
        for name, step in steps:
            call = getattr(self, name)
            out.append(await call(collection_name, **step, ordering=ordering, timeout=timeout))
        return out

    async def query_batch_points(
        self,
        collection_name: str,
        requests: Sequence[types.QueryRequest],
        consistency: types.ReadConsistency | None = None,
        timeout: int | None = None,
        **kwargs: Any,
    ) -> list[types.QueryResponse]:
        planner = _STATE[self].planner
        queries = _checked(
            planner, "search", lambda: _no_extra(kwargs, lambda: [_query_kwargs(r) for r in requests])
        )
        return [
            await self.query_points(collection_name, **q, consistency=consistency, timeout=timeout)
            for q in queries
        ]

    async def close(self) -> None:
        await _STATE[self].raw.close()


def _keys(keys: object) -> tuple[str, ...]:
    if isinstance(keys, str) or not isinstance(keys, Iterable):
        raise InvalidRequest("`keys` must be a list of payload keys")
    return tuple(keys)


def _with_shard(selector: object, shard_key_selector: object) -> object:
    """A bare id list or filter with the call's ``shard_key_selector`` folded in."""
    if shard_key_selector is None:
        return selector
    if isinstance(selector, list | tuple):
        return models.PointIdsList(points=list(selector), shard_key=shard_key_selector)
    if isinstance(selector, models.Filter):
        return models.FilterSelector(filter=selector, shard_key=shard_key_selector)
    return selector
