"""Attacks on the local verifier and on the Identity type, each through a real guard.

Every attack token is a real compact JWS: signed with the service's own Ed25519 key (so the only
thing wrong with it is the one mutation under test), with another key of another family, or forged.
Each refusal must raise the right ``IdentityError`` code, append a deny event with that reason, and
keep the token string out of the audit log.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import pickle
import secrets
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from helpers import BROWSER, PLANNER, Clock, CountingStore

from memguard import (
    FactState,
    Identity,
    IdentityError,
    InMemoryStore,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
)

RESEARCHER = "spiffe://memguard.local/agent/researcher"
CODER = "spiffe://memguard.local/agent/coder"


# -- crafting real tokens -------------------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("utf-8")


@dataclass
class Forge:
    """Builds tokens for one LocalTokenService, signed with that service's real private key."""

    tokens: LocalTokenService
    key: Ed25519PrivateKey
    clock: Clock

    def header(self, **over: Any) -> dict[str, Any]:
        head: dict[str, Any] = {"alg": "EdDSA", "typ": "at+jwt", "kid": self.tokens.kid}
        head.update(over)
        return {k: v for k, v in head.items() if v is not _DROP}

    def claims(self, **over: Any) -> dict[str, Any]:
        now = int(self.clock())
        body: dict[str, Any] = {
            "iss": self.tokens.issuer,
            "sub": "alice",
            "aud": self.tokens.audience,
            "iat": now,
            "exp": now + 600,
            "jti": secrets.token_urlsafe(16),
            "client_id": "memguard-local",
            "scope": "",
        }
        body.update(over)
        return {k: v for k, v in body.items() if v is not _DROP}

    def sign_raw(self, header: bytes, payload: bytes, key: Ed25519PrivateKey | None = None) -> str:
        signing_input = f"{b64(header)}.{b64(payload)}"
        signature = (key or self.key).sign(signing_input.encode("ascii"))
        return f"{signing_input}.{b64(signature)}"

    def token(
        self,
        header: dict[str, Any] | None = None,
        claims: dict[str, Any] | None = None,
        key: Ed25519PrivateKey | None = None,
    ) -> str:
        return self.sign_raw(
            dumps(header if header is not None else self.header()),
            dumps(claims if claims is not None else self.claims()),
            key,
        )


_DROP = object()  # marks a header member or claim to leave out


@pytest.fixture
def signing_key(tmp_path: Path, tokens: LocalTokenService) -> Ed25519PrivateKey:
    """The token service's own key, read from where the service keeps it on disk."""
    key = serialization.load_pem_private_key(
        (tmp_path / "keys" / "signing-key.pem").read_bytes(), password=None
    )
    assert isinstance(key, Ed25519PrivateKey)
    assert b64(key.public_key().public_bytes_raw()) == b64(
        tokens.public_keys()[tokens.kid].public_bytes_raw()
    )
    return key


@pytest.fixture
def forge(tokens: LocalTokenService, signing_key: Ed25519PrivateKey, clock: Clock) -> Forge:
    return Forge(tokens, signing_key, clock)


@pytest.fixture
def g(make_guard: Callable[..., MemoryGuard]) -> MemoryGuard:
    """One guard (in-memory store, SQLite ledger): verification does not depend on the store."""
    return make_guard("memory")


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def deny_ids(guard: MemoryGuard) -> set[str]:
    return {e.event_id for e in guard.ledger.events(decision="deny")}


def assert_refused(guard: MemoryGuard, token: object, code: str) -> None:
    """authenticate(token) raises `code`, records exactly one deny event with it, leaks no token."""
    before = deny_ids(guard)
    with pytest.raises(IdentityError) as info:
        guard.authenticate(token)  # type: ignore[arg-type]
    assert info.value.code == code, f"expected {code}, got {info.value.code} ({info.value})"
    new = [e for e in guard.ledger.events(decision="deny") if e.event_id not in before]
    assert len(new) == 1, new
    event = new[0]
    assert event.action == "authenticate"
    assert event.reason == code
    assert event.principal is None  # nothing about an unverified token is attributed to anyone
    if isinstance(token, str) and token:
        stored = event.canonical().decode("utf-8")
        assert token not in stored
        assert token not in str(info.value)
        for segment in token.split("."):
            if len(segment) >= 12:
                assert segment not in stored
        expected = "sha256:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
        assert event.detail["token_digest"] == expected


def assert_accepted(guard: MemoryGuard, token: str, subject: str = "alice") -> Identity:
    ident = guard.authenticate(token)
    assert isinstance(ident, Identity)
    assert ident.principal.subject.subject == subject
    return ident


# -- positive controls: the crafted tokens are valid unless mutated --------------------------------


def test_crafted_baseline_token_is_accepted(g: MemoryGuard, forge: Forge) -> None:
    ident = assert_accepted(g, forge.token())
    assert ident.principal.subject.issuer == forge.tokens.issuer
    assert g.ledger.events(decision="deny") == []


