"""The gateway's HTTP application (FastAPI on Starlette, served by uvicorn).

Routes::

    POST   /v1/facts                   write one fact                      201
    POST   /v1/facts/batch             write a batch (atomic per phase)    201
    POST   /v1/search                  scoped similarity search            200
    GET    /v1/facts                   page through the readable facts     200
    GET    /v1/facts/{fact_id}         get one fact                        200
    PUT    /v1/facts/{fact_id}         new version of a fact               200
    DELETE /v1/facts/{fact_id}         delete a fact                       204
    GET    /v1/facts/{fact_id}/audit   memguard.audit/v1 report            200
    POST   /v1/facts/{fact_id}/endorse lift a fact's quarantine            200
    POST   /v1/revocations             revoke a source, turn, principal... 201
    POST   /token                      RFC 8693 token exchange (memguard.tokens.server)
    POST   /ssf/events                 RFC 8935 push of CAEP security events (memguard.gateway.ssf)
                                       (and RFC 8936 polling of transmitters: gateway.ssf_poll)
    GET    /.well-known/receipt-jwks.json   the read-receipt key set (memguard.gateway.receipts)
    GET    /.well-known/jwks.json, /.well-known/workload-jwks.json, /.well-known/oauth-authorization-server
    GET    /.well-known/oauth-protected-resource   RFC 9728 metadata
    GET    /healthz, /readyz, /openapi.json
    GET    /docs                       the API reference (Swagger UI from vendored assets)
    *      /console/...                the audit console (memguard.console), token sign-in
    *      /mcp                        MCP streamable HTTP (memguard.gateway.mcp_server)

Every memory route needs ``Authorization: Bearer`` (and, for an agent, ``Workload-Identity-Token``);
errors map to HTTP in :mod:`memguard.gateway.errors`.
"""

# No `from __future__ import annotations`: FastAPI reads the route signatures' local aliases.
import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, Path, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import APIKeyHeader, HTTPBearer
from pydantic import ValidationError
from starlette.routing import Route

from memguard.aio import AsyncMemoryGuard
from memguard.denials import request_credentials
from memguard.errors import AccessDenied, InvalidRequest, MemguardError
from memguard.events import AuditEvent, Decision
from memguard.gateway.auth import WORKLOAD_HEADER, BearerOnlyMiddleware, presented_credentials
from memguard.gateway.challenge import metadata_url as resource_metadata_url
from memguard.gateway.errors import GatewayError
from memguard.gateway.idempotency import Idempotency
from memguard.gateway.limits import (
    BodyLimitMiddleware,
    ConcurrencyLimitMiddleware,
    PeerRateMiddleware,
    RateLimits,
)
from memguard.gateway.lineage import in_revoke_scope, selector_reach_ok
from memguard.gateway.observability import install as install_observability
from memguard.gateway.observability import native_telemetry_off, route_action
from memguard.gateway.receipts import RECEIPT_JWKS_PATH
from memguard.gateway.refusals import RefusalAuditMiddleware
from memguard.gateway.responses import NO_STORE, error_response
from memguard.gateway.schemas import (
    FACT_ID,
    PLAIN,
    AuditOut,
    BatchWriteIn,
    BatchWriteOut,
    EndorseIn,
    EndorseOut,
    FactListOut,
    FactOut,
    HealthOut,
    JwksOut,
    Namespace,
    ProtectedResourceOut,
    ReadyOut,
    RevocationOut,
    RevokeIn,
    SearchIn,
    SearchOut,
    TrustName,
    UpdateIn,
    WriteIn,
    WriteOut,
)
from memguard.gateway.stack import GatewayStack
from memguard.guard import FactInput, RecalledFact
from memguard.identity import Identity
from memguard.logging import get_logger
from memguard.provenance import Turn
from memguard.revocation import RevocationReport, RevocationSelector
from memguard.tokens.uses import TOKEN_PATH
from memguard.trust import TrustLevel

__all__ = ["CONSOLE_PATH", "RECEIPT_HEADER", "create_app"]

#: The response header a get with ``?receipt=true`` carries its read receipt in.
RECEIPT_HEADER = "Memguard-Receipt"

#: Where the gateway serves the audit console (sign-in with the gateway's own bearer token).
CONSOLE_PATH = "/console"

