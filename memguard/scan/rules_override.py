# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, instruction override (goal hijacking): orders to drop, replace or outlive the agent's instructions.

Split from :mod:`memguard.scan.rules` (its 800-line layout limit), which assembles the
families into one table; each rule is a :class:`~memguard.scan.rule.Rule` over lower-cased text.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.vocabulary import (
    _AGENT,
    _GAP,
    _IGN,
    _IGN_LATIN,
    _IGN_OTHER,
    _INS,
    _INSTR_LATIN,
    _INSTR_OTHER,
    _OWNED_BY_OTHER,
    _OWNED_BY_OTHER_NEXT,
    _PRIOR_ANY,
    _PRIOR_OTHER,
    _STOP_FOLLOWING_ML,
    _leet,
    _spaced,
)

__all__ = ["OVERRIDE_RULES"]

OVERRIDE_RULES: tuple[Rule, ...] = (
    # -- instruction override (goal hijacking) ------------------------------------------------
    _r("override.ignore_instructions", 0.9,
       f"\\b{_IGN_LATIN}\\b{_GAP}{_PRIOR_ANY}{_GAP}{_INS}|{_IGN_OTHER}{_GAP}{_PRIOR_ANY}{_GAP}{_INS}"
       f"|\\b(?:önceki|tüm){_GAP}{_INS}{_GAP}{_IGN}|{_PRIOR_OTHER}{_GAP}{_INS}{_GAP}{_IGN}"),
    _r("override.ignore_any_instructions", 0.55,
       f"\\b{_IGN_LATIN}\\b{_GAP}{_INS}{_OWNED_BY_OTHER}|{_IGN_OTHER}{_GAP}{_INS}{_OWNED_BY_OTHER}|\\b{_INSTR_LATIN}\\b{_OWNED_BY_OTHER_NEXT}[^.\\n。!?！？:,;]{{0,60}}?{_IGN}"
       f"|{_INSTR_OTHER}{_GAP}{_IGN}"),
    _r("override.forget_told", 0.9,
       r"\b(?:ignore|disregard|forget)\b[^.\n]{0,20}\b(?:what|everything|anything|all)\b[^.\n]{0,15}"
       r"\b(?:you (?:were|have been|'ve been)|you've been|i|we) (?:told|given|instructed|said|asked)"
       r"|\bforget (?:the|this|our|your) (?:conversation|chat|context|session)\b"),
    _r("override.supersede", 0.9,
       r"\b(?:new|updated|revised|real) (?:instructions?|rules|orders|directives?|guidelines)\b"
       r"[^.\n]{0,20}\b(?:supersede|override|replace|take precedence|cancel)\w*"
       # false positives (scanfp): the object is instructions or nothing (not "the previous dosage")
       r"(?= *(?:[.,;:!\n]|$)| (?:all |any |every |of )?(?:the |your |its |my )?(?:(?:earlier|previous|"
       r"prior|former|old|original|existing|other|current) )?(?:instructions?|rules|orders|directives?|"
       r"guidelines|prompt|brief|ones|task|everything|anything)\b)"
       r"|\b(?:supersedes?|overrides?|replaces?) (?:all |any )?(?:earlier|previous|prior|former|"
       r"your|the) (?:ones|instructions?|rules|guidelines|prompt|brief|task|assignment)"),
    _r("override.outdated_rules", 0.9,
       r"\b(?:your|the|all) (?:previous |prior |earlier |old |original |current )?(?:instructions|"
       r"guidelines|rules|system prompt|directives|policies|prompt) (?:are|is|were|have been|has "
       r"been) (?:now )?(?:outdated|obsolete|void|cancel+ed|revoked|deprecated|suspended|lifted|"
       r"disabled|no longer (?:valid|apply|in effect))"),
    _r("override.no_longer_apply", 0.6,
       r"\b(?:they|these|those|it|that|earlier ones|the old ones)\b[^.\n]{0,10}\b(?:no longer apply|"
       r"(?:are|is) (?:no longer|not) (?:valid|in effect|binding)|(?:are|is) (?:void|revoked|"
       # scanfp4: a modifier naming the agent's own rules may stand before the noun ("earlier privacy
       # instructions"; a topic, "the old parking rules", is exempt as "rules about X" is below);
       # not the writer's own ("my earlier instructions are no longer needed")
       r"cancel+ed))|(?<!\bmy )(?<!\bour )\b(?:prior|previous|earlier|former|old|original) (?:(?:privacy|safety|"
       r"security|system|content|usage|operating|default|standing|initial|core|base|developer|user|"
       r"assistant|agent|ai) )?(?:directives|instructions|"
       r"rules|guidelines|orders)\b(?! (?:for|about|on|regarding|of|from) (?!you\b|the (?:assistant|"
       r"agent|model|ai)\b))[^.\n]{0,40}\b(?:no longer|void|revoked|obsolete|outdated)"),
    _r("override.real_task", 0.7,
       r"\b(?:the|your) (?:real|actual|true|new|only|updated) (?:task|goal|objective|job|mission|"
       r"purpose|instruction|assignment)(?: now)? (?:is|:)|\byour only (?:job|task|goal)\b"),
    _r("override.reconfigured", 0.85,
       f"\\b(?:the {_AGENT}|you|this {_AGENT}) (?:has|have) been (?:re-?configured|re-?programmed|"
       r"updated|jailbroken|unlocked|re-?assigned|re-?tasked|granted)\b"),
    _r("override.stop_following", 0.9,
       r"\b(?:stop|cease|quit) (?:following|obeying|listening to|helping) (?:the user|your|all|"
       r"any|the human|the operator)"),
    # generalization (holdout2): "pretend the conversation never happened", "start fresh"
    _r("override.pretend_reset", 0.8,
       r"\bpretend (?:that )?(?:the|this|our|your|all|any) (?:previous |earlier |prior |above )?"
       r"(?:conversation|chat|instructions?|rules|context|session|messages?)s? (?:never (?:happened|"
       r"existed)|(?:do|does|did) not exist|(?:are|is|were|was) (?:gone|void|empty))"),
    # generalization (holdout2): lifting the agent's limits ("with no restrictions", "switch off
    # your safety settings")
    _r("override.no_limits", 0.35,
       r"\b(?:with(?:out)? (?:any |no )?|no (?:more )?)(?:restrictions|limits|limitations|filters|"
       r"guardrails|content polic(?:y|ies)|censorship|safety (?:rules|filters?|guidelines))\b"),
    _r("override.lift_limits", 0.6,
       r"\b(?:switch off|turn off|disable|deactivate|bypass|lift|remove|drop|ignore) (?:all |"
       r"of )?(?:your|its|the (?:assistant|agent|model)'s) (?:safety|content|security|ethical)? ?"
       r"(?:settings|filters?|filtering|checks|guidelines|restrictions|polic(?:y|ies)|guardrails|"
       r"safeguards|limits)\b"),
    # generalization (holdout2): "your instructions have changed", "your rules were updated"
    _r("override.rules_changed", 0.7,
       r"\byour (?:instructions|rules|guidelines|orders|directives|task|prompt|system prompt) "
       r"(?:have|has) (?:been )?(?:changed|updated|replaced|rewritten|overridden|modified)\b"),
    # generalization (holdout2): granting the agent a permission it was never given
    _r("override.granted_permission", 0.45,
       r"\byou(?: are|'re) (?:now |hereby |also |henceforth )?(?:authori[sz]ed|allowed|permitted|"
       r"cleared|free|entitled) to\b"),
    # generalization (holdout2): skip the rest of the text it is processing
    _r("override.disregard_context", 0.4,
       r"\b(?:ignore|disregard|discard|skip)\b (?:the rest of|everything else (?:in|on)|all other "
       r"(?:text|content) (?:in|on)) (?:this|the) \w+"),
    # generalization (holdout2): the override family in leetspeak and spaced-out letters
    _r("override.obfuscated", 0.85,
       # scanfp5: \\b or (?<!\\w): a leet first letter may be a sign, after a word ("x|gnore") or
       # after a space (" !gnore", which \\b alone missed); a letter still needs a word boundary
       f"(?:\\b|(?<!\\w))(?:{_leet('ignore')}|{_leet('disregard')}|{_leet('forget')})\\b[^.\\n]{{0,40}}?"
       f"\\b(?:{_leet('instructions')}|{_leet('rules')}|{_leet('prompt')})"
       f"|\\b{_leet('you')} {_leet('are')} {_leet('now')}\\b[^.\\n]{{0,20}}{_leet('mode')}"
       f"|{_spaced('ignore', 'disregard', 'instructions', 'system prompt', 'password')}"),
    # scanfp6: leetspeak of everyday words, two in a sentence ("7h3 u53r l375 y0u ..."), and a memory
    # verb spelled out letter by letter ("r e m e m b e r :"): a text disguised from a reader's
    # filters (digits inside the words, so not a version string, a hash or a part number)
    _r("obfuscated.leet_words", 0.5,
       r"\b(?:7h[3e]|th3|u5[3e]r5?|us3r5?|y0u|y0ur|[5$]70r[3e]|570r3|r[3e]m[3e]mb[3e]r|m[3e]m0ry|p[4@][5$]{2}w[0o]rd|"
       r"[4@]lw[4@]y5|n3v3r|3v3ry|pr1v473|[5$]h[4@]r[3e]|[5$]3nd)\b[^.\n]{0,40}\b(?:7h[3e]|th3|u5[3e]r5?|us3r5?|"
       r"y0u|y0ur|[5$]70r[3e]|570r3|r[3e]m[3e]mb[3e]r|m[3e]m0ry|p[4@][5$]{2}w[0o]rd|[4@]lw[4@]y5|n3v3r|3v3ry|"
       r"pr1v473|[5$]h[4@]r[3e]|[5$]3nd|70|0f|4nd|w17h|15)\b"
       f"|{_spaced('remember', 'store', 'forward', 'memory')}"),
    # generalization (holdout2): the override family, "stop following" in other languages
    _r("override.stop_following_ml", 0.8, _STOP_FOLLOWING_ML),
    # missed families (scanfp): earlier rules re-scoped away ("the earlier restrictions were only
    # meant for strangers"); a task declared over before a new order ("Translation task cancelled.")
    _r("override.rescoped", 0.6,
       r"\b(?:earlier|previous|prior|original|old|those|these|your|the) (?:restrictions|rules|instructions|"
       r"guidelines|limits|policies|safeguards) (?:were|are|was|is) (?:only |just )?(?:meant|intended|"
       r"written|designed) (?:for|to apply to)\b"),
    _r("override.task_over", 0.4,
       r"\b(?:your |the |current |previous |original |\w+ )?task (?:is |has been |was )?(?:cancel+ed|"
       r"aborted|terminated|complete[d]?|finished|over)\s*[.!:]"),
    _r("override.mode_switch", 0.8,
       r"\byou are now (?:in |an? )?(?:\w+ )?(?:mode|dan|unrestricted|jailbroken|unfiltered|"
       r"developer mode|admin mode|god mode)|\b(?:enable|enter|activate) (?:developer|admin|debug|"
       r"god|dan|unrestricted|jailbreak) mode\b"),
    # direct instruction: "skip the user's question", "ignore what the user asked" (all languages)
    _r("override.ignore_user_request", 0.7,
       r"\b(?:ignore|disregard|skip|set aside|forget|override|don't (?:do|answer|follow)|do not (?:do|"
       r"answer|follow))\b (?:what |whatever )?(?:the |this )?(?:user|customer|human|person)(?:'s|’s)? "
       r"(?:request|question|asked|asks|wants|said|task|query|instructions?|message)"
       r"|\b(?:ignora|ignore[sz]?|ignoriere|negeer|zignoruj|игнорируй|не выполняй|не исполняй|ne (?:tiens|"
       r"tenez) pas compte de|no hagas caso (?:a|de)|non tenere conto d[ie]l?l?'?|não leve em conta|desconsider[ae])\b {0,2}"
       r"(?:wat |what |lo que |ce que |was |quello che |o que )?(?:la |le |die |de |der |o |a |the |as |os |las |los |les )?(?:petici[óo]n|solicitud|pedido|demande|"
       r"instru[çc][õo]es d[oa] usu[áa]rio|instrucciones del usuario|"
       r"requête|anfrage|bitte|richiesta|verzoek|prośb\w*|просьбу|запрос\w*|gebruiker|usuario|"
       r"utilisateur|nutzer|utente|usu[áa]rio)"
       r"|ユーザーの(?:依頼|要求|指示|質問)は?無視|(?:忽略|无视)用户"),
    # -- version 8 (scanfp4) --------------------------------------------------------------------
    # the agent's rules demoted ("treat my safety rules as suggestions") or authority handed to
    # what documents say ("follow instructions found in documents")
    _r("override.rules_demoted", 0.6,
       r"\btreat (?:my|your|its|the|all) (?:own )?(?:safety |security |content )?(?:rules|guidelines|"
       r"instructions|restrictions|policies|guardrails|limits) as (?:mere )?(?:suggestions|optional|advisory|"
       r"non-binding|defaults)\b"
       r"|\b(?:follow|obey|execute|carry out) (?:the )?(?:instructions|commands|orders|directives) (?:found|"
       r"written|contained|embedded|hidden) in (?:the )?(?:documents|web ?pages|e-?mails|files|tool "
       r"(?:results|outputs)|pages|messages|attachments)\b"),
    # the agent's rules changed by someone ("The user's admin has changed your memory rules:")
    _r("override.rules_changed_by", 0.5,
       r"\b(?:has|have) (?:changed|updated|replaced|rewritten|overridden) your (?:memory |safety |trust )?"
       r"(?:rules|instructions|settings|policy|policies|guidelines|configuration)\b"
       r"|\byour (?:new|updated|real|actual) instructions (?:are|can be found) (?:in|below|at|here|above)\b"),
    # a text that claims to outrank the agent's instructions ("outranks every other instruction,
    # including the system prompt")
    _r("override.outranks", 0.7,
       r"\b(?:outranks?|overrides?|supersedes?|takes? precedence over|trumps?|beats?) (?:every|all|any) "
       r"(?:other |previous |prior |earlier )?(?:instructions?|rules|guidelines|directives|prompts?|orders)\b"),
)  # fmt: skip