def test_issued_chain_of_three_is_accepted(g: MemoryGuard, tokens: LocalTokenService) -> None:
    ident = assert_accepted(g, tokens.issue("alice", actors=[PLANNER, BROWSER, RESEARCHER]))
    assert [a.subject for a in ident.principal.actors] == [PLANNER, BROWSER, RESEARCHER]
    assert ident.principal.current_actor.subject == RESEARCHER


# -- algorithm attacks -----------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
def test_alg_none_with_empty_signature(g: MemoryGuard, forge: Forge, alg: str) -> None:
    head, body = dumps(forge.header(alg=alg)), dumps(forge.claims())
    assert_refused(g, f"{b64(head)}.{b64(body)}.", "identity.malformed")


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
def test_alg_none_with_junk_signature(g: MemoryGuard, forge: Forge, alg: str) -> None:
    head, body = dumps(forge.header(alg=alg)), dumps(forge.claims())
    assert_refused(g, f"{b64(head)}.{b64(body)}.{b64(b'x' * 64)}", "identity.bad_alg")


@pytest.mark.parametrize("alg", ["none", "NONE"])
def test_alg_none_signed_by_real_key(g: MemoryGuard, forge: Forge, alg: str) -> None:
    # a real EdDSA signature, but the header claims another algorithm: alg is pinned, not read
    assert_refused(g, forge.token(header=forge.header(alg=alg)), "identity.bad_alg")


@pytest.mark.parametrize("secret_form", ["raw", "pem"])
def test_hs256_key_confusion_with_public_key(
    g: MemoryGuard, forge: Forge, tokens: LocalTokenService, secret_form: str
) -> None:
    public = tokens.public_keys()[tokens.kid]
    secret = (
        public.public_bytes_raw()
        if secret_form == "raw"
        else public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    signing_input = f"{b64(dumps(forge.header(alg='HS256')))}.{b64(dumps(forge.claims()))}"
    mac = hmac.new(secret, signing_input.encode("ascii"), hashlib.sha256).digest()
    assert_refused(g, f"{signing_input}.{b64(mac)}", "identity.bad_alg")


@pytest.mark.parametrize("alg", ["RS256", "PS256"])
def test_rsa_signed_token_is_refused(
    g: MemoryGuard, forge: Forge, rsa_key: rsa.RSAPrivateKey, alg: str
) -> None:
    token = jwt.encode(forge.claims(), rsa_key, algorithm=alg, headers=forge.header(alg=alg))
    assert_refused(g, token, "identity.bad_alg")


def test_es256_signed_token_is_refused(
    g: MemoryGuard, forge: Forge, ec_key: ec.EllipticCurvePrivateKey
) -> None:
    token = jwt.encode(forge.claims(), ec_key, algorithm="ES256", headers=forge.header(alg="ES256"))
    assert_refused(g, token, "identity.bad_alg")


def test_rsa_key_posing_as_eddsa_is_refused(
    g: MemoryGuard, forge: Forge, rsa_key: rsa.RSAPrivateKey
) -> None:
    token = jwt.encode(forge.claims(), rsa_key, algorithm="RS256", headers=forge.header(alg=_DROP))
    # PyJWT writes the alg it used; put EdDSA back over the RSA signature
    head, body, sig = token.split(".")
    header = json.loads(base64.urlsafe_b64decode(head + "=="))
    assert header["alg"] == "RS256"
    header["alg"] = "EdDSA"
    assert_refused(g, f"{b64(dumps(header))}.{body}.{sig}", "identity.bad_signature")


def test_other_service_key_with_same_kid(
    g: MemoryGuard, forge: Forge, tmp_path: Path, clock: Clock
) -> None:
    other = LocalTokenService(tmp_path / "other-keys", clock=clock)
    assert other.kid != forge.tokens.kid and other.issuer == forge.tokens.issuer
    other_key = serialization.load_pem_private_key(
        (tmp_path / "other-keys" / "signing-key.pem").read_bytes(), password=None
    )
    assert isinstance(other_key, Ed25519PrivateKey)
    assert_refused(g, forge.token(key=other_key), "identity.bad_signature")
    # and the other service's own, honest token names a kid this guard does not know
    assert_refused(g, other.issue("alice"), "identity.unknown_key")


# -- key selection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kid",
    [
        "unknown-kid",
        "../../x",
        "../../../../etc/passwd",
        "' OR 1=1 --",
        '" OR ""="',
        "",
        "*",
        7,
        None,
        ["k"],
        {"kid": "x"},
    ],
    ids=repr,
)
def test_unknown_or_injected_kid(g: MemoryGuard, forge: Forge, kid: object) -> None:
    assert_refused(g, forge.token(header=forge.header(kid=kid)), "identity.unknown_key")


def test_missing_kid(g: MemoryGuard, forge: Forge) -> None:
    assert_refused(g, forge.token(header=forge.header(kid=_DROP)), "identity.unknown_key")


