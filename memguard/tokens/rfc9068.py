"""RFC 9068, JWT Profile for OAuth 2.0 Access Tokens (``at+jwt``), plus RFC 8693 ``act`` chains.

RFC 9068 4: "Resource servers MUST verify that the 'typ' header value is 'at+jwt' or
'application/at+jwt' and reject tokens carrying any other value" -- this is what keeps ID tokens
(``typ: JWT``), refresh tokens and workload credentials from being used as access tokens.
"The issuer identifier for the authorization server ... MUST exactly match the value of the 'iss'
claim"; "The resource server MUST validate that the 'aud' claim contains a resource indicator value
corresponding to an identifier the resource server expects for itself" (memguard: exactly one);
"The resource server MUST check the 'exp'"; 2.2 ``client_id`` and ``jti`` are REQUIRED.
RFC 8693 4.1 ``act``: "A chain of delegation can be expressed by nesting one 'act' claim within
another. The outermost 'act' claim represents the current actor" -- members are identity claims
only (``sub``, ``iss``, and the entity profile ``sub_profile`` of the actor profile draft,
:mod:`.entity_profiles`), nesting is bounded, cycles are refused. A token's own ``sub_profile``
and a Transaction Token ``txn`` it was exchanged under are read into the principal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from memguard.errors import IdentityError
from memguard.identity import Actor, Principal, PrincipalId, check_identifier
from memguard.tokens.entity_profiles import parse_profile
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_jws, verify_parsed
from memguard.tokens.rfc7517 import KeySource
from memguard.tokens.rfc7519 import check_leeway, check_times, single_audience
from memguard.tokens.rfc9493 import attested_subject
from memguard.tokens.tenancy import TenancyMap
from memguard.tokens.txn_token import transaction_context
from memguard.tokens.uses import ACCESS_TYPES

__all__ = [
    "AT_JWT_TYPES",
    "AccessTokenVerifier",
    "TrustedIssuer",
    "VerifiedAccessToken",
    "actor_chain",
]

AT_JWT_TYPES = ACCESS_TYPES
_ACT_MEMBERS = frozenset({"sub", "iss", "act", "sub_profile"})


@dataclass(frozen=True, slots=True)
class TrustedIssuer:
    issuer: str
    algorithms: frozenset[str]
    keys: KeySource
    #: issuers whose subjects this one may name in ``sub_id`` (RFC 9493; rfc9493.py)
    attests: frozenset[str] = frozenset()
    #: ``granted``: hops need delegation grants; ``asserted``: the issuer's ``act`` is taken as is
    act_chains: Literal["granted", "asserted"] = "granted"


@dataclass(frozen=True, slots=True)
class VerifiedAccessToken:
    principal: Principal
    expires_at: int
    claims: Mapping[str, Any]
    #: the issuer that signed the token (``principal.subject.issuer`` may be another, via ``sub_id``)
    issuer: TrustedIssuer


class AccessTokenVerifier:
    """Verifies ``at+jwt`` tokens of the configured issuers. Raises ``IdentityError`` on anything."""

    def __init__(
        self,
        issuers: Mapping[str, TrustedIssuer],
        *,
        audiences: frozenset[str],
        max_ttl: int = 3600,
        max_age: int = 86400,
        leeway: int = 30,
        max_depth: int = 3,
        tenancy: TenancyMap | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.issuers = dict(issuers)
        self.audiences = audiences
        self.max_ttl, self.max_age, self.max_depth = max_ttl, max_age, max_depth
        self.leeway = check_leeway(leeway)
        self.tenancy = tenancy or TenancyMap({})
        self._clock = clock

    def verify(self, token: str) -> VerifiedAccessToken:
        parsed = parse_jws(token)  # decoded once: the signature is checked over these bytes
        header, unverified = parsed.header, parsed.claims
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in AT_JWT_TYPES:
            raise IdentityError("unsupported token type", code="identity.bad_type")
        iss = unverified.get("iss")
        trusted = self.issuers.get(iss) if isinstance(iss, str) else None
        if trusted is None or trusted.issuer != iss:
            raise IdentityError("untrusted issuer", code="identity.bad_issuer")
        alg = check_alg(header, trusted.algorithms)
        key = trusted.keys.get(check_kid(header), alg)
        claims = verify_parsed(parsed, key, alg)
        single_audience(claims, self.audiences)
        exp = check_times(
            claims,
            now=self._clock(),
            leeway=self.leeway,
            max_ttl=self.max_ttl,
            max_age=self.max_age,
        )
        for required in ("sub", "client_id", "jti"):
            if required not in claims:
                raise IdentityError(f"missing `{required}`", code="identity.bad_claims")
        subject = self.tenancy.principal(
            attested_subject(claims, token_issuer=trusted.issuer, attests=trusted.attests)
        )
        scope = claims.get("scope", "")
        if not isinstance(scope, str):
            raise IdentityError("scope must be a string", code="identity.bad_claims")
        principal = Principal(
            subject=subject,
            actors=actor_chain(
                claims.get("act"), subject, default_issuer=trusted.issuer, max_depth=self.max_depth
            ),
            client_id=check_identifier(claims["client_id"], "client_id"),
            token_jti=check_identifier(claims["jti"], "jti"),
            scopes=frozenset(s for s in scope.split(" ") if s),
            subject_profile=parse_profile(claims.get("sub_profile")),
            txn=check_identifier(claims["txn"], "txn", code="identity.bad_claims")
            if claims.get("txn") is not None
            else None,
            txn_context=transaction_context(claims),
        )
        return VerifiedAccessToken(
            principal=principal, expires_at=exp, claims=claims, issuer=trusted
        )


def actor_chain(
    act: object, subject: PrincipalId, *, default_issuer: str, max_depth: int
) -> tuple[Actor, ...]:
    """Parse a nested ``act`` claim into actors ordered first delegate -> current actor."""
    chain: list[Actor] = []
    seen = {(subject.issuer, subject.subject), ("*", subject.subject)}
    while act is not None:
        if not isinstance(act, dict) or not set(act) <= _ACT_MEMBERS or "sub" not in act:
            raise IdentityError("malformed act chain", code="identity.bad_chain")
        actor = Actor(
            issuer=check_identifier(act.get("iss", default_issuer), "act.iss"),
            subject=check_identifier(act["sub"], "act.sub"),
            profile=parse_profile(act.get("sub_profile"), "act.sub_profile"),
        )
        if ("*", actor.subject) in seen:  # the same subject under another issuer is a cycle too
            raise IdentityError("cycle in act chain", code="identity.bad_chain")
        seen.add(("*", actor.subject))
        chain.append(actor)
        if len(chain) > max_depth:
            raise IdentityError("delegation chain too deep", code="identity.bad_chain")
        act = act.get("act")
    chain.reverse()
    return tuple(chain)
