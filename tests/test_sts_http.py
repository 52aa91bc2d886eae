"""The STS's HTTP surface on 127.0.0.1: RFC 6749 form handling, error shapes, JWKS publication."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import ISSUER, Env, make_env

from memguard import ConfigurationError
from memguard.tokens import TokenExchangeError
from memguard.tokens.client import TokenExchangeClient
from memguard.tokens.server import create_app, serve_local


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Env, str]]:
    import time

    env = make_env(tmp_path, Clock(time.time()))  # authlib signs assertions with the wall clock
    with serve_local(create_app(env.sts)) as base:
        env.sts.set_token_endpoint(f"{base}/token")
        yield env, base


def post(base: str, body: bytes | str, ctype: str = "application/x-www-form-urlencoded") -> httpx.Response:
    return httpx.post(f"{base}/token", content=body, headers={"content-type": ctype}, timeout=5)


def test_exchange_over_http_with_authlib(live: tuple[Env, str]) -> None:
    env, base = live
    client = TokenExchangeClient(f"{base}/token", PLANNER, env.planner.pem, kid=env.planner.kid)
    out = client.exchange(env.user_token(), audience="memguard", scope="memory:read")
    assert out.issued_token_type == "urn:ietf:params:oauth:token-type:access_token"
    assert out.scope == "memory:read" and 0 < out.expires_in <= 900
    with pytest.raises(TokenExchangeError) as info:
        client.exchange(env.user_token(), audience="memguard", scope="memory:admin")
    assert info.value.error == "invalid_scope"
    with pytest.raises(TokenExchangeError) as info:
        client.exchange(env.user_token(), audience="elsewhere", scope="memory:read")
    assert info.value.error == "invalid_target"
    client.close()


def test_unregistered_key_is_invalid_client_401(live: tuple[Env, str]) -> None:
    env, base = live
    from identity_helpers import make_client

    stranger = make_client(PLANNER)
    client = TokenExchangeClient(f"{base}/token", PLANNER, stranger.pem, kid=env.planner.kid)
    with pytest.raises(TokenExchangeError) as info:
        client.exchange(env.user_token(), audience="memguard", scope="memory:read")
    assert info.value.error == "invalid_client"
    client.close()
    form = env.form(env.planner, env.user_token(), client_assertion=None)
    resp = post(base, urlencode([(k, v) for k, vs in form.items() for v in vs]))
    assert resp.status_code == 401
    assert resp.json() == {"error": "invalid_client", "error_description": "client authentication failed"}
    assert resp.headers["cache-control"] == "no-store"


def test_replayed_assertion_over_http(live: tuple[Env, str]) -> None:
    env, base = live
    form = env.form(env.planner, env.user_token())
    body = urlencode([(k, v) for k, vs in form.items() for v in vs])
    assert post(base, body).status_code == 200
    replay = post(base, body)
    assert replay.status_code == 401 and replay.json()["error"] == "invalid_client"
    assert env.events[-1].reason == "invalid_client:identity.replayed"


@pytest.mark.parametrize(
    ("body", "ctype"),
    [
        (b"grant_type=x", "application/json"),
        (b"a=" + b"x" * 70_000, "application/x-www-form-urlencoded"),
        (b"\xff\xfe=1", "application/x-www-form-urlencoded"),
        (b"&&&", "application/x-www-form-urlencoded"),
    ],
)
def test_malformed_requests(live: tuple[Env, str], body: bytes, ctype: str) -> None:
    _, base = live
    resp = post(base, body, ctype)
    assert resp.status_code == 400 and resp.json()["error"] == "invalid_request"


def test_get_token_endpoint_is_refused(live: tuple[Env, str]) -> None:
    _, base = live
    assert httpx.get(f"{base}/token", timeout=5).status_code == 405


def test_jwks_and_metadata(live: tuple[Env, str]) -> None:
    env, base = live
    jwks = httpx.get(f"{base}/.well-known/jwks.json", timeout=5).json()
    assert jwks == env.sts.jwks()
    assert all("d" not in k for k in jwks["keys"])
    wl = httpx.get(f"{base}/.well-known/workload-jwks.json", timeout=5).json()
    assert {k["kid"] for k in wl["keys"]}.isdisjoint({k["kid"] for k in jwks["keys"]})
    meta = httpx.get(f"{base}/.well-known/oauth-authorization-server", timeout=5).json()
    assert meta["issuer"] == ISSUER and meta["token_endpoint"] == f"{base}/token"


def test_second_hop_over_http(live: tuple[Env, str]) -> None:
    env, base = live
    client = TokenExchangeClient(f"{base}/token", PLANNER, env.planner.pem, kid=env.planner.kid)
    planner = client.exchange(env.user_token(), audience="memguard", scope="memory:read").access_token
    actor = env.sts.issue_workload_credential(BROWSER, use="actor")
    browser = client.exchange(planner, audience="memguard", scope="memory:read", actor_token=actor)
    client.close()
    guard = env.guard()
    identity = guard.authenticate(browser.access_token, workload_credential=env.svid(BROWSER))
    assert [a.subject for a in identity.principal.actors] == [PLANNER, BROWSER]


def test_serve_local_refuses_public_addresses() -> None:
    from starlette.applications import Starlette

    with pytest.raises(ConfigurationError), serve_local(Starlette(), host="0.0.0.0"):
        pass
