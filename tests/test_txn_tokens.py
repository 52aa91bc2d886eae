"""Transaction Tokens (draft-ietf-oauth-transaction-tokens) as subject tokens at the token endpoint,
``txn`` carried into the exchanged token and every fact's provenance, and entity profiles
(``sub_profile``) per hop that a policy can require or forbid. Real ES256/EdDSA tokens, a real
ledger; the Txn-Token Service is the test's own."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import AUDIENCE, ISSUER, SCOPES, Env, make_env

from memguard import AccessDenied, IdentityError, PolicyResolver
from memguard.events import Decision
from memguard.provenance import Source, Turn
from memguard.tokens import IdentityVerifier, TokenExchangeError
from memguard.tokens.rfc7517 import StaticKeySource, public_jwk
from memguard.tokens.rfc8693 import ACCESS_TOKEN_TYPE, TXN_TOKEN_TYPE
from memguard.tokens.txn_token import TxnTokenService
from memguard.trust import SourceKind

TRUST_DOMAIN = "https://corp.example/trust-domain"
TTS = "https://txn.corp.example"
JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt"


@dataclass
class TxnTokenServiceForTests:
    """The trust domain's Transaction Token Service: signs Txn-Tokens with its own P-256 key."""

    clock: Clock
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))

    def service(self) -> TxnTokenService:
        jwks = {"keys": [public_jwk(self.key)]}
        return TxnTokenService(TRUST_DOMAIN, frozenset({"ES256"}),
                               StaticKeySource(jwks, frozenset({"ES256"})), issuer=TTS)

    def token(self, sub: str = "alice", *, typ: str = "txntoken+jwt",
              key: ec.EllipticCurvePrivateKey | None = None, ttl: int = 120,
              **over: Any) -> str:
        now = int(self.clock())
        claims: dict[str, Any] = {
            "iss": TTS, "aud": TRUST_DOMAIN, "iat": now, "exp": now + ttl,
            "txn": f"txn-{secrets.token_hex(8)}", "sub": sub, "scope": " ".join(SCOPES),
            "tctx": {"action": "summarize"}, "rctx": {"req_wl": "apigateway.corp.example"},
        }
        claims.update(over)
        return jwt.encode({k: v for k, v in claims.items() if v is not None}, key or self.key,
                          algorithm="ES256",
                          headers={"typ": typ, "kid": public_jwk(self.key)["kid"]})


@pytest.fixture
def tts() -> TxnTokenServiceForTests:
    return TxnTokenServiceForTests(Clock())


@pytest.fixture
def env(tmp_path: Path, tts: TxnTokenServiceForTests) -> Env:
    return make_env(tmp_path, tts.clock, txn_tokens=[tts.service()],
                    actor_profiles={PLANNER: "ai_agent", BROWSER: "ai_agent"})


def exchange(env: Env, subject_token: str, **over: Any) -> dict[str, Any]:
    fields = {"subject_token_type": TXN_TOKEN_TYPE, "scope": "memory:read memory:write", **over}
    form = env.form(env.planner, subject_token, **fields)
    return env.sts.token_request(form)


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def resource_verifier(env: Env) -> IdentityVerifier:
    """The memory resource trusts the STS, which may name subjects of the trust domain."""
    return IdentityVerifier(env.config(access_tokens={"audience": AUDIENCE, "issuers": [
        {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks": env.sts.jwks(),
         "attests": [TRUST_DOMAIN]}]}), clock=env.clock)


def second_hop(env: Env, planner_token: str) -> str:
    actor = env.svid(BROWSER, use="actor")
    out = env.sts.token_request(env.form(env.planner, planner_token,
                                         scope="memory:read memory:write", actor_token=actor,
                                         actor_token_type=JWT_TYPE))
    return str(out["access_token"])


