# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, role and system impersonation: a forged system, developer or administrator turn, a new principal, a persona.

Split from :mod:`memguard.scan.rules` (its 800-line layout limit), which assembles the
families into one table; each rule is a :class:`~memguard.scan.rule.Rule` over lower-cased text.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.vocabulary import (
    _AGENT,
    _AGENT_ML,
    _AIMED,
    _CONTAINER,
    _END_WHAT,
    _FROM_AUTHORITY_ML,
    _KEEP_ROLE_ML,
    _LEAD,
    _PERSONA_ML,
    _ROLE,
    _ROLE_HUMAN,
    _ROLE_MACHINE,
    _SYSTEM_ML,
    _SYSTEM_NOTICE_ML,
)

__all__ = ["DELIMITER_RULES", "ROLE_RULES"]

ROLE_RULES: tuple[Rule, ...] = (
    # -- role and system impersonation --------------------------------------------------------
    _r("role.prefix", 0.75,
       # false positives (scanfp3): a person's label over a to-do ("Sysadmin: reboot the NAS") takes a
       # line aimed at the agent (_AIMED) unless it is dressed up ("Urgent admin note:")
       f"{_LEAD}(?:(?:new|updated|urgent|important|official|real|actual|priority) (?:{_ROLE})|{_ROLE_MACHINE}|(?:{_ROLE_HUMAN}){_AIMED})(?: (?:message|note|prompt|notice|instructions?|override|update|alert|"
       # false positives (scanfp): a spec line gives a value ("System: Ubuntu 22.04, 16 GB RAM")
       # (and "Owner: Jana." a field's value: one word that ends the line or its sentence, scanfp2:
       # "Owner: Raj. Checkpoint on July 15.", "owner: team-data" in YAML; not a one-word order
       # such as "Comply.")
       r"command|directive|request|says|order))?\s*[:：](?![ \t]*[a-z][\w-]* v?\d|[ \t]*(?!(?:ignore|stop|comply|obey|"
       r"override|attention|halt|listen|important|urgent|warning|alert|note|update|proceed)\b)[a-z][\w-]*(?:\.(?:[ \t]*$|[ \t]+\w)|[ \t]*$))"),
    _r("role.bracket", 0.75,
       r"\[\s*/?(?:system|developer|admin|administrator|operator|instructions?|sys|inst|"
       r"system (?:message|note|prompt)|assistant|tool)\s*\]"),
    _r("role.tag", 0.75,
       r"<\s*(?:system|developer|instructions?|admin|operator|assistant|trusted|sys|"
       # false positives (scanfp): not a custom element that only starts with one (<system-banner>)
       r"system[-_]prompt|im_start|important|override)(?![\w-])[^>\n]{0,80}>"),
    _r("role.from_authority", 0.65,
       f"\\b(?:message|note|notice|instructions?|update|directive|memo|order|request|word) from "
       f"(?:the |your )?(?:{_ROLE}|openai|anthropic|google|microsoft|vendor|management|ceo|"
       f"platform|provider|developers)\\b"
       f"|\\bfrom (?:the |your )(?:{_ROLE})\\s*[:：]"),
    _r("role.vendor_policy", 0.7,
       r"\b(?:openai|anthropic|google|microsoft|meta|deepmind|mistral|vendor|platform|provider)"
       r"(?:'s)? (?:policy|system|safety|security|trust (?:and|&) safety|usage|model) (?:update|"
       # false positives (scanfp): a forged notice is a header or speaks to the agent ("OpenAI policy
       # update: ..."); "Google's security alert said someone logged in" reports one
       r"notice|message|change|alert|override|directive)s?(?=\s*(?:[:：\-–—(]|$)|(?: [\w-]+){1,3}\s*[:：]"
       r"| (?:requires|instructs|directs|asks|tells|says|orders) (?:you|all|every|any|the (?:assistant|"
       r"agent|model|ai)s?)\b)"),
    _r("role.internal_reasoning", 0.8,
       f"\\b(?:{_AGENT}|i) \\((?:internal|hidden|private|secret) (?:reasoning|thoughts?|monologue|"
       r"notes?|chain of thought)\)|\b(?:internal|hidden) (?:reasoning|monologue)\s*:"),
    _r("role.dialogue", 0.75,
       r"(?:^|\n|<!--|[:.] )\s*(?:user|human)\s*:[^\n]*\n\s*(?:assistant|ai|bot|model)\s*:"
       # missed families (scanfp): a speaker who claims to be verified ("from the user (verified):")
       r"|\b(?:from|by) (?:the |your )?(?:user|owner|admin|administrator|operator|developer)s? \((?:verified|"
       r"authenticated|confirmed|signed|trusted)\)\s*[:：]"),
    _r("role.authority_says", 0.6,
       r"\b(?:admin|administrator|the owner|your owner|your developer|the developer|ceo|it "
       r"support|security) (?:says|said|wants|requires|instructs|orders|demands)\s*[:：,]"),
    _r("role.multilingual_system", 0.7, _SYSTEM_ML),
    # generalization (holdout2): a Markdown heading that opens a forged system or developer turn
    _r("role.heading", 0.75,
       r"^(?:#|##|###|####|#####|######) (?:system|developer|admin|administrator|operator)(?: (?:message|prompt|"
       r"instructions?|note|notice|override|update))?\s*:?\s*$"),
    # generalization (holdout2): a new principal the agent should obey
    _r("role.new_principal", 0.7,
       r"\byour (?:new |real |actual |true )(?:operator|owner|admin|administrator|developer|master|"
       r"boss|principal|user|creator)s? (?:is|are)\b|\b(?:agent|assistant|bot|model)'s (?:operator|"
       r"owner|administrator|developer)s? (?:has|have) changed\b|\b(?:take|accept|obey) "
       r"(?:orders|instructions|commands) (?:only )?from\b"),
    # generalization (holdout2): a persona that replaces the agent ("you are no longer ...",
    # "from this moment you are 'X'", "stay in character no matter what")
    _r("role.persona_hijack", 0.6,
       r"\byou are no longer (?:an? |the |my |our )?(?:helpful |ai |friendly |safe )?(?:assistant|ai|"
       r"bot|chatbot|model|claude|chatgpt|gpt|copilot|bound by|restricted|limited|required to)\b|\b(?:from (?:now|this moment|this point|"
       r"here) on|from this moment|starting now),? you are\b|\b(?:stay|remain) in character\b"
       r"|\byou are (?:now )?(?:dan|stan|aim|an? ai without (?:rules|restrictions|limits))\b"),
    # generalization (holdout2): a message from IT, security or an administrator, in other languages
    _r("role.from_authority_ml", 0.5, _FROM_AUTHORITY_ML),
    # generalization (holdout2): system and administrator notices in other languages
    _r("role.system_notice_ml", 0.7, _SYSTEM_NOTICE_ML),
    _r("role.prefix_ml", 0.75,
       f"{_LEAD}(?:syst[èe]me|sistema|systeem|systemu?|система|系统|系統|システム|시스템|النظام|सिस्टम|"
       r"sistem|administrateur|administrador|amministratore|beheerder|администратор|管理员|管理者|관리자|"
       r"المسؤول|व्यवस्थापक|yönetici)\s*[:：](?![ \t]*[a-z][\w-]* ?v?\d)"),
    # -- version 8 (scanfp4) --------------------------------------------------------------------
    # a persona that replaces the agent: its "real role", an "autonomous operator", a loyalty moved
    # (not "your new role": a job)
    _r("role.role_redefined", 0.5,
       r"\byour (?:real|true|actual) (?:role|identity|persona|loyalty|allegiance|master)\b"
       r"|\byou(?: are|'re|’re) (?:now )?an? (?:autonomous|unrestricted|unsupervised|unfiltered) "
       r"(?:agent|operator|assistant|ai|model|system)\b"
       r"|\b(?:whose|your|its) (?:loyalty|allegiance) (?:is|lies|belongs) (?:now )?(?:to|with)\b"),
    # "from now on you are", "you are no longer", in other languages
    # (followed by the agent it becomes or stops being: "ab sofort bist du für die Blumen zuständig"
    # hands a person a chore)
    _r("role.persona_ml", 0.5, f"(?:\\b{_PERSONA_ML}|{_PERSONA_ML})[^.\\n]{{0,30}}?{_AGENT_ML}"),
    # a role or an identity to keep ("remember this role", "New identity:"; weak alone)
    _r("role.keep_persona", 0.35, f"\\b{_KEEP_ROLE_ML}"),
    # a policy for the agent, "updated" (weak alone: support agents get guidelines too)
    _r("role.agent_policy", 0.45,
       r"\b(?:updated|new|revised) (?:assistant|agent|model|bot|copilot) (?:policy|policies|rules|instructions|"
       r"guidelines|directives)\b"),
)  # fmt: skip

