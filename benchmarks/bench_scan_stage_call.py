"""Paired A/B of the scan stage's per-call cost, base revision (A) against this tree (B) (issue 17,
inlinescan).

    git worktree add --detach /tmp/base <rev>
    python benchmarks/bench_scan_stage_call.py /tmp/base
    MEMGUARD_BENCH_N=300 MEMGUARD_BENCH_ROUNDS=6 MEMGUARD_BENCH_WRITES=200 python benchmarks/bench_scan_stage_call.py /tmp/base

The base revision's ``memguard/scan/stage.py`` is loaded under another module name, so both stages
run in one process over the same scanner objects (this tree's ``builtin_scanners()``: the rules
and the trained model) and the same facts (bench_scanner.py's, ~1 KB). Per kind and round,
alternating A-B and B-A: "stage1" is one ``scan_batch`` per fact (what a single ``guard.write``
pays), "stage32" the stage over batches of 32; "rules" and "model" are the scanners alone, one
``scan`` per fact, for reference (the same code in A and B); last, one ``guard.write`` per fact
on the default ``open_embedded`` build with either stage. Printed: medians over the rounds of
process CPU per KB of text (worker threads are in the process) and of wall time per KB, the median
of the per-round B/A ratios, and the load average when each line was measured.
"""

from __future__ import annotations

import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scanner import facts
from benchutil import quiet_logs

from memguard import Source, Turn
from memguard.embedded import open_embedded
from memguard.scan import ScanContext, builtin_scanners
from memguard.scan.stage import ScanStage
from memguard.trust import SourceKind

CTX = ScanContext(namespace="bench", source=SourceKind.WEB)


def base_stage_class(base: Path) -> Any:
    """The base revision's ``ScanStage`` (its stage.py loaded as ``memguard_base_stage``)."""
    spec = importlib.util.spec_from_file_location(
        "memguard_base_stage", base / "memguard" / "scan" / "stage.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.ScanStage


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def measure(
    fn: Callable[[str], object], texts: list[str], batch: int | None
) -> tuple[float, float]:
    """(process CPU, wall) in us per KB of ``texts``."""
    kb = sum(len(t) for t in texts) / 1024
    calls: list[Callable[[], object]]
    if batch is None:
        calls = [lambda t=t: fn(t) for t in texts]  # type: ignore[misc]
    else:
        calls = [lambda i=i: fn(texts[i : i + batch]) for i in range(0, len(texts), batch)]  # type: ignore[misc]
    for call in calls[:5]:
        call()
    c, w = time.process_time(), time.perf_counter()
    for call in calls:
        call()
    return (time.process_time() - c) / kb * 1e6, (time.perf_counter() - w) / kb * 1e6


def caller(stage: Any, batch: int | None) -> Callable[[Any], object]:
    """``stage.scan_batch`` of one text (``batch`` None) or of a list of texts."""
    if batch is None:
        return lambda t: stage.scan_batch([(t, CTX)])
    return lambda ts: stage.scan_batch([(t, CTX) for t in ts])


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    n = int(os.environ.get("MEMGUARD_BENCH_N", "300"))
    rounds = int(os.environ.get("MEMGUARD_BENCH_ROUNDS", "6"))
    scanners = builtin_scanners()
    rules, model = scanners
    base_cls = base_stage_class(Path(sys.argv[1]))
    stages = {"A": base_cls(scanners), "B": ScanStage(scanners)}
    print(
        f"n={n} rounds={rounds}; us per KB (process CPU / wall); B/A = median of per-round ratios"
    )
    for kind in ("benign-ascii", "attack"):
        texts = facts(kind, n, random.Random(17))
        cpu: dict[str, list[float]] = {}
        wall: dict[str, list[float]] = {}
        for r in range(rounds):
            for name, fn, batch in [
                ("rules", lambda t: rules.scan(t, CTX), None),
                ("model", lambda t: model.scan(t, CTX), None),
            ]:
                c, w = measure(fn, texts, batch)
                cpu.setdefault(name, []).append(c)
                wall.setdefault(name, []).append(w)
            for mode, batch in (("stage1", None), ("stage32", 32)):
                for side in "AB" if r % 2 == 0 else "BA":
                    c, w = measure(caller(stages[side], batch), texts, batch)
                    cpu.setdefault(f"{mode} {side}", []).append(c)
                    wall.setdefault(f"{mode} {side}", []).append(w)
        for name in ("rules", "model"):
            print(f"{kind:13} {name:8} cpu {statistics.median(cpu[name]):7.1f}  "
                  f"wall {statistics.median(wall[name]):7.1f}   load {loadavg()}")  # fmt: skip
        for mode in ("stage1", "stage32"):
            a, b = cpu[f"{mode} A"], cpu[f"{mode} B"]
            wa, wb = wall[f"{mode} A"], wall[f"{mode} B"]
            ratio = statistics.median(y / x for x, y in zip(a, b, strict=True))
            wratio = statistics.median(y / x for x, y in zip(wa, wb, strict=True))
            print(f"{kind:13} {mode:8} cpu A {statistics.median(a):7.1f} B {statistics.median(b):7.1f} "
                  f"B/A {ratio:5.2f}  wall A {statistics.median(wa):7.1f} B {statistics.median(wb):7.1f} "
                  f"B/A {wratio:5.2f}   load {loadavg()}")  # fmt: skip
    for stage in stages.values():
        stage.close()
    single_writes(base_cls, scanners, int(os.environ.get("MEMGUARD_BENCH_WRITES", "200")), rounds)


def single_writes(base_cls: Any, scanners: list[Any], n: int, rounds: int) -> None:
    """One ``guard.write`` per fact on the default ``open_embedded`` build, its scan stage the base
    revision's (A) or this tree's (B) over the same scanner objects, alternating A-B and B-A."""
    texts = facts("benign-ascii", n, random.Random(29))
    cpu: dict[str, list[float]] = {"A": [], "B": []}
    wall: dict[str, list[float]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as tmp, quiet_logs():
        stack = open_embedded(Path(tmp) / "state")
        try:
            alice = stack.guard.authenticate(stack.tokens.issue("alice", ttl=3600))
            stages = {"A": base_cls(scanners), "B": ScanStage(scanners)}
            source = Source(kind=SourceKind.WEB, name="bench")
            written = 0
            for r in range(rounds):
                for side in "AB" if r % 2 == 0 else "BA":
                    stack.guard.kernel.scan_stage = stages[side]
                    c, w = time.process_time(), time.perf_counter()
                    for text in texts:
                        written += 1
                        stack.guard.write(alice, f"{text} ({written})", namespace="bench",
                                          source=source, turn=Turn(session_id="s", turn_index=written))  # fmt: skip
                    cpu[side].append((time.process_time() - c) / n * 1e6)
                    wall[side].append((time.perf_counter() - w) / n * 1e6)
            for stage in stages.values():
                stage.close()
        finally:
            stack.close()
    ratio = statistics.median(b / a for a, b in zip(cpu["A"], cpu["B"], strict=True))
    wratio = statistics.median(b / a for a, b in zip(wall["A"], wall["B"], strict=True))
    print(f"guard.write, one fact (us per write): cpu A {statistics.median(cpu['A']):7.0f} "
          f"B {statistics.median(cpu['B']):7.0f} B/A {ratio:5.2f}  wall A {statistics.median(wall['A']):7.0f} "
          f"B {statistics.median(wall['B']):7.0f} B/A {wratio:5.2f}   load {loadavg()}")  # fmt: skip


if __name__ == "__main__":
    main()
