"""The gateway's HTTP application (FastAPI on Starlette, served by uvicorn).

Routes::

    POST   /v1/facts                   write one fact                      201
    POST   /v1/facts/batch             write a batch (atomic per phase)    201
    POST   /v1/search                  scoped similarity search            200
    GET    /v1/facts/{fact_id}         get one fact                        200
    PUT    /v1/facts/{fact_id}         new version of a fact               200
    DELETE /v1/facts/{fact_id}         delete a fact                       204
    GET    /v1/facts/{fact_id}/audit   memguard.audit/v1 report            200
    POST   /token                      RFC 8693 token exchange (memguard.tokens.server)
    GET    /.well-known/jwks.json, /.well-known/workload-jwks.json, /.well-known/oauth-authorization-server
    GET    /.well-known/oauth-protected-resource   RFC 9728 metadata
    GET    /healthz, /readyz, /openapi.json
    *      /mcp                        MCP streamable HTTP (memguard.gateway.mcp_server)

Every memory route needs ``Authorization: Bearer`` (and, for an agent, ``Workload-Identity-Token``);
errors map to HTTP in :mod:`memguard.gateway.errors`.
"""

# No `from __future__ import annotations`: FastAPI reads the route signatures' local aliases.
import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Query, Request, Security
from fastapi.responses import JSONResponse, Response
from fastapi.security import APIKeyHeader, HTTPBearer
from starlette.routing import Route

from memguard.aio import AsyncMemoryGuard
from memguard.errors import MemguardError
from memguard.events import AuditEvent, Decision
from memguard.gateway.auth import WORKLOAD_HEADER, BearerOnlyMiddleware, bearer_token
from memguard.gateway.errors import GatewayError
from memguard.gateway.limits import (
    BodyLimitMiddleware,
    ConcurrencyLimitMiddleware,
    RateLimiter,
    TokenRateMiddleware,
    principal_key,
)
from memguard.gateway.responses import NO_STORE, error_response
from memguard.gateway.schemas import (
    FACT_ID,
    AuditOut,
    BatchWriteIn,
    BatchWriteOut,
    FactOut,
    SearchIn,
    SearchOut,
    UpdateIn,
    WriteIn,
    WriteOut,
)
from memguard.gateway.stack import GatewayStack
from memguard.guard import FactInput
from memguard.identity import Identity
from memguard.logging import get_logger
from memguard.trust import TrustLevel

__all__ = ["create_app"]

_bearer = HTTPBearer(auto_error=False, description="An `at+jwt` access token for this resource.")
_workload = APIKeyHeader(
    name=WORKLOAD_HEADER, auto_error=False, scheme_name="WorkloadIdentityToken",
    description="The calling agent's workload credential (JWT-SVID style `wit+jwt`); required "
    "with a delegated token (presenter binding).",
)
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "invalid request"},
    401: {"description": "no, invalid or expired credentials (WWW-Authenticate: Bearer)"},
    403: {"description": "not permitted by policy or token scope"},
    404: {"description": "no such fact, or not visible to the caller (also `derived_from` ids)"},
    413: {"description": "request body too large"},
    429: {"description": "rate limit exceeded (Retry-After)"},
    503: {"description": "store or ledger unavailable, or overloaded (Retry-After)"},
    504: {"description": "timed out; the outcome is unknown"},
}


