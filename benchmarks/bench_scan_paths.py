"""The built-in scanners by path: the rules alone, the model alone, the default stage one fact per
call (a single ``guard.write``) and over batches of 32 (a ``write_many``); process CPU per KB.

    python benchmarks/bench_scan_paths.py
    PYTHONPATH=/tmp/base python benchmarks/bench_scan_paths.py   # a base revision's memguard

Facts are bench_scanner.py's (~1 KB each): benign ASCII, and with an attack. The load average is
printed with each kind.
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
    try:
        for kind in ("benign-ascii", "attack"):
            texts = facts(kind, 300, random.Random(17))
            kb = sum(len(t) for t in texts) / 1024
            paths: list[tuple[str, Callable[[str], object]]] = [
                ("rules", lambda t: rules.scan(t, ctx)),
                ("model", lambda t: model.scan(t, ctx)),
                ("stage, one fact per call", lambda t: stage.scan_batch([(t, ctx)])),
            ]
            print(f"{kind} (load {os.getloadavg()[0]:.2f})")
            for name, fn in paths:
                for t in texts[:20]:
                    fn(t)
                c = time.process_time()
                for t in texts:
                    fn(t)
                print(f"  {name:28s} {(time.process_time() - c) / kb * 1e6:8.1f} us/KB")
            c = time.process_time()
            for i in range(0, len(texts), 32):
                stage.scan_batch([(t, ctx) for t in texts[i : i + 32]])
            print(f"  {'stage, batches of 32':28s} {(time.process_time() - c) / kb * 1e6:8.1f} us/KB")
    finally:
        stage.close()


if __name__ == "__main__":
    main()
