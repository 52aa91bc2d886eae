"""Qdrant backend through qdrant-client: local mode (``":memory:"`` or ``path=``) or a server (``url=``).

Every qdrant-client exception is translated to :class:`~memguard.errors.StoreError` here.

Server (``url=``): one collection, payload indexes (``owner_sub`` as ``is_tenant``), and the full
scope condition pushed down as the query filter.

Local mode has no payload indexes: it evaluates a filter in Python, point by point (about 80 us per
point for the default scope, ~20x an unfiltered search at 10k points). So local mode can partition
the facts by owner (``partition_by_owner=True``, opt-in; later opens of a partitioned store follow
it), one collection per ``(owner_iss, owner_sub)``, named from a digest of the pair:

- ``upsert`` routes a point by the owner fields of its *payload*, when both are plain strings; any
  other point (no owner, a list, a wrong type) stays in the base collection;
- ``search`` with a condition ``And(..., Eq(owner_iss, a), Eq(owner_sub, b), ...)`` (both at top level,
  string values) queries only that owner's collection with the *rest* of the condition, plus the base
  collection with the full condition: every point of that partition satisfies both equalities (its
  owner fields are exactly ``a`` and ``b``), no point of another partition satisfies them, and the base
  collection gets the exact filter. Any other condition (or none) queries every collection with the
  full filter and merges the top hits by score. So the answer set is exactly the one-collection one;
- an id -> partition map (rebuilt from the collections at open) routes ``retrieve`` and ``delete``;
  an id not in the map is looked up in the base collection, so unknown ids behave as before.

The condition is always translated in full first, so an untranslatable one is refused even when the
partition is empty.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from qdrant_client import QdrantClient, models

from memguard.compat import require_version
from memguard.errors import InvalidRequest, MemguardError, StoreError
from memguard.pushdown.normal import normalize
from memguard.pushdown.qdrant import field_key, to_qdrant_filter
from memguard.scope import FIELDS, And, Condition, Eq
from memguard.stores.base import RESERVED_PAYLOAD_KEY, Hit, StoredPoint
from memguard.telemetry.tracing import store_span

__all__ = ["QdrantStore"]

SUPPORTED = (">=", "1.12", "<", "2")


class QdrantStore:
    """Facts as Qdrant points; the scope is pushed into ``query_filter``."""

    def __init__(
        self,
        *,
        location: str | None = None,
        path: str | None = None,
        url: str | None = None,
        api_key: str | None = None,
        collection: str = "memguard_facts",
        dimension: int = 384,
        client: QdrantClient | None = None,
        timeout: int | None = None,
        partition_by_owner: bool | None = None,
    ) -> None:
        """``partition_by_owner`` (local mode only; a server uses one collection and its tenant
        index, so ``True`` there is refused): ``True`` keeps one collection per owner; ``None`` (the
        default) follows the store on disk, partitioned if it already has owner partitions, else one
        collection; ``False`` refuses a store that has owner partitions (its points would be missed).

        Partitioning is opt-in because the one-collection layout is what existing tools read
        directly (``memguard_facts``); once a store is partitioned every later open follows it."""
        require_version("qdrant-client", SUPPORTED[1], SUPPORTED[3])
        given = [x for x in (location, path, url, client) if x is not None]
        if len(given) > 1:
            raise StoreError("give one of `location`, `path`, `url` or `client`")
        self.dimension = dimension
        self.collection = collection
        self._lock = threading.RLock()
        with self._errors():
            if client is not None:
                self._client = client
            elif url is not None:
                self._client = QdrantClient(url=url, api_key=api_key, timeout=timeout)
            elif path is not None:
                self._client = QdrantClient(path=path)
            else:
                self._client = QdrantClient(location=location or ":memory:")
            self._local = type(getattr(self._client, "_client", None)).__name__ == "QdrantLocal"
            if partition_by_owner and not self._local:
                raise StoreError(
                    "owner partitions are for local mode; a server uses one collection"
                )
            has_partitions = self._local and any(
                d.name.startswith(self._prefix) for d in self._client.get_collections().collections
            )
            if partition_by_owner is False and has_partitions:
                self._client.close()
                raise StoreError(f"collection `{collection}` is partitioned by owner")
            self._partitioned = bool(partition_by_owner) or has_partitions
            #: fact id -> the partition collection holding it (partitioned mode; others are in base)
            self._where: dict[str, str] = {}
            self._partitions: set[str] = set()
            self._base_nonempty = True  # until counted: ids may have to be removed from base
            self._ensure_collection()
            if self._partitioned:
                self._load_partitions()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            with self._lock:
                yield
        except MemguardError:
            raise
        except Exception as exc:  # any client, transport or validation failure is a store failure
            raise StoreError(f"qdrant operation failed: {type(exc).__name__}") from exc

    def _ensure_collection(self) -> None:
        if not self._client.collection_exists(self.collection):
            with store_span("create_memory_store", self.collection):  # memguard/telemetry
                self._client.create_collection(
                    self.collection,
                    vectors_config=models.VectorParams(
                        size=self.dimension, distance=models.Distance.COSINE
                    ),
                )
                if not self._local:
                    self._create_indexes()
        info = self._client.get_collection(self.collection)
        vectors = info.config.params.vectors
        size = vectors.size if isinstance(vectors, models.VectorParams) else None
        if size != self.dimension:
            raise StoreError(
                f"collection `{self.collection}` has dimension {size}, not {self.dimension}"
            )

    # -- owner partitions (local mode) ------------------------------------------------------------

    @property
    def _prefix(self) -> str:
        return f"{self.collection}__owner_"

    def partition_name(self, owner_iss: str, owner_sub: str) -> str:
        """The collection of one owner's facts; length-prefixed so no two pairs share an input."""
        key = f"{len(owner_iss)}:{owner_iss}{len(owner_sub)}:{owner_sub}".encode()
        return self._prefix + hashlib.sha256(key).hexdigest()[:32]

    def _load_partitions(self) -> None:
        for desc in self._client.get_collections().collections:
            if desc.name.startswith(self._prefix):
                self._partitions.add(desc.name)
                for fact_id in self._ids(desc.name):
                    self._where[fact_id] = desc.name
        self._base_nonempty = self._client.count(self.collection, exact=True).count > 0

    def _ids(self, collection: str) -> Iterator[str]:
        offset: Any = None
        while True:
            records, offset = self._client.scroll(
                collection, limit=1024, offset=offset, with_payload=False, with_vectors=False
            )
            yield from (str(r.id) for r in records)
            if offset is None:
                return

    def _target(self, payload: Mapping[str, Any]) -> str:
        """Where a point lives: its owner's partition, or the base collection."""
        if not self._partitioned:
            return self.collection
        reserved = payload.get(RESERVED_PAYLOAD_KEY)
        if isinstance(reserved, Mapping):
            iss, sub = reserved.get("owner_iss"), reserved.get("owner_sub")
            if type(iss) is str and type(sub) is str:
                return self.partition_name(iss, sub)
        return self.collection

    def _ensure_partition(self, name: str) -> None:
        if name == self.collection or name in self._partitions:
            return
        if not self._client.collection_exists(name):
            self._client.create_collection(
                name,
                vectors_config=models.VectorParams(
                    size=self.dimension, distance=models.Distance.COSINE
                ),
            )
        self._partitions.add(name)

    def _home(self, fact_id: str) -> str:
        return self._where.get(fact_id, self.collection)

    def _create_indexes(self) -> None:
        for name, kind in FIELDS.items():
            schema: models.PayloadSchemaType | models.KeywordIndexParams
            if name == "owner_sub":
                schema = models.KeywordIndexParams(
                    type=models.KeywordIndexType.KEYWORD, is_tenant=True
                )
            elif kind is int:
                schema = models.PayloadSchemaType.INTEGER
            else:
                schema = models.PayloadSchemaType.KEYWORD
            self._client.create_payload_index(self.collection, field_key(name), field_schema=schema)

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        groups: dict[str, list[models.PointStruct]] = {}
        targets: dict[str, str] = {}
        for p in points:
            payload = dict(p.payload)
            target = self._target(payload)
            targets[p.fact_id] = target
            groups.setdefault(target, []).append(
                models.PointStruct(id=p.fact_id, vector=list(p.vector or []), payload=payload)
            )
        with self._errors():
            for target, structs in groups.items():
                self._ensure_partition(target)
                self._client.upsert(target, points=structs, wait=True)
            if not self._partitioned:
                return
            # A point that changed collection (or an old copy in base) is removed only after the
            # new copy is in: a failure leaves a stale duplicate, which the guard withholds
            # (its digest no longer matches the ledger), never a lost point.
            stale: dict[str, list[str]] = {}
            for fact_id, target in targets.items():
                old = self._where.get(fact_id)
                if old is None and target != self.collection and self._base_nonempty:
                    old = self.collection
                if old is not None and old != target:
                    stale.setdefault(old, []).append(fact_id)
            for old, ids in stale.items():
                self._client.delete(old, points_selector=models.PointIdsList(points=ids), wait=True)
            for fact_id, target in targets.items():
                if target == self.collection:
                    self._where.pop(fact_id, None)
                    self._base_nonempty = True
                else:
                    self._where[fact_id] = target

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]:
        if not fact_ids:
            return []
        groups: dict[str, list[str]] = {}
        for fact_id in fact_ids:
            groups.setdefault(self._home(fact_id), []).append(fact_id)
        out: list[StoredPoint] = []
        with self._errors():
            for collection, ids in groups.items():
                records = self._client.retrieve(
                    collection, ids=ids, with_payload=True, with_vectors=False
                )
                out.extend(StoredPoint(str(r.id), _payload(r.payload)) for r in records)
        return out

    def vectors(self, fact_ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of ``fact_ids`` (for moving points, e.g. re-owning them)."""
        groups: dict[str, list[str]] = {}
        for fact_id in fact_ids:
            groups.setdefault(self._home(fact_id), []).append(fact_id)
        out: dict[str, list[float]] = {}
        with self._errors():
            for collection, ids in groups.items():
                for r in self._client.retrieve(
                    collection, ids=ids, with_payload=False, with_vectors=True
                ):
                    if isinstance(r.vector, list):
                        out[str(r.id)] = [float(x) for x in r.vector]  # type: ignore[arg-type]
        return out

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
    ) -> list[Hit]:
        # translate the full condition first: an untranslatable one is refused whatever the route
        normal = _normal(condition)
        if normal is False:
            return []
        condition = None if normal is True else normal
        query_filter = None if condition is None else to_qdrant_filter(condition)
        with self._errors():
            if not self._partitioned:
                return self._query(self.collection, vector, query_filter, limit, offset)
            split = _owner_split(condition)
            if split is not None:
                (iss, sub), residual = split
                name = self.partition_name(iss, sub)
                routes = [(self.collection, query_filter)]
                if name in self._partitions:
                    residual_filter = None if residual is None else to_qdrant_filter(residual)
                    routes.append((name, residual_filter))
            else:
                routes = [(c, query_filter) for c in [self.collection, *sorted(self._partitions)]]
            if not self._base_nonempty:
                routes = [r for r in routes if r[0] != self.collection]
            if len(routes) == 1:
                return self._query(routes[0][0], vector, routes[0][1], limit, offset)
            # merge: the top offset+limit of each collection holds the global top offset+limit
            hits = [h for c, f in routes for h in self._query(c, vector, f, offset + limit, 0)]
            hits.sort(key=lambda h: -h.score)
            return hits[offset : offset + limit]

    def _query(
        self,
        collection: str,
        vector: Sequence[float],
        query_filter: models.Filter | None,
        limit: int,
        offset: int,
    ) -> list[Hit]:
        response = self._client.query_points(
            collection,
            query=list(vector),
            query_filter=query_filter,
            limit=limit,
            offset=offset,
            with_payload=True,
            with_vectors=False,
        )
        return [Hit(str(p.id), float(p.score), _payload(p.payload)) for p in response.points]

    def scroll(
        self, *, condition: Condition | None, limit: int, cursor: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        normal = _normal(condition)
        if normal is False:
            return [], None
        condition = None if normal is True else normal
        query_filter = None if condition is None else to_qdrant_filter(condition)
        if cursor is not None:
            try:  # a point id: memguard writes UUIDs; anything else is the caller's error
                cursor = str(uuid.UUID(cursor))
            except (ValueError, TypeError, AttributeError):
                raise InvalidRequest("invalid cursor") from None
        with self._errors():
            routes = [(self.collection, query_filter)]
            if self._partitioned:
                split = _owner_split(condition)
                if split is not None:
                    (iss, sub), residual = split
                    name = self.partition_name(iss, sub)
                    if name in self._partitions:
                        routes.append(
                            (name, None if residual is None else to_qdrant_filter(residual))
                        )
                else:
                    routes += [(c, query_filter) for c in sorted(self._partitions)]
                if not self._base_nonempty:
                    routes = [r for r in routes if r[0] != self.collection]
            # each collection pages in id order; the merged page is the first `limit` ids overall
            rows: list[StoredPoint] = []
            for collection, flt in routes:
                records, _ = self._client.scroll(
                    collection,
                    scroll_filter=flt,
                    limit=limit + 1,
                    offset=cursor,
                    with_payload=True,
                    with_vectors=False,
                )
                rows.extend(StoredPoint(str(r.id), _payload(r.payload)) for r in records)
        rows.sort(key=lambda p: p.fact_id)
        return rows[:limit], rows[limit].fact_id if len(rows) > limit else None

    def set_trust(self, trust_by_id: Mapping[str, int]) -> None:
        groups: dict[tuple[str, int], list[str]] = {}
        for fact_id, trust in trust_by_id.items():
            groups.setdefault((self._home(fact_id), trust), []).append(fact_id)
        with self._errors():
            for (collection, trust), ids in groups.items():
                present: list[models.ExtendedPointId] = [
                    str(r.id)
                    for r in self._client.retrieve(
                        collection, ids=ids, with_payload=False, with_vectors=False
                    )
                ]
                if present:
                    self._client.set_payload(
                        collection,
                        payload={"trust": trust},
                        points=present,
                        key=RESERVED_PAYLOAD_KEY,
                        wait=True,
                    )

    def delete(self, fact_ids: Sequence[str]) -> None:
        if not fact_ids:
            return
        groups: dict[str, list[str]] = {}
        for fact_id in fact_ids:
            groups.setdefault(self._home(fact_id), []).append(fact_id)
        with self._errors():
            for collection, ids in groups.items():
                self._client.delete(
                    collection, points_selector=models.PointIdsList(points=ids), wait=True
                )
                for fact_id in ids:
                    self._where.pop(fact_id, None)

    def close(self) -> None:
        with self._errors():
            self._client.close()


def _payload(payload: dict[str, Any] | None) -> dict[str, Any]:
    return dict(payload or {})


def _normal(condition: Condition | None) -> Condition | bool:
    """The normal form (:mod:`memguard.pushdown.normal`); ``True``: everything, ``False``: nothing."""
    return True if condition is None else normalize(condition)


def _owner_split(condition: Condition | None) -> tuple[tuple[str, str], Condition | None] | None:
    """``((iss, sub), rest)`` if ``condition`` is an ``And`` with top-level string ``Eq`` atoms on
    ``owner_iss`` and ``owner_sub``; ``rest`` is the conjunction of every other item (``None`` if
    none). Further owner atoms, if any, stay in ``rest`` and are evaluated as usual."""
    if not isinstance(condition, And):
        return None
    iss = next((i for i in condition.items if _str_eq(i, "owner_iss")), None)
    sub = next((i for i in condition.items if _str_eq(i, "owner_sub")), None)
    if not isinstance(iss, Eq) or not isinstance(sub, Eq):
        return None
    rest = tuple(i for i in condition.items if i is not iss and i is not sub)
    residual = None if not rest else rest[0] if len(rest) == 1 else And(rest)
    return (str(iss.value), str(sub.value)), residual


def _str_eq(cond: Condition, name: str) -> bool:
    return isinstance(cond, Eq) and cond.field == name and type(cond.value) is str
