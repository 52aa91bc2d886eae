"""Readers of legacy stores: each yields :class:`~memguard.adopt.rows.LegacyRow` in a stable order.

- Qdrant: a qdrant-client collection (local ``path=`` or a server ``url=``), and a qdrant-edge
  shard folder; the row key is the point id, the record its payload.
- mem0: its Qdrant collection (``data`` is the text, ``user_id`` / ``agent_id`` / ``run_id`` the
  owner fields: :data:`MEM0_TEXT_FIELD`, :data:`MEM0_OWNER_FIELDS`).
- LangGraph: any ``BaseStore`` (``InMemoryStore``, ...), a JSON dump of one (a list of
  ``{"namespace": [...], "key": ..., "value": {...}}``, what :func:`dump_langgraph_store` writes),
  or the ``store`` table of a LangGraph SQLite / PostgreSQL store (``prefix``, ``key``, ``value``);
  the row key is the namespace and key, the path the namespace.
- SQL: any table SQLAlchemy reaches; the row key is the id column, the record the columns.

Every reader reads; none writes to the legacy store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memguard.adopt.rows import LegacyRow
from memguard.errors import InvalidRequest

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

__all__ = [
    "MEM0_OWNER_FIELDS",
    "MEM0_TEXT_FIELD",
    "dump_langgraph_store",
    "langgraph_dump_rows",
    "langgraph_sql_rows",
    "langgraph_store_rows",
    "qdrant_edge_rows",
    "qdrant_rows",
    "sql_rows",
]

MEM0_TEXT_FIELD = "data"
MEM0_OWNER_FIELDS = ("user_id",)

_PAGE = 256


def _vector(value: object) -> list[float] | None:
    """The unnamed dense vector of a point (named or sparse vectors are not reused)."""
    if isinstance(value, list) and all(isinstance(x, int | float) for x in value):
        return [float(x) for x in value]
    return None


def qdrant_rows(
    client: QdrantClient, collection: str, *, with_vectors: bool = False
) -> Iterator[LegacyRow]:
    """Every point of ``collection``, in point-id order."""
    offset: Any = None
    while True:
        records, offset = client.scroll(
            collection, limit=_PAGE, offset=offset, with_payload=True, with_vectors=with_vectors
        )
        for r in records:
            yield LegacyRow(str(r.id), dict(r.payload or {}),
                            vector=_vector(r.vector) if with_vectors else None)  # fmt: skip
        if offset is None:
            return


def qdrant_edge_rows(path: str | Path, *, with_vectors: bool = False) -> Iterator[LegacyRow]:
    """Every point of the qdrant-edge shard in ``path`` (the folder holding ``edge_config.json``),
    in point-id order. The shard is opened read-only in effect: nothing is written to it."""
    import qdrant_edge as qe

    folder = Path(path)
    if not (folder / "edge_config.json").exists():
        raise InvalidRequest(f"`{folder}` is not a qdrant-edge shard (no edge_config.json)")
    shard = qe.EdgeShard.load(str(folder))
    try:
        cursor: Any = None
        while True:
            records, cursor = shard.scroll(qe.ScrollRequest(
                offset=cursor, limit=_PAGE, with_payload=True, with_vector=with_vectors
            ))  # fmt: skip
            for r in records:
                vector = None
                if with_vectors:
                    raw = r.vector
                    vector = _vector(raw.get("") if isinstance(raw, dict) else raw)
                yield LegacyRow(str(r.id), dict(r.payload or {}), vector=vector)
            if cursor is None:
                return
    finally:
        shard.close()


def _item_row(namespace: object, key: object, value: object) -> LegacyRow:
    if not isinstance(namespace, list | tuple) or not all(isinstance(p, str) for p in namespace):
        raise InvalidRequest("a LangGraph item's namespace is a list of strings")
    if not isinstance(key, str):
        raise InvalidRequest("a LangGraph item's key is a string")
    record = value if isinstance(value, Mapping) else {"value": value}
    path = tuple(namespace)
    return LegacyRow(json.dumps([*path, key], ensure_ascii=False), dict(record), path=path)


def langgraph_store_rows(store: Any, *, prefix: tuple[str, ...] = ()) -> Iterator[LegacyRow]:
    """Every item under ``prefix`` of a LangGraph ``BaseStore`` (through its own ``search``)."""
    offset = 0
    while True:
        items = store.search(prefix, limit=_PAGE, offset=offset)
        for item in items:
            yield _item_row(item.namespace, item.key, item.value)
        if len(items) < _PAGE:
            return
        offset += len(items)


def dump_langgraph_store(store: Any, path: str | Path, *, prefix: tuple[str, ...] = ()) -> int:
    """Write every item of a LangGraph ``BaseStore`` (an ``InMemoryStore`` before its process
    ends) as the JSON dump :func:`langgraph_dump_rows` reads; returns the item count."""
    items = [
        {"namespace": list(r.path), "key": json.loads(r.key)[-1], "value": dict(r.record)}
        for r in langgraph_store_rows(store, prefix=prefix)
    ]
    Path(path).write_text(json.dumps(items, ensure_ascii=False, default=str), "utf-8")
    return len(items)


def langgraph_dump_rows(path: str | Path) -> Iterator[LegacyRow]:
    """The items of a JSON dump (a list of ``{"namespace", "key", "value"}``), in file order."""
    data = json.loads(Path(path).read_text("utf-8"))
    if not isinstance(data, list):
        raise InvalidRequest("a LangGraph dump is a JSON list of items")
    for item in data:
        if not isinstance(item, Mapping):
            raise InvalidRequest("a LangGraph dump item is an object")
        yield _item_row(item.get("namespace"), item.get("key"), item.get("value"))


def langgraph_sql_rows(url: str, *, table: str = "store") -> Iterator[LegacyRow]:
    """The items of a LangGraph SQLite or PostgreSQL store, read from its table (``prefix`` is the
    namespace joined by ``.``, ``value`` JSON), in (prefix, key) order. Expired items (an
    ``expires_at`` in the past) are left out, as LangGraph leaves them out."""
    from sqlalchemy import MetaData, Table, create_engine, select

    engine = create_engine(url)
    try:
        meta = MetaData()
        tbl = Table(table, meta, autoload_with=engine)
        for name in ("prefix", "key", "value"):
            if name not in tbl.c:
                raise InvalidRequest(
                    f"table `{table}` has no `{name}` column (not a LangGraph store)"
                )
        query = select(tbl).order_by(tbl.c.prefix, tbl.c.key)
        now = datetime.now(UTC)
        with engine.connect() as conn:
            for row in conn.execute(query.execution_options(yield_per=_PAGE)):
                m = row._mapping
                expires = m.get("expires_at")
                if expires is not None and _aware(expires) <= now:
                    continue
                value = m["value"]
                if isinstance(value, str | bytes):
                    value = json.loads(value)
                yield _item_row(str(m["prefix"]).split("."), m["key"], value)
    finally:
        engine.dispose()


def _aware(value: Any) -> Any:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def sql_rows(
    url: str, table: str, *, id_column: str, columns: tuple[str, ...] | None = None
) -> Iterator[LegacyRow]:
    """The rows of ``table`` in ``id_column`` order; the record is every column (or
    ``columns``). Values that are not JSON types are given as text."""
    from sqlalchemy import MetaData, Table, create_engine, select

    engine = create_engine(url)
    try:
        tbl = Table(table, MetaData(), autoload_with=engine)
        if id_column not in tbl.c:
            raise InvalidRequest(f"table `{table}` has no column `{id_column}`")
        wanted = [tbl.c[c] for c in columns] if columns else list(tbl.c)
        if tbl.c[id_column] not in wanted:
            wanted.append(tbl.c[id_column])
        query = select(*wanted).order_by(tbl.c[id_column])
        with engine.connect() as conn:
            for row in conn.execute(query.execution_options(yield_per=_PAGE)):
                record = {k: _jsonable(v) for k, v in row._mapping.items()}
                yield LegacyRow(str(row._mapping[id_column]), record)
    finally:
        engine.dispose()


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, str | int | float | bool | list | dict):
        return value
    return str(value)
