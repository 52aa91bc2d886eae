"""The metadata routes: RFC 9728 protected-resource metadata and the read-receipt key set."""

# No `from __future__ import annotations`: FastAPI reads the route signatures' aliases.
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from memguard.gateway.challenge import metadata_url as resource_metadata_url
from memguard.gateway.context import Ctx, GatewayContext
from memguard.gateway.receipts import RECEIPT_JWKS_PATH
from memguard.gateway.schemas import JwksOut, ProtectedResourceOut

__all__ = ["add_discovery_routes"]

_PRM_PATH = "/.well-known/oauth-protected-resource"
_CACHE = {"Cache-Control": "max-age=60"}


async def protected_resource(ctx: Ctx) -> JSONResponse:
    """This resource's identifier, the issuers whose tokens it accepts and its scopes."""
    stack, scopes = ctx.stack, ctx.scopes
    issuers = [i.issuer for i in stack.identity.access_tokens.issuers]
    if stack.sts is not None:
        issuers = [stack.sts.issuer, *(i for i in issuers if i != stack.sts.issuer)]
    body = {
        "resource": ctx.resource,
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
    return JSONResponse(body, headers=_CACHE)


async def receipt_keys(ctx: Ctx) -> JSONResponse:
    """The public key(s) of the gateway's read receipts (`typ: read-receipt+jwt`)."""
    return JSONResponse(ctx.receipt_jwks, headers=_CACHE)


def add_discovery_routes(app: FastAPI, ctx: GatewayContext) -> None:
    """The metadata routes of ``app``: the receipt key set only while receipts are on."""
    app.add_api_route(
        _PRM_PATH,
        protected_resource,
        methods=["GET"],
        tags=["metadata"],
        response_model=ProtectedResourceOut,
        summary="OAuth 2.0 Protected Resource Metadata (RFC 9728)",
    )
    # RFC 9728 3.1: a resource with a path (https://host/mcp) has its metadata at the well-known
    # path followed by its own, the URL every challenge names (memguard.gateway.challenge)
    prm_path = urlsplit(resource_metadata_url(ctx.resource)).path
    if prm_path != _PRM_PATH:
        app.add_api_route(prm_path, protected_resource, methods=["GET"], include_in_schema=False)
    if ctx.receipt_jwks is not None:
        app.add_api_route(
            RECEIPT_JWKS_PATH,
            receipt_keys,
            methods=["GET"],
            tags=["metadata"],
            response_model=JwksOut,
            summary="The key set read receipts are signed with (memguard receipt verify)",
        )
