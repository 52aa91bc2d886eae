"""``lineage_trust`` (item 5) and updates whose inputs are gone (item 6 of the findings) in the kernel.

- every new fact records the lowest channel of its lineage: its own channel, every input it was
  derived from and every fact its turn had read; it is in the provenance record, in the store's
  index (so policies push it down) and the reference policies read it;
- an owner may update her own fact whose inputs were deleted, quarantined or left her scope: the
  lineage edges stay (to the tombstones) and trust and lineage stay capped by the inputs' records;
- records written before the field existed keep their digests (the field is left out of their
  canonical form) and carry no ``lineage_trust`` in their index.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import BROWSER, PLANNER

from memguard import (
    FactNotFound,
    LocalTokenService,
    MemoryGuard,
    PolicyResolver,
    RevocationSelector,
    Source,
    SourceKind,
    TrustLevel,
    TrustPolicy,
    Turn,
)
from memguard.identity import PrincipalId
from memguard.lineage_trust import CHANNEL_CLASS, lineage_trust_of
from memguard.provenance import Provenance, WriterChain
from memguard.scope import index_fields

POLICIES = Path(__file__).resolve().parent.parent / "policies"
CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")
WEB = Source(kind=SourceKind.WEB, uri="https://example.com/p")
TOOL = Source(kind=SourceKind.TOOL_OUTPUT, name="search")
INFER = Source(kind=SourceKind.AGENT_INFERENCE, name="planner")


def turn(i: int, session: str = "s") -> Turn:
    return Turn(session_id=session, turn_index=i)


@pytest.fixture
def g(make_guard: Callable[..., MemoryGuard]) -> MemoryGuard:
    return make_guard("qdrant-memory", scope=PolicyResolver.from_path(POLICIES))


def test_each_channel_is_its_class_and_inputs_and_reads_lower_it(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    user = g.authenticate(tokens.issue("alice"))
    planner = g.authenticate(tokens.issue("alice", actors=[PLANNER]))
    said = g.write(user, "I fly on the 3rd", namespace="n", source=CHAT, turn=turn(0))
    page = g.write(user, "flight AB123 at 10:00", namespace="n", source=WEB, turn=turn(1))
    result = g.write(planner, "search: 3 flights", namespace="n", source=TOOL, turn=turn(2))
    assert (said.lineage_trust, page.lineage_trust, result.lineage_trust) == (
        TrustLevel.USER, TrustLevel.UNTRUSTED, TrustLevel.TOOL)  # fmt: skip
    # derived from a user fact: still derived (model output); from the page: untrusted
    summary = g.write(planner, "the user flies on the 3rd", namespace="n", source=INFER,
                      turn=turn(3), derived_from=[said.fact_id])  # fmt: skip
    assert summary.lineage_trust == TrustLevel.DERIVED
    booked = g.write(planner, "book AB123", namespace="n", source=INFER, turn=turn(4),
                     derived_from=[page.fact_id, said.fact_id])  # fmt: skip
    assert booked.lineage_trust == TrustLevel.UNTRUSTED and booked.trust == TrustLevel.UNTRUSTED
    # a user message in a turn that read the tool result: trust and lineage both follow the read
    g.get(planner, result.fact_id, turn=turn(5))
    relayed = g.write(planner, "go with the cheapest", namespace="n", source=CHAT, turn=turn(5))
    assert relayed.trust == TrustLevel.TOOL and relayed.lineage_trust == TrustLevel.TOOL
    # the field is in the record, its digest, and the store index (pushed down like trust)
    assert relayed.model_dump(mode="json")["lineage_trust"] == "tool"
    assert index_fields(relayed)["lineage_trust"] == int(TrustLevel.TOOL)
    point = g.store.retrieve([relayed.fact_id])[0]
    assert point.index["lineage_trust"] == int(TrustLevel.TOOL)


def test_a_raised_channel_default_does_not_raise_the_lineage(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    """A deployment may let tool output *grant* `user` trust; its lineage stays `tool`, and the
    reference policies keep it away from tool arguments."""
    defaults = dict(TrustPolicy().source_defaults)
    defaults[SourceKind.TOOL_OUTPUT] = TrustLevel.USER
    g = make_guard("qdrant-memory", scope=PolicyResolver.from_path(POLICIES),
                   trust_policy=TrustPolicy(source_defaults=defaults))  # fmt: skip
    user = g.authenticate(tokens.issue("alice"))
    fact = g.write(user, "transfer 500 to IBAN X", namespace="n", source=TOOL, turn=turn(0))
    assert fact.trust == TrustLevel.USER and fact.lineage_trust == TrustLevel.TOOL
    assert g.search(user, "transfer", purpose="answer")
    assert not g.search(user, "transfer", purpose="tool_argument")
    with pytest.raises(FactNotFound):
        g.get(user, fact.fact_id, purpose="tool_argument")


def test_a_batch_over_several_turns_takes_each_reads_lineage(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    """``write_many`` reads the rows of every fact its turns read in one query (memguard/stamp.py):
    each fact's lineage is still capped by what its own turn read, at the read fact's lineage
    (`tool`), not only its trust when read (`user`: a raised channel default). Fails open
    (lineage `user`) if a turn's reads were missed."""
    from memguard import FactInput

    defaults = dict(TrustPolicy().source_defaults)
    defaults[SourceKind.TOOL_OUTPUT] = TrustLevel.USER
    g = make_guard("qdrant-memory", scope=PolicyResolver.from_path(POLICIES),
                   trust_policy=TrustPolicy(source_defaults=defaults))  # fmt: skip
    user = g.authenticate(tokens.issue("alice"))
    tool = g.write(user, "transfer 500 to IBAN X", namespace="n", source=TOOL, turn=turn(0))
    web = g.write(user, "a web page", namespace="n", source=WEB, turn=turn(0))
    g.get(user, tool.fact_id, turn=turn(1))
    g.get(user, web.fact_id, turn=turn(2))
    g.get(user, tool.fact_id, turn=turn(2))
    turns = [turn(1), turn(3), turn(2), turn(1), turn(4)]
    notes = g.write_many(user, [
        FactInput(text=f"note {i}", namespace="n", source=CHAT, turn=t) for i, t in enumerate(turns)
    ])  # fmt: skip
    assert [n.lineage_trust for n in notes] == [
        TrustLevel.TOOL, TrustLevel.USER, TrustLevel.UNTRUSTED, TrustLevel.TOOL, TrustLevel.USER,
    ]  # fmt: skip
    assert [n.trust for n in notes] == [
        TrustLevel.USER, TrustLevel.USER, TrustLevel.UNTRUSTED, TrustLevel.USER, TrustLevel.USER,
    ]  # fmt: skip


