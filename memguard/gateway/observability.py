"""Every gateway request: one access line, its metrics, its trace. One ASGI middleware, outermost.

For each HTTP request it

* takes the W3C trace context the caller sent (``traceparent``) and makes it current, so the
  facts the request writes keep the caller's trace and span id even when this process exports no
  spans; with an OpenTelemetry SDK installed it opens a ``SERVER`` span (``{method} {route}``);
* gives the request an id (a well-formed ``X-Request-Id`` it carried, else a new one), returned
  in ``X-Request-Id``;
* writes one JSON access line (``gateway.request``): request id, principal digest, route, status,
  action, decision, reason, latency, trace id, worker (process id). Allowed requests are sampled when
  ``logging.sample_allows`` < 1; refusals and server errors never are. The kernel's own decision
  line of the request is folded into it (:func:`fold_decisions`), so a request is one line;
* counts it: ``memguard_http_requests_total{route,method,status}``, the request-duration
  histogram, and a refusal the edge decided (nothing inside recorded a decision) as a decision.

Routes are the templates (``/v1/facts/{fact_id}``), never raw paths; a path that matches no route
is ``unmatched``.
"""

from __future__ import annotations

import os
import random
import re
import time
import uuid
from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

import structlog
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memguard.gateway.refusals import refusal_reason, request_audit, route_action
from memguard.logging import get_logger
from memguard.provenance import canonical_json, sha256_digest
from memguard.telemetry import hooks, metrics, tracing
from memguard.telemetry import semconv as sc

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from memguard.events import AuditEvent
    from memguard.gateway.config import GatewayConfig
    from memguard.kernel import Operation
    from memguard.provenance import Provenance
    from memguard.telemetry.hooks import RequestObserver

__all__ = [
    "ObservabilityMiddleware",
    "RequestRecord",
    "configure_logging",
    "fold_decisions",
    "install",
    "native_telemetry_off",
    "principal_digest",
    "route_action",
]

REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_MAX_BODY = 64 * 1024


def principal_digest(principal: dict[str, Any] | None) -> str | None:
    """A stable pseudonym of a principal for logs: SHA-256 of its issuer, subject and actors."""
    if not principal:
        return None
    ident = {k: principal.get(k) for k in ("issuer", "subject", "actors")}
    return sha256_digest(canonical_json(ident))[:23]  # "sha256:" + 16 hex


class RequestRecord:
    """What the request's operations decided (a :class:`~memguard.telemetry.hooks.RequestObserver`)."""

    __slots__ = ("alarms", "decision", "extra", "reason", "write")

    def __init__(self) -> None:
        self.decision: str | None = None
        self.reason: str | None = None
        self.alarms = 0
        #: more fields for the access line, set by other request-scoped parts (idempotency)
        self.extra: dict[str, Any] = {}
        #: the request's keyed write (memguard/gateway/idempotency.py), if it carries a key
        self.write: RequestObserver | None = None

    def on_start(self, op: Operation) -> None:
        if self.write is not None:
            self.write.on_start(op)

    def on_decision(self, event: AuditEvent) -> None:
        if event.decision.value == "alarm":
            self.alarms += 1
            return
        if event.action == "authenticate" and self.decision is not None:
            return
        self.decision, self.reason = event.decision.value, event.reason

    def on_stamped(self, op: Operation, records: Sequence[Provenance]) -> None:
        if self.write is not None:
            self.write.on_stamped(op, records)  # may refuse (idempotency.in_progress)


def fold_decisions(_logger: Any, _method: str, event: MutableMapping[str, Any]) -> Any:
    """A structlog processor: inside a gateway request, the kernel's allow/deny decision line is
    dropped, because the request's access line carries it (alarms stay lines of their own)."""
    if (
        event.get("event") == "memguard.decision"
        and event.get("decision") in ("allow", "deny")
        and isinstance(hooks.current_observer(), RequestRecord)
    ):
        raise structlog.DropEvent
    return event


def _route(scope: Scope, app: object, method: str, path: str) -> str:
    """The route template of ``app`` that served the request (``unmatched`` if none did)."""
    route = scope.get("route")
    found = getattr(route, "path_format", None)
    if isinstance(found, str) and found and scope.get("app") is app:
        return found
    # routes FastAPI's router does not name, and mounted apps (which rewrite the scope)
    probe = {"type": "http", "path": path, "method": method, "root_path": ""}
    for candidate in getattr(app, "routes", ()):
        try:
            match, _ = candidate.matches(probe)
        except Exception:
            continue
        if match is Match.FULL:
            if isinstance(candidate, Mount):
                return f"{candidate.path}/{{path}}"
            found = getattr(candidate, "path_format", None) or getattr(candidate, "path", None)
            return found if isinstance(found, str) and found else "unmatched"
    return "unmatched"


def native_telemetry_off() -> dict[str, Any]:
    """``FastAPI(**native_telemetry_off())``: FastAPI versions with built-in OpenTelemetry would
    open a second server span and record HTTP metrics twice; this middleware does both, for
    every version."""
    import inspect

    from fastapi import FastAPI

    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}
    return {
        "telemetry": {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}
    }


