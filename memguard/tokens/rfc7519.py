"""RFC 7519 (JWT) registered claims, typed the way PyJWT does not enforce them.

RFC 7519 4.1.4 ``exp``: "Its value MUST be a number containing a NumericDate value" -- memguard
requires an integer (PyJWT also accepts strings and floats). 4.1.3 ``aud``: "In the general case,
the 'aud' value is an array of case-sensitive strings" -- memguard accepts exactly one audience
(a string or a one-element array), so a token minted for several resources is refused everywhere.
Leeway is capped at 60 s ("usually no more than a few minutes", 4.1.4; memguard is stricter).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memguard.errors import ConfigurationError, IdentityError

__all__ = ["MAX_LEEWAY", "check_leeway", "check_times", "single_audience"]

MAX_LEEWAY = 60


def check_leeway(leeway: int) -> int:
    if type(leeway) is not int or not 0 <= leeway <= MAX_LEEWAY:
        raise ConfigurationError(f"leeway must be an integer between 0 and {MAX_LEEWAY} seconds")
    return leeway


def single_audience(claims: dict[str, Any], accepted: Iterable[str]) -> str:
    aud = claims.get("aud")
    if isinstance(aud, list):
        if len(aud) != 1:
            raise IdentityError("wrong audience", code="identity.bad_audience")
        aud = aud[0]
    if not isinstance(aud, str) or aud not in set(accepted):
        raise IdentityError("wrong audience", code="identity.bad_audience")
    return aud


def check_times(
    claims: dict[str, Any], *, now: float, leeway: int, max_ttl: int, max_age: int
) -> int:
    """Check ``exp``/``iat``/``nbf``; return ``exp``."""
    exp, iat = claims.get("exp"), claims.get("iat")
    if exp is None or iat is None:
        raise IdentityError("missing time claims", code="identity.bad_claims")
    for value in (exp, iat):
        if type(value) is not int:  # bool is an int subclass; type() keeps it out
            raise IdentityError("time claims must be integers", code="identity.bad_claims")
    if exp <= now - leeway:
        raise IdentityError("token expired", code="identity.expired")
    if iat > now + leeway:
        raise IdentityError("token issued in the future", code="identity.bad_claims")
    if exp - iat > max_ttl or exp <= iat:
        raise IdentityError("token lifetime too long", code="identity.bad_claims")
    if now - iat > max_age:
        raise IdentityError("token too old", code="identity.expired")
    if "nbf" in claims and (type(claims["nbf"]) is not int or claims["nbf"] > now + leeway):
        raise IdentityError("token not yet valid", code="identity.bad_claims")
    return int(exp)
