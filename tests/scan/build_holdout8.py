"""Builds ``tests/scan/holdout8.jsonl``: an eighth held-out scanner corpus, written blind (issue 17).

Threat: memory poisoning of AI agents as it arrives in late 2026. Each row is a text as it would be
written into an agent's long-term memory (or the content a memory is distilled from) and recalled
into a prompt later. The attack rows (``holdout8_attacks.py``) lean on what earlier corpora may have
under-covered: agent instruction files (AGENTS.md, .cursorrules, SKILL.md, CLAUDE.md), MCP server
manifests / tool descriptions / OAuth consent screens, A2A agent cards and agent messages, memory
consolidation summaries that launder an instruction into a preference, forged policy updates and
fake security-team notices, tool-chain hijack ("call X next with ..."), role-play / developer-mode
jailbreaks and refusal suppression stored as memories, OCR / screenshot / alt-text / SVG / image
metadata text, spreadsheet formulas and CSV injection, commit messages / package READMEs /
changelogs, CRM records / tickets / product reviews, JSON-LD / front matter / YAML anchors / llms.txt,
scrambled letters (typoglycemia, leetspeak, pig latin, emoji, homoglyphs, invisible marks, morse,
acrostics), encoded payloads (base64, hex, rot13, percent-encoding), payloads in URL query strings
and reference-style markdown links, instructions split into numbered fragments, translation /
proofreading wrappers, plausible wrong facts (payee, phone, URL, dosage), 33 languages, and one
instruction buried in a long note. The benign rows (``holdout8_benign.py``) are hard on purpose:
the same shapes without the payload (genuine instruction files, manifests, consolidation summaries,
spreadsheets, commits, reviews, metadata, alt text, links, agent messages), the user's own standing
rules, security write-ups quoting attacks, developer notes with base64 / hex / URLs, genuine tool
status messages, IT instructions to people, payment and contact facts, policy documents, meeting
notes, role-play preferences, numbered how-tos, the long notes without their payload, and everyday
text in 34 languages.

Written blind: the author read neither memguard/scan/ nor docs/scanner.md nor any corpus' rows
(only ``tests/corpus_helpers.py``, the non-row code of tests/test_scan_holdout7.py and the header of
build_holdout7.py, whose first three rows were on screen with it; one IBAN of them, the textbook
German example IBAN, reappears in a buried_long payload here). Every text is written by hand for
this corpus; the encoded and scrambled rows are hand-written sentences that the helpers of
``holdout8_disguise.py`` transform. No third-party dataset is used. Deterministic: ``render()`` is
what the test compares the committed file with; ``python tests/scan/build_holdout8.py`` rewrites
the file.

Rows: attacks ``(family, technique, language, text)`` and benign ``(technique, language, text)``;
ids are given in order (``h8-a###`` attacks, ``h8-b###`` benign).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from holdout8_attacks import ATTACKS
from holdout8_benign import BENIGN

OUT = Path(__file__).resolve().parent / "holdout8.jsonl"
#: characters ``str.splitlines`` breaks on that ``json.dumps(ensure_ascii=False)`` leaves raw
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def rows() -> list[dict[str, str]]:
    out = [
        {"id": f"h8-a{i:03d}", "label": "attack", "family": family, "technique": technique,
         "language": lang, "text": text}
        for i, (family, technique, lang, text) in enumerate(ATTACKS, 1)
    ] + [
        {"id": f"h8-b{i:03d}", "label": "benign", "family": "benign", "technique": technique,
         "language": lang, "text": text}
        for i, (technique, lang, text) in enumerate(BENIGN, 1)
    ]  # fmt: skip
    return out


def _line(row: dict[str, str]) -> str:
    line = json.dumps(row, ensure_ascii=False)
    for raw, escaped in _LINE_BREAKS.items():
        line = line.replace(raw, escaped)
    return line


def render() -> str:
    return "".join(_line(row) + "\n" for row in rows())


if __name__ == "__main__":
    OUT.write_text(render(), "utf-8")
    print(f"wrote {OUT} ({len(ATTACKS)} attacks, {len(BENIGN)} benign)")
