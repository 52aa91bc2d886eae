"""SSF 1.0 stream management from the receiver's side, end to end: ``memguard ssf stream ...``
against the tests' own transmitter on loopback (configuration metadata, stream create / read /
update / delete, status, subjects, verification, all behind its bearer), with the gateway
receiving the verification and stream-updated SETs that follow (push and poll)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, running_gateway
from ssf_helpers import STREAM_UPDATED, VERIFICATION, ManagedTransmitter, event
from typer.testing import CliRunner

from memguard.cli import app
from memguard.gateway.ssf_stream_state import StreamStates

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@dataclass
class Env:
    tx: ManagedTransmitter
    gw: Gateway
    config: Path
    tmp: Path

    def cli(self, *args: str, config: Path | None = None) -> tuple[int, Any, str]:
        got = CliRunner().invoke(app, ["ssf", "stream", *args, "--config",
                                       str(config or self.config), "--json"])
        try:
            data = json.loads(got.stdout)
        except ValueError:
            data = got.stdout
        return got.exit_code, data, got.stderr

    def states(self) -> StreamStates:
        return self.gw.stack.ssf.streams  # type: ignore[union-attr,return-value]

    def record(self) -> Any:
        return self.states().get(self.tx.issuer)

    def push_url(self) -> str:
        return f"{self.gw.base}/ssf/events"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    from memguard.tokens.server import serve_local

    tmp = tmp_path_factory.mktemp("ssf-stream")
    tx = ManagedTransmitter()
    (tmp / "poll-token").write_text(tx.bearer + "\n")
    (tmp / "mgmt-token").write_text(tx.mgmt_bearer + "\n")
    with serve_local(tx.app()) as base:
        tx.bind(base, "")
        transmitter = {**tx.config(), "poll_url": f"{base}/poll",
                       "poll_token_file": str(tmp / "poll-token"), "poll_interval": 0.1,
                       "management_token_file": str(tmp / "mgmt-token")}
        with running_gateway(tmp, ssf={"enabled": True, "transmitters": [transmitter]}) as gw:
            tx.audience = f"{gw.resource.rstrip('/')}/ssf"
            config = tmp / "gateway.yaml"  # what an operator's file holds, for the CLI
            config.write_text(json.dumps({
                "version": 1, "state_dir": str(tmp / "gw"),
                "server": {"host": "127.0.0.1", "port": gw.stack.config.server.port},
                "ssf": {"enabled": True, "transmitters": [transmitter]},
            }))
            yield Env(tx, gw, config, tmp)


def receive_events(gw: Gateway, reason: str) -> list[Any]:
    return [e for e in gw.stack.guard.ledger.events() if e.action == "ssf.receive"
            and e.reason == reason]


def wait(check: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_stream_lifecycle_over_push(env: Env) -> None:
    tx, gw = env.tx, env.gw
    code, meta, _ = env.cli("discover")
    assert code == 0 and meta["issuer"] == tx.issuer
    assert meta["configuration_endpoint"] == f"{tx.base}/ssf/streams"

    code, stream, err = env.cli("create", "--endpoint-url", env.push_url())
    assert code == 0, (stream, err)
    sid = stream["stream_id"]
    assert tx.streams[sid]["delivery"] == {"method": "urn:ietf:rfc:8935",
                                           "endpoint_url": env.push_url()}
    assert "https://schemas.openid.net/secevent/caep/event-type/session-revoked" in (
        tx.streams[sid]["events_requested"])
    assert env.record().stream_id == sid

    deny_before = len(gw.stack.denylist.entries())  # type: ignore[union-attr]
    code, out, err = env.cli("verify", "--timeout", "20")
    assert code == 0, (out, err)
    assert out["verified"] is True and env.record().verified_at is not None

    def matched_events() -> list[Any]:
        return [e for e in receive_events(gw, "ssf.verification")
                if e.detail.get("event", {}).get("stream_id") == sid]

    # the stream row is marked verified before the receiver's audit event is committed (the
    # command returns on the mark): wait for the event, then check it is the only one
    wait(lambda: bool(matched_events()))
    matched = matched_events()
    assert [e.detail["verification"] for e in matched] == ["matched"]
    assert matched[0].detail["effect"] == [] and matched[0].decision.value == "allow"
    assert len(gw.stack.denylist.entries()) == deny_before  # type: ignore[union-attr]

    code, out, _ = env.cli("update", "--description", "memguard prod")
    assert code == 0 and tx.streams[sid]["description"] == "memguard prod"
    code, out, _ = env.cli("get")
    assert code == 0 and out["stream_id"] == sid

    subject = json.dumps({"format": "iss_sub", "iss": gw.sts.issuer, "sub": "alice"})
    assert env.cli("add-subject", "--subject", subject)[0] == 0
    assert tx.subjects[sid] == [json.loads(subject)]
    assert env.cli("remove-subject", "--subject", subject)[0] == 0
    assert tx.subjects[sid] == []
    assert env.cli("add-subject", "--subject", "not json")[0] == 3

    # the transmitter pauses the stream on its own: recorded, an alarm, no deny entry
    tx.change_status(sid, "paused", "maintenance")
    assert tx.pushed[-1].status_code == 202, tx.pushed[-1].text
    assert env.record().status == "paused" and env.record().reason == "maintenance"
    alarms = [e for e in receive_events(gw, "ssf.stream-updated")
              if e.detail.get("event", {}).get("stream_id") == sid]
    assert [(a.decision.value, a.detail["event"]["status"]) for a in alarms] == [
        ("alarm", "paused")]
    code, out, _ = env.cli("status")
    assert code == 0 and out["transmitter"]["status"] == "paused"
    assert out["recorded"]["status"] == "paused"
    code, out, _ = env.cli("set-status", "enabled")
    assert code == 0 and tx.status[sid]["status"] == "enabled"

    code, out, _ = env.cli("delete")
    assert code == 0 and sid not in tx.streams and env.record() is None
    assert env.cli("status")[0] == 6  # nothing recorded any more
    assert len(gw.stack.denylist.entries()) == deny_before  # type: ignore[union-attr]


def test_a_poll_stream_is_verified_through_the_poll(env: Env) -> None:
    code, stream, err = env.cli("create", "--delivery", "poll")
    assert code == 0, (stream, err)
    assert stream["delivery"]["endpoint_url"] == f"{env.tx.base}/poll"
    code, out, err = env.cli("verify", "--timeout", "20")
    assert code == 0, (out, err)
    assert env.cli("delete")[0] == 0


def test_management_calls_need_the_transmitters_bearer(env: Env) -> None:
    bad = env.tmp / "bad.yaml"
    data = json.loads(env.config.read_text())
    (env.tmp / "wrong-token").write_text("not-the-token")
    data["ssf"]["transmitters"][0]["management_token_file"] = str(env.tmp / "wrong-token")
    bad.write_text(json.dumps(data))
    before = len(env.tx.streams)
    code, out, _ = env.cli("create", "--endpoint-url", env.push_url(), config=bad)
    assert code == 1 and out["error"]["code"] == "ssf.transmitter.http_401"
    assert len(env.tx.streams) == before and env.record() is None


def test_metadata_naming_another_issuer_is_not_used(env: Env) -> None:
    env.tx.issuer_override = "https://evil.example.test/ssf"
    try:
        env.tx.mgmt_requests.clear()
        code, out, _ = env.cli("create", "--endpoint-url", env.push_url())
        assert code == 4 and out["error"]["code"] == "ssf.metadata_issuer"
        assert env.tx.mgmt_requests == []  # no management endpoint was called
        assert env.record() is None
    finally:
        env.tx.issuer_override = None


def test_an_unsolicited_verification_is_audited_and_changes_nothing(env: Env) -> None:
    tx, gw = env.tx, env.gw
    deny_before = len(gw.stack.denylist.entries())  # type: ignore[union-attr]
    sid = secrets.token_urlsafe(6)
    token = tx.set(tx.audience, {VERIFICATION: event(state="never-asked")},
                   sub_id={"format": "opaque", "id": sid})
    assert tx.push(env.push_url(), token).status_code == 202
    got = [e for e in receive_events(gw, "ssf.verification")
           if e.detail.get("event", {}).get("stream_id") == sid]
    assert [e.detail["verification"] for e in got] == ["unsolicited"]
    assert "never-asked" not in json.dumps(got[0].detail)  # only its digest is kept
    assert len(gw.stack.denylist.entries()) == deny_before  # type: ignore[union-attr]
    # a stream-updated SET with a status SSF does not define is refused, and changes nothing
    bad = tx.set(tx.audience, {STREAM_UPDATED: event(status="sleeping")},
                 sub_id={"format": "opaque", "id": sid})
    r = tx.push(env.push_url(), bad)
    assert r.status_code == 400 and r.json()["err"] == "invalid_request"


def test_verify_fails_when_no_event_arrives(env: Env) -> None:
    code, stream, _ = env.cli("create", "--endpoint-url", "http://127.0.0.1:9/ssf/events")
    assert code == 0
    try:
        code, out, _ = env.cli("verify", "--timeout", "1")
        assert code == 4 and out["error"]["code"] == "ssf.verification_timeout"
        assert env.record().verified_at is None
    finally:
        env.tx.streams[stream["stream_id"]]["delivery"] = {"method": "urn:ietf:rfc:8936"}
        assert env.cli("delete")[0] == 0
    assert httpx.get(f"{env.gw.base}/readyz", timeout=10).status_code == 200


def test_a_stream_event_that_cannot_be_recorded_is_a_503_and_not_claimed(env: Env) -> None:
    """Fail closed: the stream table is written before the SET's ``jti`` is claimed, so a
    failure there is a 503 (the transmitter retries), a deny event, and the retry applies it."""
    from sqlalchemy import text

    from memguard.gateway.ssf_stream_state import _META, STREAMS

    tx, gw = env.tx, env.gw
    sid = secrets.token_urlsafe(6)
    token = tx.set(tx.audience, {STREAM_UPDATED: event(status="disabled")},
                   sub_id={"format": "opaque", "id": sid})
    engine = env.states().engine
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE memguard_ssf_stream"))
    try:
        r = tx.push(env.push_url(), token)
        assert r.status_code == 503 and r.json()["description"] == "ssf.apply_failed"
        assert [e for e in gw.stack.guard.ledger.events(decision="deny")
                if e.reason == "ssf.apply_failed"]
    finally:
        _META.create_all(engine, tables=[STREAMS])
    assert tx.push(env.push_url(), token).status_code == 202  # the retry: not a replay
    got = [e for e in receive_events(gw, "ssf.stream-updated")
           if e.detail.get("event", {}).get("stream_id") == sid]
    assert len(got) == 1 and got[0].decision.value == "alarm"
