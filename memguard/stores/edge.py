"""The embedded default: facts in one qdrant-edge shard (Qdrant's in-process engine, ``qdrant-edge-py``).

One shard per store folder (``<state>/edge/shard``), payload indexes on every scope field
(``owner_sub`` as the tenant key), and the whole scope condition pushed into the engine as a Qdrant
Filter, built directly in qdrant-edge's types from the normal form (:mod:`memguard.pushdown.edge`;
qdrant-client is not imported on this path). The engine evaluates it with its payload indexes, so a
scoped search costs about what an unscoped one does (benchmarks/bench_storage.py).

Durability: no flush per write. The ledger is the write-ahead log (one fsync per write call); the
store is a projection that ``memguard store rebuild`` recreates and a crash recovery re-applies. The
shard is flushed on :meth:`close`.

One process per folder: a second opener gets :class:`StoreLocked`; share a store between processes
with a Qdrant server (``open_embedded(qdrant_url=...)``).

HNSW layout (``memguard store optimize`` builds it, off the request path): no global graph (``m=0``)
and one graph per owner (``payload_m`` links among the points of each ``owner_sub`` value, the tenant
key), but only for an owner whose vectors exceed the full-scan threshold (``full_scan_kb``, 32 MiB
by default: ~21,800 facts of 384 dimensions). A search admitting less than that is exact: the engine
scans the admitted points through the payload indexes (recall@10 = 1.0, and a smaller build). A
search scoped to one larger owner walks that owner's graph (approximate, ``hnsw_ef`` = 256). A search
whose scope does not pin a single owner is run exact, since no graph spans owners. Every other
payload index is built without graph links. Until the first optimize every search is exact.

Memory (:class:`StorageLayout`, docs/storage.md "Memory"): vectors, payload and payload indexes are
kept on disk and read through mmap when touched (``cold``), not read into memory at open (the
engine's default for vectors). What stays in the process's own memory is the engine's mutable
structures (the payload indexes of segments not yet optimized, the id tracker). A folder made under
the engine's defaults keeps its in-memory segments until ``memguard store rebuild``.

Damage: a shard that does not open raises :class:`StoreDamaged` (with the rebuild hint); a point
whose payload cannot be read is returned with an empty payload, so the guard's re-check withholds
that fact and raises an alarm while the rest are served.

Every qdrant-edge exception becomes a :class:`~memguard.errors.StoreError` here.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import qdrant_edge as qe

from memguard.compat import require_version
from memguard.errors import InvalidRequest, MemguardError, StoreError
from memguard.pushdown.edge import to_edge_filter
from memguard.pushdown.normal import normalize
from memguard.pushdown.qfilter import field_key
from memguard.scope import FIELDS, And, Condition, Eq
from memguard.stores.base import RESERVED_PAYLOAD_KEY, Hit, StoredPoint

__all__ = [
    "DEFAULT_LAYOUT",
    "Placement",
    "QdrantEdgeStore",
    "StorageLayout",
    "StoreDamaged",
    "StoreLocked",
]

SUPPORTED = (">=", "0.9.0", "<", "0.10")
SHARD = "shard"
LOCK = "lock"
_REBUILD_HINT = "`memguard store rebuild` recreates it from the ledger"
#: the tenant key: one HNSW graph per value of it
TENANT_FIELD = "owner_sub"
#: HNSW build parameters (benchmarks/bench_storage.py measures recall@10 against exact search)
HNSW_M = 0  # no global graph: per-tenant graphs only
PAYLOAD_M = 32
EF_CONSTRUCT = 200
#: vector data (KB) above which a segment gets its HNSW index at ``optimize``
INDEX_THRESHOLD_KB = 10_000
#: vector data (KB) of the points a filter admits below which the search scans them exactly (through
#: the payload indexes) instead of walking a graph; also the size below which an owner's points get
#: no graph of their own at ``optimize`` (Qdrant's ``full_scan_threshold``). 32 MiB: an owner with up
#: to ~21,800 facts of 384 dimensions (1.5 KiB each) is always searched exactly (recall@10 = 1.0).
FULL_SCAN_KB = 32 * 1024
#: search-time beam width of a tenant-scoped HNSW search
HNSW_EF = 256


#: where a part of the shard lives (qdrant-edge's ``Memory``): ``cold`` on disk, read through mmap
#: when touched (the kernel keeps hot pages cached and may drop them); ``cached`` mmap'd and read in
#: at open; ``pinned`` in the process's own memory. ``None``: the engine's default.
Placement = Literal["cold", "cached", "pinned"]

_MEMORY = {"cold": qe.Memory.Cold, "cached": qe.Memory.Cached, "pinned": qe.Memory.Pinned}


@dataclass(frozen=True, slots=True)
class StorageLayout:
    """Where the shard keeps each of its parts (docs/storage.md, "Memory")."""

    vectors: Placement | None = "cold"
    payload: Placement | None = "cold"
    payload_indexes: Placement | None = "cold"
    id_tracker: Placement | None = None

    @classmethod
    def in_ram(cls) -> StorageLayout:
        """The engine's defaults (the layout before the memory round: vectors and payload indexes
        in the process's memory), for comparison in benchmarks."""
        return cls(vectors=None, payload=None, payload_indexes=None, id_tracker=None)


