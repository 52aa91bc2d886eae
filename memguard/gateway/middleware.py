"""The gateway app's middleware, innermost first: concurrency and time limits, the token
endpoint's per-peer rate, the body limit, bearer-only credentials, the refusal audit, the
``Idempotency-Key-Honored`` header, and observability outermost (the last added is the outermost)."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI

from memguard.events import AuditEvent
from memguard.gateway.auth import BearerOnlyMiddleware
from memguard.gateway.context import GatewayContext
from memguard.gateway.idempotency import HonoredHeader
from memguard.gateway.limits import (
    BodyLimitMiddleware,
    ConcurrencyLimitMiddleware,
    PeerRateMiddleware,
)
from memguard.gateway.observability import install as install_observability
from memguard.gateway.refusals import RefusalAuditMiddleware
from memguard.tokens.uses import TOKEN_PATH

__all__ = ["install_middleware"]


def install_middleware(
    app: FastAPI, ctx: GatewayContext, *, form_paths: frozenset[str], console_path: str
) -> None:
    """Wrap ``app`` in its middleware; ``form_paths`` take form bodies (the token endpoint and
    the console's forms), ``console_path`` is where the audit console is mounted."""
    stack, config, resource = ctx.stack, ctx.config, ctx.resource
    limits = config.limits

    def guarded(path: str) -> bool:
        return path.startswith(("/v1/", f"{console_path}/")) or path in (
            TOKEN_PATH,
            config.mcp.path,
        )

    app.add_middleware(
        ConcurrencyLimitMiddleware,
        max_concurrency=limits.max_concurrency,
        queue_timeout=limits.queue_timeout,
        request_timeout=limits.request_timeout,
        resource=resource,
        guarded=guarded,
    )
    if stack.sts is not None and ctx.rates.token_peer is not None:
        app.add_middleware(
            PeerRateMiddleware, limiter=ctx.rates.token_peer, path=TOKEN_PATH, resource=resource
        )
    app.add_middleware(BodyLimitMiddleware, max_bytes=limits.max_body_bytes, resource=resource)
    app.add_middleware(BearerOnlyMiddleware, resource=resource, form_paths=form_paths)

    def record_refusal(events: Sequence[AuditEvent]) -> None:
        stack.guard.ledger.record(events)
        stack.guard.kernel.events_committed()

    # outermost: whatever refused the request, exactly one deny event (memguard/gateway/refusals.py)
    app.add_middleware(RefusalAuditMiddleware, record=record_refusal, mcp_path=config.mcp.path)
    # every answer says whether a write's Idempotency-Key is honoured (the client retries on it)
    app.add_middleware(HonoredHeader, honored=ctx.keys is not None)
    # outermost of all: each request's access line, metrics and trace context
    install_observability(app, config)
