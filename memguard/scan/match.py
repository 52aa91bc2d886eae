"""One pass over the text for every rule: an Aho-Corasick automaton over the rules' literal prefixes.

:class:`RuleSet` compiles each top-level branch of each rule, computes the literal prefixes its
matches start with (:mod:`memguard.scan.anchors`) and puts them all in one automaton
(``pyahocorasick``, C). Scanning a text is one automaton pass; a branch is only tried where one of its
prefixes occurs (``pattern.match(text, pos)``), so benign text with no rule's opening words costs
the pass and nothing else, and a trigger word alone costs one anchored match attempt, not a search.

The result is the same as searching every rule over the whole text
(``tests/scan/test_match.py`` checks it against plain :func:`re.search` on the corpus).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, NamedTuple

import ahocorasick  # type: ignore[import-not-found]  # ships no type information

from memguard.scan import rulecache
from memguard.scan.anchors import branches, factors, literal_prefixes, markup, split_lead

__all__ = ["ATTEMPTS", "CUT", "FAILED", "LEAD_WINDOW", "MATCHED", "MAX_ATTEMPTS", "MAX_CHARS", "MAX_SEARCHES", "Plan", "RuleSet", "Work", "attempt", "cacheable", "plan", "window_holds"]

#: anchored attempts per branch and text before the branch is searched over the whole text once
ATTEMPTS = 32
#: the hard caps on the work of one scan (every text it matches: the fact, what invisible Unicode
#: hides, what encodings decode to): characters read by the automaton, anchored match attempts
#: (each bounded by its branch: a line, a gap), whole-text searches. Past a cap matching stops and
#: the scan is ``truncated``, which the scanner never reports as clean.
MAX_CHARS = 1 << 18
MAX_ATTEMPTS = 4096
MAX_SEARCHES = 8


@dataclass(slots=True)
class Work:
    """What one scan spent against the caps, and whether a cap stopped it."""

    chars: int = 0
    attempts: int = 0
    searches: int = 0
    truncated: bool = False
    #: match with the second anchors of earlier rounds (see :class:`RuleSet`)
    exact: bool = False
    #: anchors of the watched branches met so far (see :class:`RuleSet`)
    reach: int = 0
    #: a text of this scan came near a budget, where the gate choice can change the counts
    heavy: bool = False

    def take_chars(self, n: int) -> bool:
        """Charge reading ``n`` characters; ``False`` (and truncated) past :data:`MAX_CHARS`."""
        if self.chars + n > MAX_CHARS:
            self.truncated = True
            return False
        self.chars += n
        return True
#: a factor is used when the body may run this much or more before it (a shorter, fixed gap
#: makes the anchored match attempt cheap already)
FACTOR_GAP = 8
_NO_BOUND = 1 << 62
#: a branch's attempt count once it was searched whole (or could not be): above ATTEMPTS, and
#: a byte, so that a text's counts are one zeroed bytearray
_SPENT = 255
#: how far back from an anchor a lead of unbounded width (``[\w.+-]+`` before ``@``) is followed
#: (a lead not found within it may start further back: the branch is then searched whole once)
LEAD_WINDOW = 4096
_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))
_SPACE_CLASS = list(sre_parse.parse(r"\s"))[0:1]
_UNBOUNDED = -1


def _width(items: list[tuple[Any, Any]], tail: bool) -> int:
    """The widest ``items`` can be, not counting a ``\\s*`` at the very end (``_UNBOUNDED``
    when it has no bound)."""
    total = 0
    last = max((i for i, (op, _) in enumerate(items) if op not in _ZERO_WIDTH), default=-1)
    for i, (op, av) in enumerate(items):
        at_end = tail and i == last
        if op in _ZERO_WIDTH:
            width = 0
        elif op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN, sre.ANY):
            width = 1
        elif op is sre.SUBPATTERN:
            width = _width(list(av[3]), at_end)
        elif op is sre.BRANCH:
            widths = [_width(list(alt), at_end) for alt in av[1]]
            width = _UNBOUNDED if _UNBOUNDED in widths else max(widths)
        elif op in _REPEATS:
            _, high, sub = av
            if at_end and high == sre.MAXREPEAT and list(sub) == _SPACE_CLASS:
                width = 0  # trailing whitespace: _lead_start steps over it
            else:
                one = _width(list(sub), False)
                width = _UNBOUNDED if one == _UNBOUNDED or high == sre.MAXREPEAT else one * high
        else:
            width = _UNBOUNDED
        if width == _UNBOUNDED:
            return _UNBOUNDED
        total += width
    return total


def _lead_reach(lead: str) -> int:
    """How far before the anchor (and the whitespace right before it) a lead can start."""
    width = _width(list(sre_parse.parse(lead, re.MULTILINE)), True)
    return LEAD_WINDOW if width == _UNBOUNDED else min(width, LEAD_WINDOW)


class _Branch(NamedTuple):
    rule: int
    #: this branch's number in the rule set (for the per-text attempt budget)
    number: int
    #: ``search`` of the whole branch: the fallback once the budget is spent
    search: Callable[[str], re.Match[str] | None]
    #: ``body.match``: the branch after its lead, tried at the anchor
    match: Callable[[str, int], re.Match[str] | None]
    #: ``lead.search`` over ``(text, lead_start, anchor)``: the lead must end exactly at the anchor
    lead: Callable[[str, int, int], re.Match[str] | None] | None
    #: how far before the anchor (and the whitespace right before it) the lead can start
    reach: int
    #: (factor id, low, high): a factor prefix must start in [anchor + low, anchor + high]
    factor: tuple[int, int, int] | None


#: a branch with at most FEW prefixes gets them longer (20 or 16 characters, the longest that
#: gives at most DEEP_KEYS of them): a longer key is reached less often on prose ("the user's
#: notes" no longer anchors "the user's new iban"); others stay at anchors.DEPTH (the key count)
DEEP, FEW, DEEP_KEYS = (20, 16), 64, 512


def _anchor_keys(rest: str) -> frozenset[str]:
    """The keys ``rest`` is tried at: its prefixes (:func:`~memguard.scan.anchors.literal_prefixes`,
    never empty there: :func:`~memguard.scan.anchors.split_lead` made it so), longer ones for a
    branch with few. A deeper walk that outgrows
    :data:`~memguard.scan.anchors.LIMIT` at a group is cut back to the prefixes before that group,
    which at the branch's first group is ``""`` ("starts anywhere": no key at all, which the
    automaton and Hyperscan's literal API cannot hold, so the branch was never tried at an anchor);
    such a set is not taken (``(?:do not|don't|never|and not) (?:list|...) ...`` at depth 20)."""
    prefixes = literal_prefixes(rest)
    if len(prefixes) <= FEW:
        for depth in DEEP:
            deeper = literal_prefixes(rest, depth=depth)
            if len(deeper) <= DEEP_KEYS and "" not in deeper:
                return deeper
    return prefixes


def _lead_check(
    source: str, lead: str | None, code: Any
) -> Callable[[str, int, int], re.Match[str] | None] | None:
    """A branch's lead check over ``(text, lead_start, anchor)``; ``None`` for a branch without lead."""
    if lead is None:
        return None
    search = rulecache.compiled(lead, code).search
    return _BoundaryLead(search, source) if source.startswith("\\b") else search


def at_word_boundary(text: str, start: int) -> bool:
    """Whether ``\\b`` holds at ``start`` (``start < len(text)``): a word character on one side
    only. The anchor's own first character counts: a key may start with ``!``, ``|``, ``[``."""
    before = text[start - 1] if start else " "
    first = text[start]
    return (before.isalnum() or before == "_") != (first.isalnum() or first == "_")


def lead_cut_short(lo: int, reach: int) -> bool:
    """Whether a lead that failed over ``(text, lo, anchor)`` may still match from further back:
    an unbounded lead's search starts :data:`LEAD_WINDOW` before the anchor, not at the text's start
    (a run of word characters longer than the window before ``_`` or ``=``)."""
    return lo > 0 and reach >= LEAD_WINDOW


def window_holds(seen: dict[int, list[int]], start: int, gate: tuple[int, int, int]) -> bool:
    """Whether a second anchor of ``gate``'s factor (``seen``: where each factor's prefixes start,
    sorted) starts within ``[start + low, start + high]``: the gate check of an anchored attempt,
    in the full matcher and in the prefilter's confirmation alike."""
    places = seen.get(gate[0])
    if places is None:
        return False
    at = bisect_left(places, start + gate[1])
    return at != len(places) and places[at] <= start + gate[2]


#: what one anchored attempt (:func:`attempt`) found
FAILED, MATCHED, CUT = 0, 1, 2


def attempt(
    text: str,
    start: int,
    match: Callable[[str, int], re.Match[str] | None],
    lead: Callable[[str, int, int], re.Match[str] | None] | None,
    reach: int,
) -> int:
    """One anchored attempt of a branch at ``start``, the confirmation step the full matcher and
    the prefilter share: its rest matched there, then its lead searched back from there.
    :data:`MATCHED`, :data:`FAILED`, or :data:`CUT`: the lead failed within its window but may
    start further back (:func:`lead_cut_short`), so only a whole-text search of the branch can
    decide (the full matcher searches it; the prefilter hands the text to the full matcher)."""
    if match(text, start) is None:
        return FAILED
    if lead is None:
        return MATCHED
    lo = _lead_start(text, start, reach)
    if lead(text, lo, start) is not None:
        return MATCHED
    return CUT if lead_cut_short(lo, reach) else FAILED


def _searched_whole(search: Callable[[str], re.Match[str] | None], text: str, work: Work) -> bool:
    """A branch searched over the whole text once, in place of its anchored attempts (exact);
    past :data:`MAX_SEARCHES` not searched and the scan marked truncated (never read as clean)."""
    if work.searches >= MAX_SEARCHES:
        work.truncated = True
        return False
    work.searches += 1
    return search(text) is not None


def _lead_start(text: str, start: int, reach: int) -> int:
    while start > 0 and text[start - 1].isspace():  # a lead's trailing \s* (rarely more than one)
        start -= 1
    return max(0, start - reach)


#: a gate: (factor id, low, high): a factor prefix must start in [anchor + low, anchor + high]
_Gate = tuple[int, int, int]
#: what :func:`plan` returns: the rule set's tables as plain data (lists, strings, numbers, ``None``),
#: which is what :mod:`memguard.scan.rulecache` keeps in a file
Plan = dict[str, Any]


class _Search:
    """``re.compile(source, re.MULTILINE).search``, compiled on the first call: a branch's
    whole-text search is the fallback past its attempt budget, which most processes never reach
    (a third of the rule set's compile time saved at start-up)."""

    __slots__ = ("_search", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._search: Callable[[str], re.Match[str] | None] | None = None

    def __call__(self, text: str) -> re.Match[str] | None:
        search = self._search
        if search is None:
            search = self._search = re.compile(self.source, re.MULTILINE).search
        return search(text)


class _BoundaryLead:
    """The lead check of a branch that starts with ``\\b``: ``\\b(?=[\\s\\S])(?:lead)\\Z`` searched
    over ``(text, lead_start, anchor)`` (a lead of at least one character), and else the whole branch
    matched at the anchor (the empty lead). The search ends at the anchor (``endpos``), so there it
    cannot see the character at the anchor that decides a word boundary: ``\\b(?:\\w+ )?task`` with
    an empty lead missed "] task" and took "xtask". The whole branch matched at the anchor sees it."""

    __slots__ = ("_match", "lead", "source")

    def __init__(self, lead: Callable[[str, int, int], re.Match[str] | None], source: str) -> None:
        #: the lead's own search (``re.Pattern.search`` of the lead's pattern)
        self.lead = lead
        self.source = source
        self._match: Callable[[str, int], re.Match[str] | None] | None = None

    def __call__(self, text: str, lo: int, anchor: int) -> re.Match[str] | None:
        found = self.lead(text, lo, anchor)
        if found is not None:
            return found
        match = self._match
        if match is None:
            match = self._match = re.compile(self.source, re.MULTILINE).match
        return match(text, anchor)


def _automata(tables: Plan, branches: Sequence[_Branch]) -> tuple[Any, Any]:
    """The automata of ``tables`` (:meth:`_Tables.export`) over ``branches``, for any text and for
    ASCII text (which can only hold ASCII keys; an automaton without the others has a far smaller
    fan-out at its root). Each key maps to ``(len - 1, branches, the same with the \\b ones
    (``None``: there are none), factor ids, the factor ids one of which each of those branches
    needs (``None``: one of them needs none), the numbers of the branches among them in
    ``watched``, the same among the \\b ones)``."""
    shared = [
        (
            tuple(branches[n] for n in plain),
            None if every is None else tuple(branches[n] for n in every),
            tuple(fids),
            None if needs is None else frozenset(needs),
            tuple(watch),
            None if watch_every is None else tuple(watch_every),
        )
        for plain, every, fids, needs, watch, watch_every in tables["values"]
    ]
    automaton, ascii_automaton = ahocorasick.Automaton(), ahocorasick.Automaton()
    add, add_ascii = automaton.add_word, ascii_automaton.add_word
    for prefix, at in zip(tables["keys"], tables["value_of"], strict=True):
        value = (len(prefix) - 1, *shared[at])
        add(prefix, value)
        if prefix.isascii():
            add_ascii(prefix, value)
    automaton.make_automaton()
    ascii_automaton.make_automaton()
    return automaton, ascii_automaton


class _Tables:
    """The automaton tables of one choice of second anchors (see :class:`RuleSet`), by branch
    number."""

    def __init__(self) -> None:
        self.keyed: dict[str, list[int]] = {}
        self.bounded: dict[str, list[int]] = {}
        self.factor_keys: dict[str, list[int]] = {}
        self.factors: dict[frozenset[str], int] = {}
        self.gates: list[_Gate | None] = []

    def gate(
        self, second: tuple[frozenset[str], int, int | None] | None, wanted: bool = True
    ) -> _Gate | None:
        """The window check for the factor ``second`` (``None``: no gate)."""
        if second is None or not wanted:
            return None
        prefixes, low, high = second
        if high is not None and high - low < FACTOR_GAP:
            return None
        fid = self.factors.setdefault(prefixes, len(self.factors))
        for prefix in prefixes:
            if fid not in self.factor_keys.setdefault(prefix, []):
                self.factor_keys[prefix].append(fid)
        return (fid, low, _NO_BOUND if high is None else high)

    def signature(self, gate: _Gate | None) -> tuple[frozenset[str], int, int] | None:
        """``gate`` with its factor's prefixes for its id (comparable across tables)."""
        if gate is None:
            return None
        prefixes = next(p for p, fid in self.factors.items() if fid == gate[0])
        return (prefixes, gate[1], gate[2])

    def add(self, number: int, gate: _Gate | None, keys: Iterable[str], bounded: bool) -> None:
        """Branch ``number`` (the next one), its gate, the keys it is tried at."""
        assert number == len(self.gates)
        self.gates.append(gate)
        table = self.bounded if bounded else self.keyed
        for prefix in keys:
            table.setdefault(prefix, []).append(number)

    def export(self, watched: frozenset[int] = frozenset()) -> Plan:
        """The tables as plain data: each branch's gate, the distinct automaton values (branch
        numbers for branches; most keys share one) and every key with its value's index."""
        values: dict[tuple[Any, ...], int] = {}
        keys = sorted(self.keyed.keys() | self.bounded.keys() | self.factor_keys.keys())
        value_of: list[int] = []
        for prefix in keys:
            plain = tuple(self.keyed.get(prefix, ()))
            every = plain + tuple(self.bounded[prefix]) if prefix in self.bounded else None
            gates = [self.gates[n] for n in (plain if every is None else every)]
            needs = None if None in gates else tuple(sorted({g[0] for g in gates if g is not None}))
            watch = tuple(n for n in plain if n in watched)
            watch_every = None if every is None else tuple(n for n in every if n in watched)
            value = (plain, every, tuple(self.factor_keys.get(prefix, ())), needs, watch, watch_every)
            value_of.append(values.setdefault(value, len(values)))
        return {
            "gates": [None if g is None else list(g) for g in self.gates],
            "values": [[None if part is None else list(part) for part in value] for value in values],
            "keys": keys,
            "value_of": value_of,
        }


def plan(patterns: Sequence[str]) -> Plan:
    """The analysis of ``patterns`` the matcher runs on (the slow part of building a
    :class:`RuleSet`: every branch's prefixes, lead and second anchors), as plain data."""
    fast, exact = _Tables(), _Tables()
    watched: set[int] = set()
    rows: list[list[Any]] = []  # [pattern index, branch source, rest, lead source or None, reach]
    unanchored: list[list[Any]] = []
    for index, pattern in enumerate(patterns):
        for source in branches(pattern):
            # a leading \b is checked by hand at the anchor: a pattern that starts with a
            # word boundary cannot use the engine's literal-prefix scan
            boundary = source.startswith("\\b")
            body = source[2:] if boundary else source
            lead, rest = split_lead(body)
            keys = _anchor_keys(rest) if rest else frozenset()
            if not rest or "" in keys:
                # no key to anchor it (an empty key would be no key: never tried): searched whole
                unanchored.append([index, source])
                continue
            lead_source, reach = None, 0
            if lead:
                reach = _lead_reach(lead)
                # the search ends at the anchor, so a boundary there would be misread: \\b is
                # checked only where the lead is not empty, the empty lead by _BoundaryLead
                word = "\\b(?=[\\s\\S])" if boundary else ""
                lead_source = f"{word}(?:{lead})\\Z"
            number = len(rows)
            rows.append([index, source, rest, lead_source, reach])
            # a leading \b is checked by hand: is the character before the anchor a word's?
            checked = boundary and not lead
            fast_factor, exact_factor = factors(rest)
            fast_gate = fast.gate(fast_factor, not markup(keys))
            exact_gate = exact.gate(exact_factor)
            if fast.signature(fast_gate) != exact.signature(exact_gate):
                watched.add(number)
            fast.add(number, fast_gate, keys, checked)
            exact.add(number, exact_gate, keys, checked)
    return {
        "patterns": list(patterns),
        "branches": rows,
        "unanchored": unanchored,
        "watched": sorted(watched),
        "fast": fast.export(frozenset(watched)),
        # the exact gates as in earlier rounds: no branch is watched there
        "exact": exact.export(),
    }


def cacheable(patterns: Sequence[str]) -> Plan:
    """:func:`plan` and each branch's compiled rest and lead (:func:`rulecache.code`): what a
    cache file holds, so that a new process analyses and parses nothing."""
    made = plan(patterns)
    made["code"] = [
        (rulecache.code(rest), None if lead is None else rulecache.code(lead))
        for _, _, rest, lead, _ in made["branches"]
    ]
    return made


class RuleSet:
    """Patterns (over lower-cased text, ``re.MULTILINE``) matched in one automaton pass.

    Two choices of second anchors (gates) are built. The fast one has none on common words and
    none behind markup anchors (a gate costs a hit wherever its words occur and pays only where
    the branch's own anchors are common); the exact one is that of earlier rounds. Both find the
    same patterns, but a gate also decides which failed attempts count against a branch's budget
    (:data:`ATTEMPTS`, then one whole-text search) and the scan's caps, and so whether a scan ends
    ``truncated``. Only the branches whose gate differs (``watched``) can count differently, and
    only past :data:`ATTEMPTS` anchors of one text or :data:`MAX_ATTEMPTS` anchored candidates in
    the scan; a scan in the fast mode marks its :class:`Work` ``heavy`` when a watched branch is met
    at that many anchors of one text or the scan's candidates reach that many, and the scanner then
    scans again with ``Work(exact=True)``: its counts, and so its verdicts, are the exact gates'.

    ``tables`` is the :func:`plan` of ``patterns`` when the caller has it (:meth:`cached` reads it
    from a verified cache file); without it the patterns are analysed here."""

    def __init__(self, patterns: Sequence[str], *, tables: Plan | None = None) -> None:
        self.patterns = tuple(patterns)
        made = plan(self.patterns) if tables is None else tables
        if made["patterns"] != list(self.patterns):
            raise ValueError("the tables are those of other patterns")
        #: where the tables came from: ``None`` (analysed here) or the cache file read
        self.origin: str | None = None
        rows = made["branches"]
        #: branches no prefix anchors (searched in full every time; the rules have none)
        self.unanchored: list[tuple[int, re.Pattern[str]]] = [
            (index, re.compile(source, re.MULTILINE)) for index, source in made["unanchored"]
        ]
        # the compiled forms of each branch's rest and lead (:func:`rulecache.code`), if known
        codes = made.get("code") or [(None, None)] * len(rows)
        self._parts = [
            (index, number, _Search(source), rulecache.compiled(rest, rest_code).match,
             _lead_check(source, lead, lead_code), reach)
            for number, ((index, source, rest, lead, reach), (rest_code, lead_code)) in enumerate(zip(rows, codes, strict=True))
        ]  # fmt: skip
        #: the branches whose gates differ: only their counts can differ between the two choices
        self.watched = frozenset(made["watched"])
        fast = self._branches_with(made["fast"]["gates"])
        self._automaton, self._ascii_automaton = _automata(made["fast"], fast)
        self.keys = len(made["fast"]["keys"])
        # the exact gates' automata are built on the first scan that needs them (rare: a heavy
        # scan), so a process that starts pays for one pair only
        self._exact_tables: Plan | None = made["exact"]
        self._exact_pair: tuple[Any, Any] | None = None
        self._exact_lock = threading.Lock()
        self._branches = len(rows)

    @classmethod
    def cached(
        cls, patterns: Sequence[str], directories: Sequence[Path] | None = None, **options: Any
    ) -> RuleSet:
        """The rule set of ``patterns``, its tables read from a verified cache file when there is
        one (:mod:`memguard.scan.rulecache`; ``directories`` default to its :func:`~memguard.scan.
        rulecache.directories`), else analysed here and written to the first writable one. A
        cache that is missing, unreadable, corrupted, stale or of other patterns is rebuilt, as is
        one whose tables do not build (a saved database that fails the prefilter's self-check).
        ``options`` go to the class (:class:`~memguard.scan.prefilter.PrefilteredRuleSet`'s rule
        names)."""
        patterns = tuple(patterns)
        places = rulecache.directories() if directories is None else list(directories)
        found = rulecache.load(patterns, places)
        if found is not None:
            tables, path = found
            try:
                rules = cls(patterns, tables=tables, **options)
            except Exception:  # a verified file that does not build (never written so): rebuild
                rulecache.log_rejected(path, "unusable")
            else:
                rules.origin = str(path)
                return rules
        made = cacheable(patterns)
        try:
            rules = cls(patterns, tables=made, **options)
        except Exception:  # pragma: no cover - an engine that takes none of its own code back
            del made["code"]
            rules = cls(patterns, tables=made, **options)
        rulecache.store(patterns, made, places)
        return rules

    def _branches_with(self, gates: Sequence[Sequence[int] | None]) -> list[_Branch]:
        return [
            _Branch(*part, None if gate is None else (gate[0], gate[1], gate[2]))
            for part, gate in zip(self._parts, gates, strict=True)
        ]

    def _exact_automata(self) -> tuple[Any, Any]:
        """The exact gates' automaton for any text and for ASCII text, built once."""
        pair = self._exact_pair
        if pair is None:
            with self._exact_lock:
                pair = self._exact_pair
                if pair is None:
                    assert self._exact_tables is not None
                    exact = self._branches_with(self._exact_tables["gates"])
                    pair = self._exact_pair = _automata(self._exact_tables, exact)
                    self._exact_tables = None
        return pair

    def matching(self, text: str, work: Work | None = None) -> set[int]:
        """The indices of the patterns that match somewhere in ``text``.

        ``work`` is charged for the reading, the attempts and the searches; past a cap what was
        found so far is returned and ``work.truncated`` is set (a fresh :class:`Work` when none)."""
        work = Work() if work is None else work
        found: set[int] = set()
        if not work.take_chars(len(text)):
            return found
        if work.exact:
            every, ascii_only = self._exact_automata()
            automaton = ascii_only if text.isascii() else every
        else:
            automaton = self._ascii_automaton if text.isascii() else self._automaton
        seen: dict[int, list[int]] = {}
        # (start, the branches to try there, the second anchors one of which they all need)
        anchors: list[tuple[int, tuple[_Branch, ...], frozenset[int] | None]] = []
        met: dict[int, int] = {}  # anchors per watched branch (see RuleSet)
        # (an automaton without keys cannot be iterated: no ASCII key, or every branch unanchored)
        hits = automaton.iter(text) if automaton.kind != ahocorasick.EMPTY else ()
        for end, (back, candidates, every, factor_ids, needs, watch, watch_every) in hits:
            start = end - back
            if every is not None:  # the \b branches too where the anchor is at a word boundary:
                # a word character on one side only (the key may start with `!`, `|`, `[`, ...)
                if at_word_boundary(text, start):
                    candidates, watch = every, watch_every
            if candidates:
                anchors.append((start, candidates, needs))
                if watch:
                    for number in watch:
                        met[number] = met.get(number, 0) + 1
            if factor_ids:  # (most hits are anchors only: no empty loop for them)
                for fid in factor_ids:
                    if fid in seen:
                        seen[fid].append(start)
                    else:
                        seen[fid] = [start]
        for positions in seen.values():
            positions.sort()
        present = set(seen)
        # attempts per branch so far; _SPENT once the branch was searched whole (or could not be)
        tries = bytearray(self._branches)
        attempts, cap = work.attempts, MAX_ATTEMPTS
        for start, candidates, needs in anchors:
            if needs is not None and needs.isdisjoint(present):
                continue  # every branch here needs a second anchor the text does not hold
            for rule, number, search, match, lead, reach, window in candidates:
                if rule in found:
                    continue
                tried = tries[number]
                if tried >= ATTEMPTS:
                    if tried == _SPENT:
                        continue
                    # a text built to make one branch fail at many anchors (each attempt may run
                    # to the end of a line) gets one whole-text search instead: exact, and linear
                    tries[number] = _SPENT
                    if _searched_whole(search, text, work):
                        found.add(rule)
                    continue
                if window is not None and not window_holds(seen, start, window):
                    continue
                if attempts >= cap:
                    work.attempts, work.truncated = attempts, True
                    work.heavy = not work.exact
                    return found
                attempts += 1
                tries[number] = tried + 1
                outcome = attempt(text, start, match, lead, reach)
                if outcome == FAILED:
                    continue
                if outcome == CUT:
                    # the branch is searched whole once instead, exact as at the budget
                    tries[number] = _SPENT
                    if not _searched_whole(search, text, work):
                        continue
                found.add(rule)
        work.attempts = attempts
        if (met or work.reach) and not work.exact:
            # the exact gates' attempts are at most these plus one per anchor of a watched branch
            work.reach += sum(met.values())
            work.heavy |= max(met.values(), default=0) >= ATTEMPTS or attempts + work.reach >= cap
        for index, compiled in self.unanchored:
            if index not in found and compiled.search(text):
                found.add(index)
        return found
