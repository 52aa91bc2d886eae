"""Delegation chain: user -> planner agent -> browsing sub-agent, RFC 8693 exchanges over real HTTP.

Run: python examples/delegation_chain.py   (offline; everything binds 127.0.0.1, state in a temp dir)

1. The local STS (Starlette + uvicorn on 127.0.0.1) mints alice's user token.
2. The planner exchanges it (authlib OAuth2 client, private_key_jwt) for a token that names the planner
   as actor. 3. The planner re-delegates to the browser (second exchange, the browser's workload
   credential as ``actor_token``) with a narrower scope. 4. The browser presents that token with its
   own workload credential: its write records the whole chain; its read is scoped by the token.
5. The browser presenting the planner's token (no exchange) is refused.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from memguard import (
    IdentityError,
    InMemoryStore,
    Ledger,
    MemoryGuard,
    Principal,
    Source,
    SourceKind,
    Turn,
)
from memguard.scope import (
    And,
    DefaultScopeResolver,
    In,
    PlanKind,
    ReadRequest,
    ScopePlan,
    WriteDecision,
)
from memguard.tokens import IdentityVerifier, SecurityTokenService
from memguard.tokens.client import TokenExchangeClient
from memguard.tokens.config import DelegationGrant
from memguard.tokens.rfc7523 import RegisteredClient
from memguard.tokens.server import create_app, serve_local
from memguard.tokens.sts import public_jwk

ISSUER = "https://sts.memguard.local"
PLANNER = "spiffe://memguard.local/agent/planner"
BROWSER = "spiffe://memguard.local/agent/browser"
USER_SCOPES = ("read:notes", "read:web", "write:notes", "write:web")


class TokenScopes(DefaultScopeResolver):
    """Owner isolation (the default) plus namespaces from the token: ``read:<ns>`` / ``write:<ns>``."""

    def read_plan(self, principal: Principal, request: ReadRequest) -> ScopePlan:
        allowed = tuple(sorted(s[5:] for s in principal.scopes if s.startswith("read:")))
        base = super().read_plan(principal, request)
        if not allowed or base.kind is not PlanKind.RESIDUAL or base.condition is None:
            return ScopePlan(PlanKind.DENY, base.policy_digest, rule_ids=("token-scope",),
                             reason="scope")
        return ScopePlan(PlanKind.RESIDUAL, base.policy_digest,
                         condition=And((base.condition, In("namespace", allowed))),
                         rule_ids=(*base.rule_ids, "token-scope"))

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision:
        if f"write:{namespace}" not in principal.scopes:
            return WriteDecision(False, self.digest, ("token-scope",), reason="scope")
        return super().write_decision(principal, namespace)


@dataclass
class Agent:
    spiffe_id: str
    key: ec.EllipticCurvePrivateKey

    @property
    def kid(self) -> str:
        return public_jwk(self.key)["kid"]

    def registration(self) -> RegisteredClient:
        return RegisteredClient(self.spiffe_id, {"keys": [public_jwk(self.key)]}, frozenset({"ES256"}))

    def client(self, token_endpoint: str) -> TokenExchangeClient:
        pem = self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())
        return TokenExchangeClient(token_endpoint, self.spiffe_id, pem, alg="ES256", kid=self.kid)


@dataclass
class World:
    sts: SecurityTokenService
    base_url: str
    guard: MemoryGuard
    planner: Agent
    browser: Agent


@contextmanager
def world(state: Path) -> Iterator[World]:
    planner = Agent(PLANNER, ec.generate_private_key(ec.SECP256R1()))
    browser = Agent(BROWSER, ec.generate_private_key(ec.SECP256R1()))
    grants = (
        DelegationGrant(actor=PLANNER, on_behalf_of="user", scopes=USER_SCOPES),
        DelegationGrant(actor=BROWSER, on_behalf_of=PLANNER, scopes=("read:web", "write:web")),
    )
    sts = SecurityTokenService(state / "sts", issuer=ISSUER, clients=[planner.registration(),
                               browser.registration()], delegation=grants)
    with serve_local(create_app(sts)) as base:
        sts.set_token_endpoint(f"{base}/token")
        config = {
            "version": 1,
            "access_tokens": {"audience": "memguard", "issuers": [
                {"issuer": ISSUER, "algorithms": ["EdDSA"],
                 "jwks_url": f"{base}/.well-known/jwks.json"}]},
            "workload_credentials": {"audience": sts.presenter_audience, "trust_domains": [
                {"trust_domain": "memguard.local", "algorithms": ["EdDSA"],
                 "jwks_url": f"{base}/.well-known/workload-jwks.json"}]},
            "delegation": [g.model_dump(mode="json") for g in grants],
        }
        path = state / "identity.yaml"
        path.write_text(json.dumps(config), "utf-8")  # JSON is YAML
        guard = MemoryGuard(store=InMemoryStore(384), ledger=Ledger.sqlite(state / "ledger.db"),
                            verifier=IdentityVerifier.from_yaml(path), scope=TokenScopes())
        try:
            yield World(sts, base, guard, planner, browser)
        finally:
            guard.close()


def run(state: Path) -> dict[str, object]:
    """The whole story; returns what happened (the e2e test asserts on it)."""
    out: dict[str, object] = {}
    with world(state) as w:
        guard, sts = w.guard, w.sts
        endpoint = f"{w.base_url}/token"
        user_token = sts.issue_user_token("alice", scopes=USER_SCOPES)
        alice = guard.authenticate(user_token)
        guard.write(alice, "Alice's private note: dentist on Friday.", namespace="notes",
                    source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="s", turn_index=0))

        planner_client = w.planner.client(endpoint)
        planner_token = planner_client.exchange(
            user_token, audience="memguard", scope=" ".join(USER_SCOPES)).access_token
        actor_token = sts.issue_workload_credential(BROWSER, use="actor")  # for the token endpoint
        browser_token = planner_client.exchange(
            planner_token, audience="memguard", scope="read:web write:web",
            actor_token=actor_token).access_token
        planner_client.close()

        browser_svid = sts.issue_workload_credential(BROWSER)  # presenter credential for memguard
        browser = guard.authenticate(browser_token, workload_credential=browser_svid)
        prov = guard.write(browser, "ACME's status page says: all systems operational.",
                           namespace="web", source=Source(kind=SourceKind.WEB,
                                                          uri="https://status.acme.example"),
                           turn=Turn(session_id="s", turn_index=1))
        out["writer_chain"] = [prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)]
        hits = guard.search(browser, "notes or status", k=10)
        out["browser_reads"] = sorted({h.provenance.namespace for h in hits})
        out["alice_reads"] = sorted({h.provenance.namespace for h in guard.search(alice, "x", k=10)})
        try:
            guard.authenticate(planner_token, workload_credential=browser_svid)
            out["parent_token_refused"] = None
        except IdentityError as exc:
            out["parent_token_refused"] = exc.code
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as state:
        result = run(Path(state))
    print("write recorded chain:", " -> ".join(map(str, result["writer_chain"])))  # type: ignore[call-overload]
    print("browser can read namespaces:", result["browser_reads"])
    print("alice can read namespaces:", result["alice_reads"])
    print("browser with the planner's token:", result["parent_token_refused"])
    assert result["parent_token_refused"] == "identity.presenter_mismatch"


if __name__ == "__main__":
    main()
