"""Revocation over the gateway: how far a caller's selector may reach, and what the answer shows.

A revocation made by an identity quarantines only the facts its ``revoke`` scope admits (and their
descendants), but while it is active the kernel also bars, for **every** user, the principals a
``subject``, ``workload`` or ``jti`` selector names (``identity.revoked`` on every call). Over the
gateway, where any tenant with the ``revoke`` scope can send a selector, such a selector is
accepted only if that bar stays within the caller's authority:

- ``subject``: the caller's own (issuer, subject);
- ``jti``: the caller's own token, or a token that wrote a fact inside the caller's revoke scope;
- ``workload`` (a workload serves every user): only a caller whose revoke scope is the whole store
  (for example ``memguard:responder`` under ``policies/lineage.yaml``).

Anything else is refused with 403 ``access_denied.selector_reach`` (audited). Source, domain,
session and turn selectors are not restricted here (see docs/gateway.md, "Revocation reach").

The answer lists only the quarantined facts inside the caller's ``revoke`` scope: descendants
elsewhere are quarantined too (containment is not scoped) but their ids are not shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from memguard.guard import MemoryGuard
from memguard.identity import Principal
from memguard.revocation import RevocationSelector
from memguard.scope import PlanKind, PointDecider, ReadRequest, ScopePlan, index_fields

__all__ = ["in_revoke_scope", "selector_reach_ok"]

_REVOKE = ReadRequest("revoke")


def _plan(guard: MemoryGuard, principal: Principal) -> ScopePlan | None:
    try:
        return guard.scope.read_plan(principal, _REVOKE)
    except Exception:  # a resolver error: nothing is in scope (the kernel refuses it too)
        return None


def _admitted(
    guard: MemoryGuard, principal: Principal, plan: ScopePlan, fact_ids: Sequence[str]
) -> list[str]:
    """The ids whose current record ``plan`` and the resolver's point evaluator both admit."""
    if plan.kind is PlanKind.DENY or not fact_ids:
        return []
    records = guard.ledger.latest(list(fact_ids))
    scope = guard.scope
    out: list[str] = []
    for fact_id in fact_ids:
        record = records.get(fact_id)
        if record is None:
            continue
        fields = index_fields(record.provenance)
        if not plan.allows(fields):
            continue
        if isinstance(scope, PointDecider):
            try:
                if scope.point_allows(principal, _REVOKE, fields) is not True:
                    continue
            except Exception:
                continue
        out.append(fact_id)
    return out


def selector_reach_ok(
    guard: MemoryGuard, principal: Principal, selector: RevocationSelector
) -> bool:
    """May ``principal`` send ``selector``? ``False`` when its principal bar would reach beyond
    the caller. Selectors that bar no principal are left to the policy (the kernel decides)."""
    kind = selector.kind
    if kind not in ("subject", "workload", "jti"):
        return True
    me = principal.subject
    if kind == "subject" and (selector.issuer, selector.value) == (me.issuer, me.subject):
        return True
    if kind == "jti" and selector.value == principal.token_jti:
        return True
    plan = _plan(guard, principal)
    if plan is None:
        return False
    if plan.kind is PlanKind.DENY:
        return True  # the policy refuses the revocation itself, with its own audited reason
    if plan.kind is PlanKind.ALLOW:
        return True  # the caller may revoke any fact: a deployment-wide bar is within its reach
    if kind == "jti":
        # a token that wrote (a version of) a fact inside the caller's revoke scope touched the
        # caller's memory: the caller may bar it. A token that wrote nothing there may not be.
        return bool(_admitted(guard, principal, plan, guard.ledger.lineage.match(selector)))
    return False


def in_revoke_scope(guard: MemoryGuard, principal: Principal, fact_ids: Sequence[str]) -> list[str]:
    """The subset of ``fact_ids`` (order kept) inside ``principal``'s ``revoke`` scope."""
    plan = _plan(guard, principal)
    if plan is None:
        return []
    if plan.kind is PlanKind.ALLOW:
        return list(fact_ids)
    return _admitted(guard, principal, plan, fact_ids)
