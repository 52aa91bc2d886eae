"""Example texts of a pattern branch, for the self-check of a loaded prefilter database.

A compiled database read from the rule-table cache (:mod:`memguard.scan.rulecache`) is bytes the
process did not make: a cache written as the same user can hold a database compiled from other
patterns, with a recomputed digest. The prefilter (:mod:`memguard.scan.prefilter`) therefore
scans a few texts whose answer it knows before it uses one. For the superset database, those
texts are one match per rule branch, made here: :func:`examples` walks the branch's parse and takes
the first way through it (the first alternative, each repeat's least count, a class's first
character); the caller keeps only the examples the full matcher confirms (lookarounds and word
boundaries are not reasoned about here, so some walks give a text the branch does not match).
"""

from __future__ import annotations

import re
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["MAX_LENGTH", "examples"]

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))
_ATOMIC = getattr(sre, "ATOMIC_GROUP", None)
#: a text longer than this is not made (a bounded repeat of a large group)
MAX_LENGTH = 2000
_CATEGORY = {
    sre.CATEGORY_DIGIT: "0",
    sre.CATEGORY_NOT_DIGIT: "a",
    sre.CATEGORY_SPACE: " ",
    sre.CATEGORY_NOT_SPACE: "a",
    sre.CATEGORY_WORD: "a",
    sre.CATEGORY_NOT_WORD: " ",
    sre.CATEGORY_LINEBREAK: "\n",
    sre.CATEGORY_NOT_LINEBREAK: "a",
}
#: characters tried for a negated class or ``[^x]``
_OTHERS = " ax0.-\n_éA"


class _TooLong(Exception):
    pass


def _in_class(items: Any, char: str) -> bool:
    """Does the parsed class ``items`` hold ``char``? (Compiled from the parse itself.)"""
    state = sre_parse.State()
    state.flags = re.MULTILINE
    compiled = sre_compile.compile(sre_parse.SubPattern(state, [(sre.IN, items)]), re.MULTILINE)
    return compiled.fullmatch(char) is not None


def _class_char(items: Any) -> str | None:
    negated = any(op is sre.NEGATE for op, _ in items)
    if not negated:
        for op, av in items:
            if op is sre.LITERAL:
                return chr(av)
            if op is sre.RANGE:
                return chr(av[0])
            if op is sre.CATEGORY and av in _CATEGORY:
                return _CATEGORY[av]
    for char in _OTHERS:
        try:
            if _in_class(items, char):
                return char
        except Exception:  # a class that does not compile alone: no example
            return None
    return None


def _walk(items: Any, out: list[str], groups: dict[int, str], least: int = 0) -> bool:
    for op, av in items:
        if op is sre.LITERAL:
            out.append(chr(av))
        elif op is sre.NOT_LITERAL:
            out.append(" " if av != ord(" ") else "a")
        elif op is sre.ANY:
            out.append("a")
        elif op is sre.IN:
            char = _class_char(av)
            if char is None:
                return False
            out.append(char)
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue  # zero width: the full matcher's confirmation decides
        elif op is sre.SUBPATTERN:
            start = len("".join(out))
            if not _walk(av[3], out, groups, least):
                return False
            if av[0] is not None:
                groups[av[0]] = "".join(out)[start:]
        elif op is _ATOMIC and _ATOMIC is not None:
            if not _walk(av, out, groups, least):
                return False
        elif op is sre.BRANCH:
            if not _walk(av[1][0], out, groups, least):
                return False
        elif op in _REPEATS:
            low, high, sub = av
            for _ in range(max(low, min(least, high))):
                if not _walk(sub, out, groups, least):
                    return False
        elif op is sre.GROUPREF:
            if av not in groups:
                return False
            out.append(groups[av])
        else:  # a conditional group, or something new: no example
            return False
        if len(out) > MAX_LENGTH:
            raise _TooLong
    return True


def examples(pattern: str, flags: int = re.MULTILINE) -> list[str]:
    """Texts that ``pattern`` may match: each repeat at its least count, then at one or more (a
    ``\\s*`` between two words); each padded with a space on each side, so that a leading or
    trailing ``\\b`` can hold. Not checked here: the caller confirms them."""
    out: list[str] = []
    try:
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, RecursionError):
        return out
    for least in (0, 1):
        made: list[str] = []
        try:
            if not _walk(parsed.data, made, {}, least):
                continue
        except (_TooLong, RecursionError):
            continue
        text = "".join(made)
        if text and len(text) <= MAX_LENGTH:
            out.extend((f" {text} ", f"\n{text}\n"))  # (a line anchor holds after a line break)
    return out
