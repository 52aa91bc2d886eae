"""Guarded wrappers of the memory clients agents already use (``memguard.adapters.<store>``).

Each adapter keeps its client's API and runs every call as one audited operation of a
:class:`memguard.kernel.Kernel` (verify -> decide -> stamp -> store -> record; reads pushed into the
backend's own query and re-checked against the ledger). Each imports only its own backend and checks
its version with :func:`memguard.compat.require_version`:

- ``memguard.adapters.qdrant``: ``GuardedQdrantClient`` / ``AsyncGuardedQdrantClient`` (qdrant-client)
- ``memguard.adapters.langgraph``: ``GuardedStore`` (a LangGraph ``BaseStore``; also LangMem)
- ``memguard.adapters.mem0``: ``GuardedMemory`` / ``GuardedAsyncMemory`` (mem0ai)
- ``memguard.adapters.sql``: ``SqlStore`` (a ``MemoryStore`` over SQLAlchemy) and ``GuardedSqlMemory``

See docs/adapters/.

What every adapter shares (``adapters/_toolkit.py``, docs/adapters/common.md): the caller's identity
is checked when an adapter is built (:func:`require_identity`: the kernel's ``IdentityError`` with
the same codes everywhere) and on each call (``identity.conflict`` inside an ``acting_as`` block for
another caller); results carry one :class:`ProvenanceSummary` under :data:`SUMMARY_KEY`
(``"memguard"``); a caller that names no turn gets one per call (:func:`per_call_turn`).
"""

from ._toolkit import (
    SUMMARY_KEY,
    PerCallTurn,
    ProvenanceSummary,
    per_call_turn,
    provenance_summary,
    require_identity,
)

__all__ = [
    "SUMMARY_KEY",
    "PerCallTurn",
    "ProvenanceSummary",
    "per_call_turn",
    "provenance_summary",
    "require_identity",
]
