"""SPIFFE client authentication at the gateway's token endpoint for federated trust domains
(draft-ietf-oauth-spiffe-client-auth, JWT-SVID): real ES256 JWT-SVIDs of a foreign trust domain,
verified against its SPIFFE bundle, over loopback HTTP."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from gateway_helpers import SCOPES, TOKEN_EXCHANGE, Gateway, running_gateway
from helpers import BROWSER, PLANNER

from memguard.errors import ConfigurationError, IdentityError
from memguard.gateway.config import GatewayConfig
from memguard.gateway.stack import open_stack
from memguard.tokens.rfc7517 import public_jwk
from memguard.tokens.spiffe_client_auth import SpiffeBundleSource, parse_spiffe_bundle

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

JWT_SPIFFE = "urn:ietf:params:oauth:client-assertion-type:jwt-spiffe"
PARTNER = "spiffe://partner.example/agent/researcher"
OTHER = "spiffe://partner.example/agent/not-allowed"
LAX = "spiffe://lax.example/agent/cached"


class Spire:
    """A foreign SPIFFE issuer: a P-256 JWT authority and its trust bundle."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        jwk = {k: v for k, v in public_jwk(self.key).items() if k not in ("alg", "use")}
        x509 = {**public_jwk(ec.generate_private_key(ec.SECP256R1())), "use": "x509-svid"}
        self.bundle = {"keys": [{**jwk, "use": "jwt-svid"}, x509], "spiffe_sequence": 7,
                       "spiffe_refresh_hint": 300}
        self.kid = jwk["kid"]

    def svid(self, spiffe_id: str, audience: str, *, jti: bool = True, ttl: int = 300,
             key: Any = None, **extra: Any) -> str:
        now = int(time.time())
        claims = {"sub": spiffe_id, "aud": [audience], "iat": now, "exp": now + ttl, **extra}
        if jti:
            claims["jti"] = secrets.token_urlsafe(12)
        return jwt.encode(claims, key or self.key, algorithm="ES256",
                          headers={"typ": "JWT", "kid": self.kid})


@pytest.fixture(scope="module")
def spire() -> Spire:
    return Spire()


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory, spire: Spire) -> Iterator[Gateway]:
    grants = [{"actor": a, "on_behalf_of": "user", "scopes": list(SCOPES)}
              for a in (PLANNER, PARTNER, OTHER, LAX)]
    grants.append({"actor": BROWSER, "on_behalf_of": PLANNER, "scopes": list(SCOPES)})
    sts = {"delegation": grants, "spiffe_trust_domains": [
        {"trust_domain": "partner.example", "bundle": spire.bundle, "algorithms": ["ES256"],
         "clients": [PARTNER]},
        {"trust_domain": "lax.example", "bundle": spire.bundle, "algorithms": ["ES256"],
         "require_jti": False},
    ]}
    with running_gateway(tmp_path_factory.mktemp("spiffe"), sts=sts) as g:
        g.stack.sts.spiffe_clients  # noqa: B018  (configured)
        yield g


def endpoint(gw: Gateway) -> str:
    return gw.stack.config.token_endpoint


def exchange(gw: Gateway, svid: str, **over: str) -> httpx.Response:
    form = {"grant_type": TOKEN_EXCHANGE, "client_assertion_type": JWT_SPIFFE,
            "client_assertion": svid, "subject_token": gw.user_token("alice"),
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "audience": gw.resource, "scope": "memory:read", **over}
    return httpx.post(f"{gw.base}/token", data=form, timeout=10)


def refused(r: httpx.Response) -> None:
    assert r.status_code in (400, 401), r.text
    assert r.json()["error"] == "invalid_client", r.text


def test_a_federated_workload_authenticates_with_its_jwt_svid(gw: Gateway, spire: Spire) -> None:
    svid = spire.svid(PARTNER, endpoint(gw))
    r = exchange(gw, svid, client_id=PARTNER)
    assert r.status_code == 200, r.text
    claims = jwt.decode(r.json()["access_token"], options={"verify_signature": False})
    assert claims["client_id"] == PARTNER
    assert claims["act"] == {"sub": PARTNER, "iss": "spiffe://partner.example"}
    # the exchanged token works at the memory resource for the user (a bare token would need
    # the agent's presenter credential; here the check is that it is a valid at+jwt of the STS)
    assert gw.stack.verifier.access.verify(r.json()["access_token"]).principal.client_id == PARTNER
    refused(exchange(gw, svid))  # each jti once


@pytest.mark.parametrize("case", [
    "other_key", "resource_audience", "client_id_mismatch", "not_allowed", "no_jti",
    "unknown_domain", "too_long", "delegating",
])
def test_bad_jwt_svids_are_refused(gw: Gateway, spire: Spire, case: str) -> None:
    aud = endpoint(gw)
    over: dict[str, str] = {}
    if case == "other_key":
        svid = spire.svid(PARTNER, aud, key=ec.generate_private_key(ec.SECP256R1()))
    elif case == "resource_audience":
        svid = spire.svid(PARTNER, gw.resource)  # one audience per token use
    elif case == "client_id_mismatch":
        svid, over = spire.svid(PARTNER, aud), {"client_id": OTHER}
    elif case == "not_allowed":
        svid = spire.svid(OTHER, aud)  # trusted domain, but not a registered client
    elif case == "no_jti":
        svid = spire.svid(PARTNER, aud, jti=False)
    elif case == "unknown_domain":
        svid = spire.svid("spiffe://elsewhere.example/agent/x", aud)
    elif case == "too_long":
        svid = spire.svid(PARTNER, aud, ttl=86400)
    else:
        svid = spire.svid(PARTNER, aud, act={"sub": PLANNER})
    refused(exchange(gw, svid, **over))
    denies = [e for e in gw.stack.guard.ledger.events(decision="deny")
              if e.action == "token_exchange"]
    assert denies and denies[-1].reason.startswith("invalid_client")


def test_a_domain_configured_without_jti_accepts_cached_svids(gw: Gateway, spire: Spire) -> None:
    svid = spire.svid(LAX, endpoint(gw), jti=False)
    assert exchange(gw, svid).status_code == 200
    assert exchange(gw, svid).status_code == 200  # SPIFFE issuers re-use an SVID until expiry


def test_the_bundle_parser_keeps_only_jwt_authorities(spire: Spire) -> None:
    keys = parse_spiffe_bundle(spire.bundle, frozenset({"ES256"}))
    assert list(keys) == [spire.kid]
    sig_only = {"keys": [{**k, "use": "sig"} for k in spire.bundle["keys"]]}
    with pytest.raises(ConfigurationError):
        SpiffeBundleSource(sig_only, frozenset({"ES256"}))
    with pytest.raises(IdentityError):
        parse_spiffe_bundle({"keys": "x"}, frozenset({"ES256"}))


def test_the_own_trust_domain_cannot_be_federated(tmp_path: Path, spire: Spire) -> None:
    config = GatewayConfig.from_mapping({
        "state_dir": str(tmp_path / "gw"), "store": {"path": str(tmp_path / "q")},
        "sts": {"spiffe_trust_domains": [
            {"trust_domain": "memguard.local", "bundle": spire.bundle}]}})
    with pytest.raises(ConfigurationError):
        open_stack(config)
    with pytest.raises(ConfigurationError):
        GatewayConfig.from_mapping({"sts": {"spiffe_trust_domains": [
            {"trust_domain": "x.example"}]}})
