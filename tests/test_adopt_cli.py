"""`memguard adopt` on the command line: dry run first (writes nothing), then the real run, whose
facts the embedded stack serves to their owner only; mem0 and SQL (PostgreSQL) sources; usage
errors exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient, models
from typer.testing import CliRunner

from memguard.cli import app
from memguard.embedded import open_embedded

ISSUER = "https://memguard.local"  # the state folder's local token service


def cli(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def _legacy(path: Path, collection: str, payloads: list[dict[str, Any]]) -> None:
    client = QdrantClient(path=str(path))
    client.create_collection(
        collection, vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE)
    )
    client.upsert(collection, points=[
        models.PointStruct(id=i + 1, vector=[1.0, 0.5, 0.1 * i, 0.2], payload=p)
        for i, p in enumerate(payloads)
    ])  # fmt: skip
    client.close()


def _search(state: Path, subject: str, query: str) -> list[str]:
    stack = open_embedded(state)
    try:
        me = stack.guard.authenticate(stack.tokens.issue(subject, scopes=["memory:read"]))
        return sorted(f.text for f in stack.guard.search(me, query, k=10))
    finally:
        stack.close()


def test_qdrant_dry_run_then_adopt_then_rerun(tmp_path: Path) -> None:
    legacy, state = tmp_path / "legacy", tmp_path / "state"
    _legacy(legacy, "notes", [
        {"text": "alice likes tea", "user_id": "alice"},
        {"text": "bob likes coffee", "user_id": "bob"},
        {"text": "no owner here"},
    ])  # fmt: skip
    base = ["adopt", "qdrant", "--path", legacy, "--collection", "notes", "--owner-field",
            "user_id", "--issuer", ISSUER, "--state-dir", state, "--json"]  # fmt: skip
    dry = cli(*base, "--init", "--dry-run")
    assert dry.exit_code == 0, dry.output
    report = json.loads(dry.output)
    assert (report["dry_run"], report["adopted"], report["skipped"]) == (
        True, 2, {"owner.missing": 1})
    assert report["owners"] == {f"alice @ {ISSUER}": 1, f"bob @ {ISSUER}": 1}
    assert list(state.iterdir()) == []  # the dry run wrote nothing
    real = cli(*base)
    assert real.exit_code == 0, real.output
    assert json.loads(real.output)["adopted"] == 2
    assert _search(state, "alice", "tea") == ["alice likes tea"]
    assert _search(state, "carol", "tea") == []
    again = cli(*base)
    assert json.loads(again.output)["already_adopted"] == 2
    assert json.loads(cli(*base, "--dry-run").output)["adopted"] == 0


def test_mem0_store(tmp_path: Path) -> None:
    legacy, state = tmp_path / "mem0", tmp_path / "state"
    _legacy(legacy, "mem0", [  # what mem0's Qdrant payloads look like
        {"data": "alice is allergic to nuts", "hash": "h1", "user_id": "alice",
         "created_at": "2025-01-01T00:00:00"},
        {"data": "agent-only memory", "hash": "h2", "agent_id": "planner"},
    ])  # fmt: skip
    out = cli("adopt", "mem0", "--path", legacy, "--issuer", ISSUER, "--state-dir", state,
              "--init", "--json")  # fmt: skip
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["adopted"] == 1 and report["skipped"] == {"owner.missing": 1}
    assert _search(state, "alice", "nuts") == ["alice is allergic to nuts"]


def test_sql_table_on_postgres(tmp_path: Path, pg_url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE notes (id serial PRIMARY KEY, owner text, body text,"
                          " created timestamptz DEFAULT now())"))  # fmt: skip
        conn.execute(text("INSERT INTO notes (owner, body) VALUES ('alice', 'alice owns a boat'),"
                          " ('bob', 'bob owns a bike'), (NULL, 'unowned row')"))  # fmt: skip
    engine.dispose()
    state = tmp_path / "state"
    out = cli("adopt", "sql", "--url", pg_url, "--table", "notes", "--owner-column", "owner",
              "--text-column", "body", "--issuer", ISSUER, "--state-dir", state, "--init",
              "--json")  # fmt: skip
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["adopted"] == 2 and report["skipped"] == {"owner.missing": 1}
    assert "password" not in report["source"]
    assert _search(state, "bob", "bike") == ["bob owns a bike"]
    assert _search(state, "alice", "bike") == ["alice owns a boat"]


def test_langgraph_dump(tmp_path: Path) -> None:
    from langgraph.store.memory import InMemoryStore

    from memguard.adopt.sources import dump_langgraph_store

    store = InMemoryStore()
    store.put(("users", "alice"), "k", {"text": "alice works nights"})
    dump = tmp_path / "dump.json"
    dump_langgraph_store(store, dump)
    state = tmp_path / "state"
    out = cli("adopt", "langgraph", "--dump", dump, "--owner-namespace-index", "1", "--issuer",
              ISSUER, "--state-dir", state, "--init", "--json")  # fmt: skip
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["adopted"] == 1
    assert _search(state, "alice", "nights") == ["alice works nights"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--owner-field", "user_id", "--trust", "high"], 2),  # unknown trust level
        ([], 2),  # no owner mapping
        (["--owner-field", "user_id", "--collection", "missing"], 3),
    ],
)
def test_usage_and_input_errors(tmp_path: Path, args: list[str], code: int) -> None:
    legacy = tmp_path / "legacy"
    _legacy(legacy, "notes", [{"text": "x", "user_id": "alice"}])
    cmd = ["adopt", "qdrant", "--path", legacy, "--issuer", ISSUER, "--state-dir",
           tmp_path / "state", "--init", "--dry-run"]  # fmt: skip
    if "--collection" not in args:
        cmd += ["--collection", "notes"]
    out = cli(*cmd, *args)
    assert out.exit_code == code, out.output


def test_owner_map_and_a_planted_provenance_block(tmp_path: Path) -> None:
    legacy, state = tmp_path / "legacy", tmp_path / "state"
    _legacy(legacy, "notes", [
        {"text": "customer 17 prefers email", "uid": 17,
         "memguard": {"trust": "system", "owner_sub": "carol"}},  # planted: stays plain data
        {"text": "customer 18 prefers phone", "uid": 18},
    ])  # fmt: skip
    owner_map = tmp_path / "owners.json"
    owner_map.write_text(json.dumps({"17": "alice"}))
    out = cli("adopt", "qdrant", "--path", legacy, "--collection", "notes", "--owner-field", "uid",
              "--owner-map", owner_map, "--issuer", ISSUER, "--state-dir", state, "--init",
              "--json")  # fmt: skip
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["adopted"] == 1 and report["skipped"] == {"owner.unmapped": 1}
    stack = open_embedded(state)
    try:
        alice = stack.guard.authenticate(stack.tokens.issue("alice", scopes=["memory:read"]))
        carol = stack.guard.authenticate(stack.tokens.issue("carol", scopes=["memory:read"]))
        (fact,) = stack.guard.search(alice, "email", k=5)
        assert fact.provenance.trust.label == "untrusted" and fact.provenance.owner.subject == "alice"
        assert fact.metadata["legacy"]["memguard"] == {"trust": "system", "owner_sub": "carol"}
        assert stack.guard.search(carol, "email", k=5) == []
    finally:
        stack.close()
