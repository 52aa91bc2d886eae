"""A Python regular expression rewritten as one that matches at least where it matches.

The prefilter (:mod:`memguard.scan.prefilter`) runs every rule at once in a compiled multi-pattern
engine (Hyperscan) and then confirms the rules it reports with Python's own ``re``. That is exact as
long as the engine reports every rule that ``re.search`` would match, so what it is given must be a
*superset* of each rule: :func:`superset` reads the rule's parse (``re``'s own parser) and writes an
expression in the syntax both Hyperscan and RE2 accept (PCRE's core) that matches wherever the rule
matches, and perhaps in more places, never in fewer:

- every single-character item (a literal, ``.``, a class, ``\\w``, ``\\s``, ``[^...]``) becomes an
  explicit class of code points: its ASCII members are found by asking Python's own engine about
  each of the 128 characters (so case-insensitivity, ``re.ASCII`` and every category are exactly
  Python's), its other members are listed when the item is plain literals and ranges and are *all*
  non-ASCII code points otherwise (Unicode's idea of a word or a space character differs between
  engines; "any" cannot miss);
- lookarounds, ``\\A``, ``\\Z`` and ``\\B`` are dropped (a constraint less can only match more);
  ``^`` and ``$`` stay where the rule is in ``re.MULTILINE`` (both engines then mean the same
  positions: the text's ends and either side of ``"\\n"``) and are dropped elsewhere;
- ``\\b`` stays only next to an item that matches ASCII word characters alone: there, a boundary in
  Python's Unicode sense is one in the engine's ASCII sense too (the other side is not a Unicode
  word character, so not an ASCII one); elsewhere it is dropped;
- atomic groups and possessive or lazy repeats become plain groups and greedy repeats (which match
  a superset); bounded repeats keep their bounds;
- a backreference or a conditional group has no superset here: :func:`superset` returns ``None``
  and the caller confirms that rule on every text. So does a pattern that can match the empty
  string (``re.search`` finds it in every text).

``tests/scan/test_prefilter.py`` holds the result to ``re.search`` on the corpora and on generated
texts (Unicode, case, line breaks, word boundaries).
"""

from __future__ import annotations

import functools
import re
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from memguard.scan.anchors import SPACES

__all__ = ["SMALL", "Unsupported", "factors", "superset"]

MAX_CODE_POINT = 0x10FFFF
#: UTF-8 has no surrogates: the engine is given valid UTF-8 only (a text holding one is not
#: prefiltered), so classes leave them out
_SURROGATES = (0xD800, 0xDFFF)
_ASCII_WORD = frozenset(range(48, 58)) | frozenset(range(65, 91)) | frozenset(range(97, 123)) | {95}
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))
_ATOMIC = getattr(sre, "ATOMIC_GROUP", None)
_SINGLE = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)
_Ranges = tuple[tuple[int, int], ...]


class Unsupported(ValueError):
    """The pattern holds a construct with no superset here (a backreference, a conditional)."""


def superset(pattern: str, flags: int = re.MULTILINE) -> str | None:
    """An expression (PCRE syntax, for a UTF-8 engine in multi-line mode) that matches wherever
    ``re.search(pattern, text, flags)`` does; ``None`` when there is none here (the pattern must
    then be tried on every text)."""
    try:
        tree = sre_parse.parse(pattern, flags)
        if tree.getwidth()[0] == 0:
            return None  # matches the empty string, so somewhere in every text
        return _Writer(tree.state).sequence(list(tree.data), tree.state.flags)
    except (Unsupported, RecursionError, re.error):
        return None


def factors(pattern: str, flags: int = re.MULTILINE) -> list[str]:
    """The supersets of ``pattern``'s top-level groups (an alternation, a group; each that cannot
    match the empty string), when it has more than one top-level item: each is a part of every
    match of ``pattern``, so each matches wherever ``pattern`` does (``[]``: none such, or no
    superset). The prefilter requires them all beside the whole's superset, which the engine
    may widen."""
    try:
        tree = sre_parse.parse(pattern, flags)
        items = list(tree.data)
        if len(items) < 2:
            return []
        writer = _Writer(tree.state)
        out = []
        for op, av in items:
            if op not in (sre.SUBPATTERN, sre.BRANCH):
                continue
            sub = av[3] if op is sre.SUBPATTERN else None
            if sub is not None and sub.getwidth()[0] == 0:
                continue
            if op is sre.BRANCH and any(alt.getwidth()[0] == 0 for alt in av[1]):
                continue
            written = writer.sequence([(op, av)], tree.state.flags)
            if written not in out:
                out.append(written)
        return out
    except (Unsupported, RecursionError, re.error):
        return []


