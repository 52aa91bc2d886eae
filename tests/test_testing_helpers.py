"""``memguard.testing``: the harness is the real guard, and each assertion fails when it should."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import PLANNER

from memguard.testing import assert_audited, assert_denied, assert_provenance, guard_harness

POLICIES = Path(__file__).resolve().parent.parent / "policies"


def test_the_docstring_example(tmp_path: Path) -> None:
    with guard_harness(tmp_path) as h:
        alice, bob = h.identity("alice"), h.identity("bob")
        fact = h.write(alice, "alice likes tea")
        assert_provenance(fact, trust="user", owner="alice", source_kind="user_message")
        assert_denied(lambda: h.guard.get(bob, fact.fact_id), code="not_found")
        assert_audited(h.guard, action="get", decision="deny", fact_id=fact.fact_id)
        assert h.guard.get(alice, fact.fact_id).text == "alice likes tea"


def test_chains_and_policies(tmp_path: Path) -> None:
    with guard_harness(tmp_path, policies=POLICIES / "isolation.yaml") as h:
        agent = h.identity("alice", PLANNER)
        fact = h.write(agent, "from the web", source="web", uri="https://x.example/a")
        assert_provenance(fact, trust="untrusted", writer_actors=[PLANNER], source_uri="https://x.example/a")
        assert [f.fact_id for f in h.guard.search(h.identity("alice"), "web")] == [fact.fact_id]
        assert h.events(action="write", decision="allow")


def test_assertions_fail_when_they_should(tmp_path: Path) -> None:
    with guard_harness(tmp_path) as h:
        alice = h.identity("alice")
        fact = h.write(alice, "alice likes tea")
        with pytest.raises(AssertionError, match="returned"):
            assert_denied(lambda: h.guard.get(alice, fact.fact_id))  # allowed: not a deny
        with pytest.raises(AssertionError, match=r"expected 'identity\.'"):
            assert_denied(lambda: h.guard.get(h.identity("bob"), fact.fact_id), code="identity.")
        with pytest.raises(AssertionError, match="trust: expected"):
            assert_provenance(fact, trust="system")
        with pytest.raises(AssertionError, match="owner: expected"):
            assert_provenance(fact, owner="bob")
        with pytest.raises(AssertionError, match="no audit event"):
            assert_audited(h.guard, action="revoke")
        assert_denied(lambda: h.guard.authenticate("not.a.token"), code="identity.")
        with pytest.raises(ValueError, match="not both"), guard_harness(
            tmp_path / "x", policies=POLICIES, scope=object()  # type: ignore[arg-type]
        ):
            pass
