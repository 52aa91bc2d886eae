"""The lineage routes: revoke (quarantine what a selector matches and its descendants) and
endorse (lift one fact's quarantine)."""

# No `from __future__ import annotations`: FastAPI reads the route signatures' aliases.
import asyncio

from pydantic import ValidationError

from memguard.errors import AccessDenied, InvalidRequest
from memguard.gateway.context import Caller, Ctx
from memguard.gateway.lineage import in_revoke_scope, selector_reach_ok
from memguard.gateway.route_params import ERRORS, NOT_FOUND, FactIdPath
from memguard.gateway.route_table import RouteTable
from memguard.gateway.schemas import EndorseIn, EndorseOut, RevocationOut, RevokeIn
from memguard.revocation import RevocationReport, RevocationSelector

__all__ = ["routes"]

routes = RouteTable()


@routes.post(
    "/v1/revocations",
    status_code=201,
    response_model=RevocationOut,
    responses={
        **{k: v for k, v in ERRORS.items() if k != 404},
        403: {
            "description": "not permitted by policy or token scope, or a principal selector "
            "reaching beyond the caller (`access_denied.selector_reach`)"
        },
    },
    tags=["lineage"],
    summary="Revoke a source, turn, principal or fact: quarantine what it "
    "matches in the caller's revoke scope and every descendant",
)
async def revoke(body: RevokeIn, identity: Caller, ctx: Ctx) -> RevocationOut:
    """Revoke a source, domain, session, turn, principal or fact: quarantine what it matches
    in the caller's revoke scope and every descendant (wherever it is), and refuse new
    writes it matches while it is active. Needs the revoke scope."""
    await ctx.need(identity, ctx.scopes.revoke, "revoke")
    try:
        selector = body.selector.to_selector()
    except ValidationError:
        raise InvalidRequest("invalid selector") from None
    guard = ctx.stack.guard
    principal = identity.principal
    if not await asyncio.to_thread(selector_reach_ok, guard, principal, selector):
        await ctx.deny_event(
            identity,
            "revoke",
            "access_denied.selector_reach",
            {"selector": selector.model_dump(mode="json", exclude_none=True)},
        )
        raise AccessDenied(
            "this selector would bar principals beyond the caller's reach",
            code="access_denied.selector_reach",
        )

    def run(s: RevocationSelector) -> tuple[RevocationReport, list[str]]:
        report = guard.revoke(identity, s, reason=body.reason, follow_context=body.follow_context)
        return report, in_revoke_scope(guard, principal, report.quarantined)

    report, visible = await asyncio.to_thread(run, selector)
    return RevocationOut.of(report, visible)


@routes.post(
    "/v1/facts/{fact_id}/endorse",
    response_model=EndorseOut,
    responses={
        **NOT_FOUND,
        403: {
            "description": "not permitted by policy (by default only the user "
            "directly, never an agent acting for them) or token scope"
        },
    },
    tags=["lineage"],
    summary="Endorse a fact: lift its quarantine (audited, policy-gated)",
)
async def endorse(fact_id: FactIdPath, body: EndorseIn, identity: Caller, ctx: Ctx) -> EndorseOut:
    """Lift a fact's quarantine: an explicit, policy-gated, audited endorsement. Its
    descendants stay quarantined until endorsed themselves."""
    await ctx.need(identity, ctx.scopes.endorse, "endorse")
    lifted = await ctx.aguard.endorse(identity, [fact_id], reason=body.reason)
    return EndorseOut(fact_id=fact_id, lifted=fact_id in lifted)