def create_app(stack: GatewayStack, *, mcp: bool | None = None) -> FastAPI:
    """The gateway app over ``stack``. ``mcp`` (default: the config's) mounts the MCP endpoint."""
    from memguard import __version__
    from memguard.tokens.server import MAX_BODY
    from memguard.tokens.server import create_app as create_sts_app

    config = stack.config
    resource = stack.resource
    limits = config.limits
    scopes = config.scopes
    aguard = AsyncMemoryGuard(stack.guard)
    log = get_logger()
    memory_rate = (RateLimiter(limits.memory_rate.per_minute, limits.memory_rate.burst)
                   if limits.memory_rate else None)
    mcp_server = None
    if config.mcp.enabled if mcp is None else mcp:
        from memguard.gateway.mcp_server import PresentedCredential, build_mcp_server

        mcp_server = build_mcp_server(stack, rate=memory_rate)
        mcp_app = mcp_server.streamable_http_app(
            streamable_http_path=config.mcp.path, max_request_body_size=limits.max_body_bytes,
            host=config.server.host, stateless_http=True, json_response=True,
        )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if mcp_server is None:
            yield
            return
        async with mcp_server.session_manager.run():
            yield

    app = FastAPI(
        title="memguard gateway", version=__version__, lifespan=lifespan,
        docs_url=None, redoc_url=None, openapi_url="/openapi.json",
        description="Governed agent memory: provenance-stamped facts, scoped fail-closed reads, "
        "verified identity. Tokens only in `Authorization: Bearer`.",
    )

    # -- errors ---------------------------------------------------------------------------------

    @app.exception_handler(MemguardError)
    async def memguard_error(request: Request, exc: MemguardError) -> Response:
        return error_response(exc, resource)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.error("gateway.unexpected", error=type(exc).__name__, path=request.url.path)
        return error_response(exc, resource)

    # -- identity ---------------------------------------------------------------------------------

    async def caller(
        request: Request,
        _token: Annotated[object, Security(_bearer)],
        _credential: Annotated[object, Security(_workload)],
    ) -> Identity:
        token, credential = bearer_token(request.headers)
        identity = await aguard.authenticate(token, workload_credential=credential)
        if memory_rate is not None:
            memory_rate.check(principal_key(identity))
        return identity

    Caller = Annotated[Identity, Depends(caller)]

    async def need(identity: Identity, scope: str | None, action: str) -> None:
        """The token must carry the operation's scope (RFC 6750 insufficient_scope); audited."""
        if scope is None or scope in identity.principal.scopes:
            return
        event = AuditEvent(action=action, decision=Decision.DENY,
                           reason="access_denied.insufficient_scope",
                           principal=identity.principal.summary(), detail={"required": scope})
        try:
            await asyncio.to_thread(stack.guard.ledger.record, [event])
        except MemguardError:
            log.error("audit_event_lost", event_id=event.event_id, op=action)
        raise GatewayError(f"the token lacks the `{scope}` scope",
                           code="bearer.insufficient_scope", status=403, required_scope=scope)

    FactIdPath = Annotated[str, Path(pattern=FACT_ID, description="A fact id (UUID).")]

    # -- memory -----------------------------------------------------------------------------------

    @app.post("/v1/facts", status_code=201, response_model=WriteOut, responses=_ERRORS,
              tags=["memory"], summary="Write one fact")
    async def write(body: WriteIn, identity: Caller) -> WriteOut:
        await need(identity, scopes.write, "write")
        prov = await aguard.write(
            identity, body.text, namespace=body.namespace, source=body.source.to_source(),
            turn=body.turn.to_turn(), metadata=body.metadata, trust=body.trust_level(),
            derived_from=body.derived_from,
        )
        return WriteOut.of(prov)

    @app.post("/v1/facts/batch", status_code=201, response_model=BatchWriteOut, responses=_ERRORS,
              tags=["memory"], summary="Write a batch of facts")
    async def write_batch(body: BatchWriteIn, identity: Caller) -> BatchWriteOut:
        await need(identity, scopes.write, "write")
        facts = [
            FactInput(text=f.text, namespace=f.namespace, source=f.source.to_source(),
                      turn=f.turn.to_turn(), metadata=f.metadata, trust=f.trust_level(),
                      derived_from=tuple(f.derived_from))
            for f in body.facts
        ]
        provs = await aguard.write_many(identity, facts)
        return BatchWriteOut(facts=[WriteOut.of(p) for p in provs])

    @app.post("/v1/search", response_model=SearchOut, responses=_ERRORS, tags=["memory"],
              summary="Search the facts the caller may read")
    async def search(body: SearchIn, identity: Caller) -> SearchOut:
        await need(identity, scopes.read, "search")
        hits = await aguard.search(
            identity, body.query, k=body.k, namespaces=body.namespaces,
            min_trust=TrustLevel.parse(body.min_trust) if body.min_trust else None,
            purpose=body.purpose, trace_id=body.trace_id,
        )
        return SearchOut(facts=[FactOut.of(h) for h in hits])

    @app.get("/v1/facts/{fact_id}", response_model=FactOut, responses={**_ERRORS, 404: {
        "description": "no such fact, or not visible to the caller"}}, tags=["memory"],
        summary="Get one fact")
    async def get(
        fact_id: FactIdPath,
        identity: Caller,
        purpose: Annotated[str, Query(pattern=r"^[a-z_]{1,32}$")] = "answer",
    ) -> FactOut:
        await need(identity, scopes.read, "get")
        return FactOut.of(await aguard.get(identity, fact_id, purpose=purpose))

    @app.put("/v1/facts/{fact_id}", response_model=WriteOut, responses={**_ERRORS, 404: {
        "description": "no such fact, or not visible to the caller"}}, tags=["memory"],
        summary="Write a new version of a fact")
    async def update(fact_id: FactIdPath, body: UpdateIn, identity: Caller) -> WriteOut:
        await need(identity, scopes.write, "update")
        prov = await aguard.update(
            identity, fact_id, body.text, source=body.source.to_source(), turn=body.turn.to_turn(),
            metadata=body.metadata, trust=body.trust_level(),
        )
        return WriteOut.of(prov)

    @app.delete("/v1/facts/{fact_id}", status_code=204, responses={**_ERRORS, 404: {
        "description": "no such fact, or not visible to the caller"}}, tags=["memory"],
        summary="Delete a fact")
    async def delete(fact_id: FactIdPath, identity: Caller) -> Response:
        await need(identity, scopes.write, "delete")
        await aguard.delete(identity, fact_id)
        return Response(status_code=204)

    @app.get("/v1/facts/{fact_id}/audit", response_model=AuditOut, responses={**_ERRORS, 404: {
        "description": "no such fact, or not auditable by the caller"}}, tags=["memory"],
        summary="Audit a fact: provenance, readers, verification")
    async def audit(fact_id: FactIdPath, identity: Caller) -> JSONResponse:
        await need(identity, scopes.audit, "audit")
        report = await asyncio.to_thread(stack.guard.audit, identity, fact_id)
        return JSONResponse(report, headers=NO_STORE)

    # -- metadata and health ----------------------------------------------------------------------

    @app.get("/.well-known/oauth-protected-resource", tags=["metadata"],
             summary="OAuth 2.0 Protected Resource Metadata (RFC 9728)")
    async def protected_resource() -> JSONResponse:
        issuers = [i.issuer for i in stack.identity.access_tokens.issuers]
        if stack.sts is not None:
            issuers = [stack.sts.issuer, *(i for i in issuers if i != stack.sts.issuer)]
        body = {
            "resource": resource,
            "authorization_servers": issuers,
            "bearer_methods_supported": ["header"],
            "scopes_supported": sorted({s for s in (scopes.read, scopes.write, scopes.audit) if s}),
            "resource_name": "memguard gateway",
            "resource_signing_alg_values_supported": [],
        }
        del body["resource_signing_alg_values_supported"]
        return JSONResponse(body, headers={"Cache-Control": "max-age=60"})

    @app.get("/healthz", tags=["health"], summary="Liveness: the process serves requests")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], responses={503: {"description": "not ready"}},
             summary="Readiness: policy, keys, ledger and store checked for real")
    async def readyz() -> JSONResponse:
        checks = await asyncio.to_thread(stack.readiness)
        ready = all(v == "ok" for v in checks.values())
        return JSONResponse({"status": "ready" if ready else "not_ready", "checks": checks},
                            status_code=200 if ready else 503, headers=NO_STORE)

    # -- the token service and MCP ------------------------------------------------------------------

    form_paths: frozenset[str] = frozenset()
    if stack.sts is not None:
        app.router.routes.extend(create_sts_app(stack.sts).routes)
        form_paths = frozenset({"/token"})
    if mcp_server is not None:
        # the mcp package's own app, with its bearer middleware; its lifespan runs in ours
        app.router.routes.append(Route(config.mcp.path, endpoint=PresentedCredential(mcp_app)))

    # middleware: the last added is the outermost
    def guarded(path: str) -> bool:
        return path.startswith("/v1/") or path in ("/token", config.mcp.path)

    app.add_middleware(ConcurrencyLimitMiddleware, max_concurrency=limits.max_concurrency,
                       queue_timeout=limits.queue_timeout, request_timeout=limits.request_timeout,
                       resource=resource, guarded=guarded)
    if stack.sts is not None and limits.token_rate is not None:
        app.add_middleware(TokenRateMiddleware,
                           limiter=RateLimiter(limits.token_rate.per_minute, limits.token_rate.burst),
                           path="/token", max_bytes=MAX_BODY, resource=resource)
    app.add_middleware(BodyLimitMiddleware, max_bytes=limits.max_body_bytes, resource=resource)
    app.add_middleware(BearerOnlyMiddleware, resource=resource, form_paths=form_paths)
    app.state.stack = stack
    return app
