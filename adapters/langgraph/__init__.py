"""A guarded LangGraph ``BaseStore`` (which also covers LangMem): every call goes through memguard.

    from langgraph.store.memory import InMemoryStore
    from memguard.adapters.langgraph import GuardedStore

    store = GuardedStore(InMemoryStore(index=...), kernel=kernel, identity=me, context=CallContext(
        source=Source(kind=SourceKind.USER_MESSAGE, name="chat"), turn=Turn(session_id="s-1", turn_index=0)))
    store.put(("memories", "prefs"), "theme", {"text": "likes dark mode"})
    store.search(("memories",), query="dark mode")      # only the caller's own, verified items
    store.provenance(("memories", "prefs"), "theme")    # who wrote it, from where, at what trust

Every convenience method of ``BaseStore`` (``get``, ``search``, ``put``, ``delete``,
``list_namespaces`` and their ``a``-twins) goes through :meth:`GuardedStore.batch` /
:meth:`GuardedStore.abatch`, which run each operation as one audited kernel operation.

Layout in the inner store (see ``docs/adapters/langgraph.md``):

- **Tenant partition.** Every namespace is stored under a first label derived from the verified
  identity's (issuer, subject) (:func:`tenant_segment`) and shown to the caller without it, so one
  user's ``("memories",)`` is physically apart from another's; reads and listings never leave it.
- **Reserved keys.** The value keeps the caller's keys at the top level (so the caller's own
  ``filter`` works unchanged) plus ``__memguard_*`` keys: the indexed fields of
  :func:`memguard.scope.index_fields` (integers as order-preserving fixed-width strings, so a
  text comparison such as PostgresStore's ``->>`` orders them as numbers), the version, the record
  digest and the full provenance record. They are stripped from every returned item.
- **Scope push-down.** A read plan's residual condition becomes part of the inner store's own
  ``filter`` (``$eq``/``$ne``/``$gte``/``$lt`` on the reserved keys), by
  :mod:`memguard.pushdown.langgraph`: one inner query per disjunct (LangGraph has no ``or``), merged
  exactly by score; what the filter language cannot express (a negation of a nullable field, two
  excluded values of one string field) raises :class:`~memguard.errors.UntranslatableCondition`:
  the read is refused, never post-filtered.

Modules: ``base`` (constants, names, value helpers), ``binding`` (the caller a run carries),
``call`` / ``reads`` / ``writes`` / ``flows`` (the sans-I/O flows of one call), ``driver`` (sync
and async drivers), ``store`` (the :class:`GuardedStore` shell).
"""

from __future__ import annotations

from memguard.pushdown.langgraph import RESERVED_PREFIX

from .adopt import adopt_langgraph_in_place as adopt_in_place
from .base import BINDING_KEY, SUPPORTED_BELOW, SUPPORTED_MIN, namespace_name, tenant_segment
from .base import TURN_KEY as TURN_KEY  # importable, as before the split
from .store import GuardedStore

__all__ = [
    "BINDING_KEY",
    "RESERVED_PREFIX",
    "SUPPORTED_BELOW",
    "SUPPORTED_MIN",
    "GuardedStore",
    "adopt_in_place",
    "namespace_name",
    "tenant_segment",
]
