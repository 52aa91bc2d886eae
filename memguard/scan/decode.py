"""Encoded payloads: base64, base32, hex, URL encoding, rot13 and escape sequences (``\\x69``,
``\\u0069``, ``&#105;``) decoded to text a rule scan can read.

Only decodings that come out as readable text are kept (mostly printable, mostly letters and
spaces), so random tokens, hashes and ids do not turn into noise for the rules.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import urllib.parse

__all__ = ["HEX_SPACE", "ROT13_WORD", "decoded_texts"]

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[\s:]?){16,}")
_PCT = re.compile(r"%[0-9A-Fa-f]{2}")
# rot13 of frequent English function words: "the", "and", "you", "to", "of", "is", "for", "your"
_ROT13_WORDS = re.compile(r"\b(?:gur|naq|lbh|gb|bs|vf|sbe|lbhe|jvgu|guvf)\b", re.IGNORECASE)
_MAX_DECODES = 16
# escape sequences, three or more in a row: C and Python byte escapes, Unicode escapes, and HTML
# numeric character references (decimal and hex)
_ESCAPES = re.compile(r"(?:\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|&#[0-9]{1,7};?|&#[xX][0-9A-Fa-f]{1,6};?){3,}")
_ESCAPE = re.compile(r"\\x([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|&#([0-9]{1,7});?|&#[xX]([0-9A-Fa-f]{1,6});?")
# base32 (RFC 4648): upper-case letters and 2-7 only, in 8-character groups; looked for only in
# the tokens the base64 pass found long enough (a run of 24 of its alphabet)
_B32 = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9])")
_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
#: every byte of a base64 run becomes "a", every other byte " ": a run of 24 is then a substring
_RUN_MAP = bytes(ord("a") if b in _B64_ALPHABET else ord(" ") for b in range(256))
_RUN = b"a" * 24


# What the scanner's one automaton pass (memguard.scan.builtin) also looks for, so that the
# decoders run only on text that can hold what they decode:
#: hex that can decode to readable text: that text holds a space, so the run holds the unit "20"
#: with two more units on at least one side of it (a run is 16 units or more)
HEX_SPACE = r"20(?:[\s:]?[0-9a-f]{2}){2}|(?:[0-9a-f]{2}[\s:]?){2}20"
#: one rot13 function word (over lower-cased text; "\u017f" is the long s that ``re`` folds to s)
ROT13_WORD = "\\b(?:gur|naq|lbh|gb|b[s\u017f]|vf|[s\u017f]be|lbhe|jvgu|guvf)\\b"


def _readable(data: str) -> bool:
    if len(data) < 8:
        return False
    letters = sum(1 for c in data if c.isalpha() or c == " ")
    printable = sum(1 for c in data if c.isprintable() or c in "\n\t")
    return printable >= 0.95 * len(data) and letters >= 0.6 * len(data) and " " in data


#: a decoding that is itself an encoded run (base64 of base64, base64 of hex): one token of the
#: base64 or hex alphabet, kept to be decoded one layer further
_LAYER = re.compile(r"[A-Za-z0-9+/_=:-]{16,}")


def _layer(data: str) -> bool:
    return _LAYER.fullmatch(data) is not None


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _unescape(m: re.Match[str]) -> str:
    hex_byte, unit, decimal, hex_ref = m.groups()
    code = int(hex_byte or unit or hex_ref, 16) if decimal is None else int(decimal)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else ""


def decoded_texts(
    text: str,
    *,
    hex_space: bool = True,
    rot13_word: bool = True,
    layers: list[str] | None = None,
) -> list[str]:
    """Readable texts hidden in ``text`` as base64, hex, URL encoding or rot13 (at most 16).

    ``hex_space=False`` or ``rot13_word=False`` say the caller has seen that ``text`` holds no
    :data:`HEX_SPACE` or no :data:`ROT13_WORD` match, so those decoders cannot find anything.
    ``layers`` collects decodings that are themselves one encoded run (at most 16), for the caller
    to decode one layer further.
    """
    out: list[str] = []
    # a base64 run is 24 characters of its alphabet in a row: looked for with C byte operations
    # (its characters are ASCII, so UTF-8 keeps them one byte each), searched for only if present
    has_run = _RUN in text.encode("utf-8", "surrogatepass").translate(_RUN_MAP)
    long_tokens: list[str] = []
    for token in text.split() if has_run else ():
        if len(token) < 24:
            continue
        long_tokens.append(token)
        # a run holds no whitespace, so it lies inside one token (the lookbehind sees the same)
        for m in _B64.finditer(token):
            if len(out) >= _MAX_DECODES:
                return out
            run = m.group(0)
            if run.isalpha() and (run.islower() or run.isupper()):
                continue  # a long word, not base64
            padded = run + "=" * (-len(run) % 4)
            try:
                raw = base64.b64decode(padded, altchars=b"-_" if ("-" in run or "_" in run) else None)
            except (binascii.Error, ValueError):
                continue
            decoded = _utf8(raw)
            if decoded is not None and _readable(decoded):
                out.append(decoded)
            elif decoded is not None and layers is not None and len(layers) < _MAX_DECODES and _layer(decoded):
                layers.append(decoded)
    for m in _HEX.finditer(text) if hex_space else ():
        if len(out) >= _MAX_DECODES:
            return out
        digits = re.sub(r"[\s:]", "", m.group(0))
        try:
            decoded = _utf8(bytes.fromhex(digits[: len(digits) // 2 * 2]))
        except ValueError:
            continue
        if decoded is not None and _readable(decoded):
            out.append(decoded)
        elif decoded is not None and layers is not None and len(layers) < _MAX_DECODES and _layer(decoded):
            layers.append(decoded)
    if text.count("%") >= 3 and len(_PCT.findall(text)) >= 3:
        unquoted = urllib.parse.unquote(text)
        if unquoted != text:
            out.append(unquoted)
            if len(_PCT.findall(unquoted)) >= 3:  # encoded twice
                out.append(urllib.parse.unquote(unquoted))
    if "\\x" in text or "\\u" in text or "&#" in text:
        for m in _ESCAPES.finditer(text):
            if len(out) >= _MAX_DECODES:
                return out
            decoded = _ESCAPE.sub(_unescape, m.group(0))
            if _readable(decoded):
                out.append(decoded)
    for m in (m for token in long_tokens for m in _B32.finditer(token)):
        if len(out) >= _MAX_DECODES:
            return out
        run = m.group(0).rstrip("=")
        if run.isalpha() or len(run) * 5 % 8 >= 5:
            continue  # a shouted word, or not a whole number of bytes
        try:
            decoded = _utf8(base64.b32decode(run + "=" * (-len(run) % 8)))
        except (binascii.Error, ValueError):
            continue
        if decoded is not None and _readable(decoded):
            out.append(decoded)
    if rot13_word and len(_ROT13_WORDS.findall(text)) >= 2:
        out.append(codecs.decode(text, "rot13"))
    return out[:_MAX_DECODES]
