"""Agent memories in your relational database: a SQL :class:`~memguard.stores.base.MemoryStore`
(SQLite or PostgreSQL through SQLAlchemy, the engine SQLModel builds on) and a small guarded row facade.

``SqlStore`` keeps one row per fact in ``<prefix>_facts`` and list-valued scope fields (``tags``) in
``<prefix>_fact_values``, the layout of :func:`memguard.pushdown.sql.fact_tables`; the read scope is
translated by :func:`memguard.pushdown.sql.to_sql_where` (the one SQL translator) and runs as the WHERE
clause of every query, so the database returns only rows the caller may read. Columns of the facts
table::

    fact_id          primary key
    <scope fields>   one nullable column per scalar field of memguard.scope.FIELDS (owner_iss,
                     owner_sub, namespace, trust, ...): what the WHERE clause filters on
    text, metadata   the fact's content (metadata as JSON)
    memguard         the reserved block as JSON: scope fields, version, record digest, full record
    vector           float32 little-endian bytes, scaled to unit length (cosine)

Search: the WHERE clause selects the candidate rows inside the database (only their ids and vectors
come back), numpy ranks them by exact cosine similarity, and the top ``limit`` rows after ``offset``
are read in full. The scope columns and the reserved JSON are compared on every read: a row whose
columns and JSON disagree comes back with that field marked, so the guard withholds it
(``integrity.index_mismatch``) whichever of the two was edited. Tags in the side table only select;
a fact they wrongly select is withheld by the guard's re-check of the ledger's own fields.

Both stores can share the ledger's database (``SqlStore(engine=ledger.engine)``, or the same URL) or
live in another one; see ``docs/adapters/sql.md``.
"""

from __future__ import annotations

