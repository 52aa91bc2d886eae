"""The rule set with a compiled prefilter: one Hyperscan pass says which rules can match a text,
and only those are confirmed in Python.

:class:`PrefilteredRuleSet` is a :class:`~memguard.scan.match.RuleSet` (same patterns, same
tables, same answers). Its :meth:`~PrefilteredRuleSet.matching`:

1. scans the text's UTF-8 once with a Hyperscan database of every rule branch's superset
   (:func:`memguard.scan.superset.superset`, compiled with ``HS_FLAG_PREFILTER``, which lets the
   engine widen what it cannot build exactly): the rules reported, plus those with no superset,
   are the candidates; every rule ``re.search`` matches is among them;
2. confirms each candidate as the matcher does, where one of its branches' literal prefixes occurs
   (an Aho-Corasick automaton per rule, over that rule's prefixes only; the branch's rest matched
   at the prefix, its lead checked back from there: the matcher's own gate check and attempt,
   :func:`~memguard.scan.match.window_holds` and :func:`~memguard.scan.match.attempt`), so a benign
   text with no candidate costs the pass and nothing else. Past :data:`~memguard.scan.match.ATTEMPTS`
   attempts for one rule, or a lead cut short, the full matcher decides (its budgets count per
   branch and search a branch whole; this one hands the text over instead).

Whatever cannot go this way (and every text when ``MEMGUARD_SCAN_PREFILTER=off``) goes through the full matcher (:meth:`RuleSet.matching`), whose answer
is the same, and whose work caps bound hostile texts as before: no Hyperscan (an import or a build
that failed), a text that is not valid UTF-8 (a lone surrogate), a scan of the exact gates
(``Work(exact=True)``), more than :data:`MAX_CANDIDATES` candidates, a rule whose prefixes occur more than :data:`MAX_HITS` times, a rule tried at more than
:data:`~memguard.scan.match.ATTEMPTS` prefixes, a text near the character cap, and any exception in
the prefilter (logged). A prefilter failure never makes a text clean: the full matcher reads it.

The compiled databases are kept in the rule-table cache file's binary companion
(:mod:`memguard.scan.rulecache`, whose key covers this module, :mod:`~memguard.scan.superset` and Hyperscan's version), so a new process
does not compile it again. Each thread scans with its own Hyperscan scratch space. A database read
from that file is checked before use, since a file written as the same user can hold one compiled
from other patterns with its digests recomputed: the superset database must make every rule the
full matcher finds on a text of each rule branch a candidate (:meth:`PrefilteredRuleSet.self_check`,
the texts kept in the file and confirmed by the full matcher, made again for a branch without one),
and each rule's literal database must report each of its keys where it stands in a text of all of
them, and nothing that is not its key (:func:`literal_check`). A database that fails is not used:
the file is built again (the superset database) or the rule's keys are compiled again.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from memguard.scan.anchors import branches
from memguard.scan.match import (
    ATTEMPTS,
    CUT,
    MATCHED,
    MAX_ATTEMPTS,
    MAX_CHARS,
    Plan,
    RuleSet,
    Work,
    at_word_boundary,
    attempt,
    plan,
    window_holds,
)
from memguard.scan.probes import examples
from memguard.scan.superset import factors, superset

#: the Hyperscan module (``None``: not installed, and then the full matcher alone, with the same
#: answers; tests set it so to run that fallback)
hyperscan: Any
try:
    import hyperscan
except Exception:  # pragma: no cover - the wheel is installed with memguard on x86-64
    hyperscan = None

__all__ = [
    "ENV",
    "FACTORED",
    "MAX_CANDIDATES",
    "Engine",
    "EngineError",
    "PrefilteredRuleSet",
    "SelfCheckFailed",
    "expressions",
    "hyperscan_version",
]

#: ``off`` turns the prefilter off (the full matcher reads every text; the answers are the same)
ENV = "MEMGUARD_SCAN_PREFILTER"
_OFF = frozenset({"0", "off", "no", "none", "false"})
#: a text with more candidate rules than this goes through the full matcher (its caps then bound
#: the work, as before)
MAX_CANDIDATES = 24
#: a rule whose prefixes and second anchors occur more often than this in one text sends the text
#: to the full matcher (each occurrence is a Python callback; the matcher's budgets then apply)
MAX_HITS = 256
#: a branch whose superset is this long (characters) or longer is also held to its factors
#: (:func:`expressions`): the engine widens large expressions most (rule 0's last branch, 5,600
#: characters, matched two thirds of multilingual benign facts); factors on every branch (346 of
#: 415) made the pass 3x slower on benign text, as common words matched on every text
FACTORED = 3000
#: the saved prefilter's entry of probe texts (:meth:`PrefilteredRuleSet.self_check`)
PROBES = "probes"
_log = logging.getLogger("memguard.scan.prefilter")


def hyperscan_version() -> str | None:
    """The Hyperscan module's version (``None``: not installed), for the cache key."""
    if hyperscan is None:
        return None
    return str(getattr(hyperscan, "__version__", "unknown"))


