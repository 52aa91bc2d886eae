"""Train the trained scanner's weights (memguard/scan/model.bin): deterministic, offline.

    python tools/train_scan_model.py            # train on the tune data, write the weights file
    python tools/train_scan_model.py --cv       # leave-one-corpus-out figures for the settings
    python tools/train_scan_model.py --check    # retrain and compare with the committed file
    python tools/train_scan_model.py --unseen holdout6 [--c 8] [--without agent ...]  # a variant

``--unseen NAME`` trains without the source ``NAME`` (thresholds too) and scores that source's
training rows (for a halved source, its tune half) as ModelScanner would: detection and false
positives at the recorded threshold, detection at the threshold that flags 2% of its benign rows,
and the ROC area; ``--c`` another regularisation constant, ``--without`` more sources to leave out
(version 3's data: ``--without holdout5 --without agent``). None writes the weights file.

Needs scikit-learn (a dev-only dependency: the ``dev`` extra); memguard itself reads the weights
with numpy alone (memguard/scan/model.py).

Training data (docs/scanner.md, "The trained scanner", "Version 4" to "Version 6"): every row of
tests/corpus/injections.jsonl, tests/scan/holdout.jsonl, tests/scan/train_multilingual.jsonl,
tests/scan/train_hard.jsonl, tests/scan/train_agent.jsonl, tests/scan/train_families.jsonl and
tests/scan/train_agentfiles.jsonl, and the ``tune`` halves of tests/scan/holdout2.jsonl to
holdout8.jsonl (``HeldOutCorpus.half``), less
:data:`EXCLUDED` (rows that equal or nearly equal a held row). The ``held`` halves are never used here (a ``held`` row is
dropped by the hash of its id before anything else of it is looked at); no other corpus is named.
The model is a logistic regression (liblinear, L2) over
:func:`memguard.scan.features.features`; each corpus weighs the same in total (the
template-generated project corpus would otherwise outweigh the hand-written ones) and the two
classes weigh the same within each corpus.

Thresholds come from leave-one-corpus-out predictions (train on the other corpora, predict one),
scored as ModelScanner scores (windows): ``suspicious_at`` is the lowest probability at which at
most :data:`FP_BUDGET` of the pooled benign texts scored whole would be flagged, ``malicious_at``
the lowest at which none would be; ``window_offset`` the least logit to take off a windowed text's
highest window so that at most :data:`FP_BUDGET` of the windowed benign texts reach
``suspicious_at`` and none ``malicious_at``. The windowed benign texts are the long training rows
and long texts made of :data:`LONG_ROWS` benign rows of one corpus joined (never trained on); the
same with one attack row in the middle measure buried payloads (``--cv``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memguard.scan.features import FEATURES_VERSION, SCALE_POWER, features, window_logits  # noqa: E402
from memguard.scan.model import FORMAT, WEIGHTS  # noqa: E402

if TYPE_CHECKING:
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

#: bump with any change to what this script does (recorded in the weights file)
SCRIPT_VERSION = "6"
BITS = 16
C = 8.0
FP_BUDGET = 0.015
#: a feature is trained on only if it occurs in at least this many sources (1: every feature)
SUPPORT = 1
#: the word n-grams' columns are scaled by this for the fit (1: as the character n-grams')
WORD_SCALE = 1.0
#: a training row the rule scanner flags weighs this much of one it does not (1: the same)
RULE_WEIGHT = 1.0
#: ship the mean of the leave-one-corpus-out models instead of one model fitted on every source
BAG = False

SOURCES: dict[str, tuple[str, bool]] = {  # name -> (path, only the tune half)
    "corpus": ("tests/corpus/injections.jsonl", False),
    "holdout": ("tests/scan/holdout.jsonl", False),
    "holdout2": ("tests/scan/holdout2.jsonl", True),
    "holdout3": ("tests/scan/holdout3.jsonl", True),
    "holdout4": ("tests/scan/holdout4.jsonl", True),
    "holdout5": ("tests/scan/holdout5.jsonl", True),
    "holdout6": ("tests/scan/holdout6.jsonl", True),
    "holdout7": ("tests/scan/holdout7.jsonl", True),
    "holdout8": ("tests/scan/holdout8.jsonl", True),
    "multilingual": ("tests/scan/train_multilingual.jsonl", False),
    "hard": ("tests/scan/train_hard.jsonl", False),
    "agent": ("tests/scan/train_agent.jsonl", False),
    "families": ("tests/scan/train_families.jsonl", False),
    "agentfiles": ("tests/scan/train_agentfiles.jsonl", False),
}
#: rows never trained on although their file is a source: each has the same text as, or nearly the
#: same text as (character 5-gram Jaccard >= 0.5: tests/test_scan_model_data.py), a ``held``-half
#: row of holdout2-8. Most are the long notes of holdout5's to holdout8's tune halves
#: (``buried_long`` attacks and their ``long_note`` controls), which share their note with a held
#: row; h4-b027 has the text of a holdout5 row; ag-b041 and h7-b240 (trained on by version 5)
#: nearly equal a holdout8 held row.
EXCLUDED = frozenset({
    "h4-b027",
    "h2-a065", "h2-a076", "h2-a092", "h2-a106", "h3-b001", "h4-a187", "h4-a190", "h4-b030",
    "h5-a150", "h5-a153", "h5-a159", "h5-a160", "h5-a161", "h5-b200", "h5-b203",
    "h6-a189", "h6-a190", "h6-a193", "h6-a196", "h6-a201", "h6-a202", "h6-a203", "h6-a205",
    "h6-a208", "h6-b001", "h6-b004", "h6-b005", "mg-b0006", "mg-b0076", "sh-012", "sh-013",
    "h7-a206", "h7-a230", "h7-a231", "h7-a234", "h7-a235", "h7-a237", "h7-a239", "h7-a242",
    "h7-a243", "h7-a244", "h7-a246", "h7-a247", "h7-b051", "h7-b266", "h7-b267", "h7-b268",
    "h7-b271",
    "ag-b041", "h7-b240", "h8-a376", "h8-a380", "h8-a382", "h8-a384", "h8-a386", "h8-a389",
    "h8-a390", "h8-b129", "h8-b330", "h8-b332",
})  # fmt: skip
#: long texts for the thresholds: this many benign rows of one corpus joined, and the same with
#: one of its attack rows in the middle (a buried payload)
LONG_ROWS = 6


def half(row: dict[str, Any]) -> str:
    """tests/corpus_helpers.py's split (copied: that module imports the rule scanner)."""
    return "tune" if hashlib.sha256(row["id"].encode()).digest()[0] < 128 else "held"


