"""RFC 7515 (JWS), compact serialization only, checked before any key is looked up.

RFC 7515 7.1: "The JWS Compact Serialization represents digitally signed or MACed content as a
compact, URL-safe string" -- three base64url segments; JWE (five segments) and the JSON
serialization are refused. RFC 7515 4.1.11 ``crit``: "Recipients MAY consider the JWS to be
invalid if the critical list contains any Header Parameter names defined by this specification"
-- memguard understands no extensions, so ``crit`` is refused outright, as are the key-carrying
headers ``jku``/``jwk``/``x5u``/``x5c`` (keys come from configuration only).

PyJWT accepts duplicate JSON keys (last wins), non-UTF-8 payloads, tokens of any size and headers
that point at keys. :func:`parse_jws` closes those gaps in the order DESIGN.md gives (size cap ->
compact shape -> strict header parse) and keeps the signing input and the decoded signature;
:func:`verify_parsed` then checks the signature over exactly the bytes that were parsed, with
PyJWT's algorithm implementations (RFC 7515 5.2), so a token is decoded once on the verify path.
:func:`parse_compact` / :func:`verify_jws` are the same checks for callers holding the token text.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

import jwt

from memguard.errors import IdentityError

__all__ = [
    "ASYMMETRIC_ALGS",
    "MAX_TOKEN_BYTES",
    "ParsedJws",
    "check_alg",
    "check_kid",
    "parse_compact",
    "parse_jws",
    "strict_json_object",
    "verify_jws",
    "verify_parsed",
]

MAX_TOKEN_BYTES = 8192
# Asymmetric only: a shared-secret (HS*) or ``none`` algorithm never verifies an identity.
ASYMMETRIC_ALGS = frozenset({"EdDSA", "ES256", "ES384", "RS256", "PS256"})
_SEGMENT = re.compile(r"[A-Za-z0-9_-]+")
_KID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_FORBIDDEN_HEADER = frozenset({"jku", "x5u", "jwk", "x5c", "crit", "x5t", "x5t#S256", "zip"})
_ALGORITHMS = jwt.algorithms.get_default_algorithms()


def _malformed(code: str = "identity.malformed") -> IdentityError:
    return IdentityError("malformed token", code=code)


def _b64url(segment: str) -> bytes:
    if not _SEGMENT.fullmatch(segment) or len(segment) % 4 == 1:
        raise _malformed()
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError):
        raise _malformed() from None
    if base64.urlsafe_b64encode(raw).rstrip(b"=") != segment.encode("ascii"):
        raise _malformed()  # non-zero padding bits: one token, one spelling (RFC 4648 3.5)
    return raw


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _malformed("identity.duplicate_key")
        out[key] = value
    return out


def _reject_constant(name: str) -> Any:
    raise _malformed()


def strict_json_object(raw: bytes) -> dict[str, Any]:
    """A UTF-8 JSON object without BOM, duplicate keys, ``NaN``/``Infinity`` or runaway nesting."""
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        raise _malformed() from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except IdentityError:
        raise
    except (ValueError, RecursionError):
        raise _malformed() from None
    if not isinstance(value, dict):
        raise _malformed()
    return value


@dataclass(frozen=True, slots=True)
class ParsedJws:
    """A compact JWS after the strict checks, its signature not yet verified."""

    header: dict[str, Any]
    claims: dict[str, Any]
    signing_input: bytes  # ASCII ``header.payload``, the bytes the signature covers
    signature: bytes


def parse_jws(token: object) -> ParsedJws:
    """The strict parse (size cap -> compact shape -> strict header and claims); no signature check."""
    if not isinstance(token, str):
        raise IdentityError("token must be a string", code="identity.malformed")
    if len(token.encode("utf-8", errors="replace")) > MAX_TOKEN_BYTES:
        raise IdentityError("token too large", code="identity.too_large")
    parts = token.split(".")
    if len(parts) != 3 or not parts[2]:
        raise _malformed()
    header = strict_json_object(_b64url(parts[0]))
    claims = strict_json_object(_b64url(parts[1]))
    signature = _b64url(parts[2])
    if _FORBIDDEN_HEADER.intersection(header):
        raise IdentityError("forbidden token header", code="identity.bad_header")
    # every segment matched the base64url alphabet, so the signing input is ASCII
    return ParsedJws(header, claims, f"{parts[0]}.{parts[1]}".encode("ascii"), signature)


def parse_compact(token: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return ``(header, claims)`` of a compact JWS after the strict checks; the signature is not checked."""
    parsed = parse_jws(token)
    return parsed.header, parsed.claims


def check_alg(header: dict[str, Any], pinned: frozenset[str]) -> str:
    """The header ``alg`` exactly as configured for this issuer (case-sensitive)."""
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in pinned or alg not in ASYMMETRIC_ALGS:
        raise IdentityError("unsupported algorithm", code="identity.bad_alg")
    return alg


def check_kid(header: dict[str, Any]) -> str:
    """A ``kid`` is a short opaque name; anything else (paths, SQL, 10 kB strings) is refused."""
    kid = header.get("kid")
    if not isinstance(kid, str) or not _KID.fullmatch(kid):
        raise IdentityError("unknown key", code="identity.unknown_key")
    return kid


def verify_jws(token: str, key: object, alg: str, claims: dict[str, Any]) -> dict[str, Any]:
    """RFC 7515 5.2 signature check with PyJWT's algorithm implementation; returns ``claims``.

    The header and claims were already parsed strictly (:func:`parse_compact`), so this verifies the
    signature over exactly those bytes instead of letting ``jwt.decode`` re-parse them leniently.
    """
    signing_input, _, signature = token.rpartition(".")
    algorithm = _ALGORITHMS.get(alg)
    if algorithm is None:
        raise IdentityError("unsupported algorithm", code="identity.bad_alg")
    try:
        sig = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
        ok = algorithm.verify(signing_input.encode("ascii"), algorithm.prepare_key(key), sig)
    except (ValueError, TypeError, jwt.PyJWTError):
        raise IdentityError("invalid token", code="identity.invalid") from None
    if not ok:
        raise IdentityError("bad signature", code="identity.bad_signature")
    return claims


def verify_parsed(parsed: ParsedJws, key: object, alg: str) -> dict[str, Any]:
    """:func:`verify_jws` over a :func:`parse_jws` result: the bytes that were parsed, not decoded again."""
    algorithm = _ALGORITHMS.get(alg)
    if algorithm is None:
        raise IdentityError("unsupported algorithm", code="identity.bad_alg")
    try:
        ok = algorithm.verify(parsed.signing_input, algorithm.prepare_key(key), parsed.signature)
    except (ValueError, TypeError, jwt.PyJWTError):
        raise IdentityError("invalid token", code="identity.invalid") from None
    if not ok:
        raise IdentityError("bad signature", code="identity.bad_signature")
    return parsed.claims
