"""The trained scanner: a logistic regression over hashed n-grams, weights shipped in the package.

:class:`ModelScanner` (id ``memguard.model``) reads ``memguard/scan/model.bin``, made by
``tools/train_scan_model.py`` (deterministic; the file records the digest of the rows it was trained
on, the script's version and the thresholds it chose) and scores a text with numpy alone: the sum of
the weights of the text's character and word n-grams (:mod:`memguard.scan.features`), each group
divided by its size to the power 0.3, plus a bias, through the logistic function. A long text is
scored in windows of whole sentences; its logit is its highest window's less the file's
``window_offset`` (calibrated so that long benign texts are flagged no more often than short
ones). Nothing is downloaded; nothing but that file is read. The logits are computed by
:mod:`memguard.scan.logits`: :meth:`ModelScanner.scan_many`, which a scan stage calls with its
whole batch, scores the texts together in one pass (issue 17, modelkernel).

The file is checked before use: its SHA-256 must be the one pinned here (:data:`WEIGHTS_SHA256`;
the scanner's version names it), its header the features this code computes, its weights finite.
A file that is missing, altered or unreadable never makes a verdict ``clean``: the scanner is still
built (so a deployment opens), and every ``scan`` raises :class:`ModelUnavailable`, which the scan
stage records as its ``error`` outcome (capped to ``untrusted``) for each fact.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memguard.scan.features import FEATURES_VERSION
from memguard.scan.logits import batch_logits, text_logits
from memguard.scan.verdict import Label, ScanContext, Verdict

__all__ = ["FORMAT", "WEIGHTS", "WEIGHTS_SHA256", "ModelScanner", "ModelUnavailable", "Weights"]

FORMAT = b"memguard-scan-model/1\n"
WEIGHTS = Path(__file__).with_name("model.bin")
#: the SHA-256 of the shipped weights file (tools/train_scan_model.py prints it)
WEIGHTS_SHA256 = "fba10aca342e4449ba91e5e4eac13934b30a585a3b563715a95a692fb62faa3b"
_MAX_FILE = 16 << 20
_REASON = "model.injection"


def _logistic(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.maximum(z, -700.0)))
    return out


class ModelUnavailable(RuntimeError):
    """The weights file is missing, altered or unreadable: no verdict can be given."""


@dataclass(frozen=True, slots=True)
class Weights:
    """A checked weights file: the weight vector, the bias, the thresholds and the header."""

    vector: npt.NDArray[np.float32]
    bias: float
    bits: int
    suspicious_at: float
    malicious_at: float
    #: subtracted from a windowed (long) text's highest window logit: long benign texts have more
    #: windows to score high by chance (tools/train_scan_model.py calibrates it)
    window_offset: float
    sha256: str
    header: dict[str, Any] = field(repr=False)
    #: ``vector`` widened to float64 once (the sums are taken in float64: gathering from this
    #: spares a conversion per text)
    wide: npt.NDArray[np.float64] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "wide", self.vector.astype(np.float64))


def load_weights(path: Path = WEIGHTS, sha256: str | None = WEIGHTS_SHA256) -> Weights:
    """Read and check a weights file (``sha256``: the digest it must have; ``None`` takes any)."""
    try:
        with path.open("rb") as f:
            blob = f.read(_MAX_FILE + 1)
    except OSError as exc:
        raise ModelUnavailable(f"cannot read the weights file: {type(exc).__name__}") from None
    if len(blob) > _MAX_FILE:
        raise ModelUnavailable("the weights file is too large")
    digest = hashlib.sha256(blob).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ModelUnavailable("the weights file's digest is not the pinned one")
    if not blob.startswith(FORMAT):
        raise ModelUnavailable("not a memguard scan model file")
    try:
        line, body = blob[len(FORMAT) :].split(b"\n", 1)
        header = json.loads(line)
        bits = header["bits"]
        if header["features"] != FEATURES_VERSION or type(bits) is not int or not 8 <= bits <= 30:
            raise ModelUnavailable("the weights were trained on other features")
        vector = np.frombuffer(zlib.decompress(body, bufsize=(4 << bits)), dtype="<f4")
        bias = float(header["bias"])
        suspicious_at = float(header["suspicious_at"])
        malicious_at = float(header["malicious_at"])
        window_offset = float(header["window_offset"])
    except ModelUnavailable:
        raise
    except (ValueError, KeyError, TypeError, zlib.error) as exc:
        raise ModelUnavailable(f"the weights file is corrupt: {type(exc).__name__}") from None
    if len(vector) != 1 << bits:
        raise ModelUnavailable("the weights file is corrupt: wrong length")
    if not (np.isfinite(vector).all() and math.isfinite(bias) and math.isfinite(window_offset)):
        raise ModelUnavailable("the weights file is corrupt: a weight is not finite")
    if not 0.0 < suspicious_at <= malicious_at <= 1.0:
        raise ModelUnavailable("the weights file's thresholds are out of order")
    if window_offset < 0.0:
        raise ModelUnavailable("the weights file's window offset is negative")
    return Weights(
        vector.astype(np.float32),
        bias,
        bits,
        suspicious_at,
        malicious_at,
        window_offset,
        digest,
        header,
    )


class ModelScanner:
    """The trained scanner (see the module docstring); runs next to :class:`RuleScanner` in one
    :class:`~memguard.scan.stage.ScanStage`, where the worse verdict wins."""

    id = "memguard.model"
    #: a bounded running time (features.MAX_CHARS read, at most MAX_WINDOWS windows): a scan stage
    #: may run it in the caller's thread over a small batch, and call ``scan`` for a batch of one
    #: (``scan_many`` is ``scan`` of each; not inherited, memguard/scan/stage.py)
    bounded = True

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        sha256: str | None = None,
        suspicious_at: float | None = None,
        malicious_at: float | None = None,
    ) -> None:
        """``path``: another weights file; ``sha256``: the digest it must have (the shipped file
        always has to have :data:`WEIGHTS_SHA256`; another file, any, unless given);
        ``suspicious_at`` / ``malicious_at``: thresholds on the probability other than the ones
        the file records."""
        self.path = WEIGHTS if path is None else Path(path)
        if path is None and sha256 is None:
            sha256 = WEIGHTS_SHA256
        self._thresholds = (suspicious_at, malicious_at)
        self._weights: Weights | None = None
        self._error: ModelUnavailable | None = None
        try:
            self._weights = self._load(sha256)
        except ModelUnavailable as exc:
            self._error = exc
        digest = self._weights.sha256 if self._weights is not None else sha256 or "unloaded"
        self.version = f"{FEATURES_VERSION}+{digest[:12]}"

    def _load(self, sha256: str | None) -> Weights:
        weights = load_weights(self.path, sha256)
        s, m = self._thresholds
        s = weights.suspicious_at if s is None else s
        m = weights.malicious_at if m is None else m
        if not 0.0 < s <= m <= 1.0:
            raise ValueError("thresholds must satisfy 0 < suspicious_at <= malicious_at <= 1")
        return dataclasses.replace(weights, suspicious_at=s, malicious_at=m)

    @property
    def weights(self) -> Weights:
        """The checked weights; raises :class:`ModelUnavailable` if the file was not usable."""
        if self._weights is None:
            assert self._error is not None
            raise ModelUnavailable(str(self._error))
        return self._weights

    def probability(self, text: str) -> float:
        """The model's probability that ``text`` is an injection."""
        return self._probability(self.weights, text)

    def window_probabilities(self, text: str) -> npt.NDArray[np.float64]:
        """The model's probability for each window of ``text``
        (:func:`memguard.scan.features.spans`; one for a short text)."""
        w = self.weights
        return _logistic(self._logits(w, text))

    @staticmethod
    def _logits(w: Weights, text: str) -> npt.NDArray[np.float64]:
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        z = text_logits(w.wide, w.bias, text)
        if len(z) > 1:
            z = z - w.window_offset
        if not np.isfinite(z).all():  # pragma: no cover - finite weights give a finite sum
            raise ModelUnavailable("the model's score is not finite")
        return z

    @staticmethod
    def _probability(w: Weights, text: str) -> float:
        # the highest window's: one injected sentence in a long benign text is not averaged away
        # (the offset taken from the highest logit, not from each: the same number)
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        z = text_logits(w.wide, w.bias, text)
        top = float(z[0]) if len(z) == 1 else float(z.max()) - w.window_offset
        if not math.isfinite(top):  # pragma: no cover - finite weights give a finite sum
            raise ModelUnavailable("the model's score is not finite")
        return _probability_of(top)

    @staticmethod
    def _probabilities(w: Weights, texts: Sequence[str]) -> list[float]:
        """:meth:`_probability` of each text, the texts scored together
        (:func:`memguard.scan.logits.batch_logits`)."""
        for text in texts:
            if not isinstance(text, str):
                raise TypeError("text must be a string")
        z, first = batch_logits(w.wide, w.bias, texts)
        if not np.isfinite(z).all():  # pragma: no cover - finite weights give a finite sum
            raise ModelUnavailable("the model's score is not finite")
        if not texts:
            return []
        top = np.maximum.reduceat(z, first[:-1])
        windowed = first[1:] - first[:-1] > 1
        top[windowed] -= w.window_offset
        return [_probability_of(t) for t in top.tolist()]

    def scan(self, text: str, context: ScanContext | None = None) -> Verdict:
        """Score ``text``; ``context`` is accepted for the protocol (the model ignores the channel)."""
        w = self.weights
        return self._verdict(w, self._probability(w, text))

    def scan_many(self, items: Sequence[tuple[str, ScanContext]]) -> list[Verdict]:
        """:meth:`scan` of each ``(text, context)``, the texts scored together in one pass (what a
        :class:`~memguard.scan.stage.ScanStage` calls for a batch); any failure raises, for the
        whole batch."""
        if type(self).scan is not ModelScanner.scan:  # a subclass that scans its own way
            return [self.scan(t, c) for t, c in items]
        w = self.weights
        return [self._verdict(w, p) for p in self._probabilities(w, [t for t, _ in items])]

    def _verdict(self, w: Weights, p: float) -> Verdict:
        if p >= w.malicious_at:
            label = Label.MALICIOUS
        elif p >= w.suspicious_at:
            label = Label.SUSPICIOUS
        else:
            label = Label.CLEAN
        reasons = () if label is Label.CLEAN else (_REASON,)
        return Verdict(label, round(p, 4), reasons, self.id, self.version)


def _probability_of(top: float) -> float:
    return 1.0 / (1.0 + math.exp(-top)) if top > -700 else 0.0
