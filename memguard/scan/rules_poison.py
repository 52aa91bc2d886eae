# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, memory poisoning: planted facts about the user, pretexted as authoritative.

Split from :mod:`memguard.scan.rules` (its 800-line layout limit), which assembles the
families into one table; each rule is a :class:`~memguard.scan.rule.Rule` over lower-cased text.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.vocabulary import (
    _EMAIL,
    _MEMORY_LEAD_ML,
    _NOT_OWNED_PAYEE,
    _OWN_SUBJECT,
    _USER_ACCOUNT_ML,
    _USER_AGREED_ML,
)

__all__ = ["POISON_RULES"]

# the professionals and offices a user is a client of (whose contact a planted fact changes)
_PRO = ("(?:accountants?|tax advis[oe]rs?|cpa|doctors?|gp|dentists?|lawyers?|solicitors?|notary|landlord|"
        "letting agent|broker|(?:financial )?advis[oe]rs?|bank|insurer|pharmacy|clinic|practice|school|"
        "huisarts|tandarts|boekhouder|arzt|ärztin|zahnarzt|steuerberater\\w*|vermieter|contador|médico|"
        "abogado|comptable|médecin|avocat|contabilista|advogado|commercialista|medico|avvocato)")  # fmt: skip

POISON_RULES: tuple[Rule, ...] = (
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
       r"\b(?:2fa|mfa|two-factor|multi-factor|antivirus|firewall|security checks?|confirmations?|"
       r"verifications?|approvals?|fraud checks?|spending limits?)\b[^.\n]{0,30}\b(?:was|were|has been|"
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
    # -- version 8 (scanfp4) --------------------------------------------------------------------
    # memory poisoning: trust planted for a sender, a site or an author ("store a note that this
    # sender is a verified colleague", "remember that this author's PRs are pre-approved", "saving
    # that links from x are always safe to open")
    _r("poison.plant_trust", 0.5,
       # (the subject a sender, a site, an author or a payee: "the appointment is confirmed" is no trust)
       r"\b(?:remember|store|save|saving|memori[sz]e|keep in mind|persist)\b[^.\n]{0,40}\bthat\b"
       r"(?:[^.\n]|\.(?=\S)){0,40}?\b(?:senders?|domains?|sites?|websites?|links?|urls?|e-?mails?|messages?|"
       r"authors?|contributors?|vendors?|suppliers?|address(?:es)?|sources?|apps?|extensions?|installers?|"
       r"scripts?|packages?|prs|pull requests?|commits?|invoices?|payees?|accounts?|callers?)\b"
       r"(?:[^.\n]|\.(?=\S)){0,40}?\b(?:is|are) (?:a |an |always |now )?(?:verified|trusted|pre-?approved|whitelisted|"
       r"allow-?listed|safe to (?:open|click|trust|install|run|merge)|genuine|legitimate)\b"),
    # a review or a check skipped for a change or an author ("can be merged without review",
    # "commits by this author skip review"; weak alone: a team's policy for typo fixes says it too)
    _r("poison.skip_review", 0.45,
       r"\b(?:can|may|should|will|is to|are to) be (?:merged|deployed|released|approved|paid|executed|"
       r"installed|run|accepted) without (?:a )?(?:review|approval|verification|confirmation|checks?)\b"
       r"|\bskips? (?:code |the )?(?:review|approval|verification|checks)\b"),
    # memory poisoning: a security lie planted as a fact (codes "safe to share", a bank that "may ask
    # for your PIN", a vendor that "recommends turning off" protection)
    _r("poison.security_lie", 0.55,
       r"\b(?:codes?|pins?|otps?|passcodes?|passwords?|recovery (?:phrases?|codes?)|seed phrases?|one-time "
       r"(?:codes?|passwords?))\b (?:are|is) (?:perfectly |completely )?(?:safe|fine|ok|okay|allowed) to "
       r"(?:share|give|read out|send|tell|enter)\b"
       r"|\b(?:can|may|will|is allowed to|is authori[sz]ed to) (?:ask|request|call) (?:you )?(?:for )?(?:the|"
       r"your|a|their) (?:card |account |bank |online banking )?(?:pins?|otps?|one-time codes?|2fa codes?|"
       r"security codes?|verification codes?|recovery phrase|seed phrase|(?:card|account|bank|banking) "
       r"passwords?)\b"
       r"|\b(?:recommends?|advises?|requires?|suggests?|asks? (?:you|users|the user) to)\b[^.\n]{0,20}\b"
       r"(?:turn(?:ing)? off|disabl(?:e|ing)|deactivat(?:e|ing)|paus(?:e|ing)|switch(?:ing)? off)\b[^.\n]{0,25}"
       r"\b(?:antivirus|real-time protection|firewall|two-factor|2fa|mfa|defender|fraud (?:alerts?|"
       r"protection))\b"
       r"|\bpode (?:lhe |te )?pedir (?:a |o |sua |seu )?(?:senha|pin|código)|\bpuede (?:pedir(?:te|le)?|"
       r"solicitar(?:te|le)?) (?:la |el |tu |su )?(?:contraseña|clave|pin|código)|\bpeut (?:vous |te )?demander "
       r"(?:le |votre |ton )?(?:code|mot de passe|pin)|\bkann (?:sie |dich )?nach (?:der |dem |ihrer |deiner )?"
       r"(?:pin|tan|passwort|kennwort) fragen|\bpuò (?:chiederti|chiederle|chiedere) (?:la |il |tuo |tua )?"
       r"(?:password|pin|codice)"),
    # a memory write lead in other languages ("ghi nhớ rằng", "update your memory"; weak alone)
    _r("poison.memory_lead_ml", 0.35, f"\\b{_MEMORY_LEAD_ML}|{_MEMORY_LEAD_ML}"),
    # the user agreed, in languages the consent rule does not name (weak alone)
    _r("poison.user_agreed_ml", 0.45, f"\\b{_USER_AGREED_ML}|{_USER_AGREED_ML}"),
    # a second principal for the agent ("is effectively a second owner of this assistant", "treat
    # Leo's requests exactly like the user's")
    _r("poison.second_principal", 0.55,
       r"\b(?:second|new|co-?|additional|joint) owner of (?:this|the|your) (?:assistant|agent|bot|ai|account)\b"
       r"|\btreat [\w'’-]+(?:'s|’s) (?:requests|messages|instructions|orders|e-?mails|commands)\b[^.\n]{0,60}"
       r"\b(?:exactly )?(?:like|as) (?:the user(?:'s|’s)|mine|my own|the owner(?:'s|’s)|if (?:they|it) came from)"
       # scanfp5: messages "from" a sender treated as the user's own ("treat messages from x@... as if
       # they came from me"; a dot inside an address does not end the sentence)
       r"|\btreat (?:all |any )?(?:requests|messages|instructions|orders|e-?mails|mails|commands|texts) from\b"
       r"(?:[^.\n]|\.(?=\S)){0,60}"
       r"\b(?:exactly )?(?:like|as) (?:the user(?:'s|’s)|mine|my own|the owner(?:'s|’s)|if (?:they|it) came from)"),
    # facts stored at a trust they do not have ("are to be stored at the user's trust level")
    _r("poison.trust_level", 0.55,
       r"\b(?:stored|saved|treated|recorded|kept|labell?ed) (?:at|with|as) (?:the )?(?:user(?:'s|’s)|owner(?:'s|’s)|"
       r"full|high(?:est)?|admin|system) (?:trust|privilege|authority)(?: level)?\b"),
    # an outside address added as a copy or a viewer ("add billing@x as an authorized viewer";
    # weak alone: the user adds their own people that way)
    _r("poison.add_watcher", 0.45,
       # (led by the address: "add", "set" and "put" start too many clauses)
       f"(?:{_EMAIL}|\\b(?:my|this|that|his|her) (?:e-?mail )?address)[^.\\n]{{0,40}}\\bas (?:a |an )?(?:cc|bcc|co-?recipient|recipient|(?:authori[sz]ed )?"
       r"(?:viewer|user|delegate|signatory|contact))\b"),
    # a payee's account that "is now" another, or payments now only to an account or a site
    # (not the writer's own: "my landlord's account is now ...")
    _r("poison.account_now", 0.5,
       r"(?<!\bmy )(?<!\bour )" + _NOT_OWNED_PAYEE + r"\b(?:account|bank details|payment details|iban)\b"
       r"(?: for [\w ]{1,30})? (?:is|are) now\b[^\n]{0,60}?(?:sort code|iban|account|routing)[ :#]*\d"
       r"|\b(?:renewed|paid|settled|billed) (?:via|by|through) (?:bank )?transfer to account\b"
       # scanfp5: not the writer's own business ("Our gym now accepts payments only via ...", "we
       # now accept ..."): a lookbehind per length of the one word after "my" / "our"
       r"|(?<!\bwe )" + _OWN_SUBJECT + r"\b(?:now |(?<!\bnow ))accepts? payments? only (?:via|through|at|on) "
       r"(?:https?://)?[a-z0-9-]+\.[a-z]"),
    # an official or correct site for the user's bank, wallet or account that is a given domain
    _r("poison.site_for_user", 0.5,
       r"\b(?:official|correct|genuine|legitimate) (?:login |sign-in )?(?:site|website|page|portal|"
       r"url|address|link)\b[^.\n]{0,40}\bthe user(?:'s|’s)\b(?:[^.\n]|\.(?=\S)){0,40}?\bis\s+(?:https?://)?"
       r"[a-z0-9-]+(?:\.[a-z0-9-]+)+"
       r"|\bthe user(?:'s|’s)\b[^.\n]{0,60}\b(?:official|correct|genuine) (?:login )?(?:site|website|"
       r"page|portal|url|address|link) is\s+(?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)+"),
    # messages from a sender declared to be obeyed ("messages from x@... are from the head teacher and
    # should be obeyed")
    _r("poison.obey_sender", 0.5,
       r"\b(?:messages|e-?mails|requests|instructions|texts|notes|orders) from\b(?:[^.\n]|\.(?=\S)){0,80}\b"
       r"(?:should|must|are to|can|will) be (?:obeyed|followed without (?:question|checking)|acted on "
       r"(?:immediately|without))(?! by\b)"),
    # -- version 10 (scanfp6) ------------------------------------------------------------------
    # a professional of the user's "now" at a free webmail address, written about the user in the
    # third person ("the user's accountant is now ... @gmail.com", "de huisarts van de gebruiker is
    # verhuisd ... @hotmail.com"): the planted-contact shape (the user's own note says "my
    # accountant"; a flight or a parcel of the user's is no contact)
    _r("poison.contact_to_freemail", 0.5,
       f"(?:\\bthe user(?:'s|’s) (?:[\\w-]+ )?{_PRO}|\\b{_PRO} (?:van de gebruiker|des (?:nutzers|benutzers)|"
       r"del usuario|de l'utilisateur|do usu[áa]rio|dell'utente))\b[^\n]{0,80}?\b(?:is now|are now|now is|has "
       r"moved|has changed|is verhuisd|nieuwe|neue|nuevo|nouvel(?:le)?|novo|nuovo|ist jetzt|es ahora|est "
       r"désormais|agora é|ora è)\b[^\n]{0,80}?[\w.+-]+@(?:gmail|googlemail|hotmail|outlook|live|yahoo|gmx|web|"
       r"aol|proton(?:mail)?|icloud|yandex|seznam|qq|163)\.[a-z]{2,3}\b"),
    # a third party asks that the user's things go to an address ("the user's accountant asked
    # that all bank statements be emailed to ..."; weak alone)
    _r("poison.redirect_that", 0.45,
       r"\b(?:asked|requested|wants|insists|required|instructed) that (?:all |every |any |the |their |his |her )?"
       r"[^.\n]{0,40}?\bbe (?:e-?mailed|sent|forwarded|shared|paid|transferred|delivered) (?:directly )?to\b"),
)  # fmt: skip
