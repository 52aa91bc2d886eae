"""RFC 7515 (JWS), compact serialization only, checked before any key is looked up.

RFC 7515 7.1: "The JWS Compact Serialization represents digitally signed or MACed content as a
compact, URL-safe string" -- three base64url segments; JWE (five segments) and the JSON
serialization are refused. RFC 7515 4.1.11 ``crit``: "Recipients MAY consider the JWS to be
invalid if the critical list contains any Header Parameter names defined by this specification"
-- memguard understands no extensions, so ``crit`` is refused outright, as are the key-carrying
headers ``jku``/``jwk``/``x5u``/``x5c`` (keys come from configuration only).
"""

from __future__ import annotations

import re
from typing import Any

from memguard.errors import IdentityError
from memguard.jws import MAX_TOKEN_BYTES, parse_compact

__all__ = ["ASYMMETRIC_ALGS", "MAX_TOKEN_BYTES", "check_alg", "check_kid", "parse_compact"]

# Asymmetric only: a shared-secret (HS*) or ``none`` algorithm never verifies an identity.
ASYMMETRIC_ALGS = frozenset({"EdDSA", "ES256", "ES384", "RS256", "PS256"})
_KID = re.compile(r"[A-Za-z0-9._-]{1,128}")


def check_alg(header: dict[str, Any], pinned: frozenset[str]) -> str:
    """The header ``alg`` exactly as configured for this issuer (case-sensitive)."""
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in pinned or alg not in ASYMMETRIC_ALGS:
        raise IdentityError("unsupported algorithm", code="identity.bad_alg")
    return alg


def check_kid(header: dict[str, Any], *, required: bool = True) -> str | None:
    """A ``kid`` is a short opaque name; anything else (paths, SQL, 10 kB strings) is refused."""
    kid = header.get("kid")
    if kid is None and not required:
        return None
    if not isinstance(kid, str) or not _KID.fullmatch(kid):
        raise IdentityError("unknown key", code="identity.unknown_key")
    return kid
