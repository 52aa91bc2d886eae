"""tools/scan_verdict_diff.py leaves corpora out by name (``--exclude``): a blind corpus is never
opened, and both dumps of a comparison hold the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
diff = load_script(ROOT / "tools" / "scan_verdict_diff.py")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "tests" / "scan").mkdir(parents=True)
    (tmp_path / "tests" / "corpus").mkdir(parents=True)
    row = json.dumps({"text": "Alice prefers aisle seats.", "label": "benign"})
    (tmp_path / "tests" / "scan" / "holdout2.jsonl").write_text(row + "\n" + row + "\n")
    (tmp_path / "tests" / "corpus" / "injections.jsonl").write_text(row + "\n")
    # a blind corpus: reading it would fail the test (not JSON)
    (tmp_path / "tests" / "scan" / "holdout9_blind.jsonl").write_text("not json\n")
    return tmp_path


def test_exclude_leaves_matching_files_unopened(root: Path) -> None:
    rows = diff.rows(root, ["holdout9*"])
    assert [(name, number) for name, number, _ in rows] == [
        ("holdout2.jsonl", 0), ("holdout2.jsonl", 1), ("injections.jsonl", 0),
    ]  # fmt: skip
    assert [(n, i) for n, i, _ in diff.rows(root, ["holdout9*", "injections.*"])] == [
        ("holdout2.jsonl", 0), ("holdout2.jsonl", 1),
    ]  # fmt: skip


def test_without_exclude_every_file_is_read(root: Path) -> None:
    with pytest.raises(json.JSONDecodeError):
        diff.rows(root)


def test_the_command_line_takes_exclude_and_dumps_the_same_rows(root: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert diff.main(["x", "dump", str(root), str(a), "--exclude", "holdout9*"]) == 0
    assert diff.main(["x", "dump", str(root), str(b), "--exclude=holdout9*"]) == 0
    lines = a.read_text().splitlines()
    assert len(lines) == 2 * 3  # one fact per call, then in batches of 32
    assert diff.main(["x", "compare", str(a), str(b)]) == 0
    b.write_text("\n".join(lines[:-1]) + "\n")
    assert diff.main(["x", "compare", str(a), str(b)]) == 1
