"""The token endpoint's route, its RFC 8414 ``token_endpoint`` and the audience of client assertions
are one URL, ``/token`` at the resource's origin, in every configuration (issue 21 follow-up).

A real gateway on 127.0.0.1 per configuration; the client discovers the authorization server the
way an MCP client does (RFC 9728 -> RFC 8414 3.1) and signs its ``private_key_jwt`` assertion for
the advertised ``token_endpoint``. Any other audience is refused with ``invalid_client`` and a deny
event.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from gateway_helpers import SCOPES, TOKEN_EXCHANGE, gateway_config
from helpers import BROWSER, PLANNER
from identity_helpers import Client, make_client
from pydantic import ValidationError

from memguard.gateway.server import free_port, serve_in_thread
from memguard.gateway.stack import GatewayStack, open_stack
from memguard.tokens.client import ClientCredentials, IssuerCredentials, TokenExchangeClient
from memguard.tokens.client import metadata_url as rfc8414_metadata_url
from memguard.tokens.rfc8693 import ACCESS_TOKEN_TYPE
from memguard.tokens.server import metadata_path
from memguard.tokens.sts import SecurityTokenService

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

#: name -> (resource path or None for the default, sts.issuer: None, a path on the gateway, or a URL)
CONFIGS: dict[str, tuple[str | None, str | None]] = {
    "resource without a path": (None, None),
    "resource with a path": ("/mcp", None),
    "explicit issuer with a path": ("/mcp", "/as"),
    "explicit issuer elsewhere": (None, "https://login.example/tenant"),
}


@dataclass
class Running:
    base: str
    stack: GatewayStack
    planner: Client

    @property
    def sts(self) -> SecurityTokenService:
        assert self.stack.sts is not None
        return self.stack.sts


@pytest.fixture(params=sorted(CONFIGS), scope="module")
def gw(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    resource_path, issuer = CONFIGS[request.param]
    tmp = tmp_path_factory.mktemp("gw")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    server: dict[str, Any] = {"host": "127.0.0.1", "port": port}
    if resource_path is not None:
        server["resource"] = origin + resource_path
    over: dict[str, Any] = {"server": server}
    planner, browser = make_client(PLANNER), make_client(BROWSER)
    if issuer is not None:
        over["sts"] = {"issuer": issuer if "://" in issuer else origin + issuer}  # merged
    stack = open_stack(gateway_config(tmp, planner, browser, **over))
    try:
        with serve_in_thread(stack) as base:
            yield Running(base, stack, planner)
    finally:
        stack.close()


def _discover(gw: Running) -> tuple[str, dict[str, Any]]:
    """RFC 9728 then RFC 8414: the issuer from the resource's metadata, then the issuer's metadata
    at the location RFC 8414 3.1 derives from it (on this gateway when the issuer is elsewhere)."""
    prm = httpx.get(f"{gw.base}/.well-known/oauth-protected-resource", timeout=5).json()
    issuer = prm["authorization_servers"][0]
    url = rfc8414_metadata_url(issuer)
    if not url.startswith(gw.base):  # an issuer named elsewhere, served by this gateway
        url = gw.base + metadata_path(issuer)
    r = httpx.get(url, timeout=5)
    assert r.status_code == 200, (url, r.status_code)
    meta = r.json()
    assert meta["issuer"] == issuer  # RFC 8414 3.3
    return issuer, meta


def _post(endpoint: str, assertion: str, subject_token: str, audience: str) -> httpx.Response:
    form = {
        "grant_type": TOKEN_EXCHANGE, "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion, "subject_token": subject_token,
        "subject_token_type": ACCESS_TOKEN_TYPE, "audience": audience, "scope": "memory:read",
    }
    return httpx.post(endpoint, data=form, timeout=10)


def _user(gw: Running) -> str:
    return gw.sts.issue_user_token("alice", scopes=SCOPES)


def test_the_advertised_token_endpoint_is_the_route_at_the_resource_origin(gw: Running) -> None:
    _, meta = _discover(gw)
    resource = gw.stack.resource
    parts = urlsplit(resource)
    assert meta["token_endpoint"] == f"{parts.scheme}://{parts.netloc}/token"
    assert meta["token_endpoint"] == gw.stack.config.token_endpoint == gw.sts.token_endpoint
    assert meta["jwks_uri"] == f"{gw.base}/.well-known/jwks.json"
    assert httpx.get(meta["jwks_uri"], timeout=5).json()["keys"]
    # the route answers at the advertised URL (an OAuth error, not the router's 404/405)
    r = httpx.post(meta["token_endpoint"], data={"grant_type": TOKEN_EXCHANGE}, timeout=5)
    assert r.status_code in (400, 401) and "error" in r.json()


def test_the_challenge_leads_to_the_metadata_and_a_token(gw: Running) -> None:
    """An unauthenticated call's ``resource_metadata`` (RFC 9728 5.1) is served (3.1: the resource's
    path after the well-known one), names this resource (3.3) and leads to the token endpoint."""
    r = httpx.post(f"{gw.base}/v1/search", json={"query": "x", "namespace": "notes"}, timeout=5)
    assert r.status_code == 401
    challenge = r.headers["www-authenticate"]
    url = challenge.split('resource_metadata="', 1)[1].split('"', 1)[0]
    prm = httpx.get(url, timeout=5)
    assert prm.status_code == 200, url
    assert prm.json()["resource"] == gw.stack.resource
    assert prm.json()["authorization_servers"][0] == gw.sts.issuer
    issuer, meta = _discover(gw)
    now = int(time.time())
    token = _post(meta["token_endpoint"], gw.planner.assertion(meta["token_endpoint"], now),
                  _user(gw), gw.stack.resource)
    assert token.status_code == 200, token.text
    assert issuer == gw.sts.issuer


def test_the_metadata_ignores_the_host_header(gw: Running) -> None:
    issuer = gw.sts.issuer
    r = httpx.get(gw.base + metadata_path(issuer), headers={"Host": "evil.example"}, timeout=5)
    assert r.status_code == 200
    assert "evil.example" not in r.text
    assert r.json()["token_endpoint"] == gw.sts.token_endpoint


def test_a_client_following_the_metadata_gets_a_token(gw: Running) -> None:
    issuer, meta = _discover(gw)
    if rfc8414_metadata_url(issuer).startswith(gw.base):
        creds = IssuerCredentials({issuer: ClientCredentials(gw.planner.client_id, gw.planner.pem,
                                                             kid=gw.planner.kid)})
        client = TokenExchangeClient.for_issuer(issuer, creds)  # RFC 8414 discovery, authlib
    else:
        client = TokenExchangeClient(meta["token_endpoint"], gw.planner.client_id, gw.planner.pem,
                                     kid=gw.planner.kid)
    try:
        assert client.token_endpoint == meta["token_endpoint"]
        out = client.exchange(_user(gw), audience=gw.stack.resource, scope="memory:read")
    finally:
        client.close()
    assert out.access_token.count(".") == 2 and out.scope == "memory:read"
    # the same by hand: an assertion whose `aud` is the advertised token_endpoint
    now = int(time.time())
    r = _post(meta["token_endpoint"], gw.planner.assertion(meta["token_endpoint"], now),
              _user(gw), gw.stack.resource)
    assert r.status_code == 200, r.text


def _other_audiences(gw: Running, meta: dict[str, Any]) -> set[str]:
    resource, endpoint = gw.stack.resource, meta["token_endpoint"]
    parts = urlsplit(resource)
    candidates = {
        f"{resource}/token",  # the old `{resource}/token`, different whenever the resource has a path
        resource, f"{parts.scheme}://{parts.netloc}", gw.stack.config.presenter_audience,
        f"{meta['issuer']}/token", f"{endpoint}/", endpoint.upper(), endpoint.replace("http:", "https:"),
        gw.base + metadata_path(meta["issuer"]), meta["jwks_uri"], "",
    }
    return candidates - {endpoint}


def test_an_assertion_for_any_other_audience_is_refused(gw: Running) -> None:
    _, meta = _discover(gw)
    endpoint = meta["token_endpoint"]
    # exactly one audience, the advertised endpoint; plus the issuer's own name (RFC 7523 3), only
    # when the issuer is configured apart from the resource and no other token use has that name
    assert gw.sts.token_audiences - {gw.sts.issuer} == {endpoint}
    if gw.sts.issuer == gw.stack.resource:
        assert gw.sts.token_audiences == {endpoint}
    ledger = gw.stack.guard.ledger
    others = sorted(_other_audiences(gw, meta) - {gw.sts.issuer})
    assert f"{gw.stack.resource}/token" in others or gw.stack.resource == gw.base
    for aud in others:
        before = len(ledger.events(decision="deny", limit=10_000))
        r = _post(endpoint, gw.planner.assertion(aud, int(time.time())), _user(gw), gw.stack.resource)
        assert r.status_code == 401 and r.json()["error"] == "invalid_client", (aud, r.text)
        assert len(ledger.events(decision="deny", limit=10_000)) == before + 1, aud
    # two audiences in one assertion, one of them right: refused too (one audience per token)
    both = gw.planner.assertion(endpoint, int(time.time()), aud=[endpoint, gw.stack.resource])
    r = _post(endpoint, both, _user(gw), gw.stack.resource)
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"


def test_the_metadata_has_rfc8414s_members(gw: Running) -> None:
    """RFC 8414 2 and 3.2 for a server with a token endpoint and no authorization endpoint."""
    _, meta = _discover(gw)
    # REQUIRED: issuer (a URL without query or fragment), token_endpoint (no implicit-only server)
    parts = urlsplit(meta["issuer"])
    assert parts.scheme in ("https", "http") and not parts.query and not parts.fragment
    assert isinstance(meta["token_endpoint"], str)
    # grant_types_supported must be given: omitted it would mean authorization_code and implicit
    grants = set(meta["grant_types_supported"])
    assert grants and not grants & {"authorization_code", "implicit"}
    # no grant here uses an authorization endpoint, so there is none, and no response type:
    # an empty array is not allowed either (3.2: "Claims with zero elements MUST be omitted")
    assert "authorization_endpoint" not in meta and "response_types_supported" not in meta
    assert all(value != [] for value in meta.values())
    assert meta["token_endpoint_auth_methods_supported"] == ["private_key_jwt"]
    assert "none" not in meta["token_endpoint_auth_signing_alg_values_supported"]  # RFC 8414 2
    assert set(meta) <= {  # only registered members (IANA OAuth Authorization Server Metadata)
        "issuer", "token_endpoint", "jwks_uri", "grant_types_supported",
        "token_endpoint_auth_methods_supported", "token_endpoint_auth_signing_alg_values_supported",
        "authorization_grant_profiles_supported",
    }


def test_the_mcp_sdk_model_cannot_parse_it_without_an_authorization_endpoint(gw: Running) -> None:
    """mcp's ``OAuthMetadata`` requires ``authorization_endpoint`` (docs/standards.md): the document
    does not invent one, so the SDK model refuses it, for that member only."""
    from mcp.shared.auth import OAuthMetadata

    _, meta = _discover(gw)
    with pytest.raises(ValidationError) as info:
        OAuthMetadata.model_validate(meta)
    assert [e["loc"] for e in info.value.errors()] == [("authorization_endpoint",)]


def test_the_metadata_is_only_at_the_issuers_rfc8414_location(gw: Running) -> None:
    issuer = gw.sts.issuer
    path = metadata_path(issuer)
    assert httpx.get(gw.base + path, timeout=5).status_code == 200
    if path != "/.well-known/oauth-authorization-server":  # an issuer with a path: not at the bare one
        assert httpx.get(f"{gw.base}/.well-known/oauth-authorization-server",
                         timeout=5).status_code == 404


def test_metadata_path_follows_rfc8414_3_1() -> None:
    assert metadata_path("https://h.example") == "/.well-known/oauth-authorization-server"
    assert metadata_path("https://h.example/") == "/.well-known/oauth-authorization-server"
    assert metadata_path("https://h.example/mcp") == "/.well-known/oauth-authorization-server/mcp"
    assert metadata_path("https://h.example/a/b") == "/.well-known/oauth-authorization-server/a/b"
    assert metadata_path("memguard") == "/.well-known/oauth-authorization-server"


def test_the_default_token_endpoint_is_at_the_origin(tmp_path: Path) -> None:
    planner, browser = make_client(PLANNER), make_client(BROWSER)
    for resource, endpoint in (("https://m.example", "https://m.example/token"),
                               ("https://m.example/mcp", "https://m.example/token"),
                               ("https://m.example:8443/a/b/", "https://m.example:8443/token")):
        cfg = gateway_config(tmp_path, planner, browser, server={"resource": resource})
        assert cfg.token_endpoint == endpoint
