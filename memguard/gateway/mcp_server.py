"""The MCP face of the gateway: tools ``remember``, ``recall``, ``forget`` and ``audit``.

There is deliberately no ``endorse`` tool (an MCP tool is an action a model can be talked into;
lifting a quarantine must not be one) and no ``revoke`` tool (a revocation bars sources and
writers deployment-wide: an operator's or a user's call, over the HTTP API).

Streamable HTTP (mounted in the gateway app at ``/mcp``) follows MCP's authorization rules:

- the gateway is an OAuth 2.0 protected resource; unauthenticated requests get 401 with
  ``WWW-Authenticate: Bearer ... resource_metadata=...`` pointing at its RFC 9728 metadata
  (the ``mcp`` package's ``RequireAuthMiddleware``);
- audience binding (RFC 8707): a token is accepted only if its ``aud`` is this resource (the
  guard's verifier checks it; :class:`GuardTokenVerifier` also reports it as ``resource`` so the
  ``mcp`` package's own check, ``validate_token_resource``, runs as well);
- no token passthrough: the token is verified here and never sent anywhere; the gateway reaches
  the store with its own credentials.

Both protocol eras are served on the one endpoint (the ``mcp`` package routes by the
``MCP-Protocol-Version`` header): the handshake revisions up to 2025-11-25 (``initialize`` first;
this server runs them ``stateless_http``, so no ``Mcp-Session-Id`` is minted) and the stateless
revision 2026-07-28 (no ``initialize``, no session id; each request carries its protocol version
and client capabilities in ``_meta``). Every request, of either era, is authenticated on its own:
nothing is inferred from an earlier request. A W3C ``traceparent`` in a tool call's ``_meta`` is the
parent of the call's decision span and the trace of what it writes and reads (:func:`meta_trace`).

The workload credential (presenter binding) comes in the ``Workload-Identity-Token`` header, as on
the HTTP API. Over stdio there are no headers: the caller's credentials come from the environment
(``MEMGUARD_TOKEN``, ``MEMGUARD_WORKLOAD_CREDENTIAL``), as the MCP authorization spec says for stdio,
and are verified on every call.
"""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Annotated, Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import AnyHttpUrl, Field, StrictInt
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from memguard.aio import AsyncMemoryGuard
from memguard.denials import adopt
from memguard.errors import FactNotFound, IdentityError, MemguardError
from memguard.expiry import MAX_TTL_SECONDS
from memguard.gateway.auth import (
    TXN_TOKEN_HEADER,
    WORKLOAD_HEADER,
    bearer_token,
    presented_credentials,
)
from memguard.gateway.errors import GatewayError
from memguard.gateway.limits import RateLimiter, principal_key
from memguard.gateway.refusals import request_audit
from memguard.gateway.responses import error_response
from memguard.gateway.schemas import FACT_ID, FactOut, WriteOut
from memguard.gateway.stack import GatewayStack
from memguard.identity import Identity
from memguard.provenance import Source, Turn
from memguard.telemetry import tracing
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "GuardTokenVerifier",
    "PresentedCredential",
    "build_mcp_server",
    "meta_trace",
    "trace_scope",
]

_presented: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "memguard_workload_credential", default=None
)
_transaction: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "memguard_txn_token", default=False
)

IdentityFn = Callable[[Context[Any, Any]], Awaitable[Identity]]


class PresentedCredential:
    """ASGI wrapper: makes the request's workload credential visible to the token verifier.

    A request with a ``Txn-Token`` header (a Transaction Token passed on inside its trust domain,
    memguard.gateway.auth) is checked here first: it must carry the calling workload's credential
    and no ``Authorization`` header (else 400/401). The ``mcp`` package authenticates bearer tokens
    only, so the Txn-Token is handed to it as the request's bearer, and the verifier (and each
    tool) take it as a Txn-Token -- never as an access token: a request whose own
    ``Authorization`` header came with a ``Txn-Token`` never gets this far."""

    def __init__(self, app: ASGIApp, resource: str | None = None) -> None:
        self.app = app
        self.resource = resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope) if scope["type"] == "http" else None
        value = headers.get(WORKLOAD_HEADER) if headers is not None else None
        mode = False
        if headers is not None and TXN_TOKEN_HEADER.lower() in headers:
            try:
                given = presented_credentials(headers)
            except GatewayError as exc:
                await error_response(exc, self.resource or "")(scope, receive, send)
                return
            scope = {
                **scope,
                "headers": [
                    *scope["headers"],
                    (b"authorization", f"Bearer {given.token}".encode("latin-1")),
                ],
            }
            mode = True
        token = _presented.set(value.strip() if value else None)
        txn = _transaction.set(mode)
        try:
            await self.app(scope, receive, send)
        finally:
            _transaction.reset(txn)
            _presented.reset(token)