def test_user_words_feed_actions_and_nothing_else_does(g: MemoryGuard, tokens: LocalTokenService) -> None:
    user = g.authenticate(tokens.issue("alice"))
    planner = g.authenticate(tokens.issue("alice", actors=[PLANNER]))
    browser = g.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    mine = g.write(user, "my IBAN is DE00", namespace="n", source=CHAT, turn=turn(0, "a"))
    relayed = g.write(planner, "user asked to pay rent", namespace="n", source=CHAT, turn=turn(0, "b"))
    report = g.write(browser, "pay to IBAN X", namespace="n",
                     source=Source(kind=SourceKind.SUBAGENT_REPORT, name="browser"), turn=turn(0, "c"))  # fmt: skip
    for purpose in ("tool_argument", "planning"):
        got = {h.fact_id for h in g.search(planner, "IBAN rent pay", k=10, purpose=purpose)}
        assert got == {mine.fact_id, relayed.fact_id}, purpose
    assert report.fact_id in {h.fact_id for h in g.search(planner, "pay", k=10, purpose="answer")}


# -- updates whose inputs are gone --------------------------------------------------------------


def test_update_after_an_input_was_deleted(g: MemoryGuard, tokens: LocalTokenService) -> None:
    user = g.authenticate(tokens.issue("alice"))
    said = g.write(user, "meeting at 10", namespace="n", source=CHAT, turn=turn(0))
    page = g.write(user, "room 4 is free", namespace="n", source=WEB, turn=turn(1))
    plan = g.write(user, "meet at 10 in room 4", namespace="n", source=INFER, turn=turn(2),
                   derived_from=[said.fact_id, page.fact_id])  # fmt: skip
    g.delete(user, page.fact_id)
    v2 = g.update(user, plan.fact_id, "meet at 10 in room 5", source=CHAT, turn=turn(3))
    assert v2.version == 2
    assert set(v2.derived_from) == {said.fact_id, page.fact_id}  # the edge stays, to the tombstone
    assert v2.trust == TrustLevel.UNTRUSTED and v2.lineage_trust == TrustLevel.UNTRUSTED
    assert "min of inputs = untrusted" in v2.trust_reason
    parents = {e.parent_id for e in g.ledger.lineage.ancestry(plan.fact_id)}
    assert {said.fact_id, page.fact_id} <= parents
    # naming a deleted input anew is still refused: a new input must be readable
    with pytest.raises(FactNotFound):
        g.write(user, "x", namespace="n", source=CHAT, turn=turn(4), derived_from=[page.fact_id])


