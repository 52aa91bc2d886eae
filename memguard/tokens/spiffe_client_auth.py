"""OAuth SPIFFE client authentication (draft-ietf-oauth-spiffe-client-auth, JWT-SVID profile) with
workloads of *other* trust domains, whose keys come from their SPIFFE trust bundles.

The token service already accepts JWT-SVIDs of its own trust domain as client assertions
(``client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-spiffe``,
:meth:`memguard.tokens.sts.SecurityTokenService._workload_client`). This module adds the federated
case the draft is written for: a workload attested by another SPIFFE deployment (SPIRE, a cloud
workload identity) authenticates at memguard's token endpoint with the JWT-SVID its own agent
issued, verified against that trust domain's bundle:

- SPIFFE Trust Domain and Bundle 4: a bundle is a JWK Set; JWT signing keys carry
  ``"use": "jwt-svid"`` (X.509 authorities ``"x509-svid"`` are skipped); ``spiffe_sequence`` and
  ``spiffe_refresh_hint`` may be present. Bundle keys do not set ``alg``: the key type must fit
  one of the trust domain's configured algorithms (:func:`memguard.tokens.rfc7517.key_fits`).
- The client is its SPIFFE ID: ``sub`` is a canonical SPIFFE ID of a configured trust domain;
  a ``client_id`` form parameter, if sent, must equal it; ``aud`` exactly one of the token
  endpoint's audiences; ``exp`` required, the lifetime at most ``max_ttl``; ``iss`` optional
  (checked when the trust domain configures one).
- ``jti`` is optional in JWT-SVIDs (SPIFFE issuers re-use a cached SVID until it nears expiry).
  memguard requires it by default and accepts each once; ``require_jti: false`` per trust domain
  accepts SVIDs without one (replay then rests on the short lifetime alone -- say so in review).
- Optional ``clients``: the SPIFFE IDs of that domain allowed to authenticate at all; delegation
  grants still decide what each may do.

Trust anchors come from configuration only (a bundle given inline or as a file, or a bundle
endpoint URL the operator names), never from the client.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memguard.errors import ConfigurationError, IdentityError
from memguard.identity import check_identifier
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_compact, verify_jws
from memguard.tokens.rfc7517 import JwksUrlSource, KeySource, StaticKeySource, parse_jwks
from memguard.tokens.rfc7519 import check_leeway, check_times, single_audience
from memguard.tokens.rfc7523 import ReplayCache
from memguard.tokens.svid import parse_spiffe_id

__all__ = [
    "BundleEndpointSource",
    "SpiffeBundleSource",
    "SpiffeClientVerifier",
    "SpiffeTrustDomain",
    "parse_spiffe_bundle",
]


def parse_spiffe_bundle(data: object, algorithms: frozenset[str]) -> dict[str, object]:
    """``kid -> public key`` of the JWT authorities of a SPIFFE bundle (JWK Set, use ``jwt-svid``):
    X.509 authorities and keys for other uses never verify a JWT-SVID."""
    return parse_jwks(data, algorithms, use="jwt-svid")


class SpiffeBundleSource(StaticKeySource):
    """A trust bundle given in configuration."""

    def __init__(self, bundle: object, algorithms: frozenset[str]) -> None:
        self._keys = parse_spiffe_bundle(bundle, algorithms)
        if not self._keys:
            raise ConfigurationError("the trust bundle holds no usable JWT authority")


class BundleEndpointSource(JwksUrlSource):
    """A SPIFFE bundle endpoint (https_web profile): :class:`JwksUrlSource`'s cache, cooldown and
    grace period, with the bundle's ``jwt-svid`` keys instead of ``sig`` keys."""

    def _refresh(self, now: float) -> None:
        self._attempted_at = now
        self.fetches += 1
        try:
            keys = parse_spiffe_bundle(self._client.fetch_data(), self.algorithms)
        except Exception:
            return
        self._keys, self._fetched_at = keys, now


