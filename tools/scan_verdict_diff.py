"""Differential check of the built-in scanners between two trees (issue 17, scanspeed): every row
of tests/scan/*.jsonl and tests/corpus/*.jsonl through the default stage (one fact per call and
in batches of 32) and each scanner alone, before and after a change meant to keep verdicts.

    # each tree's memguard, the same rows (read from ROOT):
    PYTHONPATH=/work/base python tools/scan_verdict_diff.py dump ROOT /tmp/base.jsonl
    PYTHONPATH=.           python tools/scan_verdict_diff.py dump ROOT /tmp/new.jsonl
    python tools/scan_verdict_diff.py compare /tmp/base.jsonl /tmp/new.jsonl

    # leave corpora out by file name (a glob; repeatable), e.g. a blind corpus no one may read:
    PYTHONPATH=. python tools/scan_verdict_diff.py dump ROOT /tmp/new.jsonl --exclude 'holdout9*'

A left-out file is never opened. Give both dumps the same ``--exclude`` options (``compare``
reports different row counts otherwise).

A dump line is one row's file and line number and what came out (the stage's label, score,
reasons and cap; the rules' verdict and counted work: characters, attempts, whole-text searches,
truncated; the model's label and score), never the row's text, so comparing dumps reads no held
row. ``compare`` prints how many rows differ, per file, and exits 1 when any does. Run it with
``MEMGUARD_SCAN_PREFILTER=off`` too, to hold the full matcher to the same answers.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def rows(root: Path, exclude: Sequence[str] = ()) -> list[tuple[str, int, str]]:
    """(file name, line number, text) of every corpus row under ``root``, but for the files whose
    name matches a glob in ``exclude`` (never opened)."""
    files = sorted((root / "tests" / "scan").glob("*.jsonl")) + sorted(
        (root / "tests" / "corpus").glob("*.jsonl")
    )
    files = [f for f in files if not any(fnmatch.fnmatch(f.name, p) for p in exclude)]
    out = []
    for path in files:
        for number, line in enumerate(path.read_text("utf-8").splitlines()):
            if line.strip():
                out.append((path.name, number, str(json.loads(line)["text"])))
    return out


def dump(root: Path, target: Path, exclude: Sequence[str] = ()) -> int:
    from memguard.scan import ScanContext, builtin_scanners
    from memguard.scan.stage import ScanStage
    from memguard.trust import SourceKind

    ctx = ScanContext(namespace="diff", source=SourceKind.WEB)
    rules, model = builtin_scanners()
    stage = ScanStage([rules, model])
    texts = rows(root, exclude)
    try:
        with target.open("w", encoding="utf-8") as out:
            for name, number, text in texts:
                record = stage.scan_batch([(text, ctx)])[0]
                verdict, work = rules.inspect(text)
                scored = model.scan(text, ctx)
                line: list[Any] = [
                    "one", name, number, record.label, record.score, list(record.reasons),
                    None if record.cap is None else record.cap.name, verdict.label.value,
                    verdict.score, list(verdict.reasons), work.chars, work.attempts,
                    work.searches, work.truncated, scored.label.value, scored.score,
                ]  # fmt: skip
                out.write(json.dumps(line) + "\n")
            for at in range(0, len(texts), 32):
                batch = texts[at : at + 32]
                records = stage.scan_batch([(text, ctx) for _, _, text in batch])
                for (name, number, _), record in zip(batch, records, strict=True):
                    line = ["b32", name, number, record.label, record.score, list(record.reasons)]
                    out.write(json.dumps(line) + "\n")
    finally:
        stage.close()
    print(f"{len(texts)} rows dumped to {target}")
    return 0


def compare(before: Path, after: Path) -> int:
    a = before.read_text("utf-8").splitlines()
    b = after.read_text("utf-8").splitlines()
    if len(a) != len(b):
        print(f"different row counts: {len(a)} and {len(b)}")
        return 1
    differ: Counter[str] = Counter()
    for x, y in zip(a, b, strict=True):
        if x != y:
            first = json.loads(x)
            differ[f"{first[0]} {first[1]}"] += 1
    print(f"{len(a)} lines compared, {sum(differ.values())} differ")
    for where, count in sorted(differ.items()):
        print(f"  {where}: {count}")
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="scan_verdict_diff.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True)
    dumping = sub.add_parser("dump", help="scan every corpus row under ROOT into TARGET")
    dumping.add_argument("root", type=Path)
    dumping.add_argument("target", type=Path)
    dumping.add_argument(
        "--exclude", action="append", default=[], metavar="PATTERN",
        help="leave out the corpus files whose name matches this glob (repeatable)",
    )  # fmt: skip
    comparing = sub.add_parser("compare", help="count the rows that differ between two dumps")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args(argv[1:])
    if args.command == "dump":
        return dump(args.root, args.target, args.exclude)
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