def test_a_txn_token_is_exchanged_and_its_txn_reaches_provenance(
        env: Env, tts: TxnTokenServiceForTests) -> None:
    out = exchange(env, tts.token(txn="txn-42", sub_profile="user"))
    issued = claims(out["access_token"])
    assert issued["txn"] == "txn-42" and issued["sub"] == "alice"
    assert issued["sub_id"] == {"format": "iss_sub", "iss": TRUST_DOMAIN, "sub": "alice"}
    assert issued["sub_profile"] == "user"
    assert issued["act"] == {"sub": PLANNER, "iss": "spiffe://memguard.local",
                             "sub_profile": "ai_agent"}
    assert env.events[-1].decision is Decision.ALLOW and env.events[-1].detail["txn"] == "txn-42"
    browser = claims(second_hop(env, out["access_token"]))
    assert browser["txn"] == "txn-42" and browser["sub_profile"] == "user"
    assert browser["act"]["act"]["sub_profile"] == "ai_agent"

    guard = env.guard(verifier=resource_verifier(env))
    identity = guard.authenticate(out["access_token"], workload_credential=env.svid(PLANNER))
    principal = identity.principal
    assert (principal.subject.issuer, principal.subject.subject) == (TRUST_DOMAIN, "alice")
    assert principal.txn == "txn-42" and principal.subject_profile == ("user",)
    assert principal.actors[0].profile == ("ai_agent",)
    prov = guard.write(identity, "the quarterly numbers are final", namespace="notes",
                       source=Source(kind=SourceKind.USER_MESSAGE),
                       turn=Turn(session_id="s", turn_index=0))
    assert prov.writer.txn == "txn-42"
    stored = guard.ledger.latest([prov.fact_id])[prov.fact_id].provenance
    assert stored.writer.txn == "txn-42" and stored.writer.actors[0].profile == ("ai_agent",)
    assert stored.record_digest == prov.record_digest


def test_a_write_without_txn_keeps_the_record_shape(env: Env) -> None:
    guard = env.guard(verifier=resource_verifier(env))
    identity = guard.authenticate(env.user_token())
    prov = guard.write(identity, "plain", namespace="notes",
                       source=Source(kind=SourceKind.USER_MESSAGE),
                       turn=Turn(session_id="s", turn_index=0))
    record = prov.json_dict()
    assert "txn" not in record["writer"]  # records written before the field keep their digests
    assert prov.writer.txn is None


def _refused(env: Env, subject_token: str, reason: str, **over: Any) -> None:
    before = len(env.events)
    with pytest.raises(TokenExchangeError) as info:
        exchange(env, subject_token, **over)
    assert info.value.error == "invalid_grant" or info.value.error == "invalid_request"
    new = env.events[before:]
    assert len(new) == 1 and new[0].decision is Decision.DENY
    assert reason in new[0].reason, new[0].reason
    assert subject_token not in new[0].canonical().decode()


@pytest.mark.parametrize(("over", "reason"), [
    ({"typ": "at+jwt"}, "identity.bad_type"),
    ({"typ": "JWT"}, "identity.bad_type"),
    ({"aud": "https://other.example/trust-domain"}, "identity.bad_audience"),
    ({"aud": [TRUST_DOMAIN, "https://other.example"]}, "identity.bad_audience"),
    ({"iss": "https://rogue.example"}, "identity.bad_issuer"),
    ({"key": "other"}, "identity.bad_signature"),
    ({"txn": None}, "identity.bad_claims"),
    ({"sub": None}, "identity.bad_claims"),
    ({"scope": None}, "identity.bad_claims"),
    ({"ttl": 3600}, "identity."),
    ({"ttl": -120}, "identity.expired"),
    ({"act": {"sub": PLANNER}}, "identity.bad_chain"),
    ({"sub_profile": "user  ai_agent"}, "identity.bad_claims"),
    ({"rctx": "gateway"}, "identity.bad_claims"),
])
def test_bad_txn_tokens_are_refused(env: Env, tts: TxnTokenServiceForTests,
                                    over: dict[str, Any], reason: str) -> None:
    if over.get("key") == "other":
        over = {**over, "key": ec.generate_private_key(ec.SECP256R1())}
    _refused(env, tts.token(**over), reason)


def test_token_kinds_do_not_cross(env: Env, tts: TxnTokenServiceForTests) -> None:
    # a Txn-Token presented as an access token, and an access token presented as a Txn-Token
    _refused(env, tts.token(), "identity.bad_type", subject_token_type=ACCESS_TOKEN_TYPE)
    _refused(env, env.user_token(), "identity.bad_type")
    # a Txn-Token is never an access token at the resource either
    guard = env.guard(verifier=resource_verifier(env))
    with pytest.raises(IdentityError) as info:
        guard.authenticate(tts.token())
    assert info.value.code == "identity.bad_type"


