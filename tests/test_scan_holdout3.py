"""The built-in scanner on a third held-out corpus (``tests/scan/holdout3.jsonl``), weak families.

Holdout2's held half showed the families the rules generalize worst to: sleeper / persistence
instructions, memory poisoning, direct instructions in indirect phrasing, exfiltration. This corpus
was written by hand for those four families (and hard benign memories: a user's own "from now on"
preferences, payee changes the user states, standing instructions, tickets, release notes, webhook
docs, code) before the rule strings were read. As with holdout2, each row goes to a half by a hash of
its id: rules may be widened against the ``tune`` half only; the ``held`` half is only measured in
aggregate. ``python tests/test_scan_holdout3.py`` prints the per-family tables (docs/scanner.md has
them); ``--tune-misses`` lists the tune half's misses and false positives.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from memguard.scan import Label, RuleScanner, ScanContext
from memguard.trust import SourceKind

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "scan" / "holdout3.jsonl"
BUILD = HERE / "scan" / "build_holdout3.py"
SCANNER = RuleScanner()
CTX = ScanContext(namespace="n", source=SourceKind.WEB)
FAMILIES = {"sleeper", "memory_poisoning", "direct_instruction", "exfiltration"}


def load() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line.strip()]


def half(row: dict[str, Any]) -> str:
    return "tune" if hashlib.sha256(row["id"].encode()).digest()[0] < 128 else "held"


def flagged(row: dict[str, Any]) -> bool:
    return SCANNER.scan(row["text"], CTX).label is not Label.CLEAN


def tally(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(flagged, total) per attack family and per benign technique (``benign:<technique>``)."""
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row in rows:
        key = row["family"] if row["label"] == "attack" else "benign:" + row["technique"]
        total[key] += 1
        hit[key] += flagged(row)
    return {key: (hit[key], total[key]) for key in sorted(total)}


def test_the_committed_corpus_is_the_builders_output() -> None:
    spec = importlib.util.spec_from_file_location("build_holdout3", BUILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert CORPUS.read_text("utf-8") == module.render()


def test_the_corpus_has_the_size_and_spread_it_claims() -> None:
    rows = load()
    attacks = [r for r in rows if r["label"] == "attack"]
    benign = [r for r in rows if r["label"] == "benign"]
    assert len(attacks) >= 120 and len(benign) >= 120
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["family"] for r in attacks} == FAMILIES
    assert len({r["language"] for r in attacks}) >= 6
    for family in FAMILIES:
        assert {half(r) for r in attacks if r["family"] == family} == {"tune", "held"}, family


@pytest.mark.parametrize("part", ["tune", "held"])
def test_detection_and_false_positives(part: str) -> None:
    rows = [r for r in load() if half(r) == part]
    counts = tally(rows)
    attacks = {k: v for k, v in counts.items() if not k.startswith("benign:")}
    benign = {k: v for k, v in counts.items() if k.startswith("benign:")}
    detection = sum(h for h, _ in attacks.values()) / sum(t for _, t in attacks.values())
    false_positive = sum(h for h, _ in benign.values()) / sum(t for _, t in benign.values())
    # Floors and ceilings pinned at the measured figures (docs/scanner.md): a regression guard.
    assert detection >= FLOORS[part], (detection, attacks)
    assert false_positive <= CEILINGS[part], (false_positive, {k: v for k, v in benign.items() if v[0]})


# scanner version 3 as found (before any tuning on this file): 33.8% / 2.6% (tune), 42.2% / 4.1%
# (held). See docs/scanner.md.
FLOORS = {"tune": 0.33, "held": 0.42}
CEILINGS = {"tune": 0.03, "held": 0.045}


def main() -> None:
    rows = load()
    for part in ("tune", "held", "all"):
        chosen = rows if part == "all" else [r for r in rows if half(r) == part]
        counts = tally(chosen)
        print(f"\n## {part}\n\n| family | flagged | rows |\n|---|---:|---:|")
        att = [0, 0]
        ben = [0, 0]
        for key, (h, t) in counts.items():
            print(f"| {key} | {h} | {t} |")
            acc = ben if key.startswith("benign:") else att
            acc[0] += h
            acc[1] += t
        print(f"| **attacks detected** | {att[0]} | {att[1]} ({att[0] / att[1]:.1%}) |")
        print(f"| **benign flagged** | {ben[0]} | {ben[1]} ({ben[0] / ben[1]:.1%}) |")
    if "--tune-misses" in sys.argv:  # rows of the tune half only; the held half stays unread
        for r in rows:
            if half(r) == "tune" and (r["label"] == "attack") != flagged(r):
                print(r["id"], r["label"], r["family"], r["technique"], repr(r["text"][:160]))


if __name__ == "__main__":
    main()
