"""redteam32: after the gateway's split into routes_*.py / context.py, every memory route still
refuses a token without its operation's scope (403 ``insufficient_scope``, naming the scope it
needs) and that refusal is in the ledger as a deny event of the route's action; a request with no
token is a 401 before anything else runs, for every route, and neither reaches the guard.

What would fail: a route that lost its ``ctx.need`` (a 2xx/404 instead of the 403), one that
checks another scope (a read route needing ``memory:write`` or the reverse), a refusal no longer
audited, or a route that answers before verifying the caller.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from gateway_helpers import fact, gateway_config
from helpers import BROWSER, PLANNER
from identity_helpers import make_client
from starlette.testclient import TestClient

from memguard.gateway.app import create_app
from memguard.gateway.stack import GatewayStack, open_stack

FID = "0190f1a2-0000-7000-8000-000000000001"
#: route -> (the scope it needs, the action its refusal is audited as, a valid request body)
ROUTES: dict[tuple[str, str], tuple[str, str, Any]] = {
    ("POST", "/v1/facts"): ("memory:write", "write", fact("x")),
    ("POST", "/v1/facts/batch"): ("memory:write", "write", {"facts": [fact("x")]}),
    ("POST", "/v1/search"): ("memory:read", "search", {"query": "x"}),
    ("GET", "/v1/facts"): ("memory:read", "list", None),
    ("GET", "/v1/facts/{fact_id}"): ("memory:read", "get", None),
    ("PUT", "/v1/facts/{fact_id}"): ("memory:write", "update", {
        "text": "y", "source": {"kind": "user_message"},
        "turn": {"session_id": "s-1", "turn_index": 1}}),
    ("DELETE", "/v1/facts/{fact_id}"): ("memory:write", "delete", None),
    ("GET", "/v1/facts/{fact_id}/audit"): ("memory:read", "audit", None),
    ("POST", "/v1/facts/{fact_id}/endorse"): ("memory:endorse", "endorse", {"reason": "ok"}),
    ("POST", "/v1/revocations"): ("memory:revoke", "revoke", {
        "selector": {"kind": "domain", "value": "evil.example"}, "reason": "bad"}),
}
ALL = ("memory:read", "memory:write", "memory:revoke", "memory:endorse")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    tmp = tmp_path_factory.mktemp("rt32gw")
    s = open_stack(gateway_config(Path(tmp), make_client(PLANNER), make_client(BROWSER)))
    try:
        yield s
    finally:
        s.close()


def _call(client: TestClient, method: str, path: str, token: str | None, body: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if method in ("POST", "PUT"):
        headers["Idempotency-Key"] = f"rt32-{method}-{path}-{token is None}-{len(headers)}"
    url = path.replace("{fact_id}", FID)
    return client.request(method, url, headers=headers, json=body)


def _denials(stack: GatewayStack) -> list[tuple[str, str, Any]]:
    return [(e.action, e.reason, e.detail.get("required"))
            for e in stack.guard.ledger.events(decision="deny", limit=100_000)]  # fmt: skip


def test_the_table_covers_every_memory_route(stack: GatewayStack) -> None:
    app = create_app(stack, mcp=False)
    served = {(m, r.path) for r in app.routes if isinstance(r, APIRoute)
              if r.path.startswith("/v1/") for m in r.methods}  # fmt: skip
    assert served == set(ROUTES)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_token_without_the_routes_scope_is_refused_and_audited(
    stack: GatewayStack, route: tuple[str, str]
) -> None:
    needed, action, body = ROUTES[route]
    sts = stack.sts
    assert sts is not None
    token = sts.issue_user_token("mallory", scopes=[s for s in ALL if s != needed])
    before = Counter(_denials(stack))
    with TestClient(create_app(stack, mcp=False)) as client:
        r = _call(client, *route, token, body)
    assert r.status_code == 403, (route, r.status_code, r.text)
    assert f'scope="{needed}"' in r.headers["www-authenticate"]
    added = Counter(_denials(stack)) - before
    assert added == Counter({(action, "access_denied.insufficient_scope", needed): 1})


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_no_token_is_a_401_before_anything_runs(stack: GatewayStack, route: tuple[str, str]) -> None:
    _, _, body = ROUTES[route]
    before = Counter((e.action, e.decision.value) for e in stack.guard.ledger.events(limit=100_000))
    with TestClient(create_app(stack, mcp=False)) as client:
        r = _call(client, *route, None, body)
        garbage = _call(client, *route, None, {"not": "a valid body"} if body else None)
    assert r.status_code == 401 and garbage.status_code == 401, (route, r.text, garbage.text)
    assert "resource_metadata=" in r.headers["WWW-Authenticate"]
    # nothing reached the guard: no allowed operation logged (a refusal of identity may be)
    added = Counter((e.action, e.decision.value)
                    for e in stack.guard.ledger.events(limit=100_000)) - before  # fmt: skip
    assert all(decision != "allow" for _, decision in added), added