def expressions(
    patterns: Sequence[str],
) -> tuple[list[bytes], list[int], list[int], dict[int, tuple[int, ...]]]:
    """The superset of every branch of every pattern (bytes), its pattern's index (``-1``: a
    factor, below), the patterns some branch of which has no superset (tried on every text), and
    per branch expression the factor expressions that must all match too (branches of a
    superset :data:`FACTORED` long or longer).

    A branch's factors are the supersets of its top-level groups (:func:`~memguard.scan.superset.
    factors`): each is a part of every match of the branch, so each matches wherever the branch
    does, and a text the branch matches holds all of them. They are plain alternations the engine
    builds exactly, where the whole branch, too large for it, is widened (``HS_FLAG_PREFILTER``)
    into something that matches nearly every text in some scripts; the branch is a candidate
    only when its widened whole and all its factors match. Equal factors share one expression."""
    out: list[bytes] = []
    ids: list[int] = []
    always: list[int] = []
    needs: dict[int, tuple[int, ...]] = {}
    factor_ids: dict[bytes, int] = {}
    for index, pattern in enumerate(patterns):
        parts = [(superset(branch), factors(branch)) for branch in branches(pattern)]
        if any(whole is None for whole, _ in parts):
            always.append(index)
            continue
        for whole, required in parts:
            assert whole is not None
            if len(whole) < FACTORED:  # built nearly exactly: factors would cost, not save
                required = []
            number = len(out)
            out.append(whole.encode("ascii"))
            ids.append(index)
            mine = []
            for factor in required:
                encoded = factor.encode("ascii")
                if encoded not in factor_ids:
                    factor_ids[encoded] = len(out)
                    out.append(encoded)
                    ids.append(-1)
                mine.append(factor_ids[encoded])
            if mine:
                needs[number] = tuple(mine)
    return out, ids, always, needs


def _found(number: int, start: int, end: int, flags: int, into: set[int]) -> None:
    into.add(number)


def _every(number: int, start: int, end: int, flags: int, into: list[tuple[int, int]]) -> None:
    into.append((number, end))


class EngineError(RuntimeError):
    """The superset database did not compile; ``pattern``: the pattern whose expression Hyperscan
    named (``None``: it named none)."""

    def __init__(self, message: str, pattern: int | None) -> None:
        super().__init__(message)
        self.pattern = pattern


class SelfCheckFailed(ValueError):
    """A saved database did not find, on texts made from its own rules, what they match: it is
    not the database of these rules (a forged or damaged cache file). The cache is not used."""


def _compile_error(exc: Exception, exprs: Sequence[bytes], ids: Sequence[int], flags: int) -> EngineError:
    """``exc`` (Hyperscan's compile error) with the pattern it is about: that of expression ``N``
    when the message says ``(id:N)``, else the first pattern whose expressions do not compile
    alone (a search made only when the build failed)."""
    found = re.search(r"\(id:(\d+)\)", str(exc))
    number = int(found.group(1)) if found else -1
    pattern = ids[number] if 0 <= number < len(ids) else None
    for index in [] if pattern is not None else sorted({i for i in ids if i >= 0}):
        mine = [e for e, i in zip(exprs, ids, strict=True) if i == index]
        try:
            hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK).compile(
                expressions=mine, ids=list(range(len(mine))), elements=len(mine), flags=flags
            )
        except Exception:
            pattern = index
            break
    return EngineError(f"{type(exc).__name__}: {exc}", pattern)


