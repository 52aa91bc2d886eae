"""Ledgers written before exchanged tokens kept the subject's issuer (issue 12): re-owned on open.

The old state is built the way memguard wrote it at 4c7bbc5: the token service's exchanged tokens
carried no ``sub_id`` (``legacy_exchanged_token`` mints exactly those claims), so the facts an
agent wrote were owned by (token service, sub), and the ledger had no ``mg_ledger_meta`` table.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import gateway_config
from helpers import PLANNER
from identity_helpers import make_client

from memguard import (
    ConfigurationError,
    FactNotFound,
    RevocationSelector,
    Source,
    SourceKind,
    Turn,
)
from memguard.audit import audit_fact
from memguard.gateway.stack import GatewayStack, open_stack
from memguard.tokens import SecurityTokenService

SCOPES = ("memory:read", "memory:write")
LOGIN_A = "https://login-a.example"
LOGIN_B = "https://login-b.example"


def legacy_exchanged_token(sts: SecurityTokenService, subject: str, actor: str, resource: str) -> str:
    """What the token service issued for a first hop before issue 12: no ``sub_id``."""
    now = int(sts._clock())
    claims = {
        "iss": sts.issuer, "sub": subject, "aud": resource, "iat": now, "exp": now + 600,
        "jti": secrets.token_urlsafe(16), "client_id": actor, "scope": " ".join(SCOPES),
        "act": {"sub": actor, "iss": "spiffe://memguard.local"},
    }
    return sts.access_keys.sign(claims, "at+jwt")


@dataclass
class Old:
    """An old gateway state: the configuration, its identity providers, and what was written."""

    tmp: Path
    over: dict[str, Any]
    idps: dict[str, SecurityTokenService]
    agent_facts: list[str]
    alice_direct: str
    carol_direct: str
    quarantined: str

    def open(self, **over: Any) -> GatewayStack:
        planner, browser = make_client(PLANNER), make_client("spiffe://memguard.local/agent/b")
        return open_stack(gateway_config(self.tmp, planner, browser, **{**self.over, **over}))


def _identity_file(tmp: Path, idps: dict[str, SecurityTokenService], resource: str) -> Path:
    path = tmp / "identity.yaml"
    path.write_text(json.dumps({
        "version": 1,
        "access_tokens": {"audience": resource, "issuers": [
            {"issuer": i.issuer, "algorithms": ["EdDSA"], "jwks": i.jwks()} for i in idps.values()]},
    }), "utf-8")
    return path


def _turn(i: int = 0) -> Turn:
    return Turn(session_id="s-old", turn_index=i)


def build_old_state(tmp: Path, issuers: tuple[str, ...]) -> Old:
    """Write facts as the old code did, then remove what the old code did not have."""
    port_cfg = gateway_config(tmp, make_client(PLANNER), make_client(PLANNER))
    resource = port_cfg.resource
    idps = {iss: SecurityTokenService(tmp / f"idp-{n}", issuer=iss, audiences=(resource,))
            for n, iss in enumerate(issuers)}
    over: dict[str, Any] = {"server": {"host": "127.0.0.1", "port": port_cfg.server.port}}
    if idps:
        over["identity"] = {"config": str(_identity_file(tmp, idps, resource))}
    old = Old(tmp, over, idps, [], "", "", "")
    stack = old.open()
    try:
        sts, guard = stack.sts, stack.guard
        assert sts is not None
        presenter = sts.issue_workload_credential(PLANNER)
        agent = guard.authenticate(legacy_exchanged_token(sts, "alice", PLANNER, resource),
                                   workload_credential=presenter)
        assert (agent.principal.subject.issuer, agent.principal.subject.subject) == (sts.issuer, "alice")
        for i in range(3):
            prov = guard.write(agent, f"alice's plan step {i}", namespace="plans",
                               source=Source(kind=SourceKind.AGENT_INFERENCE), turn=_turn(i))
            old.agent_facts.append(prov.fact_id)
        if idps:
            first = next(iter(idps.values()))
            alice = guard.authenticate(first.issue_user_token("alice", scopes=SCOPES))
            old.alice_direct = guard.write(alice, "alice's own note", namespace="notes",
                                           source=Source(kind=SourceKind.USER_MESSAGE),
                                           turn=_turn()).fact_id
        carol = guard.authenticate(sts.issue_user_token("carol", scopes=SCOPES))
        old.carol_direct = guard.write(carol, "carol's dev note", namespace="notes",
                                       source=Source(kind=SourceKind.USER_MESSAGE),
                                       turn=_turn()).fact_id
        web = guard.write(agent, "a page the agent read", namespace="web",
                          source=Source(kind=SourceKind.WEB, uri="https://evil.example/x"),
                          turn=_turn(9))
        old.quarantined = web.fact_id
        old.agent_facts.append(web.fact_id)
        guard.revoke(None, RevocationSelector.fact(web.fact_id), reason="bad page", operator="ops")
    finally:
        stack.close()
    with sqlite3.connect(tmp / "gw" / "ledger.db") as db:
        db.execute("DROP TABLE mg_ledger_meta")  # the old code had no such table
    return old


@pytest.fixture
def old_one_issuer(tmp_path: Path) -> Old:
    return build_old_state(tmp_path, (LOGIN_A,))


def _events(stack: GatewayStack, action: str) -> list[Any]:
    return [e for e in stack.guard.ledger.events(limit=10_000) if e.action == action]


def test_one_user_issuer_reowns_the_agents_facts_as_a_logged_event(old_one_issuer: Old) -> None:
    old = old_one_issuer
    stack = old.open()
    try:
        ledger, guard = stack.guard.ledger, stack.guard
        assert ledger.owner_scheme() == 2
        latest = ledger.latest([*old.agent_facts, old.alice_direct, old.carol_direct])
        for fid in old.agent_facts:
            prov = latest[fid].provenance
            assert (prov.owner.issuer, prov.owner.subject) == (LOGIN_A, "alice")
            assert prov.version == 2 and "owner re-keyed" in prov.trust_reason
            assert [a.subject for a in prov.writer.actors] == [PLANNER]  # the writer is kept
        assert latest[old.alice_direct].provenance.version == 1
        carol = latest[old.carol_direct].provenance  # a dev login's own facts: not exchanged
        assert (carol.owner.issuer, carol.version) == (stack.sts.issuer, 1)  # type: ignore[union-attr]
        batches = [e for e in _events(stack, "owner_migration") if e.reason == "ok"]
        summary = [e for e in _events(stack, "owner_migration") if e.reason == "migrated"]
        assert sorted(f for e in batches for f in e.fact_ids) == sorted(old.agent_facts)
        assert len(summary) == 1 and summary[0].detail["reowned"] == len(old.agent_facts)
        assert summary[0].detail["subject_issuer"] == LOGIN_A
        # alice's own token now reaches what her agent wrote, and its own note
        alice = guard.authenticate(old.idps[LOGIN_A].issue_user_token("alice", scopes=SCOPES))
        found = {h.fact_id for h in guard.search(alice, "alice plan note", k=20)}
        assert found == {*old.agent_facts, old.alice_direct} - {old.quarantined}
        with pytest.raises(FactNotFound):  # still quarantined after the move
            guard.get(alice, old.quarantined)
        report = audit_fact(ledger, stack.store, old.agent_facts[0])
        assert report["verification"]["ledger_record_digest"] == "ok"
        assert report["verification"]["store_payload"] == "ok"
        assert report["revocation"]["quarantined"] is False
        assert audit_fact(ledger, stack.store, old.quarantined)["revocation"]["quarantined"]
        assert ledger.log.verify().ok
    finally:
        stack.close()
    again = old.open()  # done once: the next open changes nothing
    try:
        assert len(_events(again, "owner_migration")) == len(old.agent_facts) // 256 + 2
    finally:
        again.close()


def test_several_issuers_without_a_mapping_refuse_to_start(tmp_path: Path) -> None:
    old = build_old_state(tmp_path, (LOGIN_A, LOGIN_B))
    with pytest.raises(ConfigurationError) as info:
        old.open()
    assert "sts.legacy_subject_issuer" in str(info.value)
    assert LOGIN_A in str(info.value) and LOGIN_B in str(info.value)
    with pytest.raises(ConfigurationError, match="not an issuer"):
        old.open(sts={"legacy_subject_issuer": "https://nobody.example"})
    stack = old.open(sts={"legacy_subject_issuer": LOGIN_B})
    try:
        owners = {(r.provenance.owner.issuer, r.provenance.owner.subject)
                  for r in stack.guard.ledger.latest(old.agent_facts).values()}
        assert owners == {(LOGIN_B, "alice")}
        # a's alice does not reach them; b's alice does
        a_alice = stack.guard.authenticate(old.idps[LOGIN_A].issue_user_token("alice", scopes=SCOPES))
        b_alice = stack.guard.authenticate(old.idps[LOGIN_B].issue_user_token("alice", scopes=SCOPES))
        assert not {h.fact_id for h in stack.guard.search(a_alice, "plan", k=20)} & set(old.agent_facts)
        assert {h.fact_id for h in stack.guard.search(b_alice, "plan", k=20)} == (
            set(old.agent_facts) - {old.quarantined})
    finally:
        stack.close()


def test_token_service_as_the_only_issuer_changes_no_owner(tmp_path: Path) -> None:
    old = build_old_state(tmp_path, ())
    stack = old.open()
    try:
        owners = {r.provenance.owner.issuer for r in stack.guard.ledger.latest(old.agent_facts).values()}
        assert owners == {stack.sts.issuer}  # type: ignore[union-attr]
        summary = _events(stack, "owner_migration")
        assert len(summary) == 1 and summary[0].detail["reowned"] == 0
        assert stack.guard.ledger.owner_scheme() == 2
    finally:
        stack.close()


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[GatewayStack]:
    stack = open_stack(gateway_config(tmp_path, make_client(PLANNER), make_client(PLANNER)))
    yield stack
    stack.close()


def test_a_new_ledger_is_marked_and_never_migrated(fresh: GatewayStack) -> None:
    assert fresh.guard.ledger.owner_scheme() == 2
    assert _events(fresh, "owner_migration") == []
