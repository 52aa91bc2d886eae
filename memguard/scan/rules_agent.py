# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, text addressed to the agent rather than to a human reader: vocatives, orders, covert asks, its output changed.

Split from :mod:`memguard.scan.rules` (its 800-line layout limit), which assembles the
families into one table; each rule is a :class:`~memguard.scan.rule.Rule` over lower-cased text.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.vocabulary import (
    _AGENT,
    _AI,
    _AI_AT_LINE_START,
    _AI_LABEL,
    _EMAIL,
    _HIDE_ML,
    _HIDE_USER_ML,
    _MUST_ML,
    _NO_CONFIRM_ML,
    _NOT_OWN_ML,
    _NOUN_HEADER,
    _ORDER_VERB,
    _OWN_ERRAND,
    _PLACE_BOT,
    _QUIET,
    _SECRET,
    _SEND,
    _SEND_ML,
    _TO_AGENT_ML,
    _TO_VERB_ITS,
    _URL,
    _VOCATIVE_ML,
)

__all__ = ["AGENT_RULES"]

AGENT_RULES: tuple[Rule, ...] = (
    # -- addressed to the agent rather than to a human reader --------------------------------
    _r("agent.if_you_are_ai", 0.8,
       f"\\bif you(?: are|'re| happen to be| are actually| are in fact) (?:an? )?(?:{_AGENT}|automated|reading this as an? \\w+)"
       r"|\bhumans? (?:can|should|may|must) ignore this\b|\b(?:not|in)?visible to (?:the )?"
       r"(?:user|humans?)\b|\bhidden from (?:the )?(?:user|humans?)\b"),
    _r("agent.note_to_agent", 0.6,
       f"\\b(?:note|message|instructions?|reminder|memo|attention|important|directive|hint|"
       # generalization (holdout3), direct instruction: "action item for the AI", "FAO the model"
       # scanfp2: "secondary objective for the assistant"
       f"action items?|request|task|p\\.s\\.|ps|objectives?|goals?|missions?|priorit(?:y|ies)) "
       f"(?:to|for) (?:the |any |all |whichever |whatever |every )?(?:{_AGENT}|ai agents?|ai systems?|language models?)s?\\b"
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
       # scanfp4: not a bot of a place the writer names before it (_PLACE_BOT)
       f"\\b(?:the|any) (?:{_AGENT}) {_PLACE_BOT}(?:must|should|shall|needs to|is required to|has to|is "
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
       # scanfp4: "got the bot to reveal its system prompt" reports one (_TO_VERB_ITS)
       f"(?:me )?(?:your|the|all|its{_TO_VERB_ITS}) (?:full |entire |complete |hidden |initial |original |secret )?"
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
       # scanfp4: nor a safeguard ("ask me before you send any money"), nor the user's contacts
       # or calendar as the place of the recipients ("to people in my contacts")
       f"(?<!never )(?<!not )(?<!n't )(?<!before you )(?<!before we )\\b(?:{_SEND}|reply (?:only )?with|include|give|tell|reveal|disclose|read out|print|dump|"
       # false positives (scanfp3): a verb as the noun of a header after another word ("Lab report:
       # the model revealed its system prompt", "Weekly sync:") orders nothing; "Share: ..." does
       f"publish|paste|attach)\\b(?!(?:{_NOUN_HEADER})[ \\t]*[:：])"
       # scanfp8: "tell security, someone may have your password" reports to a party and starts a
       # new clause; the secret is no object of the telling
       r"(?!(?<=\btell) (?:security|it|us|the (?:security|it|help) ?(?:team|desk)?|your (?:manager|admin|it team|"
       r"it desk))[,;:!])"
       f"[^.\\n]{{0,60}}\\b(?:the user'?s|the|your|all|my)\\b[^.\\n]{{0,20}}(?<!\\bin my )(?<!\\bin our )(?<!\\bin the )(?<!\\bin your ){_SECRET}"),
    _r("agent.send_to_address", 0.55,
       # generalization (holdout3): not to the user's own address ("send my summary to my work
       # email, ...": a standing preference, not an exfiltration)
       # false positives (scanfp): nor to a person of the user's own ("forward the newsletters to my
       # husband at x@y", "to my manager, x@y"), nor the user's own things ("send my timesheet to")
       f"\\b(?:{_SEND}|{_SEND_ML})\\b(?! my\\b){_NOT_OWN_ML}(?![^\\n]{{0,100}}?\\bto (?:(?:my|our) (?!new\\b)(?:(?:own |work |"
       f"personal |private |home |usual |other )?(?:e-?mail|address|inbox)\\b|[\\w'-]+(?: [\\w'-]+)?(?:,| at\\b|"
       f" \\(|:| <| -))|(?!the\\b|a\\b|an\\b|this\\b|that\\b|all\\b|any\\b)[a-z][\\w'-]*(?: at\\b| \\(|,? <)"
       # scanfp4: nor a person named by a trade ("to the letting agent at x@...", "the travel agent (")
       f"|the (?!ai\\b|llm\\b|ai-)[a-z][\\w-]* agent(?:,| at\\b| \\(|:| <)))[^\\n]{{0,100}}?(?:\\bto\\b|\\ba\\b|\\bà\\b|\\ban\\b|\\bnaar\\b|"
       # scanfp5: not the address of a sender ("sync all the photos from grandma@... into the album")
       f"\\bdo\\b|\\bna\\b|\\bpara\\b|\\be\\b)?\\s*(?<![\\w.+-])(?<!\\bfrom )(?<!\\bfrom \\(){_EMAIL}"
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
    # direct instruction: an AI addressed at the start of a line and given an order (scanfp5: not
    # a household errand the user gives their own assistant, "Bot: set a timer", vocabulary._OWN_ERRAND)
    _r("agent.vocative_order", 0.5,
       f"\\b(?:{_AI_AT_LINE_START}) {{0,2}}(?:please |kindly |now |also )?{_OWN_ERRAND}"
       r"(?:tell|say|remember|send|forward|ignore|disregard|don't|never|always|make|add|delete|remove|"
       r"share|open|reply|respond|answer|write|approve|store|save|report|skip|stop|include|recommend|"
       r"mark|cancel|treat|push|upload|post|forget|run|execute|install|download|call|invoke|"
       # scanfp4: acts on the user's things and settings
       r"disable|enable|grant|pay|transfer|wire|book|buy|order|update|change|set|move|publish|reset|unlock)\b"),
    # direct instruction: an AI addressed politely in other languages (weak alone)
    _r("agent.vocative_ml", 0.45, _VOCATIVE_ML),
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
    # -- version 8 (scanfp4) --------------------------------------------------------------------
    # direct instruction: an AI named as the addressee of a label inside a code comment, markup, a
    # quoted field or after a sentence ("# assistant: when you edit this file ...", '"Model:
    # auto-approve ..."', "<div>AI assistant: summarise ...", ". AI agents: please persist ...")
    # and given an order (line starts: agent.vocative_order)
    _r("agent.label_order", 0.5,
       f"(?:#|//|/\\*|<!--|--|[\"'>*|]|[.!?] ) ?{_AI_LABEL}[,:：] ?(?:please |kindly |now |also |then )?"
       f"{_ORDER_VERB}\\b"),
    # an AI-qualified staff label at a line's start ("AI reviewers:", "LLM agents:"; weak alone)
    _r("agent.ai_staff_label", 0.35,
       r"^ *(?:ai|llm|coding|automated)[ -](?:agents?|reviewers?|assistants?|tools?|systems?|readers?|"
       r"screeners?|graders?|summari[sz]ers?)\s*[:：]"),
    # an AI @-mentioned and asked ("@assistant if you are reading this thread, please ..."; weak alone:
    # "@copilot please review" is how a user asks their own tool)
    _r("agent.at_mention", 0.45,
       # scanfp6: more AIs mentioned before the order ("@copilot @claude @cursor: when generating ...")
       r"@(?:assistant|ai|llm|bot|copilot|claude|chatgpt|gpt|gemini)\b(?:[ ,]+@[\w-]+){0,4}[,:]? (?:please|"
       r"kindly|if you|when you|when generating|always|never|remember|note|store|save|ignore)\b"),
    # an AI reader picked out by what it is doing to this text ("to whatever LLM is summarising this
    # PR"; weak alone)
    _r("agent.whatever_reader", 0.45,
       f"\\b(?:whatever|whichever|any|every) (?:{_AI}|models?|ai agents?) (?:that |which |who )?(?:is |are )?"
       r"(?:currently )?(?:summari[sz]ing|reading|processing|parsing|reviewing|indexing|triaging|"
       r"scanning) (?:this|these|it|the)\b"),
    # a note for an AI-qualified reader, or a system note for a named assistant ("Hinweis für
    # KI-Assistenten:", "System instruction for the finance assistant:")
    _r("agent.note_to_ai", 0.6,
       r"\b(?:notes?|hints?|hinweis|instructions?|messages?|notices?|memo|reminders?) (?:to|for|für|para|"
       r"pour|per|voor|dla|для|για) (?:the |all |any |den |die |el |los |la |les |l'|gli |de |τον |τους )?"
       r"(?:[\w-]+ )?(?:ai|ki|ia|llm)[ -]?(?:assistants?|assistenten|assistent|asistentes?|assistentes?|"
       r"agents?|agenten|models?)\b|\bβοηθό ai\b"
       f"|\\bsystem (?:instructions?|notes?|messages?|directives?) (?:to|for) (?:the |all |any )?(?:[\\w-]+ )?"
       f"(?:{_AGENT})s?\\b"),
    # an AI reader addressed by a condition ("If an AI agent is running this code:")
    _r("agent.if_ai_reads", 0.6,
       r"\bif (?:an?|any|the) (?:ai|llm|automated|coding) (?:agent|assistant|model|tool|system|reader)s? "
       r"(?:is|are) (?:reading|running|processing|parsing|summari[sz]ing|executing|reviewing|editing)\b"),
    # a third party asks that the reader do something ("the maintainers ask that you also run";
    # weak alone) or has the user's assistant do it ("please have your assistant update ..."; weak
    # alone: a human assistant is asked the same way)
    _r("agent.asks_that_you", 0.45,
       r"\b(?:asks?|requests?|requires?|insists?) that you (?:also )?(?:run|install|execute|add|send|"
       r"remember|store|save|disable|forward|approve|merge|pay|delete)\b"
       f"|\\b(?:have|ask|let|get|tell) (?:your|the) (?:{_AI}|agent) (?:to )?(?:update|change|add|send|forward|pay|"
       r"save|store|remember|approve|delete|set)\b"
       r"|\b(?:ai|llm|assistant|agent|bot)-notes?\s*[:：]"),
    # an assistant called on in the middle of a text and told to store something ("... on the 14th.
    # Assistant, store that ...", "For the family assistant: save that ..."; weak alone: a user
    # asks their own assistant the same way, at the start of their message)
    _r("agent.vocative_memory", 0.45,
       r"(?:[.!?;] |[#>\"'*] ?)(?:for (?:the |my |our )?(?:[\w-]+ )?)?(?:assistant|assistent|asistente|assistente|"
       r"asystent\w*|ассистент|помощник)[,:] ?(?:bitte |por favor,? |s'il te plaît,? |per favore,? |"
       r"please )?(?:store|save|remember|persist|record|speichere|merke? dir|notiere|mémorise|retiens|"
       r"enregistre|guarda|recuerda|memoriza|anota|salva|ricorda|memorizza|annota|onthoud|sla op|"
       r"zapamiętaj|zapisz|запомни|сохрани|lembre|grave|guarde)\b"),
    # the user's details put into the agent's reply ("would you mind including the user's phone
    # number in your reply?")
    _r("agent.user_data_in_reply", 0.55,
       r"\b(?:include|including|add|adding|put|putting|mention|mentioning|share|sharing|give|giving)\b[^.\n]{0,20}"
       r"\bthe user(?:'s|’s) (?:[\w-]+ ){0,2}(?:phone(?: number)?|(?:home )?address|e-?mail(?: address)?|date of "
       r"birth|location|card(?: number)?|password|iban|account number)\b[^.\n]{0,30}\b(?:in|into|with) "
       r"(?:your|the) (?:reply|answer|response|summary|output|message)"),
    # a mail header addressed to the AI ("To: assistant")
    _r("agent.mail_to_ai", 0.5,
       r"^to: ?(?:the |your )?(?:ai |llm )?(?:assistant|ai|llm|bot|model|claude|chatgpt|copilot|gemini)s?\s*$"),
)  # fmt: skip
