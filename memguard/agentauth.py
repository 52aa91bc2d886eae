"""Audit records in the shape the agent authentication and authorization draft asks for.

draft-klrc-aiagent-auth makes audit records a MUST and names what each carries: the agent, the
delegated subject, the resource or tool, the action and the decision, a timestamp with a
transaction or correlation id, the posture or risk state, and remediation or revocation events with
their cause. memguard's :class:`~memguard.events.AuditEvent` already holds each of these (the log
signs the event as written); this module is the one mapping from an event to those fields, used by
``memguard audit``, the decision span and ``docs/standards.md``, so the three never disagree.

The mapping is a view: it adds nothing to the signed event and changes no stored digest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memguard.events import AuditEvent

__all__ = ["REMEDIATION_ACTIONS", "agent_auth_record"]

#: actions that remediate: revocations, endorsements (a cap lifted), shared-signal events, rescans
REMEDIATION_ACTIONS = frozenset(
    {"revoke", "endorse", "rescan", "ssf.receive", "ssf.poll", "ledger.repair", "owner_migration"}
)
_MAX_FACTS = 32  # a record names at most this many facts; ``fact_count`` says how many there were
_RISK_KEYS = ("scan", "verdict", "trust", "confusable", "quarantined", "barred", "risk", "alarm")


def agent_auth_record(event: AuditEvent) -> dict[str, Any]:
    """The draft's audit fields for one event (allow, deny or alarm)."""
    principal: Mapping[str, Any] = event.principal or {}
    actors = [str(a) for a in principal.get("actors") or []]
    subject = principal.get("subject")
    detail = event.detail
    record: dict[str, Any] = {
        # the agent that acted: the last actor of the delegation chain; none when the subject
        # called directly (a user, or a workload acting as itself)
        "agent": actors[-1] if actors else None,
        "delegated_subject": (
            {"iss": principal.get("issuer"), "sub": subject} if subject is not None else None
        ),
        "delegation_chain": actors,
        "workload": principal.get("workload_id"),
        "client_id": principal.get("client_id"),
        "resource": {
            "type": "memory",
            "fact_ids": list(event.fact_ids[:_MAX_FACTS]),
            "fact_count": len(event.fact_ids),
            **(
                {"namespace": detail["namespace"]}
                if isinstance(detail.get("namespace"), str)
                else {}
            ),
        },
        "action": event.action,
        "purpose": event.purpose,
        "decision": event.decision.value,
        "reason": event.reason,
        "time": event.ts.isoformat(),
        "event_id": event.event_id,
        "correlation_id": event.trace_id,
        "transaction_id": principal.get("txn"),
        "token_id": principal.get("jti"),
        "policy_digest": event.policy_digest,
        "risk": _risk(event),
        "remediation": _remediation(event) if event.action in REMEDIATION_ACTIONS else None,
    }
    return record


def _risk(event: AuditEvent) -> dict[str, Any]:
    """The posture the decision saw: scanner verdicts, identity flags, a revocation barring the
    caller, an alarm's reason."""
    detail = event.detail
    risk = {k: detail[k] for k in _RISK_KEYS if k in detail}
    if event.action not in REMEDIATION_ACTIONS and "revocation_id" in detail:
        risk["barred_by_revocation"] = detail["revocation_id"]
    if event.decision.value == "alarm":
        risk["alarm"] = event.reason
    return risk


def _remediation(event: AuditEvent) -> dict[str, Any]:
    """What was remediated and why: the cause a reviewer needs next to the effect."""
    detail = event.detail
    cause = (
        detail.get("revocation_reason")
        or detail.get("endorsement_reason")
        or detail.get("event_type")
        or detail.get("reason")
        or event.reason
    )
    out: dict[str, Any] = {"kind": event.action, "cause": cause}
    for key in ("revocation_id", "selector", "operator", "count", "event_type", "session"):
        if key in detail:
            out[key] = detail[key]
    return out