class GuardTokenVerifier:
    """The ``mcp`` package's ``TokenVerifier``, backed by the guard's verification (with presenter
    binding and the ledger's audit event); a refusal is ``None``, which the package turns into 401."""

    def __init__(self, guard: AsyncMemoryGuard, resource: str) -> None:
        self.guard = guard
        self.resource = resource

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            identity = await self.guard.authenticate(
                token, workload_credential=_presented.get(), transaction_token=_transaction.get()
            )
        except MemguardError:
            return None
        p = identity.principal
        return AccessToken(
            token=token,
            client_id=p.client_id or p.subject.subject,
            scopes=sorted(p.scopes),
            expires_at=identity.expires_at,
            resource=self.resource,
            subject=p.subject.subject,
            claims={"iss": p.subject.issuer},
        )


_TRACEPARENT = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}")


def meta_trace(ctx: Context[Any, Any]) -> tuple[str | None, str | None]:
    """``(trace_id, span_id)`` of the W3C ``traceparent`` in the request's ``_meta`` (MCP
    2026-07-28 carries trace context there; earlier revisions may too). Trace context is advice,
    never a credential: a missing or malformed value (or an all-zero id) is ignored, as W3C Trace
    Context 3.2 says for an invalid ``traceparent``."""
    try:
        meta = ctx.request_context.meta
    except Exception:  # no request context (a direct call): no trace
        return None, None
    value = meta.get("traceparent") if isinstance(meta, dict) else None
    m = _TRACEPARENT.fullmatch(value) if isinstance(value, str) else None
    if m is None or set(m.group(1)) == {"0"} or set(m.group(2)) == {"0"}:
        return None, None
    return m.group(1), m.group(2)


@contextmanager
def trace_scope(ctx: Context[Any, Any]) -> Iterator[tuple[str | None, str | None]]:
    """Run a tool's guard call in the trace its ``_meta`` names: the caller's span becomes the
    parent of the decision span (``create_memory``, ``search_memory``, ...), whose ids then land
    in provenance and the audit event. If the current context is already in that trace (the
    ``mcp`` package's own server span extracted it under a global tracer provider), it is kept,
    so the decision span nests under that span. Yields :func:`meta_trace`'s ids."""
    trace_id, span_id = meta_trace(ctx)
    current = tracing.current_ids()
    if trace_id is None or (current is not None and current[0] == trace_id):
        yield trace_id, span_id
        return
    with tracing.use_context(tracing.extract({"traceparent": f"00-{trace_id}-{span_id}-01"})):
        yield trace_id, span_id


def _fact_id(value: str) -> str:
    if not re.fullmatch(FACT_ID, value):
        raise ToolError("not_found: fact not found")
    return value


def _tool_error(exc: MemguardError) -> ToolError:
    message = "fact not found" if isinstance(exc, FactNotFound) else str(exc)
    if isinstance(exc, IdentityError):
        message = "invalid or expired credentials"
    return ToolError(f"{exc.code}: {message}")


def http_identity(guard: AsyncMemoryGuard) -> IdentityFn:
    """Verify the credentials of the HTTP request that carries the tool call."""

    async def identity(ctx: Context[Any, Any]) -> Identity:
        headers: Mapping[str, str] | None = ctx.headers
        if headers is None:
            raise IdentityError("no credentials", code="identity.missing")
        raw = Headers(headers=dict(headers))
        txn = raw.get(TXN_TOKEN_HEADER)
        if txn is not None:  # PresentedCredential let it in: a Txn-Token and its workload, only
            credential = raw.get(WORKLOAD_HEADER)
            return await guard.authenticate(
                txn.strip(),
                workload_credential=(credential.strip() if credential else None),
                transaction_token=True,
            )
        try:
            token, credential = bearer_token(raw)
        except GatewayError as exc:
            raise IdentityError("no usable bearer token", code="identity.missing") from exc
        return await guard.authenticate(token, workload_credential=credential)

    return identity


def env_identity(guard: AsyncMemoryGuard) -> IdentityFn:
    """stdio: the credentials in ``MEMGUARD_TOKEN`` / ``MEMGUARD_WORKLOAD_CREDENTIAL``."""

    async def identity(ctx: Context[Any, Any]) -> Identity:
        token = os.environ.get("MEMGUARD_TOKEN")
        if not token:
            raise IdentityError("MEMGUARD_TOKEN is not set", code="identity.missing")
        credential = os.environ.get("MEMGUARD_WORKLOAD_CREDENTIAL") or None
        return await guard.authenticate(token, workload_credential=credential)

    return identity


