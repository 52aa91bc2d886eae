"""A Transaction Token presented directly at the memory resource (draft-ietf-oauth-transaction-
tokens, the ``Txn-Token`` header), inside its trust domain: only when configured, only with the
calling workload's own credential, only from the configured callers, never as an access token."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import Env, make_env
from test_txn_tokens import TRUST_DOMAIN, TTS, TxnTokenServiceForTests

from memguard import MemoryGuard
from memguard.errors import IdentityError
from memguard.provenance import Source, Turn
from memguard.tokens import IdentityVerifier
from memguard.tokens.rfc7517 import public_jwk
from memguard.tokens.txn_token import ResourceTxnTokens, TxnTokenVerifier
from memguard.trust import SourceKind


@pytest.fixture
def tts() -> TxnTokenServiceForTests:
    return TxnTokenServiceForTests(Clock())


@pytest.fixture
def env(tmp_path: Path, tts: TxnTokenServiceForTests) -> Env:
    return make_env(tmp_path, tts.clock)


def _guard(env: Env, tts: TxnTokenServiceForTests, *, configured: bool = True) -> MemoryGuard:
    verifier = IdentityVerifier(env.config(), clock=env.clock)
    if configured:
        verifier.transactions = ResourceTxnTokens(
            TxnTokenVerifier({TRUST_DOMAIN: tts.service()}, clock=env.clock),
            {TRUST_DOMAIN: frozenset({PLANNER})})
    return env.guard(verifier=verifier)


def test_a_txn_token_from_a_configured_caller_writes_with_its_transaction(
        env: Env, tts: TxnTokenServiceForTests) -> None:
    guard = _guard(env, tts)
    token = tts.token(txn="txn-direct-1", tctx={"action": "file"}, sub_profile="user")
    identity = guard.authenticate(token, workload_credential=env.svid(PLANNER),
                                  transaction_token=True)
    p = identity.principal
    assert (p.subject.issuer, p.subject.subject) == (TRUST_DOMAIN, "alice")
    assert [a.subject for a in p.actors] == [PLANNER] and p.client_id == PLANNER
    assert p.txn == "txn-direct-1" and p.subject_profile == ("user",)
    prov = guard.write(identity, "filed by the planner", namespace="notes",
                       source=Source(kind=SourceKind.AGENT_INFERENCE),
                       turn=Turn(session_id="s", turn_index=0))
    assert prov.writer.txn == "txn-direct-1" and prov.writer.workload_id == PLANNER
    assert prov.writer.txn_context == {"tctx": {"action": "file"},
                                       "rctx": {"req_wl": "apigateway.corp.example"}}
    events = guard.ledger.events(decision="allow")
    assert any(e.principal and e.principal.get("txn") == "txn-direct-1" for e in events)


def _refused(guard: MemoryGuard, token: str, code: str, *, workload: str | None,
             transaction: bool = True) -> None:
    before = {e.event_id for e in guard.ledger.events(decision="deny")}
    with pytest.raises(IdentityError) as info:
        guard.authenticate(token, workload_credential=workload, transaction_token=transaction)
    assert info.value.code == code, f"expected {code}, got {info.value.code} ({info.value})"
    new = [e for e in guard.ledger.events(decision="deny") if e.event_id not in before]
    assert len(new) == 1 and new[0].action == "authenticate" and new[0].reason == code
    assert token not in new[0].canonical().decode()


@pytest.mark.parametrize(("case", "code"), [
    ("no workload credential", "identity.unbound"),
    ("a caller that is not configured", "identity.unbound"),
    ("an actor token as the workload credential", "identity.bad_type"),
    ("an access token in the Txn-Token place", "identity.bad_type"),
    ("a Txn-Token in the access token place", "identity.bad_type"),
    ("another trust domain", "identity.bad_audience"),
    ("another Txn-Token service", "identity.bad_issuer"),
    ("expired", "identity.expired"),
    ("long-lived", "identity.bad_claims"),
    ("another key", "identity.bad_signature"),
    ("no txn", "identity.bad_claims"),
    ("an act chain", "identity.bad_chain"),
    ("a float in tctx", "identity.bad_claims"),
])
def test_txn_tokens_at_the_resource_are_refused(env: Env, tts: TxnTokenServiceForTests,
                                                 case: str, code: str) -> None:
    guard = _guard(env, tts)
    now = int(tts.clock())
    planner = env.svid(PLANNER)
    token, workload, transaction = {
        "no workload credential": (tts.token(), None, True),
        "a caller that is not configured": (tts.token(), env.svid(BROWSER), True),
        "an actor token as the workload credential": (
            tts.token(), env.svid(PLANNER, use="actor"), True),
        "an access token in the Txn-Token place": (env.user_token(), planner, True),
        "a Txn-Token in the access token place": (tts.token(), planner, False),
        "another trust domain": (tts.token(aud="https://elsewhere.example/td"), planner, True),
        "another Txn-Token service": (tts.token(iss="https://rogue-tts.example"), planner, True),
        "expired": (tts.token(iat=now - 290, exp=now - 100), planner, True),
        "long-lived": (tts.token(ttl=3600), planner, True),
        "another key": (tts.token(key=ec.generate_private_key(ec.SECP256R1())), planner, True),
        "no txn": (tts.token(txn=None), planner, True),
        "an act chain": (tts.token(act={"sub": BROWSER}), planner, True),
        "a float in tctx": (tts.token(tctx={"ratio": 0.25}), planner, True),
    }[case]
    _refused(guard, token, code, workload=workload, transaction=transaction)


def test_without_configuration_no_txn_token_is_taken(env: Env,
                                                     tts: TxnTokenServiceForTests) -> None:
    guard = _guard(env, tts, configured=False)
    _refused(guard, tts.token(), "identity.bad_type", workload=env.svid(PLANNER))


def test_callers_are_required_for_a_trusted_domain(tts: TxnTokenServiceForTests) -> None:
    from memguard.errors import ConfigurationError

    verifier = TxnTokenVerifier({TRUST_DOMAIN: tts.service()})
    with pytest.raises(ConfigurationError):
        ResourceTxnTokens(verifier, {TRUST_DOMAIN: frozenset()})
    with pytest.raises(ConfigurationError):
        ResourceTxnTokens(verifier, {"https://unknown.example/td": frozenset({PLANNER})})


# -- over HTTP at the gateway API ------------------------------------------------------------------


def test_the_gateway_api_takes_a_txn_token_header(tmp_path: Path) -> None:
    from gateway_helpers import fact, running_gateway

    tts = TxnTokenServiceForTests(Clock(time.time()))
    sts = {"transaction_tokens": [{
        "trust_domain": TRUST_DOMAIN, "issuer": TTS, "algorithms": ["ES256"],
        "jwks": {"keys": [public_jwk(tts.key)]}, "at_resource": True, "callers": [PLANNER]}]}
    with running_gateway(tmp_path, sts=sts) as gw:
        def post(headers: dict[str, str], body: dict[str, Any]) -> httpx.Response:
            return httpx.post(f"{gw.base}/v1/facts", json=body, headers=headers, timeout=10)

        token = tts.token(txn="txn-http-9", tctx={"step": 2})
        ok = post({"Txn-Token": token, "Workload-Identity-Token": gw.svid(PLANNER)},
                  fact("written inside the transaction"))
        assert ok.status_code == 201, ok.text
        writer = ok.json()["provenance"]["writer"]
        assert writer["txn"] == "txn-http-9" and writer["chain"] == ["alice", PLANNER]
        assert writer["txn_context"]["tctx"] == {"step": 2}

        refusals = [
            ({"Txn-Token": token, "Authorization": f"Bearer {gw.user_token()}",
              "Workload-Identity-Token": gw.svid(PLANNER)}, 400),
            ({"Txn-Token": token}, 401),
            ({"Authorization": f"Bearer {token}", "Workload-Identity-Token": gw.svid(PLANNER)},
             401),
            ({"Txn-Token": token, "Workload-Identity-Token": gw.svid(BROWSER)}, 401),
            ({"Txn-Token": gw.user_token(), "Workload-Identity-Token": gw.svid(PLANNER)}, 401),
        ]
        for headers, status in refusals:
            before = {e.event_id for e in gw.stack.guard.ledger.events(decision="deny")}
            r = post(headers, fact("must not be written"))
            assert r.status_code == status, (headers.keys(), r.text)
            new = [e for e in gw.stack.guard.ledger.events(decision="deny")
                   if e.event_id not in before]
            assert len(new) == 1, (headers.keys(), new)
        found = httpx.post(f"{gw.base}/v1/search", json={"query": "must not be written"},
                           headers={"Txn-Token": tts.token(), "Workload-Identity-Token":
                                    gw.svid(PLANNER)}, timeout=10)
        assert found.status_code == 200, found.text
        assert [h["text"] for h in found.json()["facts"]] == ["written inside the transaction"]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_mcp_endpoint_takes_a_txn_token_header(tmp_path: Path) -> None:
    from gateway_helpers import running_gateway
    from test_mcp_stateless import _call, _tool_result

    tts = TxnTokenServiceForTests(Clock(time.time()))
    sts = {"transaction_tokens": [{
        "trust_domain": TRUST_DOMAIN, "issuer": TTS, "algorithms": ["ES256"],
        "jwks": {"keys": [public_jwk(tts.key)]}, "at_resource": True, "callers": [PLANNER]}]}
    with running_gateway(tmp_path, mcp=True, sts=sts) as gw:
        headers = {"Txn-Token": tts.token(txn="txn-mcp-3"),
                   "Workload-Identity-Token": gw.svid(PLANNER)}
        wrote = _tool_result(_call(gw, headers, "remember", {
            "text": "kept by the planner", "namespace": "ops", "session_id": "s",
            "source_kind": "agent_inference"}))
        writer = wrote["provenance"]["writer"]
        assert writer["txn"] == "txn-mcp-3" and writer["chain"] == ["alice", PLANNER]
        token = tts.token()
        refusals = [
            ({"Txn-Token": token, "Authorization": f"Bearer {gw.user_token()}",
              "Workload-Identity-Token": gw.svid(PLANNER)}, 400),
            ({"Txn-Token": token}, 401),
            ({"Txn-Token": token, "Workload-Identity-Token": gw.svid(BROWSER)}, 401),
            ({"Authorization": f"Bearer {token}", "Workload-Identity-Token": gw.svid(PLANNER)},
             401),
        ]
        for h, status in refusals:
            before = {e.event_id for e in gw.stack.guard.ledger.events(decision="deny")}
            r = _call(gw, h, "recall", {"query": "planner"})
            assert r.status_code == status, (h.keys(), r.text)
            new = [e for e in gw.stack.guard.ledger.events(decision="deny")
                   if e.event_id not in before]
            assert len(new) == 1, (h.keys(), new)


def test_a_verifier_error_fails_closed(env: Env, tts: TxnTokenServiceForTests) -> None:
    from memguard.tokens.rfc7517 import StaticKeySource
    from memguard.tokens.txn_token import TxnTokenService

    class Broken(StaticKeySource):
        def get(self, kid: str, alg: str) -> object:
            raise RuntimeError("key store down")

    verifier = IdentityVerifier(env.config(), clock=env.clock)
    broken = TxnTokenService(TRUST_DOMAIN, frozenset({"ES256"}),
                             Broken({"keys": [public_jwk(tts.key)]}, frozenset({"ES256"})),
                             issuer=TTS)
    verifier.transactions = ResourceTxnTokens(
        TxnTokenVerifier({TRUST_DOMAIN: broken}, clock=env.clock),
        {TRUST_DOMAIN: frozenset({PLANNER})})
    guard = env.guard(verifier=verifier)
    _refused(guard, tts.token(), "identity.internal", workload=env.svid(PLANNER))
