"""redteam33: the gateway client (memguard/client/) against a hostile or broken answer.

Driven by httpx's ``MockTransport`` (the client's transport seam): what the network or a proxy in
front of the gateway can answer, not what the gateway itself does.

- an answer that is not a 2xx and not an error (a 3xx a proxy or a moved gateway sends) was taken
  as success: ``delete`` returned as if the fact were gone, though nothing was deleted;
- a ``Retry-After`` of many digits (a float overflowing to infinity) raised ``OverflowError`` out
  of the client instead of the typed refusal;
- redirects are never followed: the bearer token and the workload credential never reach
  another host.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memguard.client import (
    AsyncMemguardClient,
    MemguardClient,
    RateLimited,
    RetryPolicy,
    raise_for,
)
from memguard.errors import BackendError, MemguardError

FID = "0190f1a2-0000-7000-8000-000000000001"
BASE = "https://gateway.example"
Handler = Callable[[httpx.Request], httpx.Response]


def _client(handler: Handler) -> MemguardClient:
    return MemguardClient(BASE, "tok-secret", workload_credential="svid-secret",
                          retry=RetryPolicy.none(), transport=httpx.MockTransport(handler))  # fmt: skip


def _aclient(handler: Handler) -> AsyncMemguardClient:
    return AsyncMemguardClient(BASE, "tok-secret", workload_credential="svid-secret",
                               retry=RetryPolicy.none(),
                               transport=httpx.MockTransport(handler))  # fmt: skip


@pytest.mark.parametrize("status", [300, 301, 302, 303, 304, 307, 308])
def test_a_redirect_is_not_a_successful_delete_and_is_not_followed(status: int) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, headers={"Location": f"https://evil.example/v1/facts/{FID}"})

    with _client(handler) as client, pytest.raises(MemguardError):
        client.delete(FID)
    assert [r.url.host for r in seen] == ["gateway.example"]  # never sent to the Location


@pytest.mark.parametrize("status", [302, 307])
def test_the_async_client_takes_no_redirect_as_a_delete(status: int) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, headers={"Location": "https://evil.example/x"})

    async def run() -> None:
        async with _aclient(handler) as client:
            await client.delete(FID)

    with pytest.raises(MemguardError):
        asyncio.run(run())
    assert [r.url.host for r in seen] == ["gateway.example"]


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("value", ["9" * 400, "9" * 309, "1" + "0" * 30])
def test_a_huge_retry_after_is_the_typed_refusal(status: int, value: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = {"error": {"code": "limits.rate_limited" if status == 429 else "limits.overloaded",
                          "message": "slow down"}}  # fmt: skip
        return httpx.Response(status, json=body, headers={"Retry-After": value})

    expected = RateLimited if status == 429 else BackendError
    with _client(handler) as client, pytest.raises(expected) as caught:
        client.get(FID)
    wait = getattr(caught.value, "retry_after", None)
    assert isinstance(wait, int | float) and wait > 0


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "1\u00b2", "\uff11"])
def test_a_retry_after_of_non_ascii_digits_is_the_typed_refusal(status: int, value: str) -> None:
    """``str.isdigit`` holds for superscripts and other scripts' digits, which ``float``
    refuses (``ValueError`` out of the client) or reads; RFC 9110's delay is ASCII digits."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"error": {"code": "limits.overloaded"}},
                              headers=[(b"Retry-After", value.encode())])  # fmt: skip

    expected = RateLimited if status == 429 else BackendError
    with _client(handler) as client, pytest.raises(expected):
        client.get(FID)


def test_a_huge_retry_after_waits_at_most_max_wait() -> None:
    """Retried under a policy: the wait is capped at ``max_wait`` (not a sleep of 10^400
    seconds, nor an ``OverflowError`` out of the waiter)."""
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            return httpx.Response(429, json={"error": {"code": "limits.rate_limited"}},
                                  headers={"Retry-After": "9" * 400})  # fmt: skip
        return httpx.Response(204)

    policy = RetryPolicy(attempts=2, max_wait=0.01, deadline=5.0)
    with MemguardClient(BASE, "t", retry=policy, transport=httpx.MockTransport(handler)) as client:
        client.delete(FID)
    assert calls == 2