@functools.lru_cache(maxsize=4096)
def _ascii_members(item: tuple[Any, Any], flags: int) -> frozenset[int]:
    """The ASCII characters that the single-character ``item`` matches under ``flags``, by asking
    Python's engine about each of them."""
    state = sre_parse.State()
    state.flags = flags
    compiled = sre_compile.compile(sre_parse.SubPattern(state, [item]), flags)
    return frozenset(c for c in range(128) if compiled.match(chr(c)))


def _freeze(item: tuple[Any, Any]) -> tuple[Any, Any]:
    """``item`` hashable (an ``IN`` item's list as a tuple), for :func:`_ascii_members`' cache."""
    op, av = item
    return (op, tuple(av)) if op is sre.IN else (op, av)


def _non_ascii(item: tuple[Any, Any], flags: int) -> _Ranges | None:
    """The non-ASCII code points ``item`` matches as ranges when they are known exactly (plain
    literals and ranges, case-sensitive); ``None``: take all of them."""
    if flags & re.IGNORECASE:
        return None
    op, av = item
    if op is sre.LITERAL:
        return ((av, av),) if av >= 128 else ()
    if op is sre.NOT_LITERAL:
        return _complement(((av, av),))
    if op is sre.ANY:
        return None
    negate, members = False, []
    for index, (kind, value) in enumerate(av):
        if kind is sre.NEGATE and index == 0:
            negate = True
        elif kind is sre.LITERAL:
            members.append((value, value))
        elif kind is sre.RANGE:
            members.append((value[0], value[1]))
        elif kind is sre.CATEGORY and value is sre.CATEGORY_SPACE and not flags & re.ASCII:
            members.extend(_unicode_spaces())  # two dozen characters: listed
        else:  # another category (\w, \d, \S) or anything else: not listed here
            return None
    high = tuple((max(lo, 128), hi) for lo, hi in members if hi >= 128)
    return _complement(high) if negate else high


def _unicode_spaces() -> list[tuple[int, int]]:
    """The non-ASCII characters ``\\s`` matches (:data:`~memguard.scan.anchors.SPACES`, which
    ``tests/scan/test_match.py`` holds to the whole of Unicode)."""
    return [(ord(c), ord(c)) for c in SPACES if not c.isascii()]


def _complement(ranges: _Ranges) -> _Ranges:
    """The non-ASCII code points not in ``ranges``."""
    out, low = [], 128
    for lo, hi in sorted(ranges):
        if lo > low:
            out.append((low, lo - 1))
        low = max(low, hi + 1)
    if low <= MAX_CODE_POINT:
        out.append((low, MAX_CODE_POINT))
    return tuple(out)


#: a repeat bounded above this many (bytes) is left unbounded: long bounded gaps make the engine's
#: automaton large and slow to build, and a prefilter loses little by them
BOUND = 32
#: a class whose non-ASCII members are this many code points or fewer is written out exactly
SMALL = 32


class _Chars(NamedTuple):
    """A single-character item as bytes: its ASCII members, its non-ASCII members' UTF-8 forms
    (``None``: every non-ASCII character, written as any lead byte and continuation bytes)."""

    ascii: frozenset[int]
    high: tuple[bytes, ...] | None

    @property
    def word_only(self) -> bool:
        return bool(self.ascii) and self.ascii <= _ASCII_WORD and self.high == ()