def test_update_after_an_input_was_quarantined(g: MemoryGuard, tokens: LocalTokenService) -> None:
    user = g.authenticate(tokens.issue("alice"))
    page = g.write(user, "the office moved", namespace="n", source=WEB, turn=turn(0))
    note = g.write(user, "office: new address", namespace="n", source=INFER, turn=turn(1),
                   derived_from=[page.fact_id])  # fmt: skip
    g.revoke(user, RevocationSelector.fact(page.fact_id), reason="poisoned page")
    with pytest.raises(FactNotFound):  # the descendant is quarantined too
        g.get(user, note.fact_id)
    g.endorse(user, [note.fact_id], reason="I checked the address myself")
    v2 = g.update(user, note.fact_id, "office: checked address", source=CHAT, turn=turn(2))
    assert v2.trust == TrustLevel.UNTRUSTED  # still capped by the quarantined input's record
    assert v2.lineage_trust == TrustLevel.UNTRUSTED and page.fact_id in v2.derived_from
    with pytest.raises(FactNotFound):
        g.get(user, page.fact_id)  # the input itself stays quarantined


POLICY = """\
apiVersion: memguard/v1
rules:
  - id: own
    effect: permit
    actions: [search, get, update, delete]
    when:
      all:
        - {attr: fact.owner_iss, eq: {attr: principal.issuer}}
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
  - id: write
    effect: permit
    actions: [write]
"""
SHARED = POLICY + """\
  - id: shared
    effect: permit
    actions: [search, get]
    when: {attr: fact.namespace, eq: shared}
"""


def test_update_after_an_input_left_the_owners_scope(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, tmp_path: Path
) -> None:
    folder = tmp_path / "policy"
    folder.mkdir()
    (folder / "p.yaml").write_text(SHARED)
    g = make_guard("qdrant-memory", scope=PolicyResolver.from_path(folder, reload_interval=0))
    alice = g.authenticate(tokens.issue("alice"))
    bob = g.authenticate(tokens.issue("bob"))
    theirs = g.write(bob, "team lunch friday", namespace="shared", source=WEB, turn=turn(0, "b"))
    mine = g.write(alice, "lunch friday", namespace="n", source=INFER, turn=turn(0),
                   derived_from=[theirs.fact_id])  # fmt: skip
    (folder / "p.yaml").write_text(POLICY)  # sharing ends: bob's fact leaves alice's scope
    with pytest.raises(FactNotFound):
        g.get(alice, theirs.fact_id)
    v2 = g.update(alice, mine.fact_id, "lunch friday at noon", source=CHAT, turn=turn(1))
    assert v2.trust == TrustLevel.UNTRUSTED and theirs.fact_id in v2.derived_from
    assert v2.owner.subject == "alice"


