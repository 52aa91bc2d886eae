"""The gateway's observability: one access line per request, W3C trace context from the caller
into provenance and spans, and a Prometheus /metrics that scrapes and parses."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog
from gateway_helpers import Gateway, fact, running_gateway
from prometheus_client.parser import text_string_to_metric_families
from telemetry_helpers import in_memory_telemetry

from memguard.gateway.config import LoggingSection
from memguard.gateway.metrics_server import serve_metrics
from memguard.gateway.observability import configure_logging
from memguard.telemetry.metrics import LedgerGauges

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


@pytest.fixture
def gw(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path) as gateway:
        yield gateway


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """The gateway's own logging configuration, writing to a buffer (restored afterwards)."""
    saved = structlog.get_config()
    buffer = io.StringIO()
    from memguard.gateway.config import GatewayConfig

    configure_logging(GatewayConfig(logging=LoggingSection(level="info")))
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(buffer))
    try:
        yield buffer
    finally:
        structlog.configure(**saved)


def _post(gw: Gateway, path: str, token: str, body: object, **headers: str) -> httpx.Response:
    return httpx.post(f"{gw.base}{path}", json=body, timeout=10,
                      headers={**gw.headers(token), **headers})


def _lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]


def _wait_for_access(events: Callable[[], list[dict[str, Any]]], count: int,
                     wait: float = 5.0) -> list[dict[str, Any]]:
    """The access events, once ``count`` are there: a line is written when the request's ASGI call
    returns, which can be just after the client read the response."""
    deadline = time.monotonic() + wait
    while True:
        access = [e for e in events() if e["event"] == "gateway.request"]
        if len(access) >= count or time.monotonic() > deadline:
            return access
        time.sleep(0.02)


def _access_lines(buffer: io.StringIO, count: int, wait: float = 5.0) -> list[dict[str, Any]]:
    return _wait_for_access(lambda: _lines(buffer), count, wait)


def test_every_request_has_exactly_one_access_line(gw: Gateway, json_lines: io.StringIO) -> None:
    alice = gw.user_token("alice")
    bob = gw.user_token("bob")
    calls = [
        lambda: gw.post("/v1/facts", alice, fact("alice's note")),                    # 201 allow
        lambda: gw.post("/v1/search", alice, {"query": "note"}),                      # 200 allow
        lambda: httpx.get(f"{gw.base}/v1/facts/{written}", timeout=10,
                          headers=gw.headers(bob)),                                    # 404 deny
        lambda: gw.post("/v1/search", "not-a-token", {"query": "x"}),                 # 401 deny
        lambda: gw.post("/v1/facts", alice, {"text": 1}),                             # 422 deny
        lambda: httpx.get(f"{gw.base}/healthz", timeout=10),                           # 200 none
        lambda: httpx.get(f"{gw.base}/no/such/path", timeout=10),                      # 404 none
    ]
    written = gw.post("/v1/facts", alice, fact("first")).json()["fact_id"]
    assert len(_access_lines(json_lines, 1)) == 1  # its line is written, then the buffer emptied
    json_lines.truncate(0)
    json_lines.seek(0)
    statuses = [call().status_code for call in calls]
    assert statuses == [201, 200, 404, 401, 422, 200, 404]
    access = _access_lines(json_lines, len(statuses))
    lines = _lines(json_lines)
    assert [a["status"] for a in access] == statuses  # one line per request, in order
    # the kernel's decision lines are folded into the access lines, never a second line
    assert not [line for line in lines if line["event"] == "memguard.decision"]
    by_status = {a["status"]: a for a in access}
    assert by_status[201]["decision"] == "allow" and by_status[201]["action"] == "write"
    assert by_status[201]["route"] == "/v1/facts" and by_status[201]["reason"] == "ok"
    assert by_status[201]["principal"].startswith("sha256:")
    assert by_status[201]["latency_ms"] > 0 and by_status[201]["level"] == "info"
    assert access[2]["decision"] == "deny" and access[2]["reason"] == "not_found"
    assert access[2]["route"] == "/v1/facts/{fact_id}"  # the template, never the id
    assert access[2]["principal"] != by_status[201]["principal"]  # bob is not alice
    assert access[3]["reason"].startswith("identity.") and access[3]["principal"] is None
    assert access[4]["reason"] == "invalid_request.validation" and access[4]["level"] == "warning"
    assert access[5]["decision"] == "none" and access[5]["route"] == "/healthz"
    assert access[6]["route"] == "unmatched"
    assert all(len(a["request_id"]) == 32 for a in access)
    blob = json_lines.getvalue()
    assert "alice's note" not in blob and alice not in blob  # never content, never a token


def test_allows_are_sampled_refusals_never(tmp_path: Path, json_lines: io.StringIO) -> None:
    with running_gateway(tmp_path, logging={"sample_allows": 0.0}) as gw:
        alice = gw.user_token("alice")
        for i in range(5):
            assert gw.post("/v1/facts", alice, fact(f"n{i}")).status_code == 201
        for _ in range(3):
            assert gw.post("/v1/search", "bad", {"query": "x"}).status_code == 401
    access = [x for x in _lines(json_lines) if x["event"] == "gateway.request"]
    assert [a["status"] for a in access] == [401, 401, 401]


