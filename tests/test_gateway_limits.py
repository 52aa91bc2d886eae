"""Rate limits with the `limits` library: the window math, per-route rates, the token endpoint per
authenticated client with Retry-After, and a shared storage that is down (fail closed by default,
audited; ``allow`` when configured). Across two workers: tests/test_deployment.py."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from deploy_helpers import REDIS_URL, drop_redis_prefix, require_redis
from gateway_helpers import fact, running_gateway
from hypothesis import given
from hypothesis import strategies as st

from memguard.gateway.config import LimitsSection, RateLimit
from memguard.gateway.limits import RateLimits, rate_item
from memguard.gateway.server import free_port

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@given(per_minute=st.floats(0.01, 1_000_000), burst=st.integers(1, 1_000_000))
def test_a_window_never_admits_more_than_the_burst_or_much_more_than_the_rate(
    per_minute: float, burst: int
) -> None:
    item = rate_item(RateLimit(per_minute=per_minute, burst=burst), "t")
    window = item.get_expiry()
    assert window >= 1 and item.amount >= 1
    if 60.0 * burst / per_minute >= 1:
        assert item.amount == burst  # never more at once than the burst
        # sustained: never above the configured rate (the window is rounded up), and within
        # one second's worth of rounding below it
        sustained = item.amount * 60.0 / window
        exact = 60.0 * burst / per_minute
        assert sustained <= per_minute * (1 + 1e-9)
        assert sustained >= per_minute * exact / (exact + 1) - 1e-6


def test_memory_storage_counts_exactly_per_key() -> None:
    section = LimitsSection(memory_rate=RateLimit(per_minute=6, burst=3))
    rates = RateLimits.from_config(section)
    assert rates.in_process and rates.memory is not None
    assert [rates.memory.take("a") is None for _ in range(4)] == [True, True, True, False]
    retry = rates.memory.take("a")
    assert retry is not None and 1 <= retry <= 30
    assert rates.memory.take("b") is None  # another key, another budget


def test_route_rates_apply_per_route(tmp_path: Path) -> None:
    # one token a minute: no refill between the three writes, however slow the machine
    limits = {"route_rates": {"write": {"per_minute": 1, "burst": 2}}}
    with running_gateway(tmp_path, mcp=False, limits=limits) as gw:
        alice = gw.user_token()
        codes = [gw.post("/v1/facts", alice, fact(f"n{i}")).status_code for i in range(3)]
        assert codes == [201, 201, 429]
        assert gw.post("/v1/search", alice, {"query": "n"}).status_code == 200  # other route
        assert gw.post("/v1/facts", gw.user_token("bob"), fact("b")).status_code == 201


def test_token_endpoint_429_carries_retry_after(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False,
                         limits={"token_rate": {"per_minute": 1, "burst": 1}}) as gw:
        def exchange() -> httpx.Response:
            now = int(time.time())
            return httpx.post(f"{gw.base}/token", timeout=10, data={
                "grant_type": TOKEN_EXCHANGE, "client_assertion_type": JWT_BEARER,
                "client_assertion": gw.planner.assertion(gw.stack.config.token_endpoint, now),
                "subject_token": gw.user_token(),
                "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
                "audience": gw.resource, "scope": "memory:read"})

        assert exchange().status_code == 200
        limited = exchange()
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        assert limited.json()["error"] == "temporarily_unavailable"
        assert limited.headers["cache-control"] == "no-store"


def _closed_port_redis() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there


def test_a_storage_that_is_down_fails_closed_and_is_audited(tmp_path: Path) -> None:
    limits = {"storage": _closed_port_redis(), "storage_timeout": 0.2}
    with running_gateway(tmp_path, mcp=False, limits=limits) as gw:
        r = gw.post("/v1/search", gw.user_token(), {"query": "x"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "limits.unavailable"
        assert r.headers["retry-after"] == "1"
        denies = gw.stack.guard.ledger.events(decision="deny")
        assert [e.reason for e in denies if e.reason == "limits.unavailable"] == [
            "limits.unavailable"]  # one event for the one refusal
        # the token endpoint fails closed too
        now = int(time.time())
        token = httpx.post(f"{gw.base}/token", timeout=10, data={
            "grant_type": TOKEN_EXCHANGE, "client_assertion_type": JWT_BEARER,
            "client_assertion": gw.planner.assertion(gw.stack.config.token_endpoint, now),
            "subject_token": gw.user_token(),
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "audience": gw.resource, "scope": "memory:read"})
        assert token.status_code == 503 and token.json()["error"] == "temporarily_unavailable"


def test_a_storage_that_is_down_can_be_configured_to_let_requests_through(tmp_path: Path) -> None:
    limits = {"storage": _closed_port_redis(), "storage_timeout": 0.2,
              "on_storage_error": "allow"}
    with running_gateway(tmp_path, mcp=False, limits=limits) as gw:
        assert gw.post("/v1/search", gw.user_token(), {"query": "x"}).status_code == 200


def test_redis_counts_one_budget_for_every_process(tmp_path: Path) -> None:
    """Two independent limiters (as two workers have) over the same Redis share one budget."""
    require_redis()
    prefix = f"mgtest-{time.time_ns()}"
    section = LimitsSection(storage=REDIS_URL, key_prefix=prefix,
                            memory_rate=RateLimit(per_minute=10, burst=10))
    try:
        first, second = RateLimits.from_config(section), RateLimits.from_config(section)
        assert not first.in_process
        assert first.memory is not None and second.memory is not None
        allowed = [lim.take("alice") is None
                   for _ in range(10) for lim in (first.memory, second.memory)]
        assert allowed.count(True) == 10
    finally:
        drop_redis_prefix(prefix)


def test_configuration_refuses_unknown_routes_and_storages() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="unknown route"):
        LimitsSection(route_rates={"writes": RateLimit(per_minute=1, burst=1)})
    with pytest.raises(ValidationError):
        LimitsSection(storage="memcached://x")
