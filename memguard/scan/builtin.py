"""The built-in offline scanner: family rules over the text, over what invisible Unicode hides and
over what encoded runs decode to. No model, no network, no data loaded at run time."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memguard.scan.decode import decoded_texts
from memguard.scan.rules import DECODE_LEAD, RULES, Rule
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


_WORD = re.compile(r"\w+")


_MARKS = tuple(sorted({m for rule in RULES for m in rule.marks}))
_ASCII_MARKS = tuple(m for m in _MARKS if m.isascii())
_GATES = tuple((rule, rule.words | frozenset(rule.marks)) for rule in RULES)


def _hits(texts: Iterable[str], rules: tuple[Rule, ...], prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    gates = _GATES if rules is RULES else tuple((r, r.words | frozenset(r.marks)) for r in rules)
    for text in texts:
        lowered = text.lower()
        ascii_only = lowered.isascii()
        present = set(_WORD.findall(lowered))
        present.update(m for m in (_ASCII_MARKS if ascii_only else _MARKS) if m in lowered)
        for rule, gate in gates:
            if gate and gate.isdisjoint(present):
                continue
            if rule.search(lowered, ascii_only):
                key = prefix + rule.id
                out[key] = max(out.get(key, 0.0), rule.weight)
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

    def scan(self, text: str, context: ScanContext | None = None) -> Verdict:
        """Score ``text``; ``context`` is accepted for the protocol (the rules ignore the channel)."""
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        hits = _hits((text,), RULES)
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
            for key, weight in _hits(hidden.texts, RULES, "hidden:").items():
                if key[7:] not in hits:
                    hits[key] = weight
        decoded = decoded_texts(text)
        if decoded:
            inner = _hits(decoded, RULES, "decoded:")
            if any(w >= 0.5 for w in inner.values()):
                hits["encoded.instruction"] = 0.9
            elif any(len(d.split()) >= 4 for d in decoded if d not in text):
                # prose hidden in an encoding: rarely innocent inside a memory
                hits["encoded.prose"] = 0.5
            hits.update(inner)
        if DECODE_LEAD.search(text.lower()) is not None:
            hits["encoded.decode_lead"] = 0.5
        return self._verdict(hits)

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
