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
ledger; results carry the caller payload plus a compact summary under ``memguard`` (the adapters' one
:class:`~memguard.adapters.ProvenanceSummary`: fact id, version, trust, source, writer) instead of the reserved block. Payload changes are new fact versions. Filter deletes
delete only the in-scope facts the filter matches. See docs/adapters/qdrant.md for the full contract.

Structure: a sync core without I/O (:class:`_Planner`, whose flows are generators that yield the
backend calls they need) and two thin shells, :class:`GuardedQdrantClient` and
:class:`AsyncGuardedQdrantClient`, which run those calls on a ``QdrantClient`` / ``AsyncQdrantClient``.
The shells hold no reference to the raw client: it lives in a module-private table keyed by shell.

Modules: ``base`` (calls, ids, allowlist), ``payload``, ``query`` (scope filters), ``points``
(point lists, uploads, batches), ``planner`` (the flows), ``driver`` (sync/async drivers, the shells'
base), ``client`` and ``aclient`` (the two shells).
"""

from __future__ import annotations

from .aclient import AsyncGuardedQdrantClient
from .base import ALLOWED_METHODS, SUPPORTED_VERSIONS, GuardedAttributeError, fact_id_of
from .client import GuardedQdrantClient
from .driver import _STATE as _STATE  # the raw clients by shell (tests and benchmarks)

__all__ = [
    "ALLOWED_METHODS",
    "SUPPORTED_VERSIONS",
    "AsyncGuardedQdrantClient",
    "GuardedAttributeError",
    "GuardedQdrantClient",
    "fact_id_of",
]