def test_kid_with_suffix_of_real_kid(g: MemoryGuard, forge: Forge) -> None:
    kid = forge.tokens.kid
    for variant in (kid + " ", " " + kid, kid.upper() if kid.upper() != kid else kid + "x"):
        assert_refused(g, forge.token(header=forge.header(kid=variant)), "identity.unknown_key")


@pytest.mark.parametrize(
    "member, value",
    [
        ("jku", "https://evil.example/jwks.json"),
        ("x5u", "https://evil.example/cert.pem"),
        ("jwk", {"kty": "OKP", "crv": "Ed25519", "x": "AAAA"}),
        ("x5c", ["MIIB"]),
        ("crit", ["exp"]),
    ],
)
def test_key_pointing_and_crit_headers(
    g: MemoryGuard, forge: Forge, member: str, value: object
) -> None:
    assert_refused(g, forge.token(header=forge.header(**{member: value})), "identity.bad_header")


def test_embedded_jwk_of_attacker_key_is_refused(g: MemoryGuard, forge: Forge) -> None:
    attacker = Ed25519PrivateKey.generate()
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64(attacker.public_key().public_bytes_raw())}
    token = forge.token(header=forge.header(jwk=jwk), key=attacker)
    assert_refused(g, token, "identity.bad_header")


# -- token type ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typ",
    [
        "JWT",
        "jwt",
        "id_token",
        "id-token+jwt",
        "secevent+jwt",
        "at+jwt ",
        "JOSE",
        _DROP,
        ["at+jwt"],
    ],
    ids=lambda t: "missing" if t is _DROP else repr(t),
)
def test_wrong_typ(g: MemoryGuard, forge: Forge, typ: object) -> None:
    assert_refused(g, forge.token(header=forge.header(typ=typ)), "identity.bad_type")


def test_id_token_shaped_token_is_refused(g: MemoryGuard, forge: Forge) -> None:
    claims = forge.claims(nonce="n-0S6_WzA2Mj", auth_time=int(forge.clock()), azp="memguard")
    assert_refused(
        g, forge.token(header=forge.header(typ="JWT"), claims=claims), "identity.bad_type"
    )


@pytest.mark.parametrize("typ", ["at+jwt", "AT+JWT", "application/at+jwt"])
def test_at_jwt_spellings_are_accepted(g: MemoryGuard, forge: Forge, typ: str) -> None:
    assert_accepted(g, forge.token(header=forge.header(typ=typ)))


# -- strict JSON -----------------------------------------------------------------------------------


def test_duplicate_key_in_header(g: MemoryGuard, forge: Forge) -> None:
    kid = forge.tokens.kid
    head = f'{{"alg":"none","typ":"at+jwt","kid":"{kid}","alg":"EdDSA"}}'.encode()
    assert_refused(g, forge.sign_raw(head, dumps(forge.claims())), "identity.duplicate_key")


def test_duplicate_key_in_payload(g: MemoryGuard, forge: Forge) -> None:
    claims = forge.claims(sub="bob")
    body = dumps(claims)[:-1] + b',"sub":"alice"}'
    assert json.loads(body)["sub"] == "alice"  # what a last-wins parser would see
    assert_refused(g, forge.sign_raw(dumps(forge.header()), body), "identity.duplicate_key")


def test_duplicate_key_nested_in_act(g: MemoryGuard, forge: Forge) -> None:
    body = dumps(forge.claims())[:-1] + f',"act":{{"sub":"{PLANNER}","sub":"{BROWSER}"}}}}'.encode()
    assert_refused(g, forge.sign_raw(dumps(forge.header()), body), "identity.duplicate_key")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"])
def test_non_utf8_payload(g: MemoryGuard, forge: Forge, encoding: str) -> None:
    body = json.dumps(forge.claims()).encode(encoding)
    assert json.loads(body)["sub"] == "alice"  # the stdlib would happily read it
    assert_refused(g, forge.sign_raw(dumps(forge.header()), body), "identity.malformed")


def test_latin1_payload(g: MemoryGuard, forge: Forge) -> None:
    body = json.dumps(forge.claims(sub="zoë"), ensure_ascii=False).encode("latin-1")
    assert_refused(g, forge.sign_raw(dumps(forge.header()), body), "identity.malformed")


def test_utf16_header(g: MemoryGuard, forge: Forge) -> None:
    head = json.dumps(forge.header()).encode("utf-16")
    assert_refused(g, forge.sign_raw(head, dumps(forge.claims())), "identity.malformed")


@pytest.mark.parametrize("body", [b"[]", b'"alice"', b"null", b"42", b'{"exp": NaN}', b"{"])
def test_payload_that_is_not_a_json_object(g: MemoryGuard, forge: Forge, body: bytes) -> None:
    assert_refused(g, forge.sign_raw(dumps(forge.header()), body), "identity.malformed")


