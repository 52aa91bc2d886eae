"""The mem0 adapter's shared pieces: supported versions, ids, the call a flow yields, metadata and
scope helpers."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final, Literal, TypeVar

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")


from memguard.compat import require_version
from memguard.context import external_fact_id, principal_label
from memguard.errors import (
    AccessDenied,
    ConfigurationError,
    InvalidRequest,
    ReservedField,
    StoreError,
)
from memguard.kernel import Operation, VerifiedFact
from memguard.provenance import (
    Provenance,
    check_metadata,
    value_digest,
)
from memguard.pushdown.mem0 import LOGICAL
from memguard.stores.base import RESERVED_PAYLOAD_KEY

from .._toolkit import SUMMARY_KEY, provenance_summary

#: mem0ai releases this adapter supports: ``>= [0]`` and ``< [1]``.
SUPPORTED_MEM0: Final = ("2.2.0", "2.3")


_RESERVED: Final = RESERVED_PAYLOAD_KEY


_PENDING: Final = {"state": "pending"}


_SCOPE_KEYS: Final = ("user_id", "agent_id", "run_id")


#: payload keys mem0 keeps next to the text and returns at the top level of a result
_PROMOTED: Final = (
    "user_id",
    "agent_id",
    "run_id",
    "actor_id",
    "role",
    "attributed_to",
    "expiration_date",
)


#: caller metadata may not set what mem0 itself writes into the payload
_MEM0_KEYS: Final = frozenset(
    {
        *_PROMOTED,
        "data",
        "hash",
        "created_at",
        "updated_at",
        "text_lemmatized",
        "id",
        "memory",
        "score",
    }
)


_LOGICAL: Final = LOGICAL


_MAX_TEXT: Final = 1 << 20


_MAX_TOP_K: Final = 10_000


_FILL_ROUNDS: Final = 4


#: how many of the caller's memories mem0's extraction is shown (mem0 itself shows 10)
_INFER_CONTEXT: Final = 10


#: at most this many decisions are taken from one extraction
_MAX_DECISIONS: Final = 100


_EVENTS: Final = frozenset({"ADD", "UPDATE", "DELETE", "NONE"})


_DELETE_BATCH: Final = 1000


_UNSET: Final = object()


T = TypeVar("T")


def check_mem0_version() -> str:
    """The installed mem0ai version, or :class:`ConfigurationError` if this adapter does not support it."""
    return require_version("mem0ai", *SUPPORTED_MEM0)


def memory_fact_id(memory_id: str) -> str:
    """The fact id of a mem0 memory (stable: the same memory id always maps to the same fact id)."""
    if not isinstance(memory_id, str) or not memory_id:
        raise InvalidRequest("`memory_id` must be a non-empty string")
    return external_fact_id("mem0", memory_id)


def user_scope_id(issuer: str, subject: str) -> str:
    """mem0 ``user_id`` of a principal: :func:`memguard.context.principal_label` (the LangGraph
    adapter's tenant label too), so two issuers never collide."""
    return principal_label(issuer, subject)


def _token(value: str, prefix: str) -> str:
    """``value`` as a mem0 entity id (mem0 trims and rejects white space): itself if already clean."""
    if value and not any(c.isspace() for c in value):
        return value
    return prefix + hashlib.sha256(value.encode()).hexdigest()[:40]


#: the deprecated key of the summary in a result: the same dict as under ``"memguard"``
#: (:data:`adapters._toolkit.SUMMARY_KEY`), kept for callers written before the adapters agreed
LEGACY_SUMMARY_KEY: Final = "provenance"


def summarized(item: Mapping[str, Any], prov: Provenance) -> dict[str, Any]:
    """``item`` with ``prov``'s summary under ``"memguard"`` and (deprecated) ``"provenance"``;
    a value the backend returned under either key is replaced."""
    summary = provenance_summary(prov)
    return {**item, SUMMARY_KEY: summary, LEGACY_SUMMARY_KEY: dict(summary)}


@dataclass(frozen=True, slots=True)
class _Call:
    """One backend call the core needs; a shell performs it (sync, or awaited for AsyncMemory)."""

    target: Literal["memory", "store", "history", "llm"]
    method: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


_Flow = Generator[_Call, Any, T]


def _one(call: _Call) -> _Flow[Any]:
    """A flow of one backend call, returning its result."""
    result = yield call
    return result


def _results(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, Mapping) or not isinstance(value.get("results"), list):
        raise StoreError("mem0 returned an unexpected result")
    return [item for item in value["results"] if isinstance(item, dict)]


def _digest(text: str, metadata: Mapping[str, Any], promoted: Mapping[str, Any]) -> str:
    """Content digest of a memory: its text, caller metadata and the fields mem0 returns with it."""
    return value_digest({"memory": text, "metadata": dict(metadata), "mem0": dict(promoted)})


def _split_metadata(item: Mapping[str, Any]) -> tuple[dict[str, Any], object]:
    meta = item.get("metadata")
    caller = dict(meta) if isinstance(meta, Mapping) else {}
    return caller, caller.pop(_RESERVED, None)


def _caller_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    if metadata is None:
        return {}
    checked = check_metadata(metadata)
    for key in checked:
        if key.lower() in _MEM0_KEYS:
            raise ReservedField(f"metadata key `{key}` is reserved by mem0")
    return checked


def _expiration(value: object) -> str | None:
    """mem0's expiration date as it stores it (``YYYY-MM-DD``), normalized before mem0 sees it."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            raise InvalidRequest("`expiration_date` must be a YYYY-MM-DD date") from None
    raise InvalidRequest("`expiration_date` must be a YYYY-MM-DD date")


def _id_of(fact: VerifiedFact) -> str:
    return str((fact.candidate.payload or {})["id"])


def _top_k(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _MAX_TOP_K:
        raise InvalidRequest(f"`top_k` must be an integer between 0 and {_MAX_TOP_K}")
    return value


def _target(op: Operation, memory_id: object) -> tuple[str, str]:
    """The memory id and fact id an id-based call names (inside the operation, so a malformed
    id is audited like any other refusal)."""
    if not isinstance(memory_id, str) or not memory_id or len(memory_id) > 256:
        raise InvalidRequest("`memory_id` must be a non-empty string")
    fact_id = memory_fact_id(memory_id)
    op.about([fact_id])
    return memory_id, fact_id


@dataclass(frozen=True, slots=True)
class ScopeAliases:
    """What existing call sites may pass as mem0 scope keys for the caller, besides memguard's own.

    ``users`` maps an application's ``user_id`` to the principal ``(issuer, subject)`` it names;
    ``agents`` maps an application's ``agent_id`` to a workload id. With ``subject_is_user_id``
    (the default) the caller's own subject (``"alice"``) is accepted as its ``user_id`` too. What a
    memory stores stays memguard's issuer-qualified key; results show the id the call site used.
    """

    users: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    agents: Mapping[str, str] = field(default_factory=dict)
    subject_is_user_id: bool = True

    def __post_init__(self) -> None:
        for name, table in (("users", self.users), ("agents", self.agents)):
            if not isinstance(table, Mapping):
                raise ConfigurationError(f"`{name}` must be a mapping")
            for key in table:
                if not isinstance(key, str) or not _clean(key):
                    raise ConfigurationError(f"`{name}` keys must be non-empty ids without spaces")
        for value in self.users.values():
            if not (
                isinstance(value, tuple)
                and len(value) == 2
                and all(isinstance(v, str) and v for v in value)
            ):
                raise ConfigurationError("`users` values must be (issuer, subject) pairs")
        if not all(isinstance(v, str) and v for v in self.agents.values()):
            raise ConfigurationError("`agents` values must be workload ids")


def _clean(value: str) -> bool:
    return bool(value) and len(value) <= 256 and not any(c.isspace() for c in value)


_NO_ALIASES: Final = ScopeAliases()


def _scope_refusal(key: str) -> AccessDenied:
    return AccessDenied(
        f"`{key}` does not name the caller: it must be the verified identity's own id "
        "(or an alias configured in `ScopeAliases`)",
        code="access_denied.scope_key",
    )