class ObservabilityMiddleware:
    """See the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        mcp_path: str = "/mcp",
        access_log: bool = True,
        sample_allows: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        self.app = app
        self.mcp_path = mcp_path
        self.access_log = access_log
        self.sample_allows = sample_allows
        self._random = rng or random.Random()
        self._log = get_logger("memguard.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        app = scope.get("app")  # the gateway app (a mounted app sets its own as the request runs)
        headers = Headers(scope=scope)
        given = headers.get(REQUEST_ID_HEADER, "")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        method, path = str(scope.get("method", "")), str(scope.get("path", ""))
        mcp = route_action(method, path, self.mcp_path) == "mcp"
        status = 500
        body = bytearray()
        capture = False
        record = RequestRecord()

        async def send_wrapper(message: Message) -> None:
            nonlocal status, capture
            if message["type"] == "http.response.start":
                status = int(message["status"])
                ctype = Headers(raw=message.get("headers", [])).get("content-type", "")
                capture = status >= 400 or (mcp and ctype.startswith("application/json"))
                response_headers = MutableHeaders(scope=message)
                response_headers[REQUEST_ID_HEADER] = request_id
            elif capture and message["type"] == "http.response.body" and len(body) <= _MAX_BODY:
                body.extend(message.get("body", b""))
            await send(message)

        carrier = {
            k: v
            for k, v in ((n, headers.get(n)) for n in ("traceparent", "tracestate"))
            if v is not None
        }
        route = "unmatched"
        trace_id: str | None = None
        try:
            with (
                tracing.use_context(tracing.extract(carrier)),
                tracing.server_span(
                    f"{method} /",
                    {
                        sc.HTTP_REQUEST_METHOD: method,
                        sc.URL_PATH: path,
                        sc.MG_REQUEST_ID: request_id,
                    },
                ) as span,
                hooks.observing(record),
            ):
                ids = tracing.current_ids()
                trace_id = ids[0] if ids else None
                try:
                    await self.app(scope, receive, send_wrapper)
                finally:
                    route = _route(scope, app, method, path)
                    if span is not None:
                        span.update_name(f"{method} {route}")
                        span.set_attribute(sc.HTTP_ROUTE, route)
                        span.set_attribute(sc.HTTP_RESPONSE_STATUS_CODE, status)
                        if status >= 500:
                            span.set_attribute(sc.ERROR_TYPE, str(status))
                            span.set_status(tracing.error_status(str(status)))
        finally:
            try:
                self._finish(
                    scope,
                    record,
                    request_id,
                    method,
                    path,
                    route,
                    status,
                    bytes(body),
                    mcp,
                    time.perf_counter() - started,
                    trace_id,
                )
            except Exception:  # the access line never turns an answer into an error
                pass

    def _finish(
        self,
        scope: Scope,
        record: RequestRecord,
        request_id: str,
        method: str,
        path: str,
        route: str,
        status: int,
        body: bytes,
        mcp: bool,
        seconds: float,
        trace_id: str | None,
    ) -> None:
        action = route_action(method, path, self.mcp_path)
        decision, reason = record.decision, record.reason
        if decision is None or (decision == "allow" and status >= 400):
            edge = refusal_reason(status, body, mcp=mcp) if (status >= 400 or mcp) else None
            if edge is not None:
                decision, reason = "deny", edge
                # nothing inside counted this refusal: count it here, as the edge's decision
                metrics.record("memguard.decisions", 1.0, action, "deny", edge)
                metrics.record("memguard.denies", 1.0, action, edge)
            elif action == "token_exchange" and status < 400:
                decision, reason = "allow", "issued"
        metrics.record("memguard.http.requests", 1.0, route, method, status)
        metrics.record("http.server.request.duration", seconds, route, method)
        if not self.access_log:
            return
        refused = decision == "deny" or status >= 500
        if not refused and self.sample_allows < 1.0 and self._random.random() >= self.sample_allows:
            return
        audit = request_audit(scope)
        fields: dict[str, Any] = {
            "request_id": request_id,
            "method": method,
            "route": route,
            "status": status,
            "action": action,
            "decision": decision or "none",
            "reason": reason,
            "principal": principal_digest(audit.principal if audit is not None else None),
            "latency_ms": round(seconds * 1000.0, 3),
            "trace_id": trace_id,
            "worker": os.getpid(),
        }
        if record.alarms:
            fields["alarms"] = record.alarms
        fields.update(record.extra)
        if status >= 500:
            self._log.error("gateway.request", **fields)
        elif refused:
            self._log.warning("gateway.request", **fields)
        else:
            self._log.info("gateway.request", **fields)


def install(app: Starlette, config: GatewayConfig) -> None:
    """Observe every request of ``app`` (call after every other middleware: it must be outermost)
    and set this process's telemetry from ``config``."""
    tracing.configure(store_id=config.store.collection)
    if config.tracing.capture_content:
        tracing.configure(capture_content=True)
    if config.metrics.enabled:
        from memguard.gateway.metrics_server import process_registry

        metrics.enable_prometheus(process_registry())
    app.add_middleware(
        ObservabilityMiddleware,
        mcp_path=config.mcp.path,
        access_log=config.logging.access,
        sample_allows=config.logging.sample_allows,
    )


def configure_logging(config: GatewayConfig) -> None:
    """The gateway process's logs: JSON lines on stderr, one access line per request."""
    import logging

    from memguard.logging import configure_json_logging

    level = getattr(logging, config.logging.level.upper())
    configure_json_logging(level, processors=[fold_decisions])
