"""Invisible and look-alike Unicode: find it, and reveal what it hides.

Tag characters (U+E0000-U+E007F) spell ASCII that renders as nothing; zero-width characters split
words so that keyword filters miss them; bidi overrides show text in an order other than the one
a model reads; Cyrillic and Greek letters that look Latin disguise words; styled letters
(mathematical bold or script, circled, squared, small capitals, letters struck through or
underlined with combining marks) spell words no Latin rule reads. :func:`reveal` returns the
readable forms a rule scan should also see.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Reveal", "reveal"]

_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_BIDI_OVERRIDE = re.compile("[\u202e\u2067]([^\u202a-\u202e\u2066-\u2069]*)")
# letters from Cyrillic and Greek that render like Latin ones
_CONFUSABLE = str.maketrans(
    "асеорхуіјѕԁһԛԝӏАВСЕНІЈКМОРЅТХУαεοκνρτχυΑΒΕΗΙΚΜΝΟΡΤΧΥΖ",
    "aceopxyijsdhqwlABCEHIJKMOPSTXYaeoknptxuABEHIKMNOPTXYZ",
)
# where Latin meets Greek or Cyrillic; the words holding such a seam are the mixed-script words
_SEAM = re.compile(r"[A-Za-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][A-Za-z]")
_WORD_RUN = re.compile(r"\w*")
_INVISIBLE_ANY = re.compile(
    "[\U000e0000-\U000e007f\u200b\u200c\u200d\u2060-\u2064\ufeff\u180e\u00ad\u202a-\u202e\u2066-\u2069]"
)

# The same two questions asked of the UTF-8 bytes, with C byte operations (a text holds neither on
# almost every call): ``_INVISIBLE_UTF8`` matches exactly the encodings of ``_INVISIBLE_ANY``'s
# characters (their first bytes never continue another character), and a seam (a Latin letter
# next to a Greek or Cyrillic one, U+0370-U+04FF: lead bytes CD-D3) shows in the translated bytes
# as "LG" or "GcL"; a few other characters also map so, which only costs a needless exact count.
#: the first bytes of the invisible characters' UTF-8 ("x" in the translated bytes)
_INVISIBLE_LEADS = (0xC2, 0xE1, 0xE2, 0xEF, 0xF3)
_INVISIBLE_UTF8 = re.compile(
    b"\xf3\xa0[\x80\x81]|\xe1\xa0\x8e|\xe2\x80[\x8b-\x8d\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf"
    b"|\xc2\xad"
)
_SEAM_MAP = bytes(
    ord("L") if chr(b).isascii() and chr(b).isalpha() else ord("G") if 0xCD <= b <= 0xD3
    else ord("c") if 0x80 <= b <= 0xBF else ord("x") if b in _INVISIBLE_LEADS else ord(" ")
    for b in range(256)
)  # fmt: skip


# scanfp4: styled letters. NFKC folds mathematical alphanumerics (U+1D400-1D7FF), circled letters
# (U+24B6-24E9) and full-width ones; the squared and negative circled or squared capitals
# (U+1F130-1F189) and the small capitals have no compatibility mapping and are folded here; the
# combining marks that strike through or underline a letter are dropped. Found from the UTF-8 lead
# bytes (the C ``in`` of bytes; a regex class with non-ASCII characters costs ~9 us per KB).
_STYLED_LEADS = (b"\xf0\x9d", b"\xf0\x9f\x84", b"\xf0\x9f\x85", b"\xf0\x9f\x86", b"\xe2\x92", b"\xe2\x93",
                 b"\xe1\xb4", b"\xc9", b"\xca", b"\xea\x9c", b"\xcc\x85", b"\xcc\xb1", b"\xcc\xb2", b"\xcc\xb3",
                 b"\xcc\xb5", b"\xcc\xb6", b"\xcc\xb7", b"\xcc\xb8")
#: every byte no lead above holds, deleted (one C pass) before the leads are looked for: a lead's
#: bytes stay next to each other, so none is missed, and the rest is a fraction of the text
#: the lead bytes of the combining diacritical marks (U+0300-036F): piled on letters by the dozen
#: ("zalgo" text, i̴̡g̷n̸o̵r̶e̷) they hide the word from a rule; eight or more make a view without them
_MARK_LEADS = b"\xcc\xcd"
_ZALGO = 8
_MARKS = dict.fromkeys(range(0x300, 0x370))
_NOT_STYLED = bytes(sorted(set(range(256)) - set(b"".join(_STYLED_LEADS) + _MARK_LEADS)))
_STYLED_FOLD = (
    {0x1F130 + i: 0x41 + i for i in range(26)}  # squared
    | {0x1F150 + i: 0x41 + i for i in range(26)}  # negative circled
    | {0x1F170 + i: 0x41 + i for i in range(26)}  # negative squared
    | {ord(c): ord(latin) for c, latin in zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnoprstuvwyz", strict=True)}
    | dict.fromkeys((0x0305, 0x0331, 0x0332, 0x0333, 0x0335, 0x0336, 0x0337, 0x0338))  # strike, underline
)


def _unstyled(text: str, raw: bytes) -> str | None:
    """``text`` with styled letters folded to plain ones, or None when it holds none."""
    kept = raw.translate(None, _NOT_STYLED)
    if not kept:
        return None
    marks = kept.count(_MARK_LEADS[:1]) + kept.count(_MARK_LEADS[1:])
    if marks < _ZALGO and not any(lead in kept for lead in _STYLED_LEADS):
        return None
    if marks >= _ZALGO:  # (decomposed first: NFKC would fold "i" and a mark into "ȋ")
        text_ = unicodedata.normalize("NFD", text).translate(_MARKS)
    else:
        text_ = text
    plain = unicodedata.normalize("NFKC", text_).translate(_STYLED_FOLD)
    return plain if plain != text else None


@dataclass(frozen=True, slots=True)
class Reveal:
    """What invisible or look-alike characters a text holds, and readable versions of it."""

    tags: int
    zero_width: int
    bidi: int
    mixed_script_words: int
    texts: tuple[str, ...]
    #: whether styled letters were folded (one of ``texts`` is the folded text)
    styled: bool = False


_NOTHING = Reveal(0, 0, 0, 0, ())


def _run_end(text: str, pos: int) -> int:
    run = _WORD_RUN.match(text, pos)
    return pos if run is None else run.end()


def _mixed_words(text: str) -> int:
    """How many times ``\\w*(?:seam)\\w*`` matches, without the engine's position-by-position
    retries of a leading ``\\w*``: from the first seam, the match runs over the rightmost seam its
    word run reaches, then to the end of the word run after it."""
    count, pos = 0, 0
    while (seam := _SEAM.search(text, pos)) is not None:
        at = seam.start()
        reach = _run_end(text, at)  # the leading \w* can end anywhere up to here
        while (later := _SEAM.search(text, at + 1, reach + 2)) is not None:
            at = later.start()
        pos = _run_end(text, at + 2)
        count += 1
    return count


#: the last non-ASCII texts revealed, by identity (``id`` -> (the text, its reveal)): a scan stage
#: runs the rules and then the model over the same string object, and both reveal it (issue 17,
#: scanspeed). Each entry holds its text, so an ``id`` in it is never another live object's; at
#: most :data:`_MEMO_ENTRIES` texts of at most :data:`_MEMO_CHARS` characters are kept
_MEMO: dict[int, tuple[str, Reveal]] = {}
_MEMO_ENTRIES = 64
_MEMO_CHARS = 4096


def reveal(text: str) -> Reveal:
    """Count the hiding characters in ``text`` and return the readable versions to scan as well."""
    if text.isascii():  # ASCII holds no hiding character
        return _NOTHING
    known = _MEMO.get(id(text))
    if known is not None and known[0] is text:
        return known[1]
    found = _reveal(text)
    if len(text) <= _MEMO_CHARS and type(text) is str:
        if len(_MEMO) >= _MEMO_ENTRIES:
            _MEMO.clear()
        _MEMO[id(text)] = (text, found)
    return found


def _reveal(text: str) -> Reveal:
    raw = text.encode("utf-8", "surrogatepass")
    has_invisible, mixed, unstyled = False, 0, None
    if len(raw) != len(text):  # not ASCII (ASCII holds neither)
        mapped = raw.translate(_SEAM_MAP)
        has_invisible = b"x" in mapped and _INVISIBLE_UTF8.search(raw) is not None
        if b"LG" in mapped or b"GcL" in mapped:
            mixed = _mixed_words(text)
        unstyled = _unstyled(text, raw)
    if not has_invisible and not mixed:
        return _NOTHING if unstyled is None else Reveal(0, 0, 0, 0, (unstyled,), True)
    texts: list[str] = []
    tags = zero_width = bidi = 0
    if has_invisible:
        hidden = _TAGS.findall(text)
        tags = sum(len(h) for h in hidden)
        if hidden:  # the tag block spells ASCII: U+E0041 is "A"
            texts.append(" ".join("".join(chr(ord(c) - 0xE0000) for c in h) for h in hidden))
        zero_width = len(_ZERO_WIDTH.findall(text))
        bidi = len(_BIDI.findall(text))
        plain = _ZERO_WIDTH.sub("", _TAGS.sub("", text))
        if bidi:
            # the model reads the stored order; a reader sees the overridden run reversed
            reversed_runs = _BIDI_OVERRIDE.sub(lambda m: m.group(1)[::-1], plain)
            texts.append(_BIDI.sub("", reversed_runs))
            plain = _BIDI.sub("", plain)
        texts.append(plain)
    if mixed:
        texts.append((texts[-1] if texts else text).translate(_CONFUSABLE))
    if unstyled is not None:
        texts.append(unstyled)
    return Reveal(tags, zero_width, bidi, mixed, tuple(texts), unstyled is not None)