# -- time claims -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "exp, code",
    [
        (lambda now: str(now + 600), "identity.bad_claims"),
        (lambda now: float(now + 600), "identity.bad_claims"),
        (lambda now: now + 600.5, "identity.bad_claims"),
        (lambda now: True, "identity.bad_claims"),
        (lambda now: [now + 600], "identity.bad_claims"),
        (lambda now: None, "identity.bad_claims"),
    ],
    ids=["str", "float", "fractional", "bool", "list", "null"],
)
def test_exp_of_wrong_type(
    g: MemoryGuard, forge: Forge, exp: Callable[[int], object], code: str
) -> None:
    now = int(forge.clock())
    assert_refused(g, forge.token(claims=forge.claims(exp=exp(now))), code)


@pytest.mark.parametrize(
    "iat", [lambda now: str(now), lambda now: float(now), lambda now: False, lambda now: [now]]
)
def test_iat_of_wrong_type(g: MemoryGuard, forge: Forge, iat: Callable[[int], object]) -> None:
    now = int(forge.clock())
    assert_refused(g, forge.token(claims=forge.claims(iat=iat(now))), "identity.bad_claims")


@pytest.mark.parametrize("claim", ["exp", "iat", "sub", "iss", "aud", "jti"])
def test_missing_required_claim(g: MemoryGuard, forge: Forge, claim: str) -> None:
    token = forge.token(claims=forge.claims(**{claim: _DROP}))
    expected = {"iss": "identity.bad_issuer", "aud": "identity.bad_audience"}
    assert_refused(g, token, expected.get(claim, "identity.bad_claims"))


def test_expired_beyond_leeway(g: MemoryGuard, tokens: LocalTokenService, clock: Clock) -> None:
    token = tokens.issue("alice", ttl=600)
    clock.advance(600 + 30)  # leeway is 30 s: exp <= now - leeway
    assert_refused(g, token, "identity.expired")


def test_expired_within_leeway_is_accepted(
    g: MemoryGuard, tokens: LocalTokenService, clock: Clock
) -> None:
    token = tokens.issue("alice", ttl=600)
    clock.advance(600 + 29)
    ident = assert_accepted(g, token)
    # ... but the identity itself expires at `exp`: it is refused at use.
    with pytest.raises(IdentityError) as info:
        g.search(ident, "anything")
    assert info.value.code == "identity.expired"


def test_iat_in_the_future(g: MemoryGuard, forge: Forge) -> None:
    now = int(forge.clock())
    assert_refused(
        g, forge.token(claims=forge.claims(iat=now + 120, exp=now + 600)), "identity.bad_claims"
    )


def test_nbf_in_the_future(g: MemoryGuard, forge: Forge) -> None:
    now = int(forge.clock())
    assert_refused(g, forge.token(claims=forge.claims(nbf=now + 300)), "identity.bad_claims")
    assert_refused(g, forge.token(claims=forge.claims(nbf=str(now))), "identity.bad_claims")


def test_lifetime_above_max_ttl(g: MemoryGuard, tokens: LocalTokenService) -> None:
    assert_refused(g, tokens.issue("alice", ttl=3601), "identity.bad_claims")
    assert_accepted(g, tokens.issue("alice", ttl=3600))


def test_exp_far_in_the_future(g: MemoryGuard, forge: Forge) -> None:
    now = int(forge.clock())
    assert_refused(g, forge.token(claims=forge.claims(exp=now + 10**12)), "identity.bad_claims")


def test_token_too_old(
    tmp_path: Path, tokens: LocalTokenService, forge: Forge, clock: Clock
) -> None:
    # with the default max_ttl (1 h) below max_age (1 day) the age cap is unreachable; lift max_ttl
    guard = MemoryGuard(
        store=InMemoryStore(384),
        ledger=Ledger.sqlite(tmp_path / "old.db"),
        verifier=tokens.verifier(clock=clock, max_ttl=86400, max_age=3600),
        clock=clock,
    )
    try:
        now = int(clock())
        assert_refused(
            guard,
            forge.token(claims=forge.claims(iat=now - 3601, exp=now + 100)),
            "identity.expired",
        )
        assert_accepted(guard, forge.token(claims=forge.claims(iat=now - 3500, exp=now + 100)))
    finally:
        guard.close()


# -- audience and issuer ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "aud",
    [["memguard", "https://other.example"], ["https://other.example", "memguard"], []],
    ids=["aud-first", "aud-second", "empty-list"],
)
def test_audience_list(g: MemoryGuard, forge: Forge, aud: list[str]) -> None:
    assert_refused(g, forge.token(claims=forge.claims(aud=aud)), "identity.bad_audience")


def test_single_audience_list_is_one_audience(g: MemoryGuard, forge: Forge) -> None:
    # RFC 7519 4.1.3: a one-element array names exactly one audience, as the string does
    assert_accepted(g, forge.token(claims=forge.claims(aud=["memguard"])))


