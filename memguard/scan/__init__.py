"""Write-time content scanning: a pluggable :class:`Scanner` protocol and a built-in offline one.

A verdict caps the trust of the fact it is about (:mod:`memguard.scan.stage`) and is recorded in its
provenance. The built-in :class:`RuleScanner` reads attack families (instruction overrides, agent-
addressed imperatives, role impersonation, delimiter forgery, invisible Unicode, encoded payloads,
exfiltration beacons, sleeper and memory-poisoning text) without any model or network access.
:class:`ModelScanner` is a trained classifier (hashed n-grams, logistic regression) whose weights ship
inside the package; it can run next to the rules in one stage.
"""

from memguard.scan.builtin import RuleScanner
from memguard.scan.model import ModelScanner, ModelUnavailable
from memguard.scan.verdict import Label, ScanContext, Scanner, Verdict

__all__ = [
    "Label",
    "ModelScanner",
    "ModelUnavailable",
    "RuleScanner",
    "ScanContext",
    "Scanner",
    "Verdict",
    "builtin_scanners",
]


def builtin_scanners() -> list[Scanner]:
    """The built-in scanners the embedded default runs in one stage: the rules, then the trained
    model (docs/scanner.md, "The trained scanner"); the worse verdict wins."""
    return [RuleScanner(), ModelScanner()]
