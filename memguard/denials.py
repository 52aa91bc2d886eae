"""Which deny events one request produced, so that its edge writes exactly one per refusal.

The gateway opens a :class:`RequestAudit` for every HTTP request (``memguard/gateway/refusals.py``)
and makes it current with :func:`collecting`. Every deny event the ledger records during the
request is noted there (:meth:`memguard.ledger.Ledger.record` calls :func:`note_deny`), whoever
refused -- the kernel's operations, the gateway's own checks, the token service, the console -- and
authentication notes the verified principal with :func:`note_principal`.
When the response is a refusal and nothing was noted, the edge records the one deny event itself
(``413``, ``415``, ``422``, ``429``, malformed headers, ...). Outside a request this is a no-op.

Context variables follow the request into ``asyncio.to_thread`` (a copied context that shares the
same :class:`RequestAudit` object), so a deny recorded in a worker thread is seen by the edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "RequestAudit",
    "adopt",
    "collecting",
    "current",
    "note_deny",
    "note_principal",
    "request_credentials",
]


@dataclass
class RequestAudit:
    """The deny events (ids) and the verified principal of one request."""

    denied: list[str] = field(default_factory=list)
    principal: dict[str, Any] | None = None
    #: digests of the credentials the request carried (``token_digest``, ...), for every deny
    #: event of the request: never the credentials themselves
    credentials: dict[str, str] = field(default_factory=dict)


_current: ContextVar[RequestAudit | None] = ContextVar("memguard_request_audit", default=None)


def current() -> RequestAudit | None:
    return _current.get()


@contextmanager
def collecting(audit: RequestAudit) -> Iterator[RequestAudit]:
    """Make ``audit`` the current request's record for the block."""
    token = _current.set(audit)
    try:
        yield audit
    finally:
        _current.reset(token)


def adopt(audit: RequestAudit | None) -> None:
    """Make ``audit`` current for the rest of this task: for work a server runs in a task of its
    own on behalf of a request (an MCP tool call), where the request's context does not reach."""
    if audit is not None:
        _current.set(audit)


def note_deny(event_id: str) -> None:
    audit = _current.get()
    if audit is not None:
        audit.denied.append(event_id)


def note_principal(principal: dict[str, Any]) -> None:
    audit = _current.get()
    if audit is not None:
        audit.principal = principal


def request_credentials() -> dict[str, str]:
    """The credential digests of the current request (empty outside one)."""
    audit = _current.get()
    return dict(audit.credentials) if audit is not None else {}
