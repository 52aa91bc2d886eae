"""Interop with an authorization server memguard did not write: node-oidc-provider (npm
`oidc-provider`, pinned in tests/interop/oidc_provider/package.json) started on 127.0.0.1.

Its JWT access tokens (`typ: at+jwt`, ES256) are verified by memguard through its JWKS endpoint.
Skips only when Node.js is absent; installs the pinned package with npm when it is missing.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from helpers import Clock
from identity_helpers import Env, assert_refused, make_env

from memguard.tokens import IdentityVerifier

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
