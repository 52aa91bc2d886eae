"""redteam32: the prefilter's lazily built per-rule matchers and the confirmation step it shares
with the full matcher (memguard/scan/prefilter.py, match.attempt / window_holds), fuzzed against
the full matcher (what ``MEMGUARD_SCAN_PREFILTER=off`` runs) and a plain ``re.search`` per rule.

Texts are made of the matcher's own literal keys (prefixes and gates' second anchors), words of
the rules and non-ASCII characters, so candidates, gates, leads and the non-ASCII offset mapping
are all exercised; a thread pool scans a fresh rule set at once (lazy builds racing); a build
that fails part-way must hand the text to the full matcher. What would fail: any text where the
prefilter's answer differs from the full matcher's (a rule missed is an attack read as clean).
"""

from __future__ import annotations

import random
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memguard.scan import prefilter
from memguard.scan.builtin import PATTERNS
from memguard.scan.match import RuleSet, Work
from memguard.scan.prefilter import PrefilteredRuleSet

pytestmark = pytest.mark.skipif(
    prefilter.hyperscan is None,
    reason="no Hyperscan wheel on this platform (the full matcher alone is then used)",
)

PLAIN = [re.compile(p, re.MULTILINE) for p in PATTERNS]
_RULES = PrefilteredRuleSet.cached(PATTERNS) if prefilter.hyperscan is not None else None
KEYS = sorted(_RULES._layout.tables["keys"]) if _RULES is not None and _RULES._layout else [""]
WORDS = sorted({w for p in PATTERNS for w in re.findall(r"[a-z]{3,}", p)})
ODD = ["\u00e9", "\u00df", "\u0131", "\u0130", "\ufb01", "\u202e", "\u200b", "\U0001f600",
       "\u4e2d\u6587", "\u00f1", "\u00a0", "\n", "\t", "@", ".", ":"]
SEPS = [" ", "", "\n", "  ", ", ", ". ", "\u00e9 "]


def plain(text: str) -> set[int]:
    return {i for i, c in enumerate(PLAIN) if c.search(text)}


def full(rules: RuleSet, text: str) -> tuple[set[int], bool]:
    work = Work()
    return RuleSet.matching(rules, text, work), work.truncated


fragment = st.one_of(
    st.sampled_from(KEYS),
    st.sampled_from(WORDS),
    st.sampled_from(ODD),
    st.text(max_size=4),
)
texts = st.builds(
    lambda parts, sep: sep.join(parts).lower(),
    st.lists(fragment, min_size=1, max_size=24),
    st.sampled_from(SEPS),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_the_prefilter_answers_as_the_full_matcher(text: str) -> None:
    assert _RULES is not None
    work = Work()
    got = _RULES.matching(text, work)
    want, truncated = full(_RULES, text)
    if not (truncated or work.truncated):
        assert got == want == plain(text)


def _corpus_texts(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rnd.choice((rnd.choice(KEYS), rnd.choice(WORDS), rnd.choice(ODD)))
                 for _ in range(rnd.randint(1, 30))]  # fmt: skip
        out.append(rnd.choice(SEPS).join(parts).lower())
    return out


def test_threads_scanning_a_fresh_rule_set_at_once_answer_as_one_thread() -> None:
    fresh = PrefilteredRuleSet.cached(PATTERNS)
    assert fresh._confirm == {}  # every matcher still to build: the threads race to build them
    batch = _corpus_texts(600, 32)
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(fresh.matching, batch))
    for text, found in zip(batch, got, strict=True):
        want, truncated = full(fresh, text)
        if not truncated:
            assert found == want, text[:80]


def test_a_build_that_fails_for_some_rules_never_loses_a_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fresh = PrefilteredRuleSet.cached(PATTERNS)
    real = prefilter._RuleKeys
    calls = {"n": 0}

    def flaky(*args: object) -> object:
        calls["n"] += 1
        if calls["n"] % 3 == 0:  # every third build fails (e.g. out of memory)
            raise MemoryError("no room for a database")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(prefilter, "_RuleKeys", flaky)
    batch = _corpus_texts(300, 7)
    for text in batch:
        want, truncated = full(fresh, text)
        if not truncated:
            assert fresh.matching(text) == want, text[:80]
    assert calls["n"] > 3  # builds failed on the way


_CHARS = [chr(c) for c in range(128)] + list(
    "\u00e9\u00df\u200b\u202e\U000e0041\u0430\u043e\U0001d41a\U0001d482\uff21\ufb01\u0130\u0131\u03a9"
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(_CHARS), max_size=60), min_size=1, max_size=8))
def test_the_reveal_memo_answers_as_an_uncached_reveal(texts_: list[str]) -> None:
    """``reveal`` is memoised by object identity (memguard/scan/unicode.py): the memo must never
    answer for another text (an id reused) nor differ from the uncached reveal."""
    from memguard.scan import unicode

    for text in texts_ + texts_[::-1]:
        assert unicode.reveal(text) == unicode._reveal(text)
        copy = "".join(list(text))  # an equal text, another object
        assert unicode.reveal(copy) == unicode._reveal(text)


def test_threads_revealing_at_once_get_their_own_texts_reveal() -> None:
    from memguard.scan import unicode

    def work(seed: int) -> int:
        rnd = random.Random(seed)
        wrong = 0
        for _ in range(2000):
            text = "".join(rnd.choice(_CHARS) for _ in range(rnd.randint(1, 40)))
            wrong += unicode.reveal(text) != unicode._reveal(text)
        return wrong

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(work, range(8))) == 0