def training_rows() -> list[tuple[str, str, int, str]]:
    """(source, id, label, text) of every training row, in file order."""
    out = []
    for name, (path, tune_only) in SOURCES.items():
        for line in (ROOT / path).read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if (tune_only and half(row) != "tune") or row["id"] in EXCLUDED:
                continue
            out.append((name, row["id"], int(row["label"] == "attack"), row["text"]))
    return out


def data_digest(rows: list[tuple[str, str, int, str]]) -> str:
    canonical = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def matrix(texts: list[str], bits: int = BITS) -> sparse.csr_matrix:
    """One row per text: each occurrence of a character n-gram counts 1 / (#character n-gram
    occurrences) ** SCALE_POWER, of a word n-gram 1 / (#word n-gram occurrences) ** SCALE_POWER
    (what ModelScanner sums)."""
    from scipy import sparse

    indptr, indices, data = [0], [], []
    for text in texts:
        f = features(text, bits)
        indices.append(f.buckets)
        counts = (max(f.chars, 1), max(f.words, 1))
        for lo, hi, group in f.segments:
            data.append(np.full(hi - lo, 1.0 / counts[group] ** SCALE_POWER))
        indptr.append(indptr[-1] + len(f.buckets))
    m = sparse.csr_matrix(
        (np.concatenate(data), np.concatenate(indices), np.array(indptr)),
        shape=(len(texts), 1 << bits),
    )
    m.sum_duplicates()
    return m


