"""Payloads: the caller's part and the reserved block, projections, the provenance summary a read
shows, and payload changes (``set_payload`` and its kin) with qdrant-client's own semantics."""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_core import to_jsonable_python
from qdrant_client import models
from qdrant_client.conversions import common_types as types

from memguard.errors import (
    InvalidRequest,
    ReservedField,
)
from memguard.provenance import value_digest

from .._toolkit import ProvenanceSummary
from .base import _RESERVED


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


#: where a returned payload carries the provenance summary: its top level (``payload["memguard"]``),
#: LangChain's ``payload["metadata"]`` (``Document.metadata["memguard"]``), or LlamaIndex's node
#: (``metadata["memguard"]`` inside ``_node_content``, and the top level for legacy nodes)
SummaryPlacement = Literal["payload", "metadata", "node"]


_PLACEMENTS: frozenset[str] = frozenset({"payload", "metadata", "node"})


def _place_summary(payload: dict[str, Any], summary: ProvenanceSummary, where: str) -> None:
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
