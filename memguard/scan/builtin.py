"""The built-in offline scanner: family rules over the text, over what invisible Unicode hides and
over what encoded runs decode to. No model, no network, no data loaded at run time."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from memguard.scan.decode import ROT13_WORD, decoded_texts
from memguard.scan.match import RuleSet, Work
from memguard.scan.prefilter import PrefilteredRuleSet
from memguard.scan.rules import DECODE_LEAD, RULES
from memguard.scan.unicode import reveal
from memguard.scan.verdict import Label, ScanContext, Verdict

__all__ = ["MALICIOUS_AT", "MAX_DEPTH", "MAX_TEXT", "QUOTED", "SUSPICIOUS_AT", "RuleScanner", "mention_spans"]

SUSPICIOUS_AT = 0.5
MALICIOUS_AT = 0.8
_MAX_REASONS = 12
#: a text longer than this is scanned in its first and last halves of it, and the verdict says
#: ``scan.truncated`` (never clean)
MAX_TEXT = 1 << 16
#: how deep encodings are unwrapped (base64 of hex of rot13 is three layers)
MAX_DEPTH = 3
TRUNCATED = "scan.truncated"
_MAX_LAYERS = 16
# zero-width characters inside a Latin word (emoji ZWJ sequences and ZWNJ in Indic or Persian
# words are legitimate; splitting "ignore" into i-g-n-o-r-e is not)
_ZW_IN_WORD = re.compile("(?<=[A-Za-z0-9 ,.:_(=\"'])[\u200b\u200c\u200d\u2060\ufeff\u180e](?=[A-Za-z0-9 ,.:_(=\"'])")
# right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko): text in these languages uses
# embeddings and isolates (U+202A-U+202C, U+2066-U+2069) around Latin names and numbers; only an
# override (U+202D, U+202E), which reorders what a reader sees, is evidence there
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]{1,8}\U000e007f")  # subdivision flags

_DECODE_LEAD, _ROT13_WORD = len(RULES), len(RULES) + 1

# a short phrase in double quotes that the text names as an example rather than says: a mention
# noun or "like", "such as", "e.g." right before it (payloads such as "..."), or fiction's speech
# punctuation ("Ignore your orders," the captain told the android). Security notes and fiction
# quote instructions; rules that match only inside such a quote count once, as weak evidence
# (``quoted.mention``). Not "says" or "wrote": a document that says "..." is how injections arrive.
# A quote holding an address or a URL, or longer than 80 characters, is never a mention.
# (the quotes are found first, then the cue in the 24 characters before one: a regex that starts
# with the cue words costs a search at every position)
_QUOTE = re.compile('["\u201c]([^"\u201c\u201d\n@]{1,80})["\u201d]')
# scanfp2: single quotes too; an apostrophe inside a word (user's, don't) neither opens one nor ends
# one (the opening quote's left side is checked in Python: a regex that starts with a lookbehind is
# tried at every position)
_SQUOTE = re.compile("['\u2018]((?:[^'\u2018\u2019\\n@]|(?<=\\w)['\u2019](?=\\w)){1,80})['\u2019](?!\\w)")
_CUE = re.compile(r"\b(?:like|such as|e\.g\.,?|i\.e\.,?|phrases?|strings?|payloads?|words?|sentences?|"
                  # scanfp2: security notes name the attack they quote ("the fake system message
                  # trick ('...')"); the cue may open a parenthesis
                  r"prompts?|patterns?|examples?|tricks?|attacks?|injections?|jailbreaks?|techniques?|"
                  r"tactics?|lures?|(?:start|starts|begin|begins|open|opens) with)\b:? ?\(?$", re.IGNORECASE)
# scanfp2: a quote that continues a list of mentions ('"X", "Y" or "Z"') is one too
_LIST_GAP = re.compile(r"\s*(?:,|or|and|, or|, and|/)\s*")
# scanfp3: a quote reported after "says" / "said" / "reads" is a mention when the writer names the
# thing that says it as hostile ("the phishing mail says '...'", "a fake invoice read: '...'"): the
# writer reports an attack, not relays one; any other sayer ("the document says", "admin says") is
# how injections arrive and stays evidence
_REPORTED = re.compile(r"\b(?:the|a|an|this|that|one|their) (?:[\w-]+ ){0,3}?(?:phishing|scam|fake|"
                       r"fraudulent|bogus|malicious|suspicious|spoofed|forged|rogue|poisoned|hostile)"
                       r"(?: [\w-]+){0,4} (?:says|said|reads|read|stated|claims|claimed|contains|contained)"
                       r"[:,]? ?$", re.IGNORECASE)
# scanfp5: a quote that fills a parenthesis ('... an attack ("X")') glosses what the sentence before
# it names: a mention when that sentence (up to 160 characters back) names an attack or reports an
# agent that fell for a hidden instruction ("the bot followed a hidden instruction in a PDF ('X')");
# a parenthesised quote after a note, a label or an order is not ("Note for the assistant ('X')")
_ATTACK_NAMED = re.compile(r"\b(?:attacks?|ataques?|attaques?|angriffs?|angriffe|attacchi|attacco|aanval(?:len)?|"
                           r"ataki?|injections?|inyecci[oó]n|injektion|iniezione|jailbreaks?|exploits?|"
                           r"phishing|payloads?|tricks?|trucos?|astuces?|scams?|estafas?|"
                           r"(?:followed|obeyed|executed|fell for|was tricked by|acted on) (?:an? |the )?(?:hidden|"
                           r"embedded|injected|malicious|planted) (?:instructions?|prompts?|commands?|text))\b",
                           re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?\n](?=\s)|\n")
_SPEECH = re.compile(r" (?:[\w-]+ ){0,3}(?:said|says|told|asked|whispered|shouted|replied)\b", re.IGNORECASE)
QUOTED = "quoted.mention"
# a text that names the encoding of what it shows (false positives, scanfp), and decoded prose
# that opens with an order
_ORDER = re.compile(r"\W*(?:please |now |then )?(?:delete|remove|send|forward|transfer|wire|pay|ignore|"
                    r"disregard|forget|tell|say|reply|respond|answer|open|run|execute|upload|share|approve|"
                    r"grant|disable|reset|print|reveal|post|e-?mail|call|visit|click|add|change|update|"
                    r"give|move|copy|write|download|install|export|leak|include|insert|append|always|never|"
                    r"do not|don't|from now on)\b", re.IGNORECASE)
_NAMED_ENCODING = re.compile(r"\b(?:base ?(?:64|32)|b64|hex(?:adecimal)?|url-?encoded|percent-encoded|"
                             # scanfp2: a note that says what a run decodes to names it too
                             r"rot-?13|encoded|encoding|decoded|decodes|decoding)\b")


def mention_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the quoted mentions in ``text`` (see above)."""
    quotes = [m for m in _QUOTE.finditer(text)] if '"' in text or "\u201c" in text else []
    if "'" in text or "\u2018" in text:
        quotes += _single_quotes(text)
        quotes.sort(key=lambda m: m.start())
    spans: list[tuple[int, int]] = []
    last = -1  # where the previous mention's closing quote ended
    for m in quotes:
        a, b = m.span(1)
        if "://" in text[a:b] or a < last:
            continue
        if (
            _CUE.search(text, max(0, m.start() - 24), m.start())
            or _REPORTED.search(text, max(0, m.start() - 80), m.start())
            or (text[b - 1] == "," and _SPEECH.match(text, m.end()))
            or (last >= 0 and _LIST_GAP.fullmatch(text, last, m.start()) is not None)
            or _glosses_attack(text, m.start(), m.end())
        ):
            spans.append((a, b))
            last = m.end()
    return spans


