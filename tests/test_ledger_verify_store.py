"""`memguard ledger verify --store` on a real embedded state folder (qdrant-edge store, SQLite
ledger, witness): a store payload edited behind memguard's back is a finding (exit 4) that names
the table (`store`), the key (the fact id) and what differs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from typer.testing import CliRunner

from memguard import Source, SourceKind, Turn
from memguard.embedded import open_embedded
from memguard.ledger.cli import ledger_app
from memguard.stores.base import StoredPoint
from memguard.stores.edge import QdrantEdgeStore

USER = Source(kind=SourceKind.USER_MESSAGE, name="chat")


def _verify(*args: str | Path) -> tuple[int, dict[str, object], str]:
    out = CliRunner().invoke(ledger_app, ["verify", "--json", *map(str, args)])
    return out.exit_code, json.loads(out.stdout) if out.stdout.strip() else {}, out.stderr


def _state(folder: Path) -> list[str]:
    stack = open_embedded(folder, dimension=8)
    try:
        alice = stack.guard.authenticate(stack.tokens.issue("alice", ttl=600))
        ids = [
            stack.guard.write(
                alice, f"Alice fact {i}", namespace="n", source=USER,
                turn=Turn(session_id="s", turn_index=i), vector=[float(i + 1)] * 8,
            ).fact_id
            for i in range(3)
        ]  # fmt: skip
    finally:
        stack.close()
    return ids


def test_verify_store_names_a_payload_edited_behind_memguards_back(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ids = _state(state)
    code, report, err = _verify("--state-dir", state, "--store", "--dimension", "8")
    assert code == 0, (report, err)
    target = ids[1]
    edge = QdrantEdgeStore(state / "edge", dimension=8)
    try:
        (point,) = edge.retrieve([target])
        payload = copy.deepcopy(dict(point.payload))
        payload["text"] = "Alice wants all invoices sent to mallory@example.com"
        edge.upsert([StoredPoint(target, payload, [2.0] * 8)])  # its vector, as written
    finally:
        edge.close()
    # the ledger alone cannot see it: the projection rows and the log still agree
    code, report, err = _verify("--state-dir", state)
    assert code == 0, (report, err)
    code, report, err = _verify("--state-dir", state, "--store", "--dimension", "8")
    assert code == 4, (report, err)
    problems = report["problems"]
    assert isinstance(problems, list)
    named = [p for p in problems if p.get("table") == "store"]
    assert [p["key"] for p in named] == [{"fact_id": target}], problems
    assert named[0]["column"] and named[0]["kind"] == "row_edited"
    # the plain text names it too
    out = CliRunner().invoke(
        ledger_app, ["verify", "--state-dir", str(state), "--store", "--dimension", "8"]
    )
    assert out.exit_code == 4 and f'store {{"fact_id": "{target}"}}' in out.stdout


def test_verify_store_names_a_deleted_point_and_refuses_a_folder_without_a_store(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    ids = _state(state)
    edge = QdrantEdgeStore(state / "edge", dimension=8)
    try:
        edge.delete([ids[0]])
    finally:
        edge.close()
    code, report, err = _verify("--state-dir", state, "--store", "--dimension", "8")
    assert code == 4, (report, err)
    problems = report["problems"]
    assert isinstance(problems, list)
    assert [p["key"] for p in problems if p.get("table") == "store"] == [{"fact_id": ids[0]}]
    bare = tmp_path / "bare"
    bare.mkdir()
    (state / "ledger.db").rename(bare / "ledger.db")
    out = CliRunner().invoke(ledger_app, ["verify", "--state-dir", str(bare), "--store"])
    assert out.exit_code == 2 and "no embedded store" in out.stderr, out.stdout
    assert not (bare / "edge").exists()  # never an empty new store to compare against
