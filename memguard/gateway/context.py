"""What every gateway route shares: one :class:`GatewayContext` per app, and the caller dependency.

The app keeps its context in ``app.state.gateway``; a route reaches it through :data:`Ctx` and the
verified caller through :data:`Caller` (token, presenter binding, rate and ``Idempotency-Key``
admission, in that order, before the body is validated).
"""

# No `from __future__ import annotations`: FastAPI reads the dependency signatures.
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPBearer

from memguard.aio import AsyncMemoryGuard
from memguard.denials import request_credentials
from memguard.errors import InvalidRequest, MemguardError
from memguard.events import AuditEvent, Decision
from memguard.gateway.auth import WORKLOAD_HEADER, presented_credentials
from memguard.gateway.config import GatewayConfig, ScopesSection
from memguard.gateway.errors import GatewayError
from memguard.gateway.idempotency import Idempotency
from memguard.gateway.limits import RateLimits
from memguard.gateway.observability import route_action
from memguard.gateway.stack import GatewayStack
from memguard.guard import RecalledFact
from memguard.identity import Identity
from memguard.logging import MemguardLogger, get_logger

__all__ = ["Caller", "Ctx", "GatewayContext", "caller", "context_of"]

_bearer = HTTPBearer(auto_error=False, description="An `at+jwt` access token for this resource.")
_workload = APIKeyHeader(
    name=WORKLOAD_HEADER,
    auto_error=False,
    scheme_name="WorkloadIdentityToken",
    description="The calling agent's workload credential (JWT-SVID style `wit+jwt`); required "
    "with a delegated token (presenter binding).",
)


@dataclass(frozen=True)
class GatewayContext:
    """The per-app state the routes share: the stack, the async guard, the rate limits and the
    idempotency keys, and the refusals the gateway itself decides (audited like the guard's)."""

    stack: GatewayStack
    aguard: AsyncMemoryGuard
    rates: RateLimits
    keys: Idempotency | None
    log: MemguardLogger
    #: the read-receipt key set, read once when the app is built (None: receipts are off)
    receipt_jwks: dict[str, list[dict[str, str]]] | None

    @classmethod
    def open(cls, stack: GatewayStack) -> "GatewayContext":
        """The context of one app over ``stack``; the token service's client rate becomes this
        app's (per authenticated client)."""
        config = stack.config
        rates = RateLimits.from_config(config.limits)  # per process, or shared through Redis
        if stack.sts is not None:
            stack.sts.admit_client = rates.admit_client
        keys = (
            Idempotency(
                stack, lease=config.idempotency.lease, retention=config.idempotency.retention
            )
            if config.idempotency.enabled
            else None
        )
        return cls(
            stack=stack,
            aguard=AsyncMemoryGuard(stack.guard),
            rates=rates,
            keys=keys,
            log=get_logger(),
            receipt_jwks=stack.receipts.key.jwks() if stack.receipts is not None else None,
        )

    @property
    def config(self) -> GatewayConfig:
        return self.stack.config

    @property
    def resource(self) -> str:
        return self.stack.resource

    @property
    def scopes(self) -> ScopesSection:
        return self.stack.config.scopes

    async def authenticate(self, request: Request) -> Identity:
        """The verified caller of ``request``, admitted by the rate limits and, on a write, by
        its ``Idempotency-Key`` (memguard/gateway/idempotency.py)."""
        given = presented_credentials(request.headers)  # a bearer token, or a Txn-Token
        identity = await self.aguard.authenticate(
            given.token,
            workload_credential=given.workload_credential,
            transaction_token=given.transaction,
        )
        await self.rates.admit(identity, route_action(request.method, request.url.path))
        if self.keys is not None:
            await self.keys.admit_request(request, identity)
        return identity

    async def deny_event(
        self, identity: Identity, action: str, reason: str, detail: dict[str, Any]
    ) -> None:
        """A refusal the gateway decides goes to the ledger like the guard's own."""
        event = AuditEvent(
            action=action,
            decision=Decision.DENY,
            reason=reason,
            principal=identity.principal.summary(),
            detail={**request_credentials(), **detail},
        )
        try:
            await asyncio.to_thread(self.stack.guard.ledger.record, [event])
        except MemguardError:
            self.log.error("audit_event_lost", event_id=event.event_id, op=action)

    async def need(self, identity: Identity, scope: str | None, action: str) -> None:
        """The token must carry the operation's scope (RFC 6750 insufficient_scope); audited."""
        if scope is None or scope in identity.principal.scopes:
            return
        await self.deny_event(
            identity, action, "access_denied.insufficient_scope", {"required": scope}
        )
        raise GatewayError(
            f"the token lacks the `{scope}` scope",
            code="bearer.insufficient_scope",
            status=403,
            required_scope=scope,
        )

    def issue_receipt(
        self, identity: Identity, action: str, purpose: str, facts: Sequence[RecalledFact]
    ) -> str:
        """A signed read receipt for ``facts`` (memguard/gateway/receipts.py)."""
        if self.stack.receipts is None:
            raise InvalidRequest("read receipts are not enabled on this gateway")
        return self.stack.receipts.issue(identity, action, purpose, facts)


def context_of(request: Request) -> GatewayContext:
    """The context of the app serving ``request``."""
    ctx: GatewayContext = request.app.state.gateway
    return ctx


async def _context(request: Request) -> GatewayContext:
    return context_of(request)


async def caller(
    request: Request,
    _token: Annotated[object, Security(_bearer)],
    _credential: Annotated[object, Security(_workload)],
) -> Identity:
    """The route dependency: the verified, admitted caller (the two security schemes are
    declared for the OpenAPI document; the credentials are read from the headers)."""
    return await context_of(request).authenticate(request)


#: A route parameter that is the app's :class:`GatewayContext`.
Ctx = Annotated[GatewayContext, Depends(_context)]
#: A route parameter that is the verified caller (see :func:`caller`).
Caller = Annotated[Identity, Depends(caller)]
