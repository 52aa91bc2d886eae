"""MCP revision 2026-07-28 next to the handshake revisions, on the gateway's one ``/mcp`` endpoint
(loopback HTTP, real tokens): the SDK's client in both eras, raw JSON-RPC for the stateless one
(no ``initialize``, no ``Mcp-Session-Id``), per-request authentication, and the ``_meta``
``traceparent`` as the parent of the decision span."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, running_gateway
from helpers import BROWSER, PLANNER
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from telemetry_helpers import in_memory_telemetry

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MODERN = "2026-07-28"
TRACE = "0af7651916cd43dd8448eb211c80319c"
SPAN = "b7ad6b7169203331"
TRACEPARENT = f"00-{TRACE}-{SPAN}-01"


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with running_gateway(tmp_path_factory.mktemp("mcp-stateless"), mcp=True) as gateway:
        yield gateway


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return dict(data.get("result", data))
    return dict(json.loads(result.content[0].text))


async def _sdk_calls(gw: Gateway, era: str, headers: dict[str, str],
                     steps: list[tuple[str, dict[str, Any]]]) -> tuple[str, list[Any]]:
    out: list[Any] = []
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(f"{gw.base}/mcp", http_client=http)
        if era == "legacy":
            async with transport as streams, ClientSession(streams[0], streams[1]) as session:
                init = await session.initialize()
                for name, args in steps:
                    out.append(await session.call_tool(name, args))
                return str(init.protocol_version), out
        async with Client(transport, mode=MODERN, cache=None) as client:
            for name, args in steps:
                out.append(await client.call_tool(name, args))
            return client.protocol_version, out


@pytest.mark.parametrize("era", ["legacy", MODERN])
async def test_the_sdk_client_works_in_both_revisions(gw: Gateway, era: str) -> None:
    tokens = gw.chain(f"eve-{era}")
    headers = gw.headers(tokens["browser"], gw.svid(BROWSER))
    version, (wrote, recalled) = await _sdk_calls(gw, era, headers, [
        ("remember", {"text": f"the {era} client stored this", "namespace": "web",
                      "session_id": "s", "source_kind": "web", "source_uri": "https://a.example/"}),
        ("recall", {"query": f"what did the {era} client store", "k": 3}),
    ])
    assert version == (MODERN if era == MODERN else "2025-11-25")
    fact = _data(wrote)
    assert fact["provenance"]["writer"]["chain"] == [f"eve-{era}", PLANNER, BROWSER]
    assert [f["fact_id"] for f in _data(recalled)["facts"]] == [fact["fact_id"]]


def _rpc(gw: Gateway, method: str, params: dict[str, Any], headers: dict[str, str], *,
         version: str | None = MODERN, meta: dict[str, Any] | None = None,
         name: str | None = None, rid: int = 1) -> httpx.Response:
    body_meta: dict[str, Any] = dict(meta or {})
    if version is not None:
        body_meta.setdefault("io.modelcontextprotocol/protocolVersion", version)
        body_meta.setdefault("io.modelcontextprotocol/clientCapabilities", {})
    h = {**headers, "accept": "application/json, text/event-stream", "Mcp-Method": method}
    if version is not None:
        h["MCP-Protocol-Version"] = version
    if name is not None:
        h["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": body_meta}}
    return httpx.post(f"{gw.base}/mcp", json=body, headers=h, timeout=30)


def _call(gw: Gateway, headers: dict[str, str], tool: str, args: dict[str, Any],
          **kw: Any) -> httpx.Response:
    return _rpc(gw, "tools/call", {"name": tool, "arguments": args}, headers, name=tool, **kw)


def _tool_result(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert not result.get("isError"), result
    data = result.get("structuredContent") or json.loads(result["content"][0]["text"])
    return dict(data.get("result", data))


def test_stateless_requests_need_no_initialize_and_get_no_session(gw: Gateway) -> None:
    alice = gw.headers(gw.user_token("stella"))
    found = _rpc(gw, "server/discover", {}, alice)
    assert found.status_code == 200, found.text
    assert MODERN in found.json()["result"]["supportedVersions"]
    assert "mcp-session-id" not in found.headers
    tools = _rpc(gw, "tools/list", {}, alice, rid=2).json()["result"]["tools"]
    assert {"remember", "recall", "forget", "audit"} <= {t["name"] for t in tools}
    # first contact is a tool call: no handshake before it, no session after it
    r = _call(gw, alice, "remember", {"text": "stella keeps bees", "namespace": "n",
                                      "session_id": "s1", "source_kind": "user_message"})
    fact = _tool_result(r)
    assert "mcp-session-id" not in r.headers
    assert fact["provenance"]["writer"]["chain"] == ["stella"]
    hits = _tool_result(_call(gw, alice, "recall", {"query": "who keeps bees"}))["facts"]
    assert [h["fact_id"] for h in hits] == [fact["fact_id"]]
    # a session id from somewhere else changes nothing: each request is authenticated alone
    other = gw.headers(gw.user_token("otto"))
    r = _call(gw, {**other, "Mcp-Session-Id": "not-a-session"}, "recall", {"query": "bees"})
    assert _tool_result(r)["facts"] == []


def test_stateless_requests_are_refused_like_handshake_ones(gw: Gateway) -> None:
    args = {"query": "anything"}
    r = _call(gw, {}, "recall", args)
    assert r.status_code == 401
    assert f'resource_metadata="{gw.base}/.well-known/oauth-protected-resource"' in r.headers[
        "www-authenticate"]
    other = gw.user_token(audience="https://another-resource.example")
    assert _call(gw, gw.headers(other), "recall", args).status_code == 401
    # a delegated token without its workload credential (presenter binding)
    assert _call(gw, gw.headers(gw.chain("pia")["browser"]), "recall", args).status_code == 401
    ok = gw.headers(gw.user_token("pia"))
    # a revision the server does not speak: -32022 naming the ones it does
    r = _call(gw, ok, "recall", args, version="2099-01-01")
    err = r.json()["error"]
    assert err["code"] == -32022 and MODERN in err["data"]["supported"]
    # the required `_meta` members missing: invalid params, nothing runs
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "recall", "arguments": args}}
    r = httpx.post(f"{gw.base}/mcp", json=body, timeout=30, headers={
        **ok, "accept": "application/json, text/event-stream", "Mcp-Method": "tools/call",
        "Mcp-Name": "recall", "MCP-Protocol-Version": MODERN})
    assert r.json()["error"]["code"] == -32602
    # the scope check runs per request too
    read_only = gw.headers(gw.user_token("pia", scopes=("memory:read",)))
    r = _call(gw, read_only, "remember", {"text": "x", "namespace": "n", "session_id": "s"})
    assert r.json()["result"]["isError"] and "memory:write" in r.text


def test_meta_traceparent_is_the_parent_of_the_decision_span(gw: Gateway) -> None:
    alice = gw.headers(gw.user_token("tara"))
    with in_memory_telemetry() as otel:
        fact = _tool_result(_call(gw, alice, "remember", {
            "text": "tara's traced note", "namespace": "n", "session_id": "t",
            "source_kind": "user_message"}, meta={"traceparent": TRACEPARENT}))
        write = otel.one("create_memory")
        assert write.context.trace_id == int(TRACE, 16)
        assert write.parent is not None and write.parent.span_id == int(SPAN, 16)
        turn = fact["provenance"]["turn"]
        assert (turn["trace_id"], turn["span_id"]) == (TRACE, f"{write.context.span_id:016x}")
        _tool_result(_call(gw, alice, "recall", {"query": "traced note"},
                           meta={"traceparent": TRACEPARENT}))
        read = otel.one("search_memory")
        assert read.parent is not None and read.parent.span_id == int(SPAN, 16)
        assert read.context.trace_id == int(TRACE, 16)
    reads = [e for e in gw.stack.guard.ledger.events(decision="allow")
             if e.action == "search" and (e.principal or {}).get("subject") == "tara"]
    assert reads and reads[-1].trace_id == TRACE


def test_protected_resource_metadata_names_the_issuer_exactly(gw: Gateway) -> None:
    """RFC 9728 3 / RFC 8414 3.3: the authorization server a client is sent to is named by its
    issuer identifier, byte for byte what its metadata says (the mix-up defence RFC 9207 builds
    on). The gateway's authorization server has no authorization endpoint, so it issues no
    authorization responses and advertises no ``iss`` parameter support."""
    prm = httpx.get(f"{gw.base}/.well-known/oauth-protected-resource", timeout=10).json()
    asm = httpx.get(f"{gw.base}/.well-known/oauth-authorization-server", timeout=10).json()
    assert prm["resource"] == gw.resource
    assert prm["authorization_servers"] == [asm["issuer"]]
    assert "authorization_endpoint" not in asm
    assert "authorization_response_iss_parameter_supported" not in asm
