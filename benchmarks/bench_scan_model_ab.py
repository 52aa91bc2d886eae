"""Paired A/B of two trained-scanner revisions in one process: process-CPU and wall per KB.

    git archive <rev> memguard/scan | tar -x -C /tmp/base
    python benchmarks/bench_scan_model_ab.py /tmp/base          # base (A) against this tree (B)
    MEMGUARD_BENCH_N=500 MEMGUARD_BENCH_ROUNDS=5 python benchmarks/bench_scan_model_ab.py /tmp/base

The base revision's ``memguard/scan/features.py``, ``model.py`` and ``model.bin`` are loaded under
other module names (the rest of memguard is this tree's), so both models score the same texts in
the same process; rounds alternate A-B and B-A. Facts: bench_scanner.py's (~1 KB, benign ASCII,
benign multilingual, one attack), their first 200 characters, and one 8 KB, 64 KB and 1 MB text.
Printed: medians over the rounds and the median of the per-round B/A ratios, with the load average.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scanner import facts

from memguard.scan import ModelScanner


def _load(name: str, path: Path, *replace: tuple[str, str]) -> types.ModuleType:
    source = path.read_text("utf-8")
    for old, new in replace:
        source = source.replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)  # a local revision of memguard
    return module


def base_scanner(root: Path) -> Any:
    scan = root / "memguard" / "scan"
    features = ("from memguard.scan.features import", "from _base_features import")
    _load("_base_features", scan / "features.py")
    if (scan / "logits.py").exists():  # the batch kernel (modelkernel) reads the base's features
        _load(
            "_base_logits",
            scan / "logits.py",
            features,
            ("from memguard.scan import features as", "import _base_features as"),
        )
    model = _load(
        "_base_model",
        scan / "model.py",
        features,
        ("from memguard.scan.logits import", "from _base_logits import"),
    )
    return model.ModelScanner(scan / "model.bin", sha256=model.WEIGHTS_SHA256)


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    a, b = base_scanner(Path(sys.argv[1])), ModelScanner()
    n = int(os.environ.get("MEMGUARD_BENCH_N", "500"))
    rounds = int(os.environ.get("MEMGUARD_BENCH_ROUNDS", "5"))
    rng = random.Random(7)
    sets = {k: facts(k, n, rng) for k in ("benign-ascii", "benign", "attack")}
    sets["short"] = [t[:200] for t in sets["benign-ascii"]]
    para = " ".join(sets["benign-ascii"][:200])
    for size, count in ((8 << 10, 20), (64 << 10, 4), (1 << 20, 2)):
        sets[f"{size >> 10} KB"] = [(para * (size // len(para) + 1))[:size]] * count
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (start)")
    print(f"A {a.version}  B {b.version}")
    for name, texts in sets.items():
        kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        wall: dict[str, list[float]] = {"A": [], "B": []}
        for t in texts[:20]:
            a.probability(t)
            b.probability(t)
        for r in range(rounds):
            for who in ("A", "B") if r % 2 == 0 else ("B", "A"):
                scanner = a if who == "A" else b
                c0, w0 = time.process_time(), time.perf_counter()
                for t in texts:
                    scanner.probability(t)
                cpu[who].append((time.process_time() - c0) / kb * 1e6)
                wall[who].append((time.perf_counter() - w0) / kb * 1e6)
        ratio = statistics.median(y / x for x, y in zip(cpu["A"], cpu["B"], strict=True))
        med = {k: statistics.median(v) for k, v in cpu.items()}
        medw = {k: statistics.median(v) for k, v in wall.items()}
        print(f"{name:12s} texts={len(texts):4d}  A {med['A']:7.1f} us/KB cpu ({medw['A']:7.1f} wall)"
              f"  B {med['B']:7.1f} us/KB cpu ({medw['B']:7.1f} wall)  B/A {ratio:.2f}")  # fmt: skip
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (end)")


if __name__ == "__main__":
    main()
