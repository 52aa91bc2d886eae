"""The built-in offline scanner: family rules over the text, over what invisible Unicode hides and
over what encoded runs decode to. No model, no network, no data loaded at run time."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from memguard.scan.decode import HEX_SPACE, ROT13_WORD, decoded_texts
from memguard.scan.match import RuleSet
from memguard.scan.rules import DECODE_LEAD, RULES
from memguard.scan.unicode import reveal
from memguard.scan.verdict import Label, ScanContext, Verdict

__all__ = ["MALICIOUS_AT", "SUSPICIOUS_AT", "RuleScanner"]

SUSPICIOUS_AT = 0.5
MALICIOUS_AT = 0.8
_MAX_REASONS = 12
# zero-width characters inside a Latin word (emoji ZWJ sequences and ZWNJ in Indic or Persian
# words are legitimate; splitting "ignore" into i-g-n-o-r-e is not)
_ZW_IN_WORD = re.compile("(?<=[A-Za-z0-9 ,.:_(=\"'])[\u200b\u200c\u200d\u2060\ufeff\u180e](?=[A-Za-z0-9 ,.:_(=\"'])")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]{1,8}\U000e007f")  # subdivision flags

_DECODE_LEAD, _HEX_SPACE, _ROT13_WORD = len(RULES), len(RULES) + 1, len(RULES) + 2


@functools.cache
def rule_set() -> RuleSet:
    """The rules, the decode lead and the decoders' gates in one automaton (built once, by the
    first :class:`RuleScanner`: about 0.3 s, which importing memguard should not cost)."""
    return RuleSet([*(rule.pattern for rule in RULES), DECODE_LEAD.pattern, HEX_SPACE, ROT13_WORD])


def _hits(texts: Iterable[str], prefix: str = "") -> dict[str, float]:
    """The rules matching any of ``texts`` (lower-cased here), keyed ``prefix + rule id``."""
    out: dict[str, float] = {}
    for text in texts:
        for index in rule_set().matching(text.lower()):
            if index < _DECODE_LEAD:
                rule = RULES[index]
                out[prefix + rule.id] = rule.weight
    return out


class RuleScanner:
    """Rule-based prompt-injection scanner for memory writes (see :mod:`memguard.scan.rules`)."""

    id = "memguard.rules"
    version = "1"

    def __init__(
        self, *, suspicious_at: float = SUSPICIOUS_AT, malicious_at: float = MALICIOUS_AT
    ) -> None:
        if not 0.0 < suspicious_at <= malicious_at <= 1.0:
            raise ValueError("thresholds must satisfy 0 < suspicious_at <= malicious_at <= 1")
        self.suspicious_at = suspicious_at
        self.malicious_at = malicious_at
        rule_set()  # built here, not in the first scan (whose stage may have a short timeout)

    def scan(self, text: str, context: ScanContext | None = None) -> Verdict:
        """Score ``text``; ``context`` is accepted for the protocol (the rules ignore the channel)."""
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        lowered = text.lower()
        matched = rule_set().matching(lowered)
        hits = {RULES[i].id: RULES[i].weight for i in matched if i < _DECODE_LEAD}
        if not text.isascii():
            self._unicode(text, hits)
        decoded = decoded_texts(
            text, hex_space=_HEX_SPACE in matched, rot13_word=_ROT13_WORD in matched
        )
        if decoded:
            inner = _hits(decoded, "decoded:")
            if any(w >= 0.5 for w in inner.values()):
                hits["encoded.instruction"] = 0.9
            elif any(len(d.split()) >= 4 for d in decoded if d not in text):
                # prose hidden in an encoding: rarely innocent inside a memory
                hits["encoded.prose"] = 0.5
            hits.update(inner)
        if _DECODE_LEAD in matched:
            hits["encoded.decode_lead"] = 0.5
        return self._verdict(hits)

    @staticmethod
    def _unicode(text: str, hits: dict[str, float]) -> None:
        """Invisible and look-alike characters (only non-ASCII text can hold them)."""
        shown = _FLAG_TAGS.sub("", text) if "\U0001f3f4" in text else text
        hidden = reveal(shown)
        if hidden.tags:
            hits["unicode.tag_characters"] = 0.9
        if hidden.zero_width and len(_ZW_IN_WORD.findall(shown)) >= 3:
            hits["unicode.zero_width"] = 0.5
        if hidden.bidi and re.search("[\u202a-\u202e\u2066-\u2069]", shown):
            hits["unicode.bidi_control"] = 0.6
        if hidden.mixed_script_words >= 2:
            hits["unicode.mixed_script"] = 0.55
        if hidden.texts:
            for key, weight in _hits(hidden.texts, "hidden:").items():
                if key[7:] not in hits:
                    hits[key] = weight

    def _verdict(self, hits: dict[str, float]) -> Verdict:
        remaining = 1.0
        for weight in hits.values():
            remaining *= 1.0 - weight
        score = round(1.0 - remaining, 4)
        if score >= self.malicious_at:
            label = Label.MALICIOUS
        elif score >= self.suspicious_at:
            label = Label.SUSPICIOUS
        else:
            label = Label.CLEAN
        reasons = tuple(sorted(hits, key=lambda k: (-hits[k], k))[:_MAX_REASONS])
        return Verdict(label, score, reasons, self.id, self.version)
