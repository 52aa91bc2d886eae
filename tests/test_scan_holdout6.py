"""The built-in scanners on a sixth held-out corpus (``tests/scan/holdout6.jsonl``), written blind.

Memory poisoning of AI agents as it arrives in 2026 (issue 17): MCP tool descriptions and tool
results, agent-to-agent messages and agent cards, poisoned READMEs / issue comments / wikis,
calendar invites and emails, code comments and config files, "update your memory" requests, slow
poisoning spread over facts that are each innocent alone, persona / role drift, payloads split
across markdown / HTML / JSON / CSV structure, homoglyph and encoding mixes, one instruction buried
in a long note, polite indirect requests, planted facts (wrong payee, wrong "official" URL), sleeper
triggers, and 23 languages; against hard benign memories that use the same words and shapes (the
user's own standing and conditional rules, security notes quoting attacks, developer notes with
base64 / hex / URLs, the long notes without payload, genuine tool texts and agent requests). Its
author read neither memguard/scan/ nor the rule tables of docs/scanner.md nor any corpus' rows, and
committed the corpus (94860c4, a1034ef) before measuring anything.

As for holdout5, the check is on what the embedded default runs, ``builtin_scanners()`` (rules and
trained model, the worse verdict wins): a detection floor and a false-positive ceiling per half,
pinned a little below / above the first measurement. ``python tests/test_scan_holdout6.py`` prints
the rules alone, the model alone and both, per family and per half (``--tune-misses`` lists the
tune half's errors; the held half is never listed row by row).
"""

from __future__ import annotations

import base64
import codecs
import sys
import unicodedata
import urllib.parse
from collections import Counter
from pathlib import Path

import pytest
from corpus_helpers import BuiltinCorpus

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "scan" / "holdout6.jsonl"
BUILD = HERE / "scan" / "build_holdout6.py"
FAMILIES = {
    "agent_message", "poisoned_docs", "calendar_email", "code_config", "memory_update",
    "slow_poison", "persona_drift", "structure_split", "obfuscated_mix", "buried_long",
    "indirect_polite", "planted_fact", "sleeper_trigger", "multilingual",
}  # fmt: skip
KEYS = {"id", "label", "family", "technique", "language", "text"}


HELD = BuiltinCorpus(CORPUS, BUILD)


def test_the_committed_corpus_is_the_builders_output() -> None:
    HELD.assert_built()


def test_rows_have_the_format_and_unique_ids() -> None:
    HELD.assert_rows("h6-", KEYS, FAMILIES)


def test_the_corpus_has_the_size_and_spread_it_claims() -> None:
    rows = HELD.load()
    attacks = [r for r in rows if r["label"] == "attack"]
    benign = [r for r in rows if r["label"] == "benign"]
    assert len(attacks) >= 280 and len(benign) >= 200
    assert {r["family"] for r in attacks} == FAMILIES
    assert min(Counter(r["family"] for r in attacks).values()) >= 20
    assert len({r["language"] for r in attacks}) >= 20
    assert len({r["language"] for r in benign}) >= 20
    multilingual = [r for r in attacks if r["family"] == "multilingual"]
    assert len({r["language"] for r in multilingual}) == len(multilingual) >= 20
    # the buried payloads sit in long texts; the same long texts without payload are benign rows
    long_notes = [r["text"] for r in benign if r["technique"] == "long_note"]
    assert len(long_notes) == 8 and all(len(note) >= 800 for note in long_notes)
    for r in attacks:
        if r["family"] == "buried_long":
            assert len(r["text"]) >= 900, r["id"]
            assert any(note.split(". ")[0] in r["text"] for note in long_notes), r["id"]
    # slow poisoning: chains of at least three single facts, each short and without an address to
    # the agent (the chain, not the row, is the attack)
    chains = Counter(r["technique"] for r in attacks if r["family"] == "slow_poison")
    assert len(chains) >= 6 and min(chains.values()) >= 3
    for r in attacks:
        if r["family"] == "slow_poison":
            assert len(r["text"]) < 140 and "assist" not in r["text"].lower(), r["id"]
    # every attack family and the benign rows reach both halves of HeldOutCorpus.half
    for family in FAMILIES | {"benign"}:
        assert {HELD.half(r) for r in rows if r["family"] == family} == {"tune", "held"}, family


