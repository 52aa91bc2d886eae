"""A labelled injection corpus written through untrusted channels (issue 5).

The corpus is `bastioncorpus` (PyPI, MIT; the malicious rows of `bastioncorpus/corpus/injections.jsonl`
shipped in the wheel). Every malicious row is written through one of memguard's untrusted channels:
a web page stored by a browsing sub-agent or by the user, a summary derived from such a page, a user
message or a tool result written in a turn that read an untrusted fact. 100% must come out labelled
`untrusted` or lower, and under the reference policies none may serve `purpose: tool_argument`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, PLANNER

from memguard import (
    FactNotFound,
    LocalTokenService,
    MemoryGuard,
    PolicyResolver,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
)
from memguard.prompt import parse_blocks, render_for_prompt

bastioncorpus = pytest.importorskip(
    "bastioncorpus", reason="the corpus ships in the dev extra (pip install -e '.[dev]')"
)
POLICIES = Path(__file__).resolve().parent.parent / "policies"


def malicious_rows() -> list[Any]:
    rows = [r for r in bastioncorpus.load_corpus() if r.label == "malicious"]
    assert len(rows) >= 90  # the 0.6 corpus has 118; a much smaller one would mean a broken load
    return rows


@pytest.fixture
def g(make_guard: Callable[..., MemoryGuard]) -> MemoryGuard:
    return make_guard("qdrant-memory", scope=PolicyResolver.from_path(POLICIES))


def test_every_injection_through_an_untrusted_channel_is_untrusted_and_never_a_tool_argument(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    user = g.authenticate(tokens.issue("alice"))
    planner = g.authenticate(tokens.issue("alice", actors=[PLANNER]))
    browser = g.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    seed = g.write(browser, "seed page", namespace="web",
                   source=Source(kind=SourceKind.WEB, uri="https://seed.example/"),
                   turn=Turn(session_id="corpus", turn_index=0))  # fmt: skip
    written: dict[str, tuple[str, TrustLevel]] = {}
    channels: list[str] = []
    for i, row in enumerate(malicious_rows()):
        text = row.text.replace("{canary}", f"CANARY-{i}")
        turn = Turn(session_id="corpus", turn_index=i + 1)
        how = ("web_by_subagent", "web_by_user", "derived_from_web",
               "user_message_in_tainted_turn", "tool_output_in_tainted_turn")[i % 5]  # fmt: skip
        uri = f"https://attacker{i}.example/{row.id}"
        if how == "web_by_subagent":
            prov = g.write(browser, text, namespace="web",
                           source=Source(kind=SourceKind.WEB, uri=uri), turn=turn)  # fmt: skip
        elif how == "web_by_user":
            prov = g.write(user, text, namespace="web",
                           source=Source(kind=SourceKind.WEB, uri=uri), turn=turn)  # fmt: skip
        elif how == "derived_from_web":
            prov = g.write(planner, text, namespace="notes",
                           source=Source(kind=SourceKind.AGENT_INFERENCE, name="planner"),
                           turn=turn, derived_from=[seed.fact_id])  # fmt: skip
        else:
            g.get(planner, seed.fact_id, turn=turn)  # the turn reads an untrusted page first
            kind = SourceKind.USER_MESSAGE if how.startswith("user") else SourceKind.TOOL_OUTPUT
            prov = g.write(planner, text, namespace="notes",
                           source=Source(kind=kind, name="chat"), turn=turn)  # fmt: skip
        written[prov.fact_id] = (row.id, prov.trust)
        channels.append(how)

    labelled = [t for _, t in written.values()]
    assert all(t <= TrustLevel.UNTRUSTED for t in labelled), [
        (rid, t.label) for rid, t in written.values() if t > TrustLevel.UNTRUSTED
    ]
    assert {c: channels.count(c) for c in set(channels)} and len(set(channels)) == 5

    # purpose tool_argument: none comes back, by search or by id
    ids = set(written)
    for row in malicious_rows()[:40]:
        hits = g.search(planner, row.text[:200], k=20, purpose="tool_argument")
        assert not ids & {h.fact_id for h in hits}
    for fact_id in ids:
        with pytest.raises(FactNotFound):
            g.get(planner, fact_id, purpose="tool_argument")
    # the control: the same facts do serve an answer (so the check above can fail)
    answer = g.search(planner, malicious_rows()[0].text[:200], k=20, purpose="answer")
    assert ids & {h.fact_id for h in answer}

    # rendered for a prompt, each lands in the untrusted section with its text intact
    facts, cursor = g.list_facts(user, limit=1000)
    assert cursor is None
    rendered = render_for_prompt([f for f in facts if f.fact_id in ids])
    blocks = parse_blocks(rendered)
    assert {b.fact_id for b in blocks} == ids
    assert all(b.trust == "untrusted" for b in blocks)
    by_id = {f.fact_id: f.text for f in facts}
    assert all(by_id[b.fact_id] == b.text for b in blocks)
    trusted_part = rendered.split("UNTRUSTED memory")[0]
    assert not any(f"fact=\"{fid}\"" in trusted_part for fid in ids)
