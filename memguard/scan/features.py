"""The trained scanner's features: hashed character and word n-grams of a normalised text.

Both the training script (``tools/train_scan_model.py``) and :class:`~memguard.scan.model.ModelScanner`
call :func:`features`, so a model sees at run time exactly the features it was trained on.

Normalisation: what invisible or look-alike Unicode hides is revealed first (the rule scanner's own
:func:`~memguard.scan.unicode.reveal`: tag characters spelled out, zero-width and bidi controls
dropped, Cyrillic and Greek look-alikes folded), then NFKC and case folding, then whitespace runs
become one space. Features: every occurrence of the character 3-grams of that text (over code
points, so the same in every script) and of the word 1- and 2-grams of its letters and digits
(every other character separates words), with where each is. A piece of text scores, per group
(character n-grams, word n-grams), the sum of its occurrences' weights divided by their count to
the power :data:`SCALE_POWER`.

Version 3: character 3-grams (version 2: 4-grams) and the power 0.3 (version 2: 0.5, the square
root): measured on the held halves, fewer false positives at the same detection
(docs/scanner.md).

Windows (version 2): a normalised text up to :data:`WHOLE_UP_TO` characters is scored whole; a
longer one in runs of whole sentences of about :data:`WINDOW` characters (:func:`spans`), each
scored from one cumulative sum over the occurrences (:func:`window_logits`), so that one injected
sentence in a long benign text is not averaged away. At most :data:`MAX_WINDOWS` windows.

Every n-gram is hashed with a polynomial hash over its code points in 64-bit wrapping arithmetic,
computed with numpy over the whole text at once (no Python loop per n-gram: a 1 KB text has about
1,300 of them), then spread by a multiplicative hash into ``2**bits`` buckets. The hash depends on
nothing but the code points, so it is the same in every process and on every platform.

Speed (issue 17, modelspeed): an ASCII text (most memories) is normalised as bytes (one
``bytes.translate`` folds case and whitespace; it is split into words only if it has whitespace to
collapse) and its word and stop masks are ``bytes.translate`` tables too; every hash is computed in
one preallocated buffer in place; a windowed text's bounds are one (2, segments, windows) array and
its sums come from one float64 cumulative sum over weights widened once at load. The scores are
the reference code's (``tests/test_scan_model_identity.py`` pins them to a golden file).

The scanner itself scores with :mod:`memguard.scan.logits` (modelkernel: a batch of texts in one
pass, the same features and windows); :func:`features` and :func:`window_logits` stay the per-text
form the training script and the tests use. A non-ASCII text's whitespace is collapsed over its
UTF-8 bytes when all of it is ASCII (:func:`_collapsed`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from memguard.scan.unicode import reveal

__all__ = [
    "CHAR_NGRAMS",
    "FEATURES_VERSION",
    "SCALE_POWER",
    "Features",
    "features",
    "normalise",
    "spans",
    "window_logits",
]

#: bump when the features change (a model trained on other features must not load)
FEATURES_VERSION = "3"
CHAR_NGRAMS = (3,)
#: a normalised text up to this long is scored whole; a longer one in windows
WHOLE_UP_TO = 240
#: the windows of a longer text: this many characters, one every STRIDE characters
WINDOW = 160
STRIDE = 64
#: at most this many windows (a wider stride past it): 1 MB of text costs what 64 KB costs
MAX_WINDOWS = 512
#: at most this many characters are read: a longer text gives its first and last halves
MAX_CHARS = 1 << 16
#: a group's sum of weights is divided by its occurrence count to this power (0.5 would be the
#: square root; lower lets a longer text's evidence add up more, a short text's few n-grams
#: weigh less each)
SCALE_POWER = 0.3

_P = np.uint64(0x100000001B3)  # the FNV-1 64-bit prime (odd: invertible modulo 2**64)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier
_WORD_SALT = np.uint64(0xA24BAED4963EE407)
_PAIR_SALT = np.uint64(0x94D049BB133111EB)
# word characters: ASCII letters and digits, and every non-ASCII character but the general
# punctuation (U+2000-U+206F) and CJK punctuation (U+3000-U+303F) blocks (NFKC has already turned
# full-width forms into ASCII)
_ASCII_WORD = np.array([chr(i).isalnum() for i in range(128)], dtype=bool)

U64 = npt.NDArray[np.uint64]
_T = TypeVar("_T", bound=np.generic)


@dataclass(frozen=True, slots=True)
class Features:
    """Every n-gram occurrence of one text (a repeated n-gram counts each time), where it is and
    which group it belongs to.

    ``buckets[i]`` is the bucket of the i-th occurrence. ``segments`` cut it into runs
    ``(lo, hi, group)`` (group 0: character n-grams, 1: word n-grams): one per character n-gram
    length (the i-th occurrence of a segment of n-grams starts at character i of the normalised
    text, ``length`` characters), then the words (the k-th spans ``word_starts[k]`` to
    ``word_ends[k]``), then the word pairs (the k-th joins words k and k + 1). :meth:`located`
    gives every occurrence's span; the occurrences inside a window are one slice of each segment
    (:func:`window_logits`)."""

    buckets: npt.NDArray[np.intp]
    segments: tuple[tuple[int, int, int], ...]
    length: int
    word_starts: npt.NDArray[np.intp]
    word_ends: npt.NDArray[np.intp]
    #: the windows it is scored in (:func:`spans`)
    win_starts: npt.NDArray[np.intp]
    win_ends: npt.NDArray[np.intp]

    def located(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The start and end of every occurrence in the normalised text (in ``buckets`` order;
        within a segment both never decrease)."""
        starts, ends = [_NONE], [_NONE]
        words = 0
        for lo, hi, group in self.segments:
            if group == 0:
                n = self.length - (hi - lo) + 1
                st = np.arange(hi - lo, dtype=np.intp)
                starts.append(st)
                ends.append(st + n)
            elif words == 0:
                starts.append(self.word_starts)
                ends.append(self.word_ends)
                words = 1
            else:
                starts.append(self.word_starts[:-1])
                ends.append(self.word_ends[1:])
        return np.concatenate(starts), np.concatenate(ends)

    @property
    def chars(self) -> int:
        return sum(hi - lo for lo, hi, group in self.segments if group == 0)

    @property
    def words(self) -> int:
        return sum(hi - lo for lo, hi, group in self.segments if group == 1)


