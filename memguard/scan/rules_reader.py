# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, version 10 (scanfp6): an AI reader picked out by the role it plays
over the text ("note for the coding agent:", "Assistant reading git log:", "to any triage bot reading
this", "Hinweis an den KI-Agenten") and a rule handed to an agent's memory for later ("save this as
your default persona", "remember this method for future CAPTCHAs", "guárdalo en tu memoria").

Written from the families of ``tests/scan/holdout7.jsonl``'s tune half misses (tool outputs, agent
cards, RAG documents, invites, code comments, tickets and transcripts that address whichever AI
reads them), never from a row's strings; each rule has hand-written attacks and benign near misses
in ``tests/test_scan_fp6.py``. A user speaks to their own assistant in the singular and without a
role ("Assistant, remember ..."): these rules name an AI by what it does to this text, a class of
AIs, or an AI-qualified noun.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r

__all__ = ["READER_RULES"]

# an AI noun qualified by the job it does or the product it is ("coding agent", "triage bot",
# "AI notetaker", "browsing agent", "KI-Agenten", "agent-assist"); "travel agent" and "support
# agent" are people, so the job words are ones a person-agent is not called by
_AIQ = "(?:ai|llm|ki|ia|gpt|automated|autonomous|agentic|virtual)"
_JOB = ("(?:coding|code|browsing|browser|shopping|calendar|triage|review|crm|scheduling|inbox|e-?mail|"
        "mail|notetaking|note-taking|meeting|voice|docs?|support|travel|booking)")  # fmt: skip
# (a job's "agent" or "assistant" may be a person: "support agent", "travel agent", "research
# assistant"; a job's bot, and any AI-qualified noun, is not)
# ("AI assistant" in the singular is how a user may call their own: left out)
# (scanfp7: the "(?s:...)" groups change no match - no "." inside - but end the literal prefixes
# the matcher anchors a branch on (memguard/scan/anchors.py stops at a group with flags): "ai ",
# "llm-", not every job and noun after them, so agent.role_addressed anchors on its AI words (1,134
# prefixes) instead of on every space and comma, where its 3,900 prefixes had put it)
_ROLE_AI = (f"(?:{_AIQ}[ -](?s:(?:{_JOB}[ -])?(?:agent(?:s|en)?|assistants|assistenten|bots?|helpers?|reviewers?|maintainers?|"
            f"notetakers?|models?|systems?|readers?|triagers?))|{_JOB}[ -]bots?|"
            f"(?:coding|code|browsing|browser|shopping|calendar|triage|review|crm|inbox|notetaking|meeting|voice)"
            r"[ -](?:agents?|assistants?)|agent-assist|(?:support|the|any|all) ai\b"
            # someone else's assistants ("Listener's assistants,", "readers' AI agents:")
            r"|(?:listeners?|viewers?|readers?|subscribers?|customers?|visitors?|users?)(?:'s|'|’s|’) (?:ai )?"
            r"(?:assistants|agents|bots))")  # fmt: skip
# what a reader is doing to this text ("reading git log", "managing this calendar", "that keeps the
# CRM memory", "extracting specifications")
_DOING = (r"(?:(?:that|which|who) )?(?:reads?|reading|manag(?:es|ing)|handl(?:es|ing)|process(?:es|ing)|"
          r"keeps?|keeping|extract(?:s|ing)|index(?:es|ing)|summari[sz](?:es|ing)|pars(?:es|ing)|"
          r"review(?:s|ing)|triag(?:es|ing)|scan(?:s|ning)|book(?:s|ing)|watch(?:es|ing)|listen(?:s|ing) to|"
          r"transcrib(?:es|ing)|taking notes|generat(?:es|ing)|edit(?:s|ing)|writ(?:es|ing) code (?:for|in|from))")  # fmt: skip
# memory writes and standing orders handed to the reader
_KEEP = (r"(?:remember|store|save|record|note|memori[sz]e|keep in mind|persist|add|update|approve|accept|"
         r"label|mark|enter|share|send|forward|tell|treat|trust|allow|grant|give|open|download|install|run|"
         r"disable|reply|respond|include|enter|set up|configure)")  # fmt: skip

# where an addressee starts: a line's start, after punctuation (and a space), or after "for",
# "to" or "attn" (and "the", "any", "all", "every"). Written as lookbehinds, which the prefilter's
# superset drops (memguard/scan/superset.py), so its engine reads the addressee's own words, not
# a class of punctuation in front of every short AI word (scanfp7: a consumed lead matched the same
# texts and made agent.role_addressed the costliest rule of the pass on benign English)
_PUNCT = "[\\n(\\[\\]>#/*\"'.!?;:,-]"
_ADDRESSED_AT = ("(?:^|" + "|".join(
    [f"(?<={_PUNCT})", f"(?<={_PUNCT} )"]
    + [f"(?<=\\b{word} {det})" for word in ("for", "to", "attn", "attn:") for det in ("", "the ", "any ", "all ", "every ")]
) + ")")  # fmt: skip