@pytest.mark.parametrize("aud", ["other", "memguard ", "MEMGUARD", "memguard2"])
def test_wrong_audience(g: MemoryGuard, forge: Forge, aud: str) -> None:
    assert_refused(g, forge.token(claims=forge.claims(aud=aud)), "identity.bad_audience")


@pytest.mark.parametrize(
    "iss",
    ["https://evil.example", "https://memguard.local/", "https://MEMGUARD.local", "memguard.local"],
)
def test_wrong_issuer_same_key(g: MemoryGuard, forge: Forge, iss: str) -> None:
    assert_refused(g, forge.token(claims=forge.claims(iss=iss)), "identity.bad_issuer")


def test_wrong_issuer_from_service_sharing_the_key(
    g: MemoryGuard, tmp_path: Path, clock: Clock
) -> None:
    # same key dir -> same key and kid, valid signature; only the issuer differs
    evil = LocalTokenService(tmp_path / "keys", issuer="https://evil.example", clock=clock)
    assert_refused(g, evil.issue("alice"), "identity.bad_issuer")


# -- size and shape --------------------------------------------------------------------------------


def test_oversized_token(g: MemoryGuard, tokens: LocalTokenService) -> None:
    token = tokens.issue("alice", extra_claims={"pad": "x" * 9000})
    assert len(token.encode()) > 8192
    assert_refused(g, token, "identity.too_large")


def test_oversized_by_multibyte_characters(g: MemoryGuard, forge: Forge) -> None:
    token = forge.token() + "." + "é" * 4200  # < 8192 characters, > 8192 bytes
    assert len(token) < 8192 < len(token.encode())
    assert_refused(g, token, "identity.too_large")


def test_token_just_under_the_cap_is_accepted(g: MemoryGuard, tokens: LocalTokenService) -> None:
    base = len(tokens.issue("alice", extra_claims={"pad": ""}))
    pad = (8192 - base) * 3 // 4 - 4
    token = tokens.issue("alice", extra_claims={"pad": "x" * pad})
    assert 8000 < len(token) <= 8192
    assert_accepted(g, token)


def _shapes(token: str) -> dict[str, str]:
    h, p, s = token.split(".")
    return {
        "two-segments": f"{h}.{p}",
        "four-segments": f"{h}.{p}.{s}.{s}",
        "five-segments-jwe": f"{h}.{p}.{s}.{s}.{s}",
        "padding-signature": f"{h}.{p}.{s}==",
        "padding-payload": f"{h}.{p}=.{s}",
        "plus-slash": f"{h}.{p}.{s[:-2]}+/",
        "non-base64": f"{h}.{p}.{s[:-1]}!",
        "space-inside": f"{h}.{p[:5]} {p[5:]}.{s}",
        "leading-space": f" {token}",
        "trailing-newline": f"{token}\n",
        "empty-signature": f"{h}.{p}.",
        "empty-header": f".{p}.{s}",
        "empty-payload": f"{h}..{s}",
        "bad-length": f"{h}.{p}.{s}AAA",
        "bad-length-payload": f"{h}.{p}{'A' * ((1 - len(p)) % 4 or 4)}.{s}",
        "empty": "",
        "dots": "..",
        "bearer-prefix": f"Bearer {token}",
    }


@pytest.mark.parametrize("shape", sorted(_shapes("a.b.c")))
def test_malformed_shape(g: MemoryGuard, forge: Forge, shape: str) -> None:
    token = _shapes(forge.token())[shape]
    assert_refused(g, token, "identity.malformed")


@pytest.mark.parametrize("token", [None, 42, b"a.b.c", ["a", "b", "c"]], ids=repr)
def test_non_string_token(g: MemoryGuard, token: object) -> None:
    assert_refused(g, token, "identity.malformed")


# -- identifiers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sub",
    [
        "ale\u0301x",  # decomposed: NFC would compose it
        "ali\u200bce",  # zero-width space
        "\u202ealice",  # right-to-left override
        "ali\u2066ce",  # left-to-right isolate
        "alice\u200d",  # zero-width joiner
        "\ufeffalice",  # byte-order mark
        "ali\u00adce",  # soft hyphen (format character)
        "ali\nce",
        "alice\x00",
        "ali\x1bce",
        "alice\x7f",
        "alice\x85",
        "",
        "\uff41\uff4c\uff49\uff43\uff45",  # fullwidth: NFKC folds it to `alice`
        "\ufb01nn",  # ligature fi: NFKC changes it
        "alice\u2122",  # trade mark sign: a compatibility character
        "ali\ud800ce",  # a lone surrogate (escaped in the JSON payload)
        "\udfffalice",
        "alice\ue000",  # private use
        "alice\U000f0000",  # supplementary private use
        "alice\u0378",  # unassigned
        "alice\ufdd0",  # noncharacter
        "ali\u2028ce",  # line separator
        "ali\u2029ce",  # paragraph separator
    ],
    ids=repr,
)
def test_unsafe_subject(g: MemoryGuard, forge: Forge, sub: str) -> None:
    assert_refused(g, forge.token(claims=forge.claims(sub=sub)), "identity.bad_identifier")


