"""The disguises of ``build_holdout7.py``'s obfuscated rows: each turns a hand-written plain sentence
into the encoded, look-alike or invisible-character form a poisoned memory arrives in (base64, hex,
ROT13, percent and HTML escapes, Cyrillic / Greek homoglyphs, leetspeak, zero-width / word-joiner /
soft-hyphen marks inside words, full-width and mathematical-bold letters, Unicode tag characters,
reversed words, JSON ``\\u`` escapes, a base64 string split in parts, spaced letters)."""

from __future__ import annotations

import base64
import codecs

ZWSP = "\u200b"
WJ = "\u2060"
SHY = "\u00ad"


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def b64url(s: str) -> str:
    return base64.urlsafe_b64encode(s.encode()).decode().rstrip("=")


def hexed(s: str) -> str:
    return s.encode().hex()


def hex_spaced(s: str) -> str:
    return " ".join(f"{b:02x}" for b in s.encode())


def rot13(s: str) -> str:
    return codecs.encode(s, "rot13")


def url_all(s: str) -> str:
    return "".join(f"%{b:02X}" for b in s.encode())


def html_entities(s: str) -> str:
    return "".join(f"&#{ord(c)};" for c in s)


_HOMO = {
    "a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445",
    "i": "\u0456", "y": "\u0443", "s": "\u0455", "A": "\u0391", "E": "\u0395", "O": "\u039f",
    "T": "\u03a4", "H": "\u0397", "I": "\u0399", "K": "\u039a", "M": "\u039c", "P": "\u03a1",
}  # fmt: skip


def homoglyphs(s: str) -> str:
    """Latin letters swapped for Cyrillic / Greek look-alikes."""
    return "".join(_HOMO.get(c, c) for c in s)


def leet(s: str) -> str:
    return s.translate(str.maketrans("aeiost", "431057"))


def in_words(s: str, mark: str) -> str:
    """``mark`` after the second letter of every word of four or more letters."""
    return " ".join(w[:2] + mark + w[2:] if len(w) >= 4 else w for w in s.split(" "))


def full_width(s: str) -> str:
    return "".join(
        "\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s
    )


def tag_chars(s: str) -> str:
    """Unicode tag characters (invisible when rendered)."""
    return "".join(chr(0xE0000 + ord(c)) for c in s)


def math_bold(s: str) -> str:
    out = []
    for c in s:
        if "A" <= c <= "Z":
            out.append(chr(0x1D400 + ord(c) - 65))
        elif "a" <= c <= "z":
            out.append(chr(0x1D41A + ord(c) - 97))
        else:
            out.append(c)
    return "".join(out)


def reversed_words(s: str) -> str:
    return " ".join(reversed(s.split(" ")))


def json_escaped(s: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in s)


def split_b64(s: str, parts: int) -> list[str]:
    whole = b64(s)
    size = -(-len(whole) // parts)
    return [whole[i : i + size] for i in range(0, len(whole), size)]


def spaced(s: str) -> str:
    return " ".join(s)
