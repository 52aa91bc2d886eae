"""Paired A/B of the scan stage with the trained model, base revision (A) against this tree (B).

    git worktree add --detach /tmp/base <rev>        # or: git archive <rev> memguard/scan | tar -x -C /tmp/base
    python benchmarks/bench_scan_stage_ab.py /tmp/base
    MEMGUARD_BENCH_N=512 MEMGUARD_BENCH_ROUNDS=6 python benchmarks/bench_scan_stage_ab.py /tmp/base

The base revision's ``memguard/scan/features.py``, ``model.py`` (and ``logits.py``, ``stage.py``
when it has them) are loaded under other module names (bench_scan_model_ab.py), so both stages run
in one process over the same facts: the rules (this tree's, the same object in both) and the
model, ``ScanStage([RuleScanner(), ModelScanner()])`` as the embedded default builds it. Facts are
bench_scanner.py's (~1 KB; "benign" is mostly non-ASCII). Per kind and round, alternating A-B and
B-A: the model alone, one ``scan`` per fact; the stage over batches of 32 facts; the stage over
batches of 64 (what one ``write_many`` of 64 facts costs in its scan stage); "model/32" is the model
alone over batches of 32 (``scan_many`` where the revision has it, else ``scan`` of each). Printed: medians over
the rounds of process CPU (the stage's worker thread is in the process), the median of the
per-round B/A ratios, and the load average when each line was measured.
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

from bench_scan_model_ab import _load, base_scanner
from bench_scanner import facts

from memguard.scan import ModelScanner, RuleScanner, ScanContext
from memguard.scan.stage import ScanStage
from memguard.trust import SourceKind

CTX = ScanContext(namespace="bench", source=SourceKind.WEB)


def _load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _many(model: Any, items: list[tuple[str, ScanContext]]) -> object:
    """The model over a batch: ``scan_many`` where the revision has it, else ``scan`` of each."""
    many = getattr(model, "scan_many", None)
    return many(items) if many is not None else [model.scan(t, c) for t, c in items]


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    base = Path(sys.argv[1])
    rules = RuleScanner()
    model_a, model_b = base_scanner(base), ModelScanner()
    stage_module = _load("_base_stage", base / "memguard" / "scan" / "stage.py")
    stages = {
        "A": stage_module.ScanStage([rules, model_a]),
        "B": ScanStage([rules, model_b]),
    }
    models = {"A": model_a, "B": model_b}
    n = int(os.environ.get("MEMGUARD_BENCH_N", "512"))
    rounds = int(os.environ.get("MEMGUARD_BENCH_ROUNDS", "6"))
    rng = random.Random(7)
    print(f"load average {_load_avg()} (start)  A {model_a.version}  B {model_b.version}")
    for kind in ("benign-ascii", "benign", "attack"):
        texts = facts(kind, n, rng)
        kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
        items = [(t, CTX) for t in texts]
        by32 = [items[i : i + 32] for i in range(0, len(items), 32)]
        by64 = [items[i : i + 64] for i in range(0, len(items), 64)]
        for who in "AB":  # warm up; the verdicts must agree
            stages[who].scan_batch(by32[0])
        assert stages["A"].scan_batch(by64[0]) == stages["B"].scan_batch(by64[0])
        runs: dict[str, dict[str, list[float]]] = {
            m: {"A": [], "B": []} for m in ("model", "model/32", "stage/32", "stage/64")
        }

        for r in range(rounds):
            for who in ("A", "B") if r % 2 == 0 else ("B", "A"):
                model, stage = models[who], stages[who]
                cpu = _cpu(lambda: [model.scan(t, CTX) for t in texts])  # noqa: B023
                runs["model"][who].append(cpu / kb * 1e6)
                cpu = _cpu(lambda: [_many(model, b) for b in by32])  # noqa: B023
                runs["model/32"][who].append(cpu / kb * 1e6)
                cpu = _cpu(lambda: [stage.scan_batch(b) for b in by32])  # noqa: B023
                runs["stage/32"][who].append(cpu / kb * 1e6)
                cpu = _cpu(lambda: [stage.scan_batch(b) for b in by64])  # noqa: B023
                runs["stage/64"][who].append(cpu / len(by64) * 1e3)
        for name, unit in (
            ("model", "us/KB"),
            ("model/32", "us/KB"),
            ("stage/32", "us/KB"),
            ("stage/64", "ms/batch"),
        ):
            a, b = runs[name]["A"], runs[name]["B"]
            ratio = statistics.median(y / x for x, y in zip(a, b, strict=True))
            print(f"{kind:12s} {name:9s} A {statistics.median(a):7.2f}  B {statistics.median(b):7.2f}"
                  f" {unit:8s} cpu  B/A {ratio:.2f}  (n={n} rounds={rounds}, load {_load_avg()})")  # fmt: skip
    for stage in stages.values():
        stage.close()
    print(f"load average {_load_avg()} (end)")


if __name__ == "__main__":
    main()
