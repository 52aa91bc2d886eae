"""Attacks on the external-issuer verifier (RFC 9068 access tokens, JWT-SVIDs, presenter binding).

Every token is a real compact JWS: signed with the local STS's own keys (so the only thing wrong is
the mutation under test), with keys of another family, or forged. Each refusal asserts the reason
code, one deny audit event with that reason, no store call and no token text in the audit log.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import (
    AUDIENCE,
    ISSUER,
    PRESENTER_AUDIENCE,
    TOKEN_ENDPOINT,
    Env,
    assert_refused,
    b64,
    dumps,
    make_env,
)

from memguard import IdentityError, Source, SourceKind, Turn
from memguard.tokens import IdentityVerifier
from memguard.tokens.sts import public_jwk

CODER = "spiffe://memguard.local/agent/coder"
DROP = object()


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return make_env(tmp_path, Clock())


@dataclass
class Forge:
    env: Env

    @property
    def kid(self) -> str:
        return self.env.sts.access_keys.active_kid

    @property
    def key(self) -> Ed25519PrivateKey:
        key = self.env.sts.access_keys._keys[self.kid]
        assert isinstance(key, Ed25519PrivateKey)
        return key

    def header(self, **over: Any) -> dict[str, Any]:
        head: dict[str, Any] = {"alg": "EdDSA", "typ": "at+jwt", "kid": self.kid, **over}
        return {k: v for k, v in head.items() if v is not DROP}

    def claims(self, **over: Any) -> dict[str, Any]:
        now = int(self.env.clock())
        body: dict[str, Any] = {
            "iss": ISSUER, "sub": "alice", "aud": AUDIENCE, "iat": now, "exp": now + 600,
            "jti": "jti-1", "client_id": "memguard-cli", "scope": "memory:read", **over,
        }
        return {k: v for k, v in body.items() if v is not DROP}

    def sign_raw(self, header: bytes, payload: bytes, key: Any = None) -> str:
        signing_input = f"{b64(header)}.{b64(payload)}".encode()
        sig = (key or self.key).sign(signing_input)
        return f"{signing_input.decode()}.{b64(sig)}"

    def token(self, header: dict[str, Any] | None = None, **claims: Any) -> str:
        return self.sign_raw(dumps(header or self.header()), dumps(self.claims(**claims)))


@pytest.fixture
def forge(env: Env) -> Forge:
    return Forge(env)


def test_valid_user_token_is_accepted(env: Env, forge: Forge) -> None:
    guard = env.guard()
    identity = guard.authenticate(forge.token())
    assert identity.principal.subject.subject == "alice"
    assert identity.principal.subject.issuer == ISSUER
    assert identity.principal.client_id == "memguard-cli"
    assert guard.authenticate(forge.token(aud=[AUDIENCE])).principal.token_jti == "jti-1"


def _rsa_token(forge: Forge) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return jwt.encode(forge.claims(), key, algorithm="RS256", headers={"kid": forge.kid, "typ": "at+jwt"})


def _hs_confusion(forge: Forge) -> str:
    # The classic: use the public key bytes as an HMAC secret.
    import hashlib
    import hmac

    jwk = public_jwk(forge.key)
    head = b64(dumps(forge.header(alg="HS256")))
    body = b64(dumps(forge.claims()))
    mac = hmac.new(jwk["x"].encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(mac)}"


def _other_ed25519(forge: Forge) -> str:
    return forge.sign_raw(dumps(forge.header()), dumps(forge.claims()), Ed25519PrivateKey.generate())


def _spliced(forge: Forge) -> str:
    a = forge.token(sub="alice")
    b = forge.token(sub="mallory", act={"sub": PLANNER, "iss": "spiffe://memguard.local"})
    return ".".join([*b.split(".")[:2], a.split(".")[2]])


def _non_nfc(forge: Forge) -> str:
    return forge.token(sub=unicodedata.normalize("NFD", "amélie"))


CASES: list[tuple[str, Callable[[Forge], str], str]] = [
    *[(f"alg-{a}", lambda f, a=a: f.token(f.header(alg=a)), "identity.bad_alg")
      for a in ("none", "None", "NONE", "nOnE", "")],
    ("alg-missing", lambda f: f.token(f.header(alg=DROP)), "identity.bad_alg"),
    ("alg-eddsa-lowercase", lambda f: f.token(f.header(alg="eddsa")), "identity.bad_alg"),
    ("hs256-confusion", _hs_confusion, "identity.bad_alg"),
    ("rs256-key-confusion", _rsa_token, "identity.bad_alg"),
    ("es256-not-pinned", lambda f: f.token(f.header(alg="ES256")), "identity.bad_alg"),
    ("forged-signature", _other_ed25519, "identity.bad_signature"),
    ("spliced-act-chain", _spliced, "identity.bad_signature"),
    ("kid-missing", lambda f: f.token(f.header(kid=DROP)), "identity.unknown_key"),
    ("kid-unknown", lambda f: f.token(f.header(kid="nope")), "identity.unknown_key"),
    ("kid-path", lambda f: f.token(f.header(kid="../../etc/passwd")), "identity.unknown_key"),
    ("kid-sql", lambda f: f.token(f.header(kid="' OR 1=1 --")), "identity.unknown_key"),
    ("kid-oversized", lambda f: f.token(f.header(kid="k" * 2000)), "identity.unknown_key"),
    ("kid-not-string", lambda f: f.token(f.header(kid=7)), "identity.unknown_key"),
    *[(f"header-{h}", lambda f, h=h: f.token(f.header(**{h: "https://evil.example/k"})),
       "identity.bad_header") for h in ("jku", "x5u", "jwk", "x5c", "crit")],
    ("expired", lambda f: f.token(iat=int(f.env.clock()) - 700, exp=int(f.env.clock()) - 100),
     "identity.expired"),
    ("not-yet-valid", lambda f: f.token(nbf=int(f.env.clock()) + 300), "identity.bad_claims"),
    ("issued-in-future", lambda f: f.token(iat=int(f.env.clock()) + 300, exp=int(f.env.clock()) + 900),
     "identity.bad_claims"),
    ("exp-missing", lambda f: f.token(exp=DROP), "identity.bad_claims"),
    ("exp-string", lambda f: f.token(exp=str(int(f.env.clock()) + 600)), "identity.bad_claims"),
    ("exp-float", lambda f: f.token(exp=f.env.clock() + 600.5), "identity.bad_claims"),
    ("exp-bool", lambda f: f.token(exp=True), "identity.bad_claims"),
    ("lifetime-over-max", lambda f: f.token(exp=int(f.env.clock()) + 7200), "identity.bad_claims"),
    ("iss-wrong", lambda f: f.token(iss="https://evil.example"), "identity.bad_issuer"),
    ("iss-missing", lambda f: f.token(iss=DROP), "identity.bad_issuer"),
    *[(f"iss-near-miss-{i}", lambda f, v=v: f.token(iss=v), "identity.bad_issuer")
      for i, v in enumerate([ISSUER + "/", ISSUER.upper(), ISSUER.replace("https", "http"),
                             ISSUER + ".evil.example", ISSUER + "\u200b", " " + ISSUER])],
    ("aud-wrong", lambda f: f.token(aud="other"), "identity.bad_audience"),
    ("aud-multiple", lambda f: f.token(aud=[AUDIENCE, "other"]), "identity.bad_audience"),
    ("aud-empty-list", lambda f: f.token(aud=[]), "identity.bad_audience"),
    ("aud-missing", lambda f: f.token(aud=DROP), "identity.bad_audience"),
    ("id-token", lambda f: f.token(f.header(typ="JWT"), nonce="n", at_hash="x"), "identity.bad_type"),
    ("no-typ", lambda f: f.token(f.header(typ=DROP)), "identity.bad_type"),
    ("refresh-token", lambda f: f.token(f.header(typ="rt+jwt")), "identity.bad_type"),
    ("workload-credential", lambda f: f.env.svid(PLANNER), "identity.bad_type"),
    ("sub-missing", lambda f: f.token(sub=DROP), "identity.bad_claims"),
    ("sub-empty", lambda f: f.token(sub=""), "identity.bad_identifier"),
    ("sub-number", lambda f: f.token(sub=42), "identity.bad_identifier"),
    ("client-id-missing", lambda f: f.token(client_id=DROP), "identity.bad_claims"),
    ("jti-missing", lambda f: f.token(jti=DROP), "identity.bad_claims"),
    ("sub-zero-width", lambda f: f.token(sub="ali\u200bce"), "identity.bad_identifier"),
    ("sub-bidi", lambda f: f.token(sub="ali\u202ece"), "identity.bad_identifier"),
    ("sub-control", lambda f: f.token(sub="ali\x00ce"), "identity.bad_identifier"),
    ("sub-non-nfc", _non_nfc, "identity.bad_identifier"),
    ("payload-not-utf8", lambda f: f.sign_raw(dumps(f.header()), b'{"sub":"\xff"}'), "identity.malformed"),
    ("payload-bom", lambda f: f.sign_raw(dumps(f.header()), b"\xef\xbb\xbf" + dumps(f.claims())),
     "identity.malformed"),
    ("payload-utf16", lambda f: f.sign_raw(dumps(f.header()), json.dumps(f.claims()).encode("utf-16")),
     "identity.malformed"),
    ("header-bom", lambda f: f.sign_raw(b"\xef\xbb\xbf" + dumps(f.header()), dumps(f.claims())),
     "identity.malformed"),
    ("duplicate-sub", lambda f: f.sign_raw(dumps(f.header()), dumps(f.claims())[:-1] + b',"sub":"root"}'),
     "identity.duplicate_key"),
    ("duplicate-alg", lambda f: f.sign_raw(dumps(f.header())[:-1] + b',"alg":"none"}', dumps(f.claims())),
     "identity.duplicate_key"),
    ("oversized", lambda f: f.token(pad="x" * 9000), "identity.too_large"),
    ("deep-nesting", lambda f: f.sign_raw(dumps(f.header()), b'{"x":' + b"[" * 1500 + b"]" * 1500 + b"}"),
     "identity.malformed"),
    ("jwe-five-segments", lambda f: ".".join([b64(dumps({"alg": "RSA-OAEP", "enc": "A256GCM"}))] + ["AAAA"] * 4),
     "identity.malformed"),
    ("json-serialization", lambda f: json.dumps({"payload": b64(dumps(f.claims())), "signatures": []}),
     "identity.malformed"),
    ("act-cycle", lambda f: f.token(act={"sub": PLANNER, "act": {"sub": "alice"}}), "identity.bad_chain"),
    ("act-self-cycle", lambda f: f.token(act={"sub": PLANNER, "act": {"sub": PLANNER}}), "identity.bad_chain"),
    ("act-too-deep", lambda f: f.token(act={"sub": "spiffe://memguard.local/a/1", "act": {
        "sub": "spiffe://memguard.local/a/2", "act": {"sub": "spiffe://memguard.local/a/3", "act": {
            "sub": "spiffe://memguard.local/a/4"}}}}), "identity.bad_chain"),
    ("act-extra-member", lambda f: f.token(act={"sub": PLANNER, "scope": "admin"}), "identity.bad_chain"),
    ("act-not-object", lambda f: f.token(act=PLANNER), "identity.bad_chain"),
    ("act-no-sub", lambda f: f.token(act={"iss": ISSUER}), "identity.bad_chain"),
]


@pytest.mark.parametrize(("make", "code"), [(m, c) for _, m, c in CASES], ids=[n for n, _, _ in CASES])
def test_attack_is_refused(env: Env, forge: Forge, make: Callable[[Forge], str], code: str) -> None:
    assert_refused(env.guard(), make(forge), code)


def test_wrong_key_family_in_key_set(env: Env, forge: Forge) -> None:
    """An ES256 token naming an Ed25519 key: the key must fit the algorithm."""
    ec_key = ec.generate_private_key(ec.SECP256R1())
    config = env.config(access_tokens={"audience": AUDIENCE, "issuers": [{
        "issuer": ISSUER, "algorithms": ["EdDSA", "ES256"], "jwks": env.sts.jwks()}]})
    guard = env.guard(IdentityVerifier(config, clock=env.clock))
    token = jwt.encode(forge.claims(), ec_key, algorithm="ES256",
                       headers={"kid": forge.kid, "typ": "at+jwt"})
    assert_refused(guard, token, "identity.bad_alg")


def test_workload_key_cannot_sign_access_tokens(env: Env, forge: Forge) -> None:
    """Own key sets per kind: an at+jwt signed with the workload key is an unknown key."""
    kid = env.sts.workload_keys.active_kid
    token = forge.sign_raw(dumps(forge.header(kid=kid)), dumps(forge.claims()),
                           env.sts.workload_keys._keys[kid])
    assert_refused(env.guard(), token, "identity.unknown_key")


def test_non_string_tokens(env: Env) -> None:
    guard = env.guard()
    for bad in (None, b"abc", 42, "", "a.b", "a.b.c.d"):
        assert_refused(guard, bad, "identity.malformed")


# -- delegated tokens and presenter binding -----------------------------------------------------


def test_delegated_token_needs_its_actor(env: Env) -> None:
    guard = env.guard()
    token = env.browser_token()
    identity = guard.authenticate(token, workload_credential=env.svid(BROWSER))
    assert [a.subject for a in identity.principal.actors] == [PLANNER, BROWSER]
    assert identity.principal.workload_id == BROWSER
    assert_refused(guard, token, "identity.unbound")
    assert_refused(guard, token, "identity.presenter_mismatch", workload_credential=env.svid(PLANNER))


def test_agent_presenting_a_user_token_is_impersonation(env: Env) -> None:
    guard = env.guard()
    assert_refused(guard, env.user_token(), "identity.impersonation",
                   workload_credential=env.svid(PLANNER))


def test_sub_agent_with_parents_token_is_refused(env: Env) -> None:
    guard = env.guard()
    assert_refused(guard, env.planner_token(), "identity.presenter_mismatch",
                   workload_credential=env.svid(BROWSER))


def test_hop_without_delegation_grant_is_refused(env: Env, forge: Forge) -> None:
    """Signed by the trusted STS, but no grant lets the coder act for a user."""
    token = forge.token(act={"sub": CODER, "iss": "spiffe://memguard.local"})
    assert_refused(env.guard(), token, "identity.bad_delegation", workload_credential=env.svid(CODER))
    wide = forge.token(scope="memory:admin", act={"sub": PLANNER, "iss": "spiffe://memguard.local"})
    assert_refused(env.guard(), wide, "identity.bad_delegation", workload_credential=env.svid(PLANNER))


def _svid(env: Env, **over: Any) -> str:
    kid = env.sts.workload_keys.active_kid
    now = int(env.clock())
    typ = over.pop("typ", "wit+jwt")
    claims = {"iss": ISSUER, "sub": BROWSER, "aud": PRESENTER_AUDIENCE, "iat": now, "exp": now + 300,
              **over}
    head = {"alg": "EdDSA", "typ": typ, "kid": kid}
    return jwt.encode({k: v for k, v in claims.items() if v is not DROP},
                      env.sts.workload_keys._keys[kid], algorithm="EdDSA", headers=head)


SVID_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("expired", {"iat": 1_799_999_000, "exp": 1_799_999_100}, "identity.expired"),
    ("lifetime-too-long", {"exp": 1_800_000_000 + 3600}, "identity.bad_claims"),
    ("exp-missing", {"exp": DROP}, "identity.bad_claims"),
    ("multiple-aud", {"aud": [AUDIENCE, "x"]}, "identity.bad_audience"),
    ("wrong-aud", {"aud": ISSUER}, "identity.bad_audience"),
    ("access-token-aud", {"aud": AUDIENCE}, "identity.bad_audience"),
    ("token-endpoint-aud", {"aud": TOKEN_ENDPOINT}, "identity.bad_audience"),
    ("actor-token-typ", {"typ": "actor+jwt"}, "identity.bad_type"),
    ("client-assertion-typ", {"typ": "JWT"}, "identity.bad_type"),
    ("uppercase-domain", {"sub": "spiffe://Memguard.local/agent/browser"}, "identity.bad_svid"),
    ("trailing-slash", {"sub": BROWSER + "/"}, "identity.bad_svid"),
    ("dot-dot", {"sub": "spiffe://memguard.local/agent/../admin"}, "identity.bad_svid"),
    ("query", {"sub": BROWSER + "?x=1"}, "identity.bad_svid"),
    ("port", {"sub": "spiffe://memguard.local:443/agent/browser"}, "identity.bad_svid"),
    ("no-path", {"sub": "spiffe://memguard.local"}, "identity.bad_svid"),
    ("not-spiffe", {"sub": "alice"}, "identity.bad_svid"),
    ("other-domain", {"sub": "spiffe://evil.example/agent/browser"}, "identity.bad_issuer"),
    ("carries-act", {"act": {"sub": PLANNER}}, "identity.bad_claims"),
]


@pytest.mark.parametrize(("over", "code"), [(o, c) for _, o, c in SVID_CASES], ids=[n for n, _, _ in SVID_CASES])
def test_bad_workload_credential_is_refused(env: Env, over: dict[str, Any], code: str) -> None:
    assert_refused(env.guard(), env.browser_token(), code, workload_credential=_svid(env, **over))


def test_access_token_as_workload_credential_is_refused(env: Env) -> None:
    token = env.browser_token()
    assert_refused(env.guard(), token, "identity.bad_type", workload_credential=token)


def test_embedded_verifier_trusts_no_workload_credentials(tmp_path: Path, env: Env) -> None:
    from memguard import LocalTokenService

    local = LocalTokenService(tmp_path / "local", clock=env.clock)
    guard = env.guard(local.verifier())
    assert_refused(guard, local.issue("alice"), "identity.bad_issuer",
                   workload_credential=env.svid(BROWSER))


def test_verifier_bug_fails_closed(env: Env) -> None:
    """A key source that crashes: the exception becomes an IdentityError plus a deny event."""
    verifier = IdentityVerifier(env.config(), clock=env.clock)

    class Exploding:
        def get(self, kid: str, alg: str) -> object:
            raise RuntimeError("boom")

    issuer = verifier.access.issuers[ISSUER]
    verifier.access.issuers[ISSUER] = type(issuer)(issuer.issuer, issuer.algorithms, Exploding())
    assert_refused(env.guard(verifier), env.user_token(), "identity.internal")


def test_provenance_records_the_chain(env: Env) -> None:
    guard = env.guard()
    identity = guard.authenticate(env.browser_token("memory:read memory:write"),
                                  workload_credential=env.svid(BROWSER))
    prov = guard.write(identity, "the sky is blue", namespace="notes",
                       source=Source(kind=SourceKind.WEB, uri="https://example.org"), turn=Turn(session_id="s1", turn_index=0))
    assert [a.subject for a in prov.writer.actors] == [PLANNER, BROWSER]
    assert prov.writer.subject.subject == "alice"
    with pytest.raises(IdentityError):
        guard.write(object(), "x", namespace="n",  # type: ignore[arg-type]
                    source=Source(kind=SourceKind.WEB, uri="https://example.org"), turn=Turn(session_id="s1", turn_index=0))
