"""Limits that keep the gateway standing: body size, time, concurrency and rate.

- body size: ``Content-Length`` above the cap, or a streamed body that grows past it -> 413;
- concurrency: at most ``max_concurrency`` requests in the guarded paths at once; a request that
  waits longer than ``queue_timeout`` for a slot -> 503 with ``Retry-After``;
- time: a request that has not started its response after ``request_timeout`` seconds -> 504. The
  guard call it was waiting for runs on in its worker thread and may still commit: a 504 means
  "outcome unknown", never "not written" (a write is acknowledged only by a 2xx);
- rate -> 429 with ``Retry-After``, counted with the ``limits`` library: memory routes and MCP per
  verified principal (issuer, subject, current actor) and OAuth client, optionally per route as
  well; the token endpoint per *authenticated* client (the token service asks once it has
  verified the client's assertion, so nobody can spend another client's budget by naming it) and,
  optionally, per peer address before that.

Slots are per process. Rate counters are per process with ``limits.storage: memory``, and shared
by every worker and host with ``limits.storage: redis://...`` (moving windows, atomic in Redis).
When the shared storage fails, ``limits.on_storage_error: deny`` (the default) refuses with 503
``limits.unavailable`` (audited at the edge): fail closed.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memguard.gateway.errors import GatewayError
from memguard.gateway.responses import error_response
from memguard.identity import Identity
from memguard.logging import get_logger
from memguard.telemetry import metrics
from memguard.tokens.rfc8693 import TokenExchangeError

if TYPE_CHECKING:
    from memguard.gateway.config import LimitsSection, RateLimit

__all__ = [
    "BodyLimitMiddleware",
    "ConcurrencyLimitMiddleware",
    "PeerRateMiddleware",
    "RateLimiter",
    "RateLimits",
    "TokenRateLimited",
    "principal_key",
    "rate_item",
]


class _TooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """413 for a body above ``max_bytes`` (declared or streamed)."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, resource: str) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.resource = resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(scope, send)
            return
        seen = 0
        started = False
        over = False  # the body grew past the cap: whatever the app answers, the answer is 413

        async def limited_receive() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if over:
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await self._refuse(scope, send)
                return  # the app's own answer to the truncated body is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _TooLarge:
            if not started:
                await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        exc = GatewayError("request body too large", code="limits.body_too_large", status=413)
        await error_response(exc, self.resource)(scope, _disconnect, send)


async def _disconnect() -> Message:
    return {"type": "http.disconnect"}


