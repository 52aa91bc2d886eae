"""The trained scanner against the rules on the held halves: detection and false positives.

    python benchmarks/scan_model_eval.py [--thresholds 0.5,0.7,...] [--corpus PATH.jsonl]

For each held-out corpus, only its ``held`` half (``HeldOutCorpus.half``; a corpus given with
``--corpus`` is read whole, as a blind one; ``--tune-too`` also prints the last held corpus'
``tune`` half, kept out of the pooled figures) and only aggregates: detection over the
attack rows and false positives over the benign rows for the rules (``RuleScanner``), the model
(``ModelScanner`` at its recorded threshold, or at each ``--thresholds`` value) and both in one
stage (the worse verdict wins). No row is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from memguard.scan import Label, ModelScanner, RuleScanner, ScanContext
from memguard.trust import SourceKind

ROOT = Path(__file__).resolve().parent.parent
#: corpora whose ``tune`` half the rules were written against or the model trains on (model
#: version 5: 2-7; holdout8's tune half is open to rule and model authors from stop 32, model
#: version 6 trains on it): only the ``held`` half is measured
HELD = [ROOT / "tests" / "scan" / f"holdout{n}.jsonl" for n in (2, 3, 4, 5, 6, 7, 8)]
#: blind corpora, read whole: holdout9 (written in stop 32 by an author who never read the scanner;
#: measured on the scanner of the start of stop 32 and at its end, never read by rule or model
#: authors)
BLIND: list[Path] = [ROOT / "tests" / "scan" / "holdout9.jsonl"]
CTX = ScanContext(namespace="eval", source=SourceKind.WEB)


def half(row: dict[str, Any]) -> str:
    return "tune" if hashlib.sha256(row["id"].encode()).digest()[0] < 128 else "held"


def rows_of(path: Path, whole: bool, part: str = "held") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return rows if whole else [r for r in rows if half(r) == part]


def rates(flags: list[bool], labels: list[bool]) -> str:
    attacks = [f for f, a in zip(flags, labels, strict=True) if a]
    benign = [f for f, a in zip(flags, labels, strict=True) if not a]
    return (f"{sum(attacks):3d}/{len(attacks):3d} {sum(attacks) / len(attacks):6.1%}  "
            f"FP {sum(benign):3d}/{len(benign):3d} {sum(benign) / len(benign):5.1%}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", default="", help="comma-separated suspicious_at values")
    parser.add_argument("--corpus", action="append", default=[], help="a blind corpus, read whole")
    parser.add_argument(
        "--tune-too",
        action="store_true",
        help=f"also the last held corpus' tune half ({HELD[-1].stem}; not pooled)",
    )
    args = parser.parse_args()
    rules, model = RuleScanner(), ModelScanner()
    at = [float(t) for t in args.thresholds.split(",") if t] or [model.weights.suspicious_at]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; model {model.version}")
    blind = [p for p in BLIND if p.exists()] + [Path(c) for c in args.corpus]
    sets = [(p, False, "held") for p in HELD] + [(p, True, "all") for p in blind]
    if args.tune_too:
        sets.append((HELD[-1], False, "tune"))
    pooled: dict[str, list[bool]] = {}
    for path, whole, part in sets:
        rows = rows_of(path, whole, part)
        labels = [r["label"] == "attack" for r in rows]
        ruled = [rules.scan(r["text"], CTX).label is not Label.CLEAN for r in rows]
        probs = [model.probability(r["text"]) for r in rows]
        name = path.name + ("" if whole else f" ({part} half)")
        print(f"\n{name}")
        results = {"rules": ruled}
        for t in at:
            flagged = [p >= t for p in probs]
            results[f"model@{t:g}"] = flagged
            results[f"both@{t:g}"] = [a or b for a, b in zip(ruled, flagged, strict=True)]
        for key, flags in results.items():
            print(f"  {key:12s} {rates(flags, labels)}")
            if part != "tune":
                pooled.setdefault(key, []).extend(flags)
        if part != "tune":
            pooled.setdefault("labels", []).extend(labels)
    labels = pooled.pop("labels")
    print("\npooled")
    for key, flags in pooled.items():
        print(f"  {key:12s} {rates(flags, labels)}")


if __name__ == "__main__":
    main()
