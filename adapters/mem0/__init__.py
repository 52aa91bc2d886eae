"""A mem0 ``Memory`` (and ``AsyncMemory``) behind memguard, with mem0's own method names and signatures.

::

    guarded = GuardedMemory(memory, kernel=kernel, identity=me, context=CallContext(
        source=Source(kind=SourceKind.WEB, uri=url), turn=Turn(session_id="s-1", turn_index=3)))
    guarded.add("ACME's rate limit is 100 req/min", infer=False)
    guarded.search("rate limit", top_k=5)["results"]      # each hit carries a "memguard" summary

Scope keys come from the verified identity, never from the caller: ``user_id`` is a digest of the
subject's (issuer, subject), ``agent_id`` the current actor's workload id, ``run_id`` the context's
session. A caller value that differs (another user, ``"*"``, an operator) is refused.

Layout: each memory's mem0 payload keeps memguard's reserved block (indexed fields, record digest,
full provenance record) under the ``memguard`` key of its metadata; results never show it. Each
result carries the adapters' one :class:`~memguard.adapters.ProvenanceSummary` under its own
top-level ``"memguard"`` key, and the same dict under ``"provenance"`` (deprecated: kept for callers
written before the adapters agreed on one key; see docs/adapters/common.md). Reads push the scope plan
into mem0's own filter language as dotted keys (``memguard.trust``, always in operator form), next to
``user_id``; the caller's own filter goes one level down, under an ``AND`` that mem0's filter
preprocessing passes through unchanged. What that language cannot express is refused. Every hit is
verified against the ledger (content digest over the text, caller metadata and mem0's scope fields).

Writes. mem0 picks memory ids itself, and the fact id is ``external_fact_id("mem0", memory_id)``, so
``add`` runs: decide (a stamp with provisional ids) -> mem0 ``add`` with a ``pending`` reserved block
(no indexed fields: no scoped read can match it) -> stamp with the real ids -> ledger ``pending`` ->
reserved block written onto each memory -> ledger ``committed``. A failure after mem0's add deletes
what it created. ``update`` knows its id, so it is the plain protocol with one mem0 call.

Deletes tombstone the ledger row, call mem0's ``delete``, then redact the memory's rows in mem0's
history table (``old_memory``, ``new_memory`` and ``actor_id`` set to NULL; the events and their
times stay), then mark the row purged. See ``docs/adapters/mem0.md``.

Modules: ``base``, ``messages``, ``scope`` / ``writes`` / ``reads`` / ``core`` (the flows),
``driver`` (sync/async drivers), ``client`` (the shells), ``offline`` (test parts).
"""

from __future__ import annotations

import os

# mem0 reads this once, when it is first imported, and uploads usage events from construction
# on: off unless the application turned it on itself (the shells refuse mem0 with it on)
os.environ.setdefault("MEM0_TELEMETRY", "False")

from memguard.pushdown.mem0 import scoped_filters, to_mem0_filter

from .._toolkit import provenance_summary
from .base import (
    LEGACY_SUMMARY_KEY,
    SUPPORTED_MEM0,
    ScopeAliases,
    check_mem0_version,
    memory_fact_id,
    user_scope_id,
)
from .client import GuardedAsyncMemory, GuardedMemory
from .offline import HashEmbedding, OfflineLLM, ScriptedLLM, offline_async_memory, offline_memory

__all__ = [
    "LEGACY_SUMMARY_KEY",
    "SUPPORTED_MEM0",
    "GuardedAsyncMemory",
    "GuardedMemory",
    "HashEmbedding",
    "OfflineLLM",
    "ScopeAliases",
    "ScriptedLLM",
    "check_mem0_version",
    "memory_fact_id",
    "offline_async_memory",
    "offline_memory",
    "provenance_summary",
    "scoped_filters",
    "to_mem0_filter",
    "user_scope_id",
]
