"""Two checkouts' built-in scanners in one process: same verdicts? which is faster?

    python benchmarks/scanner_ab.py BASE_ROOT [NEW_ROOT] [--rounds 21] [--n 300]

``BASE_ROOT`` and ``NEW_ROOT`` are checkouts (``git worktree add --detach /tmp/base main``;
``NEW_ROOT`` defaults to this one). Each one's ``memguard`` is imported in turn (the module cache
is cleared between them, and each scanner keeps its own modules), then:

1. every verdict (label, score, reasons) and the work it took (``RuleScanner.inspect``: characters
   read, anchored attempts, whole-text searches, truncated, exact, heavy) is compared on the texts
   of :func:`verdict_texts`: every
   row of ``tests/corpus/injections.jsonl``, ``tests/scan/holdout.jsonl`` and
   ``tests/scan/holdout2.jsonl``, rows joined and cut, base64-, hex-, rot13-, URL- and
   escape-encoded (and base64 of hex), split by zero-width characters, spelled in tag characters,
   upper-cased, with a lone surrogate; the script exits 1 on any difference;
2. the benchmark's facts (``bench_scanner.facts``) are scanned by each scanner alternately,
   ``--rounds`` times, and the median process CPU (and wall) microseconds per KB are printed with
   the load average.
"""

from __future__ import annotations

import argparse
import base64
import codecs
import dataclasses
import json
import os
import random
import statistics
import sys
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPORA = [
    ROOT / "tests" / "corpus" / "injections.jsonl",
    ROOT / "tests" / "scan" / "holdout.jsonl",
    ROOT / "tests" / "scan" / "holdout2.jsonl",
]


def _rows() -> list[str]:
    out = []
    for path in CORPORA:
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["text"])
    return out


def verdict_texts() -> list[str]:
    """The texts whose verdicts must not change (about 7,000)."""
    rng = random.Random(2026)
    rows = _rows()
    out = list(rows)
    out += [a + "\n" + b for a, b in zip(rows[::5], rows[2::5], strict=False)]
    out += [a + " " + b for a, b in zip(rows[1::9], rows[4::9], strict=False)]
    out += [t[rng.randrange(len(t)) :] for t in rows[::3]] + [t[: rng.randrange(len(t))] for t in rows[1::3]]
    short = [t for t in rows if len(t) < 400]
    out += ["note: " + base64.b64encode(t.encode()).decode() for t in short[::2]]
    out += ["data " + t.encode().hex(" ") for t in short[1::4]]
    out += [t.encode().hex() for t in short[3::4]]
    out += [base64.b64encode(t.encode().hex().encode()).decode() for t in short[::7]]
    out += [codecs.encode(t, "rot13") for t in rows[::2]]
    out += ["see " + urllib.parse.quote(t) for t in short[1::3]]
    out += ["".join(f"\\x{b:02x}" for b in t.encode()) for t in short[2::9]]
    out += ["\u200b".join(t) for t in short[::6]]
    out += ["\u200d".join(t.split(" ")) for t in rows[3::6]]
    out += ["ok " + "".join(chr(0xE0000 + ord(c)) for c in t if ord(c) < 0x80) for t in short[::5]]
    out += [t.upper() for t in rows]
    out += [t + " \ud800" for t in rows[::11]]
    out += ["\u202e" + t[::-1] + "\u202c" for t in short[4::10]]
    return out


def load(root: Path) -> Any:
    """A ``RuleScanner`` built from the ``memguard`` package of ``root``."""
    for name in [m for m in sys.modules if m == "memguard" or m.startswith("memguard.")]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        from memguard.scan import builtin

        assert Path(builtin.__file__).resolve().is_relative_to(root.resolve()), builtin.__file__
        return builtin.RuleScanner()
    finally:
        sys.path.remove(str(root))


def _key(verdict: Any) -> tuple[str, float, tuple[str, ...]]:
    return (str(verdict.label), verdict.score, tuple(verdict.reasons))


def _inspected(scanner: Any, text: str) -> tuple[Any, ...]:
    """The verdict's key and the work counts (:class:`Work`: chars, attempts, searches, truncated,
    ...) of ``scanner.inspect(text)``: equal counts mean the budgets were spent alike."""
    verdict, work = scanner.inspect(text)
    return (*_key(verdict), dataclasses.astuple(work))


def compare(scanners: dict[str, Any], texts: list[str]) -> int:
    (a_name, a), (b_name, b) = scanners.items()
    wrong = 0
    for text in texts:
        va, vb = _inspected(a, text), _inspected(b, text)
        if va != vb:
            wrong += 1
            if wrong <= 5:
                print(f"DIFFERENT {text[:80]!r}\n  {a_name}: {va}\n  {b_name}: {vb}")
    flagged = sum(_key(b.scan(t))[0] != "clean" for t in texts)
    print(f"verdicts and work counts compared: {len(texts)} texts, {wrong} different ({flagged} flagged)")
    return wrong


def timed(scan: Callable[[str], Any], texts: list[str], kb: float) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for t in texts:
        scan(t)
    return (time.perf_counter() - wall) / kb * 1e6, (time.process_time() - cpu) / kb * 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path, nargs="?", default=ROOT)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--no-compare", action="store_true")
    args = parser.parse_args()
    scanners = {"base": load(args.base), "new": load(args.new)}
    sys.path.insert(0, str(HERE))
    from bench_scanner import facts

    if not args.no_compare and compare(scanners, verdict_texts()):
        return 1
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rng = random.Random(7)
    for label in ("benign-ascii", "benign", "attack"):
        texts = facts(label, args.n, rng)
        kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
        cpu: dict[str, list[float]] = {name: [] for name in scanners}
        wall: dict[str, list[float]] = {name: [] for name in scanners}
        for s in scanners.values():
            timed(s.scan, texts[:50], kb)  # warm up
        for _ in range(args.rounds):
            for name, s in scanners.items():
                w, c = timed(s.scan, texts, kb)
                cpu[name].append(c)
                wall[name].append(w)
        med = {name: statistics.median(v) for name, v in cpu.items()}
        print(f"{label:12s} cpu us/KB (median of {args.rounds}): base {med['base']:6.1f}  new {med['new']:6.1f}  "
              f"ratio {med['new'] / med['base']:.2f}   wall base {statistics.median(wall['base']):6.1f}  "
              f"new {statistics.median(wall['new']):6.1f}")  # fmt: skip
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
