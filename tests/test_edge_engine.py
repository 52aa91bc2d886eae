"""The qdrant-edge store's engine side: exact filtered search below the full-scan threshold, the
embedded path without qdrant-client, and what the batch upsert accepts."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import qdrant_edge as qe

import memguard.stores.edge as edge_store
from memguard.errors import StoreError
from memguard.scope import And, Eq
from memguard.stores.base import StoredPoint
from memguard.stores.edge import FULL_SCAN_KB, QdrantEdgeStore


def _id(i: int) -> str:
    return str(uuid.UUID(int=i + 1))


def _fields(owner: str) -> dict[str, Any]:
    return {"memguard": {"owner_iss": "iss", "owner_sub": owner, "trust": 3}}


def _unit(rng: np.random.Generator, n: int, dim: int) -> npt.NDArray[np.float32]:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def test_a_scoped_search_below_the_full_scan_threshold_is_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4,000 points, 4 owners, an HNSW index built (``optimize`` with a tiny indexing threshold):
    with the default full-scan threshold (32 MiB) every owner-scoped top 10 equals numpy brute
    force, even with a graph beam of 10 (the planner scans the owner's 1,000 points instead of
    walking a graph). The control store, same data with ``full_scan_kb=1``, walks the owner's graph
    and misses some of them, so the exactness check is not vacuous."""
    monkeypatch.setattr(edge_store, "_TENANT_SEARCH", qe.SearchParams(hnsw_ef=10))
    rng = np.random.default_rng(11)
    dim, n, owners = 64, 4000, 4
    vecs = _unit(rng, n, dim)
    owner = np.arange(n) % owners
    points = [StoredPoint(_id(i), _fields(f"o{owner[i]}"), vecs[i].tolist()) for i in range(n)]
    exact_store = QdrantEdgeStore(tmp_path / "exact", dimension=dim, index_threshold_kb=8)
    graph_store = QdrantEdgeStore(tmp_path / "graph", dimension=dim, index_threshold_kb=8, full_scan_kb=1)
    assert exact_store.full_scan_kb == FULL_SCAN_KB
    try:
        for s in (exact_store, graph_store):
            s.upsert(points)
            assert s.optimize()  # an HNSW index was built
        scope = And((Eq("owner_iss", "iss"), Eq("owner_sub", "o1")))
        mine = owner == 1
        exact_queries = graph_exact = 0
        queries = _unit(rng, 30, dim)
        for q in queries:
            scores = vecs @ q
            scores[~mine] = -np.inf
            want = [_id(int(i)) for i in np.argsort(-scores)[:10]]
            got = exact_store.search(q.tolist(), condition=scope, limit=10)
            assert [h.fact_id for h in got] == want  # the exact top 10, in order
            exact_queries += 1
            walked = graph_store.search(q.tolist(), condition=scope, limit=10)
            assert all(h.payload["memguard"]["owner_sub"] == "o1" for h in walked)
            graph_exact += {h.fact_id for h in walked} == set(want)
        assert exact_queries == len(queries)
        assert graph_exact < len(queries), "the graph walk was exact too: the control proves nothing"
    finally:
        exact_store.close()
        graph_store.close()


