"""Every refusal at the gateway's edge is exactly one deny event: one ASGI middleware, outermost.

Refusals decided inside (the guard's operations, authentication, scope checks, the token
service) record their own deny event and note it (:mod:`memguard.denials`). Everything else that
ends a request with a refusal -- 400 for a token in the query or a form body, 401 for a missing
or malformed ``Authorization`` header or an oversized token, 413, 415, 422, 429, 503 overload, 504,
a ``Workload-Identity-Token`` header given twice, an MCP tool call refused before the guard ran --
is recorded here, after the response, when nothing was noted. The event carries the reason code
(the response's ``error.code``), the route, the status and SHA-256 digests of the credentials
the request carried; never a token, a query string or a body.

MCP: streamable HTTP answers a refused tool call with ``200`` and a result whose ``isError`` is
true (or a JSON-RPC error); those are refusals too, read from the JSON response.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memguard.denials import RequestAudit, collecting
from memguard.events import AuditEvent, Decision
from memguard.logging import get_logger
from memguard.provenance import sha256_digest

__all__ = ["SCOPE_KEY", "RefusalAuditMiddleware", "refusal_reason", "request_audit", "route_action"]

SCOPE_KEY = "memguard.request_audit"
_MAX_BODY = 256 * 1024
_PROBES = frozenset(
    {"/healthz", "/readyz"}
)  # what is read back of a response to find its reason; bodies pass unchanged
_CODE = re.compile(r"^(?:Error executing tool [^:\s]+: )?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*): ")
_ACTIONS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("POST", re.compile(r"^/v1/facts/batch$"), "write"),
    ("POST", re.compile(r"^/v1/facts$"), "write"),
    ("GET", re.compile(r"^/v1/facts$"), "list"),
    ("POST", re.compile(r"^/v1/search$"), "search"),
    ("POST", re.compile(r"^/v1/revocations$"), "revoke"),
    ("GET", re.compile(r"^/v1/facts/[^/]+/audit$"), "audit"),
    ("POST", re.compile(r"^/v1/facts/[^/]+/endorse$"), "endorse"),
    ("GET", re.compile(r"^/v1/facts/[^/]+$"), "get"),
    ("PUT", re.compile(r"^/v1/facts/[^/]+$"), "update"),
    ("DELETE", re.compile(r"^/v1/facts/[^/]+$"), "delete"),
    ("POST", re.compile(r"^/token$"), "token_exchange"),
)


def request_audit(scope: Scope) -> RequestAudit | None:
    """The :class:`RequestAudit` of the HTTP request ``scope`` belongs to (set by the middleware)."""
    audit = scope.get(SCOPE_KEY)
    return audit if isinstance(audit, RequestAudit) else None


def route_action(method: str, path: str, mcp_path: str = "/mcp") -> str:
    """The memguard action a request names (``write``, ``search``, ..., ``mcp``, ``http``)."""
    if path == mcp_path or path.startswith(mcp_path + "/"):
        return "mcp"
    for verb, pattern, action in _ACTIONS:
        if method == verb and pattern.match(path):
            return action
    return "http"


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def _mcp_reason(data: Any) -> str | None:
    for message in data if isinstance(data, list) else [data]:
        if not isinstance(message, dict):
            continue
        error = message.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            return f"mcp.error.{code}" if isinstance(code, int) else "mcp.error"
        result = message.get("result")
        if isinstance(result, dict) and result.get("isError") is True:
            content = result.get("content")
            text = (
                content[0].get("text")
                if isinstance(content, list) and content and isinstance(content[0], dict)
                else None
            )
            if not isinstance(text, str):
                return "mcp.tool_error"
            match = _CODE.match(text)
            if match:
                return match.group(1)
            return "invalid_request.arguments" if "validation error" in text else "mcp.tool_error"
    return None


def refusal_reason(status: int, body: bytes, *, mcp: bool) -> str | None:
    """The reason code of a refused response, or ``None`` if the response is no refusal.

    A path that names no route (the router's plain 404/405) is not a refusal on a route.
    """
    data = _json(body) if body else None
    if status in (404, 405) and data == {
        "detail": "Not Found" if status == 404 else "Method Not Allowed"
    }:
        return None
    if status >= 400:
        if isinstance(data, dict):
            error = data.get("error")
            if isinstance(error, dict) and isinstance(error.get("code"), str):
                return str(error["code"])[:128]
            if isinstance(error, str) and re.fullmatch(r"[a-z_]{1,64}", error):
                return f"oauth.{error}"
            if status == 422 and "detail" in data:
                return "invalid_request.validation"
        return f"http.{status}"
    return _mcp_reason(data) if mcp else None


def _digest(value: str) -> str:
    return sha256_digest(value.encode("utf-8", "replace"))


def _credentials(scope: Scope) -> dict[str, str]:
    """Digests of the bearer token(s) and workload credential(s) a request carries."""
    headers = Headers(scope=scope)
    out: dict[str, str] = {}
    tokens = [v.partition(" ")[2].strip() for v in headers.getlist("authorization")]
    if tokens and tokens[0]:
        out["token_digest"] = _digest(tokens[0])
    txn = headers.getlist("txn-token")
    if txn:
        out["txn_token_digest"] = _digest(txn[0].strip())
    credentials = headers.getlist("workload-identity-token")
    if credentials:
        out["workload_credential_digest"] = _digest(credentials[0].strip())
    return out


class RefusalAuditMiddleware:
    """Records the one deny event of a refused request that nothing inside recorded."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        record: Callable[[Sequence[AuditEvent]], None],
        mcp_path: str,
    ) -> None:
        self.app = app
        self.record = record
        self.mcp_path = mcp_path
        self._log = get_logger()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if str(scope.get("path", "")) in _PROBES:  # liveness and readiness answer, never refuse
            await self.app(scope, receive, send)
            return
        audit = RequestAudit(credentials=_credentials(scope))
        scope[SCOPE_KEY] = audit
        mcp = (
            route_action(scope.get("method", ""), str(scope.get("path", "")), self.mcp_path)
            == "mcp"
        )
        status = 500
        held: list[Message] = []  # a refusal (or an MCP answer) is sent after its event is recorded
        body = bytearray()

        async def release() -> None:
            while held:
                await send(held.pop(0))

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                ctype = Headers(raw=message.get("headers", [])).get("content-type", "")
                # an MCP answer is read for isError when it is one JSON body (never a stream)
                if status >= 400 or (mcp and ctype.startswith("application/json")):
                    held.append(message)
                    return
            elif held and message["type"] == "http.response.body":
                held.append(message)
                body.extend(message.get("body", b""))
                if len(body) > _MAX_BODY:
                    await release()  # too long to be a refusal's body: pass it on
                elif not message.get("more_body", False):
                    reason = refusal_reason(status, bytes(body), mcp=mcp)
                    if reason is not None and not audit.denied:
                        await self._record(scope, audit, status, reason)
                    await release()
                return
            await send(message)

        try:
            with collecting(audit):
                await self.app(scope, receive, capture)
        except Exception:
            if not audit.denied:  # the server answers 500 for it
                await self._record(scope, audit, 500, "internal")
            raise
        await release()

    async def _record(self, scope: Scope, audit: RequestAudit, status: int, reason: str) -> None:
        method, path = str(scope.get("method", "")), str(scope.get("path", ""))
        detail: dict[str, Any] = {
            "status": status,
            "method": method,
            "path_digest": _digest(path),
            "edge": True,
            **audit.credentials,
        }
        event = AuditEvent(
            action=route_action(method, path, self.mcp_path),
            decision=Decision.DENY,
            reason=reason,
            principal=audit.principal,
            detail=detail,
        )
        audit.denied.append(event.event_id)
        try:
            await asyncio.to_thread(self.record, [event])
        except Exception as exc:  # the refusal stands; the operational log keeps it
            self._log.error(
                "audit_event_lost",
                event_id=event.event_id,
                op=event.action,
                error=type(exc).__name__,
            )
