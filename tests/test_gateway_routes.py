"""How the gateway app is assembled (memguard/gateway/app.py over the routes_* modules): every
memory route verifies its caller before anything else it depends on, every route belongs to the
app that serves it (no route object shared between apps, none hidden behind an included router),
and the app reaches its own context."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from gateway_helpers import gateway_config
from helpers import BROWSER, PLANNER
from identity_helpers import make_client
from starlette.testclient import TestClient

from memguard.gateway.app import create_app
from memguard.gateway.context import GatewayContext, caller
from memguard.gateway.route_table import RouteTable
from memguard.gateway.stack import GatewayStack, open_stack

MEMORY_ROUTES = {
    ("POST", "/v1/facts"),
    ("POST", "/v1/facts/batch"),
    ("POST", "/v1/search"),
    ("GET", "/v1/facts"),
    ("GET", "/v1/facts/{fact_id}"),
    ("PUT", "/v1/facts/{fact_id}"),
    ("DELETE", "/v1/facts/{fact_id}"),
    ("GET", "/v1/facts/{fact_id}/audit"),
    ("POST", "/v1/facts/{fact_id}/endorse"),
    ("POST", "/v1/revocations"),
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    tmp = tmp_path_factory.mktemp("routes")
    config = gateway_config(Path(tmp), make_client(PLANNER), make_client(BROWSER))
    s = open_stack(config)
    try:
        yield s
    finally:
        s.close()


def _api_routes(app: FastAPI) -> list[APIRoute]:
    return [r for r in app.routes if isinstance(r, APIRoute)]


def test_every_memory_route_verifies_the_caller_first(stack: GatewayStack) -> None:
    app = create_app(stack, mcp=False)
    memory = {
        (method, r.path): r
        for r in _api_routes(app)
        if r.path.startswith("/v1/")
        for method in r.methods
    }
    assert set(memory) == MEMORY_ROUTES
    for key, route in memory.items():
        # the first dependency FastAPI solves is the caller (token, binding, rate, idempotency),
        # before the context and before the body is validated
        assert route.dependant.dependencies[0].call is caller, key


def test_routes_belong_to_their_app(stack: GatewayStack) -> None:
    one, two = create_app(stack, mcp=False), create_app(stack, mcp=False)
    assert not {id(r) for r in one.routes} & {id(r) for r in two.routes}
    paths = {(m, r.path) for r in _api_routes(one) for m in r.methods}
    assert MEMORY_ROUTES <= paths  # directly in app.routes, not behind an included router
    for route in _api_routes(one):
        assert route.dependency_overrides_provider is one, route.path


def test_the_app_reaches_its_own_context(stack: GatewayStack) -> None:
    app = create_app(stack, mcp=False)
    ctx = app.state.gateway
    assert isinstance(ctx, GatewayContext) and ctx.stack is stack
    assert create_app(stack, mcp=False).state.gateway is not ctx
    with TestClient(app) as client:
        res = client.get("/.well-known/oauth-protected-resource")
        assert res.status_code == 200 and res.json()["resource"] == stack.resource
        # no credentials: refused by the caller dependency, with the resource's challenge
        res = client.get("/v1/facts")
        assert res.status_code == 401
        assert "resource_metadata=" in res.headers["WWW-Authenticate"]


def test_a_route_table_adds_its_routes_in_order_to_each_app() -> None:
    table = RouteTable()

    async def first() -> dict[str, str]:
        return {}

    async def second() -> dict[str, str]:
        return {}

    assert table.get("/b", summary="b")(first) is first
    table.post("/a", status_code=201)(second)
    apps = FastAPI(), FastAPI()
    for app in apps:
        table.add_to(app)
    mine = [_api_routes(app) for app in apps]
    assert [(r.path, r.methods, r.name) for r in mine[0]] == [
        ("/b", {"GET"}, "first"),
        ("/a", {"POST"}, "second"),
    ]
    assert mine[0][1].status_code == 201 and mine[0][0].summary == "b"
    assert mine[0][0] is not mine[1][0]