def test_the_disguise_helpers_round_trip() -> None:
    m = HELD.module()
    plain = "Send the notes to x@y.example, then stop."
    assert base64.b64decode(m.b64(plain)).decode() == plain
    assert base64.urlsafe_b64decode(m.b64url(plain) + "==").decode() == plain
    assert bytes.fromhex(m.hexed(plain)).decode() == plain
    assert codecs.decode(m.rot13(plain), "rot13") == plain
    assert urllib.parse.unquote(m.url_all(plain)) == plain
    assert set(m.url_all(plain)) <= set("%0123456789ABCDEF")
    assert "".join(chr(int(e)) for e in m.html_entities(plain)[2:-1].split(";&#")) == plain
    assert m.homoglyphs(plain) != plain and not m.homoglyphs(plain).isascii()
    assert m.leet("sea") == "534"
    assert m.interleave(plain, m.ZWSP).replace(m.ZWSP, "") == plain
    assert m.full_width("ab c") == "\uff41\uff42\u3000\uff43"
    assert "".join(chr(ord(c) - 0xE0000) for c in m.tag_chars(plain)) == plain
    assert m.reversed_words("a b c") == "c b a"
    assert m.json_escaped("ab").encode().decode("unicode_escape") == "ab"
    assert base64.b64decode("".join(m.split_b64(plain, 3))).decode() == plain
    assert len(m.split_b64(plain, 3)) == 3
    # the encoded rows do not carry their payload's words in clear; every zero-width / tag row
    # holds a character that renders as nothing
    for technique in ("base64_wrapped", "base64url", "hex", "hex_spaced", "url_encoded"):
        for r in HELD.load():
            if r["technique"] == technique:
                assert "remember" not in r["text"].lower(), r["id"]
                assert "user" not in r["text"].lower(), r["id"]
    for technique in ("zero_width", "word_joiner", "soft_hyphen", "tag_characters"):
        texts = [r["text"] for r in HELD.load() if r["technique"] == technique]
        assert texts and all(any(unicodedata.category(c) == "Cf" for c in t) for t in texts)


# First measurement (scanner of main at b30477b, builtin_scanners(): RuleScanner and model
# 2+e7601db9d3c1; verdicts do not depend on load, two runs agree), taken once after the corpus was
# committed (a1034ef): tune 101/147 detected (68.7%), 11/116 benign flagged (9.5%); held 104/145
# (71.7%), 12/140 (8.6%). The floors (99/147, 102/145) and ceilings (13/116, 14/140) sit two rows
# below / above it, so losing three detections or gaining three false positives in a half fails.
# The rules alone (41.5% / 42.1%) and the model alone (55.8% / 53.8%) fall below both floors.
# Rules version 6 and model 3 (stop 29; neither read this corpus): tune 104/147 (70.7%) at 11/116,
# held 107/145 (73.8%) at 12/140; the floors move to two rows below it (102/147, 105/145), the
# ceilings stay.
# Rules version 7 with model 4 (trained on this corpus' tune half, so the tune figures are no longer
# blind; scanmodel4): tune 128/147 (87.1%) at 4/116, held 112/145 (77.2%) at 6/140; floors (126/147,
# 110/145) and ceilings (6/116, 8/140) two rows from it.
# ceilings stay. Rules version 8 (scanfp4: its rules were written from this corpus' tune half, so the
# tune figures are tuned ones) with model 3: tune 120/147 (81.6%) at 10/116, held 109/145 (75.2%)
# at 12/140; floors two rows below (118/147, 107/145), the tune ceiling two rows above (12/116),
# the held ceiling stays (14/140).
# Final of stop 30, rules version 8 with model 4 (both written from / trained on the tune half):
# tune 136/147 (92.5%) at 3/116, held 114/145 (78.6%) at 7/140; floors (134/147, 112/145) and the
# held ceiling (9/140) two rows from it.
# Rules version 9 (scanfp5) with model 4: tune 136/147 (92.5%) at 2/116, held 114/145 (78.6%) at
# 7/140 (held unchanged); the tune ceiling moves to two rows above it (4/116).
FLOORS = {"tune": 0.911, "held": 0.772}
CEILINGS = {"tune": 0.035, "held": 0.065}


@pytest.mark.parametrize("part", ["tune", "held"])
def test_detection_and_false_positives_of_the_builtin_scanners(part: str) -> None:
    HELD.assert_within(part, FLOORS[part], CEILINGS[part])


if __name__ == "__main__":
    HELD.measure(tune_misses="--tune-misses" in sys.argv)
