"""How long a bad policy file takes to be refused: `memguard policy validate FILE` run in-process
(Typer's runner, so the interpreter's start-up and imports are not counted) on every file of
``tests/vectors/policy-bad/``, plus a 1 MiB file that is valid YAML up to its last line.

    python benchmarks/bench_yaml_loader.py [--repeats N]

The target (issue 13): every bad input exits 3 with one line within 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog
from typer.testing import CliRunner

from memguard.cli import app

BAD = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "policy-bad"


def timed(path: Path, repeats: int) -> tuple[float, float, int, int]:
    runner = CliRunner()
    times = []
    code, lines = 0, 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        got = runner.invoke(app, ["policy", "validate", str(path)])
        times.append((time.perf_counter() - t0) * 1000)
        code, lines = got.exit_code, len(got.stderr.splitlines())
    return statistics.median(times), max(times), code, lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    saved = structlog.get_config()
    files = sorted(BAD.glob("*.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "one-mib-error-at-the-end.yaml"
        body = "apiVersion: memguard/v1\nrules:\n"
        line = "  - {id: r0, effect: permit, actions: [search]}\n"
        body += line * ((1 << 20) // len(line) - 2)
        big.write_text(body + "  - [\n", "utf-8")
        files.append(big)
        print(f"{'file':<42} {'p50 ms':>8} {'max ms':>8}  exit lines")
        worst = 0.0
        for path in files:
            p50, mx, code, lines = timed(path, args.repeats if path != big else 3)
            worst = max(worst, mx) if path != big else worst
            print(f"{path.name:<42} {p50:8.2f} {mx:8.2f}  {code:>4} {lines:>5}")
        print(f"worst bad file from tests/vectors/policy-bad: {worst:.2f} ms (target 100 ms)")
    structlog.configure(**saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