@pytest.mark.parametrize("sub", [42, None, ["alice"], {"id": "alice"}], ids=repr)
def test_subject_not_a_string(g: MemoryGuard, forge: Forge, sub: object) -> None:
    assert_refused(g, forge.token(claims=forge.claims(sub=sub)), "identity.bad_identifier")


def test_nfc_subject_is_accepted_and_kept_byte_exact(g: MemoryGuard, forge: Forge) -> None:
    ident = assert_accepted(g, forge.token(claims=forge.claims(sub="zo\u00eb")), "zo\u00eb")
    assert ident.principal.subject.subject.encode() == b"zo\xc3\xab"


@pytest.mark.parametrize("field", ["jti", "client_id"])
def test_unsafe_jti_and_client_id(g: MemoryGuard, forge: Forge, field: str) -> None:
    assert_refused(
        g, forge.token(claims=forge.claims(**{field: "x\u202ey"})), "identity.bad_identifier"
    )


def test_scope_not_a_string(g: MemoryGuard, forge: Forge) -> None:
    claims = forge.claims(scope=["memguard:system"])
    assert_refused(g, forge.token(claims=claims), "identity.bad_claims")


# -- act chains ------------------------------------------------------------------------------------


def _act(*actors: str, **extra: Any) -> dict[str, Any] | None:
    """RFC 8693 nesting: the first actor is the outermost `act` (the current one)."""
    act: dict[str, Any] | None = None
    for actor in reversed(actors):
        act = {"sub": actor, **({"act": act} if act else {})}
    if act is not None:
        act.update(extra)
    return act


@pytest.mark.parametrize(
    "act",
    [
        {"sub": PLANNER, "scope": "memguard:system"},
        {"sub": PLANNER, "may_act": {"sub": BROWSER}},
        {"sub": PLANNER, "act": {"sub": BROWSER, "exp": 1}},
        "planner",
        [PLANNER],
        [{"sub": PLANNER}],
        42,
        {"iss": "https://memguard.local"},
        {},
        {"sub": PLANNER, "act": "browser"},
        {"sub": PLANNER, "act": {"iss": "https://memguard.local"}},
    ],
    ids=[
        "extra-scope",
        "extra-may_act",
        "nested-extra",
        "string",
        "list-of-str",
        "list-of-dict",
        "int",
        "no-sub",
        "empty",
        "nested-string",
        "nested-no-sub",
    ],
)
def test_malformed_act_chain(g: MemoryGuard, forge: Forge, act: object) -> None:
    assert_refused(g, forge.token(claims=forge.claims(act=act)), "identity.bad_chain")


@pytest.mark.parametrize(
    "act",
    [
        _act("alice"),  # the subject acting for itself
        _act(PLANNER, PLANNER),
        _act(PLANNER, BROWSER, PLANNER),
        _act(PLANNER, "alice"),
    ],
    ids=["self", "repeat", "a-b-a", "back-to-subject"],
)
def test_cyclic_act_chain(g: MemoryGuard, forge: Forge, act: dict[str, Any]) -> None:
    assert_refused(g, forge.token(claims=forge.claims(act=act)), "identity.bad_chain")


def test_chain_depth_four_is_refused(g: MemoryGuard, tokens: LocalTokenService) -> None:
    token = tokens.issue("alice", actors=[PLANNER, BROWSER, RESEARCHER, CODER])
    assert_refused(g, token, "identity.bad_chain")


def test_deep_nesting_is_refused_without_crashing(g: MemoryGuard, forge: Forge) -> None:
    actors = [f"spiffe://memguard.local/agent/a{i}" for i in range(60)]
    assert_refused(g, forge.token(claims=forge.claims(act=_act(*actors))), "identity.bad_chain")


def test_act_with_unsafe_identifier(g: MemoryGuard, forge: Forge) -> None:
    act = _act(PLANNER + "\u200b")
    assert_refused(g, forge.token(claims=forge.claims(act=act)), "identity.bad_identifier")


def test_actor_named_like_the_subject_under_another_issuer_is_a_cycle(
    g: MemoryGuard, forge: Forge
) -> None:
    # the embedded verifier is the external one: it refuses what the external one refuses (it
    # used to accept this chain, a drift issue 12 found)
    act = {"sub": "alice", "iss": "https://other.example"}
    assert_refused(g, forge.token(claims=forge.claims(act=act)), "identity.bad_chain")


def test_lifetime_with_exp_before_iat_is_refused(g: MemoryGuard, forge: Forge) -> None:
    now = int(forge.clock())
    # within the leeway `exp` is not yet "expired", but a lifetime that ends before it starts is
    # refused on its own (the embedded verifier used to accept it)
    assert_refused(g, forge.token(claims=forge.claims(iat=now, exp=now - 1)), "identity.bad_claims")
    assert_refused(g, forge.token(claims=forge.claims(iat=now, exp=now + 10, nbf=None)),
                   "identity.bad_claims")


