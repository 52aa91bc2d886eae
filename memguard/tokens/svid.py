"""JWT-SVID workload credentials (SPIFFE JWT-SVID and SPIFFE-ID specifications).

SPIFFE-ID 2: "The scheme and host portions of a SPIFFE ID are case-insensitive, whereas the path is
case-sensitive"; memguard accepts the canonical form only: lowercase ``spiffe://`` and trust domain
(``[a-z0-9.-_]``), path segments of ``[A-Za-z0-9.-_]``, no empty, ``.`` or ``..`` segments, no
trailing slash, no query, fragment, port or userinfo, at most 2048 bytes.
JWT-SVID 3: "The sub claim MUST be set to the SPIFFE ID of the workload"; "The aud claim MUST be
present, containing one or more values" -- memguard requires exactly one, one of the verifier's;
"The exp claim MUST be set" -- and the lifetime must be short (``max_ttl``, 10 minutes by default).
Workload credentials have their own key set per trust domain, and each use its own ``typ`` and
audience (:mod:`memguard.tokens.uses`): a presenter credential (``wit+jwt``) is never an access
token, an actor token or a client assertion, and none of those is a presenter credential.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from memguard.errors import IdentityError
from memguard.identity import check_identifier
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_jws, verify_parsed
from memguard.tokens.rfc7517 import KeySource
from memguard.tokens.rfc7519 import check_leeway, check_times, single_audience
from memguard.tokens.uses import PRESENTER_TYP

__all__ = ["TrustDomain", "WorkloadCredentialVerifier", "WorkloadIdentity", "parse_spiffe_id"]

_SPIFFE = re.compile(r"spiffe://([a-z0-9._-]{1,255})((?:/[A-Za-z0-9._-]+)+)")


def parse_spiffe_id(value: object) -> tuple[str, str]:
    """``(trust_domain, path)`` of a canonical SPIFFE ID, else ``IdentityError``."""
    if not isinstance(value, str) or len(value.encode()) > 2048:
        raise IdentityError("invalid workload id", code="identity.bad_svid")
    m = _SPIFFE.fullmatch(value)
    if m is None or any(seg in (".", "..") for seg in m.group(2).split("/")[1:]):
        raise IdentityError("invalid workload id", code="identity.bad_svid")
    return m.group(1), m.group(2)


@dataclass(frozen=True, slots=True)
class TrustDomain:
    name: str
    algorithms: frozenset[str]
    keys: KeySource
    issuer: str | None = None


@dataclass(frozen=True, slots=True)
class WorkloadIdentity:
    spiffe_id: str
    trust_domain: str
    jti: str | None
    expires_at: int
    scopes: frozenset[str] | None  # a `scope` claim, if the credential carries one

    @property
    def domain_id(self) -> str:
        return f"spiffe://{self.trust_domain}"


class WorkloadCredentialVerifier:
    """Verifies JWT-SVIDs of the configured trust domains for one use (one ``typ``, its audiences)."""

    def __init__(
        self,
        trust_domains: Mapping[str, TrustDomain],
        *,
        audiences: frozenset[str],
        typ: str = PRESENTER_TYP,
        max_ttl: int = 600,
        leeway: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.trust_domains = dict(trust_domains)
        self.audiences, self.typ, self.max_ttl = audiences, typ.lower(), max_ttl
        self.leeway = check_leeway(leeway)
        self._clock = clock

    def verify(self, credential: str) -> WorkloadIdentity:
        parsed = parse_jws(credential)  # decoded once: the signature is checked over these bytes
        header, unverified = parsed.header, parsed.claims
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() != self.typ:
            raise IdentityError("unsupported token type", code="identity.bad_type")
        domain_name, _ = parse_spiffe_id(unverified.get("sub"))
        domain = self.trust_domains.get(domain_name)
        if domain is None:
            raise IdentityError("untrusted trust domain", code="identity.bad_issuer")
        alg = check_alg(header, domain.algorithms)
        claims = verify_parsed(parsed, domain.keys.get(check_kid(header), alg), alg)
        spiffe_id = check_identifier(claims.get("sub"), "sub")
        if parse_spiffe_id(spiffe_id)[0] != domain.name:
            raise IdentityError("untrusted trust domain", code="identity.bad_issuer")
        if domain.issuer is not None and claims.get("iss") != domain.issuer:
            raise IdentityError("untrusted issuer", code="identity.bad_issuer")
        if "act" in claims or "may_act" in claims:
            raise IdentityError("workload credential cannot delegate", code="identity.bad_claims")
        single_audience(claims, self.audiences)
        exp = check_times(
            claims,
            now=self._clock(),
            leeway=self.leeway,
            max_ttl=self.max_ttl,
            max_age=self.max_ttl + self.leeway,
        )
        jti = claims.get("jti")
        scope = claims.get("scope")
        if scope is not None and not isinstance(scope, str):
            raise IdentityError("scope must be a string", code="identity.bad_claims")
        return WorkloadIdentity(
            spiffe_id=spiffe_id,
            trust_domain=domain.name,
            jti=check_identifier(jti, "jti") if jti is not None else None,
            expires_at=exp,
            scopes=None if scope is None else frozenset(s for s in scope.split(" ") if s),
        )
