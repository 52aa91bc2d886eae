"""The RFC 8693 grant of the local STS (no HTTP here): client auth, hop rules, scope, audience, exp.

Each refusal asserts the RFC error code, a deny event in the STS audit sink with the internal reason,
and that no token was issued.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jwt
import pytest
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import AUDIENCE, ISSUER, Env, make_client, make_env

from memguard.events import Decision
from memguard.tokens import TokenExchangeError
from memguard.tokens.rfc7523 import SqliteReplayCache

CODER = "spiffe://memguard.local/agent/coder"
JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt"


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return make_env(tmp_path, Clock())


def refused(env: Env, form: dict[str, list[str]], error: str, reason: str | None = None) -> None:
    before = len(env.events)
    with pytest.raises(TokenExchangeError) as info:
        env.sts.token_request(form)
    assert info.value.error == error, info.value.reason
    assert info.value.body() == {"error": error, "error_description": str(info.value)}
    new = env.events[before:]
    assert len(new) == 1 and new[0].decision is Decision.DENY
    assert new[0].reason.startswith(error + ":")
    if reason is not None:
        assert reason in new[0].reason, new[0].reason
    assert "issued_jti" not in new[0].detail
    for values in form.values():  # no token or assertion text in the audit event
        for v in values:
            if len(v) > 40:
                assert v not in new[0].canonical().decode()


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def test_first_and_second_hop(env: Env) -> None:
    planner = claims(env.planner_token())
    assert planner["act"] == {"sub": PLANNER, "iss": "spiffe://memguard.local"}
    assert planner["client_id"] == PLANNER and planner["aud"] == AUDIENCE
    browser = claims(env.browser_token())
    assert browser["act"] == {"sub": BROWSER, "iss": "spiffe://memguard.local",
                              "act": {"sub": PLANNER, "iss": "spiffe://memguard.local"}}
    assert browser["scope"] == "memory:read" and browser["sub"] == "alice"
    assert [e.decision for e in env.events][-1] is Decision.ALLOW


def test_unauthenticated_client(env: Env) -> None:
    user = env.user_token()
    refused(env, env.form(env.planner, user, client_assertion=None, client_assertion_type=None),
            "invalid_client")
    refused(env, env.form(env.planner, user, client_assertion=None, client_secret="s3cret"),
            "invalid_client")
    refused(env, env.form(env.planner, user, client_assertion_type="urn:x"), "invalid_client")
    stranger = make_client(CODER)
    refused(env, env.form(stranger, user), "invalid_client", "identity.bad_client")


@pytest.mark.parametrize(
    ("over", "reason"),
    [
        ({"aud": "https://other.example/token"}, "identity.bad_audience"),
        ({"aud": [ISSUER, "x"]}, "identity.bad_audience"),
        ({"sub": "someone-else"}, "identity.bad_client"),
        ({"exp": 1_800_000_000 + 3000}, "identity.bad_claims"),
        ({"exp": 1_799_999_000, "iat": 1_799_998_990}, "identity.expired"),
        ({"jti": None}, "identity.bad_identifier"),
        ({"exp": "1800000060"}, "identity.bad_claims"),
    ],
)
def test_bad_client_assertion(env: Env, over: dict[str, Any], reason: str) -> None:
    assertion = env.planner.assertion(ISSUER, int(env.clock()), **over)
    refused(env, env.form(env.planner, env.user_token(), client_assertion=assertion),
            "invalid_client", reason)


def test_client_assertion_signed_by_other_key(env: Env) -> None:
    impostor = make_client(PLANNER)
    impostor.kid = env.planner.kid
    refused(env, env.form(impostor, env.user_token()), "invalid_client", "identity.bad_signature")


def test_replayed_client_assertion(env: Env) -> None:
    assertion = env.planner.assertion(ISSUER, int(env.clock()), jti="once")
    env.sts.token_request(env.form(env.planner, env.user_token(), client_assertion=assertion))
    refused(env, env.form(env.planner, env.user_token(), client_assertion=assertion),
            "invalid_client", "identity.replayed")


def test_sqlite_replay_cache_is_shared(tmp_path: Path) -> None:
    a, b = SqliteReplayCache(tmp_path / "jti.db"), SqliteReplayCache(tmp_path / "jti.db")
    assert a.use("k", 200, 100) is True
    assert b.use("k", 200, 100) is False
    assert b.use("k", 200, 300) is True  # expired entries are purged


def test_bad_grant_type_and_repeated_parameters(env: Env) -> None:
    user = env.user_token()
    refused(env, env.form(env.planner, user, grant_type="client_credentials"), "unsupported_grant_type")
    refused(env, env.form(env.planner, user, scope=["memory:read", "memory:read"]), "invalid_request")
    refused(env, env.form(env.planner, user, subject_token_type="urn:x"), "invalid_request")
    refused(env, env.form(env.planner, user, requested_token_type="urn:ietf:params:oauth:token-type:id_token"),
            "invalid_request")
    refused(env, env.form(env.planner, user, subject_token=None), "invalid_request")


def test_subject_token_verified_in_full(env: Env) -> None:
    user = env.user_token()
    head, body, sig = user.split(".")
    tampered = ".".join([head, body[:-2] + ("AA" if body[-2:] != "AA" else "BB"), sig])
    refused(env, env.form(env.planner, tampered), "invalid_grant", "identity.")
    refused(env, env.form(env.planner, env.svid(PLANNER)), "invalid_grant", "identity.bad_type")
    env.clock.advance(3600)
    refused(env, env.form(env.planner, user), "invalid_grant", "identity.expired")


def test_actor_not_allowed_by_may_act(env: Env) -> None:
    token = env.user_token(may_act={"sub": BROWSER})
    refused(env, env.form(env.planner, token), "invalid_grant", "may_act")


def test_may_act_alone_authorizes_a_hop(tmp_path: Path) -> None:
    coder = make_client(CODER)
    env = make_env(tmp_path, Clock())
    env.sts.clients.clients[CODER] = coder.registered()
    from memguard.tokens.rfc7517 import StaticKeySource

    env.sts.clients._keys[CODER] = StaticKeySource(coder.registered().jwks, frozenset({"ES256"}))
    refused(env, env.form(coder, env.user_token()), "invalid_grant", "not granted")
    out = env.sts.token_request(env.form(coder, env.user_token(may_act={"sub": CODER})))
    assert claims(out["access_token"])["act"]["sub"] == CODER


def test_scope_widening_is_refused_not_narrowed(env: Env) -> None:
    narrow = env.user_token(scopes=("memory:read",))
    refused(env, env.form(env.planner, narrow, scope="memory:read memory:write"), "invalid_scope")
    refused(env, env.form(env.planner, env.user_token(), scope="memory:admin"), "invalid_scope")
    refused(env, env.form(env.planner, env.user_token(), scope=None), "invalid_scope")
    refused(env, env.form(env.planner, env.user_token(), scope="memory:read  x"), "invalid_scope")
    # second hop: the planner's token carries memory:read only; the browser may not get write
    planner = env.planner_token(scope="memory:read")
    actor = env.svid(BROWSER, use="actor")
    refused(env, env.form(env.planner, planner, scope="memory:write", actor_token=actor,
                          actor_token_type=JWT_TYPE), "invalid_scope")


def test_lifetime_is_never_extended(env: Env) -> None:
    user = env.user_token(ttl=300)
    user_exp = claims(user)["exp"]
    env.clock.advance(200)
    out = env.sts.token_request(env.form(env.planner, user))
    assert claims(out["access_token"])["exp"] == user_exp
    assert out["expires_in"] == 100
    actor = env.svid(BROWSER, use="actor", ttl=30)
    second = env.sts.token_request(env.form(env.planner, out["access_token"], actor_token=actor,
                                            actor_token_type=JWT_TYPE))
    assert claims(second["access_token"])["exp"] == int(env.clock()) + 30


def test_one_audience(env: Env) -> None:
    user = env.user_token()
    refused(env, env.form(env.planner, user, audience=["memguard", "other"]), "invalid_target")
    refused(env, env.form(env.planner, user, audience=None), "invalid_target")
    refused(env, env.form(env.planner, user, audience="https://evil.example"), "invalid_target")
    refused(env, env.form(env.planner, user, resource="https://x.example"), "invalid_target")
    ok = env.sts.token_request(env.form(env.planner, user, audience=None, resource=AUDIENCE))
    assert claims(ok["access_token"])["aud"] == AUDIENCE


def test_redelegation_only_by_current_actor(env: Env) -> None:
    planner_token = env.planner_token()
    refused(env, env.form(env.browser, planner_token), "invalid_grant", "current actor")
    # first hop: the client cannot name another workload as the actor
    refused(env, env.form(env.planner, env.user_token(), actor_token=env.svid(BROWSER, use="actor"),
                          actor_token_type=JWT_TYPE), "invalid_grant", "first hop")


def test_cycles_depth_and_actor_token_kind(tmp_path: Path) -> None:
    env = make_env(tmp_path, Clock(), max_depth=1)
    planner_token = env.planner_token()
    refused(env, env.form(env.planner, planner_token, actor_token=env.svid(PLANNER, use="actor"),
                          actor_token_type=JWT_TYPE), "invalid_grant", "cycle")
    refused(env, env.form(env.planner, planner_token, actor_token=env.svid(BROWSER, use="actor"),
                          actor_token_type=JWT_TYPE), "invalid_grant", "too deep")
    refused(env, env.form(env.planner, planner_token, actor_token=planner_token,
                          actor_token_type=JWT_TYPE), "invalid_grant", "actor_token identity.bad_type")
    # a presenter credential is no actor token (its own typ), nor one with another audience
    refused(env, env.form(env.planner, planner_token, actor_token=env.svid(BROWSER),
                          actor_token_type=JWT_TYPE), "invalid_grant", "actor_token identity.bad_type")
    refused(env, env.form(env.planner, planner_token,
                          actor_token=env.svid(BROWSER, use="actor", audience="https://other.example"),
                          actor_token_type=JWT_TYPE), "invalid_grant", "bad_audience")


def test_rotation_keeps_issued_tokens_valid(env: Env) -> None:
    old = env.user_token()
    old_kid = env.sts.access_keys.active_kid
    new_kid = env.sts.access_keys.rotate()
    assert new_kid != old_kid
    assert {k["kid"] for k in env.sts.jwks()["keys"]} == {old_kid, new_kid}
    guard = env.guard()  # built from the published JWKS after rotation
    assert guard.authenticate(old).principal.subject.subject == "alice"
    fresh = env.user_token()
    assert jwt.get_unverified_header(fresh)["kid"] == new_kid
    assert guard.authenticate(fresh)
    env.sts.token_request(env.form(env.planner, old))  # the STS still accepts its old tokens
    env.clock.advance(env.sts.access_keys.retain + 1)
    assert [k["kid"] for k in env.sts.jwks()["keys"]] == [new_kid]


def test_keys_persist_across_restarts(env: Env, tmp_path: Path) -> None:
    from memguard.tokens import SecurityTokenService

    token = env.user_token()
    again = SecurityTokenService(tmp_path / "sts", issuer=ISSUER, clock=env.clock)
    assert again.jwks() == env.sts.jwks()
    assert again.subject_verifier.verify(token).principal.subject.subject == "alice"
    assert oct((tmp_path / "sts" / "access" / f"{again.access_keys.active_kid}.pem").stat().st_mode)[-3:] == "600"


def test_es256_sts(tmp_path: Path) -> None:
    env = make_env(tmp_path, Clock(), alg="ES256")
    assert jwt.get_unverified_header(env.user_token())["alg"] == "ES256"
    out = env.sts.token_request(env.form(env.planner, env.user_token()))
    assert claims(out["access_token"])["act"]["sub"] == PLANNER


def test_workload_credential_as_client_authentication(env: Env) -> None:
    """A workload may authenticate with a JWT-SVID made for that (typ JWT, audience = the token
    endpoint), once per jti; its presenter credential or an actor token never authenticates it."""
    spiffe = "urn:ietf:params:oauth:client-assertion-type:jwt-spiffe"
    svid = env.svid(PLANNER, use="client")
    form = env.form(env.planner, env.user_token(), client_assertion_type=spiffe, client_assertion=svid)
    out = env.sts.token_request(form)
    assert claims(out["access_token"])["client_id"] == PLANNER
    refused(env, form, "invalid_client", "identity.replayed")
    refused(env, env.form(env.planner, env.user_token(), client_assertion_type=spiffe,
                          client_assertion=env.svid(PLANNER)), "invalid_client", "bad_type")
    refused(env, env.form(env.planner, env.user_token(), client_assertion_type=spiffe,
                          client_assertion=env.svid(PLANNER, use="actor")), "invalid_client", "bad_type")
    refused(env, env.form(env.planner, env.user_token(), client_assertion_type=spiffe,
                          client_assertion=env.svid(PLANNER, use="client",
                                                    audience="https://other.example")),
            "invalid_client", "bad_audience")
    refused(env, env.form(env.planner, env.user_token(), client_assertion_type=spiffe,
                          client_assertion=env.svid(PLANNER, use="client"), client_id=BROWSER),
            "invalid_client", "bad_client")
    refused(env, env.form(env.planner, env.user_token(), client_assertion_type=spiffe,
                          client_assertion=env.user_token()), "invalid_client", "bad_type")


def test_client_assertion_without_iat(env: Env) -> None:
    ok = env.planner.assertion(ISSUER, int(env.clock()), iat=None, jti="no-iat")
    env.sts.token_request(env.form(env.planner, env.user_token(), client_assertion=ok))
    bad = env.planner.assertion(ISSUER, int(env.clock()), iat=None, exp="soon", jti="no-iat-2")
    refused(env, env.form(env.planner, env.user_token(), client_assertion=bad), "invalid_client",
            "identity.bad_claims")


# -- every hop it issues is checked against its grants, whoever asserted it (issue 12) ---------------


def _external_env(tmp_path: Path, *grants: tuple[str, str]) -> tuple[Env, Any, Any]:
    """An STS that exchanges tokens of an external issuer, with ``grants`` beyond the usual."""
    from memguard.tokens import SecurityTokenService
    from memguard.tokens.config import DelegationGrant
    from memguard.tokens.rfc9068 import TrustedIssuer

    clock = Clock()
    idp = SecurityTokenService(tmp_path / "idp", issuer="https://login.example", clock=clock)
    coder = make_client(CODER)
    extra = tuple(DelegationGrant(actor=a, on_behalf_of=o, scopes=("memory:read",)) for a, o in grants)
    env = make_env(tmp_path, clock, extra_issuers={
        idp.issuer: TrustedIssuer(idp.issuer, frozenset({"EdDSA"}), idp.access_keys)})
    env.sts.delegation = (*env.sts.delegation, *extra)
    env.sts.clients.clients[CODER] = coder.registered()
    from memguard.tokens.rfc7517 import StaticKeySource

    env.sts.clients._keys[CODER] = StaticKeySource(coder.registered().jwks, frozenset({"ES256"}))
    return env, idp, coder


def _asserted_hop(idp: Any, actor: str) -> str:
    now = int(idp._clock())
    return str(idp.access_keys.sign({
        "iss": idp.issuer, "sub": "alice", "aud": AUDIENCE, "iat": now, "exp": now + 600,
        "jti": "ext-1", "client_id": actor, "scope": "memory:read",
        "act": {"sub": actor, "iss": "spiffe://memguard.local"}}, "at+jwt"))


def test_a_hop_an_external_issuer_asserted_is_checked_against_the_grants(tmp_path: Path) -> None:
    env, idp, coder = _external_env(tmp_path, (PLANNER, CODER))
    token = _asserted_hop(idp, CODER)  # the external issuer says: alice -> coder
    actor = env.svid(PLANNER, use="actor")
    refused(env, env.form(coder, token, actor_token=actor, actor_token_type=JWT_TYPE),
            "invalid_grant", "hop 0 not granted")


def test_the_same_hop_passes_once_granted(tmp_path: Path) -> None:
    env, idp, coder = _external_env(tmp_path, (PLANNER, CODER), (CODER, "user"))
    out = env.sts.token_request(env.form(coder, _asserted_hop(idp, CODER),
                                         actor_token=env.svid(PLANNER, use="actor"),
                                         actor_token_type=JWT_TYPE))
    issued = claims(out["access_token"])
    assert issued["sub_id"] == {"format": "iss_sub", "iss": "https://login.example", "sub": "alice"}
    assert [issued["act"]["sub"], issued["act"]["act"]["sub"]] == [PLANNER, CODER]


def test_a_hop_only_may_act_allowed_is_not_handed_on(tmp_path: Path) -> None:
    """may_act authorizes one first hop; re-delegating needs a grant for every hop."""
    env, _, coder = _external_env(tmp_path, (BROWSER, CODER))
    out = env.sts.token_request(env.form(coder, env.user_token(may_act={"sub": CODER})))
    refused(env, env.form(coder, out["access_token"], actor_token=env.svid(BROWSER, use="actor"),
                          actor_token_type=JWT_TYPE), "invalid_grant", "hop 0 not granted")
