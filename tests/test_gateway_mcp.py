"""MCP through the gateway with the ``mcp`` package's own client (streamable HTTP on 127.0.0.1):
remember and recall with provenance, audience binding, no token passthrough."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, running_gateway
from helpers import BROWSER, PLANNER
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@pytest.fixture
def gw(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path, mcp=True) as gateway:
        yield gateway


async def call(gw: Gateway, headers: dict[str, str], steps: list[tuple[str, dict[str, Any]]]
               ) -> list[Any]:
    out: list[Any] = []
    async with create_mcp_http_client(headers=headers) as http, streamable_http_client(
        f"{gw.base}/mcp", http_client=http
    ) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"remember", "recall", "forget", "audit"} <= tools
        for name, args in steps:
            out.append(await session.call_tool(name, args))
    return out


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return dict(data.get("result", data))
    return dict(json.loads(result.content[0].text))


async def test_mcp_session_remembers_and_recalls_with_provenance(gw: Gateway) -> None:
    tokens = gw.chain()
    headers = gw.headers(tokens["browser"], gw.svid(BROWSER))
    remembered, recalled, audited = await call(gw, headers, [
        ("remember", {"text": "The ACME API allows 100 requests per minute.", "namespace": "web",
                      "session_id": "mcp-1", "turn_index": 2, "source_kind": "web",
                      "source_uri": "https://docs.acme.example/limits"}),
        ("recall", {"query": "ACME API rate limit", "k": 3}),
        ("audit", {"fact_id": "00000000-0000-4000-8000-000000000000"}),
    ])
    wrote = payload(remembered)
    assert wrote["provenance"]["writer"]["chain"] == ["alice", PLANNER, BROWSER]
    assert wrote["provenance"]["trust"] == "untrusted"
    facts = payload(recalled)["facts"]
    assert [f["fact_id"] for f in facts] == [wrote["fact_id"]]
    assert facts[0]["summary"].startswith("[trust=untrusted source=web:https://docs.acme.example")
    assert facts[0]["provenance"]["turn"] == {"session_id": "mcp-1", "turn_index": 2,
                                             "trace_id": None, "span_id": None}
    assert audited.is_error and "not_found" in audited.content[0].text
    # the ledger holds the MCP writes like any other, with the full chain; never the token
    record = gw.stack.guard.ledger.latest([wrote["fact_id"]])[wrote["fact_id"]]
    assert [a.subject for a in record.provenance.writer.actors] == [PLANNER, BROWSER]
    events = "".join(e.canonical().decode() for e in gw.stack.guard.ledger.events(limit=10_000))
    assert tokens["browser"] not in events


async def test_mcp_owner_isolation_and_scopes(gw: Gateway) -> None:
    alice = gw.user_token("alice")
    (wrote,) = await call(gw, gw.headers(alice), [
        ("remember", {"text": "alice only", "namespace": "n", "session_id": "s",
                      "source_kind": "user_message"})])
    fact_id = payload(wrote)["fact_id"]
    bob = gw.user_token("bob")
    recalled, forgot = await call(gw, gw.headers(bob), [
        ("recall", {"query": "alice only", "k": 10}), ("forget", {"fact_id": fact_id})])
    assert payload(recalled)["facts"] == []
    assert forgot.is_error and "not_found" in forgot.content[0].text
    read_only = gw.user_token("alice", scopes=("memory:read",))
    (refused,) = await call(gw, gw.headers(read_only), [
        ("remember", {"text": "x", "namespace": "n", "session_id": "s"})])
    assert refused.is_error and "memory:write" in refused.content[0].text
    (forgot,) = await call(gw, gw.headers(alice), [("forget", {"fact_id": fact_id})])
    assert payload(forgot) == {"deleted": fact_id}


async def test_mcp_remember_with_a_ttl_sets_expiry_and_refuses_bad_values(gw: Gateway) -> None:
    alice = gw.user_token("alice")
    before = datetime.now(UTC)
    wrote, *refused = await call(gw, gw.headers(alice), [
        ("remember", {"text": "a code valid for a minute", "namespace": "n", "session_id": "s",
                      "source_kind": "user_message", "ttl_seconds": 60}),
        ("remember", {"text": "x", "namespace": "n", "session_id": "s", "ttl_seconds": 0}),
        ("remember", {"text": "x", "namespace": "n", "session_id": "s", "ttl_seconds": 1.5}),
        ("remember", {"text": "x", "namespace": "n", "session_id": "s", "ttl_seconds": True}),
        ("remember", {"text": "x", "namespace": "n", "session_id": "s",
                      "ttl_seconds": 10**12}),
    ])
    expires = datetime.fromisoformat(payload(wrote)["provenance"]["expires_at"])
    assert before + timedelta(seconds=59) <= expires <= datetime.now(UTC) + timedelta(
        seconds=61)
    record = gw.stack.guard.ledger.latest([payload(wrote)["fact_id"]])[payload(wrote)["fact_id"]]
    assert record.provenance.expires_at == expires
    assert all(r.is_error for r in refused), [r.content for r in refused]
    # nothing was written by the refused calls
    (recalled,) = await call(gw, gw.headers(alice), [("recall", {"query": "x", "k": 10})])
    assert [f["text"] for f in payload(recalled)["facts"]] == ["a code valid for a minute"]


def _initialize(gw: Gateway, headers: dict[str, str]) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    return httpx.post(f"{gw.base}/mcp", json=body, timeout=10, headers={
        **headers, "accept": "application/json, text/event-stream"})


def test_mcp_refuses_other_audiences_and_missing_tokens(gw: Gateway) -> None:
    r = _initialize(gw, {})
    assert r.status_code == 401
    assert f'resource_metadata="{gw.base}/.well-known/oauth-protected-resource"' in r.headers[
        "www-authenticate"]
    other = gw.user_token(audience="https://another-resource.example")
    r = _initialize(gw, gw.headers(other))
    assert r.status_code == 401 and 'error="invalid_token"' in r.headers["www-authenticate"]
    # a delegated token without its workload credential is refused at the door too
    r = _initialize(gw, gw.headers(gw.chain()["browser"]))
    assert r.status_code == 401
    r = _initialize(gw, gw.headers(gw.user_token()))
    assert r.status_code == 200, r.text
    # the token in the URL is refused before MCP sees it
    r = httpx.post(f"{gw.base}/mcp?access_token={gw.user_token()}", json={}, timeout=10)
    assert r.status_code == 400


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


async def test_mcp_client_with_other_audience_fails(gw: Gateway) -> None:
    other = gw.user_token(audience="https://another-resource.example")
    with pytest.raises(BaseExceptionGroup) as info:
        await call(gw, gw.headers(other), [("recall", {"query": "x"})])
    assert [type(e).__name__ for e in _leaves(info.value)] == ["MCPError"]
    reasons = [e.reason for e in gw.stack.guard.ledger.events(decision="deny", limit=100)]
    assert "identity.bad_audience" in reasons  # refused by the guard's audience check, audited


async def test_mcp_over_stdio_uses_the_environments_credentials(tmp_path: Path) -> None:
    """``python -m memguard.gateway --stdio``: the tools over stdin/stdout with the caller's token
    from the environment, verified on every call."""
    import os
    import sys

    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    from memguard.gateway.config import GatewayConfig
    from memguard.gateway.stack import open_stack

    config = {"state_dir": str(tmp_path / "gw"), "server": {"port": 8799}}
    cfg_file = tmp_path / "gateway.yaml"
    cfg_file.write_text(json.dumps(config), "utf-8")
    stack = open_stack(GatewayConfig.from_mapping(config))
    assert stack.sts is not None
    token = stack.sts.issue_user_token("alice", scopes=("memory:read", "memory:write"))
    other = stack.sts.issue_user_token("alice", audience="https://elsewhere.example",
                                       scopes=("memory:read",))
    stack.close()
    base_env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}

    async def session(env_token: str, steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        params = StdioServerParameters(
            command=sys.executable, cwd=str(tmp_path),
            args=["-m", "memguard.gateway", "--config", str(cfg_file), "--stdio"],
            env={**base_env, "MEMGUARD_TOKEN": env_token, "PYTHONWARNINGS": "ignore"})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return [await s.call_tool(name, args) for name, args in steps]

    wrote, recalled = await session(token, [
        ("remember", {"text": "stdio fact", "namespace": "n", "session_id": "s",
                      "source_kind": "user_message"}),
        ("recall", {"query": "stdio fact"})])
    assert payload(wrote)["provenance"]["writer"]["chain"] == ["alice"]
    assert [f["text"] for f in payload(recalled)["facts"]] == ["stdio fact"]
    (refused,) = await session(other, [("recall", {"query": "stdio fact"})])
    assert refused.is_error and "identity" in refused.content[0].text


async def test_mcp_shares_the_per_principal_rate_limit(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=True,
                         limits={"memory_rate": {"per_minute": 6, "burst": 3}}) as gw:
        token = gw.user_token()
        assert gw.post("/v1/search", token, {"query": "x"}).status_code == 200  # 1 of 3
        results = await call(gw, gw.headers(token), [("recall", {"query": "x"})] * 3)
        assert [r.is_error for r in results] == [False, False, True]
        assert "limits.rate_limited" in results[2].content[0].text
        assert gw.post("/v1/search", token, {"query": "x"}).status_code == 429
