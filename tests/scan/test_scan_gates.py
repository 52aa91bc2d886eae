"""The scanner's cheaper paths (issue 17, scanspeed3) decide only how much work a scan does, never
what it finds: second anchors chosen away from common words and markup, rot13 over UTF-8 bytes.

What the rule set matches is held to a plain search in ``tests/scan/test_match.py``; these tests
hold each shortcut to the slow form it replaces, check that the cheaper choice is really made, and
that a scan near a budget (where a gate choice changes the counts) is redone with the old gates.
"""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memguard.scan.anchors import common, factor, markup
from memguard.scan.builtin import TRUNCATED, RuleScanner, rule_set
from memguard.scan.decode import _ROT13_WORDS, _two_rot13_words, rot13
from memguard.scan.match import ATTEMPTS, RuleSet, Work


def _gates(rules: RuleSet, key: str) -> list[tuple[int, int, int] | None]:
    _back, plain, every = rules._automaton.get(key)[:3]
    return [branch.factor for branch in (plain + (every or ()))]


def test_a_second_anchor_is_never_a_common_word() -> None:
    # "the" is closer and as long as "send", but met in every text: the rarer part is the gate
    found = factor(r"send[^.\n]{0,30}\b(?:the|all) [^.\n]{0,20}(?:password|api key)")
    assert found is not None and found[0] == frozenset({"password", "api key"})
    assert factor(r"send[^.\n]{0,30}\b(?:the|all|ai) ") is None
    assert common({"the ", "password"}) and common({" ai"}) and not common({"@", "password"})


def test_a_branch_anchored_on_markup_has_no_second_anchor_gate() -> None:
    rules = RuleSet([r"</\s*[a-z_]*(?:user|data)[a-z_]*\s*>", r"\bsend\b[^\n]{0,40}(?:password|api key)"])
    assert markup({"</"}) and not markup({"</", "send"})
    assert _gates(rules, "</") == [None]  # prose seldom holds "</": an attempt there is cheap
    assert _gates(rules, "send") == [(0, 4, 44)]  # "send" is common, "password" is not
    assert rules.matching("</the_user>") == {0} and rules.matching("send the password") == {1}
    assert rules.matching("</p> user") == set() and rules.matching("send it\npassword") == set()


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=()), max_size=40))
def test_rot13_is_the_codec(text: str) -> None:
    assert rot13(text) == codecs.decode(text, "rot13")


def test_rot13_keeps_lone_surrogates_and_other_scripts() -> None:
    text = "Gur \ud800 cnffjbeq \udc00 \u017f K \U0001f600 Привет"
    assert rot13(text) == codecs.decode(text, "rot13") == "The \ud800 password \udc00 \u017f X \U0001f600 Привет"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["gur", "Gur", "naq", "gb", "bs", "x", " ", "\n", "_", "vfa", "\u017fbe"]), max_size=12).map("".join))
def test_two_rot13_words_is_the_findall_count(text: str) -> None:
    assert _two_rot13_words(text) == (len(_ROT13_WORDS.findall(text)) >= 2)


def test_near_a_budget_the_scan_is_redone_with_the_old_gates() -> None:
    # the closing-tag branch has no gate in the fast mode (its anchor "</" is markup), so each
    # "</p>" is an attempt there; with the old gate (a "user"/"data" after it) none is
    rules = RuleSet([r"</\s*[a-z_]*(?:user|data)[a-z_]*\s*>"])
    text = "<p>a</p>" * (ATTEMPTS + 8)
    fast, exact = Work(), Work(exact=True)
    assert rules.matching(text, fast) == set() == rules.matching(text, exact)
    assert fast.heavy and fast.searches == 1  # past the budget: searched whole, as main never was
    assert not exact.heavy and exact.attempts == 0 and exact.searches == 0
    light = Work()
    assert rules.matching("<p>a</p>" * 4, light) == set() and not light.heavy and light.attempts == 4


def test_the_scanner_redoes_a_heavy_scan_in_the_exact_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    scanner = RuleScanner()
    text = "<p>a</p>\n" * (ATTEMPTS + 8)
    # hsmatch: the prefilter finds no candidate here (no attempt, nothing heavy); the full matcher,
    # which reads what the prefilter cannot, still redoes a heavy scan in the exact mode
    verdict, work = scanner.inspect(text)
    assert not work.heavy and work.attempts == 0 and TRUNCATED not in verdict.reasons
    monkeypatch.setattr(rule_set(), "engine", None)
    verdict, work = scanner.inspect(text)
    assert work.exact and work.searches == 0 and TRUNCATED not in verdict.reasons
    assert not scanner.inspect("a note about tea")[1].exact
