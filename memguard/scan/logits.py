"""The trained scanner's window logits for many texts in one pass (issue 17, modelkernel).

:func:`memguard.scan.features.features` and :func:`~memguard.scan.features.window_logits` score
one text in about sixty small numpy calls, each with a fixed cost that is most of a 1 KB text's.
:func:`batch_logits` computes the same logits for a batch of texts with the same calls over the
texts joined end to end, so a batch of 32 pays for them once:

- the normalised texts (:func:`~memguard.scan.features.normalise`; ASCII ones as bytes) are
  joined with one separator character between them (not a word character, not a stop), so no
  word spans two texts; each text's occurrences are where its characters are in the join;
- the polynomial hash of an n-gram does not depend on where it starts (``(G[e] - G[s]) *
  P**(e-1)`` is ``sum c[j] * P**(e-1-j)``), so the terms ``c[j] * P**-j`` over the join hash
  every text's n-grams as :func:`~memguard.scan.features.features` does (a 3-gram's three terms
  added, every word's with one ``reduceat``: no sequential prefix sum); the n-grams and word
  pairs that span a separator are hashed but lie inside no window;
- the sentence bounds of every windowed text come from one stop mask over the join (each text's
  start and end marked too) and :func:`~memguard.scan.features.spans`' rules are applied to all
  of them at once, a text's windows never reaching past its own end;
- every window's sums come from one ``reduceat`` over the join's weights (its character
  n-grams, and its words and word pairs, which are interleaved so that they are one range).

Texts are joined in chunks of at most :data:`~memguard.scan.features.MAX_CHARS` characters (the
hash's power tables' length). The logits are the reference code's up to rounding (the sums are
added in another order): ``tests/test_scan_model_identity.py`` holds them to a golden file within
1e-9 and ``tests/test_scan_logits.py`` to a plain per-text computation.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

import numpy as np
import numpy.typing as npt

from memguard.scan import features as _features
from memguard.scan.features import (
    _BMP_LAST,
    _MIX,
    _PAIR_SALT,
    _STOP,
    _STOP_BYTES,
    _WORD_BYTES,
    _WORD_SALT,
    _WORD_TABLE,
    _WORD_TABLE_LAST,
    CHAR_NGRAMS,
    MAX_CHARS,
    MAX_WINDOWS,
    SCALE_POWER,
    STRIDE,
    WINDOW,
    _normalise_ascii,
    _powers,
    normalise,
)
from memguard.scan.features import _windows as _windows_of_one

__all__ = ["batch_logits", "text_logits"]

F64 = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]

#: one character n-gram length (3) is what this kernel computes; other lengths need features.py
(_N,) = CHAR_NGRAMS
#: the most characters one chunk joins (its texts and the separators between them)
_CHUNK = MAX_CHARS + 1


U64 = npt.NDArray[np.uint64]
_POWERS: tuple[U64, U64, U64] | None = None


def _load_powers() -> tuple[U64, U64, U64]:
    """features._powers() (``P**i`` and ``P**-i``) and ``P**(i-1)``, kept here once made (a
    cached call costs more than a global read; threads that race here make the same tables)."""
    global _POWERS
    if _POWERS is None:
        p_pow, q_pow = _powers()
        _POWERS = (p_pow, q_pow, np.concatenate((q_pow[1:2], p_pow[:-1])))
    return _POWERS


def _normalised(text: str) -> bytes | str:
    """The normalised text: bytes when it is ASCII (most texts), else a string."""
    if not isinstance(text, str):
        raise TypeError("text must be a string")
    raw = _normalise_ascii(text)
    if raw is not None:
        return raw
    norm = normalise(text)
    return norm.encode("ascii") if norm.isascii() else norm


def batch_logits(vector: F64, bias: float, texts: Sequence[str]) -> tuple[F64, Ints]:
    """Every window logit of every text (:func:`~memguard.scan.features.window_logits` of its
    :func:`~memguard.scan.features.features`, ``vector`` the weights as float64 with
    ``2**bits`` entries): all the windows in text order, and where each text's windows begin
    (``len(texts) + 1`` offsets: text ``i``'s are ``out[first[i]:first[i + 1]]``)."""
    parts = [_normalised(t) for t in texts]
    bits = _bits(vector)
    outs: list[F64] = []
    counts: list[Ints] = []
    lo = 0
    while lo < len(parts):
        hi, size = lo + 1, len(parts[lo])
        while hi < len(parts) and size + 1 + len(parts[hi]) <= _CHUNK:
            size += 1 + len(parts[hi])
            hi += 1
        z, n = _chunk(vector, bias, bits, parts[lo:hi])
        outs.append(z)
        counts.append(np.full(1, len(z), dtype=np.intp) if n is None else n)
        lo = hi
    first = np.zeros(len(parts) + 1, dtype=np.intp)
    if not parts:
        return np.zeros(0), first
    if len(parts) == 1:
        first[1] = len(outs[0])
        return outs[0], first
    np.cumsum(np.concatenate(counts) if len(counts) > 1 else counts[0], out=first[1:])
    return (np.concatenate(outs) if len(outs) > 1 else outs[0]), first


def text_logits(vector: F64, bias: float, text: str) -> F64:
    """:func:`batch_logits` of one text: its window logits."""
    part = _normalised(text)
    return _chunk(vector, bias, _bits(vector), (part,))[0]


def _bits(vector: F64) -> int:
    bits = len(vector).bit_length() - 1
    if len(vector) != 1 << bits or not 8 <= bits <= 30:
        raise ValueError("the weight vector has 2**bits entries, bits between 8 and 30")
    return bits


def _chunk(
    vector: F64, bias: float, bits: int, parts: Sequence[bytes | str]
) -> tuple[F64, Ints | None]:
    """:func:`batch_logits` of texts whose join fits the power tables: the logits and the number
    of windows of each text (``None`` for one text: all of them are its)."""
    lengths = [len(p) for p in parts]
    codes: npt.NDArray[np.uint8] | npt.NDArray[np.uint32]
    stops: bytes | npt.NDArray[np.bool_]  # a flag per character: it ends a sentence
    if all(type(p) is bytes for p in parts):
        joined = b"\0".join(parts)  # type: ignore[arg-type]
        codes = np.frombuffer(joined, dtype=np.uint8)
        edge = np.frombuffer(b"\0" + joined.translate(_WORD_BYTES) + b"\0", dtype=np.int8)
        stops = joined.translate(_STOP_BYTES)
    else:
        text = "\0".join(p if isinstance(p, str) else p.decode("ascii") for p in parts)
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        kinds = _KINDS.take(np.minimum(codes, _BMP_LAST))
        edge = np.zeros(len(codes) + 2, dtype=np.uint8)
        np.bitwise_and(kinds, 1, out=edge[1:-1])
        stops = (kinds >> 1).view(np.bool_)
    length = len(codes)
    p_pow, q_pow, p_prev = _POWERS or _load_powers()
    # the hashes, as features() computes them, over the join, in one buffer: the character
    # n-grams at every position, then the words and the word pairs interleaved (word k, pair k,
    # word k + 1: a window's words and the pairs between them are one run). features() takes
    # differences of the prefix sums of cq[j] = c[j] * P**-j; the same sums of cq are added up
    # here range by range (a 3-gram's three terms; a word's with one reduceat over all words),
    # which spares the sequential prefix sum (integers: the same numbers modulo 2**64)
    cq = np.empty(length + 1, dtype=np.uint64)
    np.multiply(codes, q_pow[:length], out=cq[:length])
    cq[length] = 0
    edges = (edge[1:] != edge[:-1]).nonzero()[0]
    w_starts, w_ends = edges[0::2], edges[1::2]
    n_chars = max(length - _N + 1, 0)
    n_words = len(w_starts)
    n = n_chars + max(2 * n_words - 1, 0)
    buf = np.empty(n, dtype=np.uint64)
    h = buf[:n_chars]
    np.add(cq[:n_chars], cq[1 : n_chars + 1], out=h)
    h += cq[2 : n_chars + 2]
    np.multiply(h, p_pow[_N - 1 : length], out=h)
    if n_words:
        words = buf[n_chars::2]
        np.multiply(np.add.reduceat(cq, edges)[::2], p_prev.take(w_ends), out=words)
        words ^= _WORD_SALT
        if n_words > 1:
            pairs = buf[n_chars + 1 :: 2]
            np.multiply(words[:-1], _PAIR_SALT, out=pairs)
            pairs += words[1:]
    buf *= _MIX
    buf >>= np.uint64(65 - bits)
    buckets = buf.view(np.int64)
    buckets[n_chars:] += 1 << (bits - 1)
    # the weights, and one more entry (0) that a range may end at
    weights = np.empty(n + 1)
    vector.take(buckets, out=weights[:n], mode="clip")  # (every bucket is in range)
    weights[n] = 0.0
    if len(parts) == 1:
        if length <= _features.WHOLE_UP_TO:  # one short text: scored whole
            return _whole(weights[:n], bias, n_chars), _ONE
        s, e = _one_text(length, stops)
        per_text = None
    else:
        starts = [0, *accumulate(n + 1 for n in lengths[:-1])]
        if isinstance(stops, bytes):
            stops = np.frombuffer(stops, dtype=np.bool_)
        s, e, per_text = _windows(length, stops, starts, lengths)
    # each window's first occurrence and past its last: its character n-grams (the one at i
    # starts at i) and its run of words and pairs (words a to b - 1: entries 2a to 2b - 1); the
    # character ranges of all windows, then the word ranges, for one reduceat (the entries
    # between one range and the next are summed too: few, windows overlap)
    r = np.empty((2, len(s), 2), dtype=np.intp)
    r[0, :, 0] = s
    np.subtract(e, _N - 1, out=r[0, :, 1])
    r[1, :, 0] = w_starts.searchsorted(s, "left")
    r[1, :, 1] = w_ends.searchsorted(e, "right")
    r[1] *= 2
    r[1, :, 1] -= 1
    np.maximum(r[:, :, 1], r[:, :, 0], out=r[:, :, 1])
    np.minimum(r, _limits(n_chars, max(2 * n_words - 1, 0)), out=r)
    r[1] += n_chars
    count = r[:, :, 1] - r[:, :, 0]
    sums = np.add.reduceat(weights, r.reshape(-1))[::2].reshape(2, len(s))
    np.copyto(sums, 0.0, where=count == 0)  # (reduceat gives an empty range its first entry)
    np.maximum(count, 1, out=count)
    sums /= count**SCALE_POWER
    out: F64 = np.add(sums[0], bias)
    out += sums[1]
    return out, per_text


def _limits(chars: int, words: int) -> Ints:
    return np.array([chars, words], dtype=np.intp)[:, None, None]


def _one_text(length: int, stops: bytes | npt.NDArray[np.bool_]) -> tuple[Ints, Ints]:
    """:func:`~memguard.scan.features.spans` of one text longer than ``WHOLE_UP_TO`` (``stops``:
    a flag per character, as bytes when the text is ASCII)."""
    if isinstance(stops, bytes):
        # a byte per bound: the start, after each stop, the end
        bounds = np.frombuffer(b"\1" + stops[:-1] + b"\1", dtype=np.bool_).nonzero()[0]
    else:
        flags = np.empty(length + 1, dtype=np.bool_)
        flags[0] = flags[-1] = True
        flags[1:-1] = stops[:-1]
        bounds = flags.nonzero()[0]
    last = len(bounds) - 1
    # more sentences than windows, or a sentence longer than WINDOW: the reference code's windows
    # (the longest sentence from the bounds: a search for a run of WINDOW bytes that are no bound
    # cost more, about 30,000 instructions over 1 KB of ASCII text)
    if last > MAX_WINDOWS or int((bounds[1:] - bounds[:-1]).max()) > WINDOW:
        return _windows_of_one(
            length, np.frombuffer(stops, dtype=np.bool_) if isinstance(stops, bytes) else stops
        )
    first = bounds[:-1]
    j = bounds.searchsorted(first + WINDOW, "right")
    j -= 1
    j += (bounds[j] - first < WINDOW // 2) & (j < last)
    ends = bounds[j]
    # (a window still shorter than half of one ends the text, past WINDOW characters)
    return np.where(ends - first < WINDOW // 2, ends - WINDOW, first), ends


def _whole(weights: F64, bias: float, n_chars: int) -> F64:
    """The logit of one text scored whole, as :func:`~memguard.scan.features.window_logits`
    computes it (the same sums in the same order)."""
    n_words = len(weights) - n_chars
    z = bias
    if n_chars + n_words:
        cuts = [0, n_chars] if 0 < n_chars < len(weights) else [0]
        sums = np.add.reduceat(weights, cuts, dtype=np.float64)
        if n_chars:
            z += float(sums[0]) / n_chars**SCALE_POWER
        if n_words:
            z += float(sums[-1]) / n_words**SCALE_POWER
    return np.full(1, z)


#: per character of the Basic Multilingual Plane, 1 if it is a word character
#: (features._WORD_TABLE) plus 2 if it ends a sentence (features._STOP); every character past it
#: is a word character and no stop, as U+FFFF is
_KINDS = (
    _WORD_TABLE[np.minimum(np.arange(0x10000), _WORD_TABLE_LAST)].astype(np.uint8) + 2 * _STOP
).astype(np.uint8)
_ONE = np.ones(1, dtype=np.intp)
_ONE.flags.writeable = False


def _sizes(a: int, b: int, c: int) -> Ints:
    return np.array([a, b, c], dtype=np.intp)[:, None]


def _windows(
    length: int, stops: npt.NDArray[np.bool_], starts: list[int], lengths: list[int]
) -> tuple[Ints, Ints, Ints]:
    """Every text's windows (:func:`~memguard.scan.features.spans`) in join coordinates, in text
    order, and how many each text has."""
    if len(lengths) == 1:  # one text: features.spans' own code
        if length <= _features.WHOLE_UP_TO:
            one = np.ones(1, dtype=np.intp)
            return one - 1, one * length, one
        s, e = _windows_of_one(length, stops)
        return s, e, np.full(1, len(s), dtype=np.intp)
    offs = np.array(starts, dtype=np.intp)
    size = np.array(lengths, dtype=np.intp)
    whole = size <= _features.WHOLE_UP_TO  # (read here: a test may change it)
    if whole.all():
        return offs, offs + size, np.ones(len(size), dtype=np.intp)
    ends = offs + size
    # sentence bounds: after every stop, and each text's start and end (a stop that is a
    # text's last character marks its end; the separators are no stops)
    mark = np.zeros(length + 1, dtype=np.bool_)
    mark[1:] = stops
    mark[offs] = True
    mark[ends] = True
    bounds = mark.nonzero()[0]
    piece = bounds[1:] - bounds[:-1]
    long = (piece > WINDOW).nonzero()[0]
    if len(long):
        # a sentence longer than WINDOW is cut at its text's every STRIDE-th character
        lo, hi = bounds[long], bounds[long + 1]
        base = offs[offs.searchsorted(lo, "right") - 1]
        k0 = (lo - base) // STRIDE + 1
        n = np.maximum((hi - 1 - base) // STRIDE - k0 + 1, 0)
        total = int(n.sum())
        if total:
            at = np.arange(total, dtype=np.intp) - np.repeat(np.cumsum(n) - n, n)
            mark[np.repeat(base + k0 * STRIDE, n) + at * STRIDE] = True
            bounds = mark.nonzero()[0]
    first_b = bounds.searchsorted(offs)
    last_b = bounds.searchsorted(ends)
    text_of = np.repeat(np.arange(len(offs), dtype=np.intp), last_b - first_b + 1)
    last = last_b[text_of]
    # the last bound within WINDOW of each start, not past its text's end; one more where that
    # makes less than half a window; a window still shorter reaches back (not before its text)
    j = bounds.searchsorted(bounds + WINDOW, "right") - 1
    np.minimum(j, last, out=j)
    j += (bounds[j] - bounds < WINDOW // 2) & (j < last)
    w_end = bounds[j]
    w_start = np.where(
        w_end - bounds < WINDOW // 2, np.maximum(w_end - WINDOW, offs[text_of]), bounds
    )
    n_win = last_b - first_b
    # a whole text's one window sits on its first bound; a text's last bound starts none
    keep = ~whole[text_of]
    keep[last_b] = False
    keep[first_b[whole]] = True
    w_start[first_b[whole]] = offs[whole]
    w_end[first_b[whole]] = ends[whole]
    n_win[whole] = 1
    fixed = (n_win > MAX_WINDOWS).nonzero()[0]
    if not len(fixed):
        return w_start[keep], w_end[keep], n_win
    # too many sentences: fixed windows (features._windows), spliced in text order
    s_parts: list[Ints] = []
    e_parts: list[Ints] = []
    at = 0
    for t in fixed.tolist():
        lo_i, hi_i = int(first_b[t]), int(last_b[t])
        s_parts += [w_start[at:lo_i][keep[at:lo_i]]]
        e_parts += [w_end[at:lo_i][keep[at:lo_i]]]
        room = lengths[t] - WINDOW
        stride = max(STRIDE, -(-room // (MAX_WINDOWS - 1)))
        fs = np.append(np.arange(0, room, stride, dtype=np.intp), room) + starts[t]
        s_parts.append(fs)
        e_parts.append(fs + WINDOW)
        n_win[t] = len(fs)
        at = hi_i + 1
    s_parts.append(w_start[at:][keep[at:]])
    e_parts.append(w_end[at:][keep[at:]])
    return np.concatenate(s_parts), np.concatenate(e_parts), n_win