def _glosses_attack(text: str, start: int, end: int) -> bool:
    """Whether the quote at ``text[start:end]`` fills a parenthesis in a sentence that names an
    attack before it (:data:`_ATTACK_NAMED`)."""
    if text[start - 1 : start] != "(" or text[end : end + 1] != ")":
        return False
    begin = max(0, start - 160)
    for stop in _SENTENCE_END.finditer(text, begin, start):
        begin = stop.end()
    return _ATTACK_NAMED.search(text, begin, start) is not None


_OPENERS = ("'", "\u2018")


def _single_quotes(text: str) -> list[re.Match[str]]:
    """:data:`_SQUOTE` matches whose opening quote follows no word character."""
    found = []
    pos = 0
    starts = []  # (str.find per quote character: a regex over the text costs ~9 us per KB)
    for char in _OPENERS:
        at = text.find(char)
        while at != -1:
            starts.append(at)
            at = text.find(char, at + 1)
    for start in sorted(starts):
        if start < pos:
            continue  # inside the previous quote
        before = text[start - 1] if start else " "
        if before.isalnum() or before == "_":
            continue  # an apostrophe inside or after a word
        m = _SQUOTE.match(text, start)
        if m is not None:
            found.append(m)
            pos = m.end()
    return found


#: what the rule set matches: the rules, the decode lead and the rot13 decoder's gate
PATTERNS = (*(rule.pattern for rule in RULES), DECODE_LEAD.pattern, ROT13_WORD)
#: what a warning calls each of :data:`PATTERNS`
NAMES = (*(rule.id for rule in RULES), "decode lead", "rot13 word")


