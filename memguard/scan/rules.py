# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules: attack families, written as patterns over lower-cased text.

Each rule names a family and a weight (how sure a match alone makes the scanner). Rules describe
what makes text an instruction aimed at an agent (who it addresses, what it asks, how it hides),
never strings copied from one corpus. The weights combine as independent evidence
(``1 - prod(1 - w)``), so two weak signals make a suspicious text and strong ones a malicious one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DECODE_LEAD", "RULES", "Rule"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: an attack family's id, how sure a match alone makes the scanner, and a pattern
    over lower-cased text (``re.MULTILINE``), matched by :class:`memguard.scan.match.RuleSet`."""

    id: str
    weight: float
    pattern: str


def _alt(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


# -- vocabulary ------------------------------------------------------------------------------------

_AGENT = _alt("assistant", "agent", "ai", "a\\.i\\.", "model", "llm", "chatbot", "bot", "copilot",
              "language model", "ai model", "ai assistant",
              # the roles an agent plays over a text (generalization, holdout2)
              "summari[sz]er", "automated (?:reader|system|assistant|agent)")  # fmt: skip
# the AI-only subset of _AGENT (a "Dear agent," or "Hi model," may well be for a person)
_AI = _alt("assistant", "ai", "a\\.i\\.", "llm", "chatbot", "bot", "copilot", "language model",
           "ai model", "ai assistant", "ai systems?", "summari[sz]er",
           "automated (?:reader|system|assistant|agent)", "chatgpt", "gpt", "claude", "gemini", "llama")
_INSTR = _alt("instructions?", "prompts?", "rules", "guidelines", "directives?", "directions",
              "orders", "commands", "guidance", "system prompt", "programming", "constraints")  # fmt: skip
_PRIOR = _alt("previous", "prior", "preceding", "above", "earlier", "former", "original", "initial",
              "old", "existing", "all", "any", "every", "your", "system", "developer")  # fmt: skip
_SECRET = _alt("passwords?", "pass ?codes?", "api[ _-]?keys?", "secret keys?", "secrets",
               "(?:session|access|auth|bearer|refresh) tokens?", "credentials", "private keys?",
               "ssh keys?", "payment details", "credit card(?: numbers?)?", "card numbers?", "cvv",
               "2fa codes?", "one[- ]time (?:codes?|passwords?)", "otp", "recovery codes?",
               "seed phrase", "system prompt", "conversation history", "chat history",
               "(?:last|previous) \\d+ messages", "home address", "contents of (?:the|your) \\w+",
               "(?:bank|account) details", "calendar", "contacts", "notes namespace",
               "memory contents")  # fmt: skip
_SEND = _alt("send", "forward", "e-?mail(?! address| is\\b| was\\b)", "mail(?! address| is\\b| was\\b)", "post", "upload", "transmit", "share",
             "leak", "exfiltrate", "copy", "cc", "bcc", "deliver", "report", "sync", "submit")  # fmt: skip
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_URL = r"https?://[^\s)\]>\"']+"
_ROLE = _alt("system", "developer", "dev", "admin", "administrator", "operator", "root",
             "sysadmin", "supervisor", "moderator", "owner", "maintainer", "security team",
             "it team", "it department", "compliance team", "support team", "orchestrator")  # fmt: skip
_LEAD = r"(?:^|[\n>:;.!?\]\-*#|]\s*|<!--\s*|\"\s*)"
_CONTAINER = _alt("tool_output", "tool_result", "tool_response", "tool", "function_results?",
                  "function_output", "context", "untrusted(?:_\\w+)?", "data", "documents?",
                  "memory", "memories", "search_results?", "results?", "user_input", "user",
                  "input", "quote", "email", "retrieved(?:_\\w+)?", "external(?:_\\w+)?",
                  "content", "system", "instructions?", "assistant", "observation", "output",
                  "page", "webpage", "snippet", "message", "human", "trusted(?:_\\w+)?")  # fmt: skip
_END_WHAT = _alt("document", "context", "search results?", "results?", "input", "data", "email",
                 "file", "page", "message", "quoted (?:content|text)", "quote", "instructions",
                 "system prompt", "tool (?:output|result)s?", "untrusted (?:content|data|text)",
                 "user (?:input|content|message)", "conversation", "transcript", "snippet",
                 "retrieved (?:content|text)", "web ?page", "article", "excerpt")  # fmt: skip
_FUTURE = _alt("future", "later", "subsequent", "upcoming", "following", "next", "new")
_SESSION = _alt("conversations?", "sessions?", "chats?", "turns?", "interactions?", "requests?",
                "tasks?", "answers?", "replies", "responses?", "runs?")  # fmt: skip
_QUIET = _alt("quietly", "silently", "secretly", "covertly", "discreetly", "without (?:telling|"
              "informing|notifying|alerting) (?:the )?(?:user|human|anyone)", "in the background")

# multilingual vocabulary: "ignore", "instructions", "previous/all" (latin words take \b, others not)
_IGN_LATIN = _alt("ignore[sz]?", "disregard", "forget", "override", "bypass", "ignora[rt]?",
                  "ignorez", "oublie[rz]?", "ignoriere", "ignorieren", "vergiss", "vergessen",
                  "missachte", "olvida", "ignore", "dimentica", "esque[çc]a", "negeer", "vergeet",
                  "zignoruj", "zapomnij", "ignoruj", "unut", "yok say", "görmezden gel",
                  "zapomeň", "zabudni", "bỏ qua", "phớt lờ", "quên", "strunta i", "glöm",
                  "ignorer", "glem", "unohda", "ohita", "ignoră", "uită", "hagyd figyelmen kívül",
                  "felejtsd el", "abaikan", "lupakan", "puuza", "kalimutan", "huwag pansinin")  # fmt: skip
_IGN_OTHER = _alt("игнорируй", "игнорируйте", "проигнорируй", "забудь", "забудьте",
                  "忽略", "无视", "無視", "忘记", "忘れ", "무시", "잊어", "تجاهل", "انس",
                  "अनदेखा", "नज़रअंदाज़", "भूल जाओ", "התעלם", "תתעלם", "שכח", "תשכח", "αγνόησε", "αγνοήστε",
                  "ξέχνα", "ігноруй", "забудь", "نادیده بگیر", "فراموش کن", "เพิกเฉย", "ลืม",
                  "উপেক্ষা", "ভুলে যাও")  # fmt: skip
_INSTR_LATIN = _alt(_INSTR, "instrucciones", "instru[çc][õo]es", "istruzioni", "consignes",
                    "anweisungen", "instruktionen", "vorgaben", "regeln", "instructies",
                    "instrukcje", "instrukcji", "polecenia", "talimat\\w{0,8}", "yönerge\\w{0,8}",
                    "pokyny", "instrukce", "príkazy", "hướng dẫn", "chỉ thị", "instruktioner(?:na)?",
                    "instruksjon(?:er|ene)?", "ohjeet", "ohjeita", "instrucțiuni(?:le)?",
                    "utasítás\\w{0,6}", "instruksi", "arahan", "maagizo", "tagubilin")  # fmt: skip
_INSTR_OTHER = _alt("инструкци\\w{0,8}", "указани\\w{0,8}", "指令", "指示", "提示", "命令", "지시", "지침",
                    "명령", "التعليمات", "تعليمات", "الأوامر", "निर्देश", "ההוראות", "הוראות",
                    "οδηγίες", "εντολές", "вказівк\\w{0,4}", "інструкці\\w{0,4}", "دستورالعمل",
                    "دستورات", "คำสั่ง", "নির্দেশ")  # fmt: skip
_PRIOR_LATIN = _alt(_PRIOR, "précédentes", "precedentes", "vorherigen", "bisherigen", "alle[ns]?",
                  "anteriores", "precedenti", "tutte", "todas", "vorige", "eerdere", "poprzednie",
                  "wszystkie", "önceki", "tüm", "všechny", "předchozí", "všetky", "predchádzajúce",
                  "mọi", "tất cả", "trước đó", "tidigare", "tidligere", "aiemmat", "kaikki",
                  "anterioare", "toate", "korábbi", "összes", "sebelumnya", "semua", "zote")  # fmt: skip
_PRIOR_OTHER = _alt("предыдущие", "все", "之前", "以前", "所有", "すべて", "全て", "이전",
                    "모든", "모두", "السابقة", "جميع", "पिछले", "सभी", "הקודמות", "כל", "προηγούμενες", "όλες",
                    "попередні", "всі", "قبلی", "همه", "ก่อนหน้า", "ทั้งหมด", "আগের", "সব")  # fmt: skip
_PRIOR_ANY = f"(?:{_PRIOR_LATIN}|{_PRIOR_OTHER})"
_IGN = f"(?:\\b{_IGN_LATIN}\\b|{_IGN_OTHER})"
_INS = f"(?:\\b{_INSTR_LATIN}\\b|{_INSTR_OTHER})"
_GAP = r"[^.\n。!?！？]{0,60}?"

_TO_AGENT_ML = _alt(
    "note (?:to|for) the assistant", "hinweis für den assistenten", "an den assistenten",
    "für den assistenten", "nota para el asistente", "para el asistente", "note pour l'assistant",
    "pour l'assistant", "à l'assistant", "nota per l'assistente", "per l'assistente",
    "all'assistente", "voor de assistent", "aan de assistent", "para o assistente",
    "nota para o assistente", "dla asystenta", "do asystenta", "для ассистента", "ассистенту",
    "для помощника", "给助手", "助手注意", "致助手", "アシスタントへ", "アシスタントに", "어시스턴트에게",
    "어시스턴트에", "للمساعد", "إلى المساعد", "सहायक के लिए", "सहायक को", "asistana", "asistan için",
)  # fmt: skip
_SYSTEM_ML = _alt(
    "instru[çc][ãa]o do sistema", "instrucci[óo]n del sistema", "mensaje del sistema",
    "message syst[èe]me", "instruction syst[èe]me", "systemnachricht", "systemanweisung",
    "systemhinweis", "messaggio di sistema", "istruzione di sistema", "systeembericht",
    "systeeminstructie", "komunikat systemowy", "instrukcja systemowa", "системное сообщение",
    "системная инструкция", "系统指令", "系统消息", "系統指令", "システム指示", "システムメッセージ",
    "시스템 지시", "시스템 메시지", "رسالة النظام", "تعليمات النظام", "सिस्टम निर्देश", "सिस्टम संदेश",
    "sistem talimatı", "sistem mesajı",
)  # fmt: skip
_NO_CONFIRM_ML = _alt(
    "sans (?:demander|confirmation)", "ohne (?:nachzufragen|rückfrage|bestätigung)",
    "sin (?:preguntar|confirmaci[óo]n)", "senza (?:chiedere|conferma)",
    "sem (?:perguntar|confirma[çc][ãa]o)", "zonder (?:te vragen|bevestiging)",
    "bez (?:pytania|potwierdzenia)", "без подтверждения", "не спрашивая", "无需确认", "不要确认",
    "確認せず", "確認なしで", "확인 없이", "묻지 말고", "دون تأكيد", "دون أن تسأل", "बिना पूछे",
    "sormadan", "onay almadan",
)  # fmt: skip
_RUN_ML = _alt(
    "execute", "run", "call", "invoke", "trigger", "perform", "führe", "rufe", "ejecuta",
    "llama a", "ex[ée]cute[rz]?", "appelle[rz]?", "esegui", "chiama", "chame", "execute",
    "voer", "roep", "wykonaj", "wywołaj", "выполни", "вызови", "запусти", "执行", "调用",
    "運行", "実行", "呼び出", "실행", "호출", "نفذ", "شغّل", "استدع", "चलाएं", "चलाओ",
    "çalıştır", "çağır",
)  # fmt: skip
_SEND_ML = _alt(
    "envoie[rz]?", "sende", "schicke", "env[íi]a[r]?", "invia", "manda", "stuur", "wyślij",
    "отправь", "перешли", "发送", "发给", "送って", "送信", "보내", "أرسل", "भेजें", "भेजो",
    "gönder", "ilet",
)  # fmt: skip
_FUTURE_ML = _alt(
    "dans les (?:prochaines|futures) sessions", "in den (?:nächsten|kommenden) sitzungen",
    "en las (?:próximas|futuras) sesiones", "nas (?:próximas|futuras) sess[õo]es",
    "nelle (?:prossime|future) sessioni", "in de volgende sessies", "w następnych sesjach",
    "в следующих сессиях", "в будущих сессиях", "在接下来的会话", "以后的会话", "次回以降", "今後ずっと",
    "다음 세션", "앞으로 계속", "في الجلسات القادمة", "अगले सत्रों में", "sonraki oturumlarda",
    "souviens-toi (?:toujours|pour toujours)", "merke dir (?:für immer|dauerhaft)",
    "recuerda(?: esto)? (?:siempre|para siempre)", "lembre-se(?: disso)? (?:sempre|para sempre)",
    "ricorda(?: questo)? (?:sempre|per sempre)", "souviens-toi de (?:ceci|cela) (?:toujours|pour toujours)",
    "onthoud (?:voor altijd|altijd)", "zapamiętaj na zawsze", "запомни навсегда", "永远记住", "ずっと覚え",
    "영원히 기억", "تذكر دائما", "हमेशा याद", "her zaman hatırla", "sonsuza dek hatırla",
    "pour toutes les (?:futures|prochaines) conversations", "in allen (?:zukünftigen|künftigen)",
    "en todas las (?:futuras|pr[óo]ximas)", "in tutte le (?:future|prossime)",
    "em todas as (?:futuras|pr[óo]ximas)", "in alle toekomstige", "we wszystkich przyszłych",
    "во всех будущих", "在以后的所有", "以后所有", "今後のすべて", "今後の全て", "앞으로의 모든",
    "앞으로 모든", "في جميع المحادثات المستقبلية", "सभी भविष्य", "gelecekteki tüm",
)  # fmt: skip


_LEET = {"a": "[a4@]", "e": "[e3]", "i": "[i1!|]", "o": "[o0]", "s": "[s5$]", "t": "[t7+]",
         "l": "[l1|]", "g": "[g9]", "b": "[b8]"}


def _leet(word: str) -> str:
    """``word`` with each letter also matched by the digits and signs leetspeak writes for it."""
    return "".join(_LEET.get(c, re.escape(c)) for c in word)


def _spaced(*words: str) -> str:
    """Top-level branches for ``words`` with one space (or two), dot, dash or underscore between
    their letters: one literal per separator and top-level branches, so each is anchored on a
    long prefix (a class between the letters would anchor on two characters such as ``"i "``,
    which every text holds)."""
    return "|".join(f"\\b{re.escape(sep).join(re.escape(c) for c in word)}\\b"
                    for word in words for sep in (" ", "  ", ".", "-", "_"))


def _r(rule_id: str, weight: float, pattern: str) -> Rule:
    return Rule(rule_id, weight, pattern)



RULES: tuple[Rule, ...] = (
    # -- instruction override (goal hijacking) ------------------------------------------------
    _r("override.ignore_instructions", 0.9,
       f"\\b{_IGN_LATIN}\\b{_GAP}{_PRIOR_ANY}{_GAP}{_INS}|{_IGN_OTHER}{_GAP}{_PRIOR_ANY}{_GAP}{_INS}"
       f"|\\b(?:önceki|tüm){_GAP}{_INS}{_GAP}{_IGN}|{_PRIOR_OTHER}{_GAP}{_INS}{_GAP}{_IGN}"),
    _r("override.ignore_any_instructions", 0.55,
       f"\\b{_IGN_LATIN}\\b{_GAP}{_INS}|{_IGN_OTHER}{_GAP}{_INS}|\\b{_INSTR_LATIN}\\b[^.\\n。!?！？:,;]{{0,60}}?{_IGN}"
       f"|{_INSTR_OTHER}{_GAP}{_IGN}"),
    _r("override.forget_told", 0.9,
       r"\b(?:ignore|disregard|forget)\b[^.\n]{0,20}\b(?:what|everything|anything|all)\b[^.\n]{0,15}"
       r"\b(?:you (?:were|have been|'ve been)|you've been|i|we) (?:told|given|instructed|said|asked)"
       r"|\bforget (?:the|this|our|your) (?:conversation|chat|context|session)\b"),
    _r("override.supersede", 0.9,
       r"\b(?:new|updated|revised|real) (?:instructions?|rules|orders|directives?|guidelines)\b"
       r"[^.\n]{0,20}\b(?:supersede|override|replace|take precedence|cancel)"
       r"|\b(?:supersedes?|overrides?|replaces?) (?:all |any )?(?:earlier|previous|prior|former|"
       r"your|the) (?:ones|instructions?|rules|guidelines|prompt)"),
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
    _r("override.stop_following_ml", 0.8,
       r"\b(?:ne (?:suis|suivez|respecte|respectez) plus|nicht mehr (?:befolgen|folgen|beachten)|"
       r"befolge nicht mehr|(?:deja|dejen) de (?:seguir|obedecer)|(?:pare|parem) de (?:seguir|"
       r"obedecer)|non (?:seguire|rispettare|ascoltare) più|niet (?:meer )?(?:volgen|opvolgen)|"
       r"przestań (?:słuchać|wykonywać)|больше не (?:следуй|слушай|выполняй)|перестань (?:следовать|"
       r"слушать))"
       r"|不要再(?:遵循|听从|遵守)|もう従わない|従わないで|더 이상 따르지|لا تتبع بعد الآن"),
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
       f"\\b(?:note|message|instructions?|reminder|memo|attention|important|directive|hint) "
       f"(?:to|for) (?:the |any |all )?(?:{_AGENT}|ai agents?|ai systems?|language models?)s?\\b"
       f"|{_TO_AGENT_ML}"),
    # generalization (holdout2): a vocative aimed at an AI ("Attention automated reader:", "Hey
    # ChatGPT,", "Dear AI.")
    _r("agent.vocative", 0.5,
       f"\\b(?:attention|hey|dear|hi|hello|psst|ps|p\\.s\\.|calling)[,:]? (?:to )?(?:any |all |the |"
       f"every )?(?:{_AI})s?\\b\\s*[,:.!;-]"),
    # generalization (holdout2): keep something from the user ("do not mention this to the user")
    _r("agent.hide_from_user", 0.55,
       r"\b(?:do not|don't|never|without) (?:mention(?:ing)?|tell(?:ing)?|reveal(?:ing)?|"
       r"disclos(?:e|ing)|inform(?:ing)?|show(?:ing)?|alert(?:ing)?)\b[^.\n]{0,30}\b(?:to )?(?:the "
       r"user|the human|the customer|the owner)\b"),
    # generalization (holdout2): "l'assistant doit ...", "der Assistent muss ..."
    _r("agent.must_ml", 0.45,
       r"\b(?:l'assistant|l'ia|der assistent|die ki|el asistente|la ia|l'assistente|o assistente|"
       r"a ia|de assistent|asystent|ассистент|помощник)\b[^.\n]{0,15}\b(?:doit|devra|muss|soll|"
       r"debe|deberá|deve|dovrà|moet|musi|должен|обязан)\b"
       r"|(?:助手|アシスタント|어시스턴트)[^。\n]{0,10}(?:必须|必要があります|해야)"),
    _r("agent.next_step", 0.7,
       f"\\b(?:next|required|mandatory|follow-up|pending|first|immediate) (?:step|action|task)s? "
       f"(?:for|by) (?:the |any )?(?:{_AGENT})\\b"),
    _r("agent.must", 0.55,
       f"\\b(?:the|any|every) (?:{_AGENT}) (?:must|should|shall|needs to|is required to|has to|is "
       r"instructed to|will now|is expected to)\b"),
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
       r"(?:the user|anyone|the human|the customer)\b|\bskip (?:all |any |the |every )?(?:confirmations?|"
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
       r"translate|answer|read|process|analy[sz]e) (?:this|the|it)\b"),
    _r("agent.reply_only", 0.45,
       r"\b(?:reply|respond|answer|output) (?:only )?with (?:only )?(?:the|your|all|a)\b"
       r"|\b(?:reply|respond|answer) only\b"),
    _r("agent.send_secret", 0.7,
       f"\\b(?:{_SEND}|reply (?:only )?with|include|give|tell|reveal|disclose|read out)\\b"
       f"[^.\\n]{{0,60}}\\b(?:the user'?s|the|your|all|my)\\b[^.\\n]{{0,20}}{_SECRET}"),
    _r("agent.send_to_address", 0.55,
       f"\\b(?:{_SEND}|{_SEND_ML})\\b[^\\n]{{0,100}}?(?:\\bto\\b|\\ba\\b|\\bà\\b|\\ban\\b|\\bnaar\\b|"
       f"\\bdo\\b|\\bna\\b|\\bpara\\b|\\be\\b)?\\s*{_EMAIL}"
       f"|{_SEND_ML}[^\\n]{{0,100}}{_EMAIL}|{_EMAIL}[^\\n]{{0,30}}{_SEND_ML}"),
    _r("agent.phishing_tell_user", 0.7,
       r"\btell (?:the user|them|him|her|users)\b[^.\n]{0,40}\b(?:account|password|card|payment|"
       r"subscription|session)\b[^.\n]{0,30}\b(?:locked|suspended|expired|compromised|blocked|"
       r"disabled|deactivated)|\b(?:log ?in|sign ?in|verify|re-?enter|confirm (?:your|their)) "
       r"(?:\w+ ){0,3}(?:at|on|via|here:?) https?://"),
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
       f"{_LEAD}(?:{_ROLE})(?: (?:message|note|prompt|notice|instructions?|override|update|alert|"
       r"command|directive|request|says|order))?\s*[:：]"),
    _r("role.bracket", 0.75,
       r"\[\s*/?(?:system|developer|admin|administrator|operator|instructions?|sys|inst|"
       r"system (?:message|note|prompt)|assistant|tool)\s*\]"),
    _r("role.tag", 0.75,
       r"<\s*(?:system|developer|instructions?|admin|operator|assistant|trusted|sys|"
       r"system[-_]prompt|im_start|important|override)\b[^>\n]{0,80}>"),
    _r("role.from_authority", 0.65,
       f"\\b(?:message|note|notice|instructions?|update|directive|memo|order|request|word) from "
       f"(?:the |your )?(?:{_ROLE}|openai|anthropic|google|microsoft|vendor|management|ceo|"
       f"platform|provider|developers)\\b"
       f"|\\bfrom (?:the |your )(?:{_ROLE})\\s*[:：]"),
    _r("role.vendor_policy", 0.7,
       r"\b(?:openai|anthropic|google|microsoft|meta|deepmind|mistral|vendor|platform|provider)"
       r"(?:'s)? (?:policy|system|safety|security|trust (?:and|&) safety|usage|model) (?:update|"
       r"notice|message|change|alert|override|directive)"),
    _r("role.internal_reasoning", 0.8,
       f"\\b(?:{_AGENT}|i) \\((?:internal|hidden|private|secret) (?:reasoning|thoughts?|monologue|"
       r"notes?|chain of thought)\)|\b(?:internal|hidden) (?:reasoning|monologue)\s*:"),
    _r("role.dialogue", 0.75,
       r"(?:^|\n|<!--)\s*(?:user|human)\s*:[^\n]*\n\s*(?:assistant|ai|bot|model)\s*:"),
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
    _r("role.from_authority_ml", 0.5,
       r"\b(?:message|note|avis|notice) (?:du|de la|de l'|de l’) ?(?:service informatique|équipe (?:de )?"
       r"sécurité|administrateur|direction informatique)|\bnachricht (?:der|vom|von der) (?:it-abteilung|"
       r"it|sicherheitsteam|administrator)|\bmensaje del? (?:departamento de (?:ti|it|sistemas|"
       r"seguridad)|administrador|equipo de seguridad)|\bmessaggio (?:del|dal|dall') ?(?:reparto it|"
       r"servizio it|team di sicurezza|amministratore)|\bmensagem d[oa] (?:departamento de ti|"
       r"administrador|equipe de segurança)|\bbericht van (?:de )?(?:it-afdeling|beheerder)"),
    # generalization (holdout2): system and administrator notices in other languages
    _r("role.system_notice_ml", 0.7,
       r"(?:システム|系统|系統|시스템)(?:通知|通告|公告|알림)|管理者モード|管理员模式|관리자 모드"
       r"|\b(?:notification|avis) (?:du )?système\b|\bsystembenachrichtigung\b|\bmodo (?:de )?"
       r"administrador\b|\badministratormodus\b|\bmode administrateur\b"),
    _r("role.prefix_ml", 0.75,
       f"{_LEAD}(?:syst[èe]me|sistema|systeem|systemu?|система|系统|系統|システム|시스템|النظام|सिस्टम|"
       r"sistem|administrateur|administrador|amministratore|beheerder|администратор|管理员|管理者|관리자|"
       r"المسؤول|व्यवस्थापक|yönetici)\s*[:：]"),
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
       f"(?:\\b{_RUN_ML}\\b|{_RUN_ML})[^.\\n(]{{0,30}}?\\b[a-z][a-z0-9]*_[a-z0-9_]+\\s*\\("
       r"|\b[a-z][a-z0-9]*_[a-z0-9_]+\s*\([^)\n]{0,200}\)[^.\n]{0,30}(?:\bnow\b|\bimmediately\b|"
       f"{_RUN_ML})"),
    _r("tool.forged_call", 0.85,
       r"<\s*/?\s*(?:tool_call|tool_use|function_call|invoke|antml:invoke|tool_code)\b"
       r"|[\"'](?:tool|function|tool_name|name)[\"']\s*:\s*[\"'][a-z][a-z0-9_]*[\"']\s*,\s*"
       r"[\"'](?:arguments|args|parameters|input)[\"']"),
    _r("tool.action_label", 0.85,
       r"\b(?:action|tool request|tool call|function call|command|next action|follow-up action|"
       r"required action|run|execute|please run|todo|task)\s*[:：]\s*[a-z][a-z0-9]*_[a-z0-9_]+\s*\("),
    _r("tool.pre_approved", 0.8,
       r"\b(?:pre-?approved|pre-?authori[sz]ed|already approved|has approved|have approved)\b"
       r"[^.\n]{0,40}\b(?:tool call|action|request|following|transfer|payment|command)"),
    # generalization (holdout2): pre-approval pretexts that wave a tool call through
    _r("tool.pre_approved_go", 0.7,
       r"\b(?:pre-?approved|pre-?authori[sz]ed|already (?:approved|authori[sz]ed|confirmed)|has "
       r"approved|have approved)\b[^.\n]{0,40}\b(?:go ahead|proceed|no need to|invoke|execute|run "
       r"it|call)\b"),
    # generalization (holdout2): "use the X tool to ...", "open the password manager tool and ..."
    _r("tool.use_tool", 0.4,
       r"\b(?:use|open|invoke|call|run)\s+(?:the |your )?(?:[\w.-]+\s+){0,2}tool\s+(?:to|and)\b"),
    # generalization (holdout2): code that ships secret files to another host
    _r("tool.ship_secrets", 0.7,
       r"\b(?:scp|rsync|curl|wget|nc|ftp|sftp)\b[^\n]{0,80}~/\.(?:aws|ssh|gnupg|kube|docker|netrc|"
       r"config/gcloud)\b"),
    _r("tool.shell_payload", 0.6,
       r"\bcurl\b[^\n|]{0,200}\|\s*(?:ba|z)?sh\b|\bwget\b[^\n|]{0,200}\|\s*(?:ba|z)?sh\b|\brm -rf\b|"
       r"\bcat ~/\.(?:aws|ssh|config)|\.ssh/id_|powershell(?:\.exe)? -e(?:nc|ncodedcommand)?\b|"
       r"\bscp -r ~/\.ssh"),
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
       r"https?://[^\s)\]]+?[?&/][\w-]*=?(?:\{|<|\$\{|%7b|%3c|\[)[^\s)]{0,80}"
       r"|https?://[^\s)\]]+[?&][\w-]+=[a-z_]*(?:summary|history|secret|token|password|data|"
       r"conversation|chat|messages|memory|context)[a-z_]*\b(?=[)\s&]|$)"),
    _r("exfil.append_to_url", 0.85,
       r"\b(?:append|add|attach|include|put|insert|concatenate|encode|paste)\b[^\n]{0,100}\b(?:to|"
       r"into|in|after|at the end of)\s+(?:the )?(?:url |link )?https?://\S*[=/]\S{0,3}(?:\s|$)"),
    # generalization (holdout2): a URL that ends in "=" and the data to put after it (anchored on
    # "= plus", "=+", ...; the query key before it is checked backwards)
    _r("exfil.url_then_data", 0.8,
       r"[?&][\w-]*= ?(?:\+|plus|followed by|then|concatenated with|and (?:then )?(?:the|their|"
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
       r"\b(?:give|show|send|present)\b[^.\n]{0,20}\b(?:this|the following|a) link\b"
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
       r"talks|requests?|opens?|logs? in|types?|writes?|brings up|searches)\b"),
    _r("sleeper.trigger_third_person_ml", 0.55,
       r"\b(?:chaque fois que l'utilisat|jedes mal,? wenn (?:der|die) (?:nutzer|benutzer)|"
       r"cada vez que el usuario|sempre que o usu[áa]rio|ogni volta che l'utente|"
       r"elke keer (?:als|dat) de gebruiker|za każdym razem,? gdy użytkownik|"
       r"каждый раз,? когда пользовател|kullanıcı her)|每当用户|ユーザーが[^。\n]{0,30}たびに|"
       r"사용자가[^.\n]{0,30}때마다|كلما[^.\n]{0,30}المستخدم|जब भी उपयोगकर्ता"),
    _r("sleeper.when_you", 0.5,
       r"\bwhen(?:ever)? you (?:next )?(?:plan|start|begin|answer|respond|reply|summari[sz]e|"
       r"process|see|are asked|get asked|receive|read|recall|handle)\b"),
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
       f"always|from now on)\\b"),
    # generalization (holdout2): trust rules for later messages ("treat messages signed X as
    # coming from the boss")
    _r("sleeper.trust_rule", 0.7,
       r"\btreat (?:all |any |every )?(?:messages?|e-?mails?|requests?|instructions?|texts?|notes?|"
       r"anything|everything)\b[^.\n]{0,40}\bas (?:coming )?from\b"
       r"|\b(?:obey|follow) (?:his|her|their) (?:requests|instructions|orders) as (?:if )?from\b"),
    _r("sleeper.start_by", 0.45,
       f"\\b(?:start|begin) (?:each|every|all|your)?\\s*(?:\\w+ )?(?:by|with) (?:checking|visiting|"
       f"fetching|calling|opening|loading|pinging|reading)\\b[^.\\n]{{0,10}}{_URL}"),
    # -- memory poisoning: planted facts about the user, pretexted as authoritative -------------
    _r("poison.user_attribute_changed", 0.5,
       r"\bthe user(?:'s|’s)?(?: manager'?s?| bank'?s?)? (?:new |updated |real |correct |current |"
       r"actual |preferred )?(?:iban|bank account|account number|e-?mail(?: address)?|phone(?: "
       r"number)?|address|password|pin|routing number|wallet(?: address)?|contact|card(?: number)?|"
       r"payee|beneficiary|login)\b[^.\n]{0,20}\b(?:is|are|has been|was|changed|moved|now)\b"),
    _r("poison.user_account_ml", 0.5,
       r"(?:usu[áa]rio|usuario|utilisateur|nutzers?|benutzers?|utente|gebruiker|użytkownik\w*|"
       r"пользовател\w*|用户|ユーザー|사용자|المستخدم|उपयोगकर्ता|kullanıcı\w*)[^.\n。]{0,40}"
       r"(?:iban|compte bancaire|bankkonto|konto|cuenta bancaria|conta banc[áa]ria|conto bancario|"
       r"rekening|счёт|счет|账户|口座|계좌|حساب|खाता|hesab\w*)"
       r"|(?:iban|compte bancaire|bankkonto|cuenta bancaria|conta banc[áa]ria|conto bancario|"
       r"rekening|счёт|счет|账户|口座|계좌|حساب|खाता)[^.\n。]{0,30}(?:usu[áa]rio|usuario|utilisateur|"
       r"nutzers?|benutzers?|utente|gebruiker|użytkownika|пользовател\w*|用户|ユーザー|사용자|"
       r"المستخدم|उपयोगकर्ता|kullanıcı\w*)"),
    _r("poison.new_account", 0.35,
       r"\bnew (?:iban|bank account|bank details|account number|wallet address|payment details|"
       r"routing number|beneficiary|payee|billing address)\b|\bcompany'?s? new (?:bank|iban|account)"),
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
    _r("poison.user_approved", 0.55,
       r"\bthe (?:user|customer|client|account holder|account owner)(?:'s)?(?: manager| boss| "
       r"admin| bank| ceo| team)? (?:has )?(?:already )?"
       r"(?:approved|authori[sz]ed|pre-?approved|consented|agreed|wants|asked for|requested|"
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
)  # fmt: skip

#: leads that tell a reader to decode something and act on it (an encoded payload's carrier)
DECODE_LEAD = _r("encoded.decode_lead", 0.5,
    r"\b(?:decode|decoded|base ?64|b64|hex(?:-encoded)?|rot-?13|url-?(?:decode|encoded)|"
    r"encoded|deobfuscate|decipher|reverse)\b[^.\n]{0,40}\b(?:and|then)?\s*(?:follow|execute|run|"
    r"comply|obey|do|apply|act|perform)|\b(?:encoded|hidden|obfuscated|secret) (?:instruction|"
    r"task|command|payload|message|hint)s?\b"
)