def _byte(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{code:02x}"


def _byte_class(codes: frozenset[int] | set[int]) -> str:
    """A class of bytes (``""`` when empty)."""
    spans: list[list[int]] = []
    for code in sorted(codes):
        if spans and code == spans[-1][1] + 1:
            spans[-1][1] = code
        else:
            spans.append([code, code])
    if len(spans) == 1 and spans[0][0] == spans[0][1]:
        return _byte(spans[0][0])
    return (
        "["
        + "".join(_byte(lo) if lo == hi else f"{_byte(lo)}-{_byte(hi)}" for lo, hi in spans)
        + "]"
    )


def _bytes(data: bytes) -> str:
    return "".join(_byte(b) for b in data)


#: any one non-ASCII character in UTF-8 (a lead byte, one to three continuation bytes)
_ANY_HIGH = "[\\xc0-\\xff][\\x80-\\xbf]{1,3}"


@functools.lru_cache(maxsize=4096)
def _chars(item: tuple[Any, Any], flags: int) -> _Chars:
    """The bytes of the single-character ``item`` (hashable, :func:`_freeze`) under ``flags``."""
    ascii_part = _ascii_members(item, flags)
    high = _non_ascii(item, flags)
    if high is not None and sum(hi - lo + 1 for lo, hi in high) <= SMALL:
        points = [
            c
            for lo, hi in high
            for c in range(lo, hi + 1)
            if not _SURROGATES[0] <= c <= _SURROGATES[1]
        ]
        return _Chars(ascii_part, tuple(chr(c).encode("utf-8") for c in points))
    return _Chars(ascii_part, None)


def _one(chars: _Chars) -> str:
    """An expression for one character of ``chars``."""
    options = [_byte_class(chars.ascii)] if chars.ascii else []
    options += [_ANY_HIGH] if chars.high is None else [_bytes(b) for b in chars.high]
    if not options:
        raise Unsupported("a class that matches nothing")
    return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"


def _repeat(chars: _Chars, low: int, high: int | None) -> str:
    """``low`` to ``high`` (``None``: no bound) characters of ``chars``; when some are any
    non-ASCII character, as bytes: any of ``chars``' ASCII ones or a byte of a multi-byte
    character, ``low`` to four times ``high`` of them (a superset, and one byte class, which the
    engine repeats cheaply where an alternation of multi-byte forms would make it large)."""
    if chars.high is None:
        body = _byte_class(set(chars.ascii) | set(range(128, 256)))
        high = None if high is None or 4 * high > BOUND else 4 * high
    else:
        body = _one(chars)
        if not body.startswith("(") and len(body) > 1 and not body.startswith("["):
            body = f"(?:{body})"
    return body + (f"{{{low},}}" if high is None else f"{{{low},{high}}}")


class _Writer:
    """Writes the superset of one parsed pattern (see the module's doc)."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def single(self, item: tuple[Any, Any], flags: int) -> _Chars:
        return _chars(_freeze(item), flags)

    def word_edge(self, items: list[tuple[Any, Any]], flags: int, last: bool) -> bool:
        """Does every match of ``items`` start (``last``: end) with an ASCII word character?"""
        order = list(reversed(items)) if last else items
        for op, av in order:
            if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
                continue
            if op in _SINGLE:
                return self.single((op, av), flags).word_only
            if op is sre.SUBPATTERN:
                inner = (flags | av[1]) & ~av[2]
                return av[3].getwidth()[0] > 0 and self.word_edge(list(av[3].data), inner, last)
            if op is _ATOMIC:
                return av.getwidth()[0] > 0 and self.word_edge(list(av.data), flags, last)
            if op is sre.BRANCH:
                return all(
                    alt.getwidth()[0] > 0 and self.word_edge(list(alt.data), flags, last)
                    for alt in av[1]
                )
            if op in _REPEATS:
                return av[0] >= 1 and self.word_edge(list(av[2].data), flags, last)
            return False
        return False

    def sequence(self, items: list[tuple[Any, Any]], flags: int) -> str:
        out = []
        for index, (op, av) in enumerate(items):
            if op in _SINGLE:
                out.append(_one(self.single((op, av), flags)))
            elif op is sre.AT:
                out.append(self.at(av, items, index, flags))
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                continue  # a constraint dropped: more matches, never fewer
            elif op is sre.SUBPATTERN:
                _, add, remove, sub = av
                out.append(f"(?:{self.sequence(list(sub.data), (flags | add) & ~remove)})")
            elif op is _ATOMIC:
                out.append(f"(?:{self.sequence(list(av.data), flags)})")
            elif op is sre.BRANCH:
                out.append(
                    "(?:" + "|".join(self.sequence(list(alt.data), flags) for alt in av[1]) + ")"
                )
            elif op in _REPEATS:
                low, high, sub = av
                bound = None if high == sre.MAXREPEAT or high > BOUND else high
                if len(sub.data) == 1 and sub.data[0][0] in _SINGLE:
                    out.append(_repeat(self.single(sub.data[0], flags), low, bound))
                    continue
                body = f"(?:{self.sequence(list(sub.data), flags)})"
                out.append(body + (f"{{{low},}}" if bound is None else f"{{{low},{bound}}}"))
            else:  # a backreference, a conditional group: no superset here
                raise Unsupported(str(op))
        return "".join(out)

    def at(self, where: Any, items: list[tuple[Any, Any]], index: int, flags: int) -> str:
        multiline = bool(flags & re.MULTILINE)
        if where is sre.AT_BEGINNING and multiline:
            return "^"
        if where is sre.AT_END and multiline:
            return "$"
        if where is sre.AT_BOUNDARY and (
            self.word_edge(items[index + 1 :], flags, last=False)
            or self.word_edge(items[:index], flags, last=True)
        ):
            return "\\b"
        return ""  # \A, \Z, \B, ^ and $ outside multi-line mode, \b beside anything else: dropped
