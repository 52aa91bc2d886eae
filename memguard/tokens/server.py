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
from urllib.parse import parse_qsl

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

__all__ = ["create_app", "serve_local"]

MAX_BODY = 64 * 1024
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _error(exc: TokenExchangeError) -> JSONResponse:
    headers = {**_NO_STORE, **getattr(exc, "headers", {})}  # Retry-After of a rate limit
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


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
            pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(body),
                              max_num_fields=32)
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
        base = str(request.base_url).rstrip("/")
        body: dict[str, object] = {
            "issuer": sts.issuer,
            "token_endpoint": f"{base}/token",
            "jwks_uri": f"{base}/.well-known/jwks.json",
            "grant_types_supported": ["urn:ietf:params:oauth:grant-type:token-exchange"],
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256", "EdDSA"],
        }
        if sts.id_jag is not None:  # MCP enterprise-managed authorization, 6 Discovery
            body["grant_types_supported"] = [GRANT_TYPE, JWT_BEARER_GRANT]
            body["authorization_grant_profiles_supported"] = [ID_JAG_PROFILE]
        return JSONResponse(body)

    return Starlette(routes=[
        Route("/token", token, methods=["POST"]),
        Route("/.well-known/jwks.json", jwks, methods=["GET"]),
        Route("/.well-known/workload-jwks.json", workload_jwks, methods=["GET"]),
        Route("/.well-known/oauth-authorization-server", metadata, methods=["GET"]),
    ])


@contextmanager
def serve_local(app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``app`` on a loopback address in a background thread; yields the base URL."""
    if not ipaddress.ip_address(host).is_loopback:
        raise ConfigurationError("serve_local binds loopback addresses only")
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off",
                            access_log=False)
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
