"""MCP trace context from `_meta` (MCP 2026-07-28): the W3C `traceparent` a client puts in a tool
call's `_meta` becomes the trace of the fact's provenance and of the read's audit event; an
invalid one is ignored. Through the MCP SDK's own client, over loopback HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from gateway_helpers import Gateway, running_gateway
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with running_gateway(tmp_path_factory.mktemp("mcp-meta"), mcp=True) as gateway:
        yield gateway


async def call(gw: Gateway, token: str, name: str, args: dict[str, Any],
               meta: dict[str, Any] | None) -> dict[str, Any]:
    async with create_mcp_http_client(headers=gw.headers(token)) as http, streamable_http_client(
        f"{gw.base}/mcp", http_client=http
    ) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        result = await session.call_tool(name, args, meta=meta)  # type: ignore[arg-type]
    assert not result.is_error, result.content
    data = result.structured_content
    return dict(data.get("result", data)) if data is not None else dict(
        json.loads(result.content[0].text))


async def test_traceparent_in_meta_is_recorded_with_the_write_and_the_read(gw: Gateway) -> None:
    token = gw.user_token("tess")
    traceparent = f"00-{TRACE}-{SPAN}-01"
    written = await call(gw, token, "remember", {
        "text": "tess prefers window seats", "namespace": "notes", "session_id": "m-1",
        "source_kind": "user_message"}, {"traceparent": traceparent})
    turn = written["provenance"]["turn"]
    assert (turn["trace_id"], turn["span_id"]) == (TRACE, SPAN)
    await call(gw, token, "recall", {"query": "window seats"}, {"traceparent": traceparent})
    reads = [e for e in gw.stack.guard.ledger.events(decision="allow")
             if e.action == "search" and (e.principal or {}).get("subject") == "tess"]
    assert reads and reads[-1].trace_id == TRACE


@pytest.mark.parametrize("bad", [
    "not-a-traceparent", f"00-{'0' * 32}-{SPAN}-01", f"00-{TRACE.upper()}-{SPAN}-01", 42,
])
async def test_an_invalid_traceparent_is_ignored(gw: Gateway, bad: object) -> None:
    token = gw.user_token("uma")
    written = await call(gw, token, "remember", {
        "text": "uma's note", "namespace": "notes", "session_id": "m-2",
        "source_kind": "user_message"}, {"traceparent": bad})
    assert written["provenance"]["turn"]["trace_id"] is None
