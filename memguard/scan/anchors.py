"""Where a rule can match: the literal prefixes every match of a pattern branch starts with.

The built-in scanner does not search each rule over the whole text. It finds, in one Aho-Corasick
pass (:mod:`memguard.scan.match`), every place where some branch's literal prefix occurs, and tries
that branch only there (``pattern.match(text, pos)``, which sees the whole text, so anchors,
lookbehinds and word boundaries behave as in a search). That is exact as long as every match of a
branch starts with one of its prefixes, which :func:`literal_prefixes` guarantees by reading the
parsed pattern: it only ever cuts a prefix short, never guesses one.

A branch that can start anywhere (``(?:^|[\\n:;.]\\s*)system:``, ``[\\w.+-]+@...``) is split into a
*lead* and the rest (:func:`split_lead`): the rest is anchored on its own prefixes and the lead is
checked backwards from there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = [
    "COMMON_WORDS", "MARKUP", "SPACES", "branches", "common", "factor", "factors", "literal_prefixes", "markup",
    "minimal", "split_lead", "syntax", "weak",
]  # fmt: skip

#: prefixes longer than this add little selectivity and multiply the automaton's keys
DEPTH = 12
#: a branch whose prefix set would grow past this is cut back to the prefixes it had
LIMIT = 4000
_SMALL_CLASS = 12
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))
_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)

_Partial = tuple[str, bool]  # (prefix so far, finished)
#: ``\s`` parsed, and the characters it matches (``str.isspace``: ten ASCII ones, nineteen others;
#: ``tests/scan/test_match.py`` holds the list to the whole of Unicode)
_SPACE = list(sre_parse.parse(r"\s"))
SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def syntax(pattern: str) -> Iterator[tuple[int, str, int]]:
    """``(index, char, depth)`` of each ``(``, ``)`` and ``|`` outside character classes and
    escapes; ``depth`` is the group depth after the character."""
    depth, in_class, escaped = 0, False, False
    for i, c in enumerate(pattern):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c in "()|":
            depth += {"(": 1, ")": -1, "|": 0}[c]
            yield i, c, depth


def branches(pattern: str) -> list[str]:
    """Split a pattern at its top-level ``|`` (outside groups and character classes)."""
    cuts = [i for i, c, depth in syntax(pattern) if c == "|" and depth == 0]
    return [pattern[a + 1 : b] for a, b in zip([-1, *cuts], [*cuts, len(pattern)], strict=True)]


def _class_chars(items: Iterable[tuple[Any, Any]]) -> set[str] | None:
    out: set[str] = set()
    for op, av in items:
        if op is sre.LITERAL:
            out.add(chr(av))
        elif op is sre.RANGE and av[1] - av[0] < _SMALL_CLASS:
            out.update(chr(c) for c in range(av[0], av[1] + 1))
        else:  # NEGATE, a category (\w, \s) or a wide range: not a short list of characters
            return None
    return out if len(out) <= _SMALL_CLASS else None


def _finish(partials: set[_Partial]) -> set[_Partial]:
    return {(p, True) for p, _ in partials}


def _extend(partials: set[_Partial], chars: Iterable[str], depth: int = DEPTH) -> set[_Partial]:
    options = tuple(chars)
    out: set[_Partial] = set()
    for prefix, done in partials:
        if done:
            out.add((prefix, True))
        else:
            out.update((prefix + c, len(prefix) + 1 >= depth) for c in options)
    return out


def _walk(items: list[tuple[Any, Any]], partials: set[_Partial], depth: int = DEPTH) -> set[_Partial]:
    """Extend each unfinished prefix through ``items`` (a parsed sequence) as far as it is forced."""
    skip = 0
    for index, (op, av) in enumerate(items):
        if skip:  # a literal already taken with the run before it
            skip -= 1
            continue
        if all(done for _, done in partials):
            return partials
        if op in _ZERO_WIDTH:
            continue  # consumes nothing: the prefix goes on with what follows
        if op is sre.LITERAL:
            # a run of literals extends every prefix at once (as far as ``depth``)
            run = [chr(av)]
            for next_op, next_av in items[index + 1 : index + depth]:
                if next_op is not sre.LITERAL:
                    break
                run.append(chr(next_av))
            skip, word = len(run) - 1, "".join(run)
            grown = {
                (p, True) if done else (q := p + word[: depth - len(p)], len(q) >= depth)
                for p, done in partials
            }
        elif op is sre.IN and (chars := _class_chars(av)) is not None:
            grown = _extend(partials, sorted(chars), depth)
        elif op is sre.IN and [(op, av)] == _SPACE:
            grown = _extend(partials, SPACES, depth)
        elif op is sre.SUBPATTERN and not av[1] and not av[2]:  # a group without inline flags
            return _walk(av[3].data + items[index + 1 :], partials, depth)
        elif op is sre.BRANCH:
            grown, rest = set(), items[index + 1 :]
            for alternative in av[1]:
                grown |= _walk(alternative.data + rest, partials, depth)
            return grown if len(grown) <= LIMIT else _finish(partials)
        elif op in _REPEATS and av[0] == 0 and av[1] == 1:  # optional: with it and without it
            rest = items[index + 1 :]
            grown = _walk(av[2].data + rest, partials, depth) | _walk(rest, partials, depth)
            return grown if len(grown) <= LIMIT else _finish(partials)
        elif op in _REPEATS and av[0] == 0 and av[2].data == _SPACE:
            # ``\s*``: no whitespace and what follows, or a whitespace character (and no more
            # is known: more whitespace may follow it)
            grown = _walk(items[index + 1 :], partials, depth) | _finish(_extend(partials, SPACES, depth))
            return grown if len(grown) <= LIMIT else _finish(partials)
        elif op in _REPEATS and av[0] >= 1:  # the first `low` copies are forced
            low, high, sub = av
            copies = sub.data * min(low, depth)
            return _walk(copies + items[index + 1 :] if low == high <= depth else copies, partials, depth)
        else:  # anything else (an optional repeat, a wide class, a backreference) ends the prefix
            return _finish(partials)
        if len(grown) > LIMIT:
            return _finish(partials)
        partials = grown
    return _finish(partials)


def minimal(prefixes: Iterable[str]) -> frozenset[str]:
    """Drop every prefix that starts with another one of the set (the shorter one is enough)."""
    out: list[str] = []
    for prefix in sorted(set(prefixes)):
        if not out or not prefix.startswith(out[-1]):
            out.append(prefix)
    return frozenset(out)


@functools.lru_cache(maxsize=1024)
def _parse(pattern: str, flags: int) -> Any:
    """``re``'s parse of ``pattern`` (the rule set asks for the same parts again and again; the
    callers only read it)."""
    return sre_parse.parse(pattern, flags)


@functools.lru_cache(maxsize=4096)
def literal_prefixes(pattern: str, flags: int = re.MULTILINE, depth: int = DEPTH) -> frozenset[str]:
    """Literal strings one of which every match of ``pattern`` starts with (``""`` among them
    means a match can start with anything), at most ``depth`` characters long."""
    tree = _parse(pattern, flags)
    return minimal(p for p, _ in _walk(tree.data, {("", False)}, depth))


#: words so common in prose that a key on one of them is met in almost every text
COMMON_WORDS = frozenset(
    "a about after all also an and any are as at back be been but by can could day did do does "
    "done each end every for from get give go had has have he her him his how i if in into is it "
    "its just let make may me might more most must my new no not now of on one only or other our "
    "out over put run say see set she should so some such take tell than that the their them then "
    "there these they this those to up us use very was way we were what when where which who will "
    "with would you your".split()
)
#: characters of markup (tags, brackets, fences), which prose seldom holds
MARKUP = frozenset("<>[]{}`|#*=_~\\")


def common(prefixes: Iterable[str]) -> bool:
    """Does prose hold one of ``prefixes`` almost everywhere (a common word, or two letters)?"""
    return any(
        (core := p.strip(SPACES)) in COMMON_WORDS or (core.isascii() and core.isalpha() and len(core) <= 2)
        for p in prefixes
    )


def markup(prefixes: Iterable[str]) -> bool:
    """Does every one of ``prefixes`` hold a markup character (rare in prose)?"""
    return all(any(c in MARKUP for c in p) for p in prefixes)


def _rarity(prefixes: frozenset[str]) -> int:
    # short ASCII words are everywhere in prose; non-ASCII ones only in their own script
    return min((len(p) if p.isascii() else len(p) + 3) for p in prefixes)


Factor = tuple[frozenset[str], int, int | None]


def factor(pattern: str, flags: int = re.MULTILINE, *, skip_common: bool = True) -> Factor | None:
    """A second anchor inside ``pattern``: ``(prefixes, low, high)`` says that every match starting
    at ``s`` holds one of ``prefixes`` starting between ``s + low`` and ``s + high`` (``None``: no
    upper bound). The part after the first element with the rarest prefixes, never one that holds
    a :func:`common` word (every text has one: no help as a gate) unless ``skip_common`` is false
    (the choice of earlier rounds, which the matcher's exact mode keeps); ``None`` if none."""
    fast, exact = factors(pattern, flags)
    return fast if skip_common else exact


def factors(pattern: str, flags: int = re.MULTILINE) -> tuple[Factor | None, Factor | None]:
    """:func:`factor` with and without ``skip_common``, from one walk of the pattern (the rule set
    needs both for every branch; the walk is most of its build time)."""
    tree = _parse(pattern, flags)
    items = tree.data
    fast: tuple[int, Factor] | None = None
    exact: tuple[int, Factor] | None = None
    for j in range(1, len(items)):
        if items[j][0] in _ZERO_WIDTH:
            continue
        prefixes = minimal(p for p, _ in _walk(items[j:], {("", False)}))
        if "" in prefixes or weak(prefixes):
            continue  # met almost everywhere: no help as a second anchor
        score = _rarity(prefixes)
        better_exact = exact is None or score > exact[0]
        better_fast = (fast is None or score > fast[0]) and not common(prefixes)
        if not (better_exact or better_fast):
            continue
        low, high = sre_parse.SubPattern(tree.state, items[:j]).getwidth()
        found = (score, (prefixes, low, None if high >= sre.MAXREPEAT else high))
        if better_exact:
            exact = found
        if better_fast:
            fast = found
    return (None if fast is None else fast[1]), (None if exact is None else exact[1])


_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d*(?:,\d*)?\})[?+]?")


