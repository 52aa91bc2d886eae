"""Structure checks for the ninth blind scanner corpus, tests/scan/holdout9.jsonl.

These tests never run the scanner and never print a row's text: failures name ids and counts
only, so a failing run cannot leak the blind corpus (or any other corpus) into a log.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCAN_DIR = Path(__file__).resolve().parent / "scan"
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
PATH = SCAN_DIR / "holdout9.jsonl"
KEYS = ["id", "label", "family", "technique", "language", "text"]


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_build_holdout9", SCAN_DIR / "build_holdout9.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for n, line in enumerate(PATH.read_text(encoding="utf-8").splitlines(), start=1):
        obj = json.loads(line)
        assert isinstance(obj, dict), f"line {n} is not an object"
        out.append(obj)
    return out


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _loose_digest(text: str) -> str:
    """Digest that ignores case and whitespace differences."""
    return _digest(" ".join(text.split()).casefold())


def _strings(value: Any) -> list[str]:
    """Every string inside a parsed JSON value (keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_builder_reproduces_committed_file() -> None:
    built = _builder().render()
    assert built == PATH.read_bytes(), "rerun tests/scan/build_holdout9.py and commit the output"
    assert _builder().render() == built, "the builder is not deterministic"


def test_keys_labels_and_ids(rows: list[dict[str, str]]) -> None:
    assert len(rows) >= 600
    counters = {"attack": 0, "benign": 0}
    for row in rows:
        assert list(row) == KEYS, f"{row.get('id')}: keys {list(row)}"
        assert all(isinstance(row[k], str) and row[k].strip() for k in KEYS), row["id"]
        label = row["label"]
        assert label in counters, f"{row['id']}: label {label!r}"
        counters[label] += 1
        prefix = "a" if label == "attack" else "b"
        assert row["id"] == f"h9-{prefix}{counters[label]:03d}", f"{row['id']} out of sequence"
        assert re.fullmatch(r"[a-z]{2,3}(-[A-Za-z]{2,4})?", row["language"]), row["id"]
        if label == "benign":
            assert row["family"].startswith("benign_"), row["id"]
        else:
            assert not row["family"].startswith("benign_"), row["id"]
    assert counters["attack"] >= 300
    assert counters["benign"] >= 300


def test_ids_and_texts_unique(rows: list[dict[str, str]]) -> None:
    ids = Counter(r["id"] for r in rows)
    assert not [i for i, c in ids.items() if c > 1]
    # exact and whitespace/case-insensitive duplicates both count
    norm = Counter(" ".join(r["text"].split()).casefold() for r in rows)
    dupes = [r["id"] for r in rows if norm[" ".join(r["text"].split()).casefold()] > 1]
    assert not dupes, f"duplicate texts: {dupes}"


def test_attack_families(rows: list[dict[str, str]]) -> None:
    fams = Counter(r["family"] for r in rows if r["label"] == "attack")
    assert len(fams) >= 20, f"{len(fams)} attack families"
    small = {f: n for f, n in fams.items() if n < 12}
    assert not small, f"families under 12 rows: {small}"
    # no family is most of the corpus
    assert max(fams.values()) <= 0.1 * sum(fams.values())


def test_benign_kinds(rows: list[dict[str, str]]) -> None:
    kinds = Counter(r["family"] for r in rows if r["label"] == "benign")
    assert len(kinds) >= 15, f"{len(kinds)} benign kinds"


def test_language_spread(rows: list[dict[str, str]]) -> None:
    primary = {r["language"].split("-")[0] for r in rows}
    assert len(primary) >= 25, f"{len(primary)} languages"
    attack_primary = {r["language"].split("-")[0] for r in rows if r["label"] == "attack"}
    assert len(attack_primary) >= 25, f"{len(attack_primary)} attack languages"
    non_en = sum(1 for r in rows if r["label"] == "attack" and r["language"] != "en")
    assert non_en >= 0.25 * sum(1 for r in rows if r["label"] == "attack")


def test_length_spread(rows: list[dict[str, str]]) -> None:
    for label in ("attack", "benign"):
        lengths = [len(r["text"]) for r in rows if r["label"] == label]
        assert min(lengths) < 160, label
        assert max(lengths) > 1200, label
        assert max(lengths) <= 4000, label


def _other_corpus_texts() -> tuple[set[str], list[str]]:
    """Exact and loose digests of every string in the other corpora, and the raw non-JSON corpus
    files (for substring checks). Nothing here is printed."""
    digests: set[str] = set()
    raw: list[str] = []
    files = [p for p in SCAN_DIR.glob("*.json*") if not p.name.startswith("holdout9")]
    files += [p for p in CORPUS_DIR.rglob("*") if p.is_file()]
    assert files
    for p in files:
        content = p.read_text(encoding="utf-8", errors="replace")
        if p.suffix == ".jsonl":
            for line in content.splitlines():
                if line.strip():
                    for s in _strings(json.loads(line)):
                        digests.update((_digest(s), _loose_digest(s)))
        elif p.suffix == ".json":
            for s in _strings(json.loads(content)):
                digests.update((_digest(s), _loose_digest(s)))
        else:
            raw.append(content)
    return digests, raw


def test_no_text_copied_from_other_corpora(rows: list[dict[str, str]]) -> None:
    digests, raw = _other_corpus_texts()
    assert len(digests) > 1000  # the other corpora were actually read
    clashes = [
        r["id"] for r in rows if {_digest(r["text"]), _loose_digest(r["text"])} & digests
    ]
    assert not clashes, f"{len(clashes)} rows equal a text in another corpus: {clashes}"
    embedded = [r["id"] for r in rows if any(r["text"] in content for content in raw)]
    assert not embedded, f"{len(embedded)} rows appear verbatim in tests/corpus files: {embedded}"
