"""Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant, the
grant behind MCP's ``io.modelcontextprotocol/enterprise-managed-authorization`` extension).

An enterprise IdP issues an ID-JAG to a client for one user, one authorization server and one
resource; the client presents it at memguard's token endpoint as an RFC 7523 2.1 authorization
grant (``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer``, ``assertion=<ID-JAG>``) and
gets an access token for the resource. This module checks the request form and the assertion;
:mod:`.sts` authenticates the client and issues the token.

What the draft and the MCP profile require, and how memguard enforces it:

- 3: "The ``typ`` of the JWT indicated in the JWT header MUST be ``oauth-id-jag+jwt``" -- nothing
  else is an ID-JAG (an ID token, an access token, a client assertion), and an ID-JAG is nothing
  else anywhere (its ``typ`` is in no other verifier's list).
- ``iss`` "REQUIRED - The issuer identifier of the IdP": only configured enterprise IdPs, each with
  its own key set and pinned algorithms (MCP EMA 7.4.1: "an explicit allow-list", never ``none``).
- ``aud`` "REQUIRED - The issuer identifier of the Resource Authorization Server": exactly one
  value, memguard's authorization-server issuer (EMA 7.6.2 "MUST validate that the ``aud`` claim
  matches its own Issuer URL"). That audience is this token use's own: a configuration in which it
  is also the resource or presenter audience is refused (:func:`check_distinct` in :mod:`.sts`).
- ``client_id`` REQUIRED: "MUST identify the same client as the client authentication in the
  request" (4.4.1); client authentication itself is required (confidential clients only, 8.1).
- ``resource``: the MCP profile says it "MUST contain the Resource Identifier of the MCP Server if
  present"; memguard requires it (one value, one of its resources), and the issued access token is
  audience-restricted to it (EMA 5.1).
- ``sub`` REQUIRED; the principal is (IdP issuer, ``sub``), never ``sub`` alone; with a
  configured ``tenant``, the ID-JAG's ``tenant`` must be that one.
- ``jti``, ``iat``, ``exp`` REQUIRED; short-lived (``max_ttl``, 300 s by default: EMA 7.4.2 "MUST be
  short-lived"); each ``jti`` accepted once per IdP (EMA 7.4.2: replay detection "REQUIRED in this
  profile").
- ``scope`` (RFC 6749 3.3, EMA 7.2.1): the issued scope is the requested one only when it is within
  the ID-JAG's (and the IdP's configured ceiling), else ``invalid_scope`` -- no silent narrowing;
  without a ``scope`` parameter, the ID-JAG's scope, which must then be within the ceiling.
- ``act`` is refused: this profile has the client act for the user; memguard builds delegation
  chains only through its own token exchange.

Every refusal is ``invalid_grant`` (EMA 7.6.2) and an audit event of the token endpoint.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memguard.errors import IdentityError
from memguard.identity import PrincipalId, check_identifier
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_compact, verify_jws
from memguard.tokens.rfc7517 import KeySource
from memguard.tokens.rfc7519 import check_leeway, check_times, single_audience
from memguard.tokens.rfc8693 import TokenExchangeError

__all__ = [
    "ID_JAG_PROFILE",
    "ID_JAG_TYP",
    "JWT_BEARER_GRANT",
    "IdJagIssuer",
    "IdJagRequest",
    "IdJagVerifier",
    "VerifiedIdJag",
    "parse_id_jag_request",
]

#: RFC 7523 2.1: the JWT authorization grant
JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG_TYP = "oauth-id-jag+jwt"
#: authorization-server metadata ``authorization_grant_profiles_supported`` (draft 7.2; EMA 6)
ID_JAG_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag"
_SINGLE = (
    "grant_type",
    "assertion",
    "scope",
    "client_id",
    "client_assertion",
    "client_assertion_type",
    "resource",
)


@dataclass(frozen=True, slots=True)
class IdJagIssuer:
    """A trusted enterprise IdP: its ``iss``, key set and pinned algorithms; optionally the one
    ``tenant`` it may name, the clients it may issue grants for and a ceiling on the scopes."""

    issuer: str
    algorithms: frozenset[str]
    keys: KeySource
    tenant: str | None = None
    clients: frozenset[str] = frozenset()
    scopes: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class IdJagRequest:
    """The RFC 7523 2.1 token request with an ID-JAG (RFC 6749 3.2: no parameter twice)."""

    assertion: str
    scopes: frozenset[str] | None
    resource: str | None
    client_id: str | None
    client_assertion_type: str | None
    client_assertion: str | None


@dataclass(frozen=True, slots=True)
class VerifiedIdJag:
    subject: PrincipalId
    client_id: str
    resource: str
    scopes: frozenset[str]
    jti: str
    expires_at: int
    claims: Mapping[str, Any]


def parse_id_jag_request(form: Mapping[str, list[str]]) -> IdJagRequest:
    for name, values in form.items():
        if len(values) != 1:
            raise TokenExchangeError("invalid_request", f"repeated parameter {name}")

    def one(name: str) -> str | None:
        values = form.get(name)
        return values[0] if values else None

    if one("grant_type") != JWT_BEARER_GRANT:
        raise TokenExchangeError("unsupported_grant_type", "grant_type")
    if "client_secret" in form or one("client_assertion") is None:
        raise TokenExchangeError("invalid_client", "no client assertion")
    if not set(form) <= set(_SINGLE):
        raise TokenExchangeError("invalid_request", "unknown parameter")
    assertion = one("assertion")
    if not assertion:
        raise TokenExchangeError("invalid_request", "assertion")
    scope = one("scope")
    if scope is not None and (not scope or any(not s for s in scope.split(" "))):
        raise TokenExchangeError("invalid_scope", "scope malformed")
    return IdJagRequest(
        assertion=assertion,
        scopes=frozenset(scope.split(" ")) if scope is not None else None,
        resource=one("resource"),
        client_id=one("client_id"),
        client_assertion_type=one("client_assertion_type"),
        client_assertion=one("client_assertion"),
    )


class IdJagVerifier:
    """Verifies ID-JAGs of the configured IdPs for one authorization server; raises
    ``IdentityError`` with the reason (the token endpoint answers ``invalid_grant``)."""

    def __init__(
        self,
        issuers: Mapping[str, IdJagIssuer],
        *,
        audience: str,
        resources: frozenset[str],
        max_ttl: int = 300,
        leeway: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.issuers = dict(issuers)
        self.audience = audience
        self.resources = resources
        self.max_ttl = max_ttl
        self.leeway = check_leeway(leeway)
        self._clock = clock

    def verify(self, assertion: str, *, client_id: str) -> VerifiedIdJag:
        header, unverified = parse_compact(assertion)
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in (ID_JAG_TYP, f"application/{ID_JAG_TYP}"):
            raise IdentityError("not an identity assertion grant", code="identity.bad_type")
        iss = unverified.get("iss")
        idp = self.issuers.get(iss) if isinstance(iss, str) else None
        if idp is None or idp.issuer != iss:
            raise IdentityError("untrusted identity provider", code="identity.bad_issuer")
        alg = check_alg(header, idp.algorithms)
        claims = verify_jws(assertion, idp.keys.get(check_kid(header), alg), alg, unverified)
        single_audience(claims, {self.audience})
        exp = check_times(
            claims,
            now=self._clock(),
            leeway=self.leeway,
            max_ttl=self.max_ttl,
            max_age=self.max_ttl + self.leeway,
        )
        for required in ("sub", "client_id", "jti", "resource"):
            if required not in claims:
                raise IdentityError(f"missing `{required}`", code="identity.bad_claims")
        if "act" in claims:
            raise IdentityError(
                "an identity assertion grant names no actors", code="identity.bad_chain"
            )
        if claims["client_id"] != client_id:
            raise IdentityError(
                "client_id is not the authenticated client", code="identity.bad_client"
            )
        if idp.clients and client_id not in idp.clients:
            raise IdentityError(
                "client not allowed for this identity provider", code="identity.bad_client"
            )
        if idp.tenant is not None and claims.get("tenant") != idp.tenant:
            raise IdentityError("wrong tenant", code="identity.bad_issuer")
        resource = claims["resource"]
        if isinstance(resource, list) and len(resource) == 1:
            resource = resource[0]
        if not isinstance(resource, str) or resource not in self.resources:
            raise IdentityError("wrong resource", code="identity.bad_resource")
        scope = claims.get("scope", "")
        if not isinstance(scope, str):
            raise IdentityError("scope must be a string", code="identity.bad_claims")
        return VerifiedIdJag(
            subject=PrincipalId(
                issuer=idp.issuer,
                subject=check_identifier(claims["sub"], "sub", code="identity.bad_claims"),
            ),
            client_id=client_id,
            resource=resource,
            scopes=frozenset(s for s in scope.split(" ") if s),
            jti=check_identifier(claims["jti"], "jti", code="identity.bad_claims"),
            expires_at=exp,
            claims=claims,
        )

    def allowed_scopes(self, verified: VerifiedIdJag) -> frozenset[str]:
        """The ID-JAG's scopes within the IdP's configured ceiling."""
        ceiling = self.issuers[verified.subject.issuer].scopes
        return verified.scopes if ceiling is None else verified.scopes & ceiling