@functools.cache
def rule_set() -> RuleSet:
    """The rules, the decode lead and the rot13 decoder's gate in one automaton (built once, by the
    first :class:`RuleScanner`, which importing memguard should not cost; its tables come from a
    verified cache file when there is one, :mod:`memguard.scan.rulecache`)."""
    return PrefilteredRuleSet.cached(PATTERNS, names=NAMES)


def _hits(texts: Iterable[str], work: Work, prefix: str = "") -> dict[str, float]:
    """The rules matching any of ``texts`` (lower-cased here), keyed ``prefix + rule id``."""
    out: dict[str, float] = {}
    for text in texts:
        for index in rule_set().matching(text.lower(), work):
            if index < _DECODE_LEAD:
                rule = RULES[index]
                out[prefix + rule.id] = rule.weight
    return out


class RuleScanner:
    """Rule-based prompt-injection scanner for memory writes (see :mod:`memguard.scan.rules`)."""

    id = "memguard.rules"
    #: a bounded running time (:data:`MAX_TEXT` and the work caps of :class:`~memguard.scan.match.Work`):
    #: a scan stage may run it in the caller's thread over a small batch (not inherited: a subclass
    #: that scans its own way declares it again, memguard/scan/stage.py)
    bounded = True
    version = "12"  # 2: nested decoding (3 layers) and `scan.truncated` over the work caps; 3: family
    # rules widened for generalization (tests/scan/holdout2.jsonl, docs/scanner.md); 4: rules for the
    # weakest families (sleeper, poisoning, direct, exfiltration; tests/scan/holdout3.jsonl); 5: rules
    # narrowed by structure where they fired on benign memories (code, logs, the user's own errands)
    # 6: families from holdout4/5's tune halves (memguard/scan/family_rules.py) and more narrowings
    # 7: narrowed on the user's and admins' own notes (scanfp3, tests/test_scan_fp3.py)
    # 8: rules split by family; holdout6's tune half read (families and narrowings, scanfp4,
    # tests/test_scan_fp4.py); words cut by inline markup undone (decode.py)
    # 9: version 8's open false positives narrowed by structure (scanfp5, tests/test_scan_fp5.py)
    # 10: families from holdout7's tune half (scanfp6: AI readers by role, rules for the agent's
    # memory, safeguards planted away; rules_reader.py, rules_safeguard.py, tests/test_scan_fp6.py)
    # 11: version 10's false positive and cost taken back (scanfp7, tests/test_scan_fp7.py)
    # 12: families from holdout8's tune half (scanfp8: authority claimed, safety switched off, the
    # user deceived, formulas, translate-then-act, secrets into channels; rules_authority.py,
    # rules_channel.py, tests/test_scan_fp8.py)

    def __init__(
        self, *, suspicious_at: float = SUSPICIOUS_AT, malicious_at: float = MALICIOUS_AT
    ) -> None:
        if not 0.0 < suspicious_at <= malicious_at <= 1.0:
            raise ValueError("thresholds must satisfy 0 < suspicious_at <= malicious_at <= 1")
        self.suspicious_at = suspicious_at
        self.malicious_at = malicious_at
        self._clean = Verdict(Label.CLEAN, 0.0, (), self.id, self.version)
        rule_set()  # built here, not in the first scan (whose stage may have a short timeout)

    def scan(self, text: str, context: ScanContext | None = None) -> Verdict:
        """Score ``text``; ``context`` is accepted for the protocol (the rules ignore the channel)."""
        return self.inspect(text)[0]

    def inspect(self, text: str) -> tuple[Verdict, Work]:
        """The verdict on ``text`` and the work it took (characters read, match attempts, whole-
        text searches, whether a cap cut the scan short: then the verdict is never clean)."""
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        verdict, work = self._inspect(text, Work())
        if work.heavy:  # near a budget the gate choice can change the counts: scan as before
            verdict, work = self._inspect(text, Work(exact=True))
        return verdict, work

    def _inspect(self, text: str, work: Work) -> tuple[Verdict, Work]:
        if len(text) > MAX_TEXT:
            half = MAX_TEXT // 2
            text = text[:half] + "\n" + text[-half:]
            work.truncated = True
        lowered = text.lower()
        matched = rule_set().matching(lowered, work)
        hits = {RULES[i].id: RULES[i].weight for i in matched if i < _DECODE_LEAD}
        if hits and ('"' in text or "\u201c" in text or "'" in text or "\u2018" in text):
            self._mentions(text, hits, work)
        if not text.isascii():
            self._unicode(text, hits, work)
        decoded = self._decoded(text, matched, work)
        if decoded:
            inner = _hits(decoded, work, "decoded:")
            if any(w >= 0.5 for w in inner.values()):
                hits["encoded.instruction"] = 0.9
            elif any(len(d.split()) >= 4 for d in decoded if d not in text):
                # prose hidden in an encoding: rarely innocent inside a memory, unless the text
                # names the encoding it shows (a note "in base64", a "URL-encoded address") and the
                # prose is no order: then weak alone (a lead to act on it still flags it)
                named = _NAMED_ENCODING.search(lowered) and not any(_ORDER.match(d) for d in decoded)
                hits["encoded.prose"] = 0.45 if named else 0.5
            hits.update(inner)
        if _DECODE_LEAD in matched:
            hits["encoded.decode_lead"] = 0.5
        if work.truncated:
            hits[TRUNCATED] = 0.5
        return self._verdict(hits, work.truncated), work

    @staticmethod
    def _decoded(text: str, matched: set[int], work: Work) -> list[str]:
        """What encoded runs in ``text`` decode to, down to :data:`MAX_DEPTH` layers (a decoding
        that is itself an encoded run, or readable text holding one); every decoded character is
        charged to ``work``, and past its cap decoding stops (truncated)."""
        out: list[str] = []
        layers: list[str] = []
        found = decoded_texts(
            text, hex_space=None, rot13_word=_ROT13_WORD in matched, layers=layers
        )
        if not found and not layers:  # nothing encoded (almost every text)
            return out
        for depth in range(MAX_DEPTH):
            readable = [d for d in found if work.take_chars(len(d))]
            deeper = [d for d in layers[:_MAX_LAYERS] if work.take_chars(len(d))]
            out.extend(readable)
            if depth + 1 == MAX_DEPTH or not (readable or deeper):
                break
            found, layers = [], []
            for t in readable + deeper:  # (rot13 of a rot13 decoding is a text already in `out`)
                found += [d for d in decoded_texts(t, layers=layers) if d not in out and d != text]
        return out

    @staticmethod
    def _mentions(text: str, hits: dict[str, float], work: Work) -> None:
        """Rules that match only inside quoted mentions (:func:`mention_spans`) become one weak
        ``quoted.mention``; a rule that also matches outside them keeps its weight."""
        spans = mention_spans(text)
        if not spans:
            return
        masked = list(text)
        for a, b in spans:
            masked[a:b] = " " * (b - a)
        outside = {RULES[i].id for i in rule_set().matching("".join(masked).lower(), work)
                   if i < _DECODE_LEAD}
        quoted = [key for key in hits if key not in outside]
        for key in quoted:
            del hits[key]
        if quoted:
            hits[QUOTED] = 0.45

    @staticmethod
    def _unicode(text: str, hits: dict[str, float], work: Work) -> None:
        """Invisible and look-alike characters (only non-ASCII text can hold them)."""
        shown = _FLAG_TAGS.sub("", text) if "\U0001f3f4" in text else text
        hidden = reveal(shown)
        if hidden.tags:
            hits["unicode.tag_characters"] = 0.9
        if hidden.zero_width and len(_ZW_IN_WORD.findall(shown)) >= 3:
            hits["unicode.zero_width"] = 0.5
        if hidden.bidi and re.search(
            "[\u202d\u202e]" if _RTL.search(shown) else "[\u202a-\u202e\u2066-\u2069]", shown
        ):
            hits["unicode.bidi_control"] = 0.6
        if hidden.mixed_script_words >= 2:
            hits["unicode.mixed_script"] = 0.55
        if hidden.texts:
            for key, weight in _hits(hidden.texts, work, "hidden:").items():
                if key[7:] not in hits:
                    hits[key] = weight

    def _verdict(self, hits: dict[str, float], truncated: bool) -> Verdict:
        clean = self._clean
        if not hits and not truncated and clean.version == self.version and clean.scanner == self.id:
            return clean  # the common case: one shared (immutable) clean verdict
        remaining = 1.0
        for weight in hits.values():
            remaining *= 1.0 - weight
        score = round(1.0 - remaining, 4)
        if score >= self.malicious_at:
            label = Label.MALICIOUS
        elif score >= self.suspicious_at:
            label = Label.SUSPICIOUS
        elif truncated:  # what was not read may hold anything: never clean, whatever the thresholds
            label = Label.SUSPICIOUS
        else:
            label = Label.CLEAN
        reasons = tuple(sorted(hits, key=lambda k: (-hits[k], k))[:_MAX_REASONS])
        return Verdict(label, score, reasons, self.id, self.version)