@dataclass(frozen=True, slots=True)
class SpiffeTrustDomain:
    name: str
    algorithms: frozenset[str]
    keys: KeySource
    issuer: str | None = None
    require_jti: bool = True
    #: SPIFFE IDs allowed to authenticate (empty: any workload of the trust domain)
    clients: frozenset[str] = field(default_factory=frozenset)


class SpiffeClientVerifier:
    """Authenticates a client by a JWT-SVID of a configured (federated) trust domain."""

    def __init__(
        self,
        domains: Iterable[SpiffeTrustDomain],
        *,
        audiences: frozenset[str],
        replay: ReplayCache,
        max_ttl: int = 600,
        leeway: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.domains = {d.name: d for d in domains}
        self.audiences, self.replay, self.max_ttl = audiences, replay, max_ttl
        self.leeway = check_leeway(leeway)
        self._clock = clock
        self._lock = threading.Lock()

    def handles(self, assertion: str) -> bool:
        """True if the (unverified) ``sub`` names one of this verifier's trust domains."""
        try:
            _, claims = parse_compact(assertion)
            return parse_spiffe_id(claims.get("sub"))[0] in self.domains
        except IdentityError:
            return False

    def authenticate(self, assertion: str, client_id: str | None) -> str:
        header, unverified = parse_compact(assertion)
        if header.get("typ") not in (None, "JWT", "jwt"):  # JWT-SVID: typ JWT or absent
            raise IdentityError("unsupported token type", code="identity.bad_type")
        domain_name, _ = parse_spiffe_id(unverified.get("sub"))
        domain = self.domains.get(domain_name)
        if domain is None:
            raise IdentityError("untrusted trust domain", code="identity.bad_issuer")
        alg = check_alg(header, domain.algorithms)
        claims: dict[str, Any] = verify_jws(
            assertion, domain.keys.get(check_kid(header), alg), alg, unverified
        )
        spiffe_id = check_identifier(claims.get("sub"), "sub")
        if parse_spiffe_id(spiffe_id)[0] != domain.name:
            raise IdentityError("untrusted trust domain", code="identity.bad_issuer")
        if client_id is not None and client_id != spiffe_id:
            raise IdentityError("client_id mismatch", code="identity.bad_client")
        if domain.clients and spiffe_id not in domain.clients:
            raise IdentityError("unknown client", code="identity.bad_client")
        if domain.issuer is not None and claims.get("iss") != domain.issuer:
            raise IdentityError("untrusted issuer", code="identity.bad_issuer")
        if "act" in claims or "may_act" in claims:
            raise IdentityError("a client assertion cannot delegate", code="identity.bad_claims")
        single_audience(claims, self.audiences)
        now = self._clock()
        if "iat" not in claims:  # optional in JWT-SVIDs; the lifetime bound uses exp alone then
            claims = {**claims, "iat": min(int(now), int(claims.get("exp", 0)) - 1)}
        exp = check_times(
            claims,
            now=now,
            leeway=self.leeway,
            max_ttl=self.max_ttl,
            max_age=self.max_ttl + self.leeway,
        )
        if exp > now + self.max_ttl + self.leeway:
            raise IdentityError("assertion lifetime too long", code="identity.bad_claims")
        jti = claims.get("jti")
        if jti is None:
            if domain.require_jti:
                raise IdentityError("workload credential needs a jti", code="identity.bad_claims")
            return spiffe_id
        jti = check_identifier(jti, "jti")
        if not self.replay.use(f"svid\x00{spiffe_id}\x00{jti}", exp + self.leeway, now):
            raise IdentityError("client assertion replayed", code="identity.replayed")
        return spiffe_id


def bundle_source(
    *,
    bundle: Mapping[str, Any] | None,
    bundle_endpoint: str | None,
    algorithms: frozenset[str],
    clock: Callable[[], float] = time.time,
) -> KeySource:
    """The key source of one trust domain's configuration (exactly one of the two)."""
    if (bundle is None) == (bundle_endpoint is None):
        raise ConfigurationError("a trust domain needs exactly one of `bundle`, `bundle_endpoint`")
    if bundle_endpoint is not None:
        return BundleEndpointSource(bundle_endpoint, algorithms, clock=clock)
    return SpiffeBundleSource(bundle, algorithms)
