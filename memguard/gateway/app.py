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

This module assembles the app; the routes live by area (:mod:`.routes_facts`,
:mod:`.routes_lineage`, :mod:`.routes_discovery`, :mod:`.routes_health`), share one
:class:`~memguard.gateway.context.GatewayContext`, and :mod:`.error_handlers` and
:mod:`.middleware` wrap them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from starlette.routing import Route

from memguard.gateway import routes_facts, routes_health, routes_lineage
from memguard.gateway.context import GatewayContext
from memguard.gateway.error_handlers import install_error_handlers
from memguard.gateway.middleware import install_middleware
from memguard.gateway.observability import native_telemetry_off
from memguard.gateway.routes_discovery import add_discovery_routes
from memguard.gateway.routes_facts import RECEIPT_HEADER
from memguard.gateway.stack import GatewayStack
from memguard.tokens.uses import TOKEN_PATH

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memguard.gateway.ssf_poll import SsfPoller

__all__ = ["CONSOLE_PATH", "RECEIPT_HEADER", "create_app"]

#: Where the gateway serves the audit console (sign-in with the gateway's own bearer token).
CONSOLE_PATH = "/console"


def _lifespan(
    pollers: Sequence[SsfPoller], mcp_server: MCPServer[Any] | None
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start the SSF pollers and run the MCP session manager while the app serves."""

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

    return lifespan


def create_app(stack: GatewayStack, *, mcp: bool | None = None) -> FastAPI:
    """The gateway app over ``stack``. ``mcp`` (default: the config's) mounts the MCP endpoint."""
    from memguard import __version__
    from memguard.tokens.server import create_app as create_sts_app

    config = stack.config
    ctx = GatewayContext.open(stack)
    mcp_server = None
    if config.mcp.enabled if mcp is None else mcp:
        from memguard.gateway.mcp_server import PresentedCredential, build_mcp_server

        mcp_server = build_mcp_server(stack, rate=ctx.rates.memory)
        mcp_app = mcp_server.streamable_http_app(
            streamable_http_path=config.mcp.path,
            max_request_body_size=config.limits.max_body_bytes,
            host=config.server.host,
            stateless_http=True,
            json_response=True,
        )

    pollers: list[SsfPoller] = []
    if stack.ssf is not None:  # RFC 8936 poll delivery (memguard.gateway.ssf_poll)
        from memguard.gateway.ssf_poll import build_pollers

        pollers = build_pollers(config, stack.ssf)

    app = FastAPI(
        title="memguard gateway",
        version=__version__,
        lifespan=_lifespan(pollers, mcp_server),
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",  # /docs: gateway.apidocs
        **native_telemetry_off(),  # memguard/gateway/observability.py traces every request
        description="Governed agent memory: provenance-stamped facts, scoped fail-closed reads, "
        "verified identity. Tokens only in `Authorization: Bearer`.",
    )
    app.state.gateway = ctx  # the routes' context (memguard.gateway.context)
    install_error_handlers(app, ctx.resource, ctx.log)

    # the routes, in this order (it is the OpenAPI document's)
    routes_facts.routes.add_to(app)
    routes_lineage.routes.add_to(app)
    add_discovery_routes(app, ctx)
    routes_health.routes.add_to(app)

    # -- the token service, SSF and MCP -----------------------------------------------------------

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
            Route(config.mcp.path, endpoint=PresentedCredential(mcp_app, ctx.resource))
        )

    # -- the audit console and the API reference --------------------------------------------------

    from memguard.console.app import ConsoleScopes, create_console_app
    from memguard.console.signin import TokenSignIn
    from memguard.gateway.apidocs import mount_api_docs

    scopes = config.scopes
    console_scopes = ConsoleScopes(audit=scopes.audit, read=scopes.read, revoke=scopes.revoke)
    app.mount(
        CONSOLE_PATH,
        create_console_app(stack.guard, TokenSignIn(stack.guard), scopes=console_scopes),
    )
    form_paths |= {f"{CONSOLE_PATH}{p}" for p in ("/signin", "/signin/pick", "/signout", "/revoke")}
    mount_api_docs(app, token_service=stack.sts is not None)

    install_middleware(app, ctx, form_paths=form_paths, console_path=CONSOLE_PATH)
    if ctx.keys is not None:
        ctx.keys.install(app)
    app.state.stack = stack
    return app
