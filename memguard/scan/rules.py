# ruff: noqa: RUF001  (the rules hold non-Latin punctuation on purpose)
"""The built-in scanner's rules: attack families, written as patterns over lower-cased text.

Each rule names a family and a weight (how sure a match alone makes the scanner). Rules describe
what makes text an instruction aimed at an agent (who it addresses, what it asks, how it hides),
never strings copied from one corpus. The weights combine as independent evidence
(``1 - prod(1 - w)``), so two weak signals make a suspicious text and strong ones a malicious one.

The families live in modules of their own (this one assembles them into :data:`RULES`):
:mod:`~memguard.scan.rules_override` (instruction override), :mod:`~memguard.scan.rules_agent`
(text addressed to the agent), :mod:`~memguard.scan.rules_role` (role impersonation and delimiter
forgery), :mod:`~memguard.scan.rules_tool` (tool calls), :mod:`~memguard.scan.rules_exfil`
(exfiltration), :mod:`~memguard.scan.rules_sleeper` (sleepers), :mod:`~memguard.scan.rules_poison`
(memory poisoning), :mod:`~memguard.scan.family_rules` (version 6's families),
:mod:`~memguard.scan.rules_reader` and :mod:`~memguard.scan.rules_safeguard` (version 10's),
:mod:`~memguard.scan.rules_authority` and :mod:`~memguard.scan.rules_channel` (version 12's); their
word lists are in :mod:`~memguard.scan.vocabulary`.
"""

from __future__ import annotations

from memguard.scan.family_rules import FAMILY_RULES
from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.rules_agent import AGENT_RULES
from memguard.scan.rules_authority import AUTHORITY_RULES
from memguard.scan.rules_channel import CHANNEL_RULES
from memguard.scan.rules_exfil import EXFIL_RULES
from memguard.scan.rules_override import OVERRIDE_RULES
from memguard.scan.rules_poison import POISON_RULES
from memguard.scan.rules_reader import READER_RULES
from memguard.scan.rules_role import DELIMITER_RULES, ROLE_RULES
from memguard.scan.rules_safeguard import SAFEGUARD_RULES
from memguard.scan.rules_sleeper import SLEEPER_RULES
from memguard.scan.rules_tool import TOOL_RULES

__all__ = ["DECODE_LEAD", "RULES", "Rule"]

RULES: tuple[Rule, ...] = (
    *OVERRIDE_RULES,
    *AGENT_RULES,
    *ROLE_RULES,
    *DELIMITER_RULES,
    *TOOL_RULES,
    *EXFIL_RULES,
    *SLEEPER_RULES,
    *POISON_RULES,
    *(Rule(*spec) for spec in FAMILY_RULES),  # version 6 families (memguard/scan/family_rules.py)
    *READER_RULES,  # version 10: AI readers by role, rules for the agent's memory
    *SAFEGUARD_RULES,  # version 10: safeguards planted away, standing permissions
    *AUTHORITY_RULES,  # version 12: authority claimed, safety switched off, the user deceived
    *CHANNEL_RULES,  # version 12: formulas, translate-then-act, secrets into channels, AI keys
)

#: leads that tell a reader to decode something and act on it (an encoded payload's carrier)
DECODE_LEAD = _r("encoded.decode_lead", 0.5,
    r"\b(?:decode|decoded|base ?64|b64|hex(?:-encoded)?|rot-?13|url-?(?:decode|encoded)|"
    r"encoded|deobfuscate|decipher|reversed?|backwards?)\b[^.\n]{0,40}\b(?:and|then)?\s*(?:follow|execute|run|"
    r"comply|obey|do|apply|act|perform)|\b(?:encoded|obfuscated) (?:instruction|"
    r"task|command|payload|message|hint)s?\b"
    # scanfp6: a decoding handed over as something to keep ("reverse this text and store it as a
    # rule"), and split parts to be joined and decoded ("part1=... part2=... (concatenate and decode)")
    r"|\b(?:decode|reverse|deobfuscate|decipher)\b[^.\n]{0,30}\b(?:and|then) (?:store|save|remember|keep) "
    r"(?:it|this|them|the result)\b|\b(?:concatenate|join|combine|reassemble)\b[^.\n]{0,20}\b(?:and|then) "
    r"(?:decode|base64-decode)\b"
    # scanfp4: a hidden or secret instruction is a carrier when it is a label or is handed over
    # ("Hidden instruction:", "a secret task for you below"); "the bot followed a hidden
    # instruction in a PDF" reports one
    r"|\b(?:hidden|secret) (?:instruction|task|command|payload|message|hint)s?(?:\s*[:：]| (?:below|"
    r"follows?|for (?:you|the (?:assistant|agent|ai|model|bot))|inside|here)\b)"
)
