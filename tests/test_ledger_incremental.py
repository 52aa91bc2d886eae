"""Incremental verify (`memguard ledger verify --incremental`, `Ledger.verify(since_checkpoint=
True)`): a clean full verify records its latest checkpoint in the witness folder (a signed marker
bound to the checkpoint's root); the incremental one replays only the log after it, and still
checks the tree, the checkpoints and the witness in full."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from memguard import Source, SourceKind, Turn
from memguard.embedded import open_embedded
from memguard.ledger.cli import ledger_app
from memguard.ledger.verified import MARK_FILE

USER = Source(kind=SourceKind.USER_MESSAGE, name="chat")


def _verify(state: Path, *args: str) -> tuple[int, dict[str, object]]:
    out = CliRunner().invoke(ledger_app, ["verify", "--json", "--state-dir", str(state), *args])
    return out.exit_code, json.loads(out.stdout)


def _write(state: Path, start: int, n: int) -> list[str]:
    stack = open_embedded(state, dimension=8)
    try:
        alice = stack.guard.authenticate(stack.tokens.issue("alice", ttl=600))
        return [
            stack.guard.write(
                alice, f"Alice fact {i}", namespace="n", source=USER,
                turn=Turn(session_id="s", turn_index=i), vector=[float(i + 1)] * 8,
            ).fact_id
            for i in range(start, start + n)
        ]  # fmt: skip
    finally:
        stack.close()  # drains and signs a checkpoint of what is queued


def _set_source_uri(state: Path, fact_id: str, value: str) -> None:
    with sqlite3.connect(state / "ledger.db") as db:
        db.execute("UPDATE mg_provenance SET source_uri = ? WHERE fact_id = ?", (value, fact_id))
    db.close()


def _named(report: dict[str, object], fact_id: str) -> list[tuple[object, object]]:
    problems = report["problems"]
    assert isinstance(problems, list)
    return [
        (p["kind"], p["column"])
        for p in problems
        if p.get("table") == "mg_provenance" and (p.get("key") or {}).get("fact_id") == fact_id
    ]


def test_incremental_replays_after_the_marker_and_full_still_finds_older_edits(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    early = _write(state, 0, 3)
    code, full = _verify(state)
    assert code == 0 and full["replay_from"] == 0, full
    marked = full["marked_verified"]
    assert isinstance(marked, int) and marked > 0 and (state / "witness" / MARK_FILE).exists()
    late = _write(state, 3, 3)
    code, inc = _verify(state, "--incremental")
    assert code == 0 and inc["replay_from"] == marked and inc["marked_verified"] is None, inc
    # an edit of a row no later entry touched: out of the increment (documented), found by full
    _set_source_uri(state, early[0], "https://evil.example/")
    code, inc = _verify(state, "--incremental")
    assert code == 0 and _named(inc, early[0]) == [], inc
    code, full = _verify(state)
    assert code == 4 and _named(full, early[0]) == [("row_edited", "source_uri")], full
    assert full["marked_verified"] is None  # a verify that found something marks nothing
    _set_source_uri(state, early[0], None)  # type: ignore[arg-type]
    code, full = _verify(state)
    assert code == 0, full  # restored: the marker moves to the latest checkpoint
    assert isinstance(full["marked_verified"], int) and full["marked_verified"] > marked
    marked = full["marked_verified"]
    newer = _write(state, 6, 2)
    # an edit of a row written after the marker: found by the incremental replay
    code, inc = _verify(state, "--incremental")
    assert code == 0 and inc["replay_from"] == marked
    _set_source_uri(state, newer[1], "https://evil.example/")
    code, inc = _verify(state, "--incremental")
    assert code == 4 and inc["replay_from"] == marked, inc
    assert _named(inc, newer[1]) == [("row_edited", "source_uri")], inc
    assert _named(inc, late[1]) == []


def test_incremental_still_checks_the_tree_before_the_marker(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _write(state, 0, 2)
    assert _verify(state)[0] == 0
    _write(state, 2, 1)
    with sqlite3.connect(state / "ledger.db") as db:
        db.execute("UPDATE mg_audit_event SET event = replace(event, 'Alice', 'Mallory') "
                   "WHERE seq = (SELECT event_seq FROM mg_log_leaf WHERE leaf_index = 1)")  # fmt: skip
        db.execute("UPDATE mg_audit_event SET event = event || ' ' "
                   "WHERE seq = (SELECT event_seq FROM mg_log_leaf WHERE leaf_index = 2)")  # fmt: skip
    db.close()
    code, inc = _verify(state, "--incremental")
    assert code == 4, inc
    problems = inc["problems"]
    assert isinstance(problems, list)
    assert {"edited"} <= {p["kind"] for p in problems}, problems


def test_a_forged_or_moved_marker_means_a_full_replay(tmp_path: Path) -> None:
    state = tmp_path / "state"
    early = _write(state, 0, 2)
    assert _verify(state)[0] == 0
    _write(state, 2, 2)
    _set_source_uri(state, early[0], "https://evil.example/")
    mark = state / "witness" / MARK_FILE
    lines = mark.read_text().split("\n")
    # move the marker to the end of the log (so the edit falls before it) without the key
    code, report = _verify(state, "--incremental")
    assert code == 0 and report["replay_from"]  # the honest marker: the edit is older
    with sqlite3.connect(state / "ledger.db") as db:
        (size,) = db.execute("SELECT max(leaf_index) + 1 FROM mg_log_leaf").fetchone()
    db.close()
    lines[1] = str(size)
    mark.write_text("\n".join(lines))
    code, report = _verify(state, "--incremental")
    assert code == 4 and report["replay_from"] == 0, report
    kinds = {(p["kind"], p.get("column")) for p in report["problems"]}  # type: ignore[union-attr]
    assert ("bad_signature", None) in kinds and ("row_edited", "source_uri") in kinds, kinds