_NONE = np.zeros(0, dtype=np.intp)
_NONE.flags.writeable = False
_EMPTY = Features(
    _NONE, (), 0, _NONE, _NONE, np.zeros(1, dtype=np.intp), np.zeros(1, dtype=np.intp)
)


#: characters that end a sentence or a clause (windows start and end after them), as a table
#: over the Basic Multilingual Plane
_STOP = np.zeros(0x10000, dtype=bool)
_STOP[[ord(c) for c in ".!?;:\u2026\u3002\uff01\uff1f\uff1b\u061f\u06d4\u0964\u0965"]] = True
_BMP_LAST = np.uint32(0xFFFF)  # not a stop: what every character past the BMP is looked up as


def spans(
    c32: npt.NDArray[np.uint32], ascii_only: bool = False
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The windows a normalised text (its code points) is scored in: the whole text up to
    :data:`WHOLE_UP_TO` characters; else runs of whole sentences of at most :data:`WINDOW`
    characters (one sentence more where they make less than half a window), one starting at each
    sentence, a sentence longer than :data:`WINDOW` cut every :data:`STRIDE` characters; a text
    of more than :data:`MAX_WINDOWS` sentences in fixed windows instead (at most that many).
    Every character is in some window."""
    length = len(c32)
    if length <= WHOLE_UP_TO:
        return _whole(length)
    return _windows(length, _STOP[c32 if ascii_only else np.minimum(c32, _BMP_LAST)])


def _whole(length: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    return np.zeros(1, dtype=np.intp), np.full(1, length, dtype=np.intp)


def _windows(
    length: int, stops: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """:func:`spans` of a text longer than :data:`WHOLE_UP_TO` whose stops (one flag per
    character) are ``stops``."""
    # a sentence ends after a stop (one as the last character ends nothing)
    cuts = stops[:-1].nonzero()[0]
    bounds = np.empty(len(cuts) + 2, dtype=np.intp)
    bounds[0], bounds[-1] = 0, length
    np.add(cuts, 1, out=bounds[1:-1])
    if int((bounds[1:] - bounds[:-1]).max()) > WINDOW:
        # cut the long sentences every STRIDE characters: every piece is then at most WINDOW long
        extra = np.arange(STRIDE, length, STRIDE, dtype=np.intp)
        piece = bounds.searchsorted(extra, "right") - 1
        inside = (bounds[piece + 1] - bounds[piece] > WINDOW) & (bounds[piece] != extra)
        bounds = np.sort(np.concatenate((bounds, extra[inside])))
    first = bounds[:-1]
    if len(first) > MAX_WINDOWS:
        # too many sentences: fixed windows, the stride widened so that there are at most
        # MAX_WINDOWS (a normalised text is at most MAX_CHARS long, so they still overlap)
        room = length - WINDOW
        stride = max(STRIDE, -(-room // (MAX_WINDOWS - 1)))
        starts = np.append(np.arange(0, room, stride, dtype=np.intp), room)
        return starts, starts + WINDOW
    # the last bound within WINDOW of each start (past the start's own: no piece is longer);
    # one more where that makes less than half a window
    j = bounds.searchsorted(first + WINDOW, "right") - 1
    j += (bounds[j] - first < WINDOW // 2) & (j < len(first))
    ends = bounds[j]
    # a window still shorter than half of one (the text's last sentences) reaches back instead
    return np.where(ends - first < WINDOW // 2, np.maximum(ends - WINDOW, 0), first), ends


def window_logits(
    vector: npt.NDArray[np.float32] | npt.NDArray[np.float64], bias: float, f: Features
) -> npt.NDArray[np.float64]:
    """The model's logit for every window of :func:`spans`: the bias plus, per group, the sum of
    the weights of the occurrences inside the window divided by their count to the power
    :data:`SCALE_POWER`.

    One cumulative sum over all occurrences; a window's slice of each segment is index arithmetic
    for the character n-grams (the n-gram at position i starts at i), one binary search each for
    the first and the last word, and follows from the words' for the word pairs."""
    s, e = f.win_starts, f.win_ends
    if not len(f.buckets):
        return np.full(len(s), bias)
    if len(s) == 1 and f.win_ends[0] - f.win_starts[0] == f.length:  # the whole text
        n_chars = sum(hi - lo for lo, hi, group in f.segments if group == 0)
        n_words = len(f.buckets) - n_chars
        cuts = [0, n_chars] if 0 < n_chars < len(f.buckets) else [0]
        sums = np.add.reduceat(vector.take(f.buckets), cuts, dtype=np.float64)
        z = bias
        if n_chars:
            z += float(sums[0]) / n_chars**SCALE_POWER
        if n_words:
            z += float(sums[-1]) / n_words**SCALE_POWER
        return np.full(1, z)
    cum = np.empty(len(f.buckets) + 1)
    cum[0] = 0.0
    np.cumsum(vector.take(f.buckets), dtype=np.float64, out=cum[1:])
    if tuple(group for _, _, group in f.segments) == (0, 1, 1):
        return _three_segments(cum, bias, f)
    # every segment's first and last occurrence inside each window, as offsets into ``cum``:
    # ``ends[k] - starts[k]`` occurrences of segment k are inside window i
    k = len(f.segments)
    starts = np.empty((k, len(s)), dtype=np.intp)
    ends = np.empty((k, len(s)), dtype=np.intp)
    chars = 0
    for row, (lo, hi, group) in enumerate(f.segments):
        a, b = starts[row], ends[row]
        if group == 0:  # character n-grams: occurrence lo + i starts at i
            chars = row + 1
            n = f.length - (hi - lo) + 1
            np.minimum(s, hi - lo, out=a)
            np.minimum(e - (n - 1), hi - lo, out=b)
        elif row == chars:  # words
            a[:] = f.word_starts.searchsorted(s, "left")
            b[:] = f.word_ends.searchsorted(e, "right")
        else:  # word pairs: pair k joins words k and k + 1 (the words' rows are not offset yet)
            np.minimum(starts[row - 1], hi - lo, out=a)
            np.minimum(ends[row - 1] - 1, hi - lo, out=b)
        np.maximum(b, a, out=b)
    offsets = np.array([lo for lo, _, _ in f.segments], dtype=np.intp)[:, None]
    count = ends - starts
    sums = cum[ends + offsets] - cum[starts + offsets]
    total = (_rows(sums, 0, chars), _rows(sums, chars, k))
    counts = (_rows(count, 0, chars), _rows(count, chars, k))
    out: npt.NDArray[np.float64] = (
        bias
        + total[0] / np.maximum(counts[0], 1) ** SCALE_POWER
        + total[1] / np.maximum(counts[1], 1) ** SCALE_POWER
    )
    return out


def _three_segments(
    cum: npt.NDArray[np.float64], bias: float, f: Features
) -> npt.NDArray[np.float64]:
    """:func:`window_logits` of the common layout (one character n-gram length, words, word
    pairs) in fewer, wider numpy calls: the same bounds, sums and order of additions."""
    s, e = f.win_starts, f.win_ends
    (lo_c, hi_c, _), (lo_w, hi_w, _), (lo_p, hi_p, _) = f.segments
    n = f.length - (hi_c - lo_c) + 1
    # bounds[0]: each window's first occurrence per segment, bounds[1]: past its last
    bounds = np.empty((2, 3, len(s)), dtype=np.intp)
    bounds[0, 0] = s
    np.subtract(e, n - 1, out=bounds[1, 0])
    bounds[0, 1] = f.word_starts.searchsorted(s, "left")
    bounds[1, 1] = f.word_ends.searchsorted(e, "right")
    np.maximum(bounds[1, 1], bounds[0, 1], out=bounds[1, 1])
    bounds[0, 2] = bounds[0, 1]
    np.subtract(bounds[1, 1], 1, out=bounds[1, 2])
    np.minimum(bounds, _sizes(hi_c - lo_c, hi_w - lo_w, hi_p - lo_p), out=bounds)
    np.maximum(bounds[1], bounds[0], out=bounds[1])
    count = bounds[1] - bounds[0]
    bounds += _sizes(lo_c, lo_w, lo_p)
    sums = cum[bounds[1]] - cum[bounds[0]]
    out: npt.NDArray[np.float64] = (
        bias
        + sums[0] / np.maximum(count[0], 1) ** SCALE_POWER
        + (sums[1] + sums[2]) / np.maximum(count[1] + count[2], 1) ** SCALE_POWER
    )
    return out


def _sizes(a: int, b: int, c: int) -> npt.NDArray[np.intp]:
    return np.array([a, b, c], dtype=np.intp)[:, None]


def _rows(m: npt.NDArray[_T], lo: int, hi: int) -> npt.NDArray[_T]:
    """The sum of rows ``lo`` to ``hi`` of ``m`` (one row is itself: no call)."""
    out: npt.NDArray[_T] = m[lo] if hi - lo == 1 else m[lo:hi].sum(axis=0)
    return out


def _capped(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    half = MAX_CHARS // 2
    return text[:half] + "\n" + text[-half:]


def normalise(text: str) -> str:
    """The text a model reads: hidden Unicode revealed, NFKC, case-folded, whitespace collapsed
    (at most :data:`MAX_CHARS` characters: a longer text gives its first and last halves)."""
    raw = _normalise_ascii(text)
    if raw is not None:
        return raw.decode("ascii")
    text = _capped(text)
    if not text.isascii():
        shown = reveal(text)
        if shown.texts:
            # the hidden texts (tag characters spelled out, the de-obfuscated and folded text)
            # stand in for the text itself
            text = "\n".join(shown.texts)
        text = unicodedata.normalize("NFKC", text)
    # revealing, NFKC and case folding can lengthen a text: cap it again
    return _capped(_collapsed(text.casefold()))


#: every whitespace character (``str.isspace``) past ASCII
_WIDE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
#: ASCII whitespace (``str.split``'s, \x1c-\x1f too) made a space, every other byte kept
_SPACE_BYTES = bytes(ord(" ") if b < 128 and chr(b).isspace() else b for b in range(256))


def _collapsed(text: str) -> str:
    """``" ".join(text.split())``; with C byte operations over the UTF-8 when every whitespace
    character in ``text`` is ASCII (a UTF-8 sequence never holds an ASCII byte), which spares
    making a string per word."""
    if _WIDE_SPACE.search(text) is not None:
        return " ".join(text.split())
    raw = text.encode("utf-8", "surrogatepass").translate(_SPACE_BYTES)
    if b"  " in raw or raw[:1] == b" " or raw[-1:] == b" ":
        raw = b" ".join(raw.split())
    return raw.decode("utf-8", "surrogatepass")


#: ASCII case folding (``str.casefold`` of an ASCII letter is ``str.lower``) with every ASCII
#: character ``str.split`` takes for whitespace (``bytes.split`` does not know \x1c-\x1f) made a
#: space, as a ``bytes.translate`` table
_ASCII_FOLD = bytes(
    ord(" ") if chr(b).isspace() else ord(chr(b).lower()) if b < 128 else b for b in range(256)
)


def _normalise_ascii(text: str) -> bytes | None:
    """:func:`normalise` of an ASCII text, as bytes, in C byte operations (the text is split into
    words only where it has whitespace to collapse); ``None`` for any other text."""
    text = _capped(text)
    if not text.isascii():
        return None
    raw = text.encode("ascii").translate(_ASCII_FOLD)
    if b"  " in raw or raw[:1] == b" " or raw[-1:] == b" ":
        raw = b" ".join(raw.split())
    if len(raw) > MAX_CHARS:  # as _capped
        half = MAX_CHARS // 2
        raw = raw[:half] + b"\n" + raw[-half:]
    return raw


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
    return _WORD_TABLE[np.minimum(c32, _WORD_TABLE_LAST)]


#: the word characters as a table up to U+3040 (every character from there on is one): ASCII's
#: by :data:`_ASCII_WORD`, and every other but U+2000-U+206F and U+3000-U+303F
_WORD_TABLE = np.ones(0x3041, dtype=bool)
_WORD_TABLE[:128] = _ASCII_WORD
_WORD_TABLE[0x2000:0x2070] = False
_WORD_TABLE[0x3000:0x3040] = False
_WORD_TABLE_LAST = np.uint32(0x3040)


#: ``bytes.translate`` tables over ASCII: 1 for a word character (:data:`_ASCII_WORD`), 1 for a
#: stop (:data:`_STOP`); a text that is ASCII gets its masks in one C pass each, no gather
_WORD_BYTES = bytes(int(b < 128 and bool(_ASCII_WORD[b])) for b in range(256))
_STOP_BYTES = bytes(int(b < 128 and bool(_STOP[b])) for b in range(256))


def features(text: str, bits: int) -> Features:
    """Every occurrence of ``text``'s character and word n-grams: its bucket
    (``0 <= i < 2**bits``) and where it is."""
    if not 8 <= bits <= 30:
        raise ValueError("bits is between 8 and 30")
    raw = _normalise_ascii(text)
    if raw is None:
        norm = normalise(text)
        raw = norm.encode("ascii") if norm.isascii() else b""
    else:
        norm = ""
    length = len(raw) or len(norm)
    if not length:
        return _EMPTY
    c: npt.NDArray[np.uint8] | npt.NDArray[np.uint32]
    if raw:
        c = np.frombuffer(raw, dtype=np.uint8)
        padded = np.frombuffer(b"\0" + raw.translate(_WORD_BYTES) + b"\0", dtype=np.int8)
    else:
        c = c32 = np.frombuffer(norm.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        padded = np.zeros(length + 2, dtype=np.int8)
        padded[1:-1] = _word_mask(c32, False)
    p_pow, q_pow = _powers()
    # G[i] = sum_{j<i} c[j] * P**-j, so the hash of c[s:e], sum_j c[j] * P**(e-1-j), is
    # (G[e] - G[s]) * P**(e-1): every n-gram's hash from one cumulative sum (uint64 arrays wrap
    # modulo 2**64 without a warning)
    g = np.empty(length + 1, dtype=np.uint64)
    g[0] = 0
    np.multiply(c, q_pow[:length], out=g[1:])
    np.add.accumulate(g[1:], out=g[1:])
    edges = (padded[1:] != padded[:-1]).nonzero()[0]  # a word's start, then its end, ...
    w_starts, w_ends = edges[0::2], edges[1::2]
    n_words = len(w_starts)
    # every hash in one buffer, in the segments' order: character n-grams, words, word pairs
    sizes = [max(length - n + 1, 0) for n in CHAR_NGRAMS]
    chars = sum(sizes)
    n_pairs = max(n_words - 1, 0)
    if not chars + n_words:
        return _EMPTY
    buf = np.empty(chars + n_words + n_pairs, dtype=np.uint64)
    segments: list[tuple[int, int, int]] = []
    at = 0
    for n, size in zip(CHAR_NGRAMS, sizes, strict=True):
        if size:
            h = buf[at : at + size]
            np.subtract(g[n:], g[:-n], out=h)
            np.multiply(h, p_pow[n - 1 : length], out=h)
            segments.append((at, at + size, 0))
            at += size
    if n_words:
        words = buf[at : at + n_words]
        np.subtract(g[w_ends], g[w_starts], out=words)
        words *= p_pow[w_ends - 1]
        words ^= _WORD_SALT
        segments.append((at, at + n_words, 1))
        at += n_words
        if n_pairs:
            pairs = buf[at:]
            np.multiply(words[:-1], _PAIR_SALT, out=pairs)
            pairs += words[1:]
            segments.append((at, at + n_pairs, 1))
    # character n-grams in the lower half of the buckets, word n-grams in the upper half
    buf *= _MIX
    buf >>= np.uint64(65 - bits)
    buckets = buf.view(np.int64).astype(np.intp, copy=False)
    buckets[chars:] += 1 << (bits - 1)
    if length <= WHOLE_UP_TO:
        win_starts, win_ends = _whole(length)
    elif raw:
        stops = np.frombuffer(raw.translate(_STOP_BYTES), dtype=np.bool_)
        win_starts, win_ends = _windows(length, stops)
    else:
        win_starts, win_ends = _windows(length, _STOP[np.minimum(c32, _BMP_LAST)])
    return Features(
        buckets,
        tuple(segments),
        length,
        w_starts.astype(np.intp, copy=False),
        w_ends.astype(np.intp, copy=False),
        win_starts,
        win_ends,
    )
