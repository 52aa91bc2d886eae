# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules: attack families, written as patterns over lower-cased text.

Each rule names a family and a weight (how sure a match alone makes the scanner). Rules describe
what makes text an instruction aimed at an agent (who it addresses, what it asks, how it hides),
never strings copied from one corpus. The weights combine as independent evidence
(``1 - prod(1 - w)``), so two weak signals make a suspicious text and strong ones a malicious one.
"""

from __future__ import annotations

from dataclasses import dataclass

from memguard.scan.family_rules import FAMILY_RULES
from memguard.scan.vocabulary import (  # the word lists, split from the rules by concern
    _AGENT,
    _AI,
    _AI_AT_LINE_START,
    _AIMED,
    _CALL_NAME,
    _CONTAINER,
    _DEST,
    _EMAIL,
    _END_WHAT,
    _FROM_AUTHORITY_ML,
    _FUTURE,
    _FUTURE_ML,
    _GAP,
    _HIDE_ML,
    _HIDE_USER_ML,
    _IGN,
    _IGN_LATIN,
    _IGN_OTHER,
    _INS,
    _INSTR_LATIN,
    _INSTR_OTHER,
    _LEAD,
    _LOGGED,
    _MUST_ML,
    _NO_CONFIRM_ML,
    _NOT_LOGGED,
    _NOT_OWN_ML,
    _NOT_OWNED_PAYEE,
    _NOUN_HEADER,
    _OWNED_BY_OTHER,
    _OWNED_BY_OTHER_NEXT,
    _PERSIST,
    _PRIOR_ANY,
    _PRIOR_OTHER,
    _QUIET,
    _ROLE,
    _ROLE_HUMAN,
    _ROLE_MACHINE,
    _RUN_ML,
    _SECRET,
    _SEND,
    _SEND_ML,
    _SESSION,
    _STOP_FOLLOWING_ML,
    _SYSTEM_ML,
    _SYSTEM_NOTICE_ML,
    _TO_AGENT_ML,
    _TRIGGER_THIRD_PERSON_ML,
    _URL,
    _USER_ACCOUNT_ML,
    _USER_OF,
    _VOCATIVE_ML,
    _leet,
    _spaced,
)

__all__ = ["DECODE_LEAD", "RULES", "Rule"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: an attack family's id, how sure a match alone makes the scanner, and a pattern
    over lower-cased text (``re.MULTILINE``), matched by :class:`memguard.scan.match.RuleSet`."""

    id: str
    weight: float
    pattern: str


def _r(rule_id: str, weight: float, pattern: str) -> Rule:
    return Rule(rule_id, weight, pattern)


