"""The trained scanner's cost next to the rules': process-CPU microseconds per 1 KB fact.

    python benchmarks/bench_scan_model.py            # 1,000 facts per kind, 5 alternating rounds
    MEMGUARD_BENCH_N=3000 MEMGUARD_BENCH_ROUNDS=7 python benchmarks/bench_scan_model.py

The facts are bench_scanner.py's (~1 KB of trigger-word-dense benign memories; "attack" ends in
one attack row). Each round times the rules alone, the model alone, and the two stages a
deployment would run (``ScanStage(RuleScanner())`` and ``ScanStage(builtin_scanners())``, batches
of 32 facts) over the same facts, so load changes hit all four alike; printed are the medians
over the rounds, the model's cost as a share of the rules' and the two-scanner stage's cost as a
share of the rules-only stage's (process CPU: the stage's worker thread is in the process). Then
one 8 KB, 64 KB and 1 MB text (the benign facts joined), rules and model alone: the model reads a
long text in windows, at most 512 of them over at most 64 Ki characters.
"""

from __future__ import annotations

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

from memguard.scan import ModelScanner, RuleScanner, ScanContext, builtin_scanners
from memguard.scan.stage import ScanStage
from memguard.trust import SourceKind

CTX = ScanContext(namespace="bench", source=SourceKind.WEB)


def cpu_per_kb(fn: Callable[[Any], object], texts: list[Any], kb: float) -> float:
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
    print(
        f"loading the weights: {(time.process_time() - start) * 1e3:.1f} ms cpu ({model.version})"
    )
    rng = random.Random(7)

    stages = {"stage": ScanStage(RuleScanner()), "stage+model": ScanStage(builtin_scanners())}

    def staged(name: str) -> Callable[[list[str]], object]:
        return lambda batch: stages[name].scan_batch([(t, CTX) for t in batch])

    for label in ("benign-ascii", "benign", "attack"):
        texts = facts(label, n, rng)
        kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
        batches = [texts[i : i + 32] for i in range(0, len(texts), 32)]
        for name in stages:  # warm up
            staged(name)(texts[:50])
        runs: dict[str, list[float]] = {"rules": [], "model": [], "stage": [], "stage+model": []}
        for _ in range(rounds):
            runs["rules"].append(cpu_per_kb(lambda t: rules.scan(t, CTX), texts, kb))
            runs["model"].append(cpu_per_kb(lambda t: model.scan(t, CTX), texts, kb))
            for name in stages:
                runs[name].append(cpu_per_kb(staged(name), batches, kb))
        med = {k: statistics.median(v) for k, v in runs.items()}
        ratio = statistics.median(m / r for m, r in zip(runs["model"], runs["rules"], strict=True))
        both = statistics.median(
            m / r for m, r in zip(runs["stage+model"], runs["stage"], strict=True)
        )
        print(f"{label:12s} n={n} rounds={rounds}  rules {med['rules']:6.1f}  model {med['model']:6.1f}"
              f"  stage {med['stage']:6.1f}  stage+model {med['stage+model']:6.1f} us/KB cpu"
              f"  model/rules {ratio:.2f}  stage+model/stage {both:.2f}")  # fmt: skip
    # long texts: the model scores them in windows (bounded: at most 512, 64 Ki characters read)
    para = " ".join(facts("benign-ascii", 200, rng))
    for size in (8 << 10, 64 << 10, 1 << 20):
        text = (para * (size // len(para) + 1))[:size]
        count = max(1, (256 << 10) // size)
        texts = [text] * count
        kb = size * count / 1024
        long_runs: dict[str, list[float]] = {"rules": [], "model": []}
        for _ in range(rounds):
            long_runs["rules"].append(cpu_per_kb(lambda t: rules.scan(t, CTX), texts, kb))
            long_runs["model"].append(cpu_per_kb(lambda t: model.scan(t, CTX), texts, kb))
        windows = len(model.window_probabilities(text))
        print(f"{size >> 10:6d} KB text x{count:<3d} rounds={rounds}  rules {statistics.median(long_runs['rules']):7.1f}"
              f"  model {statistics.median(long_runs['model']):7.1f} us/KB cpu  ({windows} windows)")  # fmt: skip
    for stage in stages.values():
        stage.close()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (end)")


if __name__ == "__main__":
    main()