def test_request_id_and_trace_context_travel(gw: Gateway) -> None:
    alice = gw.user_token("alice")
    with in_memory_telemetry() as otel, structlog.testing.capture_logs() as logs:
        r = _post(gw, "/v1/facts", alice, fact("traced"),
                  **{"traceparent": TRACEPARENT, "x-request-id": "req-123"})
        assert r.status_code == 201 and r.headers["x-request-id"] == "req-123"
        prov = r.json()["provenance"]
        server = otel.one("POST /v1/facts")
        write = otel.one("create_memory")
        # the caller's trace continues through the gateway into the kernel, and provenance
        assert server.context.trace_id == int(TRACE_ID, 16)
        assert server.parent is not None and server.parent.span_id == int("b7ad6b7169203331", 16)
        assert write.parent is not None and write.parent.span_id == server.context.span_id
        assert prov["turn"]["trace_id"] == TRACE_ID
        assert prov["turn"]["span_id"] == f"{write.context.span_id:016x}"
        assert server.attributes["http.route"] == "/v1/facts"  # type: ignore[index]
        assert server.attributes["http.response.status_code"] == 201  # type: ignore[index]
        # a later read, in another trace, links back to that write
        hits = gw.post("/v1/search", alice, {"query": "traced"}).json()["facts"]
        assert [h["fact_id"] for h in hits] == [r.json()["fact_id"]]
        read = otel.one("search_memory")
        assert [(link.context.trace_id, link.context.span_id) for link in read.links] == [
            (write.context.trace_id, write.context.span_id)]
        access = _wait_for_access(lambda: list(logs), 2)
    assert access[0]["request_id"] == "req-123" and access[0]["trace_id"] == TRACE_ID
    bad = _post(gw, "/v1/search", alice, {"query": "x"}, **{"x-request-id": "bad id!"})
    assert bad.headers["x-request-id"] != "bad id!" and len(bad.headers["x-request-id"]) == 32


def test_without_a_tracer_provider_the_callers_trace_still_reaches_provenance(gw: Gateway) -> None:
    r = _post(gw, "/v1/facts", gw.user_token(), fact("x"), traceparent=TRACEPARENT)
    turn = r.json()["provenance"]["turn"]
    assert (turn["trace_id"], turn["span_id"]) == (TRACE_ID, "b7ad6b7169203331")
    events = [e for e in gw.stack.guard.ledger.events() if e.action == "write"]
    assert events[-1].trace_id == TRACE_ID  # the audit event names the caller's trace


def _scrape(url: str, **kw: Any) -> dict[str, Any]:
    r = httpx.get(url, timeout=10, **kw)
    assert r.status_code == 200, r.text
    return {f.name: f for f in text_string_to_metric_families(r.text)}


