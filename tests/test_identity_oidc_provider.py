"""Interop with an authorization server memguard did not write: node-oidc-provider (npm
`oidc-provider`, pinned in tests/interop/oidc_provider/package.json) started on 127.0.0.1.

Its JWT access tokens (`typ: at+jwt`, ES256) are verified by memguard through its JWKS endpoint,
exchanged at memguard's token service over HTTP (authlib client) for an agent and re-delegated to
a sub-agent, keeping the provider as the subject's issuer (``sub_id``); presenter binding holds
both ways, and an ``act`` hop the provider itself asserts is trusted neither by the token service
nor by the resource.
Skips only when Node.js is absent; installs the pinned package with npm when it is missing.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import ISSUER, Client, Env, assert_refused, make_client, make_env

from memguard import (
    IdentityError,
    InMemoryStore,
    Ledger,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
)
from memguard.events import AuditEvent
from memguard.tokens import (
    IdentityConfig,
    IdentityVerifier,
    SecurityTokenService,
    TokenExchangeError,
)
from memguard.tokens.client import TokenExchangeClient
from memguard.tokens.config import DelegationGrant
from memguard.tokens.rfc7517 import JwksUrlSource
from memguard.tokens.rfc9068 import TrustedIssuer
from memguard.tokens.server import create_app, serve_local

HERE = Path(__file__).parent / "interop" / "oidc_provider"
CLIENT, SECRET = "memguard-interop", "interop-secret-not-for-production"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not (HERE / "node_modules" / "oidc-provider").exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install oidc-provider"
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE,
                       check=True, timeout=300)
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key))
    jwks = tmp_path_factory.mktemp("op") / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**jwk, "kid": "op-1", "alg": "ES256", "use": "sig"}]}))
    port = _free_port()
    proc = subprocess.Popen(["node", str(HERE / "server.mjs"), str(port), str(jwks)], cwd=HERE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready: list[str] = []
    reader = threading.Thread(target=lambda: ready.append(proc.stdout.readline() if proc.stdout else ""),
                              daemon=True)
    reader.start()
    reader.join(30)
    try:
        assert ready and ready[0].startswith("ready "), proc.stderr.read() if proc.poll() is not None else "timeout"
        yield ready[0].split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def op_token(issuer: str, scope: str = "memory:read") -> str:
    resp = httpx.post(f"{issuer}/token", auth=(CLIENT, SECRET), timeout=10, data={
        "grant_type": "client_credentials", "scope": scope, "resource": "urn:memguard"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["token_type"].lower() == "bearer"
    return str(body["access_token"])


@pytest.fixture
def env(tmp_path: Path) -> Env:
    import time

    return make_env(tmp_path, Clock(time.time()))


def op_verifier(env: Env, issuer: str) -> IdentityVerifier:
    cfg = env.config(access_tokens={"audience": "memguard", "issuers": [{
        "issuer": issuer, "algorithms": ["ES256"], "jwks_url": f"{issuer}/jwks"}]})
    return IdentityVerifier(cfg, clock=env.clock)


def test_oidc_provider_access_token_verifies(env: Env, provider: str) -> None:
    token = op_token(provider)
    assert jwt.get_unverified_header(token)["typ"] == "at+jwt"
    guard = env.guard(op_verifier(env, provider))
    identity = guard.authenticate(token)
    p = identity.principal
    assert p.subject.issuer == provider
    assert p.client_id == CLIENT and p.subject.subject == CLIENT  # RFC 9068 client credentials
    assert p.scopes == frozenset({"memory:read"})


def test_oidc_provider_tokens_are_still_attacked(env: Env, provider: str) -> None:
    guard = env.guard(op_verifier(env, provider))
    token = op_token(provider)
    head, body, sig = token.split(".")
    flipped = sig[:-3] + ("AAA" if not sig.endswith("AAA") else "BBB")
    assert_refused(guard, f"{head}.{body}.{flipped}", "identity.bad_signature")
    # the same token for a verifier that trusts a different issuer spelling
    near = env.guard(op_verifier(env, provider + "/"))
    assert_refused(near, token, "identity.bad_issuer")
    # a memguard-issued token is not accepted by a verifier that trusts only the provider
    assert_refused(guard, env.user_token(), "identity.bad_issuer")
    # it cannot be presented as an agent's delegated token
    assert_refused(guard, token, "identity.impersonation", workload_credential=env.svid(
        "spiffe://memguard.local/agent/planner"))


# -- exchange, a user -> agent -> sub-agent chain, presenter binding, and asserted hops ---------------

ROGUE = "spiffe://memguard.local/agent/rogue"
SCOPES = ("memory:read", "memory:write")


@dataclass
class Chain:
    provider: str
    sts: SecurityTokenService
    endpoint: str
    guard: MemoryGuard
    clients: dict[str, Client]
    events: list[AuditEvent]

    def client(self, spiffe_id: str) -> TokenExchangeClient:
        c = self.clients[spiffe_id]
        return TokenExchangeClient(self.endpoint, c.client_id, c.pem, kid=c.kid)


@pytest.fixture
def chain(tmp_path: Path, provider: str) -> Iterator[Chain]:
    clients = {s: make_client(s) for s in (PLANNER, BROWSER, ROGUE)}
    grants = (
        DelegationGrant(actor=PLANNER, on_behalf_of="user", scopes=SCOPES),
        DelegationGrant(actor=BROWSER, on_behalf_of=PLANNER, scopes=SCOPES),
        # the only hop the provider asserts below, (rogue, user), has no grant: it must not pass
        DelegationGrant(actor=PLANNER, on_behalf_of=ROGUE, scopes=SCOPES),
    )
    provider_keys = JwksUrlSource(f"{provider}/jwks", frozenset({"ES256"}))
    events: list[AuditEvent] = []
    sts = SecurityTokenService(
        tmp_path / "sts", issuer=ISSUER, clients=[c.registered() for c in clients.values()],
        delegation=grants, sink=events.append, extra_issuers={provider: TrustedIssuer(provider, frozenset({"ES256"}),
                                                                  provider_keys)},
    )
    with serve_local(create_app(sts)) as base:
        sts.set_token_endpoint(f"{base}/token")
        config = IdentityConfig.from_mapping({
            "version": 1,
            "access_tokens": {"audience": "memguard", "issuers": [
                {"issuer": provider, "algorithms": ["ES256"], "jwks_url": f"{provider}/jwks"},
                {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks_url": f"{base}/.well-known/jwks.json",
                 "attests": [provider]}]},
            "workload_credentials": {"audience": sts.presenter_audience, "trust_domains": [
                {"trust_domain": "memguard.local", "algorithms": ["EdDSA"],
                 "jwks_url": f"{base}/.well-known/workload-jwks.json"}]},
            "delegation": [g.model_dump(mode="json") for g in grants],
        })
        guard = MemoryGuard(store=InMemoryStore(384), ledger=Ledger.sqlite(tmp_path / "chain.db"),
                            verifier=IdentityVerifier(config))
        try:
            yield Chain(provider, sts, f"{base}/token", guard, clients, events)
        finally:
            guard.close()


def test_provider_token_exchanged_through_a_chain_keeps_its_issuer(chain: Chain) -> None:
    user = op_token(chain.provider, "memory:read memory:write")
    planner_client = chain.client(PLANNER)
    try:
        planner_token = planner_client.exchange(user, audience="memguard",
                                                scope="memory:read memory:write").access_token
        browser_token = planner_client.exchange(
            planner_token, audience="memguard", scope="memory:read",
            actor_token=chain.sts.issue_workload_credential(BROWSER, use="actor")).access_token
    finally:
        planner_client.close()
    claims = jwt.decode(browser_token, options={"verify_signature": False})
    assert claims["iss"] == ISSUER and claims["sub"] == CLIENT
    assert claims["sub_id"] == {"format": "iss_sub", "iss": chain.provider, "sub": CLIENT}
    assert claims["act"]["sub"] == BROWSER and claims["act"]["act"]["sub"] == PLANNER

    g = chain.guard
    me = g.authenticate(user)
    planner = g.authenticate(planner_token, workload_credential=chain.sts.issue_workload_credential(PLANNER))
    browser = g.authenticate(browser_token, workload_credential=chain.sts.issue_workload_credential(BROWSER))
    for identity in (me, planner, browser):  # one principal: the provider's client
        assert identity.principal.subject.issuer == chain.provider
        assert identity.principal.subject.subject == CLIENT
    assert [a.subject for a in browser.principal.actors] == [PLANNER, BROWSER]
    fact = g.write(me, "written with the provider's own token", namespace="notes",
                   source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="s", turn_index=0))
    assert [h.fact_id for h in g.search(browser, "provider token", k=5)] == [fact.fact_id]

    # presenter binding, both ways: neither agent may present the other's token
    for token, presenter in ((planner_token, BROWSER), (browser_token, PLANNER)):
        with pytest.raises(IdentityError) as info:
            g.authenticate(token, workload_credential=chain.sts.issue_workload_credential(presenter))
        assert info.value.code == "identity.presenter_mismatch"
    # and the sub-agent's actor token (token-endpoint audience and typ) is no presenter credential
    with pytest.raises(IdentityError) as info:
        g.authenticate(browser_token,
                       workload_credential=chain.sts.issue_workload_credential(BROWSER, use="actor"))
    assert info.value.code == "identity.bad_type"


def test_a_hop_the_provider_asserts_is_never_trusted(chain: Chain) -> None:
    rogue_token = op_token(chain.provider, "memory:read memory:act")
    assert jwt.decode(rogue_token, options={"verify_signature": False})["act"] == {"sub": ROGUE}
    # the token service re-checks every hop it would issue against its grants
    rogue_client = chain.client(ROGUE)
    try:
        with pytest.raises(TokenExchangeError) as info:
            rogue_client.exchange(rogue_token, audience="memguard", scope="memory:read",
                                  actor_token=chain.sts.issue_workload_credential(PLANNER, use="actor"))
        assert info.value.error == "invalid_grant"
    finally:
        rogue_client.close()
    assert chain.events[-1].reason == "invalid_grant:hop 0 not granted"
    # and the resource refuses the provider's token with its asserted chain
    with pytest.raises(IdentityError) as err:
        chain.guard.authenticate(rogue_token,
                                 workload_credential=chain.sts.issue_workload_credential(ROGUE))
    assert err.value.code == "identity.bad_delegation"