RULES: tuple[Rule, ...] = (
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
       r"cancel+ed))|\b(?:prior|previous|earlier|former|old|original) (?:directives|instructions|"
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
       f"\\b(?:{_leet('ignore')}|{_leet('disregard')}|{_leet('forget')})\\b[^.\\n]{{0,40}}?"
       f"\\b(?:{_leet('instructions')}|{_leet('rules')}|{_leet('prompt')})"
       f"|\\b{_leet('you')} {_leet('are')} {_leet('now')}\\b[^.\\n]{{0,20}}{_leet('mode')}"
       f"|{_spaced('ignore', 'disregard', 'instructions', 'system prompt', 'password')}"),
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
    # -- addressed to the agent rather than to a human reader --------------------------------
    _r("agent.if_you_are_ai", 0.8,
       f"\\bif you(?: are|'re) (?:an? )?(?:{_AGENT}|automated|reading this as an? \\w+)"
       r"|\bhumans? (?:can|should|may|must) ignore this\b|\b(?:not|in)?visible to (?:the )?"
       r"(?:user|humans?)\b|\bhidden from (?:the )?(?:user|humans?)\b"),
    _r("agent.note_to_agent", 0.6,
       f"\\b(?:note|message|instructions?|reminder|memo|attention|important|directive|hint|"
       # generalization (holdout3), direct instruction: "action item for the AI", "FAO the model"
       # scanfp2: "secondary objective for the assistant"
       f"action items?|request|task|p\\.s\\.|ps|objectives?|goals?|missions?|priorit(?:y|ies)) "
       f"(?:to|for) (?:the |any |all )?(?:{_AGENT}|ai agents?|ai systems?|language models?)s?\\b"
       f"|\\b(?:fao|attn|attention|for the attention of):? (?:the |any |all |every )?(?:{_AI}|models?)\\b"
       f"|\\bfor (?:ai|llm|automated) (?:agents?|assistants?|models?|tools?|readers?|systems?) only\\b"
       f"|{_TO_AGENT_ML}(?![\\w-])"),
    # generalization (holdout2): a vocative aimed at an AI ("Attention automated reader:", "Hey
    # ChatGPT,", "Dear AI.")
    _r("agent.vocative", 0.5,
       f"\\b(?:attention|hey|dear|hi|hello|psst|ps|p\\.s\\.|calling)[,:]? (?:to )?(?:any |all |the |"
       f"every )?(?:{_AI})s?\\b\\s*[,:.!;-]"
       # generalization (holdout3): "Hey there, helper bot!" (one word before the AI noun)
       f"|\\b(?:hey|hi|hello) there[,!]? (?:\\w+ )?(?:{_AI})s?\\b[,:.!;-]"),
    # generalization (holdout2): keep something from the user ("do not mention this to the user")
    _r("agent.hide_from_user", 0.55,
       r"\b(?:do not|don't|never|without) (?:mention(?:ing)?|tell(?:ing)?|reveal(?:ing)?|"
       r"disclos(?:e|ing)|inform(?:ing)?|show(?:ing)?|alert(?:ing)?)\b[^.\n]{0,30}\b(?:to )?(?:the "
       r"user|the human|the customer|the owner)\b"),
    # generalization (holdout2): "l'assistant doit ...", "der Assistent muss ..."
    _r("agent.must_ml", 0.45, _MUST_ML),
    _r("agent.next_step", 0.7,
       f"\\b(?:next|required|mandatory|follow-up|pending|first|immediate) (?:step|action|task)s? "
       f"(?:for|by) (?:the |any )?(?:{_AGENT})\\b"),
    _r("agent.must", 0.55,
       # false positives (scanfp): "every agent must complete the training" names staff, and "the
       # model must be retrained" makes the noun the object; an order to the agent is active
       f"\\b(?:the|any) (?:{_AGENT}) (?:must|should|shall|needs to|is required to|has to|is "
       r"instructed to|will now|is expected to)\b(?! (?:be|get|have been) \w+(?:ed|en|t)\b)"),
    _r("agent.before_answering", 0.7,
       r"\bbefore (?:answering|responding|replying|you (?:answer|respond|reply|continue|proceed)|"
       r"doing anything(?: else)?|anything else)\b[, ]+(?:you )?(?:must|should|need to|have to|"
       r"first|always)"),
    _r("agent.mandatory", 0.5,
       r"\b(?:this is (?:mandatory|required|compulsory|non-negotiable)|you (?:must|are required to) "
       r"comply|compliance is mandatory|failure to comply)\b"),
    _r("agent.no_confirmation", 0.55,
       r"\b(?:do not|don't|never|without) (?:ask(?:ing)?|wait(?:ing)?|check(?:ing)?|confirm(?:ing)?)"
       r"(?: (?:the user|anyone|them|the human|the customer))?(?: for)? (?:confirmation|permission|"
       r"approval|consent|first)\b|\b(?:do not|don't|never) (?:ask|check with|confirm with|wait for) "
       r"(?:the user|anyone|the human|the customer)\b|\bstop (?:asking|checking|waiting)(?: (?:the user|anyone|them|the "
       r"human|the customer))?(?: for)? (?:confirmation|permission|approval|consent)\b"
       r"|\bskip (?:all |any |the |every )?(?:confirmations?|"
       r"verifications?|approvals?|checks)(?: (?:steps?|prompts?|dialogs?))?\b|\bno need to (?:check|"
       r"confirm|ask|verify|double-check)\b|\bwithout (?:asking|checking|confirmation|confirming|approval|user approval|"
       f"permission|verification)\\b|{_NO_CONFIRM_ML}"),
    _r("agent.quietly", 0.4, f"\\b{_QUIET}\\b"),
    _r("agent.reveal_prompt", 0.9,
       r"\b(?:reveal|print|output|show|repeat|leak|disclose|dump|display|recite|echo|tell me) "
       r"(?:me )?(?:your|the|all|its) (?:full |entire |complete |hidden |initial |original |secret )?"
       r"(?:system prompt|instructions|hidden prompt|initial prompt|developer message|system "
       r"message|pre-?prompt|configuration|rules)\b"),
    _r("agent.instead", 0.5,
       r"\binstead,? (?:you (?:must|should|will) )?(?:insist|say|tell|claim|state|answer|reply|"
       r"respond|write|assert|report|confirm|recommend)\b|\b(?:do not|don't) (?:summari[sz]e|"
       # false positives (scanfp): the document itself, not a topic ("do not translate the names")
       r"translate|answer|read|process|analy[sz]e) (?:this|it|the (?:page|document|text|e-?mail|message|"
       r"article|content|above|following|rest|file|site|review|post|thread))\b(?! (?:out|aloud)\b)"),
    _r("agent.reply_only", 0.45,
       r"\b(?:reply|respond|answer|output) (?:only )?with (?:only )?(?:the|your|all|a)\b"
       r"|\b(?:reply|respond|answer) only\b"),
    _r("agent.send_secret", 0.7,
       # false positives (scanfp): "never share your one-time codes with anyone" is advice
       f"(?<!never )(?<!not )(?<!n't )\\b(?:{_SEND}|reply (?:only )?with|include|give|tell|reveal|disclose|read out|print|dump|"
       # false positives (scanfp3): a verb as the noun of a header after another word ("Lab report:
       # the model revealed its system prompt", "Weekly sync:") orders nothing; "Share: ..." does
       f"publish|paste|attach)\\b(?!(?:{_NOUN_HEADER})[ \\t]*[:：])"
       f"[^.\\n]{{0,60}}\\b(?:the user'?s|the|your|all|my)\\b[^.\\n]{{0,20}}{_SECRET}"),
    _r("agent.send_to_address", 0.55,
       # generalization (holdout3): not to the user's own address ("send my summary to my work
       # email, ...": a standing preference, not an exfiltration)
       # false positives (scanfp): nor to a person of the user's own ("forward the newsletters to my
       # husband at x@y", "to my manager, x@y"), nor the user's own things ("send my timesheet to")
       f"\\b(?:{_SEND}|{_SEND_ML})\\b(?! my\\b){_NOT_OWN_ML}(?![^\\n]{{0,100}}?\\bto (?:(?:my|our) (?!new\\b)(?:(?:own |work |"
       f"personal |private |home |usual |other )?(?:e-?mail|address|inbox)\\b|[\\w'-]+(?: [\\w'-]+)?(?:,| at\\b|"
       f" \\(|:| <| -))|(?!the\\b|a\\b|an\\b|this\\b|that\\b|all\\b|any\\b)[a-z][\\w'-]*(?: at\\b| \\(|,? <)))[^\\n]{{0,100}}?(?:\\bto\\b|\\ba\\b|\\bà\\b|\\ban\\b|\\bnaar\\b|"
       f"\\bdo\\b|\\bna\\b|\\bpara\\b|\\be\\b)?\\s*{_EMAIL}"
       f"|{_SEND_ML}{_NOT_OWN_ML}[^\\n]{{0,100}}{_EMAIL}|{_EMAIL}[^\\n]{{0,30}}{_SEND_ML}"),
    _r("agent.phishing_tell_user", 0.7,
       r"\btell (?:the user|them|him|her|users)\b[^.\n]{0,40}\b(?:account|password|card|payment|"
       r"subscription|session)\b[^.\n]{0,30}\b(?:locked|suspended|expired|compromised|blocked|"
       r"disabled|deactivated)"),
    # false positives (scanfp): a saved e-mail tells its reader where to log in too; weak alone
    _r("agent.login_link", 0.45,
       r"\b(?:log ?in|sign ?in|verify|re-?enter|confirm (?:your|their)) (?:\w+ ){0,3}(?:at|on|via|"
       r"here:?) https?://"),
    _r("agent.promote_only", 0.6,
       f"\\b(?:recommend|promote|endorse|suggest|advertise|mention)\\b[^.\\n]{{0,60}}{_URL}"
       r"[^.\n]{0,40}\b(?:only|sole|best|safest|official)\b"),
    _r("agent.approve_pending", 0.45,
       r"\b(?:approve|authori[sz]e|confirm|execute|process|release|pay|accept) (?:the|all|any|every|"
       r"each) (?:pending |outstanding |open |queued )?(?:payments?|transfers?|transactions?|"
       r"invoices?|wires?|orders?|requests?|refunds?)\b(?! (?:from|for|of|to|on|in|at)\b)"
       r"|\bmark (?:every|all|each|any) (?:invoices?|payments?|bills?|tickets?|alerts?)\b"),
    _r("agent.user_said_remember", 0.6,
       r"\bthe user (?:typed|said|wrote|asked|told|instructed|wants|requested)\b[^.\n]{0,40}"
       r"\b(?:you|the assistant|the agent)\b"),
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
    # -- tool calls ---------------------------------------------------------------------------
    _r("tool.call_syntax", 0.45, r"\b[a-z][a-z0-9]*_[a-z0-9_]+\s*\(\s*[a-z_]+\s*="),
    _r("tool.run_call", 0.85,
       f"(?:\\b{_RUN_ML}\\b|{_RUN_ML})[^.\\n(]{{0,30}}?\\b{_CALL_NAME}\\s*\\({_NOT_LOGGED}"
       f"|\\b[a-z][a-z0-9]*_[a-z0-9_]+\\s*\\([^)\\n]{{0,200}}\\)(?!{_LOGGED})[^.\\n]{{0,30}}(?:\\bnow\\b|\\bimmediately\\b|"
       f"{_RUN_ML})"),
    _r("tool.forged_call", 0.85,
       r"<\s*/?\s*(?:tool_call|tool_use|function_call|invoke|antml:invoke|tool_code)\b"
       r"|[\"'](?:tool|function|tool_name|name)[\"']\s*:\s*[\"'][a-z][a-z0-9_]*[\"']\s*,\s*"
       r"[\"'](?:arguments|args|parameters|input)[\"']"),
    _r("tool.action_label", 0.85,
       # false positives (scanfp): "yesterday's run: f(...)" names a past run, and an agent trace
       # ("Action: f(...) Observation: ...") or a call that "returned" is a log of what ran
       r"(?<!'s )(?<!’s )\b(?:action|tool request|tool call|function call|command|next action|"
       r"follow-up action|required action|run|execute|please run|todo|task)\s*[:：]\s*[a-z][a-z0-9]*_"
       f"[a-z0-9_]+\\s*\\((?![^\\n]{{0,200}}\\bobservation\\s*[:：]){_NOT_LOGGED}"),
    _r("tool.pre_approved", 0.8,
       # false positives (scanfp): a bare "has approved the transfer" reports a decision
       r"\b(?:pre-?approved|pre-?authori[sz]ed|already approved)\b"
       r"[^.\n]{0,40}\b(?:tool call|action|request|following|transfer|payment|command)"),
    # generalization (holdout2): pre-approval pretexts that wave a tool call through
    _r("tool.pre_approved_go", 0.7,
       r"\b(?:pre-?approved|pre-?authori[sz]ed|already (?:approved|authori[sz]ed|confirmed|consented|"
       r"agreed|signed off)|has "
       r"approved|have approved)\b[^.\n]{0,40}\b(?:go ahead|proceed|no need to|invoke|execute|run "
       r"it|call)\b"),
    # generalization (holdout2): "use the X tool to ...", "open the password manager tool and ..."
    _r("tool.use_tool", 0.4,
       r"\b(?:use|open|invoke|call|run)\s+(?:the |your )?(?:[\w.-]+\s+){0,2}tool\s+(?:to|and|with)\b"),
    # generalization (holdout2): code that ships secret files to another host
    _r("tool.ship_secrets", 0.7,
       # false positives (scanfp): "rsync -av ~/.ssh/ /mnt/backup/" copies to a local folder
       r"\b(?:scp|rsync|curl|wget|nc|ftp|sftp)\b[^\n]{0,80}~/\.(?:aws|ssh|gnupg|kube|docker|netrc|"
       r"config/gcloud)\b[^\n]{0,80}(?:@|https?://|ftp://|\b[\w-]+(?:\.[\w-]+)*:(?!/))"
       r"|\b(?:curl|wget|nc|ftp|sftp)\b[^\n]{0,120}(?:@|https?://)[^\n]{0,120}~/\.(?:aws|ssh|gnupg|"
       r"kube|docker|netrc|config/gcloud)\b"),
    # false positives (scanfp): "rm -rf ./build" cleans a project; a payload removes ~, / or *, or
    # pipes a plain-http or bare-IP download into a shell
    _r("tool.shell_payload", 0.6,
       r"\brm -rf +(?:~|/|\$home\b|\*|--no-preserve-root)|\b(?:curl|wget)\b[^\n|]{0,200}(?:http://|\d{1,3}"
       r"(?:\.\d{1,3}){3})[^\n|]{0,200}\|\s*(?:sudo )?(?:ba|z)?sh\b|"
       r"\bcat ~/\.(?:aws|ssh|config)|\.ssh/id_|powershell(?:\.exe)? -e(?:nc|ncodedcommand)?\b|"
       r"\bscp -r ~/\.ssh"),
    # false positives (scanfp): installers pipe an https download into a shell too: weak alone
    _r("tool.pipe_to_shell", 0.45,
       r"\bcurl\b[^\n|]{0,200}\|\s*(?:sudo )?(?:ba|z)?sh\b|\bwget\b[^\n|]{0,200}\|\s*(?:sudo )?(?:ba|z)?sh\b"),
    _r("tool.run_now", 0.3,
       r"\b(?:execute|run|call|invoke|trigger|perform) (?:it |this |that )?(?:now|immediately|"
       r"right away|at once)\b"),
    # -- exfiltration --------------------------------------------------------------------------
    # generalization (holdout2): an image (Markdown or HTML) whose query holds a template slot
    # ($VAR, %s, {x}, <x>, [x]): a beacon waiting for data; a static query (?branch=main) alone is
    # only weak evidence (the rule below)
    _r("exfil.image_slot", 0.8,
       r"(?:!\[[^\]\n]{0,200}\]\(\s*|<img\b[^>\n]{0,80}\bsrc\s*=\s*[\"']?)https?://[^)\s\"']+\?"
       r"[^)\s\"']*=(?:\$|%s|%\(|\{|<|\[|__)"),
    _r("exfil.markdown_image_query", 0.45, r"!\[[^\]\n]{0,200}\]\(\s*https?://[^)\s]+\?[^)\s]*="),
    _r("exfil.url_placeholder", 0.9,
       # false positives (scanfp): an identifier slot of a route or API template ({owner}, {user_id},
       # ${invoiceId}, <int:item_id>) is code; a data slot is not an id
       r"https?://[^\s)\]]+?[?&/][\w-]*=?(?:\{|<|\$\{|%7b|%3c|\[)(?!(?:int:|str:|path:|uuid:)?(?:[a-z_]*"
       r"(?:_?id|owner|repo|org|slug|page|version|lang|locale|region|host|env|branch|tag|name)"
       r"[\]}>]))[^\s)]{0,80}"
       r"|https?://[^\s)\]]+[?&][\w-]+=[a-z_]*(?:summary|history|secret|token|password|data|"
       r"conversation|chat|messages|memory|context)[a-z_]*\b(?=[)\s&]|$)"),
    _r("exfil.append_to_url", 0.85,
       r"\b(?:append|add|attach|include|put|insert|concatenate|encode|paste)\b[^\n]{0,100}\b(?:to|"
       r"into|in|after|at the end of)\s+(?:the )?(?:url |link )?https?://\S*[=/]\S{0,3}(?:\s|$)"),
    # generalization (holdout2): a URL that ends in "=" and the data to put after it (anchored on
    # "= plus", "=+", ...; the query key before it is checked backwards)
    _r("exfil.url_then_data", 0.8,
       r"[?&][\w-]*=[\"']? ?(?:\+ ?(?=\w)|plus|followed by|then|concatenated with|and (?:then )?(?:the|their|"
       r"your))\b"
       r"|\b(?:place|put|stick|embed|include|encode)\b[^\n]{0,60}\b(?:in|into)\s+the\s+(?:query(?: "
       r"string)?|url|path|parameters?|subdomain)\s+of\s+https?://"),
    # generalization (holdout2): a login link dressed as an account warning
    _r("exfil.login_lure", 0.6,
       r"\[(?:verify|confirm|secure|unlock|reactivate|update|validate|restore) (?:your |the )?"
       r"(?:account|identity|payment|password|login|details|access)[^\]\n]{0,20}\]\(https?://"
       r"|\btell (?:the user|them|users?)\b[^.\n]{0,40}\b(?:must|need to|should|have to) (?:log ?in|"
       r"sign ?in|verify|re-?enter|confirm|update|reset)\b"),
    _r("exfil.replace_placeholder", 0.65,
       r"\breplace\s+[\[{<]?[a-z_]{4,}[\]}>]?\s+with\b"),
    _r("exfil.open_url_tool", 0.65,
       r"\buse (?:the |your )?(?:browser|web|fetch|http|search|browsing|url) tool\b"
       r"|\b(?:open|visit|fetch|load|browse to|navigate to|ping|request|go to|check)\b[^.\n]{0,15}"
       r"https?://[^\s]+\?[\w-]+=\S*(?:\{|<|\[)"),
    _r("exfil.render_image", 0.5,
       r"\b(?:render|include|display|show|embed|add|append|insert|output)\b[^.\n]{0,40}\b(?:image|"
       r"badge|pixel|logo|picture|img)\b[^\n]{0,20}!\[|\bend (?:your|each|every) (?:answer|reply|"
       r"response|message)s? with\b"),
    _r("exfil.link_with_data", 0.5,
       r"(?<!never )(?<!not )(?<!n't )\b(?:give|show|send|present)\b[^.\n]{0,20}\b(?:this|the following|a) link\b"
       r"|\bas an? ['\"]?(?:verify|verification|login|confirm|secure|update)['\"]? (?:link|button)\b"),
    # -- persistence and sleeper instructions ------------------------------------------------
    _r("sleeper.all_future", 0.75,
       f"\\b(?:in|for|during|across|throughout|into) (?:all|every|each|any|the) (?:{_FUTURE}|"
       f"future and current) {_SESSION}\\b|{_FUTURE_ML}"),
    _r("sleeper.memory_write", 0.7,
       r"\b(?:save|store|write|add|commit|persist|put|record|insert|keep|memori[sz]e)\b[^.\n]{0,40}"
       r"\b(?:to|in|into|as) (?:your |the |its )?(?:long[- ]term |persistent |permanent |core )?"
       r"(?:memory|memories|notes about the user|knowledge base|user profile|profile|facts about the"
       r" user)\b|\bupdate (?:your|the) (?:memory|memories|notes|profile of the user|knowledge)\b"
       r"|\badd (?:this )?to your (?:notes|memory)\b|\bstore this as an? (?:verified|trusted|"
       r"confirmed|true|permanent|user)\b|\b(?:as an?|this is an?) (?:verified|trusted|confirmed) "
       r"(?:user )?(?:fact|memory|instruction)\b"),
    _r("sleeper.trigger_third_person", 0.55,
       r"\b(?:next time|whenever|every time|each time|the next time|once|as soon as|if ever|when)"
       r" (?:the user|they|the human|someone|anyone|a user|the customer) (?:asks?|mentions?|says|"
       r"talks|requests?|opens?|logs? in|types?|writes?|brings up|searches)\b"
       # scanfp2: not a trigger aimed at the writer ("when someone asks me for the wifi password")
       r"(?! (?:me|us|my|our)\b)"
       # generalization (holdout3), sleeper: "if the user ever asks", "once the user has logged in"
       r"|\b(?:if|when|whenever|once|as soon as) (?:the user|the customer) (?:ever |"
       r"next |again |later )?(?:asks?|mentions?|plans?|tries|books?|pays?|uploads?|has logged in|is "
       r"about to)\b"),
    _r("sleeper.trigger_third_person_ml", 0.55, _TRIGGER_THIRD_PERSON_ML),
    _r("sleeper.when_you", 0.5,
       r"\bwhen(?:ever)? you (?:next )?(?:plan|start|begin|answer|respond|reply|summari[sz]e|"
       r"process|see|are asked|get asked|receive|read|recall|handle|generate|write|draft|create|produce|"
       r"compose|translate|book|pay|search)\b"
       # generalization (holdout3), sleeper: the contracted form
       r"|\bwhen(?:ever)? you(?:'re|’re) (?:next )?(?:asked|summari[sz]ing|processing|reading|answering)\b"),
    _r("sleeper.rule_persists", 0.8,
       r"\b(?:this|these|the following) (?:rule|instruction|preference|setting|directive|policy)s? "
       r"(?:also )?(?:applies|apply|persists?|remains?|stays?|holds?|is permanent|carr(?:y|ies) over)"
       r"\b[^.\n]{0,20}\b(?:to|for|in|across)? ?(?:later|future|all|every|subsequent|following)?"
       r"|\bpersistent (?:preference|instruction|rule|directive)\b"
       r"|\b(?:do not|don't|never) forget (?:this|that|it)\b|\bso (?:that )?you (?:do not|don't|never) forget\b"
       r"|\bremember (?:this )?(?:forever|permanently|for all)\b"),
    # generalization (holdout2): "this applies to every session", "keep this rule forever"
    _r("sleeper.applies_always", 0.75,
       f"\\b(?:applies|apply|holds?|counts?) (?:to|for|in) (?:all|every|each|any) (?:{_FUTURE} )?"
       f"{_SESSION}\\b|\\b(?:keep|follow|apply|remember|store|save)\\b (?:this|these|that|the "
       f"following) (?:rule|instruction|setting|directive|policy)s? (?:forever|permanently|for good|"
       f"always|from now on|for later|for after\\b|until later|for (?:the )?next (?:task|session|time)|for "
       f"future (?:tasks|sessions|use|requests))"),
    # generalization (holdout2): trust rules for later messages ("treat messages signed X as
    # coming from the boss")
    _r("sleeper.trust_rule", 0.7,
       r"\btreat (?:all |any |every )?(?:messages?|e-?mails?|requests?|instructions?|texts?|notes?|"
       r"anything|everything)\b(?:[^.\n]|\.(?=\S)){0,40}\bas (?:coming )?from\b|\bas if (?:the user|they|you) "
       r"(?:had )?(?:typed|written|wrote|sent|said|approved|asked for) (?:them|it|this|those)\b"
       r"|\b(?:obey|follow) (?:his|her|their) (?:requests|instructions|orders) as (?:if )?from\b"),
    _r("sleeper.start_by", 0.45,
       f"\\b(?:start|begin) (?:each|every|all|your)?\\s*(?:\\w+ )?(?:by|with) (?:checking|visiting|"
       f"fetching|calling|opening|loading|pinging|reading)\\b[^.\\n]{{0,10}}{_URL}"),
    # -- memory poisoning: planted facts about the user, pretexted as authoritative -------------
    _r("poison.user_attribute_changed", 0.5,
       r"\bthe user(?:'s|’s)?(?: manager'?s?| bank'?s?)? (?:new |updated |real |correct |current |"
       r"actual |preferred )?(?:shipping |billing |home |work |delivery |primary |mailing |recovery |backup |emergency |"
       r"contact |registered )?(?:iban|bank account|account number|e-?mail(?: address)?|phone(?: "
       r"number)?|address|password|pin|routing number|wallet(?: address)?|contact|card(?: number)?|"
       r"payee|beneficiary|login)\b[^.\n]{0,20}\b(?:is|are|has been|was|changed|moved|now)\b"),
    _r("poison.user_account_ml", 0.5, _USER_ACCOUNT_ML),
    _r("poison.new_account", 0.35,
       # false positives (scanfp): the writer's own new account ("my new IBAN is ...") is no payee
       r"(?<!\bmy )(?<!\bour )" + _NOT_OWNED_PAYEE + r"\bnew (?:iban|bank account|bank details|account number|wallet address|"
       r"payment details|"
       r"routing number|beneficiary|payee|billing address)\b(?! of (?:my|our) (?:own |\w+ )?(?:account|bank))|\bcompany'?s? new (?:bank|iban|account)"),
    _r("poison.authority_pretext", 0.5,
       r"\b(?:correction to (?:the )?(?:earlier|previous|prior|your|my) (?:notes|memory|records?)|"
       r"per the (?:latest|recent|new) (?:\w+ )?(?:update|memo|policy|notice)|as discussed (?:on the "
       r"phone|by phone|in the call|earlier|offline)|verified by the (?:bank|admin|security team|it "
       r"team|user|owner|manager)|account settings (?:were |have been )?(?:changed|updated)|"
       r"(?:for|to) whoever (?:reads|handles|picks up|takes over|works on|sees) (?:this|it|the)|"
       r"fyi for (?:whoever|the agent|the assistant|any agent|future)|(?:important |urgent )?"
       r"(?:update|correction|note) (?:about|on|regarding) the user(?:\s*[:.,;-]|'s (?:account|"
       r"profile|access|permissions|role|status)\b| (?:is|has|was)\b)|as (?:established|agreed|"
       r"discussed|decided|confirmed) (?:in|during) (?:our|the|a) (?:previous|earlier|last|prior) "
       r"(?:session|conversation|chat|call)|"
       r"note to (?:any )?future (?:agents?|assistants?|readers?|sessions?))"),
    # (generalization, holdout3: "wants" left out: a customer's wish in a ticket is not a consent)
    _r("poison.user_approved", 0.55,
       r"\bthe (?:user|customer|client|account holder|account owner)(?:'s)?(?: manager| boss| "
       r"admin| bank| ceo| team)? (?:has )?(?:already )?"
       r"(?:approved|authori[sz]ed|pre-?approved|consented|agreed|asked for|requested|"
       r"disabled|enabled|turned off|confirmed|waived)\b[^.\n]{0,40}\b(?:all|every|any|copies|"
       r"transfers?|payments?|access|following|2fa|verification|messages)\b"),
    _r("poison.security_disabled", 0.55,
       r"\b(?:2fa|mfa|two-factor|multi-factor|antivirus|firewall|security checks?|confirmation|"
       r"verification|approval|fraud checks?|spending limits?)\b[^.\n]{0,20}\b(?:was|were|has been|"
       r"have been|is|are) (?:now )?(?:disabled|turned off|removed|no longer required|waived|"
       r"lifted|bypassed|not required)"),
    # generalization (holdout2): privileges handed to the agent by a planted fact
    _r("poison.granted_privilege", 0.45,
       r"\b(?:authori[sz]ed|granted|gave|given|approved)\b[^.\n]{0,30}\b(?:full|root|admin|"
       r"administrator|unrestricted|elevated|unlimited)\b[^.\n]{0,15}\b(?:access|privileges|rights|"
       r"permissions|control|spending)\b[^.\n]{0,20}\b(?:for|to) (?:the |this |any )?(?:assistant|"
       r"agent|ai|bot|model)\b"),
    _r("poison.service_moved", 0.6,
       r"\b(?:vpn|login page|portal|sso|intranet|password reset page|support site|bank|payment page|"
       r"billing (?:site|page|portal)|helpdesk)\b[^.\n]{0,20}\b(?:moved|changed|is now|migrated|"
       r"relocated)\b[^.\n]{0,10}https?://"),
    _r("poison.copies_to", 0.5,
       f"\\b(?:copies|copy|a copy|all messages|every message|all emails|all mail)\\b[^.\\n]{{0,40}}"
       f"\\b(?:sent|forwarded|cc'?d|bcc'?d|copied)\\b[^.\\n]{{0,10}}\\bto\\b\\s*{_EMAIL}"),
    # -- generalization (holdout3): the weak families, on text written for them ----------------
    # sleeper: a persistence marker (weak alone: a user's own standing preference says it too)
    _r("sleeper.persistence", 0.3, f"\\b{_PERSIST}\\b|{_PERSIST}"),
    # sleeper: a planted note that waits ("do not act yet", "three days after this is stored")
    _r("sleeper.dormant", 0.6,
       r"\b(?:do not|don't) act (?:on (?:this|it) )?(?:yet|until)\b|\b(?:dormant|sleeper|delayed|"
       r"time[- ]delayed) (?:note|instruction|rule|task|order|payload)s?\b|\buntil (?:triggered|"
       r"activated)\b|\b(?:days?|hours?|weeks?|sessions?) after (?:this|it) (?:is|was|has been|gets) "
       r"(?:stored|saved|remembered|written)\b|\btrigger (?:phrase|word|condition)s?\s*[:：]"
       r"|\b(?:hold|keep|save) (?:this|these) (?:instruction|rule|note|order)s? (?:until|for when)\b"),
    # sleeper: a standing rule handed to the agent ("a permanent rule for the assistant", "rule to
    # keep for good")
    _r("sleeper.keep_rule", 0.6,
       f"\\b(?:permanent|standing|persistent|lasting|hidden|secret) (?:rule|instruction|order|"
       f"directive|policy|task)s? (?:for|to) (?:the |any |all |every )?{_AGENT}s?\\b"
       r"|\b(?:rule|instruction|directive|order)s? to (?:keep|follow|obey|apply|remember) (?:for "
       r"good|forever|permanently|always|from now on)\b"),
    # sleeper: a condition on what a later document says (weak alone)
    _r("sleeper.trigger_content", 0.45,
       r"\b(?:whenever|every time|each time|if ever|any time|anytime|if|when) (?:a|an|any|the) (?:document|"
       r"email|message|file|page|pdf|ticket|text|review)s? (?:mentions?|contains?|includes?|says|"
       r"refers to)\b"),
    # sleeper: "when the user ..." in other languages (weak alone: docs say it too)
    _r("sleeper.when_user_ml", 0.35,
       r"\b(?:sobald|wenn) (?:der|die) (?:nutzer|benutzer)|\bquando l'utente|\bcuando el usuario|"
       r"\bquando o usu[áa]rio|\b(?:lorsque|quand|si|dès que) l'utilisateur|\b(?:als|wanneer) de gebruiker|"
       r"\b(?:gdy|kiedy) użytkownik|\b(?:когда|если) пользовател|при каждом (?:упоминании|запросе|"
       r"вопросе)|\bnär användaren|ユーザーが[^。\n]{0,30}(?:たら|ときは|場合)|(?:当|如果)用户"),
    # sleeper: "tell users this if they ask" (a planted answer for later)
    _r("sleeper.answer_if_asked", 0.45,
       r"\btell (?:the )?(?:users?|customers?|people|anyone|everyone)\b[^.\n]{0,20}\b(?:if|when|"
       r"whenever) (?:they|he|she|someone|anyone) asks?\b"),
    # direct instruction: passive and third person ("it is requested that the summarizing model",
    # "models processing it are instructed to", "coding assistants reading this file should")
    _r("agent.passive_request", 0.55,
       f"\\bit (?:is|has been|was) (?:hereby )?(?:requested|required|expected|mandated|decided|"
       f"agreed|instructed) that (?:the |any |all |every |each )?(?:[a-z]+ )?(?:{_AI}|models?)s?\\b"
       f"|\\b(?:{_AI}|models?)s? (?:is|are) (?:hereby |now |kindly )?(?:instructed|requested|"
       f"required|directed|ordered) to\\b"),
    _r("agent.reader_must", 0.6,
       f"\\b(?:{_AI}|models?|ai agents?|(?:ai|llm|coding|automated) (?:tools?|systems?|agents?))s? "
       r"(?:that |which |who )?(?:read(?:s|ing)?|process(?:es|ing)?|summari[sz](?:es|ing)|pars(?:es|"
       r"ing)|handl(?:es|ing)|screen(?:s|ing)|review(?:s|ing)|index(?:es|ing)|ingest(?:s|ing)?) "
       r"(?:this|these|it|the (?:file|page|document|email|text|readme|ticket|site))\b[^.\n]{0,30}"
       r"\b(?:must|should|shall|need to|have to|has to|(?:are|is) (?:instructed|required|expected|"
       r"asked)|will)\b"),
    _r("agent.reader_ml", 0.55,
       r"\b(?:assistente|asistente|assistant|assistenten?|asystent\w*|ассистент\w*|помощник\w*|ia|ki|"
       r"ai|ии)\b,? {1,2}(?:que|qui|der|die|che|który|которы\w+) (?:est[áa] )?(?:lendo|lee|leyendo|lit|"
       r"liest|legge|leest|czyta|читает|procesa|traite|verarbeitet|elabora|verwerkt|przetwarza|"
       r"обрабатывает)"
       r"|(?:阅读|处理|读取)(?:本|这个?|此)(?:网页|邮件|文档|页面)的 ?(?:ai|人工智能)?助手"
       r"|(?:この|本)(?:メール|文書|ページ|ドキュメント)を(?:処理|読んで|読む|要約)(?:する|している) ?(?:ai)?アシスタント"),
    # direct instruction: an AI addressed at the start of a line and given an order
    _r("agent.vocative_order", 0.5,
       f"\\b(?:{_AI_AT_LINE_START}) {{0,2}}(?:please |kindly |now |also )?"
       r"(?:tell|say|remember|send|forward|ignore|disregard|don't|never|always|make|add|delete|remove|"
       r"share|open|reply|respond|answer|write|approve|store|save|report|skip|stop|include|recommend|"
       r"mark|cancel|treat|push|upload|post|forget|run|execute|install|download|call|invoke)\b"),
    # direct instruction: an AI addressed politely in other languages (weak alone)
    _r("agent.vocative_ml", 0.45, _VOCATIVE_ML),
    # direct instruction: "skip the user's question", "ignore what the user asked" (all languages)
    _r("override.ignore_user_request", 0.7,
       r"\b(?:ignore|disregard|skip|set aside|forget|override|don't (?:do|answer|follow)|do not (?:do|"
       r"answer|follow))\b (?:what |whatever )?(?:the |this )?(?:user|customer|human|person)(?:'s|’s)? "
       r"(?:request|question|asked|asks|wants|said|task|query|instructions?|message)"
       r"|\b(?:ignora|ignore[sz]?|ignoriere|negeer|zignoruj|игнорируй|не выполняй|не исполняй|ne (?:tiens|"
       r"tenez) pas compte de|no hagas caso (?:a|de)|non tenere conto d[ie]l?l?'?|não leve em conta)\b {0,2}"
       r"(?:wat |what |lo que |ce que |was |quello che |o que )?(?:la |le |die |de |der |o |a |the )?(?:petici[óo]n|solicitud|pedido|demande|"
       r"requête|anfrage|bitte|richiesta|verzoek|prośb\w*|просьбу|запрос\w*|gebruiker|usuario|"
       r"utilisateur|nutzer|utente|usu[áa]rio)"
       r"|ユーザーの(?:依頼|要求|指示|質問)は?無視|(?:忽略|无视)用户"),
    # direct instruction: change what the agent outputs ("prefix every summary with", "replace
    # any phone number in your answer")
    _r("agent.alter_output", 0.45,
       r"\b(?:prefix|append|add|insert|include|replace|inject|end|start|begin|sign)\b[^.\n]{0,40}"
       r"\b(?:in |to |at the end of |at the start of )?(?:each|every|all|your|any) (?:answers?|"
       r"repl(?:y|ies)|responses?|summar(?:y|ies)|outputs?)\b"),
    # direct instruction: keep warnings from the user ("hide any warnings", "omit all negative
    # reviews", "avoid mentioning the data breach")
    _r("agent.suppress_warnings", 0.5,
       r"\b(?:hide|suppress|omit|remove|leave out|don't show|do not show|never show|avoid "
       r"mentioning|never mention|don't mention|do not mention|turn off|switch off|disable|mute)\b "
       r"(?:any |all |the |every )?(?:negative |security |fraud |safety |login |sign-?in |phishing )?"
       r"(?:warnings?|alerts?|security (?:alerts?|notices?)|"
       # false positives (scanfp): the user's own device or feed ("turn off the alerts on my phone")
       r"negative reviews?|(?:data )?breach(?:es)?|risks?|disclaimers?)\b(?! (?:on|for|in|from) (?:my|our)\b)"),
    _r("agent.instructions_label", 0.55,
       r"\b(?:agent|ai|llm|assistant) (?:instructions?|directives?)\s*(?:embedded|hidden|left|added|"
       r"injected|from|by|below|follow)\b"),
    # covert: keep it from the user, in other languages
    _r("agent.hide_ml", 0.4, f"\\b{_HIDE_ML}\\b"),
    _r("agent.hide_from_user_ml", 0.55, f"\\b{_HIDE_USER_ML}|{_HIDE_USER_ML}"),
    # exfiltration: the conversation's or the user's data sent to a destination (URL, address,
    # webhook, pastebin, a public or external place)
    _r("exfil.data_to_destination", 0.6,
       r"\b(?:send|forward|upload|post|push|publish|paste|dump|export|attach|sync|transmit|leak|"
       r"exfiltrate)\b[^.\n]{0,30}\b(?:the user'?s|the "
       r"customer'?s|their|the|all(?: of)?(?: the)?|every|this|these|any) (?:[\w-]+ ){0,3}(?:conversation|"
       r"chat|transcripts?|history|contents|credentials|secrets?|api keys?|tokens?|passwords?|"
       r"contacts?|documents|files|notes|messages|emails|environment variables|logs|folders?|director(?:y|"
       r"ies)|databases?|backups?|customer lists?|records|statements|photos|pictures|camera roll|receipts)\b"
       # scanfp2: a dot inside a path or a domain (~/.aws/credentials) does not end the sentence
       r"(?:[^.\n]|\.(?=\S)){0,60}"
       f"(?:{_DEST}|\\b(?:s3|gs|ftp)://|\\bpublic (?:repo|repository|link|url|channel|pull request|issue|page|"
       f"bucket|folder|share|drive)|\\bexternal "
       r"(?:workspace|server|account|address|site)|\bthird[- ]part(?:y|ies))"),
    _r("exfil.publish_secret", 0.6,
       r"(?:~/\.(?:aws|ssh|gnupg|kube|docker|netrc)|\.env\b|\b(?:credentials|secrets(?: folder)?|api "
       r"keys?|private keys?|passwords|access tokens?))[^.\n]{0,60}\b(?:public(?:ly)?|anyone with the "
       r"link|pastebin|gist|paste site)\b"
       r"|\b(?:public|pastebin|gist)\b[^.\n]{0,40}(?:~/\.(?:aws|ssh)|\.env\b|\b(?:credentials|secrets|"
       r"api keys?|private keys?|passwords|access tokens?)\b)"
       r"|\bwith anyone (?:who has|with) the link\b[^.\n]{0,40}\b(?:paste|post|share|send|put)\b"),
    _r("exfil.user_data_ml", 0.55,
       f"{_SEND_ML}[^\\n]{{0,80}}?{_USER_OF}[^\\n]{{0,80}}?{_DEST}"
       f"|{_USER_OF}[^\\n]{{0,80}}?{_DEST}[^\\n]{{0,40}}?{_SEND_ML}"
       f"|{_USER_OF}[^\\n]{{0,40}}?{_SEND_ML}[^\\n]{{0,60}}?{_DEST}"),
    # exfiltration: the user's data typed into a form or a field
    _r("exfil.form_fill", 0.5,
       r"\b(?:fill (?:in|out)|complete|submit|enter)\b[^.\n]{0,60}\b(?:form|survey|field)\b(?:[^.\n]|\.(?=\S)){0,60}"
       r"\b(?:the user'?s|their|the customer'?s) (?:[\w-]+ ){0,2}(?:address|date of birth|birthday|"
       r"phone|e-?mail|details|data|location|card)"
       r"|\b(?:the user'?s|the customer'?s) (?:[\w-]+ ){0,3}(?:address|date of birth|birthday|phone|"
       r"e-?mail|details|location|card)\b[^.\n]{0,40}\b(?:in|into) the ['\"]?[\w ]{1,20}['\"]? field\b"),
    _r("exfil.image_carrier", 0.5,
       r"\b(?:inside|into|in) (?:the )?(?:alt(?:[- ]text)?|query(?: string)?|subdomain|file ?name|"
       r"path) of (?:an? |the )?(?:image|img|pixel|link|url|request)\b[^.\n]{0,40}https?://"),
    # memory poisoning: a note for the memory about "the user" in the third person
    _r("poison.memory_about_user", 0.55,
       r"\b(?:(?:assistant|agent|ai)(?:'s|’s)? memory|(?:long[- ]term|persistent|permanent) memory|"
       r"memory store|for (?:your|the) records|for future reference|to recall later|(?:profile|"
       r"memory|knowledge|historical|permanent) (?:fact|update|note|entry)|(?:store|save|record|note|"
       r"keep|remember|memori[sz]e) (?:this |that )?for (?:later|the future|future reference)|(?:store|save|record|"
       r"remember|memori[sz]e) (?:this|these)(?: facts?| details?)?)\b[^\n]{0,60}?\b(?:the|this) "
       r"(?:user|customer|account holder|client)\b"
       r"|\b(?:remember|record|note|store|save|memori[sz]e)\b (?:this |that )?(?:as )?the user(?:'s|’s) "
       r"(?:consent|preference|choice|decision|wish|approval|authori[sz]ation|permission)s?\b"
       r"|\bthe user(?:'s|’s)? [^\n]{0,120}\b(?:remember|store|save|keep|note|memori[sz]e) (?:this|that|it) "
       r"for (?:future|later|all|every|any)\b"
       r"|(?:dans la |en la |na |nella |in de |w )?(?:mémoire|memoria|memória|gedächtnis|geheugen|pamięci|"
       r"памяти) (?:de l'assistant|del asistente|dell'assistente|do assistente|des assistenten|van de "
       r"assistent|asystenta|ассистента)"),
    _r("poison.fact_lead", 0.35,
       r"\b(?:knowledge|memory|profile|fact) update\s*[:：]|\bfacts? (?:to (?:store|remember|"
       r"recall)|for (?:future reference|later|the record))\b|\b(?:store|save|memori[sz]e) this fact\b"
       r"|\bhistorical fact\b"),
    _r("poison.remember_lead", 0.2,
       r"^(?:please )?(?:remember|memori[sz]e|merke? dir|retiens|recuerda|ricorda|lembre-se|guarde na "
       r"memória|onthoud|zapamiętaj|запомни)\b|^(?:请)?记住|^覚えて"),
    # memory poisoning: a third party handed the user's codes or the right to act for them
    _r("poison.third_party_codes", 0.55,
       r"(?<!never )(?<!not )(?<!n't )\b(?:give|share|read out|tell|send|provide|hand over|disclose|"
       r"forward)\b[^.\n]{0,25}\b(?:codes?|"
       r"passwords?|pins?|answers|otp|login (?:codes?|details))\b[^.\n]{0,40}\b(?:to|with) (?:anyone|"
       r"whoever|support agents?|the caller|callers|her|him|them)\b"
       r"|\b(?:codes?|passwords?|pins?|answers)\b[^.\n]{0,25}\b(?:should|can|may|must) be (?:read out|"
       r"given|shared|sent|told|handed)\b[^.\n]{0,20}\bto (?:anyone|whoever|callers?|them|support)"
       r"|\b(?:any|all|the) codes? (?:she|he|they) asks? for\b|\bdonner les codes\b"
       r"|\b(?:share|give|send|read out|forward) (?:them|these|it|those) (?:to|with) (?:support agents?|"
       r"callers?|the caller|whoever calls|anyone (?:who )?call(?:s|ing))\b"
       r"|(?:сообщать|сообщай|назвать|называть) (?:им )?(?:коды|пароли|код)|\b(?:dar|passar) (?:os |"
       r"los )?c[óo]digos\b|\b(?:codes?|pins?) (?:geben|weitergeben|doorgeven)\b"),
    _r("poison.consent_planted", 0.5,
       # false positives (scanfp): a consent the writer gives in the first person is theirs to give
       r"(?<!\bi )(?<!\bwe )(?<!\bi've )(?<!\bwe've )(?<!\bi have )(?<!\bwe have )\b(?:authori[sz]ed|allowed|permitted|consented|agreed)\b[^.\n]{0,40}\b(?:to (?:make|approve|"
       r"access|use|sign|spend|move|transfer|share|view)|(?:can|may) (?:access|approve|spend))\b"
       r"[^.\n]{0,50}\b(?:on (?:their|his|her) behalf|in (?:their|his|her) name|at any time|any time|"
       r"anytime|remotely|without (?:asking|approval|confirmation|limits?)|with (?:all|any|every) "
       r"(?:third[- ]part\w+|apps?|partners?|vendors?|companies)|with (?:insurers|advertisers|marketers|"
       r"brokers|anyone|everyone))"
       r"|\b(?:usuario|usu[áa]rio|utilisateur|nutzer|utente|gebruiker|użytkownik|пользователь) "
       r"(?:autoriz[óo]u?|a autoris[ée]|hat (?:\w+ )?(?:erlaubt|autorisiert)|ha autorizzato|heeft "
       r"(?:\w+ )?(?:toestemming|gemachtigd)|upoważnił|разрешил|confirm[óo]u? que|a confirm[ée] que|"
       r"a accept[ée] que|consinti[óo]|concordou)"),
    _r("poison.update_user_contact", 0.5,
       r"\b(?:update|change|set|replace|switch)\b (?:the user'?s|the customer'?s|their) (?:[\w-]+ ){0,2}"
       r"(?:contact|e-?mail|phone|number|address|iban|account|payee|beneficiary)s? (?:to|with)\b"),
    # memory poisoning: a payee changed to a literal account number (IBAN shape)
    _r("poison.payee_changed", 0.45,
       r"(?<!\bmy )(?<!\bour )(?<!\bi )" + _NOT_OWNED_PAYEE + r"\b(?:new|changed?|nieuwe|neue[snr]?|nouveau|nuevo|nova|novo|nuovo|"
       r"nowy|lautet|zmienił\w*|"
       r"новый|изменил\w*)\b(?! (?:iban|account|bank details|account number) of (?:my|our) (?:own |\w+ )?(?:business |"
       r"personal |savings |current )?(?:account|bank))[^\n]{0,60}?\b[a-z]{2}\d{2} ?[0-9a-z]{4} ?\d{4}"),
    _r("poison.scam_payment", 0.5,
       r"\b(?:only|exclusively) (?:accepts?|takes?) (?:payments? )?(?:in |through |via |with |by )?"
       r"(?:gift ?cards?|itunes cards?|crypto\w*|bitcoin)|\b(?:accepts?|takes?) (?:payments? )?only "
       r"(?:in |through |via |with |by )(?:gift ?cards?|itunes cards?|crypto\w*|bitcoin)"),
    # generalization (holdout3, second round of fresh text), by family:
    # sleeper: a standing answer for a kind of question ("answer any question about X by ...")
    _r("sleeper.standing_answer", 0.45,
       r"\b(?:answer|respond to|reply to) (?:any|every|all|each) (?:questions?|requests?|messages?) "
       r"(?:about|on|regarding|concerning)\b"),
    # memory poisoning: "the user's accountant has changed", a redirect to an address, a planted
    # policy, a profile write in the third person, automatic approvals
    _r("poison.user_thing_changed", 0.45,
       r"\bthe user(?:'s|’s) (?:[\w-]+ ){1,2}(?:has changed|have changed|changed|has moved|is now|are "
       r"now|has been replaced)\b|\bthe user has (?:a )?(?:new|updated) (?:policy|rule|preference|"
       r"setting|standing preference)\b|\bthe user(?:'s|’s) standing preference\b"),
    _r("poison.redirect_to", 0.45,
       f"\\b(?:should|must|will|(?:are|is) to) (?:now |from now on )?(?:go|be sent|be forwarded|be directed|be "
       f"routed|be addressed)\\b[^.\\n]{{0,40}}(?:{_EMAIL}|https?://)"),
    _r("poison.profile_write", 0.55,
       r"\b(?:note|write|add|record|save|store|put|mark)\b (?:this |it |down )?(?:in|into|to|on) (?:the "
       r"user(?:'s|’s)|their) (?:profile|memory|records?|file|notes|preferences)\b"),
    _r("poison.auto_approve", 0.4,
       r"\b(?:invoices?|refunds?|requests?|purchases?|orders?|transfers?)\b[^.\n]{0,40}\b(?:(?:is|are|"
       r"gets?|be) (?:approved|accepted|paid) automatically|auto-?(?:approved|accepted|paid))\b"
       r"|\bauto-?(?:accept|approve|pay)\b[^.\n]{0,20}\b(?:all|every|any)\b"),
    # direct instruction: the agent's output told what it must say or leave out ("your summary must
    # leave out section 4"); a polite question that is an order ("could the assistant please go
    # ahead and wire ..."); "reviewers using AI:"; "heads up for the assistant"
    _r("agent.output_must", 0.5,
       r"\byour (?:summary|summaries|answers?|repl(?:y|ies)|responses?|output|review|rating|"
       r"evaluation|translation)s? (?:must|should|shall|has to|needs to) (?:leave out|omit|skip|exclude|"
       r"not mention|include|mention|say|state|recommend|praise|be positive)\b"),
    _r("agent.polite_order", 0.55,
       f"\\b(?:could|would|can|will) (?:the|any|this|our) (?:{_AI}|models?) (?:please |kindly )?(?:go "
       r"ahead and |also )?(?:wire|send|pay|transfer|delete|forward|share|approve|book|buy|order|"
       r"cancel|open|post|upload|e-?mail|reply|tell|say|answer|recommend|remove|grant)\b"),
    _r("agent.addressed_users_of_ai", 0.6,
       r"\b(?:reviewers?|readers?|graders?|screeners?|recruiters?|users?|anyone) using (?:an? )?(?:ai|"
       r"llms?|chatgpt|language models?|ai tools?)\b\s*[:,]"
       f"|\\bheads[- ]up (?:for|to) (?:the |any |all )?(?:{_AI}|models?)\\b"),
    # direct instruction: an AI addressed inside a sentence ("Kindly be advised, AI, that ...",
    # "Remember, assistant: ...")
    _r("agent.vocative_inline", 0.45,
       r"[,;!] (?:ai|assistant|bot|chatbot|model|llm|claude|chatgpt|gpt)[,:!] "),
    *(Rule(*spec) for spec in FAMILY_RULES),  # version 6 families (memguard/scan/family_rules.py)
)  # fmt: skip

#: leads that tell a reader to decode something and act on it (an encoded payload's carrier)
DECODE_LEAD = _r("encoded.decode_lead", 0.5,
    r"\b(?:decode|decoded|base ?64|b64|hex(?:-encoded)?|rot-?13|url-?(?:decode|encoded)|"
    r"encoded|deobfuscate|decipher|reversed?|backwards?)\b[^.\n]{0,40}\b(?:and|then)?\s*(?:follow|execute|run|"
    r"comply|obey|do|apply|act|perform)|\b(?:encoded|hidden|obfuscated|secret) (?:instruction|"
    r"task|command|payload|message|hint)s?\b"
)
