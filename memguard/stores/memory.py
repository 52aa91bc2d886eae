"""An in-process store: exact cosine search with numpy over the facts the condition admits."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from memguard.errors import StoreError
from memguard.scope import Condition, evaluate
from memguard.stores.base import RESERVED_PAYLOAD_KEY, Hit, StoredPoint

__all__ = ["InMemoryStore"]


class InMemoryStore:
    """For tests and small deployments; the condition is applied before ranking (a pre-filter)."""

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension
        self._points: dict[str, tuple[npt.NDArray[np.float32], StoredPoint]] = {}
        self._lock = threading.Lock()

    def _unit(self, vector: Sequence[float]) -> npt.NDArray[np.float32]:
        arr = np.asarray(vector, dtype=np.float32)
        if arr.shape != (self.dimension,):
            raise StoreError("vector has the wrong dimension")
        norm = float(np.linalg.norm(arr))
        return arr / norm if norm > 0 else arr

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        staged = {p.fact_id: (self._unit(p.vector or []), p) for p in points}
        with self._lock:
            self._points.update(staged)

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]:
        with self._lock:
            return [self._points[i][1] for i in fact_ids if i in self._points]

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
    ) -> list[Hit]:
        query = self._unit(vector)
        with self._lock:
            rows = [
                (vec, point)
                for vec, point in self._points.values()
                if condition is None or evaluate(condition, point.index)
            ]
        if not rows:
            return []
        scores = np.stack([vec for vec, _ in rows]) @ query
        order = np.argsort(-scores, kind="stable")[offset : offset + limit]
        return [
            Hit(rows[i][1].fact_id, float(scores[i]), rows[i][1].payload) for i in order.tolist()
        ]

    def scroll(
        self, *, condition: Condition | None, limit: int, cursor: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        with self._lock:
            rows = sorted(
                (p for _, p in self._points.values()
                 if (cursor is None or p.fact_id >= cursor)
                 and (condition is None or evaluate(condition, p.index))),
                key=lambda p: p.fact_id,
            )  # fmt: skip
        page = rows[:limit]
        return page, rows[limit].fact_id if len(rows) > limit else None

    def set_trust(self, trust_by_id: Mapping[str, int]) -> None:
        with self._lock:
            for fact_id, trust in trust_by_id.items():
                entry = self._points.get(fact_id)
                if entry is None:
                    continue
                vec, point = entry
                payload = dict(point.payload)
                reserved = payload.get(RESERVED_PAYLOAD_KEY)
                if not isinstance(reserved, Mapping):
                    continue
                payload[RESERVED_PAYLOAD_KEY] = {**reserved, "trust": trust}
                self._points[fact_id] = (vec, StoredPoint(fact_id, payload, point.vector))

    def delete(self, fact_ids: Sequence[str]) -> None:
        with self._lock:
            for fact_id in fact_ids:
                self._points.pop(fact_id, None)

    def close(self) -> None:
        pass
