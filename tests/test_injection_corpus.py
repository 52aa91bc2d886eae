"""memguard's own injection corpus (tests/corpus/) through every untrusted channel and writer chain.

Every attack row of ``tests/corpus/injections.jsonl`` is written through each untrusted channel
(tool output, web page, document, sub-agent report, a summary derived from a web page, a user
message written in a turn that had read an untrusted fact) by each writer chain (the user, an
agent, a sub-agent; a sub-agent may not read the web page, so it has no derived or tainted path). Under the reference policies (``policies/``) none of them is ever returned for
``purpose: tool_argument`` or ``planning`` - not by search, not by listing, not by id - while they
still serve an answer (so the check can fail), and the user's own memories, the corpus's benign rows
written as user messages, do serve tool arguments.

The finding (issue 13): with the old reference policy, 75% of the attack facts written through
tool_output, document and subagent_report came back for ``tool_argument``.
"""

from __future__ import annotations

import json
import subprocess
import sys
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
from memguard.guard import FactInput
from memguard.prompt import parse_blocks, render_for_prompt

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "injections.jsonl"
POLICIES = HERE.parent / "policies"
ACTION_PURPOSES = ("tool_argument", "planning")


def rows(label: str) -> list[dict[str, Any]]:
    out = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines()]
    return [r for r in out if r["label"] == label]


