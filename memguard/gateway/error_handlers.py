"""How the gateway app answers an error: memguard's error tree, a request that does not match
the schema, and anything unexpected (logged by type, answered as a 500 without detail)."""

from __future__ import annotations

import json

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from memguard.errors import MemguardError
from memguard.gateway.responses import NO_STORE, error_response
from memguard.logging import MemguardLogger

__all__ = ["install_error_handlers", "validation_response"]


def validation_response(exc: RequestValidationError) -> Response:
    """The 422 of a request that does not match the schema: the fields only, ASCII-escaped.

    FastAPI's own handler echoes the input and cannot encode a lone surrogate (a 500)."""
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


def install_error_handlers(app: FastAPI, resource: str, log: MemguardLogger) -> None:
    """The exception handlers of ``app``; 401/403 answers challenge for ``resource``."""

    @app.exception_handler(MemguardError)
    async def memguard_error(request: Request, exc: MemguardError) -> Response:
        return error_response(exc, resource)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return validation_response(exc)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.error("gateway.unexpected", error=type(exc).__name__, path=request.url.path)
        return error_response(exc, resource)