def _value(families: dict[str, Any], name: str, **labels: str) -> float:
    return sum(s.value for f in families.values() for s in f.samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def test_metrics_scrape_and_parse(gw: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MG_TEST_METRICS_TOKEN", "s3cret")
    gauges = LedgerGauges(gw.stack.guard.ledger, verify_interval=0)
    server = serve_metrics("127.0.0.1:0", gauges=gauges, token="s3cret")
    try:
        auth = {"Authorization": "Bearer s3cret"}
        assert httpx.get(server.url, timeout=10).status_code == 401  # the token is required
        assert httpx.get(server.url, timeout=10,
                         headers={"Authorization": "Bearer nope"}).status_code == 401
        assert httpx.get(server.url.replace("/metrics", "/other"), timeout=10).status_code == 404
        before = _scrape(server.url, headers=auth)
        alice = gw.user_token("alice")
        web = gw.post("/v1/facts", alice, fact("from the web", kind="web",
                                               uri="https://evil.example/p")).json()
        gw.post("/v1/facts", alice, fact("from alice"))
        gw.post("/v1/search", alice, {"query": "web"})
        gw.post("/v1/facts", alice, fact("x" * (2 << 20)))  # 413 at the edge
        httpx.get(f"{gw.base}/v1/facts/{web['fact_id']}", headers=gw.headers(gw.user_token("bob")),
                  timeout=10)  # 404 for bob
        gw.stack.guard.revoke(None, _domain("evil.example"), reason="bad site", operator="ops")
        gauges.run_verify()
        after = _scrape(server.url, headers=auth)

        def delta(name: str, **labels: str) -> float:
            return _value(after, name, **labels) - _value(before, name, **labels)

        assert delta("memguard_http_requests_total", route="/v1/facts", method="POST",
                     status="201") == 2
        assert delta("memguard_http_requests_total", route="/v1/facts/{fact_id}",
                     status="404") == 1
        assert delta("memguard_decisions_total", action="write", decision="allow") == 2
        assert delta("memguard_denies_total", action="get", reason="not_found") == 1
        # a refusal only the edge saw is counted once, as the edge's decision
        assert delta("memguard_denies_total", action="write", reason="limits.body_too_large") == 1
        assert delta("memguard_writes_total", source_kind="web", trust="untrusted") == 1
        assert delta("memguard_writes_total", source_kind="user_message", trust="user") == 1
        assert delta("memguard_revocations_total") == 1
        assert delta("memguard_quarantined_facts_total") == 1
        assert delta("memguard_http_request_duration_seconds_count", route="/v1/search") == 1
        assert delta("memguard_operation_duration_seconds_count", action="search") == 1
        # ledger-wide gauges, read from the ledger when scraped
        assert _value(after, "memguard_quarantined_facts_current") == 1
        assert _value(after, "memguard_revocations_active") == 1
        assert _value(after, "memguard_ledger_queue_depth") >= 0
        assert _value(after, "memguard_ledger_verify_ok") == 1
    finally:
        server.close()


def _domain(host: str) -> Any:
    from memguard import RevocationSelector

    return RevocationSelector.domain(host)


def test_verify_gauge_fails_closed(gw: Gateway) -> None:
    def broken() -> bool:
        raise RuntimeError("cannot read the log")

    gauges = LedgerGauges(gw.stack.guard.ledger, verify_interval=0, verify=broken)
    assert gauges.run_verify() is False
    assert dict((n, v) for n, _h, v in gauges.samples())["memguard_ledger_verify_ok"] == 0.0


async def test_mcp_meta_traceparent_reaches_provenance(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with running_gateway(tmp_path, mcp=True) as gw:
        headers = gw.headers(gw.user_token())
        async with create_mcp_http_client(headers=headers) as http, streamable_http_client(
            f"{gw.base}/mcp", http_client=http
        ) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            result = await session.call_tool(
                "remember", {"text": "via MCP", "namespace": "n", "session_id": "m",
                             "source_kind": "user_message"},
                meta={"traceparent": TRACEPARENT})
        assert not result.is_error, result.content
        data = result.structured_content or json.loads(result.content[0].text)
        turn = dict(data.get("result", data))["provenance"]["turn"]
        assert (turn["trace_id"], turn["span_id"]) == (TRACE_ID, "b7ad6b7169203331")


def test_the_client_spans_carry_the_trace_into_the_gateway(gw: Gateway) -> None:
    from opentelemetry.trace import SpanKind

    from memguard import Source, SourceKind, Turn
    from memguard.client import MemguardClient

    with in_memory_telemetry() as otel, MemguardClient(gw.base, gw.user_token()) as client:
        out = client.write("client traced", namespace="n", turn=Turn(session_id="s", turn_index=0),
                           source=Source(kind=SourceKind.USER_MESSAGE))
        client.search("client traced")
        calls = [s for s in otel.spans() if s.kind is SpanKind.CLIENT
                 and s.name != "create_memory_store"]  # the store opened on the first write
        assert [s.name for s in calls] == ["create_memory", "search_memory"]
        server = otel.one("POST /v1/facts")
        assert server.parent is not None and server.parent.span_id == calls[0].context.span_id
        (write,) = [s for s in otel.spans("create_memory") if s.kind is SpanKind.INTERNAL]
        assert out.provenance.turn.trace_id == f"{calls[0].context.trace_id:032x}"
        assert out.provenance.turn.span_id == f"{write.context.span_id:016x}"
        assert "gen_ai.memory.query.text" not in (calls[1].attributes or {})
    with in_memory_telemetry(capture_content=True) as otel, MemguardClient(
            gw.base, gw.user_token()) as client:
        client.search("what was traced")
        (call,) = [s for s in otel.spans() if s.kind is SpanKind.CLIENT
                   and s.name == "search_memory"]
        assert call.attributes["gen_ai.memory.query.text"] == "what was traced"  # type: ignore[index]


def test_the_example_dashboard_names_only_series_memguard_exports() -> None:
    import re

    from memguard.telemetry.metrics import GAUGES, SPECS

    dashboard = json.loads((Path(__file__).parent.parent / "docs" / "grafana-dashboard.json")
                           .read_text("utf-8"))
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {m for e in exprs for m in re.findall(r"\bmemguard_[a-z_]+", e)}
    exported = {f"{s.prom}_total" if s.kind == "counter" else f"{s.prom}_bucket"
                for s in SPECS.values()}
    exported |= {name for name, _help in GAUGES}
    assert used and used <= exported, used - exported


def test_routes_are_templates_for_mounted_apps_and_plain_routes(gw: Gateway) -> None:
    with structlog.testing.capture_logs() as logs:
        for path in ("/console/signin", "/docs", "/.well-known/jwks.json", "/nothing/here"):
            httpx.get(f"{gw.base}{path}", timeout=10)
        routes = [e["route"] for e in _wait_for_access(lambda: list(logs), 4)]
    assert routes[0] == "/console/{path}"
    assert routes[1] == "/docs" and routes[2] == "/.well-known/jwks.json"
    assert routes[3] == "unmatched"
