"""The trained scanner's cost in instructions per 1 KB fact (valgrind), base (A) against this tree
(B): a count that the machine's load does not change, next to bench_scan_model_ab.py's times.

    git archive <rev> memguard/scan | tar -x -C /tmp/base
    python benchmarks/bench_scan_model_instructions.py /tmp/base     # needs valgrind

For each revision and kind of fact (bench_scanner.py's, 300 of them), a child process scores the
facts once and then four times; valgrind's instruction count of the two runs differs by three
passes, so startup and imports drop out (a fixed hash seed: else runs differ by up to 7%). Printed: instructions per fact, A, B and B/A.
``MEMGUARD_BENCH_BATCH=32``: the facts in batches of 32, ``scan_many`` where the revision has it
(what a scan stage calls), else ``scan`` of each.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FACTS = 300


def _child(who: str, base: str, kind: str, passes: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench_scan_model_ab import base_scanner
    from bench_scanner import facts

    from memguard.scan import ModelScanner

    scanner = base_scanner(Path(base)) if who == "A" else ModelScanner()
    texts = facts(kind, FACTS, random.Random(7))
    batch = int(os.environ.get("MEMGUARD_BENCH_BATCH", "0"))
    many = getattr(scanner, "scan_many", None)
    for _ in range(passes):
        if batch:  # a stage's batches: scan_many where the revision has it, else scan of each
            for i in range(0, len(texts), batch):
                items = [(t, None) for t in texts[i : i + batch]]
                _ = many(items) if many is not None else [scanner.scan(t) for t, _ in items]
        else:
            for text in texts:
                scanner.probability(text)


def _instructions(who: str, base: str, kind: str, passes: int) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--child", who, base, kind, str(passes)],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
    ).stderr  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", out)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    base = sys.argv[1]
    for kind in ("benign-ascii", "benign", "attack"):
        per = {}
        for who in ("A", "B"):
            once, four = (_instructions(who, base, kind, n) for n in (1, 4))
            per[who] = (four - once) / (3 * FACTS)
        print(f"{kind:12s} A {per['A'] / 1e3:7.0f}K  B {per['B'] / 1e3:7.0f}K instructions per"
              f" fact  B/A {per['B'] / per['A']:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
