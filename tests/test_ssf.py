"""SSF/CAEP receiver: real ES256 SETs pushed over loopback HTTP by the tests' own transmitter
(RFC 8417, RFC 8935, CAEP 1.0), the deny list they feed, and what every call sees afterwards."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from gateway_helpers import Gateway, fact, running_gateway
from helpers import PLANNER
from ssf_helpers import (
    ASSURANCE_LEVEL_CHANGE,
    CREDENTIAL_CHANGE,
    SESSION_REVOKED,
    TOKEN_CLAIMS_CHANGE,
    TestTransmitter,
    event,
    iss_sub,
)

from memguard.errors import IdentityError
from memguard.gateway.config import GatewayConfig
from memguard.gateway.stack import open_stack
from memguard.provenance import sha256_digest
from memguard.tokens.rfc8693 import TokenExchangeError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def tx() -> TestTransmitter:
    return TestTransmitter()


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory, tx: TestTransmitter) -> Iterator[Gateway]:
    """One gateway for the module (each test uses subjects of its own)."""
    with running_gateway(tmp_path_factory.mktemp("ssf"),
                         ssf={"enabled": True, "transmitters": [tx.config()],
                              "revoke_session_writes": True}) as g:
        yield g


def url(gw: Gateway) -> str:
    return f"{gw.base}/ssf/events"


def aud(gw: Gateway) -> str:
    return f"{gw.resource.rstrip('/')}/ssf"


def listing(gw: Gateway, token: str, workload: str | None = None) -> httpx.Response:
    return httpx.get(f"{gw.base}/v1/facts", headers=gw.headers(token, workload), timeout=10)


def ssf_events(gw: Gateway, decision: str | None = None) -> list[Any]:
    return [e for e in gw.stack.guard.ledger.events(decision=decision) if e.action == "ssf.receive"]


def user_token_with_sid(gw: Gateway, subject: str, sid: str) -> str:
    """An access token of the gateway's token service that carries an OIDC session id."""
    now = int(time.time())
    return gw.sts.access_keys.sign({
        "iss": gw.sts.issuer, "sub": subject, "aud": gw.resource, "iat": now, "exp": now + 600,
        "jti": secrets.token_urlsafe(12), "client_id": "memguard-cli",
        "scope": "memory:read memory:write", "sid": sid,
    }, "at+jwt")


def test_session_revoked_for_a_subject_denies_its_tokens_at_once(
        gw: Gateway, tx: TestTransmitter) -> None:
    alice, bob = gw.user_token("alice"), gw.user_token("bob")
    assert listing(gw, alice).status_code == 200
    held = gw.stack.guard.authenticate(alice)  # an identity a caller keeps (a cached identity)
    r = tx.push(url(gw), tx.set(aud(gw), {SESSION_REVOKED: event()},
                                sub_id=iss_sub(gw.sts.issuer, "alice")))
    assert r.status_code == 202, r.text
    r = listing(gw, alice)
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.revoked"
    with pytest.raises(IdentityError):
        gw.stack.guard.list_facts(held)
    assert listing(gw, bob).status_code == 200  # another subject of the same issuer is untouched
    applied = [e for e in ssf_events(gw, "allow") if e.reason == "ssf.session-revoked"
               and e.detail["effect"][0]["value"] == "alice"]
    assert len(applied) == 1
    assert applied[0].detail["effect"][0]["kind"] == "subject"
    assert applied[0].detail["effect"][0]["value"] == "alice"
    digest = sha256_digest(alice.encode())
    denied = [e for e in gw.stack.guard.ledger.events(decision="deny")
              if e.reason == "identity.revoked" and e.detail.get("token_digest") == digest]
    assert denied  # the refused call is an audit event too


def test_a_subject_of_another_issuer_with_the_same_sub_is_not_revoked(
        gw: Gateway, tx: TestTransmitter) -> None:
    nora = gw.user_token("nora")
    r = tx.push(url(gw), tx.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="revoke")},
                                sub_id=iss_sub("https://other-idp.example.test", "nora")))
    assert r.status_code == 202
    assert listing(gw, nora).status_code == 200


