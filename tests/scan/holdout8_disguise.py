# ruff: noqa: RUF001  (homoglyphs, other scripts and invisible characters are the point)
"""Disguise helpers for ``build_holdout8.py``: each takes a hand-written sentence and returns it
encoded, scrambled or hidden the way an attacker would send it. Deterministic (no randomness):
the corpus file must be the same on every run."""

from __future__ import annotations

import base64
import codecs
import urllib.parse

ZWSP = "\u200b"
ZWNJ = "\u200c"


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def hexed(s: str) -> str:
    return s.encode().hex()


def rot13(s: str) -> str:
    return codecs.encode(s, "rot13")


def url_all(s: str) -> str:
    """Every byte percent-encoded (not only the reserved ones)."""
    return "".join(f"%{b:02X}" for b in s.encode())


def url_query(s: str) -> str:
    return urllib.parse.quote_plus(s)


_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})


def leet(s: str) -> str:
    return s.lower().translate(_LEET)


def _pig_word(w: str) -> str:
    if not w.isalpha():
        return w
    lower = w.lower()
    for i, c in enumerate(lower):
        if c in "aeiou":
            return (lower + "way") if i == 0 else (lower[i:] + lower[:i] + "ay")
    return lower + "ay"


def pig_latin(s: str) -> str:
    return " ".join(_pig_word(w) for w in s.split(" "))


def _scramble_word(w: str) -> str:
    """Typoglycemia: first and last letter kept, the inner letters swapped in pairs."""
    if len(w) < 4 or not w.isalpha():
        return w
    inner = list(w[1:-1])
    for i in range(0, len(inner) - 1, 2):
        inner[i], inner[i + 1] = inner[i + 1], inner[i]
    return w[0] + "".join(inner) + w[-1]


def scramble(s: str) -> str:
    return " ".join(_scramble_word(w) for w in s.split(" "))


_HOMO = {"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "i": "і", "s": "ѕ"}


def homoglyphs(s: str) -> str:
    """Latin letters swapped for Cyrillic look-alikes."""
    return "".join(_HOMO.get(c, c) for c in s)


def regional(s: str) -> str:
    """Letters as regional-indicator symbols (they render as boxed letters or flags), words kept
    apart by a space; other characters unchanged."""
    out = []
    for c in s.lower():
        out.append(chr(0x1F1E6 + ord(c) - ord("a")) + ZWNJ if "a" <= c <= "z" else c)
    return "".join(out)


def in_words(s: str, mark: str) -> str:
    """``mark`` between every two letters of each word."""
    return " ".join(mark.join(w) for w in s.split(" "))


def tag_chars(s: str) -> str:
    """Unicode tag characters (U+E0000 block): invisible when rendered."""
    return "".join(chr(0xE0000 + ord(c)) for c in s)


def backwards(s: str) -> str:
    return s[::-1]


_MORSE = {
    "a": ".-", "b": "-...", "c": "-.-.", "d": "-..", "e": ".", "f": "..-.", "g": "--.",
    "h": "....", "i": "..", "j": ".---", "k": "-.-", "l": ".-..", "m": "--", "n": "-.",
    "o": "---", "p": ".--.", "q": "--.-", "r": ".-.", "s": "...", "t": "-", "u": "..-",
    "v": "...-", "w": ".--", "x": "-..-", "y": "-.--", "z": "--..", "0": "-----", "1": ".----",
    "2": "..---", "3": "...--", "4": "....-", "5": ".....", "6": "-....", "7": "--...",
    "8": "---..", "9": "----.", ".": ".-.-.-", "@": ".--.-.",
}  # fmt: skip


def morse(s: str) -> str:
    return " / ".join(" ".join(_MORSE[c] for c in w if c in _MORSE) for w in s.lower().split())


def first_letters(s: str, fillers: list[str]) -> str:
    """An acrostic: line ``i`` is ``fillers[i]`` after the i-th letter of ``s`` (spaces dropped)."""
    letters = [c for c in s if c != " "]
    return "\n".join(c.upper() + f for c, f in zip(letters, fillers, strict=True))


def full_width(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else ("\u3000" if c == " " else c)
                   for c in s)  # fmt: skip
