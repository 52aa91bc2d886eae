"""The scanner with and without its compiled prefilter: paired A/B runs against another checkout.

    python benchmarks/bench_prefilter_ab.py --base /path/to/base/checkout --rounds 5 --n 300

Each round runs one new process per side, alternating which side goes first, on the same facts
(``bench_scanner.py``'s: benign ASCII, benign in 14 languages, one attack at the end; ~1 KB each).
A process measures, in process CPU microseconds per KB: the rules alone (``RuleScanner.scan``) and
the default stage (``ScanStage(builtin_scanners())``, one fact per call); and its start-up: the CPU
seconds of importing ``memguard.scan`` and building ``builtin_scanners()`` (with a warm rule-table
cache, as a deployed process has) and the resident memory that added (``ru_maxrss``). The medians
over the rounds are printed with the load average at each round. ``--fallback`` runs this side
with the prefilter off (as on a platform without Hyperscan) as a third column.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_CHILD = r"""
import json, random, resource, sys, time
sys.path.insert(0, {bench!r})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
c = time.process_time()
import memguard.scan as scan
if {fallback!r}:
    from memguard.scan import prefilter
    prefilter.hyperscan = None
scanners = scan.builtin_scanners()
start = time.process_time() - c
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
from bench_scanner import facts
from memguard.scan.stage import ScanStage
from memguard.trust import SourceKind
ctx = scan.ScanContext(namespace="bench", source=SourceKind.WEB)
rules = scanners[0]
stage = ScanStage(scanners)
out = {{"start_s": start, "rss_kb": rss}}
for kind in ("benign-ascii", "benign", "attack"):
    texts = facts(kind, {n}, random.Random(17))
    kb = sum(len(t) for t in texts) / 1024
    for t in texts[:20]:
        rules.scan(t, ctx)
    c = time.process_time()
    for t in texts:
        rules.scan(t, ctx)
    out["rules " + kind] = (time.process_time() - c) / kb * 1e6
    c = time.process_time()
    for t in texts:
        stage.scan_batch([(t, ctx)])
    out["stage " + kind] = (time.process_time() - c) / kb * 1e6
stage.close()
print(json.dumps(out))
"""


def run(root: Path, cache: Path, n: int, fallback: bool = False) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(root), MEMGUARD_SCAN_CACHE=str(cache))
    code = _CHILD.format(bench=str(HERE), n=n, fallback=fallback)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=root
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def load() -> str:
    return (
        Path("/proc/loadavg").read_text().split(" ")[0] if Path("/proc/loadavg").exists() else "?"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument(
        "--fallback", action="store_true", help="also this checkout without Hyperscan"
    )
    args = parser.parse_args()
    sides = {"base": (args.base.resolve(), False), "prefilter": (ROOT, False)}
    if args.fallback:
        sides["fallback"] = (ROOT, True)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as tmp:
        caches = {name: Path(tmp) / name for name in sides}
        for name, (root, fallback) in sides.items():  # warm each side's cache file
            run(root, caches[name], 5, fallback)
        names = list(sides)
        for round_ in range(args.rounds):
            order = names if round_ % 2 == 0 else names[::-1]
            for name in order:
                root, fallback = sides[name]
                results[name].append(run(root, caches[name], args.n, fallback))
            print(f"round {round_ + 1}/{args.rounds} done, load average {load()}", flush=True)
    keys = list(results[names[0]][0])
    print(
        f"{'median over ' + str(args.rounds) + ' rounds':28}" + "".join(f"{n:>12}" for n in names)
    )
    for key in keys:
        row = [statistics.median(r[key] for r in results[name]) for name in names]
        print(f"{key:28}" + "".join(f"{v:12.2f}" for v in row))


if __name__ == "__main__":
    main()
