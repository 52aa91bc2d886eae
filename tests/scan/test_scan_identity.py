"""Every speed path of the built-in scanner gives the verdict (label, score, reasons) the plain
rules give, on every row of the project's corpora (issue 17, the per-KB goal).

The reference is the same :class:`~memguard.scan.builtin.RuleScanner` with its matcher replaced by
a plain :func:`re.search` of every rule over the text (no automaton, no prefixes, no gates, no
attempt budget): what the rules say when nothing is skipped. It does not depend on what the rules
are, so after a change to the rules (``rules.py``, ``vocabulary.py``) or to the matcher this test
still says whether the fast paths decide as the rules do. The texts: every row of
``tests/corpus/injections.jsonl`` and ``tests/scan/*.jsonl``, upper-cased, joined in pairs, and
encoded, hidden and split in the ways the scanner unwraps (base64, hex, rot13, URL encoding,
escapes, zero-width characters, tag characters, look-alike letters, bidi overrides, quoted
mentions). A scan that hits a work cap (``scan.truncated``) would be allowed to differ (the plain
search has no caps); on these texts none does, which the test checks too.

The scanner's two gate choices (``Work(exact=...)``, docs/scanner.md) must also agree on every
verdict, so the choice the scanner makes first never changes one.
"""

from __future__ import annotations

import base64
import codecs
import json
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from memguard.scan import builtin
from memguard.scan.builtin import PATTERNS, RuleScanner
from memguard.scan.match import Work

HERE = Path(__file__).resolve().parent
FILES = [HERE.parent / "corpus" / "injections.jsonl", *sorted(HERE.glob("*.jsonl"))]
ROWS = [
    json.loads(line)["text"]
    for path in FILES
    for line in path.read_text("utf-8").splitlines()
    if line.strip()
]
_HOMOGLYPHS = str.maketrans(
    "aceopx", "\u0430\u0441\u0435\u043e\u0440\u0445"
)  # Cyrillic look-alikes


class PlainRules:
    """The rule set's interface over a plain search of every pattern (the reference)."""

    def __init__(self) -> None:
        self.compiled = [re.compile(p, re.MULTILINE) for p in PATTERNS]

    def matching(self, text: str, work: Work | None = None) -> set[int]:
        work = Work() if work is None else work
        if not work.take_chars(len(text)):  # the same character cap as the matcher
            return set()
        return {i for i, pattern in enumerate(self.compiled) if pattern.search(text)}


def _variants(rows: list[str]) -> Iterator[str]:
    yield from rows
    yield from (t.upper() for t in rows)
    yield from (a + "\n" + b for a, b in zip(rows[::4], rows[1::4], strict=False))
    short = [t for t in rows if len(t) < 300]
    yield from ("note: " + base64.b64encode(t.encode()).decode() for t in short[::3])
    yield from ("data " + t.encode().hex(" ") for t in short[1::6])
    yield from (codecs.encode(t, "rot13") for t in short[2::3])
    yield from ("see " + urllib.parse.quote(t) for t in short[::7])
    yield from ("".join(f"\\x{b:02x}" for b in t.encode()) for t in short[3::11])
    yield from ("\u200b".join(t.split(" ")) for t in short[4::6])
    yield from (
        "ok " + "".join(chr(0xE0000 + ord(c)) for c in t if ord(c) < 0x80) for t in short[5::9]
    )
    yield from (t.translate(_HOMOGLYPHS) for t in short[::5])
    yield from ("\u202e" + t[::-1] + "\u202c" for t in short[6::10])
    yield from (f'Security note: payloads like "{t[:70]}" are blocked.' for t in short[::8])


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return list(_variants(ROWS))


def _key(scanner: RuleScanner, text: str) -> tuple[str, float, tuple[str, ...]]:
    verdict = scanner.scan(text)
    return (str(verdict.label), verdict.score, verdict.reasons)


def test_the_corpora_are_all_read() -> None:
    assert len(FILES) >= 2 and len(ROWS) >= 2000  # every corpus file, not an empty glob


def test_the_scanner_decides_every_corpus_text_as_the_plain_rules_do(
    texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = RuleScanner()
    expected = []
    for text in texts:
        verdict, work = fast.inspect(text)
        assert not work.truncated, text[:80]  # no cap reached: the plain search must agree
        expected.append((str(verdict.label), verdict.score, verdict.reasons))
    plain = PlainRules()
    monkeypatch.setattr(builtin, "rule_set", lambda: plain)
    reference = RuleScanner()
    wrong = [
        (t[:80], e, got)
        for t, e in zip(texts, expected, strict=True)
        if (got := _key(reference, t)) != e
    ]
    assert wrong == [], wrong[:3]
    # the check has teeth: the texts hold every label, and every decoder and Unicode check fired
    labels = {e[0] for e in expected}
    reasons = {r.split(":")[0] for e in expected for r in e[2]}
    assert labels == {"clean", "suspicious", "malicious"}
    assert {
        "decoded",
        "hidden",
        "encoded.instruction",
        "unicode.tag_characters",
        "quoted.mention",
    } <= reasons


def test_a_wrong_matcher_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison fails when the matcher misses a rule (so it is not vacuous)."""
    fast = RuleScanner()
    ids = [rule.id for rule in builtin.RULES]
    text, rule = next(
        (t, ids.index(v.reasons[0]))
        for t in ROWS
        if len((v := fast.scan(t)).reasons) == 1 and v.reasons[0] in ids
    )

    class Missing(PlainRules):
        def matching(self, text: str, work: Work | None = None) -> set[int]:
            return super().matching(text, work) - {rule}

    expected = _key(fast, text)
    missing = Missing()
    monkeypatch.setattr(builtin, "rule_set", lambda: missing)
    assert _key(RuleScanner(), text) != expected


def test_both_gate_choices_give_every_verdict_alike(texts: list[str]) -> None:
    scanner = RuleScanner()
    wrong = []
    for text in texts:
        fast, _ = scanner._inspect(text, Work())
        exact, _ = scanner._inspect(text, Work(exact=True))
        if fast != exact:
            wrong.append((text[:80], fast, exact))
    assert wrong == [], wrong[:3]
