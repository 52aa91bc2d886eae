"""Every refusal on every route of the gateway and MCP writes exactly one deny event (issue 12).

Routes x refusal kinds, over real HTTP on 127.0.0.1: each refused request must leave exactly one
new deny event in the ledger, with the expected reason code, never the token (a digest only), and
the event must be there when the client has the answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import SCOPES, Gateway, fact, running_gateway
from helpers import BROWSER, PLANNER

TIMEOUT = 10
GARBAGE = "not.a.jwt"
LONE_SURROGATE = '{"text": "x", "namespace": "n\\ud800", "source": {"kind": "user_message"}, ' \
    '"turn": {"session_id": "s", "turn_index": 0}}'


@dataclass
class World:
    gw: Gateway
    strict: Gateway
    fact_id: str
    tokens: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("refusals")
    with running_gateway(tmp / "a", limits={"max_body_bytes": 4096}) as gw, running_gateway(
        tmp / "b", limits={"memory_rate": {"per_minute": 1, "burst": 1}}
    ) as strict:
        alice = gw.user_token("alice")
        r = httpx.post(f"{gw.base}/v1/facts", json=fact("alice's fact"), headers=gw.headers(alice),
                       timeout=TIMEOUT)
        assert r.status_code == 201, r.text
        w = World(gw, strict, r.json()["fact_id"])
        w.tokens = {"alice": alice,
                    "bob": gw.user_token("bob", scopes=(*SCOPES, "memory:endorse", "memory:revoke")),
                    "noscope": gw.user_token("carol", scopes=()),
                    "planner": gw.chain("alice")["planner"]}
        yield w


ROUTES: list[tuple[str, str, str, Callable[[str], Any]]] = [
    ("write", "POST", "/v1/facts", lambda fid: fact("x")),
    ("batch", "POST", "/v1/facts/batch", lambda fid: {"facts": [fact("x")]}),
    ("search", "POST", "/v1/search", lambda fid: {"query": "x"}),
    ("list", "GET", "/v1/facts", lambda fid: None),
    ("get", "GET", "/v1/facts/{id}", lambda fid: None),
    ("update", "PUT", "/v1/facts/{id}", lambda fid: {k: v for k, v in fact("y").items()
                                                     if k != "namespace"}),
    ("delete", "DELETE", "/v1/facts/{id}", lambda fid: None),
    ("audit", "GET", "/v1/facts/{id}/audit", lambda fid: None),
    ("endorse", "POST", "/v1/facts/{id}/endorse", lambda fid: {"reason": "checked"}),
    ("revoke", "POST", "/v1/revocations",
     lambda fid: {"selector": {"kind": "fact", "value": fid}, "reason": "bad"}),
]
ID_ROUTES = {"get", "update", "delete", "audit", "endorse"}
BODY_ROUTES = {"write", "batch", "search", "update", "endorse", "revoke"}


@dataclass
class Req:
    method: str
    url: str
    headers: list[tuple[str, str]]
    content: bytes | None = None

    def send(self) -> httpx.Response:
        return httpx.request(self.method, self.url, headers=self.headers, content=self.content,
                             timeout=TIMEOUT)


def _request(w: World, route: str, kind: str) -> tuple[Req, str | None]:
    """The refused request of ``kind`` on ``route``, and the token it carries (if any)."""
    _, method, path, body_of = next(r for r in ROUTES if r[0] == route)
    gw = w.strict if kind == "rate_limited" else w.gw
    fid = w.fact_id if kind != "invalid_path" else "not-a-fact-id"
    url = gw.base + path.replace("{id}", fid)
    body = body_of(fid)
    token: str | None = w.tokens["alice"]
    headers: list[tuple[str, str]] = []
    content = json.dumps(body).encode() if body is not None else None
    if content is not None:
        headers.append(("content-type", "application/json"))
    if kind == "no_token":
        token = None
    elif kind == "garbage_token":
        token = GARBAGE
    elif kind == "oversize_token":
        token = "a" * 9000
    elif kind == "no_scope":
        token = w.tokens["noscope"]
    elif kind == "out_of_scope":
        token = w.tokens["bob"]
        if route == "revoke":
            content = json.dumps({"selector": {"kind": "subject", "value": "alice",
                                               "issuer": w.gw.sts.issuer}, "reason": "x"}).encode()
    elif kind == "query_token":
        url += f"?access_token={token}"
    elif kind == "form_body":
        headers = [("content-type", "application/x-www-form-urlencoded")]
        content = b"a=b"
    elif kind == "not_json":
        headers = [("content-type", "text/plain")]
    elif kind == "too_large":
        content = json.dumps({"text": "x" * 5000}).encode()
    elif kind == "invalid_body":
        content = b'{"bogus": 1}'
    elif kind == "fullwidth_namespace":
        one = json.dumps(fact("x", namespace="\uff4eotes"))
        content = (one if route == "write" else '{"facts": [' + one + "]}").encode()
    elif kind.startswith("lone_surrogate"):
        one = LONE_SURROGATE if kind == "lone_surrogate" else LONE_SURROGATE.replace(
            '"namespace": "n\\ud800"', '"namespace": "n", "metadata": {"k": "v\\udfff"}')
        assert one != LONE_SURROGATE or kind == "lone_surrogate"
        content = (one if route == "write" else '{"facts": [' + one + "]}").encode()
    elif kind == "presenter_mismatch":
        token = w.tokens["planner"]
        headers.append(("workload-identity-token", w.gw.svid(BROWSER)))
    elif kind == "two_workload_headers":
        svid = w.gw.svid(PLANNER)
        headers += [("workload-identity-token", svid), ("workload-identity-token", svid)]
    elif kind == "rate_limited":
        token = w.strict.user_token(f"rate-{route}")
    if token is not None:
        headers.append(("authorization", f"Bearer {token}"))
    if kind == "two_authorization":
        headers.append(("authorization", f"Bearer {token}"))
    if kind == "invalid_query":
        url += "?limit=0"
    return Req(method, url, headers, content), token


# (kind, which routes, status, reason)
KINDS: list[tuple[str, Callable[[str], bool], int, str]] = [
    ("no_token", lambda r: True, 401, "bearer.missing"),
    ("garbage_token", lambda r: True, 401, "identity.malformed"),
    ("oversize_token", lambda r: True, 401, "bearer.invalid_token"),
    ("two_authorization", lambda r: True, 400, "bearer.invalid_request"),
    ("two_workload_headers", lambda r: True, 400, "bearer.invalid_request"),
    ("query_token", lambda r: True, 400, "bearer.invalid_request"),
    ("form_body", lambda r: r in BODY_ROUTES, 400, "bearer.invalid_request"),
    ("not_json", lambda r: r in BODY_ROUTES, 415, "invalid_request.media_type"),
    ("too_large", lambda r: r in BODY_ROUTES, 413, "limits.body_too_large"),
    ("invalid_body", lambda r: r in BODY_ROUTES, 422, "invalid_request.validation"),
    ("invalid_path", lambda r: r in ID_ROUTES, 422, "invalid_request.validation"),
    ("invalid_query", lambda r: r == "list", 422, "invalid_request.validation"),
    ("lone_surrogate", lambda r: r in ("write", "batch"), 422, "invalid_request.validation"),
    ("lone_surrogate_metadata", lambda r: r in ("write", "batch"), 400, "invalid_request"),
    ("fullwidth_namespace", lambda r: r in ("write", "batch"), 400, "invalid_request"),
    ("no_scope", lambda r: True, 403, "access_denied.insufficient_scope"),
    ("out_of_scope", lambda r: r in ID_ROUTES, 404, "not_found"),
    ("out_of_scope", lambda r: r == "revoke", 403, "access_denied.selector_reach"),
    ("presenter_mismatch", lambda r: True, 401, "identity.presenter_mismatch"),
    ("rate_limited", lambda r: True, 429, "limits.rate_limited"),
]
CASES = [(route, kind, status, reason) for route, *_ in ROUTES for kind, applies, status, reason
         in KINDS if applies(route)]


def _denies(gw: Gateway) -> dict[str, Any]:
    return {e.event_id: e for e in gw.stack.guard.ledger.events(limit=100_000, decision="deny")}


def assert_one_deny(gw: Gateway, send: Callable[[], httpx.Response], status: int, reason: str,
                    token: str | None) -> httpx.Response:
    before = _denies(gw)
    response = send()
    assert response.status_code == status, response.text
    new = [e for k, e in _denies(gw).items() if k not in before]
    assert [e.reason for e in new] == [reason], [(e.action, e.reason, e.detail) for e in new]
    stored = new[0].canonical().decode()
    if token:
        assert token not in stored
        digest = "sha256:" + hashlib.sha256(token.encode()).hexdigest()
        assert digest in stored or len(token) > 8192  # the digest of what was presented
    return response


@pytest.mark.parametrize(("route", "kind", "status", "reason"), CASES,
                         ids=[f"{r}-{k}" for r, k, _, _ in CASES])
def test_http_refusal_writes_exactly_one_deny_event(
    world: World, route: str, kind: str, status: int, reason: str
) -> None:
    req, token = _request(world, route, kind)
    gw = world.strict if kind == "rate_limited" else world.gw
    if kind == "rate_limited":
        req.send()  # the one request the bucket allows (whatever its outcome)
    assert_one_deny(gw, req.send, status, reason, token)


def test_the_matrix_covers_every_route_and_kind() -> None:
    assert {r for r, *_ in CASES} == {r for r, *_ in ROUTES}
    assert {k for _, k, *_ in CASES} == {k for k, *_ in KINDS}
    assert {s for *_, s, _ in CASES} >= {400, 401, 403, 404, 413, 415, 422, 429}


def test_an_accepted_request_writes_no_deny_event(world: World) -> None:
    before = _denies(world.gw)
    r = httpx.post(f"{world.gw.base}/v1/search", json={"query": "x"},
                   headers=world.gw.headers(world.tokens["alice"]), timeout=TIMEOUT)
    assert r.status_code == 200
    assert _denies(world.gw).keys() == before.keys()


# -- MCP: tool calls are refused with 200 + isError, or 401 before the tool runs ------------------

TOOLS = {
    "remember": lambda fid: {"text": "x", "namespace": "notes", "session_id": "s"},
    "recall": lambda fid: {"query": "x"},
    "forget": lambda fid: {"fact_id": fid},
    "audit": lambda fid: {"fact_id": fid},
}
MCP_KINDS: list[tuple[str, Callable[[str], bool], int, str]] = [
    ("no_token", lambda t: True, 401, "oauth.invalid_token"),
    ("garbage_token", lambda t: True, 401, "identity.malformed"),
    ("presenter_mismatch", lambda t: True, 401, "identity.presenter_mismatch"),
    ("no_scope", lambda t: True, 200, "access_denied.scope"),
    ("out_of_scope", lambda t: t in ("forget", "audit"), 200, "not_found"),
    ("invalid_arguments", lambda t: True, 200, "invalid_request.arguments"),
    ("too_large", lambda t: True, 413, "limits.body_too_large"),
    ("rate_limited", lambda t: True, 200, "limits.rate_limited"),
]
MCP_CASES = [(tool, kind, status, reason) for tool in TOOLS for kind, applies, status, reason
             in MCP_KINDS if applies(tool)]


@pytest.mark.parametrize(("tool", "kind", "status", "reason"), MCP_CASES,
                         ids=[f"{t}-{k}" for t, k, _, _ in MCP_CASES])
def test_mcp_refusal_writes_exactly_one_deny_event(
    world: World, tool: str, kind: str, status: int, reason: str
) -> None:
    gw = world.strict if kind == "rate_limited" else world.gw
    token: str | None = {"no_token": None, "garbage_token": GARBAGE,
                         "no_scope": world.tokens["noscope"], "out_of_scope": world.tokens["bob"],
                         "presenter_mismatch": world.tokens["planner"]}.get(kind, world.tokens["alice"])
    if kind == "rate_limited":
        token = gw.user_token(f"mcp-rate-{tool}")
    arguments = TOOLS[tool](world.fact_id)
    if kind == "invalid_arguments":
        arguments = {"unknown": 1}
    if kind == "too_large":
        arguments = {**arguments, "text": "x" * 5000}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    if kind == "presenter_mismatch":
        headers["workload-identity-token"] = world.gw.svid(BROWSER)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}

    def send() -> httpx.Response:
        return httpx.post(f"{gw.base}/mcp", json=body, headers=headers, timeout=TIMEOUT)

    if kind == "rate_limited":
        send()
    r = assert_one_deny(gw, send, status, reason, token)
    if status == 200:
        assert r.json()["result"]["isError"] is True


# -- the token endpoint -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "status", "reason"),
    [("not_form", 400, "oauth.invalid_request"), ("query_token", 400, "bearer.invalid_request"),
     ("too_large", 413, "limits.body_too_large"), ("bad_client", 401, "invalid_client:")],
)
def test_token_endpoint_refusal_writes_exactly_one_deny_event(
    world: World, kind: str, status: int, reason: str
) -> None:
    gw = world.gw
    url, headers = f"{gw.base}/token", {"content-type": "application/x-www-form-urlencoded"}
    content = b"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
    if kind == "not_form":
        headers = {"content-type": "application/json"}
        content = b"{}"
    elif kind == "query_token":
        url += "?access_token=x"
    elif kind == "too_large":
        content = b"x=" + b"y" * 5000
    else:
        content += b"&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3A" \
            b"jwt-bearer&client_assertion=a.b.c&subject_token=x&subject_token_type=" \
            b"urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token&scope=s&audience=" + \
            gw.resource.encode()
    before = _denies(gw)
    r = httpx.post(url, content=content, headers=headers, timeout=TIMEOUT)
    assert r.status_code == status, r.text
    new = [e for k, e in _denies(gw).items() if k not in before]
    assert len(new) == 1 and new[0].reason.startswith(reason), [(e.action, e.reason) for e in new]


def test_refusal_events_survive_a_ledger_outage_in_the_log(world: World, tmp_path: Path) -> None:
    """The middleware never turns a refusal into a 500 when it cannot record (fail closed)."""
    gw = world.gw
    original = gw.stack.guard.ledger.record

    def down(*a: Any, **k: Any) -> None:
        raise RuntimeError("ledger down")

    gw.stack.guard.ledger.record = down  # type: ignore[method-assign]
    try:
        r = httpx.get(f"{gw.base}/v1/facts", timeout=TIMEOUT)
    finally:
        gw.stack.guard.ledger.record = original  # type: ignore[method-assign]
    assert r.status_code == 401
