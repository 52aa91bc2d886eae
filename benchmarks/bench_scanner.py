"""Built-in scanner speed: microseconds per 1 KB fact (goal: <= 50 us on benign memories).

    python benchmarks/bench_scanner.py            # 2,000 facts per kind
    MEMGUARD_BENCH_N=20000 python benchmarks/bench_scanner.py
    python benchmarks/bench_scanner.py --start 9  # a new process's scanner start-up, cache on/off

``--start N`` starts N rounds of three new processes: without the rule-table cache
(``MEMGUARD_SCAN_CACHE=off``: the rules analysed, as before issue 16), with an empty cache
directory (analysed, and the file written) and with a warm one (written by a first process), and
prints the median wall and CPU seconds of
``RuleScanner()`` and of ``builtin_scanners()`` (the rules and the trained model, what
``open_embedded`` builds) in each, with the load average.

Facts are ~1 KB: benign memories from tests/corpus joined until they reach 1,024 characters
("benign"; "benign-ascii" uses only the ASCII ones), and the same with one attack row at the end
("attack"). The benign rows are written to hold trigger words (ignore, system, remember, ...), so
they are a worst case for the rule gates. Prints wall-clock and process CPU microseconds per KB
(CPU time is the steadier number on a shared machine), the anchored match attempts per KB (a
count: the same at any load) and the share flagged; then the same for
five hostile 1 MB texts (see ``HOSTILE``): a text over ``MAX_TEXT`` is read in its first and last
32 K characters and called at least suspicious (``scan.truncated``), so these print the time and
the counted work of one capped scan.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memguard.scan import RuleScanner, ScanContext
from memguard.scan.builtin import rule_set
from memguard.trust import SourceKind

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "injections.jsonl"


def facts(label: str, n: int, rng: random.Random) -> list[str]:
    rows = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines()]
    benign = [r["text"] for r in rows if r["label"] == "benign"]
    if label == "benign-ascii":
        benign = [t for t in benign if t.isascii()]
    attacks = [r["text"] for r in rows if r["label"] == "attack"]
    out = []
    for _ in range(n):
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) < 1024:
            parts.append(rng.choice(benign))
        text = "\n".join(parts)[:1024]
        if label == "attack":  # the attack replaces the tail, so the fact stays ~1 KB
            attack = rng.choice(attacks)
            text = text[: max(0, 1024 - len(attack) - 1)] + "\n" + attack
        out.append(text)
    return out


#: 1 MB texts built to make anchored attempts fail again and again (a rule whose body matches at
#: every anchor but whose lead never does, a line each attempt runs to the end of, a key on
#: every character); the scanner bounds its attempts per rule, so these stay linear
HOSTILE = {
    "lead fails": "._b(c= " * 150_000,
    "long line": "user: " * 170_000,
    "key everywhere": "</" * 500_000,
    "factor everywhere": "ignore " * 150_000,
    "send, then address": "send " * 200_000 + "drop@evil.example",
    "hex runs, non-ASCII": ("0123456789abcdef" * 2 + "\u00e9") * 30_000,
}


_START = """
import json, time
w, c = time.perf_counter(), time.process_time()
import memguard.scan as scan
out = {"import": (time.perf_counter() - w, time.process_time() - c)}
w, c = time.perf_counter(), time.process_time()
scan.RuleScanner()
out["RuleScanner()"] = (time.perf_counter() - w, time.process_time() - c)
w, c = time.perf_counter(), time.process_time()
scan.builtin_scanners()
out["builtin_scanners()"] = (time.perf_counter() - w, time.process_time() - c)
from memguard.scan.builtin import rule_set
out["origin"] = rule_set().origin
print(json.dumps(out))
"""


def startup(rounds: int) -> None:
    """New processes' scanner start-up: without the cache, with an empty cache directory (the
    process analyses the rules and writes the file) and with a warm one, in turn (see the module
    doc)."""
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as root:
        warm = str(Path(root) / "warm")
        subprocess.run([sys.executable, "-c", _START], env={**os.environ, "MEMGUARD_SCAN_CACHE": warm},
                       check=True, capture_output=True)  # fmt: skip  # writes the cache file
        runs: dict[str, list[dict[str, Any]]] = {"cache off": [], "cache cold": [], "cache warm": []}
        for i in range(rounds):
            for mode, rows in runs.items():
                value = {"cache off": "off", "cache cold": str(Path(root) / f"cold-{i}"), "cache warm": warm}[mode]
                done = subprocess.run([sys.executable, "-c", _START], env={**os.environ, "MEMGUARD_SCAN_CACHE": value},
                                      check=True, capture_output=True, text=True)  # fmt: skip
                rows.append(json.loads(done.stdout))
        for mode, rows in runs.items():
            assert all((row["origin"] is None) == (mode != "cache warm") for row in rows), mode
            figures = "  ".join(
                f"{step} wall {statistics.median(r[step][0] for r in rows):.3f} s "
                f"cpu {statistics.median(r[step][1] for r in rows):.3f} s"
                for step in ("import", "RuleScanner()", "builtin_scanners()")
            )
            print(f"{mode:10s} (median of {rounds}): {figures}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    if sys.argv[1:2] == ["--start"]:
        startup(int(sys.argv[2]) if len(sys.argv) > 2 else 9)
        return
    n = int(os.environ.get("MEMGUARD_BENCH_N", "2000"))
    rng = random.Random(7)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    start, cpu = time.perf_counter(), time.process_time()
    scanner = RuleScanner()  # builds the rule set (once per process)
    print(f"rule set build: wall {time.perf_counter() - start:.2f} s  cpu {time.process_time() - cpu:.2f} s  "
          f"({rule_set().keys} keys; tables {rule_set().origin or 'analysed, no cache file'})")  # fmt: skip
    ctx = ScanContext(namespace="bench", source=SourceKind.WEB)
    for label in ("benign-ascii", "benign", "attack"):
        texts = facts(label, n, rng)
        for t in texts[:50]:  # warm up
            scanner.scan(t, ctx)
        start, cpu = time.perf_counter(), time.process_time()
        flagged = sum(scanner.scan(t, ctx).label != "clean" for t in texts)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        kb = sum(len(t.encode("utf-8")) for t in texts) / 1024
        # anchored match attempts do not depend on the machine's load (each costs about 1 us)
        attempts = sum(scanner.inspect(t)[1].attempts for t in texts)
        print(f"{label:12s} n={n} wall {elapsed / kb * 1e6:7.1f} us/KB  cpu {cpu / kb * 1e6:7.1f} "
              f"us/KB  {attempts / kb:5.1f} attempts/KB  flagged={flagged / n:.1%}")  # fmt: skip
    for label, text in HOSTILE.items():
        start, cpu = time.perf_counter(), time.process_time()
        verdict, work = scanner.inspect(text)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"hostile 1 MB, {label:18s} wall {elapsed * 1e3:7.1f} ms  cpu {cpu * 1e3:7.1f} ms  "
              f"{verdict.label} (read {work.chars} chars, {work.attempts} attempts, "
              f"{work.searches} searches{', truncated' if work.truncated else ''})")  # fmt: skip
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