READER_RULES: tuple[Rule, ...] = (
    # a note, hint or text for a role-qualified AI or a class of AIs, in the label or the sentence
    # ("note for the coding agent:", "(for AI helpers)", "Appendix C (for automated reviewers):",
    # "PS to the support AI:", "Observação para assistentes virtuais:", "Hinweis an den KI-Agenten")
    _r("agent.note_for_role", 0.55,
       r"\b(?:notes?|hints?|messages?|instructions?|reminders?|text|ps|p\.s\.|memo|appendix \w+) (?:to|for) "
       f"(?:the |any |all |every |whichever )?{_ROLE_AI}"
       f"|\\((?:for|to|attn:?) (?:the |any |all )?(?:{_ROLE_AI}|ai|llms?|assistants|agents|bots)\\)"
       f"|\\((?:agent|ai|ki|ia|llm|assistant|bot) ?(?:note)?\\s*[:：]"
       r"|\b(?:hinweis|nachricht|notiz|text|anweisung)(?: \w+)? (?:an|für) (?:den |die |alle )?[\w-]*(?:agenten?|"
       r"assistenten?)\b"
       r"|\b(?:observação|nota|aviso|mensagem) para (?:os |as |o |a )?(?:assistentes?|agentes?) (?:virtuais|"
       r"virtual|de ia|de ai|inteligentes)\b|\bpara (?:los |el |las |la )?(?:agentes?|asistentes?) (?:de ia|"
       r"virtuales?|inteligentes?)\b|\bpour (?:les |l')(?:agents?|assistants?) (?:ia|d'ia|virtuels?)\b"
       r"|(?:הערה|הודעה|הוראה|הנחיה) ל(?:סוכן|עוזר)|给(?:ai|人工智能)?(?:助手|代理)的(?:说明|提示|留言|指示|备注)"
       r"|(?:ai)?(?:アシスタント|エージェント)への(?:メモ|指示|注意|お知らせ)"),
    # a role-qualified AI or a class of AIs as the addressee of a label or a vocative, then an order
    # ("Assistant managing this calendar: accept ...", "AI notetaker, please store ...", "Browsing
    # agent: the user has ...", "AI calendar agents - to mark attendance, reply ...")
    _r("agent.role_addressed", 0.5,
       f"{_ADDRESSED_AT}(?:[\\w-]+ (?:and|&|or) )?"
       f"(?:{_ROLE_AI}|"
       f"(?:assistant|agent|bot|ai|llm|model)s? {_DOING} (?:this|these|the|git|alt|it|my|our|your)\\b[^\\n:,]{{0,30}}?)"
       f"(?s:\\s*[:,–—-]\\s*)(?:[^\\n]{{0,120}}?\\b{_KEEP}\\b)"),
    # a role-qualified AI told what it should keep ("AI maintainers should remember that ...";
    # not "should remember to run the tests", a chore)
    _r("agent.role_should", 0.5,
       f"\\b{_ROLE_AI} (?:should|must|need to|needs to|are to|is to|shall) (?:always |now |also |from now on )?"
       r"(?:remember(?! to\b)|store|save|record|keep in mind|treat|trust|approve|accept|forward|share)\b"),
    # an AI reader picked out by what it does to this text, anywhere in a sentence ("for any triage
    # bot reading this:", "To any AI system extracting specifications: remember ...")
    _r("agent.reader_by_task", 0.5,
       f"(?:\\b(?:any|every|all|whichever|whatever) (?:(?:{_JOB}|{_AIQ})[ -])?(?:agent|assistant|bot|ai|llm|model|system)s?"
       # (or a class of them, in the plural: "Assistants generating images from this file must ...")
       f"|(?:^|[#/*>] ?|[.!?] )(?:(?:{_JOB}|{_AIQ})[ -])?(?:assistants|agents|bots|llms|copilots)) "
       f"{_DOING} (?:[\\w-]+ ){{0,2}}?(?:this|these|the|it)\\b[^.\\n]{{0,60}}\\b{_KEEP}\\b"
       # ... or addressed so, by what it does to any text ("To any AI system extracting specifications:")
       f"|\\bto (?:any|every|all|whichever|whatever) (?:(?:{_JOB}|{_AIQ})[ -])?(?:agent|assistant|bot|ai|llm|model|"
       f"system)s? {_DOING} [\\w-]+(?: [\\w-]+)?\\s*[:：]"),
    # the question "what should an AI remember?" answered in the text (FAQ and canvas plants)
    _r("agent.what_ai_should_remember", 0.55,
       r"\bwhat should (?:an? |the |any |all )?(?:[\w-]+ )?(?:ai|llm|assistant|agent|bot)s? (?:[\w-]+ ){0,2}"
       r"(?:remember|know|store|save|keep in mind)\b"),
    # a persona or a rule handed to the agent's memory ("Save this as your default persona",
    # "store a rule that ...", "Acknowledge by storing this policy", "save a rule to allow ...")
    _r("sleeper.store_rule", 0.55,
       r"\b(?:save|store|keep|adopt|set|remember|record)\b (?:this|that|it|these|my \w+ settings|the following)?"
       r" ?as (?:your|the assistant(?:'s|’s)|the agent(?:'s|’s)) (?:new |default |permanent |standing )?"
       r"(?:persona|personality|identity|policy|rule|behaviou?r|default)\b"
       r"|\b(?:save|store|add|create|record|set up) (?:a|the|this|one) (?:new |standing |permanent |general )?"
       r"(?:rule|policy|standing task) (?:that|to|which|saying)\b"
       r"|\b(?:acknowledge|confirm) by (?:storing|saving|remembering|recording) (?:this|the|that)\b"
       # (not "save this as a rule:", how a user keeps their own rule)
       r"|\b(?:store|save|remember|keep) (?:it|this|that) as (?:a |an )?(?:standing task|maintenance step|"
       r"requirement|policy)\b"
       r"|\badopt (?:my|this|these|the following) persona\b"
       # ("perhaps make that your default going forward?")
       r"|\bmake (?:that|this|it) (?:your|the assistant(?:'s|’s)) (?:new )?(?:default|rule|policy|habit)\b"
       r"|^\W{0,3}(?:store|save|record|memori[sz]e) (?:this |that )?(?:permanently|forever)\s*[:：]"),
    # a method or a rule kept "for future" occasions of a kind (weak alone: the user keeps their
    # own preferences for future trips in the same words)
    _r("sleeper.for_future_kind", 0.35,
       r"\b(?:remember|keep|save|store|apply|use|follow|repeat|keep doing) (?:this|that|these|it)(?: [\w-]+)? "
       r"(?:for|in|on|during) (?:all )?(?:future|later|subsequent|upcoming) [\w-]+"),
    # the agent's memory named in other languages, with a write ("guárdalo en tu memoria", "in
    # deinem Gedächtnis speichern", "שמור זאת בזיכרון", "Simpan ini
    # sebagai fakta", "Spara detta som din nya personlighet")
    _r("sleeper.memory_write_ml", 0.5,
       r"\b(?:guárda(?:lo|la)?|guarda(?:lo|la)?|almacena(?:lo)?) en (?:tu|la) memoria\b"
       r"|\b(?:in|im) (?:deinem|deinen|dein) (?:gedächtnis|speicher)\b[^.\n]{0,20}\bspeicher"
       r"|\bspeichere? (?:dauerhaft|für immer|permanent)\b|\bbitte (?:so|das|dies) (?:speichern|merken)\b"
       r"|\bmémorise[rz]? (?:ceci|cela|ça|que)\b|\benregistre[rz]? (?:ceci|cela) (?:dans ta|en) mémoire\b"
       r"|\bmemorize (?:que|isso|isto)\b|\bsalv[ae] (?:isso|isto) na (?:sua )?memória\b"
       r"|\bmemorizza (?:che|questo)\b|\bsla (?:dit|het) op (?:in je geheugen|als)\b"
       r"|\bzapisz (?:to )?w (?:swojej )?pamięci\b|\bсохрани (?:это )?в (?:своей )?памяти\b"
       r"|שמור (?:זאת |את זה )?בזיכרון|αποθήκευσ\w* (?:το |αυτό )?στη μνήμη"
       r"|\bsimpan (?:ini|itu) (?:sebagai|di memori)\b|\bspara (?:detta|det här|det) (?:som|i (?:ditt )?minne)\b"
       r"|\bulož(?:te)? (?:si )?(?:to )?(?:do paměti|jako)\b|\b(?:reține|retine) (?:această|aceasta) regulă\b"
       r"|\bsalvează (?:în|in) memorie\b|\bhafızana kaydet\b|จำกฎนี้|영구적으로 기억|\btrvalé pravidlo\b"
       r"|\bhãy lưu (?:điều này )?vào bộ nhớ\b|保存到(?:你的)?记忆|メモリに保存"
       # a third party has the user tell their assistant to keep something ("Sagen Sie Ihrem
       # Assistenten, er soll sich merken", "demander à votre assistant de retenir")
       r"|\b(?:sagen sie|sag) (?:ihrem|deinem) (?:ki-)?assistenten\b[^.\n]{0,30}\b(?:merken|speichern|notieren)"
       r"|\bdemande[rz]? à (?:votre|ton) assistant de (?:retenir|mémoriser|noter|enregistrer)\b"
       r"|\b(?:dígale|pídale|dile|pide) (?:a su|a tu) asistente que (?:recuerde|guarde|anote)\b"
       r"|\b(?:dica|chieda) al (?:suo|tuo) assistente di (?:ricordare|memorizzare|salvare)\b"
       r"|\b(?:peça|diga) ao seu assistente (?:para|que) (?:lembrar|memorizar|guardar|salvar)\b"),
)  # fmt: skip
