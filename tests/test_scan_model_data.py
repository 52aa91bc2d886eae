"""The trained scanner's training data (tools/train_scan_model.py, model version 6) never holds a
held-half row of a holdout corpus, nor a near copy of one (docs/scanner.md, Generalization).

Model version 6 trains on the ``tune`` halves of holdout2-8 and on hand-written rows
(``tests/scan/train_*.jsonl``); holdout9, the next blind corpus, is never a source. A held-half row must not reach training by any road: as itself (a
halved source gives only its tune half), as the same text under another id (a tune row of one
corpus equal to a held row of another), or as a near copy (a hand-written row that paraphrases a
held row closely). The check compares texts only and reports training ids, never a held text.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
HALVED = {f"holdout{n}" for n in (2, 3, 4, 5, 6, 7, 8)}
#: character 5-gram Jaccard similarity at or above which two texts count as near copies (a
#: changed name, number or a few words in a row of 100 characters stays above it; two rows that
#: share a template phrase only stay well below)
NEAR = 0.5
SHINGLE = 5


def _train() -> Any:
    return load_script(ROOT / "tools" / "train_scan_model.py")


def _half(row_id: str) -> str:
    return "tune" if hashlib.sha256(row_id.encode()).digest()[0] < 128 else "held"


def _canon(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def _shingles(text: str) -> frozenset[str]:
    c = _canon(text)
    if len(c) <= SHINGLE:
        return frozenset({c})
    return frozenset(c[i : i + SHINGLE] for i in range(len(c) - SHINGLE + 1))


@cache
def _held() -> tuple[frozenset[str], ...]:
    """The shingle sets of every held-half row of holdout2-8 (texts kept in memory only)."""
    out = []
    for name in sorted(HALVED):
        path = ROOT / "tests" / "scan" / f"{name}.jsonl"
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if _half(row["id"]) == "held":
                    out.append(_shingles(row["text"]))
    return tuple(out)


def near_copies(texts: dict[str, str]) -> list[str]:
    """The keys of ``texts`` whose text equals or nearly equals a held-half row (Jaccard of
    character 5-grams of the canonical text at least :data:`NEAR`)."""
    held = _held()
    index: dict[str, list[int]] = {}
    for i, sh in enumerate(held):
        for s in sh:
            index.setdefault(s, []).append(i)
    bad = []
    for key, text in texts.items():
        mine = _shingles(text)
        shared: Counter[int] = Counter()
        for s in mine:
            shared.update(index.get(s, ()))
        for i, n in shared.items():
            if n / (len(mine) + len(held[i]) - n) >= NEAR:
                bad.append(key)
                break
    return bad


def test_the_halved_sources_are_holdout2_to_8_and_give_only_their_tune_half() -> None:
    train = _train()
    halved = {name for name, (_, tune_only) in train.SOURCES.items() if tune_only}
    assert halved == HALVED
    for name, (path, tune_only) in train.SOURCES.items():
        assert tune_only == (name in HALVED), name
        assert "holdout9" not in path and "holdout9" not in name  # the next blind corpus
    rows = train.training_rows()
    assert [r for r in rows if r[0] in HALVED and _half(r[1]) != "tune"] == []
    assert {r[0] for r in rows} == set(train.SOURCES)


def test_no_training_text_equals_or_nearly_equals_a_held_row() -> None:
    rows = _train().training_rows()
    bad = near_copies({f"{src}:{row_id}": text for src, row_id, _, text in rows})
    assert bad == []  # training ids only: the held texts are never printed


def test_the_near_copy_check_catches_small_edits_of_a_held_row() -> None:
    # made from held rows in memory (nothing printed): the check must catch an exact copy, a
    # copy with a changed word and one with another case and punctuation; and must not flag an
    # unrelated benign sentence
    rows = [
        json.loads(line)
        for line in (ROOT / "tests" / "scan" / "holdout6.jsonl").read_text("utf-8").splitlines()
    ]
    held = [r["text"] for r in rows if _half(r["id"]) == "held" and len(r["text"]) > 80][:20]
    assert len(held) == 20
    edited = {}
    for k, text in enumerate(held):
        words = text.split(" ")
        # a short word near the middle (a long one, say a URL, is more than a small edit)
        k_mid = min(
            range(len(words)), key=lambda i: (not 3 <= len(words[i]) <= 8, abs(i - len(words) // 2))
        )
        words[k_mid] = "banana"
        edited[f"same-{k}"] = text
        edited[f"word-{k}"] = " ".join(words)
        edited[f"case-{k}"] = text.upper().replace(",", " ;")
    assert sorted(near_copies(edited)) == sorted(edited)
    assert near_copies({"other": "Alice prefers aisle seats on morning flights to Lisbon."}) == []


@pytest.mark.parametrize(
    ("builder", "prefix"), [("agent", "ag"), ("families", "fm"), ("agentfiles", "af")]
)
def test_the_hand_written_training_files_are_their_builders_output(
    builder: str, prefix: str
) -> None:
    script = load_script(ROOT / "tests" / "scan" / f"build_train_{builder}.py")
    committed = script.OUT.read_text("utf-8")
    assert committed == script.render()
    rows = [json.loads(line) for line in committed.splitlines()]
    assert len({r["id"] for r in rows}) == len(rows) == len({r["text"] for r in rows})
    assert all(set(r) == {"id", "label", "family", "language", "text"} for r in rows)
    assert all(
        r["id"].startswith(f"{prefix}-a" if r["label"] == "attack" else f"{prefix}-b") for r in rows
    )
    assert {r["label"] for r in rows} == {"attack", "benign"}