_bearer = HTTPBearer(auto_error=False, description="An `at+jwt` access token for this resource.")
_workload = APIKeyHeader(
    name=WORKLOAD_HEADER,
    auto_error=False,
    scheme_name="WorkloadIdentityToken",
    description="The calling agent's workload credential (JWT-SVID style `wit+jwt`); required "
    "with a delegated token (presenter binding).",
)
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "invalid request"},
    401: {"description": "no, invalid or expired credentials (WWW-Authenticate: Bearer)"},
    403: {"description": "not permitted by policy or token scope"},
    404: {"description": "no such fact, or not visible to the caller (also `derived_from` ids)"},
    413: {"description": "request body too large"},
    415: {"description": "the body is not JSON"},
    429: {"description": "rate limit exceeded (Retry-After)"},
    503: {"description": "store or ledger unavailable, or overloaded (Retry-After)"},
    504: {"description": "timed out; the outcome is unknown"},
}
_NOT_FOUND = {**_ERRORS, 404: {"description": "no such fact, or not visible to the caller"}}

SessionQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=256,
        pattern=PLAIN,
        examples=["s-42"],
        description="The agent turn this read belongs to (with `turn_index`): what it returns taints "
        "the writes made later in that turn.",
    ),
]
TurnIndexQuery = Annotated[
    int | None, Query(ge=0, le=2**31 - 1, examples=[6], description="With `session_id`.")
]
PurposeQuery = Annotated[
    str,
    Query(
        pattern=r"^[a-z_]{1,32}$",
        examples=["answer"],
        description="Why the agent reads (`answer`, `planning`, `tool_argument`, ...); policies can "
        "decide by purpose.",
    ),
]


def _query_turn(session_id: str | None, turn_index: int | None) -> Turn | None:
    """A read's turn from its query: both parameters or neither."""
    if session_id is None and turn_index is None:
        return None
    if session_id is None or turn_index is None:
        raise InvalidRequest("give both `session_id` and `turn_index`, or neither")
    return Turn(session_id=session_id, turn_index=turn_index)


