"""In-place adoption of a mem0 store: its memories become guarded facts where they are.

:func:`adopt_mem0_in_place` stamps each memory of a mem0 ``Memory`` (over Qdrant, mem0's
default vector store) in the layout of ``memguard.adapters.mem0``: the fact id from the memory
id, ``user_id`` set to the owner's scope id (the original value kept as ``legacy_user_id``), the
reserved ``memguard`` block with the provenance; text, vector and the other fields stay. The
application's own mem0 calls, with the ``Memory`` wrapped in ``GuardedMemory``, then serve each
memory to its owner only. The rules are those of every adoption (:mod:`memguard.adopt.run`):
owner from the mapping (``user_id`` by default), source ``legacy``, trust ``untrusted`` unless
stated, the scan stage on the text, one ``adopt`` event per batch, dry run, resumable.

The layout is written here, not by the adapter (adoption is the operator's, without a caller
identity); ``tests/test_adopt_mem0_inplace.py`` checks it against the adapter's constants and
reads the result through ``GuardedMemory``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from memguard.adopt.rows import AdoptReport, LegacyRow, OwnerMapping, Skip
from memguard.adopt.run import _Item, _known, _text, legacy_source, stamp_points_in_place
from memguard.adopt.sources import MEM0_TEXT_FIELD
from memguard.context import external_fact_id, principal_label
from memguard.errors import InvalidRequest
from memguard.kernel import Kernel
from memguard.provenance import value_digest
from memguard.stores.base import RESERVED_PAYLOAD_KEY
from memguard.trust import TrustLevel

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from memguard.ledger import Ledger

__all__ = ["MEM0_PROMOTED", "adopt_mem0_collection_in_place", "adopt_mem0_in_place", "mem0_fact_id"]

#: the payload fields mem0 returns at the top level of a memory (``Memory.get``); the rest of the
#: payload, but for its own bookkeeping fields, comes back under ``metadata``
MEM0_PROMOTED: Final = (
    "user_id", "agent_id", "run_id", "actor_id", "role", "attributed_to", "expiration_date",
)  # fmt: skip
_MEM0_OWN: Final = frozenset(
    {"data", "hash", "created_at", "updated_at", "id", "text_lemmatized", *MEM0_PROMOTED}
)


def mem0_fact_id(memory_id: str) -> str:
    """The fact id of a mem0 memory (``memguard.adapters.mem0.memory_fact_id``)."""
    return external_fact_id("mem0", memory_id)


def _digest(payload: Mapping[str, Any]) -> str:
    """The content digest the mem0 adapter computes for this payload as mem0 returns it: the
    text, the caller metadata (minus the reserved block) and the promoted fields."""
    metadata = {
        k: v for k, v in payload.items() if k not in _MEM0_OWN and k != RESERVED_PAYLOAD_KEY
    }
    promoted = {k: payload[k] for k in MEM0_PROMOTED if k in payload}
    return value_digest({"memory": payload.get("data", ""), "metadata": metadata, "mem0": promoted})


def adopt_mem0_in_place(
    kernel: Kernel | None,
    memory: Any,
    **options: Any,
) -> AdoptReport:
    """Adopt the memories of the mem0 ``memory`` (a ``Memory`` over Qdrant) where they are:
    :func:`adopt_mem0_collection_in_place` on its vector store's client and collection."""
    from qdrant_client import QdrantClient

    store = getattr(memory, "vector_store", None)
    client = getattr(store, "client", None)
    collection = getattr(store, "collection_name", None)
    if not isinstance(client, QdrantClient) or not isinstance(collection, str):
        raise InvalidRequest("in-place adoption needs a mem0 Memory over Qdrant")
    return adopt_mem0_collection_in_place(kernel, client, collection, **options)


def adopt_mem0_collection_in_place(
    kernel: Kernel | None,
    client: QdrantClient,
    collection: str,
    *,
    mapping: OwnerMapping,
    operator: str,
    namespace: str = "mem0",
    trust: TrustLevel | None = None,
    source_uri: str | None = None,
    batch: int = 256,
    dry_run: bool = False,
    on_batch: Callable[[int], object] | None = None,
    ledger: Ledger | None = None,
) -> AdoptReport:
    """Adopt the memories in mem0's Qdrant ``collection`` where they are (module docstring;
    ``memguard adopt mem0 --in-place``). Memories that
    already carry a ``memguard`` block and are not in the ledger are skipped
    (``payload.reserved``), as are those without text or a clear owner. ``namespace``: the one
    ``GuardedMemory`` is built with (its default, ``mem0``)."""
    uri = source_uri or f"mem0:{collection}"
    source = legacy_source(uri, name=collection)
    known = _known(kernel, ledger)

    def prepare(row: LegacyRow) -> _Item | Skip:
        fact_id = mem0_fact_id(row.key)
        if any(k.casefold() == RESERVED_PAYLOAD_KEY for k in row.record):
            return "already" if known([fact_id]) else "payload.reserved"
        owner = mapping.owner_of(row)
        if isinstance(owner, str):
            return owner
        text = _text(row, MEM0_TEXT_FIELD)
        if text == "text.missing":
            return text
        change: dict[str, Any] = {"user_id": principal_label(owner.issuer, owner.subject)}
        if row.record.get("user_id") not in (None, change["user_id"]):
            change["legacy_user_id"] = row.record["user_id"]
        payload = {**row.record, **change}
        pid: int | str = int(row.key) if row.key.isdigit() else row.key
        return _Item(row, fact_id, owner, namespace, text, _digest(payload), (pid, change))

    return stamp_points_in_place(
        kernel, known, client, collection, prepare, source=source, operator=operator,
        trust=trust, batch=batch, dry_run=dry_run, on_batch=on_batch,
    )  # fmt: skip
