"""Where a 1 KB fact's scan time goes, stage by stage: process-CPU microseconds per KB.

    python benchmarks/scanner_stages.py            # 500 facts per kind, median of 7 rounds
    python benchmarks/scanner_stages.py --n 1000 --rounds 9

On ``bench_scanner.py``'s facts (benign ASCII, benign in 14 languages, one attack at the end), each
row is timed alone over the same facts, the rows of one round back to back (so a change of load
hits them alike), and the median over the rounds is printed with the load average:

- ``rules``: ``RuleScanner.scan``, the whole built-in rule scan;
- ``lower``: lower-casing the text (what the matcher reads);
- ``pass``: the Aho-Corasick pass alone (the automaton's hits, nothing done with them);
- ``loop``: the matcher with every regular expression replaced by one that never matches (the
  pass plus the Python work per hit, anchor, candidate and window check; on benign facts, where
  every attempt fails, the same path as the real one);
- ``match``: the matcher (``RuleSet.matching``): ``match - loop`` is the anchored attempts' regex
  time;
- ``decode``, ``unicode``, ``mentions``: the decoders' gates and decodings, the invisible-Unicode
  checks with the rule pass over what they reveal, the quoted-mention check (only texts that hold
  a hit and a quote);
- ``model``: ``ModelScanner.scan``; ``stage/1`` and ``stage/32``: the default stage
  (``ScanStage(builtin_scanners())``) given one fact per call (one write) and 32 (a batch): the
  difference to ``rules + model`` is the stage's hand-over to its worker thread and its records.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scanner import facts

from memguard.scan import ScanContext, builtin_scanners, rulecache
from memguard.scan.builtin import PATTERNS, RULES, RuleScanner, rule_set
from memguard.scan.match import RuleSet, Work, plan
from memguard.scan.stage import ScanStage
from memguard.trust import SourceKind

CTX = ScanContext(namespace="bench", source=SourceKind.WEB)


class _Never:
    """A compiled pattern's ``match``/``search`` that never match (the matcher's loop alone)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def match(self, text: str, pos: int) -> None:
        return None

    def search(self, text: str, start: int = 0, end: int = 0) -> None:
        return None


def _loop_only() -> RuleSet:
    made = plan(PATTERNS)
    real = rulecache.compiled
    rulecache.compiled = lambda source, entry: _Never(source)  # type: ignore[assignment,return-value]
    try:
        return RuleSet(PATTERNS, tables=made)
    finally:
        rulecache.compiled = real


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(label: str, texts: list[str], rounds: int, stage: ScanStage, never: RuleSet) -> None:
    """Print the rows of the module doc for ``texts``."""
    rules = stage.scanners[0]
    model = stage.scanners[1]
    assert isinstance(rules, RuleScanner)
    matcher = rule_set()
    lowered = [t.lower() for t in texts]
    kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
    matched = [matcher.matching(t, Work()) for t in lowered]
    hits = [{RULES[i].id: RULES[i].weight for i in m if i < len(RULES)} for m in matched]
    quoted = [(t, h) for t, h in zip(texts, hits, strict=True) if h and ('"' in t or "\u201c" in t)]
    wide = [(t, h) for t, h in zip(texts, hits, strict=True) if not t.isascii()]

    def automaton(t: str) -> Any:
        return (matcher._ascii_automaton if t.isascii() else matcher._automaton).iter(t)

    rows: dict[str, Callable[[], object]] = {
        "rules": lambda: [rules.scan(t, CTX) for t in texts],
        "lower": lambda: [t.lower() for t in texts],
        "pass": lambda: [sum(1 for _ in automaton(t)) for t in lowered],
        "loop": lambda: [never.matching(t, Work()) for t in lowered],
        "match": lambda: [matcher.matching(t, Work()) for t in lowered],
        "decode": lambda: [
            rules._decoded(t, m, Work()) for t, m in zip(texts, matched, strict=True)
        ],
        "unicode": lambda: [rules._unicode(t, dict(h), Work()) for t, h in wide],
        "mentions": lambda: [rules._mentions(t, dict(h), Work()) for t, h in quoted],
        "model": lambda: [model.scan(t, CTX) for t in texts],
        "stage/1": lambda: [stage.scan_batch([(t, CTX)]) for t in texts],
        "stage/32": lambda: [
            stage.scan_batch([(t, CTX) for t in texts[i : i + 32]])
            for i in range(0, len(texts), 32)
        ],
    }
    for run in rows.values():  # warm up
        run()
    cpu: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(rounds):
        for name, run in rows.items():
            start = time.process_time()
            run()
            cpu[name].append((time.process_time() - start) / kb * 1e6)
    med = {name: statistics.median(v) for name, v in cpu.items()}
    print(f"{label:12s} " + "  ".join(f"{name} {value:.1f}" for name, value in med.items()))
    print(f"{'':12s} regex attempts (match - loop) {med['match'] - med['loop']:.1f}, loop less pass "
          f"{med['loop'] - med['pass']:.1f}, stage/1 less rules+model "
          f"{med['stage/1'] - med['rules'] - med['model']:.1f} us/KB  (load {_load()})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"load average {_load()}")
    stage = ScanStage(builtin_scanners())
    never = _loop_only()
    rng = random.Random(7)
    for label in ("benign-ascii", "benign", "attack"):
        measure(label, facts(label, args.n, rng), args.rounds, stage, never)
    stage.close()


if __name__ == "__main__":
    main()
