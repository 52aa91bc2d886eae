"""The qdrant-edge store (the embedded default): the MemoryStore protocol on a real shard, one process
per folder, damage found and isolated, and ``memguard store check`` / ``rebuild``."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memguard import FactNotFound, RevocationSelector, Source, SourceKind, Turn, open_embedded
from memguard.cli import app
from memguard.clikit import ExitCode
from memguard.errors import StoreError, UntranslatableCondition
from memguard.scope import FIELDS, And, Eq, Gte, In, Not
from memguard.stores.base import StoredPoint
from memguard.stores.edge import QdrantEdgeStore, StoreDamaged, StoreLocked

DIM = 4
TURN = Turn(session_id="s-store", turn_index=1)


def _id(i: int) -> str:
    return str(uuid.UUID(int=i + 1))


def _point(i: int, owner: str, trust: int) -> StoredPoint:
    fields = {"fact_id": _id(i), "owner_iss": "iss", "owner_sub": owner, "trust": trust}
    return StoredPoint(_id(i), {"text": f"t{i}", "metadata": {}, "memguard": fields},
                       [1.0, float(i), 0.0, 0.5])  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> QdrantEdgeStore:
    s = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    s.upsert([_point(i, "alice" if i % 2 else "bob", i % 7) for i in range(20)])
    yield s  # type: ignore[misc]
    s.close()


def test_protocol_on_a_real_shard(store: QdrantEdgeStore) -> None:
    alice = And((Eq("owner_iss", "iss"), Eq("owner_sub", "alice")))
    hits = store.search([1.0, 3.0, 0.0, 0.5], condition=alice, limit=5)
    assert len(hits) == 5 and all(h.payload["memguard"]["owner_sub"] == "alice" for h in hits)
    assert hits[0].fact_id == _id(3)  # exact nearest within the scope
    page = store.search([1.0, 3.0, 0.0, 0.5], condition=alice, limit=5, offset=5)
    assert {h.fact_id for h in page}.isdisjoint(h.fact_id for h in hits) and len(page) == 5
    # scroll pages in id order with an inclusive cursor
    first, cursor = store.scroll(condition=alice, limit=4)
    assert [p.fact_id for p in first] == sorted(p.fact_id for p in first) and cursor is not None
    rest, end = store.scroll(condition=alice, limit=100, cursor=cursor)
    assert end is None and len(first) + len(rest) == 10 and rest[0].fact_id == cursor
    # negation carries its existence guard: a point without `trust` is not "not trust >= 3"
    store.upsert([StoredPoint(_id(99), {"memguard": {"owner_sub": "alice"}}, [1.0, 0, 0, 0])])
    low = store.scroll(condition=Not(Gte("trust", 3)), limit=100)[0]
    assert _id(99) not in {p.fact_id for p in low} and len(low) == 9
    # retrieve: unknown and non-UUID ids are simply absent
    got = store.retrieve([_id(0), _id(500), "not-a-uuid"])
    assert [p.fact_id for p in got] == [_id(0)]
    store.set_trust({_id(0): 0, _id(500): 6})
    assert store.retrieve([_id(0)])[0].payload["memguard"]["trust"] == 0
    store.delete([_id(0), "not-a-uuid"])
    assert store.retrieve([_id(0)]) == [] and store.count() == 20
    assert set(store.vectors([_id(1)])) == {_id(1)}
    with pytest.raises(StoreError):
        store.upsert([StoredPoint(_id(1), {}, [1.0, 2.0])])  # wrong dimension


def test_an_untranslatable_condition_is_refused(store: QdrantEdgeStore) -> None:
    with pytest.raises(UntranslatableCondition):
        store.search([1.0, 0, 0, 0], condition=Eq("not_a_field", "x"), limit=3)


def test_payload_indexes_on_every_scope_field_and_reopen(tmp_path: Path) -> None:
    s = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    s.upsert([_point(i, "alice", 3) for i in range(5)])
    s.close()
    s = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    try:
        assert s.count() == 5
        schema = s._shard.info().payload_schema
        assert {f"memguard.{name}" for name in FIELDS} <= set(schema)
        tenant = schema["memguard.owner_sub"].params
        assert getattr(tenant, "is_tenant", None) is True
    finally:
        s.close()
    with pytest.raises(StoreError, match="dimension"):
        QdrantEdgeStore(tmp_path / "edge", dimension=8)


def test_a_second_opener_gets_store_locked(tmp_path: Path) -> None:
    s = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    try:
        with pytest.raises(StoreLocked, match="Qdrant server"):
            QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
        code = (
            "from memguard.stores.edge import QdrantEdgeStore\n"
            "from memguard.errors import StoreError\n"
            "try:\n"
            f"    QdrantEdgeStore({str(tmp_path / 'edge')!r}, dimension={DIM})\n"
            "except StoreError as exc:\n"
            "    print(exc.code)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == "backend.store.locked", out.stderr
    finally:
        s.close()
    QdrantEdgeStore(tmp_path / "edge", dimension=DIM).close()  # released on close


# -- damage, through the guard and the CLI ----------------------------------------------------------


def _write_three(state: Path) -> tuple[list[str], list[str]]:
    stack = open_embedded(state)
    try:
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        texts = [f"fact number {n} " + f"unique-marker-{n}-" * 12 for n in range(3)]
        ids = [
            stack.guard.write(me, t, namespace="notes",
                              source=Source(kind=SourceKind.WEB, uri="https://example.org"), turn=TURN).fact_id
            for t in texts
        ]  # fmt: skip
    finally:
        stack.close()
    return ids, texts


def _corrupt(state: Path, marker: str) -> None:
    """Overwrite the stored bytes of one point's payload (behind memguard's back)."""
    pages = list((state / "edge" / "shard" / "segments").glob("*/payload_storage/page_*.dat"))
    for page in pages:
        data = bytearray(page.read_bytes())
        at = data.find(marker.encode())
        if at >= 0:
            data[at - 16 : at + 48] = b"\xff" * 64
            page.write_bytes(bytes(data))
            return
    raise AssertionError("marker not found in the payload storage")


def cli(*args: str | Path) -> tuple[int, str]:
    got = CliRunner().invoke(app, [str(a) for a in args])
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        raise got.exception
    return got.exit_code, got.stdout


def test_an_unreadable_point_is_withheld_with_an_alarm_and_the_rest_served(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ids, _ = _write_three(state)
    _corrupt(state, "unique-marker-1-")
    stack = open_embedded(state)
    try:
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        served = {r.fact_id for r in stack.guard.search(me, "fact number", k=10)}
        assert served == {ids[0], ids[2]}
        with pytest.raises(FactNotFound):
            stack.guard.get(me, ids[1])
        alarms = [e for e in stack.guard.ledger.events(decision="alarm") if ids[1] in e.fact_ids]
        assert alarms and alarms[0].reason == "integrity.malformed_payload"
    finally:
        stack.close()
    code, out = cli("store", "check", "--json", "--state-dir", state)
    assert code == ExitCode.VERIFY_FAILED
    report = json.loads(out)
    assert report["problems"] == {ids[1]: "integrity.malformed_payload"} and report["matching"] == 2
    # rebuild: the two intact facts are restored; the damaged one's content is not in the ledger
    code, out = cli("store", "rebuild", "--json", "--state-dir", state)
    assert code == 0, out
    rebuilt = json.loads(out)
    assert rebuilt["restored"] == 2 and set(rebuilt["lost"]) == {ids[1]}
    assert rebuilt["kept"] and Path(rebuilt["kept"]).is_dir()
    code, out = cli("store", "check", "--json", "--state-dir", state)
    assert json.loads(out)["problems"] == {ids[1]: "integrity.missing_point"}
    stack = open_embedded(state)
    try:
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        assert {r.fact_id for r in stack.guard.search(me, "fact number", k=10)} == {ids[0], ids[2]}
        events = [e for e in stack.guard.ledger.events() if e.action == "store_rebuild"]
        assert events and events[0].fact_ids == (ids[1],)  # the rebuild is on the record
    finally:
        stack.close()


@pytest.mark.parametrize("lookalike", [False, 0.0])
def test_an_index_field_of_another_type_is_a_mismatch(tmp_path: Path, lookalike: object) -> None:
    """``derived_from_count`` is 0: False and 0.0 equal it in Python, but an engine's filter on an
    integer field treats them as other values, so the copy no longer says what the ledger says."""
    import qdrant_edge as qe

    state = tmp_path / "state"
    ids, _ = _write_three(state)
    shard = qe.EdgeShard.load(str(state / "edge" / "shard"))
    shard.update(qe.UpdateOperation.set_payload(
        [ids[1]], {"derived_from_count": lookalike}, key="memguard"))
    shard.close()
    code, out = cli("store", "check", "--json", "--state-dir", state)
    assert code == ExitCode.VERIFY_FAILED
    assert json.loads(out)["problems"] == {ids[1]: "integrity.index_mismatch"}


def test_rebuild_restores_a_tampered_reserved_block_from_the_ledger(tmp_path: Path) -> None:
    import qdrant_edge as qe

    state = tmp_path / "state"
    ids, _ = _write_three(state)
    shard = qe.EdgeShard.load(str(state / "edge" / "shard"))
    shard.update(qe.UpdateOperation.set_payload([ids[0]], {"trust": 6}, key="memguard"))
    shard.close()
    code, out = cli("store", "check", "--json", "--state-dir", state)
    assert code == ExitCode.VERIFY_FAILED
    assert json.loads(out)["problems"] == {ids[0]: "integrity.index_mismatch"}
    code, out = cli("store", "rebuild", "--state-dir", state)
    assert code == 0 and "restored 3 of 3" in out
    code, out = cli("store", "check", "--state-dir", state)
    assert code == 0 and "3 match the ledger" in out
    code, out = cli("store", "optimize", "--json", "--state-dir", state)
    assert code == 0 and isinstance(json.loads(out)["optimized"], bool)


def test_a_shard_that_does_not_open_is_store_damaged(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _write_three(state)
    for seg in (state / "edge" / "shard" / "segments").glob("*/segment.json"):
        seg.write_text("garbage")
    with pytest.raises(StoreDamaged, match="memguard store rebuild"):
        open_embedded(state)
    code, out = cli("store", "rebuild", "--json", "--state-dir", state)
    assert code == 0  # nothing readable survives: every fact is reported lost, not invented
    assert json.loads(out)["restored"] == 0 and len(json.loads(out)["lost"]) == 3


def test_a_folder_with_an_older_local_store_keeps_it_until_rebuilt(tmp_path: Path) -> None:
    from memguard import QdrantStore

    state = tmp_path / "state"
    stack = open_embedded(state, engine="local")
    try:
        assert isinstance(stack.guard.store, QdrantStore)
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        fid = stack.guard.write(me, "kept across the move", namespace="n",
                                source=Source(kind=SourceKind.WEB, uri="https://e.org"), turn=TURN).fact_id  # fmt: skip
    finally:
        stack.close()
    stack = open_embedded(state)  # follows the folder: its facts stay readable
    try:
        assert isinstance(stack.guard.store, QdrantStore)
    finally:
        stack.close()
    code, out = cli("store", "rebuild", "--state-dir", state)  # the move to qdrant-edge
    assert code == 0 and "restored 1 of 1" in out
    stack = open_embedded(state)
    try:
        assert isinstance(stack.guard.store, QdrantEdgeStore)
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        assert stack.guard.get(me, fid).text == "kept across the move"
    finally:
        stack.close()


def _unit(rng: object, n: int, dim: int) -> list[list[float]]:
    import numpy as np

    assert isinstance(rng, np.random.Generator)
    m = rng.standard_normal((n, dim))
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return [[float(x) for x in row] for row in m]


def test_per_tenant_graphs_serve_a_scoped_search_and_others_run_exact(tmp_path: Path) -> None:
    """After ``optimize`` (graphs built: a tiny threshold here), a search pinned to one owner walks
    that owner's graph and finds its exact top 10; a search over two owners (no graph spans them:
    there is no global graph) is run exact and finds exactly the top 10 of both."""
    import numpy as np

    rng = np.random.default_rng(7)
    dim, n, owners = 16, 1600, 4
    s = QdrantEdgeStore(tmp_path / "edge", dimension=dim, index_threshold_kb=8, full_scan_kb=8)
    vecs = _unit(rng, n, dim)
    owner = [f"o{i % owners}" for i in range(n)]
    s.upsert([
        StoredPoint(_id(i), {"memguard": {"owner_iss": "iss", "owner_sub": owner[i], "trust": 3}}, vecs[i])
        for i in range(n)
    ])  # fmt: skip
    assert s.optimize()  # graphs were built
    config = json.loads((tmp_path / "edge" / "shard" / "edge_config.json").read_text())
    assert config["hnsw_config"]["m"] == 0 and config["hnsw_config"]["payload_m"] > 0
    arr = np.asarray(vecs)

    def exact(q: list[float], allowed: set[str]) -> set[str]:
        idx = [i for i in range(n) if owner[i] in allowed]
        best = sorted(idx, key=lambda i: -float(arr[i] @ np.asarray(q)))[:10]
        return {_id(i) for i in best}

    found = total = 0
    for q in _unit(rng, 20, dim):
        one = And((Eq("owner_iss", "iss"), Eq("owner_sub", "o1")))
        hits = s.search(q, condition=one, limit=10)
        assert all(h.payload["memguard"]["owner_sub"] == "o1" for h in hits)
        found += len(exact(q, {"o1"}) & {h.fact_id for h in hits})
        total += 10
        two = And((Eq("owner_iss", "iss"), In("owner_sub", ("o2", "o3"))))
        assert {h.fact_id for h in s.search(q, condition=two, limit=10)} == exact(q, {"o2", "o3"})
    assert found / total >= 0.95
    s.close()


def test_the_translation_cache_keeps_mistyped_literals_apart(store: QdrantEdgeStore) -> None:
    """``Eq("trust", 1)`` and ``Eq("trust", True)`` are equal Python values; the cached translation of
    the first must not answer for the second (a boolean literal is refused, not read as 1)."""
    assert store.scroll(condition=Eq("trust", 1), limit=100)[0]
    with pytest.raises(UntranslatableCondition):
        store.scroll(condition=Eq("trust", True), limit=100)


def test_a_rebuild_killed_midway_resumes_to_the_same_store(tmp_path: Path) -> None:
    """SIGKILL after the second checkpoint (batches of 8, 40 facts, one quarantined), then run the
    rebuild again: it continues after the checkpointed id, and the store it swaps in holds exactly
    the facts, payloads and vectors of the store it replaced (``store check`` passes)."""
    state = tmp_path / "state"
    stack = open_embedded(state)
    try:
        me = stack.guard.authenticate(stack.tokens.issue("alice"))
        src = Source(kind=SourceKind.WEB, uri="https://example.org")
        ids = [stack.guard.write(me, f"resumable fact {i}", namespace="notes", source=src,
                                 turn=Turn(session_id="s", turn_index=i)).fact_id for i in range(40)]  # fmt: skip
        stack.guard.revoke(me, RevocationSelector.fact(ids[7]), reason="test")
    finally:
        stack.close()
    before = QdrantEdgeStore(state / "edge")
    try:
        expected = {p.fact_id: dict(p.payload) for p in before.retrieve(ids)}
        vectors = before.vectors(ids)
    finally:
        before.close()
    killer = "\n".join([
        "import os, signal, sys",
        "import memguard.stores.repair as repair, memguard.storecli as cli",
        "from memguard.cli import app",
        "repair.BATCH = 8",
        "saved, calls = cli._save_progress, []",
        "def save(staging, state):",
        "    saved(staging, state); calls.append(1)",
        "    if len(calls) == 2: os.kill(os.getpid(), signal.SIGKILL)",
        "cli._save_progress = save",
        f"sys.argv = ['memguard', 'store', 'rebuild', '--state-dir', {str(state)!r}]",
        "app()",
    ])  # fmt: skip
    killed = subprocess.run([sys.executable, "-c", killer], capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    progress = json.loads((state / "edge.rebuild" / "progress.json").read_text())
    assert progress["after"] == sorted(ids)[15] and progress["restored"] == 16
    code, out = cli("store", "rebuild", "--json", "--state-dir", state)
    assert code == 0, out
    done = json.loads(out)
    assert done["resumed_after"] == sorted(ids)[15]
    assert done["restored"] == 40 and done["lost"] == {}
    assert not (state / "edge.rebuild").exists() and not (state / "edge" / "progress.json").exists()
    after = QdrantEdgeStore(state / "edge")
    try:
        assert {p.fact_id: dict(p.payload) for p in after.retrieve(ids)} == expected
        assert after.vectors(ids) == vectors and after.count() == 40
    finally:
        after.close()
    code, out = cli("store", "check", "--state-dir", state)
    assert code == 0 and "40 match the ledger" in out, out


def test_a_rebuild_checkpoint_of_other_facts_is_not_resumed(tmp_path: Path) -> None:
    """A checkpoint whose fingerprint is not the ledger's committed facts is discarded: the rebuild
    starts over instead of skipping facts it never wrote."""
    state = tmp_path / "state"
    ids, _ = _write_three(state)
    staging = state / "edge.rebuild"
    staging.mkdir()
    (staging / "progress.json").write_text(json.dumps(
        {"fingerprint": "sha256:other", "after": max(ids), "committed": 3, "restored": 3, "lost": {}}))  # fmt: skip
    code, out = cli("store", "rebuild", "--json", "--state-dir", state)
    assert code == 0 and json.loads(out)["resumed_after"] is None
    assert json.loads(out)["restored"] == 3
    assert cli("store", "check", "--state-dir", state)[0] == 0


def test_a_shard_made_before_the_per_owner_layout_gets_it_on_open(tmp_path: Path) -> None:
    import qdrant_edge as qe

    old = qe.EdgeShard.create(str(tmp_path / "edge" / "shard"), qe.EdgeConfig(
        vectors=qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)))  # fmt: skip
    old.update(qe.UpdateOperation.upsert_points([qe.Point(_id(1), [1.0, 0, 0, 0], {"memguard": {"owner_sub": "a"}})]))
    old.close()
    s = QdrantEdgeStore(tmp_path / "edge", dimension=DIM)
    try:
        assert s.count() == 1
        config = json.loads((tmp_path / "edge" / "shard" / "edge_config.json").read_text())
        assert config["hnsw_config"]["m"] == 0 and config["hnsw_config"]["payload_m"] == 32
    finally:
        s.close()


def test_store_check_names_an_index_built_under_older_settings(tmp_path: Path) -> None:
    """A shard optimized under another full-scan threshold (the layout before ``full_scan_kb``)
    searches approximately until optimized again: ``store check`` says so (not a failure: the
    facts match the ledger), and after ``store optimize`` it no longer does."""
    from memguard.stores.edge import QdrantEdgeStore

    state = tmp_path / "state"
    _write_three(state)
    old = QdrantEdgeStore(state / "edge", dimension=384, index_threshold_kb=1, full_scan_kb=1)
    try:
        assert old.optimize()
    finally:
        old.close()
    code, out = cli("store", "check", "--json", "--state-dir", state)
    assert code == 0 and json.loads(out)["stale_index"] is True
    code, out = cli("store", "check", "--state-dir", state)
    assert code == 0 and "run `memguard store optimize` once" in out
    code, out = cli("store", "optimize", "--json", "--state-dir", state)
    assert code == 0 and json.loads(out)["optimized"] is True
    code, out = cli("store", "check", "--json", "--state-dir", state)
    assert code == 0 and json.loads(out)["stale_index"] is False