def test_a_store_optimized_with_a_lower_threshold_is_exact_after_reopen_and_optimize(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard whose owner graphs were built under a lower threshold (the layout before
    ``full_scan_kb``) keeps them in its segments; opened with the default and optimized again
    (``memguard store optimize``), its segments are rebuilt with the new threshold and every scoped
    search is exact."""
    import json

    monkeypatch.setattr(edge_store, "_TENANT_SEARCH", qe.SearchParams(hnsw_ef=10))
    rng = np.random.default_rng(5)
    dim, n = 64, 4000
    vecs = _unit(rng, n, dim)
    owner = np.arange(n) % 4
    old = QdrantEdgeStore(tmp_path / "e", dimension=dim, index_threshold_kb=8, full_scan_kb=1)
    old.upsert([StoredPoint(_id(i), _fields(f"o{owner[i]}"), vecs[i].tolist()) for i in range(n)])
    assert old.optimize()
    old.close()
    s = QdrantEdgeStore(tmp_path / "e", dimension=dim, index_threshold_kb=8)
    try:
        config = json.loads((tmp_path / "e" / "shard" / "edge_config.json").read_text())
        assert config["hnsw_config"]["full_scan_threshold"] == FULL_SCAN_KB
        assert s.stale_index()  # reopening alone keeps the segments' old graphs
        assert s.optimize()  # the segments built under the old threshold are rebuilt
        assert not s.stale_index()
        scope = And((Eq("owner_iss", "iss"), Eq("owner_sub", "o2")))
        for q in _unit(rng, 20, dim):
            scores = vecs @ q
            scores[owner != 2] = -np.inf
            want = [_id(int(i)) for i in np.argsort(-scores)[:10]]
            assert [h.fact_id for h in s.search(q.tolist(), condition=scope, limit=10)] == want
    finally:
        s.close()
    with pytest.raises(ValueError):
        QdrantEdgeStore(tmp_path / "other", dimension=4, full_scan_kb=0)


def test_the_embedded_default_does_not_import_qdrant_client(tmp_path: Path) -> None:
    """open_embedded on qdrant-edge writes, searches, scrolls and lists without loading qdrant-client
    (the scope is built as qdrant-edge's own Filter; qdrant-client costs ~40 MiB and ~1 s to import)."""
    code = "\n".join([
        "import sys",
        "from memguard import open_embedded, Source, SourceKind, Turn",
        f"s = open_embedded({str(tmp_path / 'state')!r})",
        "me = s.guard.authenticate(s.tokens.issue('alice'))",
        "src = Source(kind=SourceKind.USER_MESSAGE)",
        "rec = s.guard.write(me, 'a fact', namespace='n', source=src, turn=Turn(session_id='s', turn_index=0),",
        "                    vector=[1.0] * 384)",
        "hits = s.guard.search(me, vector=[1.0] * 384, k=3)",
        "assert [h.fact_id for h in hits] == [rec.fact_id], hits",
        "s.close()",
        "print(sorted(m for m in sys.modules if m.startswith('qdrant')))",
    ])  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = out.stdout.strip().splitlines()[-1]
    assert "qdrant_edge" in loaded and "qdrant_client" not in loaded, loaded


# -- the batch upsert ------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = QdrantEdgeStore(tmp_path / "edge", dimension=4)
    yield s
    s.close()


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One store for the refusal cases (each leaves it empty)."""
    s = QdrantEdgeStore(tmp_path_factory.mktemp("refusals") / "edge", dimension=4)
    yield s
    s.close()


def test_upsert_takes_tuples_lists_arrays_and_read_only_payloads(store: QdrantEdgeStore) -> None:
    payload: Mapping[str, Any] = MappingProxyType(_fields("a"))
    store.upsert([
        StoredPoint(_id(0), _fields("a"), (1.0, 0.0, 0.0, 0.0)),
        StoredPoint(_id(1), _fields("a"), [0.0, 1.0, 0.0, 0.0]),
        StoredPoint(_id(2), payload, np.asarray([0.0, 0.0, 1.0, 0.0], dtype=np.float32)),  # type: ignore[arg-type]
        StoredPoint(_id(3), _fields("a"), (0, 0, 0, 1)),
    ])  # fmt: skip
    assert store.count() == 4
    vectors = store.vectors([_id(i) for i in range(4)])
    assert vectors[_id(2)] == [0.0, 0.0, 1.0, 0.0] and vectors[_id(3)] == [0.0, 0.0, 0.0, 1.0]
    assert store.retrieve([_id(2)])[0].payload == _fields("a")


@pytest.mark.parametrize(
    "vector",
    [
        None,
        (1.0, 0.0, 0.0),  # short
        (1.0, 0.0, 0.0, 0.0, 0.0),  # long
        (1.0, "x", 0.0, 0.0),  # not a number
        (1.0, None, 0.0, 0.0),
        ([1.0], [0.0], [0.0], [0.0]),  # nested: would be a multi-vector
        [[1.0, 0.0, 0.0, 0.0]] * 4,
        {"a": [1.0], "b": [1.0], "c": [1.0], "d": [1.0]},  # a mapping: would be named vectors
    ],
)
def test_upsert_refuses_a_vector_that_is_not_one_dense_vector(
    empty_store: QdrantEdgeStore, vector: Any
) -> None:
    good = StoredPoint(_id(0), _fields("a"), (1.0, 0.0, 0.0, 0.0))
    with pytest.raises(StoreError):
        empty_store.upsert([good, StoredPoint(_id(1), _fields("a"), vector)])
    assert empty_store.count() == 0  # nothing of the batch was written
