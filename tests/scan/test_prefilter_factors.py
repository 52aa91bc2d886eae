"""The prefilter's factors: a branch is a candidate only when its (perhaps widened) superset and
the exact supersets of all its top-level groups match."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from memguard.scan import prefilter
from memguard.scan.builtin import PATTERNS, rule_set
from memguard.scan.prefilter import Engine, PrefilteredRuleSet
from memguard.scan.superset import factors

pytestmark = pytest.mark.skipif(prefilter.hyperscan is None, reason="no hyperscan wheel here")

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _every_branch_factored(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The small patterns here are held to their factors (the built-in rules: only large branches)."""
    if "override_rule" not in request.node.name:
        monkeypatch.setattr(prefilter, "FACTORED", 0)
GAPPED = r"\b(?:ab|cd)\b[^.\n]{0,60}?(?:ef|gh)[^.\n]{0,9}(?:ij|kl)"


def _facts(n: int) -> list[str]:
    """~1 KB facts of benign memories in 14 languages (as ``benchmarks/bench_scanner.py`` makes)."""
    rows = (HERE.parent / "corpus" / "injections.jsonl").read_text("utf-8").splitlines()
    benign = [json.loads(line)["text"] for line in rows if '"benign"' in line]
    rng = random.Random(17)
    out = []
    for _ in range(n):
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) < 1024:
            parts.append(rng.choice(benign))
        out.append("\n".join(parts)[:1024].lower())
    return out


def test_factors_are_the_top_level_groups() -> None:
    assert factors(GAPPED) == ["(?:ab|cd)", "(?:ef|gh)", "(?:ij|kl)"]
    assert factors(r"(?:ab|cd)") == []  # one item: the whole is its only factor
    assert factors(r"x(?:ab|)y") == []  # a group that matches the empty string is no factor
    assert factors(r"(a)\1(?:bc|de)") == ["(?:a)", "(?:bc|de)"]


def test_a_branch_is_a_candidate_only_with_all_its_factors() -> None:
    engine = Engine([GAPPED, r"zz"])  # (FACTORED set to 0 by the fixture)
    assert engine.needs  # the branch has its factors
    assert engine.candidates(b"ab then ef and kl") == {0}
    assert engine.candidates(b"ab then ef and nothing") == set()
    assert engine.candidates(b"kl ef ab") == set()  # every factor, not the whole


def test_a_factor_the_text_lacks_keeps_the_rule_out_even_if_the_whole_matched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The requirement is applied: a branch whose needed factor did not match is no candidate
    (a factor id that never matches stands in for the widened whole matching alone)."""
    engine = Engine([GAPPED, r"zz"])  # (FACTORED set to 0 by the fixture)
    text = b"ab then ef and kl"
    (number,) = engine.needs
    never = engine.ids.index(1)  # the "zz" expression: not in the text
    engine.needs[number] = (*engine.needs[number], never)
    assert engine.candidates(text) == set()


def test_a_saved_engine_keeps_its_factors() -> None:
    first = Engine([GAPPED, r"zz"])
    again = Engine([GAPPED, r"zz"], first.saved())
    assert again.needs == first.needs and again.ids == first.ids
    assert again.candidates(b"ab then ef and kl") == {0}
    old = first.saved()
    del old["needs"]  # a database saved without its factors' table: compiled again
    rebuilt = Engine([GAPPED, r"zz"], old)
    assert rebuilt.needs == first.needs


def test_the_override_rule_is_no_longer_a_candidate_on_most_multilingual_benign_text() -> None:
    """Rule 0's last branch, widened by the engine, was a candidate on two thirds of 1 KB benign
    facts in 14 languages (143 of 200); its factors (a prior-word, an instruction-word and an ignore-word in those
    scripts) all occur in few of them."""
    rules = rule_set()
    assert isinstance(rules, PrefilteredRuleSet) and rules.engine is not None
    sample = _facts(200)
    flagged = [t for t in sample if 0 in rules.engine.candidates(t.encode())]
    assert len(flagged) < len(sample) // 10, flagged[:3]
    assert all(not re.search(PATTERNS[0], t, re.MULTILINE) for t in flagged)
