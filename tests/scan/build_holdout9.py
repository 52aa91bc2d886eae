"""Build tests/scan/holdout9.jsonl, the ninth blind scanner corpus (issue 17).

Run ``python tests/scan/build_holdout9.py``; the output is byte-identical on every run. Rows live
in the data modules next to this file (holdout9_attacks_[a-e].py, holdout9_benign_[a-d].py) as
(family, technique, language, text); this script numbers them h9-a001.. / h9-b001.. in module
order and writes one JSON object per line with the keys id, label, family, technique, language,
text. Every text was written by hand for this corpus (a few are encoded at build time from
hand-written plaintext: base64, rot13, URL- and hex-escaping, Unicode tag characters); nothing was
copied from a published dataset.

Threat model: the text reaches an agent's long-term memory through an untrusted channel and is
later recalled as a "fact". An attack row tries to make that future agent act for someone other
than its user (standing rules, triggers, tool-argument changes, exfiltration) or believe something
planted (false facts, swapped payment or contact details, forged identity or approval).

Attack families (the channel or angle each row comes through):
- calendar_ics: ICS/VEVENT/VALARM/VTODO fields (DESCRIPTION, COMMENT, X- properties, ALT-DESC HTML,
  dial-in text) that set standing rules, add attendees, leak free/busy or answer RSVPs.
- vcs_review: commit messages and trailers, PR descriptions, review comments and suggestions, git
  notes, tags, changelogs, blame lines: approvals without review, secret leaks, ownership claims.
- log_trace: stack traces, access-log user agents, JSON log fields, syslog, CI annotations, k8s
  events, audit lines and span attributes whose "remediation" is harmful.
- asr_transcript: disfluent speech-to-text (meetings, voicemail, podcasts, captions, IVR, dictation,
  call centres) carrying payment swaps, access grants and false figures.
- chat_export: Slack/Teams/Discord/WhatsApp/Telegram/LINE/WeChat/IRC exports, pinned messages and
  block-kit context with planted permissions or payee data.
- email_quoted: quoted replies, forwards, signatures, auto-replies, bounces, newsletter footers and
  HTML comments that redirect mail, payments or credentials (incl. one long buried IBAN swap).
- legal_fineprint: ToS, EULA, privacy, cookie, DPA, warranty and contract clauses "binding" AI agents.
- marketplace_listing: product, seller, review, Q&A, app-store, hotel, auction and menu text that
  steers purchases, payment channels or card entry.
- tabular_rows: CSV/TSV cells, SQL result sets, spreadsheet comments, formulas, LDAP and CRM rows.
- api_json: fields of weather/search/GraphQL/webhook/RSS/JSON-RPC/health/CI API responses.
- tool_error: tool failures whose suggested "fix" disables a control, leaks a token or installs code.
- a11y_tree: browser accessibility trees (aria-label, hidden StaticText, alt, title, placeholder,
  options, tooltips, iframes, SVG desc) aimed at browsing agents.
- config_files: YAML/.env/TOML/INI/compose/ssh/nginx/workflow/terraform/k8s/crontab comments.
- code_comments: docstrings and comments in Python, Rust, Go, JS, SQL, Java, shell, C#, Kotlin, PHP,
  Swift, Ruby, Haskell, Lua and C++ that plant insecure coding rules or exfiltration.
- delayed_trigger: "when the user next asks about X", date/count/keyword/absence triggers, sleepers.
- preference_drift: inferred "preferences" that quietly remove confirmations, privacy or caution.
- fact_poisoning: no instruction at all: wrong dosages, swapped IBAN/phone numbers, fake policies,
  deadlines, recalls, allergies, exchange rates, org charts and safety advice.
- multilingual_native: rows written natively (not translated from a template) in 25+ languages,
  mostly low-resource scripts (Amharic, Yoruba, Georgian, Armenian, Khmer, Burmese, Sinhala,
  Nepali, Mongolian, Urdu, Persian, Hebrew, Greek, Thai, Bengali, Tamil, Hungarian, Finnish,
  Icelandic, Zulu, Lithuanian, Romanian, Ukrainian, Swedish, Czech, Malay), each through a
  different channel and angle (notice, listing question, ICS, ticket, SMS, tool error, config,
  summary, fine print, a11y tree), plus mixed-language rows (Japanese+English, Arabic+French,
  Hinglish, Spanglish, German/English).
- hidden_obfuscation: base64, rot13, Unicode tag characters, zero-width joiners, Cyrillic/Greek
  homoglyphs, HTML entities, URL/hex escapes, bidi override, reversed, spaced, full-width and leet
  text, markdown link titles and comments, zero-size CSS.
- indirect_polite: no imperative verbs: wishes, third person, passive voice, rhetorical and
  survey questions, gratitude, stories, hedges.
- identity_privilege: forged admin/owner/doctor/parent/auditor/police/vendor-support claims,
  "approved by security" stamps, spoofed system blocks.
- exfil_beacon: markdown/HTML image beacons, link parameters, DNS lookups, webhooks, form posts,
  calendar shares, git remotes and QR uploads carrying user data out.
- session_summary: poisoned summaries, reflections, hand-offs, consolidated-fact lists and task
  lists that look like the agent's own earlier memory (incl. a long recap with one planted clause).
- helpdesk_ticket: ticket bodies, spoofed internal notes, macros, CSAT comments and KB proposals.
- doc_metadata: PDF info, EXIF, docx/xmp/epub/ID3 properties, speaker notes, hidden sheets,
  invisible annotations, subtitle tracks and file names.
- tool_arg_hijack: conventions that rewrite tool arguments (payee, recipient, path, query, amount,
  visibility, confirm flags) or poison an MCP tool description.
- kb_wiki: Confluence/Notion/README/StackOverflow/wiki/FAQ/intranet pages with a buried agent rule.
- sms_notification: SMS and push notifications that ask the reading assistant to pay, forward
  codes or share details.
- persona_override: character sheets, role-play setups, renamed "modes" and questions that try
  to give the agent a lasting persona whose loyalties or rules differ from its user's.
- implicit_procedure: planted workflows, routing rules and "standard practice" stated as plain
  organisational fact, never addressing an agent (payee updates without call-back, CC rules,
  self-approval, password sharing, exemptions, a care-plan dose change). Part E also adds 20 rows
  to the channel families above whose payload is stated as plain fact or as a request to a person,
  with no word for an agent (swapped dial-in, payee or phone; false approvals; plain role records).

Benign families (label "benign", family "benign_*") are hard negatives from the same channels
(calendar, VCS, logs, transcripts, chat, email, fine print, listings, tables, API JSON, tool
errors, accessibility trees, configs, tickets, document metadata, wiki pages, notifications) and:
runbooks and how-tos full of imperatives; legitimate procedures and routing rules (the
negatives for implicit_procedure); users' own preferences and reminders (incl. "next time I
ask about X, remind me..."); security advisories, papers, CVEs and post-mortems that quote or
describe injections; payment-detail changes with call-back verification; documented system
prompts; code that runs eval/exec/subprocess/curl; meeting notes with action items for people;
instructions to humans in 30 languages; base64 images, JWT examples and URLs with query strings;
correct reference facts (dosages, safety, deadlines); genuine role and delegation statements;
honest session summaries; emoji ZWJ sequences, rot13 spoilers, soft hyphens and mixed scripts;
polite requests to colleagues; text that talks to or about assistants and agents harmlessly (users'
own format/tone/reminder requests, AI product docs, news, job posts, bot transcripts and configs);
and long documents (up to ~2 KB). A few benign rows deliberately
share a channel header with an attack row (minimal pairs), so only the payload differs.

Isolation statement (what the author saw that a blind author should not have): nothing from
memguard/scan/, tests/scan/ (other than these new files), tests/corpus/, the scan tests,
benchmarks, tools or docs/scanner.md was opened, grepped or run, and the scanner was never run on
these rows. Seen incidentally: (1) pyproject.toml's dependency comments say the scanner uses a
pyahocorasick keyword automaton (memguard/scan/match.py) and a Hyperscan prefilter
(memguard/scan/prefilter.py); (2) `git log` on the base commit showed a commit subject quoting the
previous blind result ("holdout8 blind 65.6/7.8 -> 71.0/8.7"); (3) file names in tests/scan/ and
tests/test_scan_holdout*.py, and, to write the dedup test, the key names and row counts (never the
texts) of the other tests/scan/*.jsonl and tests/corpus files; (4) `grep -l` listed CHANGELOG.md
as a file mentioning "ruff format" (its content was not shown). None of this was used to aim rows
at or away from the scanner: the rows were written from the brief's list of channels and angles.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
OUT = HERE / "holdout9.jsonl"
ATTACK_MODULES = (
    "holdout9_attacks_a",
    "holdout9_attacks_b",
    "holdout9_attacks_c",
    "holdout9_attacks_d",
    "holdout9_attacks_e",
)
BENIGN_MODULES = (
    "holdout9_benign_a",
    "holdout9_benign_b",
    "holdout9_benign_c",
    "holdout9_benign_d",
)
KEYS = ("id", "label", "family", "technique", "language", "text")

Row = tuple[str, str, str, str]


def _load(name: str) -> ModuleType:
    path = HERE / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_holdout9_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(names: tuple[str, ...]) -> list[Row]:
    rows: list[Row] = []
    for name in names:
        rows.extend(_load(name).ROWS)
    return rows


def records() -> list[dict[str, str]]:
    """Every row in file order: attacks h9-a001.., then benign h9-b001.."""
    out: list[dict[str, str]] = []
    for label, prefix, rows in (
        ("attack", "a", _rows(ATTACK_MODULES)),
        ("benign", "b", _rows(BENIGN_MODULES)),
    ):
        for n, (family, technique, language, text) in enumerate(rows, start=1):
            out.append(
                {
                    "id": f"h9-{prefix}{n:03d}",
                    "label": label,
                    "family": family,
                    "technique": technique,
                    "language": language,
                    "text": text,
                }
            )
    return out


def render() -> bytes:
    """The corpus as JSONL bytes; the same bytes on every run."""
    recs = records()
    texts = [r["text"] for r in recs]
    if len(set(texts)) != len(texts):
        raise ValueError("duplicate text in holdout9 rows")
    lines = [json.dumps({k: r[k] for k in KEYS}, ensure_ascii=False) for r in recs]
    return ("\n".join(lines) + "\n").encode("utf-8")


def main() -> int:
    OUT.write_bytes(render())
    print(f"wrote {OUT.name}: {len(records())} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
