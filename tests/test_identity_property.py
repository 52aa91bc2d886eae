"""Property: random headers and payloads (real signatures) never escape as anything but IdentityError,
and every result is a refusal. Each example starts from a valid token and applies >= 1 defect drawn
from the security-relevant fields, plus arbitrary junk in the others."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from helpers import BROWSER, Clock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from identity_helpers import AUDIENCE, ISSUER, make_env

from memguard import IdentityError
from memguard.tokens import IdentityVerifier

NOW = 1_800_000_000
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                        st.text(max_size=20))
json_value = st.recursive(json_scalar, lambda c: st.one_of(st.lists(c, max_size=4),
                                                           st.dictionaries(st.text(max_size=8), c, max_size=4)),
                          max_leaves=12)
bad_id = st.one_of(st.integers(), st.none(), st.just(""), st.lists(st.text(max_size=3), max_size=2),
                   st.text(max_size=10).map(lambda s: s + "\u200b"), st.text(max_size=10).map(lambda s: "\x01" + s),
                   st.sampled_from(["\uff41lice", "al\ud800ice", "alice\ue000", "\u0430lice\u202e"]))


@dataclass(frozen=True)
class Offset:
    """A time claim relative to the moment the token is built (strategies stay time-independent)."""

    seconds: int


def defects(issuer: str, audience: str) -> dict[str, Any]:
    """Strategies for what can be wrong with a token of ``issuer`` for ``audience``."""
    bad_time = st.one_of(st.text(max_size=12), st.floats(allow_nan=False), st.booleans(), st.none(),
                         st.integers(max_value=-61).map(Offset), st.integers(min_value=3700).map(Offset))
    return {
        "h.alg": st.one_of(st.sampled_from(["none", "NONE", "HS256", "RS256", "ES256", "eddsa", ""]),
                           json_value),
        "h.typ": st.one_of(st.sampled_from(["JWT", "wit+jwt", "actor+jwt", "rt+jwt", "at+JWT+", ""]),
                           json_value),
        "h.kid": st.one_of(st.text(max_size=300), json_value),
        "h.forbidden": st.sampled_from(["jku", "x5u", "jwk", "x5c", "crit"]),
        "c.iss": st.one_of(st.sampled_from([issuer + "/", issuer.upper(), "https://evil"]), json_value),
        "c.aud": st.one_of(st.sampled_from([[audience, "x"], [], "other", audience + "/workload"]),
                           json_value),
        "c.exp": bad_time,
        "c.iat": st.one_of(st.text(max_size=5), st.floats(allow_nan=False),
                           st.integers(min_value=61).map(Offset)),
        "c.sub": bad_id,
        "c.jti": bad_id,
        "c.client_id": bad_id,
        "c.act": st.dictionaries(st.text(max_size=6), json_value, min_size=1, max_size=3),
        "c.sub_id": st.one_of(json_value.filter(lambda v: v is not None), st.fixed_dictionaries({
            "format": st.sampled_from(["iss_sub", "email", "ISS_SUB"]),
            "iss": st.sampled_from(["https://evil", "https://login-a.example"]),  # not attested
            "sub": st.sampled_from(["alice", "mallory", ""])})),
        "raw.bom": st.just(True),
        "raw.sig": st.binary(min_size=1, max_size=80),
        "raw.segments": st.integers(min_value=1, max_value=7).filter(lambda n: n != 3),
    }


def hostile(issuer: str, audience: str, *, min_defects: int = 1) -> st.SearchStrategy[
        tuple[dict[str, Any], dict[str, Any]]]:
    """``(defects, junk)``: at least ``min_defects`` security-relevant defects, plus junk claims."""
    table = defects(issuer, audience)
    chosen = st.dictionaries(st.sampled_from(sorted(table)), st.none(), min_size=min_defects,
                             max_size=4).flatmap(lambda d: st.fixed_dictionaries({k: table[k] for k in d}))
    junk = st.dictionaries(st.sampled_from(["scope", "nbf_", "x", "cnf", "may_act"]), json_value, max_size=3)
    return st.tuples(chosen, junk)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def build(kid: str, key: Ed25519PrivateKey, defects: dict[str, Any], junk: dict[str, Any], *,
          issuer: str = ISSUER, audience: str = AUDIENCE, now: int = NOW, sub: str = "alice") -> str:
    """A token signed with the real key, then damaged by ``defects``."""
    header: dict[str, Any] = {"alg": "EdDSA", "typ": "at+jwt", "kid": kid}
    claims: dict[str, Any] = {"iss": issuer, "sub": sub, "aud": audience, "iat": now,
                              "exp": now + 600, "jti": "j", "client_id": "c", "scope": "memory:read",
                              **junk}
    for name, value in defects.items():
        kind, field = name.split(".")
        if name == "h.forbidden":
            header[value] = "https://evil.example/"
        elif kind == "h":
            header[field] = value
        elif kind == "c":
            if isinstance(value, Offset):
                claims[field] = now + value.seconds
            elif value is None and field != "act":
                claims.pop(field, None)
            else:
                claims[field] = value
    head = json.dumps(header).encode()
    body = json.dumps(claims).encode()
    if "raw.bom" in defects:
        body = b"\xef\xbb\xbf" + body
    signing_input = f"{b64(head)}.{b64(body)}"
    sig = b64(defects.get("raw.sig") or key.sign(signing_input.encode()))
    token = f"{signing_input}.{sig}"
    if "raw.segments" in defects:
        token = ".".join((token.split(".") * 3)[: defects["raw.segments"]])
    return token


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Any:
    clock = Clock(NOW)
    env = make_env(Path(tmp_path_factory.mktemp("prop")), clock)
    verifier = IdentityVerifier(env.config(), clock=clock)
    kid = env.sts.access_keys.active_kid
    return env, verifier, kid, env.sts.access_keys._keys[kid]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(damage=hostile(ISSUER, AUDIENCE), presented=st.booleans())
def test_random_tokens_are_refused(world: Any, damage: tuple[dict[str, Any], dict[str, Any]],
                                   presented: bool) -> None:
    env, verifier, kid, key = world
    token = build(kid, key, *damage)
    with pytest.raises(IdentityError):
        if presented:
            verifier.verify_presented(token, env.svid(BROWSER))
        else:
            verifier.verify(token)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.one_of(st.text(max_size=400), st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
                     st.lists(st.text(alphabet="AZaz09-_", max_size=60), min_size=1, max_size=6).map(".".join)))
def test_random_strings_are_refused(world: Any, raw: str) -> None:
    env, verifier, _, _ = world
    with pytest.raises(IdentityError):
        verifier.verify(raw)
    with pytest.raises(IdentityError):
        verifier.verify_presented(env.browser_token(), raw)


def test_the_undamaged_base_token_verifies(world: Any) -> None:
    """Without a defect the generator's token is valid, so the property above is not vacuous."""
    _, verifier, kid, key = world
    assert verifier.verify(build(kid, key, {}, {})).principal.subject.subject == "alice"