def test_session_subject_denies_only_that_session_and_revokes_its_writes(
        gw: Gateway, tx: TestTransmitter) -> None:
    in_session = user_token_with_sid(gw, "carol", "s-1")
    other = user_token_with_sid(gw, "carol", "s-2")
    written = gw.post("/v1/facts", in_session, fact("carol's note")).json()  # turn session s-1
    kept = gw.post("/v1/facts", gw.user_token("ken"), fact("ken's note, session s-1 too")).json()
    subject = {"format": "complex", "user": iss_sub(gw.sts.issuer, "carol"),
               "session": {"format": "opaque", "id": "s-1"}}
    r = tx.push(url(gw), tx.set(aud(gw), {SESSION_REVOKED: event()}, sub_id=subject))
    assert r.status_code == 202, r.text
    assert listing(gw, in_session).status_code == 401
    r = listing(gw, other)
    assert r.status_code == 200
    assert written["fact_id"] not in [f["fact_id"] for f in r.json()["facts"]]  # quarantined
    ken = listing(gw, gw.user_token("ken")).json()["facts"]
    assert kept["fact_id"] in [f["fact_id"] for f in ken]  # another owner's session s-1 stays
    revs = gw.stack.guard.ledger.lineage.revocations()
    assert [(x.selector.kind, x.selector.value) for x in revs] == [("fact", written["fact_id"])]


def test_event_in_the_legacy_subject_member_and_jwt_id_subject(
        gw: Gateway, tx: TestTransmitter) -> None:
    a, b = gw.user_token("dave"), gw.user_token("dave")
    jti = gw.stack.verifier.access.verify(a).principal.token_jti
    body = event() | {"subject": {"format": "jwt_id", "iss": gw.sts.issuer, "jti": jti}}
    assert tx.push(url(gw), tx.set(aud(gw), {TOKEN_CLAIMS_CHANGE: body})).status_code == 202
    assert listing(gw, a).status_code == 401
    assert listing(gw, b).status_code == 200


def test_agent_credential_change_denies_the_agent_in_every_chain(
        gw: Gateway, tx: TestTransmitter) -> None:
    chain = gw.chain("erin")
    svid = gw.svid(PLANNER)
    assert listing(gw, chain["planner"], svid).status_code == 200
    r = tx.push(url(gw), tx.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="revoke")},
                                sub_id={"format": "uri", "uri": PLANNER}))
    assert r.status_code == 202
    assert listing(gw, chain["planner"], svid).status_code == 401
    assert listing(gw, chain["user"]).status_code == 200  # the user herself is not revoked


def test_assurance_increase_changes_nothing_and_decrease_denies(
        gw: Gateway, tx: TestTransmitter) -> None:
    token = gw.user_token("frank")
    sub = iss_sub(gw.sts.issuer, "frank")
    up = event(namespace="NIST-AAL", current_level="aal2", previous_level="aal1",
               change_direction="increase")
    assert tx.push(url(gw), tx.set(aud(gw), {ASSURANCE_LEVEL_CHANGE: up}, sub_id=sub)).status_code == 202
    assert listing(gw, token).status_code == 200
    down = {**up, "change_direction": "decrease", "current_level": "aal1", "previous_level": "aal2"}
    assert tx.push(url(gw), tx.set(aud(gw), {ASSURANCE_LEVEL_CHANGE: down}, sub_id=sub)).status_code == 202
    assert listing(gw, token).status_code == 401


@pytest.mark.parametrize("case,err", [
    ("other_key", "authentication_failed"),
    ("other_issuer", "invalid_issuer"),
    ("other_audience", "invalid_audience"),
    ("access_token_typ", "invalid_request"),
    ("too_old", "invalid_request"),
    ("sub_claim", "invalid_request"),
    ("two_subjects", "invalid_request"),
    ("media_type", "invalid_request"),
])
def test_bad_security_events_are_refused_audited_and_change_nothing(
        gw: Gateway, tx: TestTransmitter, case: str, err: str) -> None:
    token = gw.user_token("gina")
    sub = iss_sub(gw.sts.issuer, "gina")
    events = {SESSION_REVOKED: event()}
    kw: dict[str, Any] = {"sub_id": sub}
    content_type = "application/secevent+jwt"
    audience = aud(gw)
    if case == "other_key":
        kw["key"] = ec.generate_private_key(ec.SECP256R1())
    elif case == "other_issuer":
        tx = TestTransmitter(issuer="https://evil.example.test", key=tx.key)
    elif case == "other_audience":
        audience = gw.resource  # the access-token audience is not the SET audience
    elif case == "access_token_typ":
        kw["typ"] = "at+jwt"
    elif case == "too_old":
        kw["iat"] = int(time.time()) - 3600
    elif case == "sub_claim":
        kw["sub"] = "gina"
    elif case == "two_subjects":
        events = {SESSION_REVOKED: event() | {"subject": sub}}
    elif case == "media_type":
        content_type = "application/json"
    before = len(ssf_events(gw, "deny"))
    r = tx.push(url(gw), tx.set(audience, events, **kw), content_type=content_type)
    assert r.status_code == 400, r.text
    assert r.json()["err"] == err
    assert len(ssf_events(gw, "deny")) == before + 1  # one deny event
    assert listing(gw, token).status_code == 200  # and no effect


