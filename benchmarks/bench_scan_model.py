"""The trained scanner's cost next to the rules': process-CPU microseconds per 1 KB fact.

    python benchmarks/bench_scan_model.py            # 1,000 facts per kind, 5 alternating rounds
    MEMGUARD_BENCH_N=3000 MEMGUARD_BENCH_ROUNDS=7 python benchmarks/bench_scan_model.py

The facts are bench_scanner.py's (~1 KB of trigger-word-dense benign memories; "attack" ends in
one attack row). Each round times the rules, then the model, then both (as one stage runs them:
one after the other) over the same facts, so load changes hit all three alike; printed are the
median per kind over the rounds and the model's cost as a share of the rules'.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scanner import facts

from memguard.scan import ModelScanner, RuleScanner, ScanContext
from memguard.trust import SourceKind

CTX = ScanContext(namespace="bench", source=SourceKind.WEB)


def cpu_per_kb(fn: Callable[[str], object], texts: list[str], kb: float) -> float:
    start = time.process_time()
    for t in texts:
        fn(t)
    return (time.process_time() - start) / kb * 1e6


def main() -> None:
    n = int(os.environ.get("MEMGUARD_BENCH_N", "1000"))
    rounds = int(os.environ.get("MEMGUARD_BENCH_ROUNDS", "5"))
    rules, model = RuleScanner(), ModelScanner()
    start = time.process_time()
    ModelScanner()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (start)")
    print(f"loading the weights: {(time.process_time() - start) * 1e3:.1f} ms cpu ({model.version})")
    rng = random.Random(7)

    def both(t: str) -> None:
        rules.scan(t, CTX)
        model.scan(t, CTX)

    for label in ("benign-ascii", "benign", "attack"):
        texts = facts(label, n, rng)
        kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
        for t in texts[:50]:  # warm up
            both(t)
        runs: dict[str, list[float]] = {"rules": [], "model": [], "both": []}
        for _ in range(rounds):
            runs["rules"].append(cpu_per_kb(lambda t: rules.scan(t, CTX), texts, kb))
            runs["model"].append(cpu_per_kb(lambda t: model.scan(t, CTX), texts, kb))
            runs["both"].append(cpu_per_kb(both, texts, kb))
        med = {k: statistics.median(v) for k, v in runs.items()}
        ratio = statistics.median(m / r for m, r in zip(runs["model"], runs["rules"], strict=True))
        print(f"{label:12s} n={n} rounds={rounds}  rules {med['rules']:6.1f}  model {med['model']:6.1f}"
              f"  both {med['both']:6.1f} us/KB cpu  model/rules {ratio:.2f}")  # fmt: skip
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (end)")


if __name__ == "__main__":
    main()
