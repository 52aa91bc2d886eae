"""The qdrant adapter's shared pieces: the backend call a flow yields, point and fact ids, the
supported versions and the allowlist of guarded methods."""

from __future__ import annotations

import uuid
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from qdrant_client import models
from qdrant_client.conversions import common_types as types

from memguard.context import external_fact_id
from memguard.errors import (
    AccessDenied,
    InvalidRequest,
)
from memguard.stores.base import RESERVED_PAYLOAD_KEY

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


def _kw(**kwargs: Any) -> dict[str, Any]:
    """Keyword arguments for a raw call, without the optional ones left at ``None`` (so a client
    release that lacks a newer parameter still works when the caller does not use it)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def _one(call: _Call) -> Flow[Any]:
    """A flow of one backend call, returning its result."""
    result = yield call
    return result
