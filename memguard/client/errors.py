"""The gateway's refusals as memguard's typed errors: the seam where HTTP ends.

The gateway's error ``code`` picks the class; the status decides when the code is not one of the
client's own. ``Retry-After`` (RFC 9110: delay seconds or an HTTP date) rides on the error as
``retry_after`` for the retry loop (:mod:`memguard.client.retry`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

import httpx

from memguard.errors import (
    AccessDenied,
    BackendError,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    LedgerError,
    MemguardError,
    ReservedField,
    StoreError,
    TrustEscalation,
)

__all__ = [
    "Conflict",
    "GatewayTimeout",
    "GatewayUnavailable",
    "Overloaded",
    "RateLimited",
    "raise_for",
]


class RateLimited(MemguardError):
    """429: the caller's rate is exceeded; retry after ``retry_after`` seconds."""

    code = "limits.rate_limited"

    def __init__(self, message: str, *, code: str | None = None, retry_after: int = 1) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after


class Conflict(MemguardError):
    """409: ``idempotency.in_progress`` (the first try of this write is still running: retried)
    or ``idempotency.key_reused`` (the key was used for another request: never retried)."""

    code = "idempotency.conflict"


class Overloaded(BackendError):
    """503 from the gateway's own limits (too many requests in progress)."""

    code = "limits.overloaded"


class GatewayTimeout(BackendError):
    """504: the gateway gave up waiting; the operation's outcome is unknown."""

    code = "limits.timeout"


class GatewayUnavailable(BackendError):
    """The gateway could not be reached (connection refused, reset, client timeout)."""

    code = "backend.gateway"


#: the longest ``Retry-After`` taken as said, in seconds (a day); the retry loop waits at most
#: its ``max_wait`` anyway
MAX_RETRY_AFTER = 86400.0

_BY_CODE: dict[str, type[MemguardError]] = {
    "not_found": FactNotFound,
    "access_denied.trust_escalation": TrustEscalation,
    "access_denied.reserved_field": ReservedField,
    "backend.store": StoreError,
    "backend.ledger": LedgerError,
    "limits.overloaded": Overloaded,
    "limits.timeout": GatewayTimeout,
}


def raise_for(response: httpx.Response) -> None:
    """Translate a gateway refusal into memguard's error tree. Only a 2xx is a success: a 3xx
    (a proxy's or a moved gateway's redirect; never followed, so the credentials stay with the
    gateway) did not run the call."""
    if 200 <= response.status_code < 300:
        return
    if response.status_code < 400:
        raise MemguardError(
            f"unexpected gateway answer (HTTP {response.status_code})", code="internal"
        )
    code, message = "internal", "gateway error"
    try:
        err = response.json().get("error")
        if isinstance(err, Mapping):
            code = str(err.get("code", code))
            message = str(err.get("message", message))
    except (ValueError, AttributeError):
        pass
    status = response.status_code
    if status == 422:
        raise InvalidRequest("invalid request", code="invalid_request")
    retry_after = _retry_after(response.headers.get("retry-after"))
    if status == 429:
        raise RateLimited(message, code=code, retry_after=max(1, round(retry_after or 1)))
    if status == 409:
        raise _later(Conflict(message, code=code), retry_after)
    if code in _BY_CODE:
        raise _later(_BY_CODE[code](message, code=code), retry_after)
    if status == 401:
        raise IdentityError(message, code=code)
    if status == 403:
        raise AccessDenied(message, code=code)
    if status == 404:
        raise FactNotFound(message, code="not_found")
    if status in (400, 413):
        raise InvalidRequest(message, code=code)
    if status in (502, 503, 504):
        raise _later(BackendError(message, code=code), retry_after)
    raise MemguardError("internal error", code="internal")


def _retry_after(value: str | None) -> float | None:
    """RFC 9110 ``Retry-After``: delay seconds (ASCII digits; capped at :data:`MAX_RETRY_AFTER`,
    so a value of many digits is not an infinite wait) or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return min(float(value), MAX_RETRY_AFTER)
    try:
        return min(
            max(0.0, parsedate_to_datetime(value).timestamp() - time.time()), MAX_RETRY_AFTER
        )
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _later(exc: MemguardError, retry_after: float | None) -> MemguardError:
    if retry_after is not None:
        setattr(exc, "retry_after", retry_after)  # noqa: B010 - on any error class
    return exc
