"""Strict pre-parsing of a compact JWS before PyJWT sees it (closing PyJWT's gaps, DESIGN.md).

PyJWT accepts duplicate JSON keys (last wins), non-UTF-8 payloads, tokens of any size and headers
that point at keys (``jku``, ``x5u``, ``jwk``, ``x5c``). These checks run first, in the order DESIGN.md
gives: size cap -> compact shape -> strict header parse.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from memguard.errors import IdentityError

__all__ = ["MAX_TOKEN_BYTES", "parse_compact"]

MAX_TOKEN_BYTES = 8192
_SEGMENT = re.compile(r"[A-Za-z0-9_-]+")
_FORBIDDEN_HEADER = frozenset({"jku", "x5u", "jwk", "x5c", "crit", "x5t", "x5t#S256", "zip"})


def _b64url(segment: str) -> bytes:
    if not _SEGMENT.fullmatch(segment) or len(segment) % 4 == 1:
        raise IdentityError("malformed token", code="identity.malformed")
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError):
        raise IdentityError("malformed token", code="identity.malformed") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise IdentityError("malformed token", code="identity.duplicate_key")
        out[key] = value
    return out


def _strict_json_object(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        raise IdentityError("malformed token", code="identity.malformed") from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except IdentityError:
        raise
    except (ValueError, RecursionError):
        raise IdentityError("malformed token", code="identity.malformed") from None
    if not isinstance(value, dict):
        raise IdentityError("malformed token", code="identity.malformed")
    return value


def _reject_constant(name: str) -> Any:
    raise IdentityError("malformed token", code="identity.malformed")


def parse_compact(token: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return ``(header, claims)`` of a compact JWS after the strict checks; the signature is not checked."""
    if not isinstance(token, str):
        raise IdentityError("token must be a string", code="identity.malformed")
    if len(token.encode("utf-8", errors="replace")) > MAX_TOKEN_BYTES:
        raise IdentityError("token too large", code="identity.too_large")
    parts = token.split(".")
    if len(parts) != 3 or not parts[2]:
        raise IdentityError("malformed token", code="identity.malformed")
    header = _strict_json_object(_b64url(parts[0]))
    claims = _strict_json_object(_b64url(parts[1]))
    _b64url(parts[2])
    bad = _FORBIDDEN_HEADER.intersection(header)
    if bad:
        raise IdentityError("forbidden token header", code="identity.bad_header")
    return header, claims
