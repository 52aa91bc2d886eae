"""RFC 8936 poll delivery: the gateway polls the tests' own transmitter on loopback for real ES256
SETs, applies them as if pushed (same verification, same effects), acknowledges what it applied
and reports what it refused; a SET it could not apply is neither, so it comes again."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from gateway_helpers import Gateway, running_gateway
from ssf_helpers import CREDENTIAL_CHANGE, SESSION_REVOKED, PollingTransmitter, event, iss_sub

from memguard.errors import StoreError
from memguard.gateway.ssf_poll import SsfPoller
from memguard.tokens.server import serve_local

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def txs() -> Iterator[tuple[PollingTransmitter, str, PollingTransmitter, str]]:
    polled = PollingTransmitter()
    other = PollingTransmitter(bearer="other-secret")
    other.issuer = "https://other-idp.example.test/ssf"
    with serve_local(polled.app()) as a, serve_local(other.app()) as b:
        yield polled, f"{a}/poll", other, f"{b}/poll"


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory,
       txs: tuple[PollingTransmitter, str, PollingTransmitter, str]) -> Iterator[Gateway]:
    polled, poll_url, other, _ = txs
    tmp = tmp_path_factory.mktemp("ssf-poll")
    (tmp / "poll-token").write_text(polled.bearer + "\n")
    transmitters = [
        {**polled.config(), "poll_url": poll_url, "poll_token_file": str(tmp / "poll-token"),
         "poll_interval": 0.1},
        other.config(),  # push only here; the unit tests below poll it by hand
    ]
    with running_gateway(tmp, ssf={"enabled": True, "transmitters": transmitters}) as g:
        yield g


def aud(gw: Gateway) -> str:
    return f"{gw.resource.rstrip('/')}/ssf"


def listing(gw: Gateway, token: str) -> httpx.Response:
    return httpx.get(f"{gw.base}/v1/facts", headers=gw.headers(token), timeout=10)


def wait(check: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def ssf_events(gw: Gateway, jti: str) -> list[Any]:
    return [e for e in gw.stack.guard.ledger.events() if e.action == "ssf.receive"
            and e.detail.get("set_jti") == jti]


def test_a_polled_event_denies_at_once_and_is_acknowledged(
        gw: Gateway, txs: tuple[PollingTransmitter, str, PollingTransmitter, str]) -> None:
    tx = txs[0]
    alice, bob = gw.user_token("alice"), gw.user_token("bob")
    assert listing(gw, alice).status_code == 200
    jti = tx.queue(tx.set(aud(gw), {SESSION_REVOKED: event()},
                          sub_id=iss_sub(gw.sts.issuer, "alice")))
    wait(lambda: listing(gw, alice).status_code == 401)
    assert listing(gw, alice).json()["error"]["code"] == "identity.revoked"
    assert listing(gw, bob).status_code == 200
    wait(lambda: jti in tx.acked)
    assert jti not in tx.pending and jti not in tx.errors
    (applied,) = ssf_events(gw, jti)
    assert applied.decision.value == "allow" and applied.reason == "ssf.session-revoked"
    assert applied.detail["delivery"] == "poll"
    assert all(r.get("returnImmediately") is True for r in tx.requests)


def test_refused_polled_sets_are_reported_in_set_errs_and_change_nothing(
        gw: Gateway, txs: tuple[PollingTransmitter, str, PollingTransmitter, str]) -> None:
    tx, _, other, _ = txs
    carl = gw.user_token("carl")
    revoke = {CREDENTIAL_CHANGE: event(change_type="revoke")}
    sub = iss_sub(gw.sts.issuer, "carl")
    forged = tx.queue(tx.set(aud(gw), revoke, sub_id=sub,
                             key=ec.generate_private_key(ec.SECP256R1())))
    wrong_aud = tx.queue(tx.set("https://someone-else.example/ssf", revoke, sub_id=sub))
    relabelled = tx.queue(tx.set(aud(gw), revoke, sub_id=sub), jti="not-its-jti")
    # another configured transmitter's SET, served by this transmitter's poll endpoint
    foreign = tx.queue(other.set(aud(gw), revoke, sub_id=sub))
    wait(lambda: {forged, wrong_aud, relabelled, foreign} <= set(tx.errors))
    assert tx.errors[forged]["err"] == "authentication_failed"
    assert tx.errors[wrong_aud]["err"] == "invalid_audience"
    assert tx.errors[relabelled]["err"] == "invalid_request"
    assert tx.errors[foreign]["err"] == "invalid_issuer"
    assert not {forged, wrong_aud, relabelled, foreign} & set(tx.acked)
    assert listing(gw, carl).status_code == 200  # none of them had an effect
    denied = [e for e in gw.stack.guard.ledger.events(decision="deny")
              if e.action == "ssf.receive" and e.detail.get("delivery") == "poll"]
    assert len(denied) >= 4


def test_a_pushed_set_polled_again_is_acknowledged_not_applied_twice(
        gw: Gateway, txs: tuple[PollingTransmitter, str, PollingTransmitter, str]) -> None:
    tx = txs[0]
    token = tx.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="revoke")},
                   sub_id=iss_sub(gw.sts.issuer, "dora"))
    r = tx.push(f"{gw.base}/ssf/events", token)
    assert r.status_code == 202, r.text
    jti = tx.queue(token)
    wait(lambda: jti in tx.acked)
    events = ssf_events(gw, jti)
    assert [e.decision.value for e in events] == ["allow", "deny"]
    assert events[1].reason == "identity.replayed"


def _poller(gw: Gateway, other: PollingTransmitter, url: str, **kw: Any) -> SsfPoller:
    assert gw.stack.ssf is not None
    return SsfPoller(gw.stack.ssf, issuer=other.issuer, url=url,
                     token=kw.pop("token", lambda: other.bearer), **kw)


def test_a_set_that_cannot_be_applied_is_delivered_again(
        gw: Gateway, txs: tuple[PollingTransmitter, str, PollingTransmitter, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, other, url = txs
    erin = gw.user_token("erin")
    jti = other.queue(other.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="revoke")},
                                sub_id=iss_sub(gw.sts.issuer, "erin")))
    assert gw.stack.ssf is not None
    denylist = gw.stack.ssf.denylist

    def down(*_: Any, **__: Any) -> None:
        raise StoreError("deny list unavailable", code="backend.ledger")

    poller = _poller(gw, other, url)
    try:
        monkeypatch.setattr(denylist, "add", down)
        first = poller.poll_once()
        assert first.deferred == [jti] and not first.applied
        monkeypatch.undo()
        assert listing(gw, erin).status_code == 200  # not applied ...
        second = poller.poll_once()  # ... neither acked nor refused, so delivered again
        assert other.requests[-1].get("ack") is None and other.requests[-1].get("setErrs") is None
        assert second.applied == [jti]
        assert listing(gw, erin).status_code == 401
        poller.poll_once()
        assert other.requests[-1]["ack"] == [jti] and jti not in other.pending
    finally:
        poller.stop()


def test_a_failing_poll_is_one_alarm_keeps_its_acks_and_changes_nothing(
        gw: Gateway, txs: tuple[PollingTransmitter, str, PollingTransmitter, str]) -> None:
    _, _, other, url = txs
    jti = other.queue(other.set(aud(gw), {CREDENTIAL_CHANGE: event(change_type="revoke")},
                                sub_id=iss_sub(gw.sts.issuer, "fay")))
    poller = _poller(gw, other, url)
    bad = _poller(gw, other, url, token=lambda: "wrong-" + secrets.token_hex(4))

    def alarms() -> list[Any]:
        return [e for e in gw.stack.guard.ledger.events(decision="alarm")
                if e.action == "ssf.poll" and e.reason == "ssf.poll_failed"]

    try:
        before = len(alarms())
        assert bad.poll_once().applied == []  # the transmitter refuses the bearer: nothing
        assert len(alarms()) == before + 1 and alarms()[-1].detail["error"] == "http.401"
        assert poller.poll_once().applied == [jti]
        other.fail_with = 503
        assert poller.poll_once().applied == []
        assert poller.poll_once().applied == []
        assert len(alarms()) == before + 2  # one alarm per run of failures, not per poll
        assert jti in other.pending  # the ack did not get through ...
        other.fail_with = None
        poller.poll_once()
        assert other.requests[-1]["ack"] == [jti] and jti not in other.pending  # ... now it did
    finally:
        other.fail_with = None
        poller.stop()
        bad.stop()


def test_poll_settings_are_checked(tmp_path: Path) -> None:
    from memguard.gateway.config import GatewayConfig

    base = {"issuer": "https://idp.example.test/ssf", "jwks": {"keys": []}}
    for bad in ({"poll_url": "http://idp.example.test/poll"},
                {"poll_url": "http://127.0.0.1.evil.example/poll"},
                {"poll_url": "ftp://127.0.0.1/poll"},
                {"poll_url": "https://idp.example.test/poll", "poll_token_file": "t",
                 "poll_token_env": "T"}):
        with pytest.raises(Exception, match="poll"):
            GatewayConfig.from_mapping({"ssf": {"enabled": True,
                                                "transmitters": [{**base, **bad}]}})
    for good in ("https://idp.example.test/poll", "http://127.0.0.1:8080/poll",
                 "http://[::1]:8080/poll", "http://localhost/poll"):
        GatewayConfig.from_mapping({"ssf": {"enabled": True, "transmitters": [
            {**base, "poll_url": good}]}})
