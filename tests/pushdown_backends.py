"""Every push-down translator on its real backend, behind one interface, for the differential tests.

``Backends.select(condition)`` answers, for each backend, which of the loaded facts the store's own
query returns when the condition is translated for it:

- ``qdrant``: :func:`memguard.pushdown.qdrant.to_qdrant_filter`, a ``scroll`` in qdrant-client local
  mode (the QdrantStore's and the qdrant adapter's translation);
- ``sqlite`` / ``postgres``: :func:`memguard.pushdown.sql.to_sql_where` over the facts table and the
  list side table (PostgreSQL when a server is given);
- ``mem0``: :func:`memguard.pushdown.mem0.scoped_filters` handed to a real mem0 ``Memory`` (Qdrant
  local mode underneath), by ``get_all`` and by ``search``: mem0's own filter handling applies them;
- ``langgraph``: :func:`memguard.pushdown.langgraph.to_langgraph_filters`, one ``search`` per filter
  on LangGraph's ``InMemoryStore``, the union of their results; as in the adapter, each owner's
  facts live in their own namespace (the tenant partition) and a search for an owner folds the owner
  fields and searches only that partition.

A fact a backend cannot hold (the SQL layout refuses values outside a field's domain; LangGraph's
``InMemoryStore`` compares through ``float()``, so a non-numeric text in an integer field would make
its search raise) is not loaded there; ``held[name]`` says which facts each backend holds.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Mapping
from typing import Any

os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="memguard-mem0-"))

from langgraph.store.memory import InMemoryStore as LangGraphStore
from qdrant_client import QdrantClient, models
from sqlalchemy import MetaData, create_engine, delete, insert, select
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.pool import StaticPool

from memguard.adapters.mem0 import offline_memory
from memguard.context import principal_label
from memguard.pushdown.langgraph import (
    ALWAYS_PRESENT,
    RESERVED_PREFIX,
    encode,
    to_langgraph_filters,
)
from memguard.pushdown.mem0 import scoped_filters
from memguard.pushdown.normal import NormalForm
from memguard.pushdown.qdrant import to_qdrant_filter
from memguard.pushdown.sql import SqlFactTables, fact_rows, fact_tables, to_sql_where
from memguard.scope import FIELDS, FieldValue, typed_values

__all__ = ["BACKENDS", "Backends", "langgraph_layout", "well_typed"]

BACKENDS = ("qdrant", "sqlite", "postgres", "mem0", "langgraph")
COLLECTION = "facts"
USER = "u-differential"
_INT = {name for name, kind in FIELDS.items() if kind is int}


def well_typed(fields: Mapping[str, Any]) -> bool:
    """Every indexed field is missing or holds a value of its type and domain (what memguard writes)."""
    return all(
        fields.get(name) in (None, []) or typed_values(name, fields.get(name)) is not None
        for name in FIELDS
    )


def _langgraph_safe(fields: Mapping[str, Any]) -> bool:
    """What the adapter's layout can hold: no tags (it never stores them), and no text, list or
    object in an integer field (InMemoryStore's `float()` would raise)."""
    return fields.get("tags") in (None, []) and all(
        fields.get(name) is None or type(fields.get(name)) in (int, bool) for name in _INT
    )


def _tenant(iss: object, sub: object) -> tuple[str, ...]:
    """The adapter's tenant partition of an owner (facts without a plain owner: one apart)."""
    if isinstance(iss, str) and isinstance(sub, str):
        return ("t", principal_label(iss, sub))
    return ("t", "no-owner")


def langgraph_layout(fields: Mapping[str, Any]) -> bool:
    """Every string field the adapter writes on every item is there (its `$ne` needs no guard)."""
    return all(type(fields.get(name)) is str for name in ALWAYS_PRESENT if FIELDS[name] is str)


class Backends:
    """One instance of every backend; :meth:`load` replaces what they hold."""

    def __init__(self, postgres_url: str | None = None) -> None:
        self.qdrant = QdrantClient(location=":memory:")
        self.qdrant.create_collection(
            COLLECTION, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE)
        )
        # one shared connection: every new connection to `sqlite://` would be a new, empty database
        self.sql: dict[str, SqlEngine] = {"sqlite": create_engine("sqlite://", poolclass=StaticPool)}
        if postgres_url is not None:
            self.sql["postgres"] = create_engine(postgres_url)
        md = MetaData()
        self.tables: SqlFactTables = fact_tables(md, "mgdiff")
        for engine in self.sql.values():
            md.create_all(engine)
        self.mem0 = offline_memory(dimension=8, collection=f"diff_{uuid.uuid4().hex[:8]}")
        self.langgraph = LangGraphStore()
        self.facts: dict[str, dict[str, FieldValue]] = {}
        self.held: dict[str, set[str]] = {name: set() for name in self.names}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n in BACKENDS if n != "postgres" or "postgres" in self.sql)

    def close(self) -> None:
        self.qdrant.close()
        for engine in self.sql.values():
            engine.dispose()
        try:
            self.mem0.vector_store.client.close()
        except Exception:  # pragma: no cover - best effort
            pass

    # -- loading -----------------------------------------------------------------------------------

    def load(self, facts: Mapping[str, Mapping[str, FieldValue]]) -> None:
        """Hold exactly ``facts`` (fact id -> indexed fields) in every backend that can hold them."""
        self.clear()
        self.facts = {fid: dict(f) for fid, f in facts.items()}
        if not facts:
            return
        self.qdrant.upsert(
            COLLECTION,
            points=[
                models.PointStruct(id=fid, vector=[1.0, 0.5], payload={"memguard": dict(f)})
                for fid, f in facts.items()
            ],
            wait=True,
        )
        self.held["qdrant"] = set(facts)
        for name, engine in self.sql.items():
            rows, values, ok = [], [], set()
            for fid, f in facts.items():
                try:
                    row, vals = fact_rows(fid, f)
                except ValueError:
                    continue  # outside its field's domain: the SQL layout refuses it
                rows.append(row)
                values.extend(vals)
                ok.add(fid)
            with engine.begin() as conn:
                if rows:
                    conn.execute(insert(self.tables.facts), rows)
                if values:
                    conn.execute(insert(self.tables.values), values)
            self.held[name] = ok
        # every memory at the query's own vector: search's score threshold never decides anything
        probe = self.mem0.embedding_model.embed("t", "search")
        self.mem0.vector_store.insert(
            vectors=[probe for _ in facts],
            payloads=[
                {"memguard": dict(f), "user_id": USER, "data": "t", "hash": "h",
                 "created_at": "2026-01-01T00:00:00+00:00"}
                for f in facts.values()
            ],
            ids=list(facts),
        )
        self.held["mem0"] = set(facts)
        ok = set()
        for fid, f in facts.items():
            if not _langgraph_safe(f):
                continue
            value = {RESERVED_PREFIX + k: encode(k, v) for k, v in f.items()}
            self.langgraph.put(_tenant(f.get("owner_iss"), f.get("owner_sub")), fid, value, index=False)
            ok.add(fid)
        self.held["langgraph"] = ok

    def clear(self) -> None:
        ids = list(self.facts)
        if ids:
            self.qdrant.delete(COLLECTION, points_selector=models.PointIdsList(points=ids))
            for engine in self.sql.values():
                with engine.begin() as conn:
                    conn.execute(delete(self.tables.values))
                    conn.execute(delete(self.tables.facts))
            for fid in ids:
                try:
                    self.mem0.vector_store.delete(fid)
                except Exception:  # pragma: no cover - not held
                    pass
                f = self.facts[fid]
                self.langgraph.delete(_tenant(f.get("owner_iss"), f.get("owner_sub")), fid)
        self.facts = {}
        self.held = {name: set() for name in self.names}

    # -- querying ----------------------------------------------------------------------------------

    def select(
        self,
        cond: NormalForm,
        *,
        mem0_search: bool = False,
        only: tuple[str, ...] | None = None,
        owner: tuple[str, str] | None = None,
    ) -> dict[str, set[str]]:
        """For each backend (or ``only`` those), the ids its store query returns for ``cond``;
        ``owner``: LangGraph searches that owner's partition only, with the owner folded."""
        names = self.names if only is None else only
        out: dict[str, set[str]] = {}
        limit = len(self.facts) + 10
        if "qdrant" in names:
            points, _ = self.qdrant.scroll(
                COLLECTION, scroll_filter=to_qdrant_filter(cond), limit=limit
            )
            out["qdrant"] = {str(p.id) for p in points}
        sql = [n for n in self.sql if n in names]
        if sql:
            where = to_sql_where(cond, self.tables)
            for name in sql:
                with self.sql[name].connect() as conn:
                    rows = conn.execute(select(self.tables.facts.c.fact_id).where(where)).all()
                out[name] = {r[0] for r in rows}
        if "mem0" in names:
            filters = scoped_filters(USER, None if cond is True else cond)
            if mem0_search:
                got = self.mem0.search("t", filters=filters, top_k=limit, threshold=None)
            else:
                got = self.mem0.get_all(filters=filters, top_k=limit)
            out["mem0"] = {str(m["id"]) for m in got["results"]}
        if "langgraph" in names:
            ids: set[str] = set()
            prefix: tuple[str, ...] = ("t",)
            known: dict[str, FieldValue] = {}
            if owner is not None:
                prefix = _tenant(*owner)
                known = {"owner_iss": owner[0], "owner_sub": owner[1]}
            for flt in to_langgraph_filters(cond, known):
                for item in self.langgraph.search(prefix, filter=flt or None, limit=100_000):
                    ids.add(item.key)
            out["langgraph"] = ids
        return out

