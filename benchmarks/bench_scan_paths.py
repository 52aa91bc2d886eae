"""The built-in scanners by path: the rules alone, the model alone, the default stage one fact per
call (a single ``guard.write``) and over batches of 32 (a ``write_many``); process CPU per KB.

    python benchmarks/bench_scan_paths.py
    PYTHONPATH=/tmp/base python benchmarks/bench_scan_paths.py   # a base revision's memguard

Facts are bench_scanner.py's (~1 KB each): benign ASCII, and with an attack. The load average is
printed with each kind.

Warm-up: every path scans every fact of every kind once before anything is timed (the rule
prefilter builds each rule's matcher the first time a text meets that rule, and the model its
power tables on first use: a warm-up over a few facts left those builds in the timed runs). Then
``MEMGUARD_BENCH_ROUNDS`` rounds (default 3) time each path in turn, and each path prints the
lowest and the highest of its rounds.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scanner import facts  # type: ignore[import-not-found]

import memguard.scan as scan
from memguard.scan.stage import ScanStage
from memguard.trust import SourceKind


def main() -> None:
    ctx = scan.ScanContext(namespace="bench", source=SourceKind.WEB)
    rules, model = scan.builtin_scanners()
    stage = ScanStage([rules, model])
    rounds = int(os.environ.get("MEMGUARD_BENCH_ROUNDS", "3"))

    def batches(texts: list[str]) -> None:
        for i in range(0, len(texts), 32):
            stage.scan_batch([(t, ctx) for t in texts[i : i + 32]])

    paths: list[tuple[str, Callable[[list[str]], object]]] = [
        ("rules", lambda ts: [rules.scan(t, ctx) for t in ts]),
        ("model", lambda ts: [model.scan(t, ctx) for t in ts]),
        ("stage, one fact per call", lambda ts: [stage.scan_batch([(t, ctx)]) for t in ts]),
        ("stage, batches of 32", batches),
    ]
    kinds = {kind: facts(kind, 300, random.Random(17)) for kind in ("benign-ascii", "attack")}
    try:
        for texts in kinds.values():  # every lazy build done before any timing
            for _, fn in paths:
                fn(texts)
        for kind, texts in kinds.items():
            kb = sum(len(t) for t in texts) / 1024
            print(f"{kind} (load {os.getloadavg()[0]:.2f})")
            times: dict[str, list[float]] = {name: [] for name, _ in paths}
            for _ in range(rounds):
                for name, fn in paths:
                    c = time.process_time()
                    fn(texts)
                    times[name].append((time.process_time() - c) / kb * 1e6)
            for name, got in times.items():
                print(f"  {name:28s} {min(got):8.1f} - {max(got):8.1f} us/KB")
    finally:
        stage.close()


if __name__ == "__main__":
    main()
