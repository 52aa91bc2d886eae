"""Points and composite calls: point lists and selectors, uploads in batches, and batched update
operations split into guarded calls."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from qdrant_client import models

from memguard.errors import (
    InvalidRequest,
)

from .base import _point_id
from .payload import _caller_payload


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
        rows: list[Any] = [
            dict(zip(names, vals, strict=True)) for vals in zip(*columns, strict=True)
        ]
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
            sp = (
                item.set_payload
                if isinstance(item, models.SetPayloadOperation)
                else item.overwrite_payload
            )
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
            raise InvalidRequest(f"`{type(item).__name__}` is not supported by the guarded client")
    return steps


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
