"""Audit records carry the agent-auth draft's fields (issue 21 item 2): agent, delegated subject,
resource, action, decision, time, correlation and transaction ids, risk state, remediation cause,
on every allow and deny, in `audit` output and on the decision span."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from helpers import BROWSER, PLANNER
from telemetry_helpers import in_memory_telemetry

from memguard import (
    Ledger,
    LocalTokenService,
    MemoryGuard,
    RevocationSelector,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
    audit_fact,
)
from memguard.agentauth import agent_auth_record
from memguard.errors import MemguardError
from memguard.events import AuditEvent, Decision
from memguard.stores.memory import InMemoryStore

WEB = Source(kind=SourceKind.WEB, uri="https://news.example/a")


@pytest.fixture
def guard(tmp_path: Path) -> MemoryGuard:
    tokens = LocalTokenService(tmp_path / "keys")
    g = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                    verifier=tokens.verifier(), revocation_ttl=0)  # fmt: skip
    g.tokens = tokens  # type: ignore[attr-defined]
    return g


def _issuer(guard: MemoryGuard) -> str:
    return str(guard.tokens.issuer)  # type: ignore[attr-defined]


def test_a_delegated_write_names_agent_subject_resource_and_correlation(guard: MemoryGuard) -> None:
    me = guard.authenticate(guard.tokens.issue("alice", actors=[PLANNER, BROWSER]))  # type: ignore[attr-defined]
    prov = guard.write(me, "a page", namespace="research", source=WEB,
                       turn=Turn(session_id="s", turn_index=3, trace_id="4bf92f3577b34da6a3ce929d0e0e4736"))  # fmt: skip
    report = audit_fact(guard.ledger, guard.store, prov.fact_id)
    write = next(e for e in report["events"] if e["action"] == "write")
    rec = write["agent_auth"]
    assert rec["agent"] == BROWSER and rec["delegation_chain"] == [PLANNER, BROWSER]
    assert rec["delegated_subject"] == {"iss": _issuer(guard), "sub": "alice"}
    assert rec["resource"]["fact_ids"] == [prov.fact_id] and rec["resource"]["fact_count"] == 1
    assert (rec["action"], rec["decision"]) == ("write", "allow")
    assert rec["correlation_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert rec["time"] == write["ts"] and rec["event_id"]
    assert rec["remediation"] is None


def test_a_deny_carries_the_same_fields(guard: MemoryGuard) -> None:
    me = guard.authenticate(guard.tokens.issue("alice", actors=[PLANNER, BROWSER]))  # type: ignore[attr-defined]
    with pytest.raises(MemguardError):  # a web page may not be stored as user-trusted
        guard.write(me, "x", namespace="n", source=WEB, trust=TrustLevel.USER,
                    turn=Turn(session_id="s", turn_index=1))  # fmt: skip
    denies = list(guard.ledger.events(decision="deny"))
    assert denies, "the refusal was audited"
    rec = agent_auth_record(denies[-1])
    assert rec["decision"] == "deny" and rec["reason"] == denies[-1].reason
    assert rec["agent"] == BROWSER and rec["delegated_subject"]["sub"] == "alice"


def test_revocation_is_a_remediation_with_its_cause_and_bars_later_writes(guard: MemoryGuard) -> None:
    me = guard.authenticate(guard.tokens.issue("alice", actors=[PLANNER, BROWSER]))  # type: ignore[attr-defined]
    guard.write(me, "a page", namespace="research", source=WEB, turn=Turn(session_id="s", turn_index=1))
    report = guard.revoke(None, RevocationSelector.source("https://news.example/a"),
                          reason="site compromised", operator="ops")  # fmt: skip
    revoke = next(e for e in guard.ledger.events() if e.action == "revoke")
    rem = agent_auth_record(revoke)["remediation"]
    assert rem["kind"] == "revoke" and rem["cause"] == "site compromised"
    assert rem["revocation_id"] == report.revocation_id and rem["operator"] == "ops"
    with pytest.raises(MemguardError):
        guard.write(me, "again", namespace="research", source=WEB, turn=Turn(session_id="s", turn_index=2))
    barred = [agent_auth_record(e) for e in guard.ledger.events(decision="deny")]
    assert any(r["risk"].get("barred_by_revocation") == report.revocation_id for r in barred)


def test_transaction_id_and_alarm_risk_are_mapped() -> None:
    event = AuditEvent(action="get", decision=Decision.ALARM, reason="integrity.record_mismatch",
                       principal={"subject": "alice", "issuer": "https://idp", "actors": [],
                                  "txn": "txn-42"}, fact_ids=("f1",))  # fmt: skip
    rec = agent_auth_record(event)
    assert rec["transaction_id"] == "txn-42" and rec["agent"] is None
    assert rec["risk"]["alarm"] == "integrity.record_mismatch"


def test_the_decision_span_names_the_agent_and_only_a_digest_of_the_subject(guard: MemoryGuard) -> None:
    me = guard.authenticate(guard.tokens.issue("alice", actors=[PLANNER, BROWSER]))  # type: ignore[attr-defined]
    with in_memory_telemetry() as otel:
        guard.write(me, "a page", namespace="research", source=WEB, turn=Turn(session_id="s", turn_index=1))
        span = otel.one("create_memory")
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.agent.id"] == BROWSER and attrs["memguard.delegation.depth"] == 2
    expected = hashlib.sha256(f"{_issuer(guard)}\x00alice".encode()).hexdigest()
    assert attrs["memguard.principal.digest"] == expected
    assert not any(v == "alice" for v in attrs.values())