def _first_atom(pattern: str) -> int:
    """The length of the first atom of ``pattern`` with its quantifier."""
    if pattern.startswith("("):
        end = next(i for i, c, depth in syntax(pattern) if c == ")" and depth == 0) + 1
    elif pattern.startswith("["):
        i = 1 + (pattern[1:2] == "^")
        i += pattern[i : i + 1] == "]"
        while pattern[i] != "]":
            i += 2 if pattern[i] == "\\" else 1
        end = i + 1
    elif pattern.startswith("\\"):
        end = 2
    else:
        end = 1
    quantifier = _QUANTIFIER.match(pattern, end)
    return quantifier.end() if quantifier else end


#: one-character prefixes that ordinary prose is full of: an anchor on them is tried everywhere
_COMMON = frozenset(" \t\n\r.,:;-'\"()?!/") | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def weak(prefixes: Iterable[str]) -> bool:
    """Does a match attempt at these prefixes happen at almost every position of prose? (Whitespace
    around one common character, ``". "``, ``"\\n "``, is as common as the character.)"""
    return any(len(core := p.strip(SPACES)) == 0 or (len(core) == 1 and core in _COMMON) for p in prefixes)


def split_lead(branch: str, *, max_atoms: int = 4) -> tuple[str, str]:
    """``(lead, rest)`` with ``lead + rest == branch`` and ``rest`` anchored on literal prefixes
    that are not :func:`weak`: ``("", branch)`` when the branch itself is, the first atoms of the
    branch as the lead otherwise; ``(branch, "")`` when no split gives an anchor at all."""
    lead, rest = "", branch
    fallback: tuple[str, str] | None = None
    for _ in range(max_atoms + 1):
        if not rest:
            break
        prefixes = literal_prefixes(rest)
        if "" not in prefixes:
            if not weak(prefixes):
                return lead, rest
            fallback = fallback or (lead, rest)
        cut = _first_atom(rest)
        lead, rest = lead + rest[:cut], rest[cut:]
    return fallback or (branch, "")
