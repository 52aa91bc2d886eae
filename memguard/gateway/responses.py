"""Error responses: the body, the status and the headers of :func:`memguard.gateway.errors.http_error`."""

from __future__ import annotations

from starlette.responses import JSONResponse

from memguard.gateway.challenge import bearer_challenge
from memguard.gateway.errors import http_error

__all__ = ["NO_STORE", "error_response"]

NO_STORE = {"Cache-Control": "no-store"}


def error_response(exc: BaseException, resource: str) -> JSONResponse:
    """The HTTP response for ``exc``; 401/403 carry a Bearer challenge (RFC 6750 3, RFC 9728 5.1)."""
    err = http_error(exc)
    headers = {**NO_STORE, **err.headers}
    if err.status in (401, 403) or err.challenge:
        # RFC 6750 3.1: no error code when the request had no authentication information at all
        error = None if err.code == "bearer.missing" else err.bearer_error
        scope = getattr(exc, "required_scope", None)
        description = err.message if error is not None else None
        headers["WWW-Authenticate"] = bearer_challenge(
            resource, error, description, scope if isinstance(scope, str) else None
        )
    return JSONResponse(err.body(), status_code=err.status, headers=headers)