import builtins
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt
from sqlalchemy import (
    JSON,
    Column,
    ColumnElement,
    Engine,
    Index,
    LargeBinary,
    MetaData,
    Row,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from memguard.compat import require_version
from memguard.context import CallContext
from memguard.errors import (
    ConfigurationError,
    InvalidRequest,
    MemguardError,
    StoreError,
    StoreUnavailable,
)
from memguard.guard import MemoryGuard, RecalledFact
from memguard.identity import Identity
from memguard.integrity import payload_candidate
from memguard.provenance import Provenance, Source, Turn
from memguard.pushdown.sql import SqlFactTables, fact_rows, fact_tables, to_sql_where
from memguard.scope import FIELDS, LIST_FIELDS, Condition, FieldValue, PlanKind, ReadRequest
from memguard.stores.base import RESERVED_PAYLOAD_KEY, Hit, StoredPoint
from memguard.trust import TrustLevel

from ._toolkit import (
    ProvenanceSummary,
    check_binding,
    is_unavailable,
    provenance_summary,
    require_identity,
)

__all__ = ["SUPPORTED", "GuardedSqlMemory", "MemoryRow", "SqlStore"]

#: SQLAlchemy versions this adapter supports (SQLModel >= 0.0.22 runs on SQLAlchemy 2).
SUPPORTED = (">=", "2.0", "<", "3")

_LAYOUT = "memguard.sql-store/v2"  # v2: the `lineage_trust` column
_PREFIX = re.compile(r"[a-z][a-z0-9_]{0,31}")
_CHUNK = 500  # ids per IN (...) list: well below SQLite's bound-parameter limit
_SCALARS = tuple(name for name in FIELDS if name not in LIST_FIELDS)
_MAX_K = 1000
_FILL_ROUNDS = 6
_CLAUSE_CACHE = 1024


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    # FULL, as the ledger: a row the guard acknowledged survives power loss, not only a crash
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def _engine_for(url: str) -> tuple[Engine, bool]:
    """An engine for ``url``, and whether it is a single shared connection (in-memory SQLite)."""
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise ConfigurationError("invalid store url") from exc
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            # every connection to an in-memory database is a new, empty one: keep exactly one
            engine = create_engine(
                url, connect_args={"check_same_thread": False}, poolclass=StaticPool
            )
            return engine, True
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine, False
    if backend == "postgresql":
        return create_engine(url, pool_pre_ping=True), False
    raise ConfigurationError(f"unsupported store backend `{backend}`")


class SqlStore:
    """Facts as rows of a SQL table; the read scope is the WHERE clause of every query.

    ``SqlStore("sqlite:///path/memories.db")``, ``SqlStore("postgresql+psycopg://...")`` or
    ``SqlStore(engine=existing_engine)`` (e.g. the ledger's ``ledger.engine``, or the engine your
    SQLModel app already has; it is not disposed by :meth:`close`). Tables are created if missing;
    reopening with another ``dimension`` is refused. Every database failure raises
    :class:`~memguard.errors.StoreError`; a condition the translator cannot express raises
    :class:`~memguard.errors.UntranslatableCondition` before the database is asked anything.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: Engine | None = None,
        table_prefix: str = "memguard_store",
        dimension: int = 384,
    ) -> None:
        require_version("sqlalchemy", SUPPORTED[1], SUPPORTED[3])
        if (url is None) == (engine is None):
            raise ConfigurationError("give one of `url` or `engine`")
        if not isinstance(table_prefix, str) or not _PREFIX.fullmatch(table_prefix):
            raise ConfigurationError(
                "`table_prefix` must be 1-32 lowercase letters, digits or `_`, starting with a letter"
            )
        if (
            isinstance(dimension, bool)
            or not isinstance(dimension, int)
            or not 1 <= dimension <= 65536
        ):
            raise ConfigurationError("`dimension` must be an integer between 1 and 65536")
        self.dimension = dimension
        self.table_prefix = table_prefix
        shared_connection = False
        if engine is None:
            assert url is not None
            engine, shared_connection = _engine_for(url)
            self._owns_engine = True
        else:
            self._owns_engine = False
            shared_connection = isinstance(engine.pool, StaticPool)
        if engine.dialect.name not in ("sqlite", "postgresql"):
            raise ConfigurationError(f"unsupported store backend `{engine.dialect.name}`")
        self._engine = engine
        # one shared DBAPI connection (in-memory SQLite) is not safe across threads: serialize
        self._lock: threading.RLock | None = threading.RLock() if shared_connection else None
        self._closed = False
        # a caller's scope is the same condition call after call: translate it once
        self._clauses: dict[str, ColumnElement[bool]] = {}
        md = MetaData()
        self._tables: SqlFactTables = fact_tables(md, table_prefix)
        facts = self._tables.facts
        facts.append_column(Column("text", Text, nullable=False))
        facts.append_column(Column("metadata", JSON, nullable=False))
        facts.append_column(Column(RESERVED_PAYLOAD_KEY, JSON(none_as_null=True), nullable=True))
        facts.append_column(Column("vector", LargeBinary, nullable=False))
        # the default scope's equalities; a policy's other fields fall back to a scan of the rest
        Index(
            f"ix_{table_prefix}_facts_owner",
            facts.c.owner_sub,
            facts.c.owner_iss,
            facts.c.namespace,
        )
        self._meta = Table(
            f"{table_prefix}_meta",
            md,
            Column("key", String(64), primary_key=True),
            Column("value", String(255), nullable=False),
        )
        self._read_cols = [facts.c.fact_id, *(facts.c[n] for n in _SCALARS if n != "fact_id")]
        self._read_cols += [facts.c.text, facts.c["metadata"], facts.c[RESERVED_PAYLOAD_KEY]]
        with self._errors():
            md.create_all(engine, checkfirst=True)
            self._check_layout()

    @property
    def tables(self) -> SqlFactTables:
        """The facts table and the list-values side table (for joins in your own queries)."""
        return self._tables

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    # -- plumbing ---------------------------------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        if self._closed:
            raise StoreError("the store is closed")
        try:
            if self._lock is None:
                yield
            else:
                with self._lock:
                    yield
        except MemguardError:
            raise
        except Exception as exc:  # any driver, SQL or decoding failure is a store failure
            if is_unavailable(exc):  # the one adapter error table: the database is unreachable
                raise StoreUnavailable("the sql store is unavailable") from exc
            raise StoreError(f"sql store operation failed: {type(exc).__name__}") from exc

    def _check_layout(self) -> None:
        meta = self._meta
        wanted = {"layout": _LAYOUT, "dimension": str(self.dimension)}
        with self._engine.begin() as conn:
            have = {k: v for k, v in conn.execute(select(meta.c.key, meta.c.value))}
            missing = [{"key": k, "value": v} for k, v in wanted.items() if k not in have]
            if missing:
                conn.execute(insert(meta), missing)
        if have.get("layout", _LAYOUT) != _LAYOUT:
            raise StoreError(f"tables `{self.table_prefix}_*` have layout `{have['layout']}`")
        if have.get("dimension", wanted["dimension"]) != wanted["dimension"]:
            raise StoreError(
                f"tables `{self.table_prefix}_*` have dimension {have['dimension']}, "
                f"not {self.dimension}"
            )

    def _blob(self, vector: Sequence[float] | None) -> bytes:
        arr = np.asarray(vector if vector is not None else [], dtype=np.float32)
        if arr.shape != (self.dimension,) or not np.all(np.isfinite(arr)):
            raise StoreError("vector has the wrong dimension or a non-finite value")
        norm = float(np.linalg.norm(arr))
        unit = arr / norm if norm > 0 else arr
        return unit.astype("<f4").tobytes()

    def _matrix(self, blobs: Sequence[bytes]) -> npt.NDArray[np.float32]:
        width = 4 * self.dimension
        zero = bytes(width)
        # a blob of the wrong size (edited outside memguard) ranks as a zero vector; vectors are
        # not part of the digests, and the row's content is still checked against the ledger
        joined = b"".join(b if isinstance(b, bytes) and len(b) == width else zero for b in blobs)
        return np.frombuffer(joined, dtype="<f4").reshape(len(blobs), self.dimension)

    def _where(
        self, condition: Condition | None, text_contains: Sequence[str] = ()
    ) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = []
        if condition is not None:
            # keyed by repr, not by the condition: Eq("trust", True) == Eq("trust", 1) as
            # dataclasses, but only the second is translatable (and 1.0 is neither)
            key = repr(condition)
            clause = self._clauses.get(key)
            if clause is None:
                clause = to_sql_where(condition, self._tables)
                if len(self._clauses) >= _CLAUSE_CACHE:
                    self._clauses.clear()
                self._clauses[key] = clause
            where.append(clause)
        for term in text_contains:
            if not isinstance(term, str) or not term:
                raise InvalidRequest("`text_contains` must be non-empty strings")
            where.append(self._tables.facts.c.text.icontains(term, autoescape=True))
        return where

    def _payload(self, row: Row[Any]) -> dict[str, Any]:
        m = row._mapping
        payload: dict[str, Any] = {"text": m["text"], "metadata": m["metadata"]}
        reserved = m[RESERVED_PAYLOAD_KEY]
        if isinstance(reserved, Mapping):
            checked = dict(reserved)
            for name in _SCALARS:
                column, copy = m[name], reserved.get(name)
                if not (column == copy and type(column) is type(copy)):
                    # the WHERE column and the JSON copy disagree: one was edited; a marker equal
                    # to no ledger value makes the guard withhold the row (index mismatch)
                    checked[name] = {"column": column, "json": copy}
            payload[RESERVED_PAYLOAD_KEY] = checked
        elif reserved is not None:
            payload[RESERVED_PAYLOAD_KEY] = reserved
        return payload

    # -- MemoryStore ------------------------------------------------------------------------------

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        facts, values = self._tables.facts, self._tables.values
        rows: dict[str, dict[str, object]] = {}
        side: dict[str, list[dict[str, object]]] = {}
        for p in points:
            text, metadata = p.payload.get("text"), p.payload.get("metadata")
            if not isinstance(text, str) or not isinstance(metadata, Mapping):
                raise StoreError("a point needs a text and a metadata object")
            reserved = p.payload.get(RESERVED_PAYLOAD_KEY)
            fields: dict[str, FieldValue] = {}
            if isinstance(reserved, Mapping):
                fields = {k: reserved[k] for k in FIELDS if k in reserved}
            try:
                row, vals = fact_rows(p.fact_id, fields)
            except ValueError as exc:
                raise StoreError("a point's scope fields have the wrong types") from exc
            row.update(
                text=text,
                metadata=dict(metadata),
                vector=self._blob(p.vector),
                **{RESERVED_PAYLOAD_KEY: dict(reserved) if isinstance(reserved, Mapping) else None},
            )
            rows[p.fact_id] = row
            side[p.fact_id] = vals
        if not rows:
            return
        ids = list(rows)
        dialect_insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        stmt = dialect_insert(facts)
        stmt = stmt.on_conflict_do_update(
            index_elements=[facts.c.fact_id],
            set_={c.name: stmt.excluded[c.name] for c in facts.columns if c.name != "fact_id"},
        )
        with self._errors(), self._engine.begin() as conn:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                conn.execute(delete(values).where(values.c.fact_id.in_(chunk)))
                conn.execute(stmt, [rows[i] for i in chunk])
                listed = [v for i in chunk for v in side[i]]
                if listed:
                    conn.execute(insert(values), listed)

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]:
        facts = self._tables.facts
        ids = list(dict.fromkeys(fact_ids))
        out: list[StoredPoint] = []
        with self._errors(), self._engine.connect() as conn:
            for start in range(0, len(ids), _CHUNK):
                stmt = select(*self._read_cols).where(
                    facts.c.fact_id.in_(ids[start : start + _CHUNK])
                )
                out.extend(StoredPoint(r.fact_id, self._payload(r)) for r in conn.execute(stmt))
        return out

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
        text_contains: Sequence[str] = (),
    ) -> list[Hit]:
        """The ``limit`` rows after ``offset`` most similar to ``vector`` among those ``condition``
        (and every ``text_contains`` substring, case-insensitive) admits; exact cosine ranking."""
        where = self._where(condition, text_contains)  # untranslatable: refused before any SQL
        if limit <= 0:
            return []
        with self._errors():
            query = np.frombuffer(self._blob(vector), dtype="<f4")
            facts = self._tables.facts
            with self._engine.connect() as conn:
                candidates = conn.execute(
                    select(facts.c.fact_id, facts.c.vector).where(*where)
                ).all()
                if not candidates or offset >= len(candidates):
                    return []
                ids = [r[0] for r in candidates]
                scores = self._matrix([r[1] for r in candidates]) @ query
                top = _top(ids, scores, offset + limit)[offset:]
                if not top:
                    return []
                # by primary key only: repeating the scope here lets SQLite pick the owner index
                # and rescan the whole selection; the guard re-checks every row it gets anyway
                chosen = [ids[i] for i in top]
                full = {
                    r.fact_id: r
                    for r in conn.execute(
                        select(*self._read_cols).where(facts.c.fact_id.in_(chosen))
                    )
                }
        return [
            Hit(ids[i], float(scores[i]), self._payload(full[ids[i]]))
            for i in top
            if ids[i] in full
        ]

    def scroll(
        self, *, condition: Condition | None, limit: int, cursor: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        where = self._where(condition)
        if limit <= 0:
            return [], cursor
        facts = self._tables.facts
        if cursor is not None:
            where.append(facts.c.fact_id >= cursor)
        stmt = select(*self._read_cols).where(*where).order_by(facts.c.fact_id).limit(limit + 1)
        with self._errors(), self._engine.connect() as conn:
            rows = conn.execute(stmt).all()
            page = [StoredPoint(r.fact_id, self._payload(r)) for r in rows[:limit]]
        return page, rows[limit].fact_id if len(rows) > limit else None

    def set_trust(self, trust_by_id: Mapping[str, int]) -> None:
        facts = self._tables.facts
        ids = list(trust_by_id)
        with self._errors(), self._engine.begin() as conn:
            for start in range(0, len(ids), _CHUNK):
                stmt = (
                    select(facts.c.fact_id, facts.c[RESERVED_PAYLOAD_KEY])
                    .where(facts.c.fact_id.in_(ids[start : start + _CHUNK]))
                    .with_for_update()
                )
                params = []
                for fact_id, reserved in conn.execute(stmt):
                    trust = int(trust_by_id[fact_id])
                    if isinstance(reserved, Mapping):  # the column and its JSON copy move together
                        reserved = {**reserved, "trust": trust}
                    params.append({"b_id": fact_id, "b_trust": trust, "b_reserved": reserved})
                if params:
                    conn.execute(
                        update(facts)
                        .where(facts.c.fact_id == bindparam("b_id"))
                        .values(
                            trust=bindparam("b_trust"),
                            **{RESERVED_PAYLOAD_KEY: bindparam("b_reserved")},
                        ),
                        params,
                    )

    def delete(self, fact_ids: Sequence[str]) -> None:
        facts, values = self._tables.facts, self._tables.values
        ids = list(dict.fromkeys(fact_ids))
        with self._errors(), self._engine.begin() as conn:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                conn.execute(delete(values).where(values.c.fact_id.in_(chunk)))
                conn.execute(delete(facts).where(facts.c.fact_id.in_(chunk)))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns_engine:
            self._engine.dispose()

    def __repr__(self) -> str:
        return f"SqlStore(dialect={self.dialect!r}, table_prefix={self.table_prefix!r})"


def _top(ids: Sequence[str], scores: npt.NDArray[np.float32], n: int) -> list[int]:
    """Indices of the ``n`` best scores, ordered by score then fact id (stable across calls, so the
    guard's paging with ``offset`` neither skips nor repeats tied rows)."""
    if n < len(ids):
        # keep every row tied with the n-th best, then order those exactly
        kth = np.partition(-scores, n - 1)[n - 1]
        pool = np.flatnonzero(-scores <= kth).tolist()
    else:
        pool = list(range(len(ids)))
    pool.sort(key=lambda i: (-float(scores[i]), ids[i]))
    return pool[:n]


# -- the guarded row facade -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """One memory as :class:`GuardedSqlMemory` returns it, with its verified provenance."""

    id: str
    text: str
    metadata: Mapping[str, Any]
    namespace: str
    trust: TrustLevel
    source: str
    version: int
    created_at: datetime
    provenance: Provenance
    score: float | None = None

    def summary(self) -> str:
        """One line a harness can show a model next to the text."""
        return f"[trust={self.trust.label} source={self.source} memory={self.id}]"

    @property
    def memguard(self) -> ProvenanceSummary:
        """The adapters' one provenance summary (what the other adapters return under ``memguard``)."""
        return provenance_summary(self.provenance)


def _row(fact: RecalledFact) -> MemoryRow:
    p = fact.provenance
    return MemoryRow(
        id=fact.fact_id,
        text=fact.text,
        metadata=dict(fact.metadata),
        namespace=p.namespace,
        trust=p.trust,
        source=_row_source(p),
        version=p.version,
        created_at=p.created_at,
        provenance=p,
        score=fact.score,
    )


class GuardedSqlMemory:
    """Memories as rows, for one verified identity and one call context, every call guarded.

    ``add``/``get``/``list``/``search``/``update``/``delete`` go through the :class:`MemoryGuard`
    over a :class:`SqlStore` (stamped, scoped, verified, audited); ``search(contains=[...])`` adds
    case-insensitive substring conditions to the scope's WHERE clause. Nothing else is exposed:
    other attributes raise :class:`AttributeError`, and the guard, store and engine are not public.
    """

    __slots__ = ("__context", "__guard", "__identity")

    def __init__(self, guard: MemoryGuard, *, identity: Identity, context: CallContext) -> None:
        if not isinstance(guard, MemoryGuard) or not isinstance(guard.store, SqlStore):
            raise ConfigurationError("GuardedSqlMemory needs a MemoryGuard over a SqlStore")
        identity = require_identity(guard.kernel, identity)  # the same refusal in every adapter
        if not isinstance(context, CallContext):
            raise ConfigurationError("`context` must be a CallContext")
        self.__guard = guard
        self.__identity = identity
        self.__context = context

    def __getattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"`{name}` is not an operation of GuardedSqlMemory")

    def __repr__(self) -> str:
        return f"GuardedSqlMemory(subject={self.__identity.principal.subject.subject!r})"

    @property
    def context(self) -> CallContext:
        return self.__context

    def with_context(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: tuple[str, ...] | None = None,
    ) -> GuardedSqlMemory:
        """The same memory for another turn, source, purpose, lowered trust or inputs."""
        context = self.__context.replace(
            source=source, turn=turn, purpose=purpose, trust=trust, derived_from=derived_from
        )
        return GuardedSqlMemory(self.__guard, identity=self.__identity, context=context)

    # -- writes -----------------------------------------------------------------------------------

    def __me(self, action: str) -> Identity:
        """The identity of a call (refused if an ``acting_as`` block names another caller)."""
        check_binding(self.__guard.kernel, self.__identity, action)
        return self.__identity

    def add(
        self,
        text: str,
        *,
        namespace: str,
        metadata: Mapping[str, Any] | None = None,
        ttl: float | timedelta | None = None,
    ) -> MemoryRow:
        """Store one memory (stamped with this context's source and turn); returns it. ``ttl``:
        a time-to-live (seconds or a timedelta) after which it is not served and is swept."""
        ctx = self.__context
        prov = self.__guard.write(
            self.__me("write"),
            text,
            namespace=namespace,
            source=ctx.source,
            turn=ctx.turn,
            metadata=metadata,
            trust=ctx.trust,
            derived_from=ctx.derived_from,
            ttl=ttl,
        )
        return MemoryRow(
            prov.fact_id,
            text,
            dict(metadata or {}),
            prov.namespace,
            prov.trust,
            _row_source(prov),
            prov.version,
            prov.created_at,
            prov,
        )

    def update(
        self, memory_id: str, text: str, *, metadata: Mapping[str, Any] | None = None
    ) -> MemoryRow:
        """Replace a memory's text and metadata (a new version, stamped with this context)."""
        ctx = self.__context
        prov = self.__guard.update(
            self.__me("update"),
            memory_id,
            text,
            source=ctx.source,
            turn=ctx.turn,
            metadata=metadata,
            trust=ctx.trust,
        )
        return MemoryRow(
            prov.fact_id,
            text,
            dict(metadata or {}),
            prov.namespace,
            prov.trust,
            _row_source(prov),
            prov.version,
            prov.created_at,
            prov,
        )

    def delete(self, memory_id: str) -> None:
        """Delete a memory; unknown and foreign ids raise :class:`~memguard.errors.FactNotFound` alike."""
        self.__guard.delete(self.__me("delete"), memory_id)

    # -- reads ------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRow:
        ctx = self.__context
        return _row(
            self.__guard.get(self.__me("get"), memory_id, purpose=ctx.purpose, turn=ctx.turn)
        )

    def list(
        self,
        *,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> tuple[builtins.list[MemoryRow], str | None]:
        """A page of the memories this identity may read, in id order, and the next cursor."""
        ctx = self.__context
        facts, next_cursor = self.__guard.list_facts(
            self.__me("list"),
            namespaces=namespaces,
            min_trust=min_trust,
            limit=limit,
            cursor=cursor,
            purpose=ctx.purpose,
            turn=ctx.turn,
        )
        return [_row(f) for f in facts], next_cursor

    def search(
        self,
        query: str | None = None,
        *,
        k: int = 10,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        contains: Sequence[str] | None = None,
    ) -> builtins.list[MemoryRow]:
        """The ``k`` memories most similar to ``query`` that this identity may read.

        ``contains``: substrings (case-insensitive) every returned text must hold, pushed into the
        WHERE clause next to the scope; with ``contains`` and no ``query``, its words are the query.
        """
        guard, ctx = self.__guard, self.__context
        if not contains:
            if contains is not None:
                raise InvalidRequest("`contains` must be a non-empty list of substrings")
            return [
                _row(f)
                for f in guard.search(
                    self.__me("search"),
                    query,
                    k=k,
                    namespaces=namespaces,
                    min_trust=min_trust,
                    purpose=ctx.purpose,
                    turn=ctx.turn,
                )
            ]
        return self.__keyword_search(query, k, namespaces, min_trust, list(contains))

    def __keyword_search(
        self,
        query: str | None,
        k: int,
        namespaces: Sequence[str] | None,
        min_trust: TrustLevel | None,
        contains: builtins.list[str],
    ) -> builtins.list[MemoryRow]:
        guard, ctx = self.__guard, self.__context
        store = guard.store
        assert isinstance(store, SqlStore)
        kernel = guard.kernel
        with kernel.operation(
            "search",
            self.__me("search"),
            purpose=ctx.purpose,
            trace_id=ctx.turn.trace_id,
            turn=ctx.turn,
        ) as op:
            if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= _MAX_K:
                raise InvalidRequest(f"k must be between 1 and {_MAX_K}")
            if isinstance(contains, str) or not all(isinstance(t, str) and t for t in contains):
                raise InvalidRequest("`contains` must be a non-empty list of substrings")
            if namespaces is not None and (isinstance(namespaces, str) or not namespaces):
                raise InvalidRequest("`namespaces` must be a non-empty list of names")
            request = ReadRequest(
                "search",
                namespaces=tuple(namespaces) if namespaces is not None else None,
                min_trust=min_trust,
                purpose=ctx.purpose,
            )
            plan = op.read_plan(request)
            condition = None if plan.kind is PlanKind.ALLOW else plan.condition
            qvec = guard.embedder.embed([query if query is not None else " ".join(contains)])[0]
            rows: list[MemoryRow] = []
            offset, limit = 0, k
            for _ in range(_FILL_ROUNDS):
                hits = store.search(
                    qvec, condition=condition, limit=limit, offset=offset, text_contains=contains
                )
                verified = op.verify(
                    plan,
                    request,
                    [payload_candidate(h.fact_id, h.payload, h.score) for h in hits],
                    pushed_down=True,
                )
                rows.extend(
                    _row(
                        RecalledFact(
                            v.fact_id,
                            str((v.candidate.payload or {})["text"]),
                            dict((v.candidate.payload or {})["metadata"]),
                            v.provenance,
                            v.score,
                        )
                    )
                    for v in verified
                )
                if len(rows) >= k or len(hits) < limit:
                    break
                offset += len(hits)  # some hits were withheld: page on
                limit = max(k - len(rows), 1) * 2
            rows = rows[:k]
            op.finish(returned=[r.id for r in rows], k=k, returned_count=len(rows))
            return rows


def _row_source(p: Provenance) -> str:
    where = p.source.uri or p.source.name
    return f"{p.source.kind.value}:{where}" if where else p.source.kind.value