def test_a_replayed_set_is_refused(gw: Gateway, tx: TestTransmitter) -> None:
    token = tx.set(aud(gw), {SESSION_REVOKED: event()}, sub_id=iss_sub(gw.sts.issuer, "hank"))
    assert tx.push(url(gw), token).status_code == 202
    r = tx.push(url(gw), token)
    assert r.status_code == 400 and "identity.replayed" in r.json()["description"]
    jti = gw.stack.ssf.verifier.verify(token, claim=False).jti if gw.stack.ssf else ""
    assert [e.reason for e in ssf_events(gw, "deny") if e.detail.get("set_jti") == jti] == [
        "identity.replayed"]


def test_unsupported_subject_format_is_accepted_and_raised_as_an_alarm(
        gw: Gateway, tx: TestTransmitter) -> None:
    before = len(ssf_events(gw, "alarm"))
    r = tx.push(url(gw), tx.set(aud(gw), {SESSION_REVOKED: event()},
                                sub_id={"format": "email", "email": "ivy@example.test"}))
    assert r.status_code == 202
    alarms = ssf_events(gw, "alarm")
    assert len(alarms) == before + 1 and alarms[-1].reason == "ssf.unsupported"


def test_the_deny_list_survives_a_restart(tmp_path: Path, tx: TestTransmitter) -> None:
    with running_gateway(tmp_path, ssf={"enabled": True, "transmitters": [tx.config()]}) as gw:
        token = gw.user_token("jack")
        r = tx.push(url(gw), tx.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="update")},
                                    sub_id=iss_sub(gw.sts.issuer, "jack")))
        assert r.status_code == 202
        config: GatewayConfig = gw.stack.config
    stack = open_stack(config)
    try:
        with pytest.raises(IdentityError) as refused:
            stack.guard.authenticate(token)
        assert refused.value.code == "identity.revoked"
    finally:
        stack.close()


def test_revoked_tokens_are_not_exchanged_and_delegated_tokens_keep_the_session(
        gw: Gateway, tx: TestTransmitter) -> None:
    user = user_token_with_sid(gw, "lena", "s-lena")
    client = gw.exchange_client(gw.planner)
    try:
        planner = client.exchange(user, audience=gw.resource, scope="memory:read").access_token
        svid = gw.svid(PLANNER)
        assert listing(gw, planner, svid).status_code == 200
        subject = {"format": "complex", "user": iss_sub(gw.sts.issuer, "lena"),
                   "session": {"format": "opaque", "id": "s-lena"}}
        r = tx.push(url(gw), tx.set(aud(gw), {SESSION_REVOKED: event()}, sub_id=subject))
        assert r.status_code == 202
        assert listing(gw, planner, svid).status_code == 401  # the agent's token was in it too
        with pytest.raises(TokenExchangeError) as info:  # no fresh token from a revoked one
            client.exchange(user, audience=gw.resource, scope="memory:read")
        assert info.value.error == "invalid_grant"
        # a credential change: the old token cannot be traded for a new one either
        old = gw.user_token("mona")
        r = tx.push(url(gw), tx.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="update")},
                                    sub_id=iss_sub(gw.sts.issuer, "mona")))
        assert r.status_code == 202
        with pytest.raises(TokenExchangeError):
            client.exchange(old, audience=gw.resource, scope="memory:read")
    finally:
        client.close()


def test_readiness_checks_the_deny_list(gw: Gateway) -> None:
    r = httpx.get(f"{gw.base}/readyz", timeout=10)
    assert r.status_code == 200 and r.json()["checks"]["revocations"] == "ok"
