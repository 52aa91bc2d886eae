"""Red team (round 31): the Hyperscan prefilter against a plain search, on texts written from the
rules themselves.

Each rule branch's parse is walked to write a text it matches (a literal, a class member, an
alternative, a repeat count; lookarounds and anchors are left to chance, so some texts do not
match, and the plain search is the judge either way). The text is set among zero-width, bidi,
confusable, styled and other-script characters, line separators, and for the branches whose lead
is unbounded after a run of word characters longer than the 4,096-character lead window. The
prefiltered rule set must give exactly the patterns ``re.search`` matches (a rule the plain
search finds and the prefilter loses is a bypass: the scan would say clean).

A second test holds the scanner's verdicts with the prefilter to those of the full matcher on the
corpus's attack and benign rows disguised the same ways.

What would fail: a superset that misses a branch (a class, a boundary, a case rule), a candidate
confirmed at the wrong place, a prefix database whose offsets are read wrong on non-ASCII text,
a lead cut at the window that is not handed to the full matcher.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import pytest

from memguard.scan import builtin, prefilter
from memguard.scan.anchors import branches, split_lead
from memguard.scan.builtin import PATTERNS, RuleScanner, rule_set
from memguard.scan.match import LEAD_WINDOW, Work, _lead_reach
from memguard.scan.prefilter import PrefilteredRuleSet

pytestmark = pytest.mark.skipif(
    prefilter.hyperscan is None, reason="no Hyperscan wheel on this platform (nothing to compare)"
)

PLAIN = [re.compile(p, re.MULTILINE) for p in PATTERNS]
BRANCHES = [(i, b) for i, p in enumerate(PATTERNS) for b in branches(p)]
#: characters a class member is picked from (ASCII, then look-alikes, marks, spaces, other scripts)
POOL = [chr(c) for c in range(32, 127)] + list(
    "\n\t\u00e9\u00df\u0130\u0131\u017f\u212a\u0430\u0435\u043e\u3000\u00a0\u200b\u2028\u5ffd\U0001d41a"
)
#: what a generated text is set among
NOISE = ["\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u00e9", "\u00df", "\u0130",
         "\u017f", "\u212a", "\u3000", "\u00a0", "\n", "\r\n", "\u2028", "\u0085", " ", "_", "x", "1",
         "!", "|", "[", "\u5ffd\u7565", "\U0001d41a", "\u0561", "\u0430", "\u0301", "\x00", "'", '"',
         "\U000e0041", "\u0336"]  # fmt: skip
_members: dict[Any, list[str]] = {}


def _chars(item: tuple[Any, Any], flags: int) -> list[str]:
    """The members of :data:`POOL` (and the class's own literals) a one-character item matches."""
    op, av = item
    key = (op, tuple(av) if op is sre.IN else av, flags)
    if key not in _members:
        state = sre_parse.State()
        state.flags = flags
        one = sre_compile.compile(sre_parse.SubPattern(state, [item]), flags)
        pool = set(POOL)
        for kind, value in av if op is sre.IN else [(op, av)]:
            if kind is sre.LITERAL:
                pool.add(chr(value))
            elif kind is sre.RANGE:
                pool.update((chr(value[0]), chr(value[1])))
        _members[key] = sorted(c for c in pool if one.match(c))
    return _members[key]


def _write(items: list[tuple[Any, Any]], flags: int, rnd: random.Random) -> str:
    out = []
    for op, av in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            chars = _chars((op, av), flags)
            out.append(rnd.choice(chars) if chars else "")
        elif op is sre.SUBPATTERN:
            out.append(_write(list(av[3].data), (flags | av[1]) & ~av[2], rnd))
        elif op is sre.BRANCH:
            out.append(_write(list(rnd.choice(av[1]).data), flags, rnd))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            top = low + 3 if high == sre.MAXREPEAT else min(high, low + 3)
            out.extend(_write(list(sub.data), flags, rnd) for _ in range(rnd.randint(low, top)))
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            out.append(_write(list(av.data), flags, rnd))
        elif op is sre.AT and rnd.random() < 0.5:  # a boundary or a line end: a neighbour
            out.append(rnd.choice([" ", "", "x", "\u00e9", "!", "_", "\n"]))
    return "".join(out)


def _sample(source: str, rnd: random.Random) -> str:
    tree = sre_parse.parse(source, re.MULTILINE)
    return _write(list(tree.data), tree.state.flags, rnd)


def _around(rnd: random.Random) -> str:
    kind = rnd.random()
    if kind < 0.3:
        return ""
    if kind < 0.6:
        return "".join(rnd.choice(NOISE) for _ in range(rnd.randint(1, 4)))
    if kind < 0.8:
        return _sample(rnd.choice(BRANCHES)[1], rnd)
    return "".join(rnd.choice([*NOISE, "a", "b", " ", ".", ":"]) for _ in range(rnd.randint(1, 30)))


def plain(text: str) -> set[int]:
    return {i for i, compiled in enumerate(PLAIN) if compiled.search(text)}


def _rules() -> PrefilteredRuleSet:
    rules = rule_set()
    assert isinstance(rules, PrefilteredRuleSet) and rules.engine is not None, rules.engine_error
    return rules


@pytest.mark.parametrize("seed", range(3))
def test_texts_written_from_every_branch_match_as_a_plain_search(seed: int) -> None:
    rnd, rules = random.Random(seed), _rules()
    own = 0
    for index, source in BRANCHES:
        written = _sample(source, rnd)
        for _ in range(4):  # a few tries for one the branch's rule matches
            if PLAIN[index].search(written.lower()):
                break
            written = _sample(source, rnd)
        text = _around(rnd) + written + _around(rnd)
        text = text.lower() if rnd.random() < 0.7 else text
        work = Work()
        found, expected = rules.matching(text, work), plain(text)
        if not work.truncated:
            assert found == expected, (index, text[:200], expected - found, found - expected)
        own += index in expected
    assert own > len(BRANCHES) // 2  # the writer reaches most branches (else this tests little)


def _unbounded_leads() -> list[tuple[int, str]]:
    out = []
    for index, source in BRANCHES:
        body = source[2:] if source.startswith("\\b") else source
        lead, rest = split_lead(body)
        if lead and rest and _lead_reach(lead) >= LEAD_WINDOW:
            out.append((index, source))
    return out


def test_a_lead_past_the_window_matches_as_a_plain_search() -> None:
    rnd, rules = random.Random(7), _rules()
    cases = _unbounded_leads()
    assert cases  # the rules have such branches (an unbounded run of word characters before `@`)
    for index, source in cases[:12]:
        for run in ("a", "_", "\u00e9"):
            text = run * (LEAD_WINDOW + rnd.randint(1, 100)) + _sample(source, rnd).lower()
            found, expected = rules.matching(text, Work()), plain(text)
            assert found == expected, (index, text[-200:], expected - found)


BOLD = {c: chr(0x1D41A + ord(c) - 97) for c in "abcdefghijklmnopqrstuvwxyz"}
CYRILLIC = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "i": "\u0456"}
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]


