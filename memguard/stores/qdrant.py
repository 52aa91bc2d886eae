"""Qdrant backend through qdrant-client: local mode (``":memory:"`` or ``path=``) or a server (``url=``).

The same code drives both; only payload-index creation is skipped in local mode, which has no
indexes. Every qdrant-client exception is translated to :class:`~memguard.errors.StoreError` here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from qdrant_client import QdrantClient, models

from memguard.compat import require_version
from memguard.errors import MemguardError, StoreError
from memguard.scope import FIELDS, Condition
from memguard.stores.base import Hit, StoredPoint
from memguard.stores.qdrant_filter import field_key, to_qdrant_filter

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
    ) -> None:
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
            self._ensure_collection()

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
        structs = [
            models.PointStruct(id=p.fact_id, vector=list(p.vector or []), payload=dict(p.payload))
            for p in points
        ]
        with self._errors():
            self._client.upsert(self.collection, points=structs, wait=True)

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]:
        if not fact_ids:
            return []
        with self._errors():
            records = self._client.retrieve(
                self.collection, ids=list(fact_ids), with_payload=True, with_vectors=False
            )
        return [StoredPoint(str(r.id), _payload(r.payload)) for r in records]

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
    ) -> list[Hit]:
        query_filter = None if condition is None else to_qdrant_filter(condition)
        with self._errors():
            response = self._client.query_points(
                self.collection,
                query=list(vector),
                query_filter=query_filter,
                limit=limit,
                offset=offset,
                with_payload=True,
                with_vectors=False,
            )
        return [Hit(str(p.id), float(p.score), _payload(p.payload)) for p in response.points]

    def delete(self, fact_ids: Sequence[str]) -> None:
        if not fact_ids:
            return
        with self._errors():
            self._client.delete(
                self.collection,
                points_selector=models.PointIdsList(points=list(fact_ids)),
                wait=True,
            )

    def close(self) -> None:
        with self._errors():
            self._client.close()


def _payload(payload: dict[str, Any] | None) -> dict[str, Any]:
    return dict(payload or {})
