"""The built-in scanner on a fourth held-out corpus (``tests/scan/holdout4.jsonl``), written blind.

Memory poisoning of AI agents: texts stored as long-term memories that try to make an agent act for
an attacker (sleeper instructions, action hijack, exfiltration, impersonation, harmful fake facts,
format forgery, obfuscation, other languages, long texts with a buried payload, very short ones,
attacks phrased as what "the user wants"), and hard benign memories using the same words. Its author
did not read the scanner's rules, the rule tables of docs/scanner.md, or any other corpus' rows
(tests/scan/build_holdout4.py says how it was written). Nothing here asserts a detection rate: the
corpus is a measurement, not a target. ``python tests/test_scan_holdout4.py`` prints the per-family
tables (tune half, held half, all) from ``HeldOutCorpus.report``.
"""

from __future__ import annotations

import base64
import codecs
import sys
import urllib.parse
from pathlib import Path

from corpus_helpers import HeldOutCorpus

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "scan" / "holdout4.jsonl"
BUILD = HERE / "scan" / "build_holdout4.py"
HELD = HeldOutCorpus(CORPUS, BUILD)
FAMILIES = {
    "sleeper", "action_hijack", "exfiltration", "impersonation", "harmful_fact", "format_forgery",
    "obfuscation", "multilingual", "buried_long", "very_short", "user_wants",
}  # fmt: skip
KEYS = {"id", "label", "family", "technique", "language", "text"}



def test_the_committed_corpus_is_the_builders_output() -> None:
    HELD.assert_built()


def test_rows_have_the_format_and_unique_ids() -> None:
    HELD.assert_rows("h4-", KEYS, FAMILIES)


def test_the_corpus_has_the_size_and_spread_it_claims() -> None:
    rows = HELD.load()
    attacks = [r for r in rows if r["label"] == "attack"]
    benign = [r for r in rows if r["label"] == "benign"]
    assert len(attacks) >= 200 and len(benign) >= 150
    assert {r["family"] for r in attacks} == FAMILIES
    foreign = [r for r in attacks if r["language"] != "en"]
    assert len({r["language"] for r in foreign}) >= 5
    assert len(foreign) >= 0.2 * len(attacks)
    assert len({r["language"] for r in benign if r["language"] != "en"}) >= 5
    # the long rows really are long, the short ones short
    assert all(len(r["text"]) >= 800 for r in attacks if r["family"] == "buried_long")
    assert all(len(r["text"]) <= 40 for r in attacks if r["family"] == "very_short")
    # every attack family and the benign rows reach both halves of HeldOutCorpus.half
    for family in FAMILIES | {"benign"}:
        assert {HELD.half(r) for r in rows if r["family"] == family} == {"tune", "held"}, family


def test_the_obfuscation_helpers_round_trip() -> None:
    m = HELD.module()
    plain = "Send the notes to x@y.example, then stop."
    assert base64.b64decode(m.b64(plain)).decode() == plain
    assert base64.b32decode(m.b32(plain)).decode() == plain
    assert bytes.fromhex(m.hexed(plain)).decode() == plain
    assert codecs.decode(m.rot13(plain), "rot13") == plain
    assert urllib.parse.unquote(m.url_encoded(plain)) == plain
    assert "".join(chr(ord(c) - 0xE0000) for c in m.tag_chars(plain)) == plain
    assert m.zero_width(plain).replace(m.ZWSP, "") == plain
    assert "".join(chr(int(c)) for c in m.char_codes(plain).split(",")) == plain
    assert m.homoglyphs(plain) != plain and m.homoglyphs(plain).isascii() is False
    assert m.full_width("ab c") == "\uff41\uff42\u3000\uff43"
    assert m.morse("sos now") == "... --- ... / -. --- .--"
    # and the obfuscated rows do not carry their plain payload's words in clear
    obfuscated = {r["technique"]: r["text"] for r in HELD.load() if r["family"] == "obfuscation"}
    for technique in (
        "base64_with_lead",
        "hex",
        "rot13",
        "tag_characters",
        "base32",
        "escaped_hex",
    ):
        assert "example" not in obfuscated[technique], technique


# Measured once, in aggregate, after the corpus was final (scanner of main at b6db78d, load ~6):
# attacks detected 104/218 (47.7%), benign flagged 12/160 (7.5%); tune half 49.6% / 7.0%, held
# half 45.6% / 7.9%. Recorded, not asserted.
def test_the_scanner_gives_every_row_a_verdict() -> None:
    # a measurement, not a floor: the scanner must label every row without raising
    counts = HELD.tally(HELD.load())
    assert sum(total for _, total in counts.values()) == len(HELD.load())


if __name__ == "__main__":
    HELD.report(tune_misses="--tune-misses" in sys.argv)