def _disguised(text: str, rnd: random.Random) -> str:
    kind = rnd.randrange(8)
    if kind == 0:
        return "".join(BOLD.get(c, c) if rnd.random() < 0.5 else c for c in text)
    if kind == 1:
        return "".join(CYRILLIC.get(c, c) if rnd.random() < 0.3 else c for c in text)
    if kind == 2:
        return "".join(c + (rnd.choice(INVISIBLE) if c.isalpha() and rnd.random() < 0.3 else "")
                       for c in text)  # fmt: skip
    if kind == 3:
        return "\u202e" + text + "\u202c"
    if kind == 4:
        return "".join(c + ("\u0336" if c.isalpha() and rnd.random() < 0.5 else "") for c in text)
    if kind == 5:
        return text.replace(" ", rnd.choice(["\u00a0", "\u3000", "\u2028", "\t", "\n"]))
    if kind == 6:
        return rnd.choice(["a", "x_", "\u00e9"]) * rnd.randint(100, 300) + " " + text
    return "".join(rnd.choice([c, c.upper()]) for c in text)


def test_disguised_corpus_rows_get_the_full_matchers_verdicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [json.loads(line) for line in
            (Path(__file__).parent / "corpus" / "injections.jsonl").read_text("utf-8").splitlines()
            if line.strip()]  # fmt: skip
    rnd, rules = random.Random(11), _rules()
    scanner = RuleScanner()
    flagged = 0
    for row in rnd.sample(rows, 250):
        text = _disguised(row["text"], rnd)
        with_prefilter = scanner.scan(text)
        with monkeypatch.context() as m:
            m.setattr(rules, "engine", None)  # every text through the full matcher
            full = scanner.scan(text)
        assert (with_prefilter.label, with_prefilter.reasons) == (full.label, full.reasons), text
        flagged += with_prefilter.label != "clean"
    assert flagged > 50 and builtin.rule_set() is rules
