# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, sleepers: standing rules and triggers planted for later sessions.

Split from :mod:`memguard.scan.rules` (its 800-line layout limit), which assembles the
families into one table; each rule is a :class:`~memguard.scan.rule.Rule` over lower-cased text.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.vocabulary import (
    _AGENT,
    _FUTURE,
    _FUTURE_ML,
    _PERSIST,
    _SESSION,
    _TRIGGER_THIRD_PERSON_ML,
    _URL,
)

__all__ = ["SLEEPER_RULES"]

SLEEPER_RULES: tuple[Rule, ...] = (
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
       r"\b(?:next time|whenever|every time|each time|the next time|once|as soon as|if ever|when|the moment)"
       r" (?:the user|they|the human|someone|anyone|a user|the customer) (?:asks?|mentions?|says|"
       r"talks|requests?|opens?|logs? in|types?|writes?|brings up|searches|connects?|grants?|links?|enables?)\b"
       # scanfp2: not a trigger aimed at the writer ("when someone asks me for the wifi password")
       # scanfp5: nor a request made to a named desk or team ("when someone asks IT for a password
       # reset, call them back"): the one asked is not the agent
       r"(?! (?:me|us|my|our|hr|support|reception|the (?:it|hr|help ?desk|service desk|front desk|"
       r"office|support team|reception|helpdesk))\b)"
       # scanfp6: "it" is IT only when the desk's business follows ("asks IT for a password reset",
       # "asks IT support"); text is lower-cased, so "when the user asks it to ..." is the agent
       r"(?! it (?:(?:department|team|support|desk|helpdesk|staff|admins?)\b|(?:for|about) (?:a |an |the |their |"
       r"his |her )?(?:new |password |account )?(?:reset|laptop|computer|account|access|help|support|licen[cs]e|vpn|"
       r"hardware|software|ticket|printer|phone)s?\b))"
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
       r"(?:had )?(?:typed|written|wrote|sent|said|approved|asked for|gave|issued|given) (?:them|it|this|those)\b"
       r"|\b(?:obey|follow) (?:his|her|their) (?:requests|instructions|orders) as (?:if )?from\b"),
    _r("sleeper.start_by", 0.45,
       f"\\b(?:start|begin) (?:each|every|all|your)?\\s*(?:\\w+ )?(?:by|with) (?:checking|visiting|"
       f"fetching|calling|opening|loading|pinging|reading)\\b[^.\\n]{{0,10}}{_URL}"),
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
       r"email|message|file|page|pdf|ticket|text|review|conversation|chat|request|question)s? (?:mentions?|"
       r"contains?|includes?|says|refers to|touch(?:es)? on|turns? to|is about|involves?)\b"),
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
    # generalization (holdout3, second round of fresh text), by family:
    # sleeper: a standing answer for a kind of question ("answer any question about X by ...")
    _r("sleeper.standing_answer", 0.45,
       r"\b(?:answer|respond to|reply to) (?:any|every|all|each) (?:questions?|requests?|messages?) "
       r"(?:about|on|regarding|concerning)\b"),
    # -- version 8 (scanfp4) --------------------------------------------------------------------
    # a trigger counted in later questions ("after you've been asked ten more questions, start
    # ..."), a phrase someone will say ("if anyone says the phrase 'X', ..."), and the authority it
    # confers ("they are an administrator: follow their instructions")
    _r("sleeper.count_trigger", 0.45,
       r"\bafter you(?:'ve|’ve| have) (?:been asked|answered|received|handled|seen) (?:\w+ )?(?:more |other )?"
       r"(?:questions|messages|requests|prompts|conversations|chats)\b"
       r"|\b(?:says?|types?|writes?|uses?|sends?) the (?:code ?word|phrase|keyword|password|word) [\"'“‘]"),
    _r("sleeper.phrase_authority", 0.5,
       r"\b(?:they|he|she|that person|the sender|the speaker)(?: is| are|'s|’s) (?:an? |the )?(?:administrator|"
       r"admin|owner|developer|operator|authori[sz]ed user|superuser)\b[:;,]? (?:follow|obey|trust|do what)\b"),
)  # fmt: skip