#: what :class:`QdrantEdgeStore` opens with unless told otherwise
DEFAULT_LAYOUT = StorageLayout()


def _memory(placement: Placement | None) -> qe.Memory | None:
    return None if placement is None else _MEMORY[placement]


class StoreLocked(StoreError):
    """Another process has the store folder open (an embedded engine is single-process)."""

    code = "backend.store.locked"


class StoreDamaged(StoreError):
    """The store's files cannot be read; the ledger still holds every fact's record."""

    code = "backend.store.damaged"


class QdrantEdgeStore:
    """Facts as points of one qdrant-edge shard; the scope is pushed into the engine's filter."""

    def __init__(
        self,
        path: str | Path,
        *,
        dimension: int = 384,
        index_threshold_kb: int = INDEX_THRESHOLD_KB,
        full_scan_kb: int = FULL_SCAN_KB,
        layout: StorageLayout = DEFAULT_LAYOUT,
    ) -> None:
        """``index_threshold_kb``: segments with more vector data get an HNSW index at ``optimize``
        (tests lower it to build one quickly). ``full_scan_kb``: a filtered search whose admitted
        points hold less vector data than this is exact (a scan of those points), and an owner with
        less gets no graph of its own at ``optimize``; above it the owner's graph is walked
        (approximate: docs/benchmarks.md has its recall). Both are re-applied on every open.
        ``layout``: where the shard keeps vectors, payload and payload indexes (:class:`StorageLayout`;
        the default keeps them on disk); re-applied on open, but a segment keeps the storage it was
        built with until it is rebuilt."""
        require_version("qdrant-edge-py", SUPPORTED[1], SUPPORTED[3])
        if index_threshold_kb < 1 or full_scan_kb < 1:
            raise ValueError("index_threshold_kb and full_scan_kb must be positive")
        self.dimension = dimension
        self.index_threshold_kb = index_threshold_kb
        self.full_scan_kb = full_scan_kb
        self.layout = layout
        self.path = Path(path)
        self._lock = threading.RLock()
        self.path.mkdir(parents=True, exist_ok=True)
        self._lockfile = _lock_folder(self.path)
        try:
            self._shard = self._open()
        except BaseException:
            _unlock(self._lockfile)
            raise
        self._closed = False
        self._stale = self._scan_stale()

    def _open(self) -> qe.EdgeShard:
        shard_dir = self.path / SHARD
        exists = (shard_dir / "edge_config.json").exists()
        if exists:
            try:
                self._check_dimension()
            except MemguardError:
                raise
            except Exception as exc:
                raise StoreDamaged(
                    f"the store at `{self.path}` has an unreadable configuration"
                    f" ({type(exc).__name__}); {_REBUILD_HINT}"
                ) from exc
        try:
            if exists:
                # the config is re-applied: a shard made before the per-tenant layout gets it at its
                # next optimize
                shard = qe.EdgeShard.load(str(shard_dir), self._config())
            else:
                shard = qe.EdgeShard.create(str(shard_dir), self._config())
        except Exception as exc:
            if "WouldBlock" in str(exc):
                raise _locked(self.path) from exc
            raise StoreDamaged(
                f"the store at `{self.path}` cannot be opened ({type(exc).__name__}); {_REBUILD_HINT}"
            ) from exc
        try:
            self._ensure_indexes(shard)
        except MemguardError:
            shard.close()
            raise
        except Exception as exc:
            shard.close()
            raise StoreDamaged(
                f"the store at `{self.path}` is unreadable ({type(exc).__name__}); {_REBUILD_HINT}"
            ) from exc
        return shard

    def _config(self) -> qe.EdgeConfig:
        layout = self.layout
        return qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(
                size=self.dimension, distance=qe.Distance.Cosine, memory=_memory(layout.vectors)
            ),
            payload_memory=_memory(layout.payload),
            id_tracker_memory=_memory(layout.id_tracker),
            hnsw_config=qe.HnswIndexConfig(
                m=HNSW_M,
                ef_construct=EF_CONSTRUCT,
                full_scan_threshold=self.full_scan_kb,
                payload_m=PAYLOAD_M,
            ),
            optimizers=qe.EdgeOptimizersConfig(indexing_threshold=self.index_threshold_kb),
        )

    def _check_dimension(self) -> None:
        config = json.loads((self.path / SHARD / "edge_config.json").read_text("utf-8"))
        vectors = config.get("vectors", {})
        sizes = {v.get("size") for v in vectors.values()} if isinstance(vectors, dict) else set()
        if sizes and sizes != {self.dimension}:
            raise StoreError(
                f"the store at `{self.path}` has dimension {sizes}, not {self.dimension}"
            )

    def _ensure_indexes(self, shard: qe.EdgeShard) -> None:
        memory = _memory(self.layout.payload_indexes)
        present = set(shard.info().payload_schema)
        for name, kind in FIELDS.items():
            key = field_key(name)
            if key in present:
                continue
            # graph links only for the tenant key: a graph per value of any other field (one issuer
            # holds every point) would be a global graph again, and as slow to build
            schema: qe.KeywordIndexParams | qe.IntegerIndexParams
            if kind is int:
                schema = qe.IntegerIndexParams(
                    lookup=True, range=True, enable_hnsw=False, memory=memory
                )
            elif name == TENANT_FIELD:
                schema = qe.KeywordIndexParams(is_tenant=True, enable_hnsw=True, memory=memory)
            else:
                schema = qe.KeywordIndexParams(enable_hnsw=False, memory=memory)
            shard.update(qe.UpdateOperation.create_field_index(key, schema))

    @contextmanager
    def _errors(self) -> Iterator[qe.EdgeShard]:
        try:
            with self._lock:
                if self._closed:
                    raise StoreError("store closed")
                yield self._shard
        except MemguardError:
            raise
        except Exception as exc:  # any engine failure is a store failure
            raise StoreError(f"qdrant-edge operation failed: {type(exc).__name__}") from exc

    # -- the MemoryStore protocol ------------------------------------------------------------------

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        """One engine update for the batch. Each vector goes to the engine as it came (a tuple, list
        or array of floats: the engine reads it into float32 once), and each payload dict as it is
        (the engine copies it into its own form; no copy here)."""
        if not points:
            return
        dimension = self.dimension
        structs = []
        try:
            for p in points:
                vector = _engine_vector(p.vector)
                if len(vector) != dimension:
                    raise StoreError("vector has the wrong dimension")
                payload = p.payload if type(p.payload) is dict else dict(p.payload)
                structs.append(qe.Point(_point_id(p.fact_id), vector, payload))  # type: ignore[arg-type]
        except MemguardError:
            raise
        except Exception as exc:  # a vector or payload the engine cannot take
            raise StoreError(f"point not accepted by qdrant-edge: {type(exc).__name__}") from exc
        with self._errors() as shard:
            shard.update(qe.UpdateOperation.upsert_points(structs))

    def retrieve(self, fact_ids: Sequence[str]) -> list[StoredPoint]:
        ids = [i for i in dict.fromkeys(fact_ids) if _is_uuid(i)]  # others cannot exist
        if not ids:
            return []
        with self._errors() as shard:
            try:
                records = shard.retrieve(list(ids), True, False)
            except Exception:
                # a damaged point fails the whole batch: read one by one, isolating it
                return [p for i in ids for p in self._retrieve_one(shard, i)]
        return [StoredPoint(str(r.id), _payload(r.payload)) for r in records]

    def _retrieve_one(self, shard: qe.EdgeShard, fact_id: str) -> list[StoredPoint]:
        try:
            records = shard.retrieve([fact_id], True, False)
        except Exception:
            try:
                present = shard.retrieve([fact_id], False, False)
            except Exception:
                present = []
            # present but unreadable: an empty payload, which the guard withholds with an alarm
            return [StoredPoint(fact_id, {})] if present else []
        return [StoredPoint(str(r.id), _payload(r.payload)) for r in records]

    def vectors(self, fact_ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of ``fact_ids`` (for moving or rebuilding points)."""
        ids = [i for i in dict.fromkeys(fact_ids) if _is_uuid(i)]
        if not ids:
            return {}
        with self._errors() as shard:
            records = shard.retrieve(list(ids), False, True)
        out: dict[str, list[float]] = {}
        for r in records:
            if isinstance(r.vector, list) and all(isinstance(x, float | int) for x in r.vector):
                out[str(r.id)] = [float(x) for x in r.vector]  # type: ignore[arg-type]
        return out

    def search(
        self,
        vector: Sequence[float],
        *,
        condition: Condition | None,
        limit: int,
        offset: int = 0,
    ) -> list[Hit]:
        translated = _filter(condition)
        if translated is False:
            return []
        flt, tenant = translated
        query = [float(x) for x in vector]
        request = qe.QueryRequest(
            limit=limit,
            offset=offset,
            query=qe.Query.Nearest(query),
            filter=flt,
            params=_TENANT_SEARCH if tenant else _EXACT_SEARCH,
            with_payload=True,
            with_vector=False,
        )
        with self._errors() as shard:
            try:
                points = shard.query(request)
            except Exception:
                return self._search_isolating(shard, request)
        return [Hit(str(p.id), float(p.score), _payload(p.payload)) for p in points]

    def _search_isolating(self, shard: qe.EdgeShard, request: qe.QueryRequest) -> list[Hit]:
        """The search again without payloads, then each hit's payload on its own: a damaged point
        comes back with an empty payload (withheld with an alarm), the rest are served."""
        request = qe.QueryRequest(
            limit=request.limit, offset=request.offset, query=request.query, filter=request.filter,
            params=request.params, with_payload=False, with_vector=False,
        )  # fmt: skip
        points = shard.query(request)
        out = []
        for p in points:
            got = self._retrieve_one(shard, str(p.id))
            out.append(Hit(str(p.id), float(p.score), got[0].payload if got else {}))
        return out

    def scroll(
        self, *, condition: Condition | None, limit: int, cursor: str | None = None
    ) -> tuple[list[StoredPoint], str | None]:
        translated = _filter(condition)
        if translated is False:
            return [], None
        flt = translated[0]
        if cursor is not None and not _is_uuid(cursor):
            raise InvalidRequest("invalid cursor")
        request = qe.ScrollRequest(
            offset=None if cursor is None else str(uuid.UUID(cursor)),
            limit=limit,
            filter=flt,
            with_payload=True,
            with_vector=False,
        )
        with self._errors() as shard:
            records, next_id = shard.scroll(request)
        page = [StoredPoint(str(r.id), _payload(r.payload)) for r in records]
        return page, None if next_id is None else str(next_id)

    def set_trust(self, trust_by_id: Mapping[str, int]) -> None:
        groups: dict[int, list[str]] = {}
        for fact_id, trust in trust_by_id.items():
            if _is_uuid(fact_id):
                groups.setdefault(trust, []).append(fact_id)
        with self._errors() as shard:
            for trust, ids in groups.items():
                present: list[qe.PointId] = [r.id for r in shard.retrieve(list(ids), False, False)]
                if present:
                    shard.update(
                        qe.UpdateOperation.set_payload(
                            present, {"trust": trust}, key=RESERVED_PAYLOAD_KEY
                        )
                    )

    def delete(self, fact_ids: Sequence[str]) -> None:
        ids: list[qe.PointId] = [i for i in fact_ids if _is_uuid(i)]
        if not ids:
            return
        with self._errors() as shard:
            shard.update(qe.UpdateOperation.delete_points(ids))

    def count(self) -> int:
        """How many points the shard holds."""
        with self._errors() as shard:
            return shard.count(qe.CountRequest(exact=True))

    def ids(self, batch: int = 1024) -> Iterator[str]:
        """Every point id, in id order."""
        cursor: qe.PointId | None = None
        while True:
            with self._errors() as shard:
                records, cursor = shard.scroll(
                    qe.ScrollRequest(
                        offset=cursor, limit=batch, with_payload=False, with_vector=False
                    )
                )
            yield from (str(r.id) for r in records)
            if cursor is None:
                return

    def optimize(self) -> bool:
        """Build the per-tenant HNSW graphs of large segments (blocks for minutes at 10^5 points;
        run it off the request path, e.g. ``memguard store optimize``). Searches are exact until
        then; docs/benchmarks.md has recall@10 after it."""
        with self._errors() as shard:
            built = shard.optimize()
            if built:
                self._stale = False
            return built

    def stale_index(self) -> bool:
        """Whether, when this store was opened, a segment's HNSW index had been built with other
        parameters than this store's (a shard optimized under an older layout or full-scan threshold
        keeps them until rebuilt; reopening is not enough). A successful :meth:`optimize` rebuilds
        such segments and clears it."""
        return self._stale

    def _scan_stale(self) -> bool:
        """The segments' own descriptions against this store's HNSW parameters (an unreadable one
        counts as stale). Read at open: a segment an optimize replaces stays on disk until close."""
        want = {"m": HNSW_M, "ef_construct": EF_CONSTRUCT, "payload_m": PAYLOAD_M,
                "full_scan_threshold": self.full_scan_kb}  # fmt: skip
        for described in sorted((self.path / SHARD / "segments").glob("*/segment.json")):
            try:
                config = json.loads(described.read_text("utf-8"))
                indexes = [v["index"] for v in config["config"]["vector_data"].values()]
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                return True
            for index in indexes:
                if not isinstance(index, dict):
                    return True
                options = index.get("options")
                if index.get("type") == "hnsw" and (
                    not isinstance(options, dict)
                    or any(options.get(k) != v for k, v in want.items())
                ):
                    return True
        return False

    def flush(self) -> None:
        with self._errors() as shard:
            shard.flush()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._shard.flush()
                self._shard.close()
            except Exception as exc:
                raise StoreError(f"qdrant-edge close failed: {type(exc).__name__}") from exc
            finally:
                _unlock(self._lockfile)


_EXACT_SEARCH = qe.SearchParams(exact=True)
_TENANT_SEARCH = qe.SearchParams(hnsw_ef=HNSW_EF)


_Translated = tuple[qe.Filter | None, bool] | Literal[False]
_CACHE_SIZE = 256
_cache: dict[str, _Translated] = {}
_cache_lock = threading.Lock()


def _filter(condition: Condition | None) -> _Translated:
    """``False`` when nothing matches; else the engine's filter (``None``: no filter) and whether it
    pins a single tenant (so the tenant's graph may serve it). The full condition is translated
    first, so an untranslatable one is refused whatever the store holds.

    Cached, since a caller's scope repeats on every read: keyed by the condition's ``repr``, not its
    hash, because ``Eq(f, True)`` and ``Eq(f, 1)`` are equal as Python values and translate
    differently (a mistyped literal matches nothing)."""
    key = repr(condition)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    out = _translate(condition)
    with _cache_lock:
        if len(_cache) >= _CACHE_SIZE:
            _cache.clear()
        _cache[key] = out
    return out


def _translate(condition: Condition | None) -> _Translated:
    if condition is None:
        return None, False
    normal = normalize(condition)
    if normal is True:
        return None, False
    if normal is False:
        return False
    return to_edge_filter(normal), _pins_tenant(normal)


def _pins_tenant(normal: Condition) -> bool:
    """Whether every point ``normal`` admits has one given tenant key (an ``Eq`` on it at the top)."""
    parts = normal.items if isinstance(normal, And) else (normal,)
    return any(isinstance(p, Eq) and p.field == TENANT_FIELD for p in parts)


def _engine_vector(vector: Sequence[float] | None) -> Sequence[float]:
    """``vector`` in a form the engine reads as one dense vector: a list or tuple of floats as it
    is (the engine converts it to float32 in one pass, refusing any element that is not a real
    number); anything else (an array, ints, nested sequences) through ``float`` element by element,
    so a nested or mapping value is refused here instead of read as a multi- or named vector."""
    if vector is None:
        raise StoreError("vector has the wrong dimension")
    if type(vector) in (list, tuple) and (not vector or type(vector[0]) is float):
        return vector
    return [float(x) for x in vector]


def _payload(payload: dict[str, Any] | None) -> dict[str, Any]:
    return dict(payload or {})


def _is_uuid(value: object) -> bool:
    if not isinstance(value, str) or len(value) > 64:
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _point_id(fact_id: str) -> str:
    if not _is_uuid(fact_id):
        raise StoreError("fact ids must be UUIDs")
    return fact_id


def _locked(path: Path) -> StoreLocked:
    return StoreLocked(
        f"the store at `{path}` is open in another process; an embedded store serves one process,"
        " use a Qdrant server (`qdrant_url=`) to share a store between processes"
    )


def _lock_folder(path: Path) -> IO[bytes] | None:
    """An exclusive advisory lock on the folder for this process's lifetime (POSIX ``flock``;
    elsewhere the engine's own WAL lock refuses a second opener)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    handle = (path / LOCK).open("a+b")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise _locked(path) from None
    return handle


def _unlock(handle: IO[bytes] | None) -> None:
    if handle is not None:
        handle.close()  # closing the descriptor drops the flock
