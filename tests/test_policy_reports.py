"""Audit and revocation reports under sharing: another owner's facts only as counts.

With a sharing policy a fact's lineage reaches facts of other owners. A report made for a reader
shows a related fact (an ancestor, a descendant, an edge to it) only if the reader may read or
audit it; the others appear as counts (``hidden``), never by id, source or writer. The finding
(issue 13): audit and revocation reports showed another owner's descendants' ids and sources.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from memguard import (
    LocalTokenService,
    MemoryGuard,
    PolicyResolver,
    RevocationSelector,
    Source,
    SourceKind,
    Turn,
)
from memguard.audit import audit_fact, audit_selector

SHARING = """\
apiVersion: memguard/v1
rules:
  - id: own
    effect: permit
    actions: [search, get, update, delete, audit, revoke, endorse]
    when:
      all:
        - {attr: fact.owner_iss, eq: {attr: principal.issuer}}
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
  - id: shared
    effect: permit
    actions: [search, get]
    when: {attr: fact.namespace, eq: shared}
  - id: auditor
    effect: permit
    actions: [audit]
    when: {attr: principal.scopes, contains: "memguard:auditor"}
  - id: write
    effect: permit
    actions: [write]
"""
CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")
PAGE = Source(kind=SourceKind.WEB, uri="https://secret-source.example/bob-private")


class Shared:
    def __init__(self, g: MemoryGuard, tokens: LocalTokenService) -> None:
        self.g = g
        self.alice = g.authenticate(tokens.issue("alice"))
        self.bob = g.authenticate(tokens.issue("bob"))
        self.ops = g.authenticate(tokens.issue("ops", scopes=["memguard:auditor"]))
        t = lambda i, s: Turn(session_id=s, turn_index=i)  # noqa: E731
        self.a = g.write(self.alice, "team offsite in May", namespace="shared", source=CHAT, turn=t(0, "a"))
        # bob's private notes derived from alice's shared fact: another owner's descendants
        self.b = g.write(self.bob, "book flights for May", namespace="private", source=PAGE,
                         turn=t(0, "b"), derived_from=[self.a.fact_id])  # fmt: skip
        self.b2 = g.write(self.bob, "ask for leave", namespace="private", source=CHAT,
                          turn=t(1, "b"), derived_from=[self.b.fact_id])  # fmt: skip
        self.a2 = g.write(self.alice, "prepare offsite agenda", namespace="notes", source=CHAT,
                          turn=t(1, "a"), derived_from=[self.a.fact_id])  # fmt: skip


@pytest.fixture
def w(make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService) -> Shared:
    return Shared(make_guard("qdrant-memory", scope=PolicyResolver.from_text(SHARING)), tokens)


def _text(report: object) -> str:
    return json.dumps(report)


def test_an_audit_shows_another_owners_descendants_only_as_counts(w: Shared) -> None:
    report = w.g.audit(w.alice, w.a.fact_id)
    lineage = report["lineage"]
    text = _text(lineage)
    assert w.a2.fact_id in text  # her own descendant is shown
    for hidden in (w.b, w.b2):
        assert hidden.fact_id not in text
    assert "secret-source.example" not in _text(report)
    assert lineage["descendant_count"] == 3 and len(lineage["descendants"]) == 1
    assert lineage["hidden"]["descendants"] == 2
    # the control: the operator's report (no reader) shows them, so the check above can fail
    full = audit_fact(w.g.ledger, w.g.store, w.a.fact_id)
    assert w.b.fact_id in _text(full["lineage"]) and "secret-source.example" in _text(full)


def test_a_reader_sees_ancestors_it_may_read(w: Shared) -> None:
    report = w.g.audit(w.bob, w.b2.fact_id)
    up = _text(report["lineage"]["up"])
    assert w.b.fact_id in up and w.a.fact_id in up  # alice's fact is shared: bob may read it
    assert report["lineage"]["hidden"] == {"roots": 0, "edges": 0, "descendants": 0}


def test_an_auditor_sees_every_fact_it_may_audit(w: Shared) -> None:
    report = w.g.audit(w.ops, w.a.fact_id)
    text = _text(report["lineage"])
    assert all(f.fact_id in text for f in (w.a2, w.b, w.b2))
    assert report["lineage"]["hidden"]["descendants"] == 0


def test_a_revocation_report_counts_what_the_revoker_may_not_see(w: Shared) -> None:
    report = w.g.revoke(w.alice, RevocationSelector.fact(w.a.fact_id), reason="wrong date")
    assert set(report.quarantined) == {w.a.fact_id, w.a2.fact_id}
    assert report.hidden == 2 and report.count == 4  # containment still reaches bob's facts
    assert w.b.fact_id not in report.quarantined and w.b2.fact_id not in report.quarantined
    assert w.g.ledger.lineage.quarantined([w.b.fact_id, w.b2.fact_id]) == {w.b.fact_id, w.b2.fact_id}


def test_a_selector_listing_for_a_reader(w: Shared) -> None:
    from memguard.audit import reader_visibility

    with w.g.kernel.operation("audit", w.alice) as op:
        visible = reader_visibility(op, "get", "audit")
        listing = audit_selector(w.g.ledger, RevocationSelector.fact(w.a.fact_id), visible=visible)
    assert [n["fact_id"] for n in listing["descendants"]] == [w.a2.fact_id]
    assert listing["hidden"] == {"matched": 0, "descendants": 2}
    assert listing["descendant_count"] == 3
