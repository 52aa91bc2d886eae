"""One parse on the verify path: :func:`parse_jws` keeps the bytes :func:`verify_parsed` checks, with
the same strict refusals as :func:`parse_compact` / :func:`verify_jws`."""

from __future__ import annotations

import dataclasses

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from memguard.errors import IdentityError
from memguard.tokens.rfc7515 import parse_compact, parse_jws, verify_jws, verify_parsed

KEY = Ed25519PrivateKey.generate()
TOKEN = jwt.encode({"sub": "alice", "n": 1}, KEY, algorithm="EdDSA", headers={"kid": "k1"})


def test_the_single_parse_verifies_what_the_two_step_path_does() -> None:
    parsed = parse_jws(TOKEN)
    assert (parsed.header, parsed.claims) == parse_compact(TOKEN)
    assert verify_parsed(parsed, KEY.public_key(), "EdDSA") == {"sub": "alice", "n": 1}
    assert verify_jws(TOKEN, KEY.public_key(), "EdDSA", parsed.claims) == parsed.claims


def test_the_signature_covers_the_parsed_bytes() -> None:
    parsed = parse_jws(TOKEN)
    other = jwt.encode({"sub": "mallory", "n": 1}, KEY, algorithm="EdDSA", headers={"kid": "k1"})
    # the signature of one token over the signing input of another is refused
    mixed = dataclasses.replace(parse_jws(other), signature=parsed.signature)
    with pytest.raises(IdentityError) as bad:
        verify_parsed(mixed, KEY.public_key(), "EdDSA")
    assert bad.value.code == "identity.bad_signature"
    with pytest.raises(IdentityError):
        verify_parsed(parsed, Ed25519PrivateKey.generate().public_key(), "EdDSA")
    with pytest.raises(IdentityError) as alg:
        verify_parsed(parsed, KEY.public_key(), "HS256")
    assert alg.value.code in {"identity.bad_alg", "identity.invalid"}


@pytest.mark.parametrize("token", [
    TOKEN + "=",  # padding
    TOKEN.rsplit(".", 1)[0] + ".",  # no signature
    TOKEN[:-1] + ("A" if TOKEN[-1] != "A" else "B"),  # a different spelling or bytes of the signature
    "x" * 9000,
])  # fmt: skip
def test_the_strict_refusals_hold(token: str) -> None:
    try:
        parsed = parse_jws(token)
    except IdentityError:
        return
    with pytest.raises(IdentityError):
        verify_parsed(parsed, KEY.public_key(), "EdDSA")
