"""Queries: the read scope as a Qdrant filter at the top level and in every prefetch, the caller's
filter narrowed by it, and the point references a query may name (checked before any I/O)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from qdrant_client import models

from memguard.errors import (
    AccessDenied,
    InvalidRequest,
)
from memguard.pushdown.normal import fold
from memguard.pushdown.qdrant import to_qdrant_filter
from memguard.scope import (
    PlanKind,
    ScopePlan,
)

from .base import _point_id, _Scope


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