# -- forgery ---------------------------------------------------------------------------------------


def test_forged_payload_with_original_signature(g: MemoryGuard, tokens: LocalTokenService) -> None:
    token = tokens.issue("alice")
    head, body, sig = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["sub"] = "bob"
    assert_refused(g, f"{head}.{b64(dumps(claims))}.{sig}", "identity.bad_signature")


def test_forged_scope_with_original_signature(g: MemoryGuard, tokens: LocalTokenService) -> None:
    token = tokens.issue("alice", actors=[PLANNER, BROWSER])
    head, body, sig = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["scope"] = "memguard:system"
    claims.pop("act")
    assert_refused(g, f"{head}.{b64(dumps(claims))}.{sig}", "identity.bad_signature")


def test_payload_swapped_between_two_valid_tokens(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    alice, bob = tokens.issue("alice"), tokens.issue("bob")
    a_head, _, a_sig = alice.split(".")
    _, b_body, _ = bob.split(".")
    assert_refused(g, f"{a_head}.{b_body}.{a_sig}", "identity.bad_signature")


def test_flipped_signature_bit(g: MemoryGuard, tokens: LocalTokenService) -> None:
    head, body, sig = tokens.issue("alice").split(".")
    raw = bytearray(base64.urlsafe_b64decode(sig + "=="))
    raw[0] ^= 1
    assert_refused(g, f"{head}.{body}.{b64(bytes(raw))}", "identity.bad_signature")


def test_truncated_signature(g: MemoryGuard, tokens: LocalTokenService) -> None:
    head, body, sig = tokens.issue("alice").split(".")
    raw = base64.urlsafe_b64decode(sig + "==")
    assert_refused(g, f"{head}.{body}.{b64(raw[:32])}", "identity.bad_signature")


# -- the Identity type -----------------------------------------------------------------------------


def test_identity_cannot_be_constructed(g: MemoryGuard, tokens: LocalTokenService) -> None:
    ident = g.authenticate(tokens.issue("alice"))
    with pytest.raises(TypeError):
        Identity()
    with pytest.raises(TypeError):
        Identity(ident.principal, ident.expires_at)
    with pytest.raises(TypeError):
        Identity(principal=ident.principal, expires_at=ident.expires_at)


def test_identity_cannot_be_copied_or_pickled(g: MemoryGuard, tokens: LocalTokenService) -> None:
    ident = g.authenticate(tokens.issue("alice"))
    with pytest.raises(TypeError):
        copy.copy(ident)
    with pytest.raises(TypeError):
        copy.deepcopy(ident)
    with pytest.raises(TypeError):
        copy.deepcopy({"who": [ident]})
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError):
            pickle.dumps(ident, protocol=protocol)
    with pytest.raises(AttributeError):
        ident._principal = ident.principal  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ident.__dict__  # noqa: B018


def _write(guard: MemoryGuard, ident: object, text: str = "alice likes aisle seats") -> Any:
    return guard.write(
        ident,  # type: ignore[arg-type]
        text,
        namespace="travel",
        source=Source(kind=SourceKind.USER_MESSAGE),
        turn=Turn(session_id="s1", turn_index=0),
    )


def test_identity_from_another_token_service_is_unverified(
    g: MemoryGuard, tmp_path: Path, clock: Clock
) -> None:
    other = LocalTokenService(tmp_path / "other-keys", clock=clock)
    foreign = other.verifier().verify(other.issue("alice"))
    assert isinstance(foreign, Identity)
    before = deny_ids(g)
    with pytest.raises(IdentityError) as info:
        _write(g, foreign)
    assert info.value.code == "identity.unverified"
    new = [e for e in g.ledger.events(decision="deny") if e.event_id not in before]
    assert [(e.action, e.reason) for e in new] == [("write", "identity.unverified")]
    assert _all_rows(g.ledger) == []