def test_credentials_never_leave_in_the_url_and_no_env_proxy_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``trust_env=False``: an ``HTTPS_PROXY`` in the environment does not route the token
    through another host; the credentials go in headers only."""
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.evil.example:3128")
    monkeypatch.setenv("ALL_PROXY", "http://proxy.evil.example:3128")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    with _client(handler) as client:
        client.delete(FID)
    (request,) = seen
    assert request.url.host == "gateway.example"
    assert "secret" not in str(request.url)
    assert request.headers["authorization"] == "Bearer tok-secret"


def _huge(declared: bool, aio: bool = False) -> Handler:
    """An answer of 4 MiB of JSON, with or without its ``Content-Length`` (a chunked stream)."""
    body = b'{"facts": [' + b'{"x": "' + b"a" * (4 * 2**20) + b'"}]}'
    chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)]

    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        if declared:
            return httpx.Response(200, content=body)
        return httpx.Response(200, content=stream() if aio else iter(chunks))

    return handler


@pytest.mark.parametrize("declared", [True, False])
def test_an_answer_past_max_response_bytes_is_refused_not_read_whole(declared: bool) -> None:
    with MemguardClient(BASE, "t", retry=RetryPolicy.none(), max_response_bytes=2**20,
                        transport=httpx.MockTransport(_huge(declared))) as client:  # fmt: skip
        with pytest.raises(MemguardError) as caught:
            client.search("x")
    assert "too large" in str(caught.value)


@pytest.mark.parametrize("declared", [True, False])
def test_the_async_client_refuses_an_answer_past_max_response_bytes(declared: bool) -> None:
    async def run() -> None:
        async with AsyncMemguardClient(BASE, "t", retry=RetryPolicy.none(),
                                       max_response_bytes=2**20,
                                       transport=httpx.MockTransport(_huge(declared, aio=True))
                                       ) as client:  # fmt: skip
            await client.search("x")

    with pytest.raises(MemguardError, match="too large"):
        asyncio.run(run())


def test_a_large_refusal_is_still_its_typed_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, content=b"x" * 2**21, headers={"Retry-After": "1"})

    with MemguardClient(BASE, "t", retry=RetryPolicy.none(), max_response_bytes=2**20,
                        transport=httpx.MockTransport(handler)) as client:  # fmt: skip
        with pytest.raises(RateLimited):
            client.get(FID)


def test_an_answer_within_the_limit_reads_as_before() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"facts": []})

    with MemguardClient(BASE, "t", retry=RetryPolicy.none(), max_response_bytes=64,
                        transport=httpx.MockTransport(handler)) as client:  # fmt: skip
        assert client.search("x") == []


_HEADER_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), max_size=40)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    status=st.integers(min_value=100, max_value=599),
    retry_after=st.one_of(
        st.none(),
        _HEADER_TEXT,
        st.integers(min_value=-(10**400), max_value=10**400).map(str),
        st.datetimes().map(lambda d: d.strftime("%a, %d %b %Y %H:%M:%S GMT")),
    ),
    body=st.one_of(
        st.binary(max_size=64),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
            lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
                st.sampled_from(["error", "code", "message", "x"]), kids, max_size=3),
            max_leaves=8,
        ).map(lambda v: json.dumps({"error": v}).encode()),
    ),
)
def test_fuzz_any_answer_is_a_success_or_a_typed_error(
    status: int, retry_after: str | None, body: bytes
) -> None:
    """Whatever the status, ``Retry-After`` and body: a 2xx returns, anything else raises a
    :class:`MemguardError` (never ``OverflowError``, ``ValueError``, ``TypeError`` ...), and a
    wait it carries is a finite, non-negative number."""
    headers = [] if retry_after is None else [(b"Retry-After", retry_after.encode())]
    response = httpx.Response(status, content=body, headers=headers)
    try:
        raise_for(response)
    except MemguardError as exc:
        assert not 200 <= status < 300
        wait = getattr(exc, "retry_after", None)
        assert wait is None or (isinstance(wait, int | float) and 0 <= wait < float("inf"))
    else:
        assert 200 <= status < 300