def test_the_corpus_is_what_build_py_writes_and_is_big_enough() -> None:
    proc = subprocess.run([sys.executable, str(HERE / "corpus" / "build.py"), "--check"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    attacks, benign = rows("attack"), rows("benign")
    assert len(attacks) >= 300 and len(benign) >= 100
    families = {r["family"] for r in attacks}
    assert families >= {"direct_instruction", "tool_call_imperative", "delimiter_forgery",
                        "role_impersonation", "unicode_smuggling", "encoded_payload", "exfiltration",
                        "sleeper", "memory_poisoning", "multilingual"}  # fmt: skip
    encodings = {r["technique"] for r in attacks if r["family"] == "encoded_payload"}
    assert encodings == {"base64", "hex", "rot13", "url"}
    assert {"markdown_image", "link_with_data"} <= {r["technique"] for r in attacks}
    assert len({r["language"] for r in attacks}) >= 10
    assert len({r["text"] for r in attacks + benign}) == len(attacks) + len(benign)
    for r in attacks + benign:
        assert set(r) == {"id", "label", "family", "technique", "text", "channel_hints", "language",
                          "target", "taxonomy"}  # fmt: skip


CHANNELS = ("tool_output", "web", "document", "subagent_report", "derived_from_web", "tainted_turn")
#: channels whose writer must first read an untrusted fact (a sub-agent may not, under policies/)
READS_UNTRUSTED = ("derived_from_web", "tainted_turn")
SOURCES = {
    "tool_output": Source(kind=SourceKind.TOOL_OUTPUT, name="search"),
    "web": Source(kind=SourceKind.WEB, uri="https://attacker.example/page"),
    "document": Source(kind=SourceKind.DOCUMENT, name="report.pdf"),
    "subagent_report": Source(kind=SourceKind.SUBAGENT_REPORT, name="browser"),
    "derived_from_web": Source(kind=SourceKind.AGENT_INFERENCE, name="summarizer"),
    "tainted_turn": Source(kind=SourceKind.USER_MESSAGE, name="chat"),
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The whole corpus written once: every attack through every channel and chain."""
    from memguard import InMemoryStore, Ledger

    tmp = tmp_path_factory.mktemp("corpus")
    tokens = LocalTokenService(tmp / "keys")
    # the in-memory store: exact search over 7,000 facts without Qdrant local mode's per-point
    # Python filter loop (each translator is checked against its backend by the differential test)
    g = MemoryGuard(store=InMemoryStore(dimension=384), ledger=Ledger.sqlite(tmp / "ledger.db"),
                    verifier=tokens.verifier(), scope=PolicyResolver.from_path(POLICIES))  # fmt: skip
    chains = {
        "user": g.authenticate(tokens.issue("alice", ttl=3600)),
        "agent": g.authenticate(tokens.issue("alice", actors=[PLANNER], ttl=3600)),
        "sub-agent": g.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER], ttl=3600)),
    }
    user = chains["user"]
    seed = g.write(user, "seed page", namespace="web", source=SOURCES["web"],
                   turn=Turn(session_id="seed", turn_index=0))  # fmt: skip
    attack_ids: dict[str, tuple[str, str, str]] = {}
    for channel in CHANNELS:
        for chain, identity in chains.items():
            if chain == "sub-agent" and channel in READS_UNTRUSTED:
                continue  # the sub-agent may not read the web page (subagents.trust-floor)
            turn = Turn(session_id=f"corpus-{channel}-{chain}", turn_index=0)
            derived: tuple[str, ...] = ()
            if channel == "derived_from_web":
                derived = (seed.fact_id,)
            if channel == "tainted_turn":
                g.get(identity, seed.fact_id, turn=turn)  # the turn reads an untrusted page first
            facts = [FactInput(text=r["text"], namespace="corpus", source=SOURCES[channel], turn=turn,
                               derived_from=derived) for r in rows("attack")]  # fmt: skip
            for prov, r in zip(g.write_many(identity, facts), rows("attack"), strict=True):
                attack_ids[prov.fact_id] = (r["id"], channel, chain)
                assert prov.trust <= TrustLevel.DERIVED and prov.lineage_trust is not None
                assert prov.lineage_trust < TrustLevel.USER, (channel, chain, prov.lineage_trust)
    benign = g.write_many(user, [
        FactInput(text=r["text"], namespace="mine", source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
                  turn=Turn(session_id=f"own-{i}", turn_index=0)) for i, r in enumerate(rows("benign"))
    ])  # fmt: skip
    yield g, chains, attack_ids, {p.fact_id for p in benign}
    g.close()


def test_every_attack_through_every_channel_and_chain_was_written(written: Any) -> None:
    _, chains, attack_ids, _ = written
    combos = {(channel, chain) for _, channel, chain in attack_ids.values()}
    expected = len(CHANNELS) * len(chains) - len(READS_UNTRUSTED)
    assert len(combos) == expected
    assert len(attack_ids) == len(rows("attack")) * expected


@pytest.mark.parametrize("purpose", ACTION_PURPOSES)
def test_no_attack_is_ever_returned_for_an_action(written: Any, purpose: str) -> None:
    g, chains, attack_ids, benign_ids = written
    user, agent = chains["user"], chains["agent"]
    # a listing pages through everything the pushed-down plan admits: no attack, every own memory
    listed: set[str] = set()
    cursor = None
    while True:
        page, cursor = g.list_facts(user, limit=1000, cursor=cursor, purpose=purpose)
        listed |= {f.fact_id for f in page}
        if cursor is None:
            break
    assert not listed & set(attack_ids)
    assert benign_ids <= listed
    # searches shaped like the attacks themselves, by the user and by an agent
    for r in rows("attack")[::11]:
        for who in (user, agent):
            hits = {h.fact_id for h in g.search(who, r["text"][:200], k=25, purpose=purpose)}
            assert not hits & set(attack_ids), r["id"]
    # by id (the point path; every fact is already covered by the listing above): a sample that
    # holds every family, channel and chain
    sample: dict[tuple[str, str, str], str] = {}
    family = {r["id"]: r["family"] for r in rows("attack")}
    for fact_id, (row_id, channel, chain) in attack_ids.items():
        sample.setdefault((family[row_id], channel, chain), fact_id)
    assert len(sample) >= 10 * 16
    for fact_id in sample.values():
        with pytest.raises(FactNotFound):
            g.get(agent, fact_id, purpose=purpose)


def test_the_same_facts_serve_an_answer_and_the_users_own_memories_serve_actions(written: Any) -> None:
    g, chains, attack_ids, benign_ids = written
    answer = {h.fact_id for h in g.search(chains["user"], rows("attack")[0]["text"][:200], k=25)}
    assert answer & set(attack_ids)  # the control: without a purpose filter they do come back
    for r in rows("benign")[:20]:
        hits = {h.fact_id for h in g.search(chains["user"], r["text"], k=5, purpose="tool_argument")}
        assert hits & benign_ids, r["id"]


def test_rendered_for_a_prompt_they_stay_in_the_untrusted_section(written: Any) -> None:
    g, chains, attack_ids, _ = written
    sample = list(attack_ids)[:: len(CHANNELS) * 3][:200]
    facts = [g.get(chains["user"], fid) for fid in sample]
    rendered = render_for_prompt(facts)
    blocks = parse_blocks(rendered)
    assert {b.fact_id for b in blocks} == set(sample)
    assert all(b.trust in ("untrusted", "tool", "derived") for b in blocks)
    by_id = {f.fact_id: f.text for f in facts}
    assert all(by_id[b.fact_id] == b.text for b in blocks)  # the text survives intact
    trusted_part = rendered.split("UNTRUSTED memory")[0]
    assert not any(f'fact="{fid}"' in trusted_part for fid in sample)
