"""RFC 8417 Security Event Tokens (SET), verified like any other credential.

RFC 8417 2.2 ``events``: "This claim contains a set of event statements that each provide
information describing a single logical event that has occurred about a security subject ...
This claim is REQUIRED" -- a JSON object whose member names are event-type URIs and whose values
are JSON objects. 2.2 ``jti``, ``iss``, ``iat``: REQUIRED here (``jti`` is the replay key; RFC 8935
2.1 "The SET Recipient MUST ... verify that the SET has not been previously received"). 2.3:
"the use of the media type 'secevent+jwt' is RECOMMENDED" -- memguard requires ``typ:
secevent+jwt`` (RFC 8725 3.11 explicit typing), so an access token or client assertion is never a
SET and a SET is never an access token (4.3 "Distinguishing SETs from Other Kinds of JWTs": a SET
carries no ``sub`` used as the subject of an access grant; ``exp`` is allowed but not needed).

Verification order, as for access tokens (DESIGN.md): size cap -> compact JWS -> strict header ->
the transmitter named by ``iss`` selects its keys and pinned algorithm -> signature -> audience
(exactly one, the receiver's) -> ``iat`` within ``max_age`` -> ``jti`` not seen before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memguard.errors import IdentityError
from memguard.identity import check_identifier
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_compact, verify_jws
from memguard.tokens.rfc7517 import KeySource
from memguard.tokens.rfc7519 import check_leeway, single_audience
from memguard.tokens.rfc7523 import ReplayCache

__all__ = ["SET_TYP", "SecurityEventToken", "SetVerifier", "Transmitter"]

SET_TYP = "secevent+jwt"
_MAX_EVENTS = 16


@dataclass(frozen=True, slots=True)
class Transmitter:
    """A configured SSF transmitter: its issuer identifier, key set and pinned algorithms."""

    issuer: str
    algorithms: frozenset[str]
    keys: KeySource


@dataclass(frozen=True, slots=True)
class SecurityEventToken:
    """A verified SET: who sent it, its id, when, and its event statements (type URI -> body)."""

    issuer: str
    jti: str
    issued_at: int
    events: Mapping[str, Mapping[str, Any]]
    #: the RFC 9493 / SSF top-level subject, if the SET carries one
    sub_id: Mapping[str, Any] | None
    txn: str | None


class SetVerifier:
    """Verifies pushed SETs of the configured transmitters; raises ``IdentityError`` otherwise."""

    def __init__(
        self,
        transmitters: Mapping[str, Transmitter],
        *,
        audiences: frozenset[str],
        replay: ReplayCache,
        max_age: int = 300,
        leeway: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.transmitters = dict(transmitters)
        self.audiences, self.replay, self.max_age = audiences, replay, max_age
        self.leeway = check_leeway(leeway)
        self._clock = clock

    def verify(self, token: str, *, claim: bool = True) -> SecurityEventToken:
        """The verified SET. ``claim=False`` leaves the replay check to :meth:`claim` (a receiver
        that applies the events first, so a failed application can be retried with the same SET)."""
        header, unverified = parse_compact(token)
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in (SET_TYP, f"application/{SET_TYP}"):
            raise IdentityError("not a security event token", code="identity.bad_type")
        iss = unverified.get("iss")
        transmitter = self.transmitters.get(iss) if isinstance(iss, str) else None
        if transmitter is None or transmitter.issuer != iss:
            raise IdentityError("untrusted transmitter", code="identity.bad_issuer")
        alg = check_alg(header, transmitter.algorithms)
        claims = verify_jws(token, transmitter.keys.get(check_kid(header), alg), alg, unverified)
        single_audience(claims, self.audiences)
        now = self._clock()
        iat = claims.get("iat")
        if type(iat) is not int:
            raise IdentityError("`iat` must be an integer", code="identity.bad_claims")
        if iat > now + self.leeway:
            raise IdentityError("event issued in the future", code="identity.bad_claims")
        if now - iat > self.max_age:
            raise IdentityError("event too old", code="identity.expired")
        if "exp" in claims and (
            type(claims["exp"]) is not int or claims["exp"] <= now - self.leeway
        ):
            raise IdentityError("event expired", code="identity.expired")
        if "sub" in claims:  # RFC 8417 4.3 / SSF: the subject is in `sub_id` or the event
            raise IdentityError("a SET carries no `sub`", code="identity.bad_claims")
        events = _events(claims.get("events"))
        sub_id = claims.get("sub_id")
        if sub_id is not None and not isinstance(sub_id, dict):
            raise IdentityError("`sub_id` must be an object", code="identity.bad_claims")
        txn = claims.get("txn")
        if txn is not None:
            txn = check_identifier(txn, "txn")
        jti = check_identifier(claims.get("jti"), "jti")
        verified = SecurityEventToken(
            issuer=str(iss), jti=jti, issued_at=iat, events=events, sub_id=sub_id, txn=txn
        )
        if claim and not self.claim(verified):
            raise IdentityError("security event replayed", code="identity.replayed")
        return verified

    def claim(self, verified: SecurityEventToken) -> bool:
        """Record the SET's ``jti`` (RFC 8935 2.1); False if it was received before."""
        key = f"set\x00{verified.issuer}\x00{verified.jti}"
        return self.replay.use(key, verified.issued_at + self.max_age + self.leeway, self._clock())


def _events(value: object) -> dict[str, Mapping[str, Any]]:
    if not isinstance(value, dict) or not value or len(value) > _MAX_EVENTS:
        raise IdentityError("`events` must be a non-empty object", code="identity.bad_claims")
    out: dict[str, Mapping[str, Any]] = {}
    for uri, body in value.items():
        check_identifier(uri, "event type")
        if not isinstance(body, dict):
            raise IdentityError("an event must be an object", code="identity.bad_claims")
        out[uri] = body
    return out
