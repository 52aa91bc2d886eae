"""memguard's error tree mapped to HTTP, in one place.

    IdentityError            -> 401  WWW-Authenticate: Bearer error="invalid_token"
    FactNotFound             -> 404
    AccessDenied (the rest)  -> 403  WWW-Authenticate: Bearer error="insufficient_scope"
    InvalidRequest           -> 400  (request bodies that do not validate: 422)
    BackendError             -> 503  Retry-After (store or ledger down)
    anything else            -> 500  a generic body

The body is ``{"error": {"code": <stable code>, "message": <short lowercase text>}}``. Messages are
the guard's own short texts (they never carry a reason or user data); for 500 the code and the
message are generic, the detail goes to the audit log and the operational log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memguard.errors import (
    AccessDenied,
    BackendError,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    MemguardError,
)

__all__ = ["GatewayError", "HttpError", "http_error"]

RETRY_AFTER_BACKEND = 5


class GatewayError(MemguardError):
    """A refusal the gateway itself decides (limits, bearer handling), with its HTTP status."""

    code = "gateway"

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int,
        headers: dict[str, str] | None = None,
        required_scope: str | None = None,
    ) -> None:
        super().__init__(message, code=code)
        self.status = status
        self.headers = dict(headers or {})
        self.required_scope = required_scope


@dataclass(frozen=True, slots=True)
class HttpError:
    """What a refusal looks like on the wire."""

    status: int
    code: str
    message: str
    #: RFC 6750 3.1 error code for ``WWW-Authenticate`` (``None``: no Bearer challenge error).
    bearer_error: str | None = None
    #: 401/403 responses carry a Bearer challenge.
    challenge: bool = False
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


def http_error(exc: BaseException) -> HttpError:
    """The one mapping from an exception to its HTTP form. Order matters: subclasses first."""
    if isinstance(exc, GatewayError):
        bearer = exc.code.removeprefix("bearer.") if exc.code.startswith("bearer.") else None
        return HttpError(
            exc.status,
            exc.code,
            str(exc),
            bearer,
            exc.status in (400, 401, 403) and bearer is not None,
            exc.headers,
        )
    if isinstance(exc, IdentityError):
        return HttpError(401, exc.code, "invalid or expired credentials", "invalid_token", True)
    if isinstance(exc, FactNotFound):
        return HttpError(404, exc.code, "fact not found")
    if isinstance(exc, AccessDenied):
        return HttpError(403, exc.code, str(exc) or "access denied", "insufficient_scope", True)
    if isinstance(exc, InvalidRequest):
        return HttpError(400, exc.code, str(exc) or "invalid request")
    if isinstance(exc, BackendError):
        return HttpError(
            503,
            exc.code,
            "backend unavailable; retry later",
            headers={"Retry-After": str(RETRY_AFTER_BACKEND)},
        )
    return HttpError(500, "internal", "internal error")
