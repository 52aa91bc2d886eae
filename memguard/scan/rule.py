"""One rule of the built-in scanner: an attack family's id, a weight and a pattern."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rule", "rule"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: an attack family's id, how sure a match alone makes the scanner, and a pattern
    over lower-cased text (``re.MULTILINE``), matched by :class:`memguard.scan.match.RuleSet`."""

    id: str
    weight: float
    pattern: str


def rule(rule_id: str, weight: float, pattern: str) -> Rule:
    """A :class:`Rule` (the rule tables' short constructor)."""
    return Rule(rule_id, weight, pattern)
