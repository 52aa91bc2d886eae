"""Limits that keep the gateway standing: body size, time, concurrency and rate per principal.

- body size: ``Content-Length`` above the cap, or a streamed body that grows past it -> 413;
- concurrency: at most ``max_concurrency`` requests in the guarded paths at once; a request that
  waits longer than ``queue_timeout`` for a slot -> 503 with ``Retry-After``;
- time: a request that has not started its response after ``request_timeout`` seconds -> 504. The
  guard call it was waiting for runs on in its worker thread and may still commit: a 504 means
  "outcome unknown", never "not written" (a write is acknowledged only by a 2xx);
- rate: a token bucket per principal (token endpoint: per claimed client id; memory endpoints: per
  verified subject and current actor) -> 429 with ``Retry-After``.

Buckets and slots are per process: N gateway processes admit up to N times the configured rate.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memguard.gateway.errors import GatewayError
from memguard.gateway.responses import error_response
from memguard.identity import Identity

__all__ = [
    "BodyLimitMiddleware",
    "ConcurrencyLimitMiddleware",
    "RateLimiter",
    "TokenRateMiddleware",
    "claimed_client",
    "principal_key",
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
            exc = GatewayError("too many requests in progress; retry later",
                               code="limits.overloaded", status=503, headers={"Retry-After": "1"})
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
                exc = GatewayError("request timed out; the outcome is unknown",
                                   code="limits.timeout", status=504)
                await error_response(exc, self.resource)(scope, _disconnect, send)
        finally:
            self._slots.release()


def principal_key(identity: Identity) -> str:
    """The rate-limit key of a verified caller: (issuer, subject, current actor)."""
    p = identity.principal
    return f"{p.subject.issuer}\x00{p.subject.subject}\x00{p.current_actor.subject}"


class RateLimiter:
    """Token buckets keyed by principal; bounded in memory (least recently used keys are dropped)."""

    def __init__(
        self,
        per_minute: float,
        burst: int,
        *,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._max_keys = max_keys
        self._clock = clock
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        """Take one token for ``key`` or raise a 429 :class:`GatewayError` with ``Retry-After``."""
        retry = self.take(key)
        if retry is not None:
            raise GatewayError("rate limit exceeded", code="limits.rate_limited", status=429,
                               headers={"Retry-After": str(retry)})

    def take(self, key: str) -> int | None:
        """None if allowed, else the whole seconds until a token is available."""
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                allowed = True
            else:
                self._buckets[key] = (tokens, now)
                allowed = False
            while len(self._buckets) > self._max_keys:
                self._buckets.popitem(last=False)
        if allowed:
            return None
        return max(1, math.ceil((1.0 - tokens) / self.rate))


def claimed_client(body: bytes) -> str | None:
    """The client id a token request claims (``client_id``, else the assertion's ``iss``), unverified.

    Only a rate-limit key: the token service authenticates the client afterwards.
    """
    import base64
    import json
    from urllib.parse import parse_qsl

    try:
        form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=32))
    except (UnicodeDecodeError, ValueError):
        return None
    client_id = form.get("client_id")
    if client_id:
        return client_id[:512]
    parts = form.get("client_assertion", "").split(".")
    if len(parts) != 3 or len(parts[1]) > 8192:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, TypeError):
        return None
    iss = payload.get("iss") if isinstance(payload, dict) else None
    return iss[:512] if isinstance(iss, str) and iss else None


class TokenRateMiddleware:
    """429 when a client (as claimed in the request) exceeds its token-endpoint rate."""

    def __init__(
        self, app: ASGIApp, *, limiter: RateLimiter, path: str, max_bytes: int, resource: str
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.path = path
        self.max_bytes = max_bytes
        self.resource = resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self.app(scope, _replay([*chunks, chunk], False, receive), send)
                return  # the token service refuses an oversize body itself
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        client = claimed_client(b"".join(chunks))
        peer = scope.get("client")
        key = f"client:{client}" if client else f"peer:{peer[0] if peer else '-'}"
        try:
            self.limiter.check(key)
        except GatewayError as exc:
            await error_response(exc, self.resource)(scope, _disconnect, send)
            return
        await self.app(scope, _replay(chunks, True, receive), send)


def _replay(chunks: list[bytes], complete: bool, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": not complete}
        return await receive()

    return replay