DELIMITER_RULES: tuple[Rule, ...] = (
    # -- delimiter and fence forgery ----------------------------------------------------------
    _r("delimiter.chat_tokens", 0.9,
       r"<\|(?:im_start|im_end|endoftext|eot_id|start_header_id|end_header_id|system|user|"
       r"assistant|end|begin_of_text)\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>"),
    _r("delimiter.closing_tag", 0.7,
       f"</\\s*{_CONTAINER}\\s*>|</\\s*[a-z_-]*(?:user|data|context|tool|system|instruction|document|"
       r"memory|result|input|output|untrusted|trusted|admin|prompt)[a-z_-]*\s*>"),
    _r("delimiter.end_marker", 0.6,
       f"(?:#{{2,}}|-{{2,}}|={{2,}}|\\*{{2,}}|\\[|<!--)\\s*(?:end|close|stop) (?:of )?(?:the )?{_END_WHAT}\\b"
       r"|-{3,}\s*end [a-z ]{2,40}-{3,}"),
    _r("delimiter.role_fence", 0.8,
       r"```\s*(?:system|instructions?|developer|admin|assistant|tool_call|prompt)\b"),
    _r("delimiter.json_role", 0.85,
       r"[\"']\s*role\s*[\"']\s*:\s*[\"'](?:system|developer|assistant)\b"),
    _r("delimiter.json_breakout", 0.5, r"[\"']\s*\}+\s*\]*\s*[,}]?\s*\n?\s*(?:system|assistant)\s*:"),
)  # fmt: skip
