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
"""
