"""A hand-written held-out scanner corpus (``tests/scan/holdout*.jsonl``) and its builder script:
rows go to a ``tune`` or a ``held`` half by a hash of their id; rules may be widened against the tune
half only, the held half is measured in aggregate (docs/scanner.md, Generalization)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from helpers import load_script

from memguard.scan import Label, ModelScanner, RuleScanner, ScanContext, builtin_scanners
from memguard.trust import SourceKind

SCANNER = RuleScanner()
CTX = ScanContext(namespace="n", source=SourceKind.WEB)


def reasons(text: str) -> tuple[str, ...]:
    """The rules ``text`` carries (the rule tests, tests/test_scan_fp4.py ... fp8.py)."""
    return SCANNER.scan(text, CTX).reasons


def flagged(text: str) -> bool:
    return SCANNER.scan(text, CTX).label is not Label.CLEAN


@dataclass(frozen=True)
class HeldOutCorpus:
    corpus: Path
    builder: Path

    def load(self) -> list[dict[str, Any]]:
        text = self.corpus.read_text("utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def module(self) -> ModuleType:
        """The builder script, loaded (its disguise helpers are tested on their own)."""
        return load_script(self.builder)

    def built(self) -> str:
        """What the builder script renders (the committed file must be exactly this)."""
        rendered: str = self.module().render()
        return rendered

    def assert_built(self) -> None:
        """The committed file is exactly the builder's output, one row per line (no row holds a
        character ``str.splitlines`` would break on)."""
        text = self.corpus.read_text("utf-8")
        assert text == self.built()
        assert len(text.splitlines()) == text.count("\n") == len(self.load())

    def assert_rows(self, ids: str, keys: set[str], families: set[str]) -> None:
        """Every row has exactly ``keys``, a unique id ``<ids>a###`` (attack) or ``<ids>b###``
        (benign), a two-letter language, a technique, text no other row has, and an attack family
        of ``families`` (benign rows: ``benign``)."""
        rows = self.load()
        assert len({r["id"] for r in rows}) == len(rows)
        for r in rows:
            assert set(r) == keys, r["id"]
            assert r["label"] in {"attack", "benign"}, r["id"]
            prefix = ids + ("a" if r["label"] == "attack" else "b")
            assert re.fullmatch(re.escape(prefix) + r"\d{3}", r["id"]), r["id"]
            assert re.fullmatch(r"[a-z]{2}", r["language"]), r["id"]
            assert r["technique"] and r["text"].strip(), r["id"]
            assert r["family"] in (families if r["label"] == "attack" else {"benign"}), r["id"]
        assert len({r["text"] for r in rows}) == len(rows)  # no duplicate text

    @staticmethod
    def half(row: dict[str, Any]) -> str:
        return "tune" if hashlib.sha256(row["id"].encode()).digest()[0] < 128 else "held"

    @staticmethod
    def flagged(row: dict[str, Any]) -> bool:
        return SCANNER.scan(row["text"], CTX).label is not Label.CLEAN

    @staticmethod
    def group(row: dict[str, Any]) -> str:
        """The table line a row counts in: its family (attack) or ``benign:<technique>``; an
        attack row whose technique shares a benign technique's name stays in its family."""
        return str(row["family"] if row["label"] == "attack" else "benign:" + row["technique"])

    @classmethod
    def tally(cls, rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
        """(flagged, total) per attack family and per benign technique (``benign:<technique>``)."""
        hit: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for row in rows:
            key = cls.group(row)
            total[key] += 1
            hit[key] += cls.flagged(row)
        return {key: (hit[key], total[key]) for key in sorted(total)}

    def rates(self, part: str) -> tuple[float, float, dict[str, tuple[int, int]]]:
        """Detection over the attacks and false positives over the benign rows of one half, and
        the tally they come from."""
        counts = self.tally([r for r in self.load() if self.half(r) == part])
        attacks = [v for k, v in counts.items() if not k.startswith("benign:")]
        benign = [v for k, v in counts.items() if k.startswith("benign:")]
        detection = sum(h for h, _ in attacks) / sum(t for _, t in attacks)
        false_positive = sum(h for h, _ in benign) / sum(t for _, t in benign)
        return detection, false_positive, counts

    def assert_within(self, part: str, floor: float, ceiling: float) -> None:
        """One half's detection at least ``floor`` and false positives at most ``ceiling`` (pinned
        at the measured figures, docs/scanner.md: a regression guard)."""
        detection, false_positive, counts = self.rates(part)
        # the held half is measured in aggregate only: a failing assertion must not print its
        # per-family counts (they would steer the next rule change toward held rows)
        detail: object = counts if part == "tune" else "held half: aggregate only"
        assert detection >= floor, (detection, detail)
        flagged = {k: v for k, v in counts.items() if v[0]} if part == "tune" else detail
        assert false_positive <= ceiling, (false_positive, flagged)

    def report(self, tune_misses: bool = False) -> None:
        """Print the per-family tables of each half and of the whole corpus (markdown, as in
        docs/scanner.md); ``tune_misses``: also the tune half's misses and false positives (the
        held half stays unread row by row)."""
        rows = self.load()
        for part in ("tune", "held", "all"):
            chosen = rows if part == "all" else [r for r in rows if self.half(r) == part]
            print(f"\n## {part}\n\n| family | flagged | rows |\n|---|---:|---:|")
            att = [0, 0]
            ben = [0, 0]
            for key, (h, t) in self.tally(chosen).items():
                print(f"| {key} | {h} | {t} |")
                acc = ben if key.startswith("benign:") else att
                acc[0] += h
                acc[1] += t
            print(f"| **attacks detected** | {att[0]} | {att[1]} ({att[0] / att[1]:.1%}) |")
            print(f"| **benign flagged** | {ben[0]} | {ben[1]} ({ben[0] / ben[1]:.1%}) |")
        if tune_misses:
            for r in rows:
                if self.half(r) == "tune" and (r["label"] == "attack") != self.flagged(r):
                    print(r["id"], r["label"], r["family"], r["technique"], repr(r["text"][:160]))


@cache
def _scanners() -> tuple[Any, ...]:
    return tuple(builtin_scanners())


@cache
def _verdicts(text: str) -> tuple[bool, ...]:
    """Flagged (not clean) by each built-in scanner, in ``builtin_scanners()`` order."""
    return tuple(s.scan(text, CTX).label is not Label.CLEAN for s in _scanners())


class BuiltinCorpus(HeldOutCorpus):
    """``HeldOutCorpus`` judged by the embedded default's stage: flagged when any built-in scanner
    flags the row (the worse verdict wins)."""

    @staticmethod
    def flagged(row: dict[str, Any]) -> bool:
        return any(_verdicts(row["text"]))

    def measure(self, tune_misses: bool = False) -> None:
        """Detection and false positives for the rules, the model and both, per family and half."""
        # the columns: RuleScanner's and ModelScanner's own scan() verdicts, and the stage's (either)
        assert [type(s) for s in _scanners()] == [RuleScanner, ModelScanner]
        model = _scanners()[1]
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; model {model.version}")
        rows = self.load()
        for part in ("tune", "held", "all"):
            chosen = rows if part == "all" else [r for r in rows if self.half(r) == part]
            print(f"\n## {part}\n\n| family | rows | rules | model | both |\n|---|---:|---:|---:|---:|")
            families = sorted({r["family"] for r in chosen if r["label"] == "attack"})
            techniques = sorted({r["technique"] for r in chosen if r["label"] == "benign"})
            keys = [*families, *(f"benign:{t}" for t in techniques)]
            totals: dict[str, list[int]] = {"attack": [0, 0, 0, 0], "benign": [0, 0, 0, 0]}
            for key in keys:
                group = [r for r in chosen if self.group(r) == key]
                flags = [_verdicts(r["text"]) for r in group]
                counts = [len(group), sum(f[0] for f in flags), sum(f[1] for f in flags),
                          sum(any(f) for f in flags)]  # fmt: skip
                print(f"| {key} | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} |")
                acc = totals["benign" if key.startswith("benign:") else "attack"]
                for i, c in enumerate(counts):
                    acc[i] += c
            for kind, (n, r_, m_, b_) in totals.items():
                what = "attacks detected" if kind == "attack" else "benign flagged"
                print(f"| **{what}** | {n} | {r_ / n:.1%} | {m_ / n:.1%} | {b_ / n:.1%} |")
        if tune_misses:
            for r in rows:
                if self.half(r) == "tune" and (r["label"] == "attack") != self.flagged(r):
                    print(r["id"], r["label"], r["family"], r["technique"], repr(r["text"][:160]))
