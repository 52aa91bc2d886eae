"""``audit`` of one fact through the gateway, gated by policy (action ``audit``) and audited itself.

The caller needs a verified identity whose read plan for ``audit`` admits the fact (the reference
policy ``auditor.yaml`` grants it to the ``memguard:auditor`` scope; the default scope lets an owner
audit their own facts). A fact outside that plan is ``not_found``, exactly like an unknown id.
Every outcome is an audit event in the ledger; any unexpected error is a refusal.

This sits on the guard's public parts (``scope``, ``ledger``, ``store``, ``verifier``); when
``MemoryGuard`` grows its own ``audit`` operation the gateway should call that instead.
"""

from __future__ import annotations

import time
from typing import Any

from memguard.audit import audit_fact
from memguard.errors import (
    AccessDenied,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    MemguardError,
)
from memguard.events import AuditEvent, Decision
from memguard.guard import MemoryGuard
from memguard.identity import Identity, Principal
from memguard.logging import get_logger
from memguard.scope import PlanKind, PointDecider, ReadRequest, index_fields

__all__ = ["audit_for"]

_AUDIT = ReadRequest("audit", purpose="audit")


def audit_for(
    guard: MemoryGuard, identity: Identity, fact_id: str, *, clock: Any = time.time
) -> dict[str, Any]:
    """The ``memguard.audit/v1`` report of ``fact_id`` if ``identity`` may audit it."""
    principal: Principal | None = None
    digest: str | None = None
    try:
        if not isinstance(identity, Identity) or not guard.verifier.minted(identity):
            raise IdentityError("a verified identity is required", code="identity.missing")
        principal = identity.principal
        if identity.expires_at <= clock():
            raise IdentityError("identity expired", code="identity.expired")
        plan = guard.scope.read_plan(principal, _AUDIT)
        digest = plan.policy_digest
        if plan.kind is PlanKind.DENY:
            raise AccessDenied("audit not permitted", code="access_denied.policy")
        record = guard.ledger.latest([fact_id]).get(fact_id)
        if record is None:
            versions = guard.ledger.versions(fact_id)
            record = versions[-1] if versions else None
        if record is None:
            raise FactNotFound("fact not found")
        fields = index_fields(record.provenance)
        if not plan.allows(fields):
            raise FactNotFound("fact not found")
        if isinstance(guard.scope, PointDecider) and guard.scope.point_allows(
            principal, _AUDIT, fields
        ) is not True:
            raise FactNotFound("fact not found")
        report = audit_fact(guard.ledger, guard.store, fact_id)
    except MemguardError as exc:
        _record(guard, principal, fact_id, digest, Decision.DENY, exc.code)
        raise
    except (ValueError, TypeError) as exc:
        _record(guard, principal, fact_id, digest, Decision.DENY, "invalid_request")
        raise InvalidRequest("invalid request") from exc
    except Exception as exc:
        _record(guard, principal, fact_id, digest, Decision.DENY, "internal")
        raise MemguardError("internal error; request refused", code="internal") from exc
    _record(guard, principal, fact_id, digest, Decision.ALLOW, "ok", strict=True)
    return report


def _record(
    guard: MemoryGuard,
    principal: Principal | None,
    fact_id: str,
    digest: str | None,
    decision: Decision,
    reason: str,
    *,
    strict: bool = False,
) -> None:
    event = AuditEvent(
        action="audit", decision=decision, reason=reason,
        principal=principal.summary() if principal else None, fact_ids=(fact_id,),
        purpose="audit", policy_digest=digest,
    )
    try:
        guard.ledger.record([event])
    except MemguardError as exc:
        if strict:  # an allow that cannot be recorded is not an allow
            raise
        get_logger().error("audit_event_lost", event_id=event.event_id, error=exc.code, op="audit")