def literal_check(database: Any, keys: Sequence[bytes], scratch: Any = None) -> str | None:
    """What is wrong with ``database`` as the literal database of ``keys`` (``None``: nothing):
    scanned over every key between NUL bytes, it must report each key where it stands, and every
    match it reports must be its key's bytes there (a key inside another is then found too, by
    any literal matcher of these keys, and the check costs one pass, not a search per key)."""
    probe = b"\0" + b"\0".join(keys) + b"\0"
    found: list[tuple[int, int]] = []
    scratch = hyperscan.Scratch(database) if scratch is None else scratch
    database.scan(probe, match_event_handler=_every, context=found, scratch=scratch)
    wrong = sum(
        1
        for number, end in found
        if not 0 <= number < len(keys) or probe[end - len(keys[number]) : end] != keys[number]
    )
    seen = set(found)
    missed = 0
    end = 0
    for number, key in enumerate(keys):
        end += 1 + len(key)
        missed += (number, end) not in seen
    if not (wrong or missed):
        return None
    return f"{missed} keys not found where they stand, {wrong} matches reported wrongly"


class Engine:
    """A compiled Hyperscan database over the patterns' supersets, with one scratch per thread."""

    FLAGS = 0

    def __init__(self, patterns: Sequence[str], saved: dict[str, Any] | None = None) -> None:
        if hyperscan is None:
            raise RuntimeError("hyperscan is not installed")
        single = hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_MULTILINE
        database = None
        #: the database came from ``saved`` (a cache file): checked before use
        #: (:meth:`PrefilteredRuleSet.self_check`)
        self.loaded = False
        if saved is not None:
            try:
                database = hyperscan.loadb(bytes(saved["database"]), hyperscan.HS_MODE_BLOCK)
                # a database built for another CPU fails here, not in every scan
                database.scan(
                    b"",
                    match_event_handler=_found,
                    context=set(),
                    scratch=hyperscan.Scratch(database),
                )
                always = [int(i) for i in saved["always"]]
                ids = [int(i) for i in saved["ids"]]
                needs = {int(k): tuple(int(f) for f in v) for k, v in saved["needs"].items()}
                self.loaded = True
            except Exception as exc:  # another build or platform: compiled again below
                _log.info("saved prefilter database not used: %s", exc)
                database = None
        if database is None:
            exprs, ids, always, needs = expressions(patterns)
            database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            if not exprs:  # pragma: no cover - no pattern has a superset
                raise RuntimeError("no expression to compile")
            # the wholes widened where the engine cannot build them; the factors exact
            flags = [single | (hyperscan.HS_FLAG_PREFILTER if i >= 0 else 0) for i in ids]
            try:
                database.compile(
                    expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs), flags=flags
                )
            except Exception:  # a factor too large to build exactly: all widened (supersets still)
                database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                try:
                    database.compile(
                        expressions=exprs,
                        ids=list(range(len(exprs))),
                        elements=len(exprs),
                        flags=single | hyperscan.HS_FLAG_PREFILTER,
                    )
                except Exception as exc:  # the caller names the rule
                    raise _compile_error(exc, exprs, ids, single | hyperscan.HS_FLAG_PREFILTER) from exc
        self.database = database
        self.always = frozenset(always)
        #: each expression's pattern (``-1``: a factor) and each branch's factors
        self.ids = ids
        self.needs = needs
        self._prototype = hyperscan.Scratch(database)
        self._local = threading.local()

    def saved(self) -> dict[str, Any]:
        """The database as plain data (for the cache file, whose binary companion holds the
        bytes: :data:`memguard.scan.rulecache.BINARY`)."""
        return {
            "database": bytes(hyperscan.dumpb(self.database)),
            "always": sorted(self.always),
            "ids": list(self.ids),
            "needs": {str(k): list(v) for k, v in self.needs.items()},
        }

    def candidates(self, data: bytes) -> set[int]:
        """The patterns that can match somewhere in ``data`` (UTF-8): those with a branch whose
        expression and factors all match."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._prototype.clone()
        seen: set[int] = set()
        self.database.scan(data, match_event_handler=_found, context=seen, scratch=scratch)
        found = set(self.always)
        ids, needs = self.ids, self.needs
        for number in seen:
            index = ids[number]
            if index < 0 or index in found:
                continue
            required = needs.get(number)
            if required is None or all(f in seen for f in required):
                found.add(index)
        return found


_Part = tuple[
    Callable[[str, int], Any],
    Callable[[str, int, int], Any] | None,
    int,
    tuple[int, int, int] | None,
]


_Entry = tuple[tuple[_Part, ...], tuple[_Part, ...], tuple[int, ...]]


def _hit(key: int, start: int, end: int, flags: int, into: list[tuple[int, int]]) -> bool:
    into.append((key, end))
    return len(into) > MAX_HITS  # stops the scan (ScanTerminated): the full matcher reads it


class _TooManyHits(Exception):
    """A rule's keys occur more than :data:`MAX_HITS` times in one text."""


