"""Encoded payloads: base64, hex, URL encoding and rot13 runs decoded to text a rule scan can read.

Only decodings that come out as readable text are kept (mostly printable, mostly letters and
spaces), so random tokens, hashes and ids do not turn into noise for the rules.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import urllib.parse

__all__ = ["decoded_texts"]

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[\s:]?){16,}")
_PCT = re.compile(r"%[0-9A-Fa-f]{2}")
# rot13 of frequent English function words: "the", "and", "you", "to", "of", "is", "for", "your"
_ROT13_WORDS = re.compile(r"\b(?:gur|naq|lbh|gb|bs|vf|sbe|lbhe|jvgu|guvf)\b", re.IGNORECASE)
_MAX_DECODES = 16


def _readable(data: str) -> bool:
    if len(data) < 8:
        return False
    letters = sum(1 for c in data if c.isalpha() or c == " ")
    printable = sum(1 for c in data if c.isprintable() or c in "\n\t")
    return printable >= 0.95 * len(data) and letters >= 0.6 * len(data) and " " in data


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decoded_texts(text: str) -> list[str]:
    """Readable texts hidden in ``text`` as base64, hex, URL encoding or rot13 (at most 16)."""
    out: list[str] = []
    longest = max(map(len, text.split()), default=0)
    for m in _B64.finditer(text) if longest >= 24 else ():
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
    for m in _HEX.finditer(text) if longest >= 6 else ():
        if len(out) >= _MAX_DECODES:
            return out
        digits = re.sub(r"[\s:]", "", m.group(0))
        try:
            decoded = _utf8(bytes.fromhex(digits[: len(digits) // 2 * 2]))
        except ValueError:
            continue
        if decoded is not None and _readable(decoded):
            out.append(decoded)
    if len(_PCT.findall(text)) >= 3:
        unquoted = urllib.parse.unquote(text)
        if unquoted != text:
            out.append(unquoted)
            if len(_PCT.findall(unquoted)) >= 3:  # encoded twice
                out.append(urllib.parse.unquote(unquoted))
    if len(_ROT13_WORDS.findall(text)) >= 2:
        out.append(codecs.decode(text, "rot13"))
    return out[:_MAX_DECODES]