def logits(
    model: LogisticRegression, texts: list[str], bits: int = BITS
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Each text's highest window logit as ModelScanner computes it (before the window offset),
    and whether the text was scored in windows."""
    vector = model.coef_[0].astype("<f4")
    bias = float(model.intercept_[0])
    z, windowed = [], []
    for text in texts:
        w = window_logits(vector, bias, features(text, bits))
        z.append(float(w.max()))
        windowed.append(len(w) > 1)
    return np.array(z), np.array(windowed, dtype=bool)


def logistic(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -700.0, 700.0))))


def long_texts(rows: list[tuple[str, str, int, str]]) -> list[tuple[str, str, int, str]]:
    """Long benign texts (LONG_ROWS consecutive benign rows of one corpus joined, starting at
    every other row) and buried attacks (the same with one attack row of that corpus in the
    middle), for the thresholds and the figures only: never trained on."""
    out = []
    for name in SOURCES:
        benign = [r[3] for r in rows if r[0] == name and r[2] == 0]
        attacks = [r[3] for r in rows if r[0] == name and r[2] == 1]
        for k, first in enumerate(range(0, len(benign) - LONG_ROWS + 1, 2)):
            part = benign[first : first + LONG_ROWS]
            out.append((name, f"long-{k}", 0, "\n\n".join(part)))
            if attacks:
                mid = LONG_ROWS // 2
                buried = [*part[:mid], attacks[(7 * k) % len(attacks)], *part[mid:]]
                out.append((name, f"buried-{k}", 1, "\n\n".join(buried)))
    return out


def sample_weights(
    sources: list[str],
    labels: npt.NDArray[np.int_],
    ruled: npt.NDArray[np.bool_] | None = None,
) -> npt.NDArray[np.float64]:
    """Each corpus weighs the same, each class within a corpus the same; mean weight 1. With
    ``ruled`` (the rows the rule scanner flags) and :data:`RULE_WEIGHT` below 1, a flagged row
    weighs that much less than an unflagged one of its corpus and class (the class's total is
    kept: the model leans on what the rules miss)."""
    w = np.zeros(len(sources))
    names = sorted(set(sources))
    src = np.array(sources)
    for name in names:
        for label in (0, 1):
            mask = (src == name) & (labels == label)
            if mask.any():
                if ruled is None or RULE_WEIGHT == 1.0:
                    w[mask] = 1.0 / (2 * len(names) * mask.sum())
                else:
                    f = np.where(ruled[mask], RULE_WEIGHT, 1.0)
                    w[mask] = f / (2 * len(names) * f.sum())
    return w * len(sources)


def rule_flags(texts: list[str]) -> npt.NDArray[np.bool_]:
    """Whether the rule scanner flags each text (only when :data:`RULE_WEIGHT` is not 1)."""
    if RULE_WEIGHT == 1.0:
        return np.zeros(len(texts), dtype=bool)
    from memguard.scan import Label, RuleScanner, ScanContext
    from memguard.trust import SourceKind

    rules, ctx = RuleScanner(), ScanContext(namespace="train", source=SourceKind.WEB)
    return np.array([rules.scan(t, ctx).label is not Label.CLEAN for t in texts], dtype=bool)


def supported(x: sparse.csr_matrix, sources: list[str], least: int) -> npt.NDArray[np.bool_]:
    """The features (columns) that occur in the rows of at least ``least`` sources."""
    seen = np.zeros(x.shape[1], dtype=np.int_)
    src = np.array(sources)
    for name in sorted(set(sources)):
        cols = np.unique(x[np.flatnonzero(src == name)].indices)
        seen[cols] += 1
    return np.asarray(seen >= least)


def fit(
    x: sparse.csr_matrix,
    y: npt.NDArray[np.int_],
    w: npt.NDArray[np.float64],
    c: float,
    sources: list[str] | None = None,
) -> LogisticRegression:
    """A logistic regression; with :data:`SUPPORT` above 1 (and ``sources``), over the features
    that occur in at least that many sources only (the others get weight 0: a feature that one
    corpus alone has is that corpus' phrasing, not an attack family's); the word n-grams' columns
    scaled by :data:`WORD_SCALE` for the fit and their weights by the same after it (the same
    scores: below 1, the L2 penalty holds the word weights back more than the character ones)."""
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    scale = np.ones(x.shape[1])
    scale[x.shape[1] // 2 :] = WORD_SCALE
    if SUPPORT > 1 and sources is not None:
        scale *= supported(x, sources, SUPPORT)
    if (scale != 1.0).any():
        x = x @ sparse.diags(scale)
    model = LogisticRegression(C=c, solver="liblinear", max_iter=1000, tol=1e-6, random_state=0)
    model.fit(x, y, sample_weight=w)
    model.coef_ = model.coef_ * scale
    return model


def held_one_out(
    rows: list[tuple[str, str, int, str]],
    x: sparse.csr_matrix,
    c: float,
    ruled: npt.NDArray[np.bool_] | None = None,
    models: list[LogisticRegression] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Each row's highest window logit (and whether it was windowed) from a model trained
    without its corpus (``rows`` may hold texts that are not in ``x``, after its rows: the long
    texts, never trained on); the models are appended to ``models`` if given."""
    sources = [r[0] for r in rows]
    y = np.array([r[2] for r in rows])
    trained = x.shape[0]
    z = np.zeros(len(rows))
    windowed = np.zeros(len(rows), dtype=bool)
    for name in SOURCES:
        out = np.array([s == name for s in sources])
        keep = ~out[:trained]
        kept = [s for s, k in zip(sources, keep, strict=False) if k]
        w = sample_weights(kept, y[:trained][keep], None if ruled is None else ruled[keep])
        model = fit(x[keep], y[:trained][keep], w, c, kept)
        if models is not None:
            models.append(model)
        z[out], windowed[out] = logits(model, [r[3] for r, o in zip(rows, out, strict=True) if o])
    return z, windowed


def window_offset(
    z: npt.NDArray[np.float64], benign_windowed: npt.NDArray[np.bool_], s: float, m: float
) -> float:
    """The least offset at which at most FP_BUDGET of the windowed benign texts reach ``s`` and
    none reaches ``m``."""
    top = np.sort(z[benign_windowed])[::-1]
    if not len(top):
        return 0.0
    allowed = math.floor(FP_BUDGET * len(top))
    logit = lambda p: math.log(p / (1.0 - p)) if p < 1.0 else math.inf  # noqa: E731
    need = [top[0] - logit(m)]
    if allowed < len(top):
        need.append(top[allowed] - logit(s))
    return round(max(0.0, *need) + 1e-6, 6)


def thresholds(probs: npt.NDArray[np.float64], y: npt.NDArray[np.int_]) -> tuple[float, float]:
    benign = np.sort(probs[y == 0])[::-1]
    allowed = math.floor(FP_BUDGET * len(benign))
    # just above the (allowed+1)-th highest benign probability
    suspicious = float(np.nextafter(benign[allowed], 1.0)) if allowed < len(benign) else 0.5
    malicious = float(np.nextafter(benign[0], 1.0))
    return max(suspicious, 0.5), max(malicious, suspicious)


def report(
    rows: list[tuple[str, str, int, str]], probs: npt.NDArray[np.float64], at: float
) -> None:
    y = np.array([r[2] for r in rows])
    for name in SOURCES:
        m = np.array([r[0] == name for r in rows])
        a, b = m & (y == 1), m & (y == 0)
        if not m.any():
            continue
        print(f"  {name:12s} detection {np.mean(probs[a] >= at) if a.any() else 0:6.1%} of {a.sum():3d}"
              f"   false positives {np.mean(probs[b] >= at) if b.any() else 0:6.1%} of {b.sum():3d}")  # fmt: skip
    print(f"  {'pooled':12s} detection {np.mean(probs[y == 1] >= at):6.1%}"
          f"   false positives {np.mean(probs[y == 0] >= at):6.1%}")  # fmt: skip


def render(model: LogisticRegression, meta: dict[str, Any]) -> bytes:
    weights = model.coef_[0].astype("<f4")
    header = dict(meta, bias=float(model.intercept_[0]), nonzero=int(np.count_nonzero(weights)))
    body = zlib.compress(weights.tobytes(), 9)
    line = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    return FORMAT + line + b"\n" + body


def train() -> tuple[bytes, dict[str, Any]]:
    rows = training_rows()
    x = matrix([r[3] for r in rows])
    y = np.array([r[2] for r in rows])
    extra = long_texts(rows)
    both = rows + extra
    y_all = np.array([r[2] for r in both])
    ruled = rule_flags([r[3] for r in rows])
    folds: list[LogisticRegression] = []
    z, windowed = held_one_out(both, x, C, ruled, folds)
    # the thresholds from the texts scored whole, the window offset from the windowed benign
    # ones (the long texts and the few long rows): windows must not flag more benign text
    whole = ~windowed
    suspicious, malicious = thresholds(logistic(z[whole]), y_all[whole])
    offset = window_offset(z, windowed & (y_all == 0), suspicious, malicious)
    probs = logistic(z - offset * windowed)
    model = fit(x, y, sample_weights([r[0] for r in rows], y, ruled), C, [r[0] for r in rows])
    if BAG:  # the mean of the leave-one-corpus-out models (each blind to one corpus)
        model.coef_ = np.mean([m.coef_ for m in folds], axis=0)
        model.intercept_ = np.mean([m.intercept_ for m in folds], axis=0)
    meta = {
        "bits": BITS,
        "c": C,
        "data": data_digest(rows),
        "features": FEATURES_VERSION,
        "fp_budget": FP_BUDGET,
        "long": {"rows": LONG_ROWS, "texts": len(extra)},
        "malicious_at": round(malicious, 6),
        "rows": {name: sum(r[0] == name for r in rows) for name in SOURCES},
        "script": SCRIPT_VERSION,
        "suspicious_at": round(suspicious, 6),
        "window_offset": offset,
    }
    n = len(rows)
    return render(model, meta), {
        "probs": probs[:n],
        "rows": rows,
        "y": y,
        "extra": extra,
        "extra_probs": probs[n:],
    }


def unseen(name: str | None, c: float, without: list[str]) -> None:
    """A variant on tune data only: train without ``name`` and ``without`` (at ``c``), score the
    rows of ``name``."""
    import tempfile

    from sklearn.metrics import roc_auc_score

    from memguard.scan.model import ModelScanner

    global SOURCES, C
    kept = dict(SOURCES)
    scored = [r for r in training_rows() if r[0] == name]
    SOURCES = {k: v for k, v in kept.items() if k != name and k not in without}
    C = c
    try:
        blob, info = train()
    finally:
        SOURCES = kept
    header = json.loads(blob[len(FORMAT) :].split(b"\n", 1)[0])
    print(f"C={c} without {[name, *without]}: threshold {header['suspicious_at']:.4f}")
    report(info["rows"], info["probs"], header["suspicious_at"])
    if not scored:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "variant.bin"
        path.write_bytes(blob)
        model = ModelScanner(path, sha256=None)
        p = np.array([model.probability(r[3]) for r in scored])
    y = np.array([r[2] for r in scored]) == 1
    at = header["suspicious_at"]
    top = np.sort(p[~y])[::-1]
    at2 = top[math.floor(0.02 * len(top))]
    print(f"{name} unseen ({y.sum()} attacks, {(~y).sum()} benign): detection {np.mean(p[y] >= at):.1%}"
          f" at {np.mean(p[~y] >= at):.1%} false positives; {np.mean(p[y] > at2):.1%} at 2%;"
          f" ROC area {roc_auc_score(y, p):.3f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="print leave-one-corpus-out figures")
    parser.add_argument("--check", action="store_true", help="compare with the committed file")
    parser.add_argument("--unseen", choices=sorted(SOURCES), help="train without it, score it")
    parser.add_argument("--c", type=float, default=C, help="the regularisation constant (variants)")
    parser.add_argument("--without", action="append", default=[], choices=sorted(SOURCES))
    args = parser.parse_args()
    if args.unseen or args.c != C or args.without:
        unseen(args.unseen, args.c, args.without)
        return
    blob, info = train()
    header = json.loads(blob[len(FORMAT) :].split(b"\n", 1)[0])
    if args.cv:
        for name in ("suspicious_at", "malicious_at"):
            print(f"leave-one-corpus-out at {name} = {header[name]:.4f}")
            report(info["rows"], info["probs"], header[name])
            print("  long texts (benign rows joined; one attack row buried in the middle)")
            report(info["extra"], info["extra_probs"], header[name])
    if args.check:
        same = WEIGHTS.read_bytes() == blob
        print("the committed weights are this script's output" if same else "the weights differ")
        sys.exit(0 if same else 1)
    if not args.cv:
        WEIGHTS.write_bytes(blob)
        print(f"wrote {WEIGHTS.relative_to(ROOT)} ({len(blob):,} bytes) sha256:"
              f"{hashlib.sha256(blob).hexdigest()}")  # fmt: skip


if __name__ == "__main__":
    main()