class _RuleKeys:
    """One rule's prefixes and second anchors in a Hyperscan literal database: where they occur
    in a text, with what to try there (``(branches, the \\b ones, the gates' factor ids)``);
    a scratch per thread."""

    __slots__ = ("_local", "database", "entries", "lengths", "prototype")

    def __init__(
        self,
        keyed: dict[str, tuple[list[_Part], list[_Part], list[int]]],
        saved: bytes | memoryview | None = None,
        name: str = "?",
    ) -> None:
        keys = [key.encode("utf-8") for key in keyed]
        if not all(keys):  # (plan() makes none: such a branch is searched whole)
            raise ValueError(f"rule {name} has an empty key, which matches nothing")
        self.entries: list[_Entry] = [(tuple(a), tuple(b), tuple(c)) for a, b, c in keyed.values()]
        self.lengths = [len(key) for key in keys]
        self.database: Any = None
        if saved is not None:
            try:
                self.database = hyperscan.loadb(bytes(saved), hyperscan.HS_MODE_BLOCK)
                self.prototype = hyperscan.Scratch(self.database)
                problem = literal_check(self.database, keys, self.prototype)
            except Exception as exc:  # another build or platform: compiled again below
                _log.info("saved prefix database not used: %s", exc)
                self.database = None
            else:
                if problem is not None:  # not these keys' database: a forged or damaged cache
                    _log.warning(
                        "saved prefix database of scan rule %s failed its self-check (%s): compiled again",
                        name,
                        problem,
                    )
                    self.database = None
        if self.database is None:
            self.database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            self.database.compile(
                expressions=keys,
                ids=list(range(len(keys))),
                elements=len(keys),
                flags=0,
                literal=True,
            )
            self.prototype = hyperscan.Scratch(self.database)
        self._local = threading.local()

    def hits(self, text: str, data: bytes) -> list[tuple[int, _Entry]]:
        """``(start in text, entry)`` of each key occurrence in ``text`` (``data``: its UTF-8)."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self.prototype.clone()
        found: list[tuple[int, int]] = []
        try:
            self.database.scan(data, match_event_handler=_hit, context=found, scratch=scratch)
        except hyperscan.ScanTerminated:
            raise _TooManyHits from None
        lengths, entries = self.lengths, self.entries
        if len(data) == len(text):  # ASCII: byte offsets are character offsets
            return [(end - lengths[key], entries[key]) for key, end in found]
        # each start's character offset, the text decoded once from one start to the next (a key
        # starts with a character's first byte, so every start is a character boundary); not
        # the text before each hit decoded again (quadratic in the hits)
        chars_at: dict[int, int] = {}
        chars = done = 0
        for byte in sorted({end - lengths[key] for key, end in found}):
            chars += len(data[done:byte].decode("utf-8"))
            chars_at[byte] = chars
            done = byte
        return [(chars_at[end - lengths[key]], entries[key]) for key, end in found]


class _Layout:
    """The matcher's fast tables (:func:`~memguard.scan.match.plan`) split by rule: what each
    rule's :class:`_RuleKeys` is made of, computed per rule when it is first needed (splitting
    all of them, and loading every rule's database, was most of a process's scanner start-up).

    The keys are grouped by their automaton value (most keys share one) and each value by the
    rules it involves, once; a rule's keys are then its values' keys in the tables' order."""

    __slots__ = ("factor_rules", "gates", "keys_of_value", "parts", "saved", "tables", "values_of_rule")

    def __init__(self, made: Plan, parts: Sequence[Any]) -> None:
        fast = made["fast"]
        self.tables = fast
        self.gates = fast["gates"]
        self.parts = parts
        #: the rules whose gates use each factor
        self.factor_rules: dict[int, set[int]] = {}
        for number, gate in enumerate(self.gates):
            if gate is not None:
                self.factor_rules.setdefault(gate[0], set()).add(parts[number][0])
        self.keys_of_value: list[list[int]] = [[] for _ in fast["values"]]
        for k, at in enumerate(fast["value_of"]):
            self.keys_of_value[at].append(k)
        #: per rule, the automaton values whose keys it is tried at or gated on
        self.values_of_rule: dict[int, list[int]] = {}
        for at, (plain, every, fids, *_) in enumerate(fast["values"]):
            if not self.keys_of_value[at]:
                continue
            rules = {parts[n][0] for n in plain}
            rules.update(parts[n][0] for n in every or ())
            for fid in fids:
                rules.update(self.factor_rules.get(fid, ()))
            for index in rules:
                self.values_of_rule.setdefault(index, []).append(at)
        saved = (made.get("prefilter") or {}).get("rules") or {}
        #: each rule's saved database (copied: the cache file's bytes are not kept)
        self.saved = {int(index): bytes(blob) for index, blob in saved.items()}

    def keyed(
        self, index: int
    ) -> tuple[dict[str, tuple[list[_Part], list[_Part], list[int]]], bytes | None]:
        """Rule ``index``'s keys, each with ``(its branches there, the \\b ones, the factor ids
        of its gates)``, in the tables' key order, and its saved database (``None``: none)."""
        fast, gates, parts = self.tables, self.gates, self.parts
        # what the rule has at each of its values' keys (the same at every key of one value)
        found: dict[int, tuple[list[_Part], list[_Part], list[int]]] = {}
        for at in self.values_of_rule[index]:
            plain, every, fids = fast["values"][at][:3]
            checked = [] if every is None else [n for n in every if n not in plain]
            entry: tuple[list[_Part], list[_Part], list[int]] = ([], [], [])
            for numbers, slot in ((plain, entry[0]), (checked, entry[1])):
                for number in numbers:
                    rule, _, _, match, lead, reach = parts[number]
                    if rule == index:
                        gate = gates[number]
                        slot.append((match, lead, reach, None if gate is None else tuple(gate)))
            entry[2].extend(fid for fid in fids if index in self.factor_rules.get(fid, ()))
            found[at] = entry
        keys, value_of = fast["keys"], fast["value_of"]
        order = sorted(k for at in found for k in self.keys_of_value[at])
        keyed = {keys[k]: found[value_of[k]] for k in order}  # (_RuleKeys copies each entry)
        return keyed, self.saved.get(index)