def test_a_trust_domain_cannot_share_a_name_with_a_token_issuer(
        tmp_path: Path, tts: TxnTokenServiceForTests) -> None:
    from memguard.errors import ConfigurationError

    clash = TxnTokenService(ISSUER, frozenset({"ES256"}), tts.service().keys)
    with pytest.raises(ConfigurationError, match="also a trusted token issuer"):
        make_env(tmp_path, tts.clock, txn_tokens=[clash])


def test_without_a_trusted_trust_domain_no_txn_token_is_taken(
        tmp_path: Path, tts: TxnTokenServiceForTests) -> None:
    env = make_env(tmp_path, tts.clock)
    _refused(env, tts.token(), "identity.bad_type")


POLICY = """\
apiVersion: memguard/v1
kind: PolicySet
rules:
  - id: hop.a-human-behind-every-call
    description: only a chain whose subject is a human (sub_profile user) reads or writes
    effect: permit
    actions: [write, read]
    when: {attr: principal.subject_profile, contains: user}
  - id: hop.no-agent-delegates-writes
    description: an agent handing a write on to another agent is refused
    effect: forbid
    actions: [write]
    when: {attr: principal.delegator_profile, contains: ai_agent}
"""


def test_a_policy_requires_a_human_and_forbids_an_agent_at_a_hop(
        env: Env, tts: TxnTokenServiceForTests, tmp_path: Path) -> None:
    (tmp_path / "hops.yaml").write_text(POLICY)
    guard = env.guard(verifier=resource_verifier(env),
                      scope=PolicyResolver.from_path(tmp_path / "hops.yaml"))

    def write(token: str, workload: str) -> Any:
        identity = guard.authenticate(token, workload_credential=env.svid(workload))
        return guard.write(identity, "note", namespace="n",
                           source=Source(kind=SourceKind.USER_MESSAGE),
                           turn=Turn(session_id="s", turn_index=0))

    human = exchange(env, tts.token(sub_profile="user"))["access_token"]
    assert write(human, PLANNER).writer.txn is not None  # human -> agent: allowed
    with pytest.raises(AccessDenied):  # human -> agent -> agent: the delegator is an agent
        write(second_hop(env, human), BROWSER)
    for profile in ("ai_agent", None):  # no human behind the chain (or none asserted): refused
        token = exchange(env, tts.token(sub="batch-job", sub_profile=profile))["access_token"]
        with pytest.raises(AccessDenied):
            write(token, PLANNER)
    denied = [e for e in guard.ledger.events(decision="deny") if e.action == "write"]
    assert len(denied) == 3


def test_through_the_gateway_config_token_endpoint_and_api(tmp_path: Path) -> None:
    """The gateway's ``sts.transaction_tokens`` and ``sts.actor_profiles``: a Txn-Token exchanged
    at ``/token`` over HTTP, the fact written with the result showing ``txn`` in its provenance."""
    import time

    import httpx
    from gateway_helpers import fact, running_gateway

    tts = TxnTokenServiceForTests(Clock(time.time()))
    sts = {"transaction_tokens": [{"trust_domain": TRUST_DOMAIN, "issuer": TTS,
                                   "algorithms": ["ES256"],
                                   "jwks": {"keys": [public_jwk(tts.key)]}}],
           "actor_profiles": {PLANNER: "ai_agent"}}
    with running_gateway(tmp_path, sts=sts) as gw:
        endpoint = gw.sts.token_endpoint
        form = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": gw.planner.assertion(endpoint, int(time.time())),
            "subject_token": tts.token(txn="txn-http-7", sub_profile="user"),
            "subject_token_type": TXN_TOKEN_TYPE, "audience": gw.resource,
            "scope": "memory:read memory:write",
        }
        r = httpx.post(f"{gw.base}/token", data=form, timeout=10)
        assert r.status_code == 200, r.text
        token = r.json()["access_token"]
        assert claims(token)["act"]["sub_profile"] == "ai_agent"
        w = gw.post("/v1/facts", token, fact("filed under txn-http-7"), gw.svid(PLANNER))
        assert w.status_code == 201, w.text
        writer = w.json()["provenance"]["writer"]
        assert writer["txn"] == "txn-http-7"
        assert writer["subject"] == {"issuer": TRUST_DOMAIN, "subject": "alice"}
        # the same Txn-Token kind from an unconfigured trust domain is refused at the endpoint
        form["subject_token"] = tts.token(aud="https://elsewhere.example/td")
        form["client_assertion"] = gw.planner.assertion(endpoint, int(time.time()))
        r = httpx.post(f"{gw.base}/token", data=form, timeout=10)
        assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
