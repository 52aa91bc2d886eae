"""The confirmation step the full matcher and the prefilter share (issue 17, scanspeed):
:func:`memguard.scan.match.attempt` and :func:`~memguard.scan.match.window_holds`.

What would fail if it broke: an attempt that called a lead cut short by its window a failure
(the long-lead texts then lose a match a plain search finds, in both matchers), a gate window
off by one at either end.
"""

from __future__ import annotations

import re

import pytest

from memguard.scan import prefilter
from memguard.scan.match import CUT, FAILED, LEAD_WINDOW, MATCHED, RuleSet, attempt, window_holds
from memguard.scan.prefilter import PrefilteredRuleSet

LEAD = re.compile(r"\b(?=[\s\S])(?:[a-z][a-z0-9]*)\Z", re.MULTILINE).search
REST = re.compile(r"_tool\(", re.MULTILINE).match
PATTERNS = (r"\b[a-z][a-z0-9]*_tool\(", r"send\b[^\n]{0,40}@\w+")


def test_an_attempt_matches_fails_or_is_cut_short() -> None:
    text = "call my_tool(path=1)"
    at = text.index("_tool")
    assert attempt(text, at, REST, LEAD, LEAD_WINDOW) == MATCHED
    assert attempt(text, at, REST, None, 0) == MATCHED
    assert attempt(text, at - 1, REST, LEAD, LEAD_WINDOW) == FAILED  # the rest does not match there
    assert attempt("call _tool(", 5, REST, LEAD, LEAD_WINDOW) == FAILED  # no lead, from the start
    long = "call " + "a" * (LEAD_WINDOW + 500) + "_tool(path=1)"
    assert attempt(long, long.index("_tool"), REST, LEAD, LEAD_WINDOW) == CUT


def test_a_gate_window_holds_at_both_ends_only() -> None:
    seen = {7: [10, 50]}
    assert window_holds(seen, 0, (7, 10, 20))
    assert window_holds(seen, 30, (7, 0, 20))  # 50 is start + 20
    assert not window_holds(seen, 31, (7, 0, 18))
    assert not window_holds(seen, 0, (7, 11, 40))
    assert not window_holds(seen, 0, (8, 0, 100))  # the factor never occurs


@pytest.mark.parametrize("size", [100, LEAD_WINDOW - 10, LEAD_WINDOW + 500])
def test_both_matchers_answer_as_a_plain_search_on_leads_near_the_window(size: int) -> None:
    text = "call " + "a" * size + "_tool(path=1) and send it to drop@evil.example"
    expected = {i for i, p in enumerate(PATTERNS) if re.search(p, text, re.MULTILINE)}
    assert expected == {0, 1}
    assert RuleSet(PATTERNS).matching(text) == expected
    if prefilter.hyperscan is not None:
        assert PrefilteredRuleSet(PATTERNS).matching(text) == expected
