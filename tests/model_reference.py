"""The trained scanner's window logits computed the plain way, one text at a time, in Python.

A reference for tests/test_scan_logits.py: no numpy tricks, no prefix sums, no joined batches;
every n-gram hashed with Horner's rule over its code points, the windows found with a loop over
the sentence bounds (the rules of :func:`memguard.scan.features.spans`), every window's
occurrences found by where they are. Slow (quadratic in a long text's windows); for short and
medium texts only. Normalisation is the package's :func:`~memguard.scan.features.normalise`
(tests/test_scan_model_identity.py checks it on its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from memguard.scan import features as feats

_MASK = (1 << 64) - 1
_P = 0x100000001B3
_MIX = 0x9E3779B97F4A7C15
_WORD_SALT = 0xA24BAED4963EE407
_PAIR_SALT = 0x94D049BB133111EB
_STOPS = set(".!?;:\u2026\u3002\uff01\uff1f\uff1b\u061f\u06d4\u0964\u0965")


def _hash(codes: Sequence[int]) -> int:
    h = 0
    for c in codes:
        h = (h * _P + c) & _MASK
    return h


def _bucket(h: int, bits: int) -> int:
    return ((h * _MIX) & _MASK) >> (65 - bits)


def _is_word(c: int) -> bool:
    if c < 128:
        return chr(c).isalnum()
    return not (0x2000 <= c < 0x2070 or 0x3000 <= c < 0x3040)


def occurrences(norm: str, bits: int) -> list[tuple[int, int, int, int]]:
    """Every n-gram occurrence of a normalised text: (group, start, end, bucket); group 0 the
    character 3-grams, 1 the words and the word pairs."""
    codes = [ord(c) for c in norm]
    out = [(0, i, i + 3, _bucket(_hash(codes[i : i + 3]), bits)) for i in range(len(codes) - 2)]
    words: list[tuple[int, int, int]] = []
    i = 0
    while i < len(codes):
        if _is_word(codes[i]):
            j = i
            while j < len(codes) and _is_word(codes[j]):
                j += 1
            words.append((i, j, _hash(codes[i:j]) ^ _WORD_SALT))
            i = j
        else:
            i += 1
    half = 1 << (bits - 1)
    out += [(1, a, b, _bucket(h, bits) + half) for a, b, h in words]
    for (a, _, h1), (_, b, h2) in pairwise(words):
        out.append((1, a, b, _bucket((h1 * _PAIR_SALT + h2) & _MASK, bits) + half))
    return out


def windows(norm: str) -> list[tuple[int, int]]:
    """The windows of :func:`memguard.scan.features.spans`, in a loop."""
    n = len(norm)
    if n <= feats.WHOLE_UP_TO:
        return [(0, n)]
    bounds = [0] + [i + 1 for i in range(n - 1) if norm[i] in _STOPS] + [n]
    longs = [(a, b) for a, b in pairwise(bounds) if b - a > feats.WINDOW]
    if longs:
        extra = [
            k for k in range(feats.STRIDE, n, feats.STRIDE) if any(a < k < b for a, b in longs)
        ]
        bounds = sorted(bounds + extra)
    first = bounds[:-1]
    if len(first) > feats.MAX_WINDOWS:
        room = n - feats.WINDOW
        stride = max(feats.STRIDE, -(-room // (feats.MAX_WINDOWS - 1)))
        starts = [*range(0, room, stride), room]
        return [(s, s + feats.WINDOW) for s in starts]
    out = []
    for start in first:
        j = max(k for k, b in enumerate(bounds) if b <= start + feats.WINDOW)
        if bounds[j] - start < feats.WINDOW // 2 and j < len(first):
            j += 1
        end = bounds[j]
        out.append(
            (max(end - feats.WINDOW, 0), end) if end - start < feats.WINDOW // 2 else (start, end)
        )
    return out


def window_logits(text: str, vector: Sequence[float], bias: float, bits: int) -> list[float]:
    """Every window's logit: the bias plus, per group, the weights of the occurrences inside the
    window summed and divided by their count to the power 0.3 (nothing inside: nothing added)."""
    norm = feats.normalise(text)
    occ = occurrences(norm, bits)
    out = []
    for s, e in windows(norm):
        z = bias
        for group in (0, 1):
            inside = [vector[k] for g, a, b, k in occ if g == group and s <= a and b <= e]
            if inside:
                z += sum(inside) / len(inside) ** feats.SCALE_POWER
        out.append(z)
    return out