class ConcurrencyLimitMiddleware:
    """A slot per request on the guarded paths, and a deadline for its response to start."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_concurrency: int,
        queue_timeout: float,
        request_timeout: float,
        resource: str,
        guarded: Callable[[str], bool],
    ) -> None:
        self.app = app
        self.queue_timeout = queue_timeout
        self.request_timeout = request_timeout
        self.resource = resource
        self.guarded = guarded
        self._slots: asyncio.Semaphore | None = None
        self._max = max_concurrency

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.guarded(scope["path"]):
            await self.app(scope, receive, send)
            return
        if self._slots is None:  # created on the serving loop
            self._slots = asyncio.Semaphore(self._max)
        try:
            await asyncio.wait_for(self._slots.acquire(), timeout=self.queue_timeout or 0.001)
        except TimeoutError:
            exc = GatewayError(
                "too many requests in progress; retry later",
                code="limits.overloaded",
                status=503,
                headers={"Retry-After": "1"},
            )
            await error_response(exc, self.resource)(scope, _disconnect, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await asyncio.wait_for(self.app(scope, receive, tracking_send), self.request_timeout)
        except TimeoutError:
            if not started:
                exc = GatewayError(
                    "request timed out; the outcome is unknown", code="limits.timeout", status=504
                )
                await error_response(exc, self.resource)(scope, _disconnect, send)
        finally:
            self._slots.release()


def principal_key(identity: Identity) -> str:
    """The rate-limit key of a verified caller: (issuer, subject, current actor, OAuth client)."""
    p = identity.principal
    return (
        f"{p.subject.issuer}\x00{p.subject.subject}\x00{p.current_actor.subject}"
        f"\x00{p.client_id or ''}"
    )


def rate_item(rate: RateLimit, namespace: str) -> Any:
    """A ``limits`` moving window for a (``per_minute``, ``burst``) rate.

    ``burst`` requests per ``60 * burst / per_minute`` seconds: at most ``burst`` at once, and
    ``per_minute`` a minute sustained (the window is whole seconds, rounded up: never more than
    the configured rate).
    """
    from limits import RateLimitItemPerSecond

    window = 60.0 * rate.burst / rate.per_minute
    if window >= 1.0:
        return RateLimitItemPerSecond(rate.burst, math.ceil(window - 1e-9), namespace=namespace)
    return RateLimitItemPerSecond(
        max(rate.burst, math.ceil(rate.per_minute / 60.0)), 1, namespace=namespace
    )


class RateLimiter:
    """One rate (a ``limits`` moving window) over a storage shared by its :class:`RateLimits`."""

    def __init__(self, limits: RateLimits, item: Any, name: str) -> None:
        self.limits = limits
        self.item = item
        self.name = name

    def check(self, key: str) -> None:
        """Count one request for ``key`` or raise a 429 :class:`GatewayError` with ``Retry-After``
        (or the storage's failure: see :meth:`RateLimits.storage_failed`)."""
        retry = self.take(key)
        if retry is not None:
            raise GatewayError(
                "rate limit exceeded",
                code="limits.rate_limited",
                status=429,
                headers={"Retry-After": str(retry)},
            )

    async def acheck(self, key: str) -> None:
        """:meth:`check` without blocking the event loop on a network storage."""
        if self.limits.in_process:
            self.check(key)
        else:
            await asyncio.to_thread(self.check, key)

    def take(self, key: str) -> int | None:
        """``None`` if allowed, else the whole seconds until the window frees a request."""
        hashed = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        strategy = self.limits.strategy
        try:
            if strategy.hit(self.item, hashed):
                return None
            reset = strategy.get_window_stats(self.item, hashed).reset_time
        except Exception as exc:
            self.limits.storage_failed(exc, self.name)
            return None
        return max(1, math.ceil(float(reset) - time.time()))


@dataclass
class RateLimits:
    """Every rate of one gateway, over one storage (this process's memory, or Redis)."""

    strategy: Any
    in_process: bool
    on_storage_error: str = "deny"
    memory: RateLimiter | None = None
    routes: dict[str, RateLimiter] = field(default_factory=dict)
    token: RateLimiter | None = None
    token_peer: RateLimiter | None = None

    @classmethod
    def from_config(cls, section: LimitsSection) -> RateLimits:
        from limits.storage import MemoryStorage, RedisStorage
        from limits.strategies import MovingWindowRateLimiter

        if section.storage == "memory":
            storage: Any = MemoryStorage()
        else:
            storage = RedisStorage(
                section.storage,
                key_prefix=section.key_prefix,
                wrap_exceptions=True,
                socket_timeout=section.storage_timeout,
                socket_connect_timeout=section.storage_timeout,
            )
        out = cls(
            MovingWindowRateLimiter(storage), section.storage == "memory", section.on_storage_error
        )
        if section.memory_rate is not None:
            out.memory = RateLimiter(out, rate_item(section.memory_rate, "memory"), "memory")
        for route, rate in section.route_rates.items():
            out.routes[route] = RateLimiter(out, rate_item(rate, f"route-{route}"), route)
        if section.token_rate is not None:
            out.token = RateLimiter(out, rate_item(section.token_rate, "token"), "token")
        if section.token_peer_rate is not None:
            out.token_peer = RateLimiter(
                out, rate_item(section.token_peer_rate, "token-peer"), "token_peer"
            )
        return out

    def storage_failed(self, exc: BaseException, limit: str) -> None:
        """The shared counters cannot be read: refuse (``deny``, 503) or let the request through
        (``allow``); either way the operational log and a metric say so."""
        metrics.record("memguard.rate_limit.storage_errors", 1.0, self.on_storage_error)
        get_logger().error(
            "limits.storage_unavailable",
            limit=limit,
            error=type(exc).__name__,
            failure_mode=self.on_storage_error,
        )
        if self.on_storage_error == "deny":
            raise GatewayError(
                "rate limits unavailable; retry later",
                code="limits.unavailable",
                status=503,
                headers={"Retry-After": "1"},
            ) from exc

    async def admit(self, identity: Identity, action: str | None) -> None:
        """A memory request of ``identity``: the shared memory rate, then ``action``'s own."""
        key = principal_key(identity)
        if self.memory is not None:
            await self.memory.acheck(key)
        route = self.routes.get(action) if action is not None else None
        if route is not None:
            await route.acheck(key)

    def admit_client(self, client_id: str) -> None:
        """The token service authenticated ``client_id``: count its request (RFC 6749 has no
        rate-limit error; 429 ``temporarily_unavailable`` with ``Retry-After``)."""
        if self.token is None:
            return
        try:
            retry = self.token.take(f"client\x00{client_id}")
        except GatewayError as exc:
            raise TokenRateLimited("limits.unavailable", exc.status, exc.headers) from exc
        if retry is not None:
            raise TokenRateLimited("limits.rate_limited", 429, {"Retry-After": str(retry)})


class TokenRateLimited(TokenExchangeError):
    """A token request refused by a rate limit (or by its unavailable storage)."""

    def __init__(self, reason: str, status: int, headers: dict[str, str]) -> None:
        super().__init__("temporarily_unavailable", reason)
        self._status = status
        self.headers = dict(headers)

    @property
    def status(self) -> int:
        return self._status


class PeerRateMiddleware:
    """429 when one peer address sends the token endpoint more than its rate, before the client
    is authenticated (only meaningful where peers are the real clients)."""

    def __init__(self, app: ASGIApp, *, limiter: RateLimiter, path: str, resource: str) -> None:
        self.app = app
        self.limiter = limiter
        self.path = path
        self.resource = resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        peer = scope.get("client")
        try:
            await self.limiter.acheck(f"peer\x00{peer[0] if peer else '-'}")
        except GatewayError as exc:
            await error_response(exc, self.resource)(scope, _disconnect, send)
            return
        await self.app(scope, receive, send)
