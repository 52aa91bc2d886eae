"""The STS over HTTP: a small Starlette app (``POST /token``, JWKS documents, metadata).

RFC 6749 3.2: "The client MUST use the HTTP 'POST' method when making access token requests";
4.1.3 the body is ``application/x-www-form-urlencoded``; 5.1 "The authorization server MUST include
the HTTP 'Cache-Control' response header field with a value of 'no-store'". :func:`serve_local`
runs an app with uvicorn on 127.0.0.1 only, for tests, examples and local development.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlsplit

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from memguard.errors import ConfigurationError
from memguard.tokens.id_jag import ID_JAG_PROFILE, JWT_BEARER_GRANT
from memguard.tokens.rfc8693 import GRANT_TYPE, TokenExchangeError
from memguard.tokens.sts import SecurityTokenService
from memguard.tokens.uses import TOKEN_PATH

__all__ = ["create_app", "metadata_document", "metadata_path", "serve_local"]

MAX_BODY = 64 * 1024
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _error(exc: TokenExchangeError) -> JSONResponse:
    headers = {**_NO_STORE, **getattr(exc, "headers", {})}  # Retry-After of a rate limit
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def metadata_path(issuer: str) -> str:
    """RFC 8414 3.1: the metadata's path, ``/.well-known/oauth-authorization-server`` followed by
    the issuer's path (``https://host/mcp`` -> ``.../oauth-authorization-server/mcp``), so a
    client that builds the URL from the issuer finds it (and 3.3: the ``issuer`` it reads is that
    issuer)."""
    parts = urlsplit(issuer)
    suffix = parts.path.rstrip("/") if parts.scheme in ("http", "https") else ""
    return f"/.well-known/oauth-authorization-server{suffix}"


def metadata_document(sts: SecurityTokenService) -> dict[str, object]:
    """The RFC 8414 metadata of ``sts``, from its configuration, never from the request's Host.

    ``token_endpoint`` is ``sts.token_endpoint``: the route (:data:`TOKEN_PATH`) at the configured
    origin, and the audience client assertions name. There is no authorization endpoint (no grant here uses
    one), so ``authorization_endpoint`` and ``response_types_supported`` are absent: RFC 8414 2
    makes the first conditional and lists the second as REQUIRED, but 3.2 says "Claims with zero
    elements MUST be omitted" and this server supports no response type (the reported RFC 8414
    erratum 7793 asks for the same condition as ``authorization_endpoint``). ``grant_types_supported`` is
    always present: its default would be ``authorization_code`` and ``implicit``.
    """
    parts = urlsplit(sts.token_endpoint)
    origin = f"{parts.scheme}://{parts.netloc}"
    grants = [GRANT_TYPE, JWT_BEARER_GRANT] if sts.id_jag is not None else [GRANT_TYPE]
    body: dict[str, object] = {
        "issuer": sts.issuer,
        "token_endpoint": sts.token_endpoint,
        "jwks_uri": f"{origin}/.well-known/jwks.json",
        "grant_types_supported": grants,
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["ES256", "EdDSA"],
    }
    if sts.id_jag is not None:  # MCP enterprise-managed authorization, 6 Discovery
        body["authorization_grant_profiles_supported"] = [ID_JAG_PROFILE]
    return body


def create_app(sts: SecurityTokenService) -> Starlette:
    async def token(request: Request) -> Response:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return _error(TokenExchangeError("invalid_request", "content-type"))
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return _error(TokenExchangeError("invalid_request", "body too large"))
        try:
            pairs = parse_qsl(
                body.decode("utf-8"),
                keep_blank_values=True,
                strict_parsing=bool(body),
                max_num_fields=32,
            )
        except (UnicodeDecodeError, ValueError):
            return _error(TokenExchangeError("invalid_request", "form encoding"))
        form: dict[str, list[str]] = {}
        for name, value in pairs:
            form.setdefault(name, []).append(value)
        try:
            return JSONResponse(sts.token_request(form), headers=_NO_STORE)
        except TokenExchangeError as exc:
            return _error(exc)

    async def jwks(request: Request) -> Response:
        return JSONResponse(sts.jwks(), headers={"Cache-Control": "max-age=60"})

    async def workload_jwks(request: Request) -> Response:
        return JSONResponse(sts.workload_jwks(), headers={"Cache-Control": "max-age=60"})

    async def metadata(request: Request) -> Response:
        return JSONResponse(metadata_document(sts), headers={"Cache-Control": "max-age=60"})

    return Starlette(
        routes=[
            Route(TOKEN_PATH, token, methods=["POST"]),
            Route("/.well-known/jwks.json", jwks, methods=["GET"]),
            Route("/.well-known/workload-jwks.json", workload_jwks, methods=["GET"]),
            Route(metadata_path(sts.issuer), metadata, methods=["GET"]),
        ]
    )


@contextmanager
def serve_local(app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``app`` on a loopback address in a background thread; yields the base URL."""
    if not ipaddress.ip_address(host).is_loopback:
        raise ConfigurationError("serve_local binds loopback addresses only")
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="off", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="memguard-sts", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise ConfigurationError("local server did not start")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(10)