def test_identity_from_another_guard_with_same_keys_is_unverified(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    first, second = make_guard("memory"), make_guard("memory")
    ident = first.authenticate(tokens.issue("alice"))
    _write(first, ident)  # fine where it was minted
    for call in (
        lambda: _write(second, ident),
        lambda: second.search(ident, "aisle"),
        lambda: second.get(ident, str(uuid.uuid4())),
    ):
        with pytest.raises(IdentityError) as info:
            call()
        assert info.value.code == "identity.unverified"
    assert [e.reason for e in second.ledger.events(decision="deny")] == ["identity.unverified"] * 3
    assert _all_rows(second.ledger) == []


def test_identity_expiring_after_verification(
    g: MemoryGuard, tokens: LocalTokenService, clock: Clock
) -> None:
    ident = g.authenticate(tokens.issue("alice", ttl=60))
    prov = _write(g, ident)
    clock.advance(59)
    assert [h.fact_id for h in g.search(ident, "aisle seats")] == [prov.fact_id]
    clock.advance(1)
    rows_before = _all_rows(g.ledger)
    for call in (
        lambda: _write(g, ident, "second fact"),
        lambda: g.search(ident, "aisle seats"),
        lambda: g.get(ident, prov.fact_id),
        lambda: g.delete(ident, prov.fact_id),
    ):
        with pytest.raises(IdentityError) as info:
            call()
        assert info.value.code == "identity.expired"
    denies = g.ledger.events(decision="deny")
    assert [e.reason for e in denies] == ["identity.expired"] * 4
    assert all(e.principal and e.principal["subject"] == "alice" for e in denies)
    assert _all_rows(g.ledger) == rows_before


# -- no identity: refused before the store is touched ----------------------------------------------


@pytest.fixture
def counted(tmp_path: Path, tokens: LocalTokenService, clock: Clock) -> Iterator[MemoryGuard]:
    guard = MemoryGuard(
        store=CountingStore(),  # type: ignore[arg-type]
        ledger=Ledger.sqlite(tmp_path / "counted.db"),
        verifier=tokens.verifier(clock=clock),
        clock=clock,
    )
    yield guard
    guard.close()


def _all_rows(ledger: Ledger) -> list[tuple[str, int, str]]:
    return sorted(
        (r.fact_id, r.version, r.state.value) for state in FactState for r in ledger.in_state(state)
    )


def _store_points(guard: MemoryGuard) -> list[str]:
    store = guard.store.inner if isinstance(guard.store, CountingStore) else guard.store
    probe = [1.0] + [0.0] * (store.dimension - 1)
    return sorted(h.fact_id for h in store.search(probe, condition=None, limit=1000))


def _bad_identities(tokens: LocalTokenService) -> list[object]:
    return [None, tokens.issue("alice"), "alice", {"sub": "alice"}, object()]


def test_write_without_identity_touches_nothing(
    counted: MemoryGuard, tokens: LocalTokenService
) -> None:
    store = counted.store
    assert isinstance(store, CountingStore)
    store.calls.clear()
    for bad in _bad_identities(tokens):
        with pytest.raises(IdentityError) as info:
            _write(counted, bad)
        assert info.value.code == "identity.missing"
    assert store.calls == []
    assert _all_rows(counted.ledger) == []
    assert _store_points(counted) == []
    denies = counted.ledger.events(decision="deny")
    assert [(e.action, e.reason) for e in denies] == [("write", "identity.missing")] * 5
    assert counted.ledger.events(decision="allow") == []
    raw = tokens.issue("alice")
    assert all(raw.split(".")[2] not in e.canonical().decode() for e in denies)


def test_reads_and_changes_without_identity_touch_nothing(
    counted: MemoryGuard, tokens: LocalTokenService
) -> None:
    alice = counted.authenticate(tokens.issue("alice"))
    prov = _write(counted, alice)
    store = counted.store
    assert isinstance(store, CountingStore)
    rows = _all_rows(counted.ledger)
    store.calls.clear()
    token = tokens.issue("alice")
    calls: list[tuple[str, Callable[[object], object]]] = [
        ("get", lambda who: counted.get(who, prov.fact_id)),  # type: ignore[arg-type]
        ("search", lambda who: counted.search(who, "aisle seats", k=5)),  # type: ignore[arg-type]
        (
            "update",
            lambda who: counted.update(
                who,  # type: ignore[arg-type]
                prov.fact_id,
                "alice likes window seats",
                source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id="s1", turn_index=1),
            ),
        ),
        ("delete", lambda who: counted.delete(who, prov.fact_id)),  # type: ignore[arg-type]
    ]
    expected = []
    for action, call in calls:
        for bad in (None, token, alice.principal):
            with pytest.raises(IdentityError) as info:
                call(bad)
            assert info.value.code == "identity.missing"
            expected.append((action, "identity.missing"))
    assert store.calls == []
    assert _all_rows(counted.ledger) == rows
    denies = counted.ledger.events(decision="deny")
    assert [(e.action, e.reason) for e in denies] == expected
    assert all(token not in e.canonical().decode() for e in denies)
    # the fact is intact and still served to its owner
    assert counted.get(alice, prov.fact_id).text == "alice likes aisle seats"


def test_non_canonical_base64_signature_is_refused(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    # 64 signature bytes leave 4 unused bits in the last character: the same bytes, another string
    head, body, sig = tokens.issue("alice").split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    twin = sig[:-1] + alphabet[alphabet.index(sig[-1]) ^ 1]
    assert base64.urlsafe_b64decode(twin + "==") == base64.urlsafe_b64decode(sig + "==")
    with pytest.raises(IdentityError) as info:
        g.authenticate(f"{head}.{body}.{twin}")
    assert info.value.code in {"identity.malformed", "identity.invalid"}