class PrefilteredRuleSet(RuleSet):
    """A :class:`RuleSet` whose :meth:`matching` runs the prefilter first (see the module).

    ``names`` (one per pattern) name the rules in warnings. A database taken from ``tables`` (a
    cache file) is checked first (:meth:`self_check`): one that fails makes the constructor raise
    :class:`SelfCheckFailed`, and :meth:`RuleSet.cached` then builds the tables again."""

    def __init__(
        self, patterns: Sequence[str], *, tables: Plan | None = None, names: Sequence[str] | None = None
    ) -> None:
        made = plan(tuple(patterns)) if tables is None else tables
        super().__init__(patterns, tables=made)
        self.names = None if names is None else tuple(names)
        #: per rule, the automaton of its branches' prefixes (none: the rule has no anchored
        #: branch), each built on the first text the rule is a candidate for (:meth:`_rule_keys`),
        #: and its unanchored branches
        self._confirm: dict[int, _RuleKeys] = {}
        #: the rules whose prefix database did not build: the full matcher reads their candidates
        self._unbuilt: set[int] = set()
        self._layout = _Layout(made, self._parts) if hyperscan is not None else None
        self._unanchored_of: dict[int, list[Any]] = {}
        for index, compiled in self.unanchored:
            self._unanchored_of.setdefault(index, []).append(compiled)
        #: the compiled prefilter (``None``: the full matcher for every text)
        self.engine: Engine | None = None
        #: why there is no engine, when there is none
        self.engine_error: str | None = None
        #: the rules that made the prefilter fall back to the full matcher (the whole set, or, for
        #: a prefix database, their candidates), named in a warning
        self.failing: list[int] = []
        if hyperscan is None:
            self.engine_error = "hyperscan is not installed"
            return
        if os.environ.get(ENV, "").strip().lower() in _OFF:
            self.engine_error = f"turned off ({ENV})"
            return
        saved = made.get("prefilter")
        try:
            self.engine = Engine(self.patterns, saved)
        except Exception as exc:  # the full matcher then: the same answers, at its speed
            self.engine_error = f"{type(exc).__name__}: {exc}"[:300]
            culprit = getattr(exc, "pattern", None)
            self.failing = [] if culprit is None else [culprit]
            _log.warning(
                "scan prefilter not built (%s; rule %s): every text goes through the full matcher",
                self.engine_error,
                "unknown" if culprit is None else self.name(culprit),
            )
            return
        if saved is not None and self.engine.loaded:
            problem = self.self_check(self.engine, saved)
            if problem is not None:
                _log.warning("saved scan prefilter database failed its self-check: %s", problem)
                raise SelfCheckFailed(problem)
        if "prefilter" not in made:  # written with the tables (RuleSet.cached)
            made["prefilter"] = self.engine.saved()
            built = ((index, self._rule_keys(index)) for index in self._layout_rules())
            made["prefilter"]["rules"] = {
                str(index): bytes(hyperscan.dumpb(keys.database))
                for index, keys in built
                if keys is not None
            }
            made["prefilter"][PROBES] = self._probes()

    def name(self, index: int) -> str:
        """Pattern ``index``'s name in warnings (its number when no names were given)."""
        names = self.names
        return names[index] if names is not None and index < len(names) else f"#{index}"

    def _probes(self) -> list[list[str | None]]:
        """Per pattern, per branch, a text the branch and the full matcher match (``None``: none
        made), kept with the database for :meth:`self_check`."""
        out: list[list[str | None]] = []
        for index, pattern in enumerate(self.patterns):
            mine: list[str | None] = []
            for branch in branches(pattern):
                search = re.compile(branch, re.MULTILINE).search
                mine.append(
                    next(
                        (t for t in examples(branch) if search(t) and index in RuleSet.matching(self, t)),
                        None,
                    )
                )
            out.append(mine)
        return out

    def self_check(self, engine: Engine, saved: dict[str, Any]) -> str | None:
        """What is wrong with ``engine``, loaded from ``saved`` (``None``: nothing found): on a text
        of each rule branch (the saved probes; made here, :func:`~memguard.scan.probes.examples`,
        for a branch that has none), every rule the full matcher finds must be a candidate, and a
        saved probe must match its own rule. (Each rule's prefix database is checked when it is
        loaded: :func:`literal_check`.)"""
        try:
            stored = saved.get(PROBES)
            if not isinstance(stored, list) or len(stored) != len(self.patterns):
                stored = [None] * len(self.patterns)
            for index, pattern in enumerate(self.patterns):
                parts = branches(pattern)
                mine = stored[index]
                if not isinstance(mine, list) or len(mine) != len(parts):
                    mine = [None] * len(parts)
                for branch, probe in zip(parts, mine, strict=True):
                    texts = [probe] if isinstance(probe, str) else examples(branch)
                    for text in texts:
                        expected = RuleSet.matching(self, text)
                        if index not in expected:
                            if isinstance(probe, str):
                                return f"the saved probe of rule {self.name(index)} does not match it"
                            continue  # a made text the branch does not match: no probe
                        lost = expected - engine.candidates(text.encode("utf-8"))
                        if lost:
                            named = ", ".join(self.name(i) for i in sorted(lost))
                            return f"rule {named} not a candidate on a text it matches"
                        break
        except Exception as exc:  # a probe that is not text, an engine that raises: not used
            return f"{type(exc).__name__}: {exc}"[:300]
        return None

    def _layout_rules(self) -> list[int]:
        """The rules with an anchored branch or a gate's second anchor (a prefix matcher each)."""
        return [] if self._layout is None else sorted(self._layout.values_of_rule)

    def _rule_keys(self, index: int) -> _RuleKeys | None:
        """Rule ``index``'s literal matcher over its branches' prefixes and its gates' second
        anchors (``None``: it has none, or it did not build: :attr:`_unbuilt`), built on first
        use: a process loads only the matchers of the rules some text made candidates (two
        threads may both build one: the same)."""
        keys = self._confirm.get(index)
        layout = self._layout
        if keys is None and layout is not None and index in layout.values_of_rule and index not in self._unbuilt:
            try:
                keys = self._confirm[index] = _RuleKeys(*layout.keyed(index), self.name(index))
            except Exception as exc:  # the full matcher reads the texts it is a candidate for
                self._unbuilt.add(index)
                self.failing.append(index)
                _log.warning(
                    "scan prefilter: prefix database of rule %s not built (%s: %s): the full matcher "
                    "reads every text it is a candidate for",
                    self.name(index),
                    type(exc).__name__,
                    str(exc)[:200],
                )
                return None
        return keys

    def matching(self, text: str, work: Work | None = None) -> set[int]:
        work = Work() if work is None else work
        engine = self.engine
        if engine is None or work.exact or work.chars + len(text) > MAX_CHARS:
            return super().matching(text, work)
        try:
            found = self._prefiltered(engine, text, work)
        except Exception as exc:  # the full matcher reads it: never clean for a prefilter fault
            _log.warning(
                "scan prefilter failed (%s: %s): the full matcher reads the text",
                type(exc).__name__,
                exc,
            )
            found = None
        return super().matching(text, work) if found is None else found

    def _prefiltered(self, engine: Engine, text: str, work: Work) -> set[int] | None:
        """The matching patterns, or ``None`` when the full matcher must read ``text``."""
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: not UTF-8, which the engine reads
            return None
        candidates = engine.candidates(data)
        if len(candidates) > MAX_CANDIDATES:
            return None
        found: set[int] = set()
        attempts = 0
        budget = MAX_ATTEMPTS - work.attempts
        for index in candidates:
            try:
                tried = self._confirmed(index, text, data)
            except _TooManyHits:  # a text built to hit one rule's keys everywhere
                return None
            if tried is None:
                return None
            matched, spent = tried
            attempts += spent
            if attempts > budget:
                return None
            if matched:
                found.add(index)
        work.take_chars(len(text))
        work.attempts += attempts
        return found

    def _confirmed(self, index: int, text: str, data: bytes) -> tuple[bool, int] | None:
        """Does pattern ``index`` match ``text``, and the anchored attempts that took (``None``:
        more than :data:`ATTEMPTS`, for the full matcher to count)."""
        attempts = 0
        keyed = self._confirm.get(index) or self._rule_keys(index)
        if keyed is None and index in self._unbuilt:
            return None  # no prefix database: the full matcher decides
        if keyed is not None:
            anchors: list[tuple[int, tuple[_Part, ...]]] = []
            seen: dict[int, list[int]] = {}  # where each second anchor of the rule's gates starts
            for start, (plain, checked, factor_ids) in keyed.hits(text, data):
                for fid in factor_ids:
                    seen.setdefault(fid, []).append(start)
                parts = plain
                if checked and at_word_boundary(text, start):  # the matcher's own test
                    parts = plain + checked
                if parts:
                    anchors.append((start, parts))
            for positions in seen.values():
                positions.sort()
            for start, parts in anchors:
                for match, lead, reach, gate in parts:
                    # a second anchor must start in the gate's window
                    if gate is not None and not window_holds(seen, start, gate):
                        continue
                    attempts += 1
                    if attempts > ATTEMPTS:
                        return None
                    outcome = attempt(text, start, match, lead, reach)
                    if outcome == MATCHED:
                        return True, attempts
                    if outcome == CUT:
                        return None  # the lead may start before the window: the full matcher decides
        for compiled in self._unanchored_of.get(index, ()):
            if compiled.search(text):
                return True, attempts
        return False, attempts