def build_mcp_server(
    stack: GatewayStack, *, transport: str = "http", rate: RateLimiter | None = None
) -> MCPServer[Any]:
    """The MCP server over ``stack``'s guard. ``transport``: ``http`` (bearer auth) or ``stdio``;
    ``rate``: the per-principal limiter the HTTP API uses, shared so MCP is no way around it."""
    import asyncio

    aguard = AsyncMemoryGuard(stack.guard)
    scopes = stack.config.scopes
    if transport == "http":
        auth = AuthSettings(
            issuer_url=AnyHttpUrl(stack.sts.issuer if stack.sts else stack.resource),
            resource_server_url=AnyHttpUrl(stack.resource),
            validate_token_resource=True,
        )
        server: MCPServer[Any] = MCPServer(
            name="memguard",
            instructions="Governed agent memory with provenance.",
            token_verifier=GuardTokenVerifier(aguard, stack.resource),
            auth=auth,
            log_level="WARNING",
        )
        who = http_identity(aguard)
    else:
        server = MCPServer(
            name="memguard",
            instructions="Governed agent memory with provenance.",
            log_level="WARNING",
        )
        who = env_identity(aguard)

    async def caller(ctx: Context[Any, Any], needed: str | None) -> Identity:
        # the tool runs in the MCP server's task: make the HTTP request's refusal record current,
        # so a deny the guard records is the request's one event (memguard/gateway/refusals.py)
        scope = getattr(getattr(ctx.request_context, "request", None), "scope", None)
        if isinstance(scope, dict):
            adopt(request_audit(scope))
        try:
            identity = await who(ctx)
        except MemguardError as exc:
            raise _tool_error(exc) from None
        if needed is not None and needed not in identity.principal.scopes:
            raise ToolError(f"access_denied.scope: the token lacks the `{needed}` scope")
        if rate is not None:
            retry = rate.take(principal_key(identity))
            if retry is not None:
                raise ToolError(f"limits.rate_limited: retry after {retry} s")
        return identity

    @server.tool(
        description="Store a fact in governed memory; returns its provenance. Trust is "
        "assigned by memguard from the source kind and the caller's chain. With "
        "`ttl_seconds`, the fact expires (is no longer returned) after that many seconds."
    )
    async def remember(
        text: str,
        namespace: str,
        session_id: str,
        ctx: Context[Any, Any],
        turn_index: int = 0,
        source_kind: str = "agent_inference",
        source_uri: str | None = None,
        trust: str | None = None,
        ttl_seconds: Annotated[StrictInt, Field(ge=1, le=MAX_TTL_SECONDS)] | None = None,
    ) -> dict[str, Any]:
        identity = await caller(ctx, scopes.write)
        try:
            with trace_scope(ctx):  # the turn gets the decision span's trace and span id
                prov = await aguard.write(
                    identity,
                    text,
                    namespace=namespace,
                    source=Source(kind=SourceKind(source_kind), uri=source_uri),
                    turn=Turn(session_id=session_id, turn_index=turn_index),
                    trust=TrustLevel.parse(trust) if trust is not None else None,
                    ttl=ttl_seconds,
                )
        except MemguardError as exc:
            raise _tool_error(exc) from None
        except ValueError:
            raise ToolError("invalid_request: invalid source kind or trust level") from None
        return WriteOut.of(prov).model_dump(mode="json")

    @server.tool(
        description="Recall the facts most similar to `query` that the caller may read, "
        "each with its provenance (trust, source, writer chain). With `session_id` and "
        "`turn_index`, what it returns taints the facts remembered later in that turn."
    )
    async def recall(
        query: str,
        ctx: Context[Any, Any],
        k: int = 5,
        namespaces: list[str] | None = None,
        min_trust: str | None = None,
        session_id: str | None = None,
        turn_index: int | None = None,
    ) -> dict[str, Any]:
        identity = await caller(ctx, scopes.read)
        if (session_id is None) != (turn_index is None):
            raise ToolError("invalid_request: give both `session_id` and `turn_index`, or neither")
        try:
            with trace_scope(ctx) as (trace_id, _):
                turn = (
                    Turn(session_id=session_id, turn_index=turn_index, trace_id=trace_id)
                    if session_id is not None and turn_index is not None
                    else None
                )
                level = TrustLevel.parse(min_trust) if min_trust is not None else None
                hits = await asyncio.to_thread(
                    lambda: stack.guard.search(
                        identity,
                        query,
                        k=k,
                        namespaces=namespaces,
                        min_trust=level,
                        turn=turn,
                        trace_id=trace_id,
                    )
                )
        except MemguardError as exc:
            raise _tool_error(exc) from None
        except ValueError:
            raise ToolError("invalid_request: invalid trust level or turn") from None
        return {"facts": [FactOut.of(h).model_dump(mode="json") for h in hits]}

    @server.tool(description="Delete one of the caller's facts by id.")
    async def forget(fact_id: str, ctx: Context[Any, Any]) -> dict[str, Any]:
        identity = await caller(ctx, scopes.write)
        try:
            with trace_scope(ctx):
                await aguard.delete(identity, _fact_id(fact_id))
        except MemguardError as exc:
            raise _tool_error(exc) from None
        return {"deleted": fact_id}

    @server.tool(
        description="Where a fact came from, who wrote it for whom, who read it, and "
        "whether it verifies (memguard.audit/v1), if the caller may audit it."
    )
    async def audit(fact_id: str, ctx: Context[Any, Any]) -> dict[str, Any]:
        identity = await caller(ctx, scopes.audit)
        try:
            with trace_scope(ctx):
                return await asyncio.to_thread(stack.guard.audit, identity, _fact_id(fact_id))
        except MemguardError as exc:
            raise _tool_error(exc) from None

    return server