def create_app(stack: GatewayStack, *, mcp: bool | None = None) -> FastAPI:
    """The gateway app over ``stack``. ``mcp`` (default: the config's) mounts the MCP endpoint."""
    from memguard import __version__
    from memguard.tokens.server import create_app as create_sts_app

    config = stack.config
    resource = stack.resource
    limits = config.limits
    scopes = config.scopes
    aguard = AsyncMemoryGuard(stack.guard)
    log = get_logger()
    rates = RateLimits.from_config(limits)  # per process, or shared through Redis
    if stack.sts is not None:
        stack.sts.admit_client = rates.admit_client  # the token rate, per authenticated client
    keys = (
        Idempotency(stack, lease=config.idempotency.lease, retention=config.idempotency.retention)
        if config.idempotency.enabled
        else None
    )
    mcp_server = None
    if config.mcp.enabled if mcp is None else mcp:
        from memguard.gateway.mcp_server import PresentedCredential, build_mcp_server

        mcp_server = build_mcp_server(stack, rate=rates.memory)
        mcp_app = mcp_server.streamable_http_app(
            streamable_http_path=config.mcp.path,
            max_request_body_size=limits.max_body_bytes,
            host=config.server.host,
            stateless_http=True,
            json_response=True,
        )

    pollers: list[Any] = []
    if stack.ssf is not None:  # RFC 8936 poll delivery (memguard.gateway.ssf_poll)
        from memguard.gateway.ssf_poll import build_pollers

        pollers = build_pollers(config, stack.ssf)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        for poller in pollers:
            poller.start()
        try:
            if mcp_server is None:
                yield
                return
            async with mcp_server.session_manager.run():
                yield
        finally:
            for poller in pollers:
                await asyncio.to_thread(poller.stop)

    app = FastAPI(
        title="memguard gateway",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",  # /docs: gateway.apidocs
        **native_telemetry_off(),  # memguard/gateway/observability.py traces every request
        description="Governed agent memory: provenance-stamped facts, scoped fail-closed reads, "
        "verified identity. Tokens only in `Authorization: Bearer`.",
    )

    # -- errors ---------------------------------------------------------------------------------

    @app.exception_handler(MemguardError)
    async def memguard_error(request: Request, exc: MemguardError) -> Response:
        return error_response(exc, resource)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        # FastAPI's own handler echoes the input and cannot encode a lone surrogate (a 500);
        # this one names the fields only, ASCII-escaped
        detail = [
            {
                "type": str(e.get("type")),
                "loc": [str(p) for p in e.get("loc", ())],
                "msg": str(e.get("msg")),
            }
            for e in exc.errors()
        ]
        body = {
            "error": {
                "code": "invalid_request.validation",
                "message": "the request does not match the schema",
            },
            "detail": detail,
        }
        return Response(
            json.dumps(body, ensure_ascii=True),
            status_code=422,
            media_type="application/json",
            headers=NO_STORE,
        )

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
        given = presented_credentials(request.headers)  # a bearer token, or a Txn-Token
        identity = await aguard.authenticate(
            given.token,
            workload_credential=given.workload_credential,
            transaction_token=given.transaction,
        )
        await rates.admit(identity, route_action(request.method, request.url.path))
        if keys is not None:  # Idempotency-Key on writes (memguard/gateway/idempotency.py)
            await keys.admit_request(request, identity)
        return identity

    Caller = Annotated[Identity, Depends(caller)]

    async def deny_event(
        identity: Identity, action: str, reason: str, detail: dict[str, Any]
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
            await asyncio.to_thread(stack.guard.ledger.record, [event])
        except MemguardError:
            log.error("audit_event_lost", event_id=event.event_id, op=action)

    async def need(identity: Identity, scope: str | None, action: str) -> None:
        """The token must carry the operation's scope (RFC 6750 insufficient_scope); audited."""
        if scope is None or scope in identity.principal.scopes:
            return
        await deny_event(identity, action, "access_denied.insufficient_scope", {"required": scope})
        raise GatewayError(
            f"the token lacks the `{scope}` scope",
            code="bearer.insufficient_scope",
            status=403,
            required_scope=scope,
        )

    def issue_receipt(
        identity: Identity, action: str, purpose: str, facts: Sequence[RecalledFact]
    ) -> str:
        if stack.receipts is None:
            raise InvalidRequest("read receipts are not enabled on this gateway")
        return stack.receipts.issue(identity, action, purpose, facts)

    FactIdPath = Annotated[
        str,
        Path(
            pattern=FACT_ID,
            description="A fact id (UUID).",
            examples=["3f1c2a9e-8b7d-4c6e-9a51-2d4b7e0c1f88"],
        ),
    ]

    # -- memory -----------------------------------------------------------------------------------

    @app.post(
        "/v1/facts",
        status_code=201,
        response_model=WriteOut,
        responses=_ERRORS,
        tags=["memory"],
        summary="Write one fact",
    )
    async def write(body: WriteIn, identity: Caller) -> WriteOut:
        """Store one fact. memguard assigns its trust from the channel (`source.kind`) and the
        writer's delegation chain, caps it by what it was derived from and what the turn read,
        and returns the provenance record it stamped. Needs the write scope."""
        await need(identity, scopes.write, "write")
        prov = await aguard.write(
            identity,
            body.text,
            namespace=body.namespace,
            source=body.source.to_source(),
            turn=body.turn.to_turn(),
            metadata=body.metadata,
            trust=body.trust_level(),
            derived_from=body.derived_from,
            ttl=body.ttl_seconds,
        )
        return WriteOut.of(prov)

    @app.post(
        "/v1/facts/batch",
        status_code=201,
        response_model=BatchWriteOut,
        responses=_ERRORS,
        tags=["memory"],
        summary="Write a batch of facts",
    )
    async def write_batch(body: BatchWriteIn, identity: Caller) -> BatchWriteOut:
        """Store several facts in one request: one ledger transaction per phase, all or none
        decided before anything is stored."""
        await need(identity, scopes.write, "write")
        facts = [
            FactInput(
                text=f.text,
                namespace=f.namespace,
                source=f.source.to_source(),
                turn=f.turn.to_turn(),
                metadata=f.metadata,
                trust=f.trust_level(),
                derived_from=tuple(f.derived_from),
            )
            for f in body.facts
        ]
        provs = await aguard.write_many(identity, facts, ttl=body.facts[0].ttl_seconds)
        return BatchWriteOut(facts=[WriteOut.of(p) for p in provs])

    @app.post(
        "/v1/search",
        response_model=SearchOut,
        responses=_ERRORS,
        tags=["memory"],
        summary="Search the facts the caller may read",
    )
    async def search(body: SearchIn, identity: Caller) -> SearchOut:
        """Similarity search inside the caller's scope: the scope is pushed into the store's
        query and every hit re-checked against the ledger. Quarantined facts never come back."""
        await need(identity, scopes.read, "search")
        turn = body.turn.to_turn() if body.turn is not None else None
        hits = await aguard.search(
            identity,
            body.query,
            k=body.k,
            namespaces=body.namespaces,
            min_trust=TrustLevel.parse(body.min_trust) if body.min_trust else None,
            purpose=body.purpose,
            trace_id=body.trace_id,
            turn=turn,
        )
        receipt = None
        if body.receipt:  # memguard/gateway/receipts.py
            receipt = await asyncio.to_thread(issue_receipt, identity, "search", body.purpose, hits)
        return SearchOut(facts=[FactOut.of(h) for h in hits], receipt=receipt)

    @app.get(
        "/v1/facts",
        response_model=FactListOut,
        responses=_ERRORS,
        tags=["memory"],
        summary="Page through the facts the caller may read, in fact-id order",
    )
    async def list_facts(
        identity: Caller,
        namespace: Annotated[
            list[Namespace] | None,
            Query(
                max_length=32,
                examples=[["travel"]],
                description="Only these namespaces (repeat the parameter).",
            ),
        ] = None,
        min_trust: Annotated[
            TrustName | None,
            Query(examples=["user"], description="Leave out facts below this trust."),
        ] = None,
        limit: Annotated[
            int, Query(ge=1, le=1000, examples=[50], description="Facts per page at most.")
        ] = 100,
        cursor: Annotated[
            str | None,
            Query(
                pattern=FACT_ID,
                examples=["3f1c2a9e-8b7d-4c6e-9a51-2d4b7e0c1f88"],
                description="`next_cursor` of the previous page.",
            ),
        ] = None,
        purpose: PurposeQuery = "answer",
        session_id: SessionQuery = None,
        turn_index: TurnIndexQuery = None,
    ) -> FactListOut:
        """Page through the facts the caller may read, in fact-id order; pass `next_cursor` as
        `cursor` for the next page."""
        await need(identity, scopes.read, "list")
        turn = _query_turn(session_id, turn_index)
        facts, next_cursor = await aguard.list_facts(
            identity,
            namespaces=namespace,
            min_trust=TrustLevel.parse(min_trust) if min_trust else None,
            limit=limit,
            cursor=cursor,
            purpose=purpose,
            turn=turn,
        )
        return FactListOut(facts=[FactOut.of(f) for f in facts], next_cursor=next_cursor)

    @app.get(
        "/v1/facts/{fact_id}",
        response_model=FactOut,
        responses=_NOT_FOUND,
        tags=["memory"],
        summary="Get one fact",
    )
    async def get(
        fact_id: FactIdPath,
        identity: Caller,
        response: Response,
        purpose: PurposeQuery = "answer",
        session_id: SessionQuery = None,
        turn_index: TurnIndexQuery = None,
        receipt: Annotated[
            bool,
            Query(
                examples=[True],
                description="Return a signed read receipt in the `Memguard-Receipt` header.",
            ),
        ] = False,
    ) -> FactOut:
        """One fact by id. An unknown id, a quarantined fact and a fact outside the caller's
        scope are the same 404, so ids cannot be probed."""
        await need(identity, scopes.read, "get")
        turn = _query_turn(session_id, turn_index)
        recalled = await aguard.get(identity, fact_id, purpose=purpose, turn=turn)
        if receipt:
            response.headers[RECEIPT_HEADER] = await asyncio.to_thread(
                issue_receipt, identity, "get", purpose, [recalled]
            )
        return FactOut.of(recalled)

    @app.put(
        "/v1/facts/{fact_id}",
        response_model=WriteOut,
        responses=_NOT_FOUND,
        tags=["memory"],
        summary="Write a new version of a fact",
    )
    async def update(fact_id: FactIdPath, body: UpdateIn, identity: Caller) -> WriteOut:
        """Write a new version of a fact the caller may update; it keeps the inputs of the
        version it replaces, so an overwrite cannot raise a derived fact's trust."""
        await need(identity, scopes.write, "update")
        prov = await aguard.update(
            identity,
            fact_id,
            body.text,
            source=body.source.to_source(),
            turn=body.turn.to_turn(),
            metadata=body.metadata,
            trust=body.trust_level(),
            ttl=body.ttl_seconds,
        )
        return WriteOut.of(prov)

    @app.delete(
        "/v1/facts/{fact_id}",
        status_code=204,
        responses=_NOT_FOUND,
        tags=["memory"],
        summary="Delete a fact",
    )
    async def delete(fact_id: FactIdPath, identity: Caller) -> Response:
        """Delete a fact (its ledger history stays)."""
        await need(identity, scopes.write, "delete")
        await aguard.delete(identity, fact_id)
        return Response(status_code=204)

    @app.get(
        "/v1/facts/{fact_id}/audit",
        response_model=AuditOut,
        responses={**_ERRORS, 404: {"description": "no such fact, or not auditable by the caller"}},
        tags=["memory"],
        summary="Audit a fact: provenance, readers, verification",
    )
    async def audit(fact_id: FactIdPath, identity: Caller) -> JSONResponse:
        """The `memguard.audit/v1` report: provenance, lineage, who read it, revocations, and
        whether its digests, store copy and audit-log inclusion proofs verify. Quarantined
        facts can be audited."""
        await need(identity, scopes.audit, "audit")
        report = await aguard.audit(identity, fact_id)
        return JSONResponse(report, headers=NO_STORE)

    # -- lineage: revocation and endorsement ----------------------------------------------------

    @app.post(
        "/v1/revocations",
        status_code=201,
        response_model=RevocationOut,
        responses={
            **{k: v for k, v in _ERRORS.items() if k != 404},
            403: {
                "description": "not permitted by policy or token scope, or a principal selector "
                "reaching beyond the caller (`access_denied.selector_reach`)"
            },
        },
        tags=["lineage"],
        summary="Revoke a source, turn, principal or fact: quarantine what it "
        "matches in the caller's revoke scope and every descendant",
    )
    async def revoke(body: RevokeIn, identity: Caller) -> RevocationOut:
        """Revoke a source, domain, session, turn, principal or fact: quarantine what it matches
        in the caller's revoke scope and every descendant (wherever it is), and refuse new
        writes it matches while it is active. Needs the revoke scope."""
        await need(identity, scopes.revoke, "revoke")
        try:
            selector = body.selector.to_selector()
        except ValidationError:
            raise InvalidRequest("invalid selector") from None
        principal = identity.principal
        if not await asyncio.to_thread(selector_reach_ok, stack.guard, principal, selector):
            await deny_event(
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
            report = stack.guard.revoke(
                identity, s, reason=body.reason, follow_context=body.follow_context
            )
            return report, in_revoke_scope(stack.guard, principal, report.quarantined)

        report, visible = await asyncio.to_thread(run, selector)
        return RevocationOut.of(report, visible)

    @app.post(
        "/v1/facts/{fact_id}/endorse",
        response_model=EndorseOut,
        responses={
            **_NOT_FOUND,
            403: {
                "description": "not permitted by policy (by default only the user "
                "directly, never an agent acting for them) or token scope"
            },
        },
        tags=["lineage"],
        summary="Endorse a fact: lift its quarantine (audited, policy-gated)",
    )
    async def endorse(fact_id: FactIdPath, body: EndorseIn, identity: Caller) -> EndorseOut:
        """Lift a fact's quarantine: an explicit, policy-gated, audited endorsement. Its
        descendants stay quarantined until endorsed themselves."""
        await need(identity, scopes.endorse, "endorse")
        lifted = await aguard.endorse(identity, [fact_id], reason=body.reason)
        return EndorseOut(fact_id=fact_id, lifted=fact_id in lifted)

    # -- metadata and health ----------------------------------------------------------------------

    @app.get(
        "/.well-known/oauth-protected-resource",
        tags=["metadata"],
        response_model=ProtectedResourceOut,
        summary="OAuth 2.0 Protected Resource Metadata (RFC 9728)",
    )
    async def protected_resource() -> JSONResponse:
        """This resource's identifier, the issuers whose tokens it accepts and its scopes."""
        issuers = [i.issuer for i in stack.identity.access_tokens.issuers]
        if stack.sts is not None:
            issuers = [stack.sts.issuer, *(i for i in issuers if i != stack.sts.issuer)]
        body = {
            "resource": resource,
            "authorization_servers": issuers,
            "bearer_methods_supported": ["header"],
            "scopes_supported": sorted(
                {
                    s
                    for s in (
                        scopes.read,
                        scopes.write,
                        scopes.audit,
                        scopes.revoke,
                        scopes.endorse,
                    )
                    if s
                }
            ),
            "resource_name": "memguard gateway",
            "resource_signing_alg_values_supported": [],
        }
        del body["resource_signing_alg_values_supported"]
        return JSONResponse(body, headers={"Cache-Control": "max-age=60"})

    # RFC 9728 3.1: a resource with a path (https://host/mcp) has its metadata at the well-known
    # path followed by its own, the URL every challenge names (memguard.gateway.challenge)
    prm_path = urlsplit(resource_metadata_url(resource)).path
    if prm_path != "/.well-known/oauth-protected-resource":
        app.add_api_route(prm_path, protected_resource, methods=["GET"], include_in_schema=False)

    if stack.receipts is not None:
        receipt_jwks = stack.receipts.key.jwks()

        @app.get(
            RECEIPT_JWKS_PATH,
            tags=["metadata"],
            response_model=JwksOut,
            summary="The key set read receipts are signed with (memguard receipt verify)",
        )
        async def receipt_keys() -> JSONResponse:
            """The public key(s) of the gateway's read receipts (`typ: read-receipt+jwt`)."""
            return JSONResponse(receipt_jwks, headers={"Cache-Control": "max-age=60"})

    @app.get(
        "/healthz",
        tags=["health"],
        response_model=HealthOut,
        summary="Liveness: the process serves requests",
    )
    async def healthz() -> dict[str, str]:
        """Always `ok` while the process serves requests (no dependency is checked)."""
        return {"status": "ok"}

    @app.get(
        "/readyz",
        tags=["health"],
        response_model=ReadyOut,
        responses={503: {"model": ReadyOut, "description": "not ready"}},
        summary="Readiness: policy, keys, ledger and store checked for real",
    )
    async def readyz() -> JSONResponse:
        """Each dependency is exercised (policy loaded, keys readable, a ledger and a store
        query); 503 with the failing check while any is not ok."""
        checks = await asyncio.to_thread(stack.readiness)
        ready = all(v == "ok" for v in checks.values())
        return JSONResponse(
            {"status": "ready" if ready else "not_ready", "checks": checks},
            status_code=200 if ready else 503,
            headers=NO_STORE,
        )

    # -- the token service and MCP ------------------------------------------------------------------

    form_paths: frozenset[str] = frozenset()
    if stack.sts is not None:
        app.router.routes.extend(create_sts_app(stack.sts).routes)
        form_paths = frozenset({TOKEN_PATH})
    if stack.ssf is not None:  # RFC 8935 push delivery of CAEP events (memguard.gateway.ssf)
        from memguard.gateway.ssf import ssf_route

        app.router.routes.append(ssf_route(stack.ssf, config.ssf.path))
    if mcp_server is not None:
        # the mcp package's own app, with its bearer middleware; its lifespan runs in ours
        app.router.routes.append(
            Route(config.mcp.path, endpoint=PresentedCredential(mcp_app, resource))
        )

    # -- the audit console and the API reference --------------------------------------------------

    from memguard.console.app import ConsoleScopes, create_console_app
    from memguard.console.signin import TokenSignIn
    from memguard.gateway.apidocs import mount_api_docs

    console_scopes = ConsoleScopes(audit=scopes.audit, read=scopes.read, revoke=scopes.revoke)
    app.mount(
        CONSOLE_PATH,
        create_console_app(stack.guard, TokenSignIn(stack.guard), scopes=console_scopes),
    )
    form_paths |= {f"{CONSOLE_PATH}{p}" for p in ("/signin", "/signin/pick", "/signout", "/revoke")}
    mount_api_docs(app, token_service=stack.sts is not None)

    # middleware: the last added is the outermost
    def guarded(path: str) -> bool:
        return path.startswith(("/v1/", f"{CONSOLE_PATH}/")) or path in (
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
    if stack.sts is not None and rates.token_peer is not None:
        app.add_middleware(
            PeerRateMiddleware, limiter=rates.token_peer, path=TOKEN_PATH, resource=resource
        )
    app.add_middleware(BodyLimitMiddleware, max_bytes=limits.max_body_bytes, resource=resource)
    app.add_middleware(BearerOnlyMiddleware, resource=resource, form_paths=form_paths)

    def record_refusal(events: Sequence[AuditEvent]) -> None:
        stack.guard.ledger.record(events)
        stack.guard.kernel._after_events()

    # outermost: whatever refused the request, exactly one deny event (memguard/gateway/refusals.py)
    app.add_middleware(RefusalAuditMiddleware, record=record_refusal, mcp_path=config.mcp.path)
    # outermost of all: each request's access line, metrics and trace context
    install_observability(app, config)
    if keys is not None:
        keys.install(app)
    app.state.stack = stack
    return app
