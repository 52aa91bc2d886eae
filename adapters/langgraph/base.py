"""The LangGraph adapter's constants, names and value helpers (what every part of it shares)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Generator, Mapping, Sequence
from typing import Any, Final, TypeVar

from langgraph.store.base import ListNamespacesOp, Op, PutOp, Result, SearchOp

from memguard.compat import require_version
from memguard.context import principal_label
from memguard.integrity import Candidate
from memguard.provenance import Provenance, value_digest
from memguard.pushdown.langgraph import RESERVED_PREFIX, decode, encode
from memguard.scope import EXACT_INT
from memguard.stores.base import reserved_block

#: The ``langgraph-checkpoint`` releases this adapter supports: ``>=SUPPORTED_MIN,<SUPPORTED_BELOW``.
SUPPORTED_MIN: Final = "4.3.2"
SUPPORTED_BELOW: Final = "5"
_DISTRIBUTION: Final = "langgraph-checkpoint"

#: where a run carries its caller: ``graph.invoke(..., context={"memguard": ...})`` (the runtime
#: context, a dict or an object with this attribute) or ``config={"configurable": {"memguard": ...}}``;
#: the value is a :class:`memguard.context.Binding` or an access token the store verifies
BINDING_KEY: Final = "memguard"
#: ``configurable`` key of the turn index a token-bound run stamps (its session is the thread id)
TURN_KEY: Final = "memguard_turn"

_DOC: Final = "doc"  # ``__memguard_doc``: a copy of the caller's value, embedded in place of ``$``
_DOC_KEY: Final = RESERVED_PREFIX + _DOC
_MAX_WINDOW: Final = 10_000  # offset + limit of one search
_FILL_ROUNDS: Final = 6
_LIST_PAGE: Final = 1000

_T = TypeVar("_T")
#: A sans-I/O operation: yields batches of inner-store ops, receives their results, returns a value.
Flow = Generator[list[Op], list[Result], _T]


@functools.lru_cache(maxsize=8)
def _require_supported(minimum: str, below: str) -> str:
    return require_version(_DISTRIBUTION, minimum, below)


def tenant_segment(issuer: str, subject: str) -> str:
    """The first namespace label of everything stored for the principal (issuer, subject)."""
    return principal_label(issuer, subject)


def namespace_name(namespace: Sequence[str]) -> str:
    """The memguard namespace of a LangGraph namespace: its labels joined with ``.``.

    Injective because LangGraph forbids ``.`` (and empty labels) inside a label; the result must
    also pass memguard's identifier rules (NFC, no control or invisible characters, 1-1024 chars).
    """
    return ".".join(namespace)


# -- values ------------------------------------------------------------------------------------------


#: ``__memguard_expires_at``: when the item expires, as order-preserving fixed-width text (epoch
#: seconds, encoded like the integer fields); items without an expiry carry :data:`_NEVER`, so a
#: store with a ``ttl_config`` pushes "not expired" into its filter as one ``$gt``
_EXPIRES_KEY: Final = RESERVED_PREFIX + "expires_at"
_NEVER: Final = "9" * 15


def _expires_text(seconds: int) -> str:
    return f"{seconds + EXACT_INT:015d}"


def _expiry_item(prov: Provenance) -> dict[str, str]:
    at = prov.expires_at
    return {_EXPIRES_KEY: _NEVER if at is None else _expires_text(math.ceil(at.timestamp()))}


def _not_expired_filter(now: float) -> dict[str, Any]:
    """The inner filter of "not expired at ``now``" (pushed down; the kernel re-checks)."""
    # `$ne: None` first: an item written before the key existed fails it, not InMemoryStore's float()
    return {_EXPIRES_KEY: {"$ne": None, "$gt": _expires_text(math.floor(now))}}


def _is_reserved(key: str) -> bool:
    return key.lower().startswith(RESERVED_PREFIX)


def _reserved_items(prov: Provenance) -> dict[str, Any]:
    return {RESERVED_PREFIX + k: encode(k, v) for k, v in reserved_block(prov).items()}


def _json_copy(value: Any) -> Any:
    """A private copy of a JSON value (the caller cannot alias into the stored one, or back)."""
    return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))


def _split(value: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The caller's part of a stored value and the reserved block (decoded)."""
    caller: dict[str, Any] = {}
    reserved: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(key, str) and key.startswith(RESERVED_PREFIX):
            name = key[len(RESERVED_PREFIX) :]
            reserved[name] = decode(name, item)
        else:
            caller[key] = item
    return caller, reserved


def _listed(result: Result) -> list[Any]:
    """A list result of the inner store (``[]`` for anything else)."""
    return list(result) if isinstance(result, list) else []


def _candidate(fact_id: str, value: Any, score: float | None = None) -> Candidate:
    if not isinstance(value, Mapping):
        return Candidate(fact_id, None, {}, score, None)
    caller, reserved = _split(value)
    doc = reserved.pop(_DOC, caller)
    # an edited embedding copy changes what the item is found by: digest both, so it cannot match
    content = caller if doc == caller else {"value": caller, "embedded": doc}
    try:
        digest: str | None = value_digest(content)
    except (TypeError, ValueError):
        digest = None
    return Candidate(fact_id, digest, reserved, score, caller)


def _action_of(ops: Sequence[Op]) -> str:
    first = ops[0] if ops else None
    if isinstance(first, PutOp):
        return "write"
    if isinstance(first, ListNamespacesOp):
        return "list"
    return "search" if isinstance(first, SearchOp) else "get"
