"""JWKS URL key sources against a real JWKS server on 127.0.0.1: cache, rotation, removal, outage,
unknown-kid floods (bounded fetches), oversized documents and redirects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, Clock
from identity_helpers import AUDIENCE, ISSUER, PRESENTER_AUDIENCE, Env, assert_refused, make_env
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from memguard import ConfigurationError, IdentityError
from memguard.tokens import IdentityVerifier
from memguard.tokens.server import serve_local


@dataclass
class JwksServer:
    """What the JWKS endpoint serves; tests change it between requests."""

    document: Any = None
    status: int = 200
    redirect: str | None = None
    hits: int = 0
    raw: bytes | None = None
    base: str = ""
    log: list[str] = field(default_factory=list)

    def app(self) -> Starlette:
        async def jwks(request: Request) -> Response:
            self.hits += 1
            if self.redirect:
                return RedirectResponse(self.redirect, status_code=302)
            if self.status != 200:
                return Response("down", status_code=self.status)
            if self.raw is not None:
                return Response(self.raw, media_type="application/json")
            return JSONResponse(self.document)

        return Starlette(routes=[Route("/jwks.json", jwks)])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Env, JwksServer]]:
    env = make_env(tmp_path, Clock())
    server = JwksServer(document=env.sts.jwks())
    with serve_local(server.app()) as base:
        server.base = base
        yield env, server


def url_config(env: Env, server: JwksServer, **jwks: Any) -> Any:
    settings = {"lifespan": 300, "cooldown": 30, "max_stale": 600, "timeout": 2.0, **jwks}
    return env.config(
        access_tokens={"audience": AUDIENCE, "issuers": [{
            "issuer": ISSUER, "algorithms": ["EdDSA"], "jwks_url": f"{server.base}/jwks.json"}]},
        jwks=settings,
    )


def source(verifier: IdentityVerifier) -> Any:
    return verifier.access.issuers[ISSUER].keys


def test_cache_serves_many_tokens_with_one_fetch(served: tuple[Env, JwksServer]) -> None:
    env, server = served
    verifier = IdentityVerifier(url_config(env, server), clock=env.clock)
    guard = env.guard(verifier)
    for _ in range(20):
        guard.authenticate(env.user_token())
    assert server.hits == 1 and source(verifier).fetches == 1


def test_unknown_kid_flood_is_bounded(served: tuple[Env, JwksServer]) -> None:
    env, server = served
    verifier = IdentityVerifier(url_config(env, server), clock=env.clock)
    guard = env.guard(verifier)
    guard.authenticate(env.user_token())
    good = env.user_token()
    _head, body, sig = good.split(".")
    import base64

    for i in range(200):
        header = json.dumps({"alg": "EdDSA", "typ": "at+jwt", "kid": f"random-{i}"}).encode()
        forged = base64.urlsafe_b64encode(header).rstrip(b"=").decode() + f".{body}.{sig}"
        with pytest.raises(IdentityError) as info:
            guard.authenticate(forged)
        assert info.value.code == "identity.unknown_key"
        env.clock.advance(0.1)  # 20 s of flood inside one 30 s cooldown
    assert server.hits <= 2, server.hits
    env.clock.advance(30)
    assert_refused(guard, forged, "identity.unknown_key")
    assert server.hits <= 3


def test_rotation_is_picked_up_on_unknown_kid(served: tuple[Env, JwksServer]) -> None:
    env, server = served
    verifier = IdentityVerifier(url_config(env, server, cooldown=5), clock=env.clock)
    guard = env.guard(verifier)
    old = env.user_token()
    guard.authenticate(old)
    env.clock.advance(10)
    env.sts.access_keys.rotate()
    server.document = env.sts.jwks()
    new = env.user_token()
    assert guard.authenticate(new)  # unknown kid -> one refetch -> found
    assert guard.authenticate(old)  # retired key still published
    assert server.hits == 2


def test_removed_key_stops_verifying_after_lifespan(served: tuple[Env, JwksServer]) -> None:
    env, server = served
    verifier = IdentityVerifier(url_config(env, server, lifespan=60), clock=env.clock)
    guard = env.guard(verifier)
    token = env.user_token(ttl=900)
    guard.authenticate(token)
    env.sts.access_keys.rotate()
    server.document = {"keys": [k for k in env.sts.jwks()["keys"]
                                if k["kid"] == env.sts.access_keys.active_kid]}
    env.clock.advance(61)
    assert_refused(guard, token, "identity.unknown_key")


def test_outage_uses_stale_keys_within_grace_only(served: tuple[Env, JwksServer]) -> None:
    env, server = served
    verifier = IdentityVerifier(url_config(env, server, lifespan=60, max_stale=120), clock=env.clock)
    guard = env.guard(verifier)
    guard.authenticate(env.user_token())
    server.status = 503
    env.clock.advance(100)  # past lifespan, inside grace
    assert guard.authenticate(env.user_token())
    env.clock.advance(100)  # 200 s > 60 + 120
    assert_refused(guard, env.user_token(), "identity.jwks_unavailable")
    hits = server.hits
    for _ in range(50):
        with pytest.raises(IdentityError):
            guard.authenticate(env.user_token())
    assert server.hits == hits  # the cooldown bounds fetches during an outage too
    server.status = 200
    env.clock.advance(31)
    assert guard.authenticate(env.user_token())


def test_server_never_reachable(tmp_path: Path) -> None:
    env = make_env(tmp_path, Clock())
    server = JwksServer()
    with serve_local(server.app()) as base:
        server.base = base
    cfg = url_config(env, server)  # the server is gone: connection refused
    guard = env.guard(IdentityVerifier(cfg, clock=env.clock))
    assert_refused(guard, env.user_token(), "identity.jwks_unavailable")


@pytest.mark.parametrize(
    "setup",
    ["oversized", "not-json", "duplicate-keys", "not-object", "redirect", "private-key-only"],
)
def test_bad_jwks_documents(served: tuple[Env, JwksServer], setup: str) -> None:
    env, server = served
    doc = env.sts.jwks()
    if setup == "oversized":
        server.raw = json.dumps({"keys": doc["keys"], "pad": "x" * 70_000}).encode()
    elif setup == "not-json":
        server.raw = b"<html>"
    elif setup == "duplicate-keys":
        server.raw = b'{"keys": [], "keys": ' + json.dumps(doc["keys"]).encode() + b"}"
    elif setup == "not-object":
        server.raw = json.dumps(doc["keys"]).encode()
    elif setup == "redirect":
        server.redirect = "http://127.0.0.1:9/elsewhere"
    else:
        server.document = {"keys": [{**k, "d": "AAAA"} for k in doc["keys"]]}
    guard = env.guard(IdentityVerifier(url_config(env, server), clock=env.clock))
    token = env.user_token()
    with pytest.raises(IdentityError) as info:
        guard.authenticate(token)
    assert info.value.code in {"identity.jwks_unavailable", "identity.unknown_key"}


def test_workload_keys_from_url(served: tuple[Env, JwksServer]) -> None:
    env, server = served
    server.document = env.sts.workload_jwks()
    cfg = env.config(workload_credentials={"audience": PRESENTER_AUDIENCE, "trust_domains": [{
        "trust_domain": "memguard.local", "algorithms": ["EdDSA"],
        "jwks_url": f"{server.base}/jwks.json"}]})
    guard = env.guard(IdentityVerifier(cfg, clock=env.clock))
    identity = guard.authenticate(env.browser_token(), workload_credential=env.svid(BROWSER))
    assert identity.principal.workload_id == BROWSER


def test_jwks_url_must_be_https_or_loopback(env_factory: Any = None) -> None:
    from memguard.tokens.rfc7517 import JwksUrlSource

    with pytest.raises(ConfigurationError):
        JwksUrlSource("http://example.org/jwks.json", frozenset({"EdDSA"}))
    with pytest.raises(ConfigurationError):
        JwksUrlSource("file:///etc/passwd", frozenset({"EdDSA"}))
