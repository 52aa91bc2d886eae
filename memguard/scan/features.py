"""The trained scanner's features: hashed character and word n-grams of a normalised text.

Both the training script (``tools/train_scan_model.py``) and :class:`~memguard.scan.model.ModelScanner`
call :func:`features`, so a model sees at run time exactly the features it was trained on.

Normalisation: what invisible or look-alike Unicode hides is revealed first (the rule scanner's own
:func:`~memguard.scan.unicode.reveal`: tag characters spelled out, zero-width and bidi controls
dropped, Cyrillic and Greek look-alikes folded), then NFKC and case folding, then whitespace runs
become one space. Features: character 4-grams of that text, and word 1- and 2-grams of
its letters and digits (every other character separates words).

Every n-gram is hashed with a polynomial hash over its code points in 64-bit wrapping arithmetic,
computed with numpy over the whole text at once (no Python loop per n-gram: a 1 KB text has about
1,300 of them), then spread by a multiplicative hash into ``2**bits`` buckets. The hash depends on
nothing but the code points, so it is the same in every process and on every platform.
"""

from __future__ import annotations

import functools
import threading
import unicodedata
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memguard.scan.unicode import reveal

__all__ = ["CHAR_NGRAMS", "FEATURES_VERSION", "Features", "features", "normalise"]

#: bump when the features change (a model trained on other features must not load)
FEATURES_VERSION = "1"
CHAR_NGRAMS = (4,)
#: at most this many characters are read: a longer text gives its first and last halves
MAX_CHARS = 1 << 16

_P = np.uint64(0x100000001B3)  # the FNV-1 64-bit prime (odd: invertible modulo 2**64)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier
_WORD_SALT = np.uint64(0xA24BAED4963EE407)
_PAIR_SALT = np.uint64(0x94D049BB133111EB)
# word characters: ASCII letters and digits, and every non-ASCII character but the general
# punctuation (U+2000-U+206F) and CJK punctuation (U+3000-U+303F) blocks (NFKC has already turned
# full-width forms into ASCII)
_ASCII_WORD = np.array([chr(i).isalnum() for i in range(128)], dtype=bool)

U64 = npt.NDArray[np.uint64]


@dataclass(frozen=True, slots=True)
class Features:
    """The distinct buckets of one text's n-grams (a repeated n-gram counts once): the first
    ``chars`` are its character n-grams', the rest its word n-grams'."""

    buckets: npt.NDArray[np.intp]
    chars: int

    @property
    def words(self) -> int:
        return len(self.buckets) - self.chars


_EMPTY = Features(np.zeros(0, dtype=np.intp), 0)
_EMPTY.buckets.flags.writeable = False


def _capped(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    half = MAX_CHARS // 2
    return text[:half] + "\n" + text[-half:]


def normalise(text: str) -> str:
    """The text a model reads: hidden Unicode revealed, NFKC, case-folded, whitespace collapsed
    (at most :data:`MAX_CHARS` characters: a longer text gives its first and last halves)."""
    text = _capped(text)
    if not text.isascii():
        shown = reveal(text)
        if shown.texts:
            # the hidden texts (tag characters spelled out, the de-obfuscated and folded text)
            # stand in for the text itself
            text = "\n".join(shown.texts)
        text = unicodedata.normalize("NFKC", text)
    # revealing, NFKC and case folding can lengthen a text: cap it again
    return _capped(" ".join(text.casefold().split()))


@functools.cache
def _powers() -> tuple[U64, U64]:
    """``P**i`` and ``P**-i`` modulo 2**64 for i up to the longest text read (about 1 MB; made
    on first use)."""
    n = MAX_CHARS + 2
    q = np.uint64(pow(int(_P), -1, 1 << 64))
    with np.errstate(over="ignore"):
        p_pow = np.cumprod(np.full(n, _P, dtype=np.uint64), dtype=np.uint64)
        q_pow = np.cumprod(np.full(n, q, dtype=np.uint64), dtype=np.uint64)
    # shift so that index i holds the i-th power (index 0 holds 1)
    one = np.ones(1, dtype=np.uint64)
    return np.concatenate([one, p_pow[:-1]]), np.concatenate([one, q_pow[:-1]])


def _word_mask(c32: npt.NDArray[np.uint32], ascii_only: bool) -> npt.NDArray[np.bool_]:
    if ascii_only:
        return _ASCII_WORD[c32]
    ascii_word = _ASCII_WORD[c32 & np.uint32(127)]
    other = ~(((c32 >= 0x2000) & (c32 < 0x2070)) | ((c32 >= 0x3000) & (c32 < 0x3040)))
    return np.where(c32 < 128, ascii_word, other)


def features(text: str, bits: int) -> Features:
    """The bucket indices (``0 <= i < 2**bits``) of ``text``'s character and word n-grams."""
    if not 8 <= bits <= 30:
        raise ValueError("bits is between 8 and 30")
    norm = normalise(text)
    c32 = np.frombuffer(norm.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    length = len(c32)
    if not length:
        return _EMPTY
    p_pow, q_pow = _powers()
    # G[i] = sum_{j<i} c[j] * P**-j, so the hash of c[s:e], sum_j c[j] * P**(e-1-j), is
    # (G[e] - G[s]) * P**(e-1): every n-gram's hash from one cumulative sum (uint64 arrays wrap
    # modulo 2**64 without a warning)
    g = np.zeros(length + 1, dtype=np.uint64)
    np.cumsum(c32 * q_pow[:length], dtype=np.uint64, out=g[1:])
    parts = [(g[n:] - g[:-n]) * p_pow[n - 1 : length] for n in CHAR_NGRAMS if length >= n]
    chars = sum(len(p) for p in parts)
    padded = np.zeros(length + 2, dtype=np.int8)
    padded[1:-1] = _word_mask(c32, norm.isascii())
    edges = np.flatnonzero(np.diff(padded))  # a word's start, then its end, ...
    starts, ends = edges[0::2], edges[1::2]
    if len(starts):
        words = ((g[ends] - g[starts]) * p_pow[ends - 1]) ^ _WORD_SALT
        parts += [words, (words[:-1] * _PAIR_SALT) + words[1:]]
    if not parts:
        return _EMPTY
    # character n-grams in the lower half of the buckets, word n-grams in the upper half
    buckets = ((np.concatenate(parts) * _MIX) >> np.uint64(65 - bits)).astype(np.intp)
    buckets[chars:] += 1 << (bits - 1)
    kept = _distinct(buckets, bits)
    return Features(buckets[kept], int(np.count_nonzero(kept[:chars])))


_scratch = threading.local()


def _distinct(buckets: npt.NDArray[np.intp], bits: int) -> npt.NDArray[np.bool_]:
    """Which positions of ``buckets`` to keep so that each bucket is kept once, in O(n) (no
    sort): each position writes its own index into a per-thread scratch table at its bucket;
    whichever write lands, exactly one position per bucket reads its own index back."""
    n = len(buckets)
    table: npt.NDArray[np.int32] | None = getattr(_scratch, "table", None)
    if table is None or len(table) != 1 << bits:
        table = _scratch.table = np.empty(1 << bits, dtype=np.int32)
    positions = np.arange(n, dtype=np.int32)
    table[buckets] = positions
    kept: npt.NDArray[np.bool_] = table[buckets] == positions
    return kept
