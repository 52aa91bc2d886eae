"""Where the embedded store keeps its data (memguard.stores.edge.StorageLayout): the default store opens
with vectors, payload and payload indexes on disk, and a store reopened under it, or under another
layout, serves the same facts (docs/storage.md, "Memory")."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
import pytest

from memguard import Source, SourceKind, Turn, open_embedded
from memguard.scope import And, Eq, Gte
from memguard.stores.base import StoredPoint
from memguard.stores.edge import DEFAULT_LAYOUT, QdrantEdgeStore, StorageLayout

DIM = 8
OWNERS = ("alice", "bob", "carol")


def _points(n: int, seed: int = 3) -> list[StoredPoint]:
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)  # unit: the engine keeps cosine vectors normalized
    out = []
    for i, v in enumerate(vecs):
        fid = str(uuid.UUID(int=i + 1))
        fields = {"fact_id": fid, "owner_iss": "iss", "owner_sub": OWNERS[i % 3], "trust": i % 7}
        out.append(StoredPoint(fid, {"text": f"t{i}", "metadata": {"i": i}, "memguard": fields},
                               [float(x) for x in v]))  # fmt: skip
    return out


SCOPES = [
    None,
    And((Eq("owner_iss", "iss"), Eq("owner_sub", "alice"))),
    And((Eq("owner_sub", "bob"), Gte("trust", 3))),
]


def _answers(store: QdrantEdgeStore, queries: np.ndarray) -> list[list[tuple[str, float]]]:
    return [
        [(h.fact_id, round(h.score, 5)) for h in store.search(q.tolist(), condition=c, limit=7)]
        for q in queries
        for c in SCOPES
    ]


def _segments(path: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((path / "shard" / "segments").glob("*/segment.json"))]


def test_the_default_store_keeps_vectors_payload_and_indexes_on_disk(tmp_path: Path) -> None:
    assert DEFAULT_LAYOUT == StorageLayout(vectors="cold", payload="cold", payload_indexes="cold")
    stack = open_embedded(tmp_path / "state", dimension=DIM, scan=False)
    try:
        store = stack.guard.store
        assert isinstance(store, QdrantEdgeStore) and store.layout == DEFAULT_LAYOUT
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        stack.guard.write(me, "a fact", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                          turn=Turn(session_id="s", turn_index=0), vector=[1.0] * DIM)  # fmt: skip
    finally:
        stack.close()
    edge = tmp_path / "state" / "edge"
    config = json.loads((edge / "shard" / "edge_config.json").read_text())
    assert config["vectors"][""]["memory"] == "cold"
    assert config["payload_memory"] == "cold"
    segments = _segments(edge)
    assert segments
    for seg in segments:
        data = seg["config"]  # type: ignore[index]
        # the engine's on-disk vector storage (its in-RAM default is "InRamChunkedMmap")
        assert data["vector_data"][""]["storage_type"] == "ChunkedMmap"  # type: ignore[index]
        assert data["payload_storage_type"] == {"type": "mmap"}  # type: ignore[index]
    for index_config in (edge / "shard" / "segments").glob("*/payload_index/config.json"):
        fields = json.loads(index_config.read_text())["indexed_fields"]
        assert fields and all(f.get("memory") == "cold" for f in fields.values()), fields


def test_the_engine_defaults_differ_so_the_check_above_can_fail(tmp_path: Path) -> None:
    store = QdrantEdgeStore(tmp_path / "edge", dimension=DIM, layout=StorageLayout.in_ram())
    store.upsert(_points(10))
    store.close()
    config = json.loads((tmp_path / "edge" / "shard" / "edge_config.json").read_text())
    assert "memory" not in config["vectors"][""] and "payload_memory" not in config
    assert {s["config"]["vector_data"][""]["storage_type"] for s in _segments(tmp_path / "edge")} == {  # type: ignore[index]
        "InRamChunkedMmap"
    }


def test_a_reopened_store_serves_the_same_facts(tmp_path: Path) -> None:
    points = _points(300)
    queries = np.random.default_rng(9).standard_normal((5, DIM)).astype(np.float32)
    store = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    store.upsert(points)
    before = _answers(store, queries)
    ids = [p.fact_id for p in points]
    payloads = {p.fact_id: p.payload for p in store.retrieve(ids)}
    store.close()

    again = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    try:
        assert again.count() == 300
        assert _answers(again, queries) == before
        assert {p.fact_id: p.payload for p in again.retrieve(ids)} == payloads
        assert again.vectors(ids[:3]) == {
            p.fact_id: pytest.approx(p.vector, rel=1e-6) for p in points[:3]
        }
        # exact within a scope: the same top 7 as numpy over alice's points
        alice = [p for p in points if p.payload["memguard"]["owner_sub"] == "alice"]
        mat = np.asarray([p.vector for p in alice], dtype=np.float32)
        for q in queries:
            top = np.argsort(-(mat @ (q / np.linalg.norm(q))))[:7]
            hits = again.search(q.tolist(), condition=SCOPES[1], limit=7)
            assert [h.fact_id for h in hits] == [alice[i].fact_id for i in top]
    finally:
        again.close()


@pytest.mark.parametrize(
    ("first", "second"),
    [(StorageLayout.in_ram(), DEFAULT_LAYOUT), (DEFAULT_LAYOUT, StorageLayout.in_ram())],
    ids=["in-ram-then-on-disk", "on-disk-then-in-ram"],
)
def test_a_store_reopened_under_another_layout_serves_the_same_facts(
    tmp_path: Path, first: StorageLayout, second: StorageLayout
) -> None:
    """A folder made before the on-disk default (or by a caller that chose RAM) opens under the
    other layout with the same facts, and takes new writes."""
    points = _points(240)
    queries = np.random.default_rng(4).standard_normal((4, DIM)).astype(np.float32)
    store = QdrantEdgeStore(tmp_path / "edge", dimension=DIM, layout=first)
    store.upsert(points[:200])
    before = _answers(store, queries)
    store.close()

    other = QdrantEdgeStore(tmp_path / "edge", dimension=DIM, layout=second)
    try:
        assert other.layout == second and other.count() == 200
        assert _answers(other, queries) == before
        other.upsert(points[200:])
        assert other.count() == 240
        newest = points[239]
        hit = other.search(list(newest.vector or ()), condition=None, limit=1)
        assert hit[0].fact_id == newest.fact_id
    finally:
        other.close()
    config = json.loads((tmp_path / "edge" / "shard" / "edge_config.json").read_text())
    # the vector parameters (their placement with them) are re-applied on open
    assert config["vectors"][""].get("memory") == second.vectors
