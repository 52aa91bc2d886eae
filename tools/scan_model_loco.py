"""Leave-one-corpus-out on the held halves: how a training recipe generalises to a corpus it never saw.

    python tools/scan_model_loco.py                       # the shipped recipe, holdout4..8
    python tools/scan_model_loco.py --data v4 --c 8       # version 4's data and recipe
    python tools/scan_model_loco.py --support 2 --budget 0.02 --only holdout7

For each left-out corpus ``k`` (holdout4 to holdout8): train exactly as ``tools/train_scan_model.py``
does (thresholds and window offset from its own leave-one-corpus-out over the remaining sources)
on every source but ``k`` (so without ``k``'s tune half), then score ``k``'s ``held`` half, which no
recipe ever trains on: the model alone at its threshold, the default stage (rules OR model; the
rules' verdicts do not depend on the recipe), what the model adds to the rules (attacks only it
finds, benign rows only it flags), the model's detection where it flags 2% of the held benign rows
(a diagnostic: that threshold is read off the held half) and the ROC area. Aggregates only: no row
and no text is printed. Needs the ``dev`` extra (scikit-learn).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers import load_script  # noqa: E402

from memguard.scan import Label, ModelScanner, RuleScanner, ScanContext  # noqa: E402
from memguard.trust import SourceKind  # noqa: E402

LEFT_OUT = ("holdout4", "holdout5", "holdout6", "holdout7", "holdout8")
#: sources that version 4 did not read (``--data v4`` leaves them out of every fold)
NEW_IN_V5 = ("holdout7", "families")
#: sources that version 5 did not read (``--data v5`` leaves them out of every fold)
NEW_IN_V6 = ("holdout8", "agentfiles")
CTX = ScanContext(namespace="loco", source=SourceKind.WEB)


def held_rows(train: Any, name: str) -> list[tuple[int, str]]:
    out = []
    for line in (ROOT / "tests" / "scan" / f"{name}.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if train.half(row) == "held":
                out.append((int(row["label"] == "attack"), row["text"]))
    return out


def rule_flags(name: str, rows: list[tuple[int, str]]) -> np.ndarray[Any, Any]:
    """The rules' verdicts on a held half (cached by the texts' digest: no text is stored)."""
    digest = hashlib.sha256("\x00".join(t for _, t in rows).encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / f"scanmodel5-loco-rules-{name}-{digest}.json"
    if cache.exists():
        return np.array(json.loads(cache.read_text()), dtype=bool)
    rules = RuleScanner()
    flags = [rules.scan(t, CTX).label is not Label.CLEAN for _, t in rows]
    cache.write_text(json.dumps(flags))
    return np.array(flags, dtype=bool)


def auc(y: np.ndarray[Any, Any], p: np.ndarray[Any, Any]) -> float:
    pos, neg = p[y], p[~y]
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def fold(train: Any, everything: dict[str, Any], name: str) -> dict[str, Any]:
    rows = held_rows(train, name)
    train.SOURCES = {k: v for k, v in everything.items() if k != name}
    try:
        blob, _ = train.train()
    finally:
        train.SOURCES = everything
    header = json.loads(blob[len(train.FORMAT) :].split(b"\n", 1)[0])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fold.bin"
        path.write_bytes(blob)
        model = ModelScanner(path, sha256=None)
        p = np.array([model.probability(t) for _, t in rows])
    y = np.array([label for label, _ in rows], dtype=bool)
    at = header["suspicious_at"]
    flagged = p >= at
    ruled = rule_flags(name, rows)
    both = flagged | ruled
    top = np.sort(p[~y])[::-1]
    at2 = top[math.floor(0.02 * len(top))]
    return {
        "attacks": int(y.sum()),
        "benign": int((~y).sum()),
        "model_tp": int((flagged & y).sum()),
        "model_fp": int((flagged & ~y).sum()),
        "rules_tp": int((ruled & y).sum()),
        "rules_fp": int((ruled & ~y).sum()),
        "stage_tp": int((both & y).sum()),
        "stage_fp": int((both & ~y).sum()),
        "at2_tp": int((p[y] > at2).sum()),
        "auc": auc(y, p),
        "threshold": at,
        "offset": header["window_offset"],
    }


def pct(a: int, b: int) -> str:
    return f"{a:3d}/{b:3d} {a / b:6.1%}" if b else "   -   "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("v4", "v5", "v5-h7", "v6", "v6-h8"), default="v6")
    parser.add_argument("--c", type=float, default=None)
    parser.add_argument("--support", type=int, default=None)
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--word-scale", type=float, default=None)
    parser.add_argument("--rule-weight", type=float, default=None)
    parser.add_argument("--bag", action="store_true")
    parser.add_argument("--only", action="append", choices=LEFT_OUT, default=[])
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    train = load_script(ROOT / "tools" / "train_scan_model.py")
    if args.c is not None:
        train.C = args.c
    if args.support is not None:
        train.SUPPORT = args.support
    if args.budget is not None:
        train.FP_BUDGET = args.budget
    if args.word_scale is not None:
        train.WORD_SCALE = args.word_scale
    if args.rule_weight is not None:
        train.RULE_WEIGHT = args.rule_weight
    train.BAG = args.bag
    everything = dict(train.SOURCES)
    if args.data == "v4":
        everything = {k: v for k, v in everything.items() if k not in NEW_IN_V5 + NEW_IN_V6}
    elif args.data == "v5":
        everything = {k: v for k, v in everything.items() if k not in NEW_IN_V6}
    elif args.data == "v5-h7":  # holdout7's tune half, not version 5's hand-written rows
        everything = {k: v for k, v in everything.items() if k not in ("families", *NEW_IN_V6)}
    elif args.data == "v6-h8":  # holdout8's tune half, not version 6's hand-written rows
        everything = {k: v for k, v in everything.items() if k != "agentfiles"}
    train.SOURCES = everything
    recipe = f"data {args.data} C={train.C} support={train.SUPPORT} budget={train.FP_BUDGET} word_scale={train.WORD_SCALE} rule_weight={train.RULE_WEIGHT} bag={train.BAG}"
    print(f"{recipe}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results = {}
    for name in args.only or LEFT_OUT:
        start = time.monotonic()
        r = results[name] = fold(train, everything, name)
        a, b = r["attacks"], r["benign"]
        print(f"{name} held (train without its tune half; threshold {r['threshold']:.4f},"
              f" offset {r['offset']:.2f}, {time.monotonic() - start:.0f} s)\n"
              f"  model  {pct(r['model_tp'], a)}  FP {pct(r['model_fp'], b)}"
              f"   at 2% FP {pct(r['at2_tp'], a)}  AUC {r['auc']:.3f}\n"
              f"  rules  {pct(r['rules_tp'], a)}  FP {pct(r['rules_fp'], b)}\n"
              f"  stage  {pct(r['stage_tp'], a)}  FP {pct(r['stage_fp'], b)}"
              f"   model adds {r['stage_tp'] - r['rules_tp']} attacks,"
              f" {r['stage_fp'] - r['rules_fp']} FP", flush=True)  # fmt: skip
    tot = {
        k: sum(r[k] for r in results.values())
        for k in next(iter(results.values()))
        if k not in ("auc", "threshold", "offset")
    }
    a, b = tot["attacks"], tot["benign"]
    print(f"pooled  model {pct(tot['model_tp'], a)} FP {pct(tot['model_fp'], b)}"
          f"  stage {pct(tot['stage_tp'], a)} FP {pct(tot['stage_fp'], b)}"
          f"  model adds {tot['stage_tp'] - tot['rules_tp']} / {tot['stage_fp'] - tot['rules_fp']} FP"
          f"  at 2% {pct(tot['at2_tp'], a)}  mean AUC {np.mean([r['auc'] for r in results.values()]):.3f};"
          f" load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"recipe": recipe, "folds": results}, indent=1))


if __name__ == "__main__":
    main()
