"""The parts of the SSF receiver without HTTP: SET verification (RFC 8417), CAEP event mapping,
the deny list's semantics and persistence, and the verifier's fail-closed use of it."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import jwt
import pytest
from helpers import Clock
from identity_helpers import ISSUER, make_env
from sqlalchemy import text
from ssf_helpers import (
    ASSURANCE_LEVEL_CHANGE,
    CREDENTIAL_CHANGE,
    SESSION_REVOKED,
    TestTransmitter,
    iss_sub,
)

from memguard.errors import IdentityError
from memguard.identity import PrincipalId
from memguard.tokens.caep import SSF_VERIFICATION, signals
from memguard.tokens.denylist import DenyEntry, DenyList, TokenFacts
from memguard.tokens.rfc7517 import StaticKeySource
from memguard.tokens.rfc7523 import MemoryReplayCache
from memguard.tokens.rfc8417 import SetVerifier, Transmitter
from memguard.tokens.verifier import IdentityVerifier

AUD = "https://memguard.test/ssf"


def verifier(tx: TestTransmitter, clock: Clock) -> SetVerifier:
    keys = StaticKeySource(tx.jwks, frozenset({"ES256"}))
    return SetVerifier({tx.issuer: Transmitter(tx.issuer, frozenset({"ES256"}), keys)},
                       audiences=frozenset({AUD}), replay=MemoryReplayCache(), clock=clock)


def make_set(tx: TestTransmitter, clock: Clock, events: dict[str, Any], **kw: Any) -> str:
    return tx.set(AUD, events, iat=int(clock()), **kw)


def facts(sub: str = "alice", *, iat: int, sid: str | None = None, jti: str = "j1",
          actors: tuple[str, ...] = ()) -> TokenFacts:
    return TokenFacts(token_issuer=ISSUER, subject=PrincipalId(issuer=ISSUER, subject=sub),
                      actors=actors, jti=jti, sid=sid, issued_at=iat)


# -- RFC 8417 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("claims,code", [
    ({"events": {}}, "identity.bad_claims"),
    ({"events": {SESSION_REVOKED: "x"}}, "identity.bad_claims"),
    ({"exp": 1}, "identity.expired"),
    ({"iat_offset": 600}, "identity.bad_claims"),
    ({"jti": None}, "identity.bad_identifier"),
])
def test_set_claims_are_checked(claims: dict[str, Any], code: str) -> None:
    clock, tx = Clock(), TestTransmitter()
    offset = claims.pop("iat_offset", 0)
    body: dict[str, Any] = {"iss": tx.issuer, "aud": AUD, "iat": int(clock()) + offset,
                            "jti": secrets.token_urlsafe(8),
                            "events": {SESSION_REVOKED: {}}, **claims}
    body = {k: v for k, v in body.items() if v is not None}
    token = jwt.encode(body, tx.key, algorithm="ES256",
                       headers={"typ": "secevent+jwt", "kid": tx.jwk["kid"]})
    with pytest.raises(IdentityError) as info:
        verifier(tx, clock).verify(token)
    assert info.value.code == code


def test_a_set_is_accepted_once() -> None:
    clock, tx = Clock(), TestTransmitter()
    v = verifier(tx, clock)
    token = make_set(tx, clock, {SESSION_REVOKED: {}}, sub_id=iss_sub(ISSUER, "a"))
    assert v.verify(token).issuer == tx.issuer
    with pytest.raises(IdentityError) as info:
        v.verify(token)
    assert info.value.code == "identity.replayed"


def test_an_access_token_is_not_a_set_and_a_set_not_an_access_token(tmp_path: Path) -> None:
    clock = Clock()
    env = make_env(tmp_path, clock)
    tx = TestTransmitter(issuer=ISSUER)
    with pytest.raises(IdentityError) as info:
        verifier(tx, clock).verify(env.user_token())
    assert info.value.code in ("identity.bad_type", "identity.unknown_key")
    set_token = make_set(tx, clock, {SESSION_REVOKED: {}}, sub_id=iss_sub(ISSUER, "alice"))
    with pytest.raises(IdentityError) as info:
        IdentityVerifier(env.config(), clock=clock).verify(set_token)
    assert info.value.code == "identity.bad_type"


# -- CAEP --------------------------------------------------------------------------------------


def test_caep_mapping() -> None:
    clock, tx = Clock(), TestTransmitter()
    v = verifier(tx, clock)
    now = int(clock())

    def one(events: dict[str, Any], **kw: Any) -> Any:
        return signals(v.verify(make_set(tx, clock, events, **kw)), retention=100)

    (s,) = one({CREDENTIAL_CHANGE: {"event_timestamp": now - 5, "change_type": "update"}},
               sub_id=iss_sub(ISSUER, "alice"))
    assert s.outcome == "deny" and s.name == "credential-change"
    assert [e.summary() for e in s.entries] == [{"kind": "subject", "issuer": ISSUER,
                                                 "value": "alice", "not_after": now - 5,
                                                 "until": now - 5 + 100}]
    (s,) = one({ASSURANCE_LEVEL_CHANGE: {"change_direction": "increase"}},
               sub_id=iss_sub(ISSUER, "alice"))
    assert s.outcome == "none" and not s.entries
    (s,) = one({SSF_VERIFICATION: {"state": "x"}})
    assert s.outcome == "none"
    (s,) = one({"https://example.test/custom": {}})
    assert s.outcome == "unsupported"
    (s,) = one({SESSION_REVOKED: {}}, sub_id={"format": "session",
                                              "session": {"format": "opaque", "id": "s"}})
    assert s.outcome == "unsupported"  # no memguard principal to name
    (s,) = one({SESSION_REVOKED: {}}, sub_id={"format": "complex",
                                              "session": {"format": "opaque", "id": "s-9"}})
    assert [(e.kind, e.issuer, e.value, e.not_after) for e in s.entries] == [
        ("session", tx.issuer, "s-9", None)]  # the transmitter's session, every token of it
    assert s.sessions == ()  # no owner named: no write revocation
    with pytest.raises(IdentityError):  # both places: ambiguous
        one({SESSION_REVOKED: {"subject": iss_sub(ISSUER, "a")}}, sub_id=iss_sub(ISSUER, "b"))
    with pytest.raises(IdentityError):  # an event from the future of its SET
        one({SESSION_REVOKED: {"event_timestamp": now + 3600}}, sub_id=iss_sub(ISSUER, "a"))
    with pytest.raises(IdentityError):  # an identifier memguard refuses everywhere
        one({SESSION_REVOKED: {}}, sub_id=iss_sub(ISSUER, "al\u200bice"))


# -- the deny list -----------------------------------------------------------------------------


def test_only_tokens_issued_up_to_the_event_are_denied() -> None:
    deny = DenyList(clock=Clock(2000))
    deny.add([DenyEntry("subject", ISSUER, "alice", 1000, 5000, "test")])
    assert deny.check(facts(iat=1000)) is not None
    assert deny.check(facts(iat=1001)) is None  # obtained after the change: good
    assert deny.check(facts("bob", iat=900)) is None
    other = TokenFacts(token_issuer="https://other", subject=PrincipalId(
        issuer="https://other", subject="alice"), actors=(), jti="j", sid=None, issued_at=900)
    assert deny.check(other) is None  # issuer-qualified


def test_entries_merge_to_the_wider_refusal_and_expire() -> None:
    clock = Clock(2000)
    deny = DenyList(clock=clock)
    deny.add([DenyEntry("session", ISSUER, "s", 1000, 3000, "a")])
    (merged,) = deny.add([DenyEntry("session", ISSUER, "s", None, 2500, "b")])
    assert merged.not_after is None and merged.until == 3000
    assert deny.check(facts(iat=1900, sid="s")) is not None
    clock.advance(1000)
    assert deny.check(facts(iat=1900, sid="s")) is None  # every such token has expired by now


def test_agent_entries_match_anywhere_in_the_chain() -> None:
    deny = DenyList()
    agent = "spiffe://memguard.local/agent/planner"
    deny.add([DenyEntry("agent", "spiffe://memguard.local", agent, None, 10**10, "t")])
    assert deny.check(facts(iat=1, actors=(agent, "spiffe://memguard.local/agent/b"))) is not None
    assert deny.check(facts(iat=1, actors=("spiffe://memguard.local/agent/b",))) is None


def test_entries_persist_and_reach_another_process(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'deny.db'}"
    one, two = DenyList.from_url(url, refresh=0.0), DenyList.from_url(url, refresh=0.0)
    seen: list[DenyEntry] = []
    one.subscribe(seen.append)
    one.add([DenyEntry("token", ISSUER, "j1", None, 10**10, "t")])
    assert [e.value for e in seen] == ["j1"]  # a token cache drops what it names
    assert two.check(facts(iat=1, jti="j1")) is not None
    assert DenyList.from_url(url).check(facts(iat=1, jti="j1")) is not None  # after a restart


def test_an_unreadable_deny_list_refuses_every_call(tmp_path: Path) -> None:
    clock = Clock()
    env = make_env(tmp_path, clock)
    url = f"sqlite:///{tmp_path / 'deny.db'}"
    deny = DenyList.from_url(url, refresh=0.0, clock=clock)
    v = IdentityVerifier(env.config(), clock=clock)
    v.denylist = deny
    guard = env.guard(v)
    identity = guard.authenticate(env.user_token())
    assert v.minted(identity)
    assert deny.engine is not None
    with deny.engine.begin() as conn:
        conn.execute(text("DROP TABLE memguard_ssf_denylist"))
    with pytest.raises(IdentityError) as info:
        guard.authenticate(env.user_token())
    assert info.value.code == "identity.revocation_unavailable"
    assert not v.minted(identity)  # a held identity is no longer vouched for either
    denies = [e.reason for e in guard.ledger.events(decision="deny")]
    assert denies == ["identity.revocation_unavailable"]


def test_a_held_identity_is_dropped_when_its_subject_is_revoked(tmp_path: Path) -> None:
    clock = Clock()
    env = make_env(tmp_path, clock)
    deny = DenyList(clock=clock)
    v = IdentityVerifier(env.config(), clock=clock)
    v.denylist = deny
    guard = env.guard(v)
    identity = guard.authenticate(env.user_token())
    deny.add([DenyEntry("subject", ISSUER, "alice", int(clock()), int(clock()) + 3600, "t")])
    with pytest.raises(IdentityError) as info:
        guard.list_facts(identity)
    assert info.value.code == "identity.unverified"
    clock.advance(2)
    assert guard.authenticate(env.user_token()).principal.subject.subject == "alice"


def test_the_standards_page_cites_tests_that_exist() -> None:
    """Every `test_x.py::name` of docs/standards.md's conformance table is a real test."""
    import re

    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "standards.md").read_text("utf-8")
    cited = re.findall(r"`(test_\w+\.py)::(\w+)`", page)
    assert len(cited) >= 20
    for file, name in cited:
        source = (root / "tests" / file).read_text("utf-8")
        assert re.search(rf"^(?:async )?def {name}\(", source, re.M), f"{file}::{name}"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_persisted_entries_merge_to_the_wider_refusal(tmp_path: Path, backend: str) -> None:
    """The SQL upsert keeps the wider refusal and the later expiry, on SQLite and PostgreSQL."""
    from contextlib import ExitStack

    from helpers import pg_schema_url

    with ExitStack() as stack:
        url = (f"sqlite:///{tmp_path / 'deny.db'}" if backend == "sqlite"
               else stack.enter_context(pg_schema_url()))
        clock = Clock(2000)
        one = DenyList.from_url(url, refresh=0.0, clock=clock)
        stack.callback(one.close)
        one.add([DenyEntry("session", ISSUER, "s", 1000, 3000, "a")])
        one.add([DenyEntry("session", ISSUER, "s", None, 2500, "b")])
        one.add([DenyEntry("subject", ISSUER, "alice", 1000, 3000, "c")])
        one.add([DenyEntry("subject", ISSUER, "alice", 1500, 2500, "d")])
        fresh = DenyList.from_url(url, refresh=0.0, clock=clock)
        stack.callback(fresh.close)
        got = {e.key: (e.not_after, e.until) for e in fresh.entries()}
        assert got == {("session", ISSUER, "s"): (None, 3000),
                       ("subject", ISSUER, "alice"): (1500, 3000)}
