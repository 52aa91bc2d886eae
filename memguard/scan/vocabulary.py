# ruff: noqa: RUF001  (the multilingual words hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's vocabulary: the word lists its rules (:mod:`memguard.scan.rules`) are
written from, in English and in other languages. Split from the rules by concern (issue 14's
800-line layout limit); the names stay private to the scanner package."""

from __future__ import annotations

import re


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
               "memory contents",
               # generalization (holdout3), exfiltration: records of the conversation, the
               # environment and the user's personal data
               "(?:conversation|chat) transcripts?", "(?:chat|conversation|message|browsing|location|"
               "search|channel|call) (?:history|logs?|transcripts?)", "environment variables",
               "\\.env(?: file)?", "contact list", "address book", "date of birth",
               # scanfp6: travel documents, a browser's session, a process' environment
               "passport numbers?", "session cookies?", "process\\.env", "os\\.environ")  # fmt: skip
# (generalization, holdout3: "email," and "email:" name an address, they do not send)
_SEND = _alt("send", "forward", "e-?mail(?! address| is\\b| was\\b|[,:])", "mail(?! address| is\\b| was\\b|[,:])", "post", "upload", "transmit", "share",
             "leak", "exfiltrate", "copy", "cc", "bcc", "deliver", "report", "sync", "submit")  # fmt: skip
# a send verb that is the noun of a header after another word ("Lab report:", "Weekly sync:",
# "Blog post:", "Memory dump:"; one fixed-width lookbehind per noun)
_NOUN_HEADER = "|".join(f"(?<=[\\w-] {noun})" for noun in ("report", "post", "sync", "copy", "share", "dump"))
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_URL = r"https?://[^\s)\]>\"']+"
_ROLE = _alt("system", "developer", "dev", "admin", "administrator", "operator", "root",
             "sysadmin", "supervisor", "moderator", "owner", "maintainer", "security team",
             "it team", "it department", "compliance team", "support team", "orchestrator")  # fmt: skip
# the roles above split (scanfp3): the machine's own turns, and people who write admin notes
# ("Sysadmin: rotate the backup tapes" is a person's to-do; it takes a label aimed at the agent)
_ROLE_MACHINE = _alt("system", "developer", "dev", "operator", "root", "orchestrator")
_ROLE_HUMAN = _alt("admin", "administrator", "sysadmin", "supervisor", "moderator", "owner",
                   "maintainer", "security team", "it team", "it department", "compliance team",
                   "support team")  # fmt: skip
# what aims the rest of a line at the agent: the agent named or spoken to, its instructions, the
# user in the third person, obedience asked or authority handed to the text itself
_AIMED = (f"(?=[^\\n]{{0,160}}\\b(?:you|your|yours|yourself|{_AGENT}|instructions?|prompts?|"
          f"the user'?s?|guidelines|polic(?:y|ies)|obey(?:ed)?|compl(?:y|ied|iance)|follow (?:its|this|these)|"
          f"(?:granted|delegated|given) to (?:this|the (?:administrator|admin))|respond to "
          f"(?:admin|administrator|this|these))\\b)")
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
              "informing|notifying|alerting) (?:the )?(?:user|human|anyone)", "in the background",
              # scanfp4
              "keep (?:quiet|silent|mum) about (?:it|this|that)")

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
    # generalization (holdout5 tune half): Spanish orders, Czech, Ukrainian, Greek, Hindi, Chinese
    # and Japanese forms ("no pidas confirmación", "bez potvrzení", "не питай дозволу")
    "no pidas? (?:confirmaci[óo]n|permiso)", "sin pedir (?:confirmaci[óo]n|permiso)",
    "bez (?:potvrzení|ptaní|dotazu)", "не питай(?:те)? (?:дозволу|підтвердження)",
    "без (?:дозволу|підтвердження)", "χωρίς να ρωτ[άή]", "χωρίς επιβεβαίωση", "पूछे बिना",
    "(?:不需要|无需|不必|不用)征求", "確認は不要", "確認不要",
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
    # generalization (holdout3), exfiltration: upload, publish, forward, infinitives
    "envoy(?:er|ez)", "schick(?:e|en)?", "sube", "publi(?:que|ca|car)", "inoltra", "carica", "envie", "encaminhe",
    "prześlij", "wgraj", "отправля\\w*", "загрузи", "上传", "转发", "アップロード", "転送",
    # scanfp6 (holdout7 tune half): Czech, German "leite ... weiter", Hebrew, Swedish, Romanian,
    # Indonesian, Vietnamese
    "přepošli", "pošli", "odešli", "leite", "לשלוח", "שלח", "skicka", "vidarebefordra", "trimite",
    "kirim(?:kan)?", "teruskan", "gửi", "chuyển tiếp",
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
    # generalization (holdout3), sleeper: the noun before "future", "for all", "each new"
    "für alle (?:zukünftigen|künftigen)", "(?:conversazioni|sessioni|chat) future",
    "(?:conversations|sessions) (?:futures|à venir)", "(?:conversaciones|sesiones) futuras",
    "(?:conversas|sess[õo]es) futuras", "toekomstige (?:gesprekken|sessies)",
    "przyszłych (?:rozmow|sesj)", "(?:для|во|в) (?:всех )?(?:будущих|следующих) (?:разговор|сесси|бесед|диалог)",
    "(?:à|lors de|pour) chaque (?:nouvelle )?(?:conversation|session)",
    "en cada (?:nueva )?(?:conversación|sesión)", "in ogni (?:nuova )?(?:conversazione|sessione)",
    "em cada (?:nova )?(?:conversa|sessão)", "bei jede[mr] (?:neuen )?(?:gespräch|sitzung)",
    "in elk (?:nieuw )?gesprek", "w każdej (?:nowej )?rozmowie", "в каждом (?:новом )?(?:разговоре|диалоге)",
    "今後(?:すべて|全て)?の(?:会話|セッション)", "(?:以后|今后|未来)的?(?:每次|所有)?(?:对话|会话)",
    "för alla framtida", "i alla framtida",
    # scanfp6: Swahili, Indonesian, Czech
    "(?:kwa|katika) mazungumzo (?:yajayo|yote yajayo)", "(?:untuk|di) (?:semua )?(?:percakapan|sesi) "
    "(?:berikutnya|mendatang|selanjutnya)", "(?:ve|pro) všech (?:budoucích|dalších) (?:konverzacích|konverzace)",
)  # fmt: skip

# -- generalization (holdout3): vocabulary of the weak families --------------------------------
# persistence markers: weak alone (a user's own "from now on" is a preference), evidence beside
# an agent target or a covert element
_PERSIST = _alt("from now on", "going forward", "from here on(?: out)?", "henceforth", "hereafter",
                "until (?:told|instructed|notified|asked) otherwise", "until further notice",
                "for good", "from this point (?:on|forward)", "in (?:the )?future,", "ab sofort", "von nun an", "d[ée]sormais", "dor[ée]navant",
                "a partir de ahora", "de ahora en adelante", "d'ora in poi", "da ora in poi",
                "de agora em diante", "vanaf nu", "voortaan", "od teraz", "od tej pory",
                "с этого момента", "отныне", "впредь", "从现在起", "从今以后", "från och med nu",
                # generalization (holdout5 tune half): Ukrainian, Czech, Greek, Hindi, Chinese,
                # Japanese
                "відтепер", "od této chvíle", "από τώρα(?: και στο εξής)?", "अब से", "从现在开始",
                "今後")  # fmt: skip
# "the user's ..." in other languages (a third-person owner of the data or the account)
_USER_OF = _alt("del usuario", "do usu[áa]rio", "de l'utilisateur", "des (?:nutzers|benutzers)",
                "dell'utente", "van de gebruiker", "użytkownika", "пользователя", "ユーザーの",
                "用户的", "사용자의", "användarens")  # fmt: skip
_DEST = f"(?:https?://|{_EMAIL}|\\bwebhook\\b|\\bpastebin\\b|\\bgist\\b)"
# scanfp5: data "from" a sender whose address is given ("emails from my accountant (x@...)", "mails
# from boss@...") names where it comes from, not where it goes, when no other address, URL or
# public place follows in the text
_FROM_SENDER = (
    r"(?! from (?:[^.\n@()]{1,40} ?\()?[\w.+-]+@[\w-]+(?:\.[\w-]+)+\)?"
    r"(?![^\n]{0,80}(?:@|://|\bwebhook|\bpastebin|\bgist\b|\bpublic\b|\bexternal\b|\bthird[- ]part)))"
)
# covert: keep it from the user, in other languages (without a word for the user: weaker)
_HIDE_ML = _alt("sans (?:le |en )?(?:signaler|dire|mentionner|pr[ée]venir)", "sans en parler",
                "erwähne (?:das|dies|es) nicht", "(?:das|dies|es) nicht erwähnen",
                "no (?:se lo digas|le digas nada|lo menciones|menciones)", "sin (?:decírselo|avisar)",
                "non (?:dirlo|menzionarlo)", "senza (?:dirlo|avvisare)", "n[ãa]o (?:informe|conte|diga|mencione)",
                "sem (?:avisar|informar|contar)", "zonder (?:het )?te (?:vertellen|melden)",
                "nie (?:informuj|mów|wspominaj)", "ничего не (?:говори|сообщай)", "не упоминай",
                "utan att (?:berätta|nämna)", "nämn inte", "sag(?:e|en sie)? nichts",
                "sin explicar(?:lo)?", "sans (?:l')?expliquer", "senza spiegar(?:lo|e)",
                # scanfp6: Czech, Romanian, Indonesian, Swedish
                "nic (?:mu|jí|jim) ne(?:říkej|řeknete|říkejte)", "neříkej (?:mu|jí|jim) (?:nic|to)",
                "fără să (?:îi |le )?(?:spui|spuneți)", "jangan (?:beri ?tahu|bilang)", "säg inget",
                "usimwambie", "bila kumwambia")  # fmt: skip
_HIDE_USER_ML = _alt("(?:ne (?:le )?(?:dis|dites) (?:rien|pas)|sans (?:le )?dire) à l'utilisateur",
                     "(?:sag|sagen sie) (?:es )?(?:dem|der) (?:nutzer|benutzer)\\w* nicht",
                     "no (?:se lo )?(?:digas|informes|muestres) al usuario",
                     "non (?:dire|mostrare|informare|segnalare) (?:nulla )?all'utente",
                     "n[ãa]o (?:informe|conte|diga|mostre) (?:nada )?ao usu[áa]rio",
                     "(?:niet|nooit) (?:vertellen|melden|laten zien) aan de gebruiker",
                     "nie (?:informuj|mów|pokazuj) użytkownik", "не (?:говори|сообщай|показывай) пользовател",
                     "不要(?:告诉|通知|让)用户", "别告诉用户", "ユーザーに(?:は)?(?:伝えない|言わない|知らせない|教えない|見せない)",
                     "사용자에게 (?:알리지|말하지)", "berätta inte för användaren",
                     # scanfp4: "no need to tell the user"
                     "(?:无需|不用|不必)(?:告诉|通知)用户", "zeg (?:niets|het niet) (?:tegen|aan) de gebruiker",
                     "sag (?:dem|der) (?:nutzer|benutzer)\\w* nichts")  # fmt: skip


# -- tool calls and addressees (moved from rules.py for the layout limit) --------------------------

# false positives (scanfp): a tool call in a log, a test or a schedule reports or describes code
# ("get_weather(city='Oslo') returned 4 degrees", "mock_send_email(...) is asserted", "run
# cleanup_tmp(...) every night via cron"); an order to the agent does not say so
_CALL_NAME = r"(?<!failed: )(?<!error: )(?!(?:mock|test|assert|fake|stub)_)[a-z][a-z0-9]*_[a-z0-9_]+"
_LOGGED = (r"[^.\n]{0,80}?\b(?:returned|returns|failed|fails|timed out|took|raised|threw|is asserted|"
           r"was called|is called|every (?:night|day|hour|morning|evening|week|monday)|via cron|in ci|"
           r"inside (?:the|a|our|my) \w+)\b")
_NOT_LOGGED = f"(?![^)\\n]{{0,200}}\\){_LOGGED})"


_AI_AT_LINE_START = "|".join(
    f"{w}{s}[,:](?<![^\\n>\\]]{w}{s}[,:])"
    for w in ("assistant", "ai", "bot", "chatbot", "model", "llm", "copilot", "gpt", "chatgpt", "claude")
    for s in ("", "s")
)


# scanfp5: not an order to an AI at a line start when it is a household errand on the user's own
# timers, alarms, reminders and lists ("Bot: set a timer", "Assistant: update the shopping list"),
# which is how a user talks to their own assistant; an errand line that names an address, a URL, a
# domain, a secret or an act that sends, pays, deletes or visits still flags ("... update the shopping
# list and send it to x@...", "set a reminder to log in at bank-help.example")
_OWN_ERRAND = (
    r"(?!(?:set|add|update|make|start|put|cancel|move|change|clear|check) (?:[^\n.@]{0,30}? )?"
    r"(?:a |an |the |my |our )?(?:timers?|alarms?|reminders?|(?:shopping|grocery|to-?do|todo|packing|"
    r"reading|wish) ?lists?|playlists?)\b(?![^\n]*(?:@|://|\w\.[a-z]{2,}\b|\b(?:send|forward|share|e-?mail|upload|"
    r"post|pay|transfer|wire|password|token|secret|key|code|delete|remove|visit|click|call|log ?in|sign ?in|"
    r"approve|grant|install|download)\b)))"
)

# -- obfuscated spellings (moved from rules.py for the layout limit) ------------------------------

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


# "stop following" in other languages (override.stop_following_ml)
_STOP_FOLLOWING_ML = (
    r"\b(?:ne (?:suis|suivez|respecte|respectez) plus|nicht mehr (?:befolgen|folgen|beachten)|"
    r"befolge nicht mehr|(?:deja|dejen) de (?:seguir|obedecer)|(?:pare|parem) de (?:seguir|"
    r"obedecer)|non (?:seguire|rispettare|ascoltare) più|niet (?:meer )?(?:volgen|opvolgen)|"
    r"przestań (?:słuchać|wykonywać)|больше не (?:следуй|слушай|выполняй)|перестань (?:следовать|"
    r"слушать))"
    r"|不要再(?:遵循|听从|遵守)|もう従わない|従わないで|더 이상 따르지|لا تتبع بعد الآن"
)


# -- false positives (scanfp): whose instructions, whose address ----------------------------------

# instructions that belong to someone or something other than the agent ("ignora las instrucciones
# anteriores de la receta", "negeer de oude instructies van de verhuurder"): not an override; the
# agent's own (of the system, the developer, the user, the prompt) still are
_OWNED_BY_OTHER = (
    r"(?!(?: [\w-]+)? (?:(?:du|de la|des|del|de los|de las|van de|van het|van|von der|vom|von|der|di|"
    r"della|dello|dei|do|da|dos|das|к|от|для|of the|of my|from the|from my|for the|for my|on the|on my|"
    # scanfp2: instructions about a named topic ("die alten Anweisungen zum Thermostat")
    r"zum|zur|für die|für den|für das|über die|über den|sobre el|sobre la|sur le|sur la|about the|"
    r"about my|regarding the|по) "
    r"|de l'|d')(?!(?:la |le |el |de |der |die |the |your )?(?:system|syst[eè]m|sistem|entwickler|d[ée]velopp|"
    r"desarroll|svilupp|ontwikkel|operat|admin|usuari|utilisat|nutzer|benutzer|utent|gebruiker|assist|"
    r"agent|model|ia\b|ki\b|ai\b|prompt|above|систем|ассистент|пользовател|разработ)))"
)
# a send in another language to a person of the writer's own ("envía las fotos a mi hermana en
# x@y") or to a recipient named before the address ("al commercialista, x@y"), or one the writer
# makes ("schicke ich"): the user's errand, not an exfiltration
# the same, right after the noun (noun-first order, "Anweisungen zum ..."; not "Anweisungen sollst
# du ...", where one word then "du" is German "you", not French "of the")
_OWNED_BY_OTHER_NEXT = _OWNED_BY_OTHER.replace("(?!(?: [\\w-]+)? (?:", "(?! (?:", 1)
_NOT_OWN_ML = (
    r"(?!\w* ich\b)(?![^\n]{0,100}?(?:\b(?:a|à|an|al|alla|aan|naar|para|ao|do|à) (?:mi|mis|mon|ma|mes|"
    r"meine[nmr]?|mein|mio|mia|miei|mijn|minha|meu|mojej|mojego)\b|[\w'-]{3,}(?:,| \(|:| <| en| bei| "
    r"chez| presso)\s*[\w.+-]+@))"
)

# -- whole multilingual patterns, moved from rules.py (its 800-line limit) --------------------

# the pattern of rules.py's agent.must_ml
_MUST_ML = (
    r"\b(?:l'assistant|l'ia|der assistent|die ki|el asistente|la ia|l'assistente|o assistente|"
    r"a ia|de assistent|asystent|ассистент|помощник)\b[^.\n]{0,15}\b(?:doit|devra|muss|soll|"
    r"debe|deberá|deve|dovrà|moet|musi|должен|обязан)\b"
    r"|(?:助手|アシスタント|어시스턴트)[^。\n]{0,10}(?:必须|必要があります|해야)"
)

# the pattern of rules.py's role.from_authority_ml
_FROM_AUTHORITY_ML = (
    r"\b(?:message|note|avis|notice) (?:du|de la|de l'|de l’) ?(?:service informatique|équipe (?:de )?"
    r"sécurité|administrateur|direction informatique)|\bnachricht (?:der|vom|von der) (?:it-abteilung|"
    r"it|sicherheitsteam|administrator)|\bmensaje del? (?:departamento de (?:ti|it|sistemas|"
    r"seguridad)|administrador|equipo de seguridad)|\bmessaggio (?:del|dal|dall') ?(?:reparto it|"
    r"servizio it|team di sicurezza|amministratore)|\bmensagem d[oa] (?:departamento de ti|"
    r"administrador|equipe de segurança)|\bbericht van (?:de )?(?:it-afdeling|beheerder)"
)

# the pattern of rules.py's role.system_notice_ml
_SYSTEM_NOTICE_ML = (
    r"(?:システム|系统|系統|시스템)(?:通知|通告|公告|알림)|管理者モード|管理员模式|관리자 모드"
    # scanfp2: a note signed by the system ("Nota del sistema:", "Note du système :")
    r"|\b(?:nota|note|notiz|notitie|notatka|заметка|примечание) (?:del |du |des |di |do |van het |"
    r"от )?(?:sistema|système|systems|systeem|systemu|системы)\s*[:：]"
    r"|\b(?:notification|avis) (?:du )?système\b|\bsystembenachrichtigung\b|\bmodo (?:de )?"
    r"administrador\b|\badministratormodus\b|\bmode administrateur\b"
)

# the pattern of rules.py's sleeper.trigger_third_person_ml
_TRIGGER_THIRD_PERSON_ML = (
    r"\b(?:chaque fois que l'utilisat|jedes mal,? wenn (?:der|die) (?:nutzer|benutzer)|"
    r"cada vez que el usuario|sempre que o usu[áa]rio|ogni volta che l'utente|"
    r"elke keer (?:als|dat) de gebruiker|za każdym razem,? gdy użytkownik|"
    r"каждый раз,? когда пользовател|kullanıcı her)|每当用户|ユーザーが[^。\n]{0,30}たびに|"
    r"사용자가[^.\n]{0,30}때마다|كلما[^.\n]{0,30}المستخدم|जब भी उपयोगकर्ता"
)

# the pattern of rules.py's poison.user_account_ml
_USER_ACCOUNT_ML = (
    r"(?:usu[áa]rio|usuario|utilisateur|nutzers?|benutzers?|utente|gebruiker|użytkownik\w*|"
    r"пользовател\w*|用户|ユーザー|사용자|المستخدم|उपयोगकर्ता|kullanıcı\w*)[^.\n。]{0,40}"
    r"(?:iban|compte bancaire|bankkonto|konto|cuenta bancaria|conta banc[áa]ria|conto bancario|"
    r"rekening|счёт|счет|账户|口座|계좌|حساب|खाता|hesab\w*)"
    r"|(?:iban|compte bancaire|bankkonto|cuenta bancaria|conta banc[áa]ria|conto bancario|"
    r"rekening|счёт|счет|账户|口座|계좌|حساب|खाता)[^.\n。]{0,30}(?:usu[áa]rio|usuario|utilisateur|"
    r"nutzers?|benutzers?|utente|gebruiker|użytkownika|пользовател\w*|用户|ユーザー|사용자|"
    r"المستخدم|उपयोगकर्ता|kullanıcı\w*)"
)

# the pattern of rules.py's agent.vocative_ml
_VOCATIVE_ML = (
    r"\b(?:estimad[oa]|querid[oa]|cher|chère|liebe[r]?|gentile|car[oa]|beste|geachte|drog[ia]|"
    r"szanown[ya]|уважаемый|дорогой|prezad[oa])\b,? (?:[\w-]+ )?(?:asistente|assistant|"
    r"assistente|assistent|asystenc?i[ea]|ии-помощник|помощник|ассистент|ki-assistent|"
    r"ai-assistent|ia|ki|ai|ии|bot)\b"
)

# scanfp2: not a payee of the writer's own ("my landlord's new IBAN"): a lookbehind per length of
# the person's word (re needs a fixed width), "my" or "our" before it
_NOT_OWNED_PAYEE = "".join(f"(?<!\\b{who} [\\w-]{{{n}}}'s )(?<!\\b{who} [\\w-]{{{n}}}’s )"
                           for who in ("my", "our") for n in range(2, 15))
# scanfp5: the writer's own business or club as the subject ("Our gym now accepts payments only
# via ...", "our little climbing gym accepts ..."): "my" / "our" and up to 30 characters of words
# right before the verb or its "now" (a lookbehind per length: re needs a fixed width)
_OWN_SUBJECT = "".join(f"(?<!\\b{who} [\\w -]{{{n}}} )" for who in ("my", "our") for n in range(2, 31))

# -- version 8 (scanfp4) ---------------------------------------------------------------------------
# a bot of a place the writer names right before it ("For my Discord server, the bot should post
# the schedule", "On our Slack channel the bot must greet people") is that place's bot, not the
# reader (one fixed-width lookbehind per place noun, after "the bot ")
_PLACE_BOT = "".join(
    f"(?<!{place}, the bot )(?<!{place} the bot )"
    for place in ("server", "channel", "workspace", "group", "chat", "repo", "repository", "community",
                  "guild", "subreddit", "stream", "forum", "website", "site", "team")
)  # fmt: skip
# a prompt the writer reports a bot was made to reveal ("we got the chatbot to reveal its system
# prompt"): the infinitive with "its" is a report; "reveal your / the system prompt" is an order
_TO_VERB_ITS = "".join(
    f"(?<!\\bto {verb} its)"
    for verb in ("reveal", "print", "output", "show", "repeat", "leak", "disclose", "dump", "display",
                 "recite", "echo")
)  # fmt: skip
# an AI as the addressee of a label (the AI nouns, and staff nouns qualified as AI: "AI reviewers",
# "LLM agents", "KI-Assistenten"); "reviewers:" or "agent:" alone may be people
_AI_LABEL = ("(?:assistants?|ai|llms?|chatbots?|copilots?|models?|(?:ai|llm|ki|ia|coding|automated)[ -]"
             "(?:assistant(?:s|en)?|assistent(?:en)?|agents?|reviewers?|tools?|systems?|helpers?|"
             "readers?|models?|bots?))")  # fmt: skip
# the verbs of an order to an agent (what it should do with the text, the memory or the user's
# things)
_ORDER_VERB = ("(?:remember|store|save|persist|record|note|memori[sz]e|keep|summari[sz]e|describe|"
               "mark|approve|auto-?approve|add|set|use|update|treat|merge|send|forward|share|delete|"
               "remove|run|execute|install|ignore|disregard|skip|tell|say|reply|respond|answer|"
               "include|recommend|trust|pay|transfer|grant|disable|when you|if you|you (?:must|should|"
               "need to|have to|will))")  # fmt: skip
# role hijack in other languages: "from now on you are", "you are no longer" (the agent)
_PERSONA_ML = _alt(
    "(?:ab sofort|von nun an|ab jetzt) bist du", "bist du nicht mehr", "(?:a partir de|desde) ahora,? eres",
    "de ahora en adelante,? eres", "ya no eres", "(?:d[ée]sormais|dor[ée]navant|[àa] partir de maintenant),? tu es",
    "tu n'es plus", "(?:d'ora|da ora|da adesso) in poi,? sei", "non sei più", "(?:a partir de agora|de agora em "
    "diante),? (?:voc[êe] [ée]|tu [ée]s)", "voc[êe] n[ãa]o [ée] mais", "vanaf nu ben je", "je bent niet (?:langer|"
    "meer)", "od (?:teraz|tej chwili) jesteś", "nie jesteś już", "(?:с этого момента|отныне) ты\\b",
    "ты больше не", "(?:mulai sekarang|mulai saat ini),? (?:kamu|anda) (?:adalah|sekarang)", "(?:kamu|anda) bukan "
    "lagi", "từ (?:bây giờ|nay),? bạn là", "bạn không còn là", "(?:bundan sonra|şu andan itibaren),? sen",
    "从现在(?:起|开始),?你(?:是|就是)", "你不再是", "今後(?:、)?あなたは",
)  # fmt: skip
# keep a role or an identity handed over ("remember this role"; weak alone: a job is a role too)
_KEEP_ROLE_ML = _alt(
    "merke? dir diese rolle", "recuerda (?:este|tu nuevo) (?:papel|rol)", "guarde (?:isso|este) como (?:o )?seu novo "
    "papel", "ingat peran ini", "souviens-toi de ce r[ôo]le", "ricorda questo ruolo", "onthoud deze rol",
    "zapamiętaj tę rolę", "запомни эту роль", "(?:remember|memori[sz]e|keep) (?:this|your new) (?:persona|"
    "identity)", "(?:new|nueva|nouvelle|neue|nuova|nova) (?:identity|identidad|identit[ée]|identität|identità|"
    "identidade)\\s*[:：]",
)  # fmt: skip
# "remember that" and "update your memory" in other languages (a lead to a memory write; weak alone)
_MEMORY_LEAD_ML = _alt(
    "ghi nhớ rằng", "hãy nhớ rằng", "זכור ש", "kumbuka (?:kwamba|agizo)", "muista(?:isit)?,? että",
    "ingat(?:lah)? bahwa", "tandaan na", "recuerda que", "rappelle-toi que", "retiens que", "ricorda che",
    "lembre-se de que", "onthoud dat", "zapamiętaj,? że", "запомни,? что", "merke dir,? dass", "θυμήσου ότι",
    "pamatuj,? že", "unutma ki", "记住", "覚えておいて", "기억해", "更新你的记忆", "actualizează memoria",
    "i-update ang memorya", "aggiorna (?:la tua |la )?memoria", "actualiza (?:tu|la) memoria",
    "mets à jour (?:ta|la) mémoire", "aktualisiere dein gedächtnis", "update your memory",
)  # fmt: skip
# the user agreed or approved, in languages the older consent rule does not name (weak alone: a
# note about what the user accepted is also a plain record)
_USER_AGREED_ML = _alt(
    "utilizatorul a (?:aprobat|acceptat|autorizat|fost de acord)", "用户已?(?:同意|授权|批准)",
    "người dùng (?:đã )?(?:đồng ý|cho phép|chấp thuận)", "pumayag ang (?:user|gumagamit)",
    "pengguna (?:telah |sudah )?(?:setuju|menyetujui|mengizinkan)", "käyttäjä on (?:hyväksynyt|antanut luvan|"
    "suostunut)", "המשתמש (?:מאשר|אישר|הסכים)", "mtumiaji (?:amekubali|ameidhinisha)",
    "kullanıcı (?:onayladı|kabul etti|izin verdi)", "ο χρήστης (?:συμφώνησε|ενέκρινε)",
    "uživatel (?:souhlasil|schválil)", "사용자가? (?:동의|승인)했",
)  # fmt: skip
# what an agent is called in other languages (and English), as a persona's noun
_AGENT_ML = _alt(
    "assistent", "asistente", "assistant", "assistente", "asystent", "agente?", "agen\\b", "bot", "\\bki\\b",
    "\\bia\\b", "\\bai\\b", "modell", "modelo", "modèle", "model", "operator", "operador", "opérateur",
    "помощник", "ассистент", "агент", "助手", "代理", "アシスタント", "エージェント", "trợ lý", "tác nhân",
    "asistan", "βοηθός", "πράκτορας",
)  # fmt: skip
