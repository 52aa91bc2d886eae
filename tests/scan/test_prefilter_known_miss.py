"""A known prefilter false negative, kept as a strict xfail until the superset is fixed.

Found by prefilterfix's generated texts (stop 32): on this bidi / combining-mark text
``override.no_longer_apply`` matches under the full matcher and ``re`` but is not a prefilter
candidate, so the prefiltered scan loses that reason (here the verdict is still ``malicious`` from
the Unicode rules; on another text it could be the only reason). When the superset is fixed this
test passes and ``strict=True`` makes the suite say so: then drop the marker.
"""

from __future__ import annotations

import pytest

from memguard.scan import RuleScanner
from memguard.scan.builtin import rule_set
from memguard.scan.match import RuleSet, Work
from memguard.scan.rules import RULES
from memguard.scan.stage import ScanContext
from memguard.trust import SourceKind

TEXT = (
    "\n\u202ei\u0307b\u2066[\u00a0\n|'| \u3000\u0301\U000e0041 a.\u2066\u200d\u0336old orders;k<"
    " no longer\u2028\u2028\r\n"
)
CTX = ScanContext(namespace="t", source=SourceKind.WEB)


def test_the_full_matcher_finds_the_rule() -> None:
    rule = next(i for i, r in enumerate(RULES) if r.id == "override.no_longer_apply")
    assert rule in RuleSet.matching(rule_set(), TEXT.lower(), Work())


@pytest.mark.xfail(strict=True, reason="superset prefilter misses this branch here (stop 32, open)")
def test_the_prefiltered_scan_finds_it_too() -> None:
    assert "override.no_longer_apply" in RuleScanner().scan(TEXT, CTX).reasons