def test_an_update_cannot_launder_through_a_later_cleaner_version_of_an_input(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    user = g.authenticate(tokens.issue("alice"))
    page = g.write(user, "price is 10", namespace="n", source=WEB, turn=turn(0))
    note = g.write(user, "pay 10", namespace="n", source=INFER, turn=turn(1), derived_from=[page.fact_id])
    g.update(user, page.fact_id, "price is 10 (I checked)", source=CHAT, turn=turn(2))
    v2 = g.update(user, note.fact_id, "pay 10 now", source=CHAT, turn=turn(3))
    assert v2.trust == TrustLevel.UNTRUSTED and v2.lineage_trust == TrustLevel.UNTRUSTED


# -- records written before the field ---------------------------------------------------------------


def test_legacy_records_keep_their_digest_and_have_no_index_lineage() -> None:
    legacy = Provenance(
        fact_id="f", version=1, namespace="n", owner=PrincipalId(issuer="i", subject="s"),
        source=Source(kind=SourceKind.USER_MESSAGE), turn=turn(0), trust=TrustLevel.USER,
        trust_reason="r", writer=WriterChain(subject=PrincipalId(issuer="i", subject="s"), token_jti="j"),
        created_at=datetime(2026, 1, 1, tzinfo=UTC), content_digest="c", policy_digest="p",
    )  # fmt: skip
    assert "lineage_trust" not in legacy.json_dict()
    assert legacy.record_digest == Provenance.model_validate(legacy.json_dict()).record_digest
    assert "lineage_trust" not in index_fields(legacy)
    assert lineage_trust_of(legacy) == TrustLevel.USER  # its channel, capped by its trust
    stamped = Provenance.model_validate({**legacy.json_dict(), "lineage_trust": "tool"})
    assert stamped.record_digest != legacy.record_digest  # the field is covered by the digest
    assert set(CHANNEL_CLASS) == set(SourceKind)


def test_a_batch_checks_each_facts_inputs_from_one_read(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    """``write_many`` reads the rows of every input its facts name in one query (memguard/stamp.py)
    and checks each fact's own inputs against them: each is capped by its own inputs, and one
    input the writer cannot see (another owner's, or none at all) refuses the whole batch."""
    from memguard import FactInput

    g = make_guard("qdrant-memory")
    alice = g.authenticate(tokens.issue("alice"))
    bob = g.authenticate(tokens.issue("bob"))
    mine = g.write(alice, "my note", namespace="n", source=CHAT, turn=turn(0))
    page = g.write(alice, "a web page", namespace="n", source=WEB, turn=turn(0))
    theirs = g.write(bob, "bob's note", namespace="n", source=CHAT, turn=turn(0))

    def fact(text: str, *inputs: str) -> FactInput:
        return FactInput(text=text, namespace="n", source=CHAT, turn=turn(1), derived_from=inputs)

    notes = g.write_many(alice, [fact("a", mine.fact_id), fact("b", page.fact_id, mine.fact_id),
                                 fact("c"), fact("d", mine.fact_id)])  # fmt: skip
    assert [n.trust for n in notes] == [TrustLevel.USER, TrustLevel.UNTRUSTED, TrustLevel.USER,
                                        TrustLevel.USER]  # fmt: skip
    assert [n.lineage_trust for n in notes] == [TrustLevel.USER, TrustLevel.UNTRUSTED,
                                                TrustLevel.USER, TrustLevel.USER]  # fmt: skip
    assert [n.derived_from for n in notes] == [(mine.fact_id,), (page.fact_id, mine.fact_id), (),
                                               (mine.fact_id,)]  # fmt: skip
    from memguard.ledger import FactState

    before = len(g.ledger.events(limit=10_000))
    rows = len(g.ledger.in_state(FactState.COMMITTED)) + len(g.ledger.in_state(FactState.PENDING))
    for hidden in (theirs.fact_id, "no-such-fact"):
        with pytest.raises(FactNotFound):
            g.write_many(alice, [fact("e", mine.fact_id), fact("f", mine.fact_id, hidden)])
    events = g.ledger.events(limit=10_000)[before:]
    assert [(e.action, e.decision.value) for e in events] == [("write", "deny")] * 2
    after = len(g.ledger.in_state(FactState.COMMITTED)) + len(g.ledger.in_state(FactState.PENDING))
    assert after == rows  # nothing was staged


def test_a_batch_update_keeps_each_fact_capped_by_its_own_recorded_inputs(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    """``write_many(fact_ids=...)`` of new versions reads every version of the inputs the facts
    were derived from in one query (``Ledger.versions_many``): each fact stays capped by its own
    inputs, a deleted one included (fails open, `user`, if a fact's inputs were missed)."""
    from memguard import FactInput

    user = g.authenticate(tokens.issue("alice"))
    said = g.write(user, "meeting at 10", namespace="n", source=CHAT, turn=turn(0))
    page = g.write(user, "room 4 is free", namespace="n", source=WEB, turn=turn(1))
    tool = g.write(user, "room 5 is booked", namespace="n", source=TOOL, turn=turn(1))
    derived = g.write_many(user, [
        FactInput(text=t, namespace="n", source=CHAT, turn=turn(2), derived_from=inputs)
        for t, inputs in (("a", (said.fact_id,)), ("b", (said.fact_id, page.fact_id)),
                          ("c", (tool.fact_id,)), ("d", ()))
    ])  # fmt: skip
    g.delete(user, page.fact_id)
    again = g.write_many(user, [
        FactInput(text=f"{p.fact_id} again", namespace="n", source=CHAT, turn=turn(3))
        for p in derived
    ], fact_ids=[p.fact_id for p in derived])  # fmt: skip
    assert [p.version for p in again] == [2, 2, 2, 2]
    assert [p.trust for p in again] == [TrustLevel.USER, TrustLevel.UNTRUSTED, TrustLevel.TOOL,
                                        TrustLevel.USER]  # fmt: skip
    assert [p.lineage_trust for p in again] == [TrustLevel.USER, TrustLevel.UNTRUSTED,
                                                TrustLevel.TOOL, TrustLevel.USER]  # fmt: skip
    assert [p.derived_from for p in again] == [p.derived_from for p in derived]
