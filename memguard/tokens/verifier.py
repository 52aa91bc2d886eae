"""The guard's verifier: access tokens of trusted issuers, workload credentials, presenter binding.

Verification order (DESIGN.md): size cap -> compact JWS -> strict header -> issuer selects keys and
pinned alg -> signature -> typed claims -> subject (``sub_id``, tenancy) -> act chain shape ->
delegation grants -> presenter binding (:mod:`memguard.tokens.presenter`).

There is one verifier: the embedded development default (:class:`~memguard.tokens.local.LocalVerifier`)
is this class with a static key set, ``act_chains: asserted`` and ``presenter_binding: optional``.

Presenter binding: a token carrying an ``act`` chain is accepted only together with the workload
credential of its *current* actor (:meth:`IdentityVerifier.verify_presented`); a bare user token
presented with a workload credential is impersonation and is refused. :meth:`verify` alone accepts
bare user tokens only (unless the configuration makes presenter binding optional).
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable
from typing import NoReturn

from memguard.errors import ConfigurationError, IdentityError
from memguard.identity import Identity, MintingVerifier
from memguard.tokens.config import IdentityConfig, load_identity_config
from memguard.tokens.denylist import DenyCheck, TokenFacts
from memguard.tokens.presenter import check_presenter
from memguard.tokens.rfc9068 import AccessTokenVerifier, TrustedIssuer, VerifiedAccessToken
from memguard.tokens.svid import (
    TrustDomain,
    WorkloadCredentialVerifier,
    WorkloadIdentity,
    parse_spiffe_id,
)
from memguard.tokens.txn_token import ResourceTxnTokens

__all__ = ["IdentityVerifier", "RefusingVerifier"]


def _fail_closed(exc: Exception) -> NoReturn:
    if isinstance(exc, IdentityError | ConfigurationError):
        raise exc
    raise IdentityError("credential could not be verified", code="identity.internal") from exc


class IdentityVerifier(MintingVerifier):
    """Access tokens of trusted issuers + workload credentials of trusted trust domains."""

    def __init__(self, config: IdentityConfig, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock=clock)
        self.config = config
        #: credentials refused after a security event (memguard.tokens.denylist, set by the SSF
        #: receiver's wiring); checked on every verification and on every use of a minted identity
        self.denylist: DenyCheck | None = None
        #: Txn-Tokens accepted directly at this resource (memguard.tokens.txn_token), if any
        self.transactions: ResourceTxnTokens | None = None
        self._facts: weakref.WeakKeyDictionary[Identity, TokenFacts] = weakref.WeakKeyDictionary()
        lim = config.limits
        issuers = {
            i.issuer: TrustedIssuer(
                i.issuer,
                frozenset(i.algorithms),
                i.key_source(config.jwks, clock),
                frozenset(i.attests),
                i.act_chains,
            )
            for i in config.access_tokens.issuers
        }
        self.access = AccessTokenVerifier(
            issuers,
            audiences=frozenset({config.access_tokens.audience}),
            max_ttl=lim.max_ttl,
            max_age=lim.max_age,
            leeway=lim.leeway,
            max_depth=lim.max_depth,
            tenancy=config.tenancy_map(),
            clock=clock,
        )
        self.workloads: WorkloadCredentialVerifier | None = None
        wc = config.workload_credentials
        if wc is not None:
            domains = {
                d.trust_domain: TrustDomain(
                    d.trust_domain,
                    frozenset(d.algorithms),
                    d.key_source(config.jwks, clock),
                    d.issuer,
                )
                for d in wc.trust_domains
            }
            self.workloads = WorkloadCredentialVerifier(
                domains,
                audiences=frozenset({wc.audience}),
                typ=wc.typ,
                max_ttl=wc.max_ttl,
                leeway=lim.leeway,
                clock=clock,
            )

    @classmethod
    def from_yaml(
        cls, path: str | os.PathLike[str] | None, *, clock: Callable[[], float] = time.time
    ) -> IdentityVerifier:
        return cls(load_identity_config(path), clock=clock)

    # -- the Verifier seam --------------------------------------------------------------------

    def verify(self, token: str) -> Identity:
        """A bare user token; a token with an ``act`` chain needs :meth:`verify_presented`."""
        try:
            verified = self._access(token)
            if verified.principal.actors and self.config.presenter_binding == "required":
                raise IdentityError(
                    "delegated token needs its actor's credential", code="identity.unbound"
                )
            return self._mint_checked(verified, verified.expires_at)
        except Exception as exc:
            _fail_closed(exc)

    def verify_presented(self, token: str, workload_credential: str) -> Identity:
        """A token presented by a workload: the workload must be the token's current actor."""
        try:
            workload = self.verify_workload(workload_credential)
            verified = self._access(token)
            check_presenter(
                verified.principal,
                workload.spiffe_id,
                token_issuer=verified.issuer.issuer,
                trust_domain_id=workload.domain_id,
            )
            return self._mint_checked(verified, min(verified.expires_at, workload.expires_at))
        except Exception as exc:
            _fail_closed(exc)

    def verify_transaction(self, txn_token: str, workload_credential: str) -> Identity:
        """A Txn-Token presented by a workload of the trust domain (``Txn-Token`` header): only
        when configured, only with the calling workload's own credential, only from the callers
        configured for that trust domain."""
        try:
            if self.transactions is None:
                raise IdentityError(
                    "transaction tokens are not accepted here", code="identity.bad_type"
                )
            workload = self.verify_workload(workload_credential)
            principal, expires_at, claims = self.transactions.principal(
                txn_token, caller=workload.spiffe_id, caller_domain=workload.domain_id
            )
            facts = TokenFacts.of(
                claims,
                token_issuer=principal.subject.issuer,
                subject=principal.subject,
                actors=[workload.spiffe_id],
                jti=principal.token_jti,
            )
            self._refuse_denied(facts)
            identity = self._mint(principal, min(expires_at, workload.expires_at))
            if self.denylist is not None:
                self._facts[identity] = facts
            return identity
        except Exception as exc:
            _fail_closed(exc)

    # -- security events (memguard.tokens.denylist) ---------------------------------------------

    def _mint_checked(self, verified: VerifiedAccessToken, expires_at: int) -> Identity:
        facts = TokenFacts.of(
            verified.claims,
            token_issuer=verified.issuer.issuer,
            subject=verified.principal.subject,
            actors=[a.subject for a in verified.principal.actors],
            jti=verified.principal.token_jti,
        )
        self._refuse_denied(facts)
        identity = self._mint(verified.principal, expires_at)
        if self.denylist is not None:
            self._facts[identity] = facts
        return identity

    def _refuse_denied(self, facts: TokenFacts) -> None:
        if self.denylist is not None and self.denylist.check(facts) is not None:
            raise IdentityError("credential revoked by a security event", code="identity.revoked")

    def minted(self, identity: Identity) -> bool:
        """Also False for an identity whose credential a security event revoked since."""
        if not super().minted(identity):
            return False
        if self.denylist is None:
            return True
        facts = self._facts.get(identity)
        try:
            return facts is not None and self.denylist.check(facts) is None
        except Exception:  # revocation state unknown: the identity is not vouched for
            return False

    def verify_workload(self, credential: str) -> WorkloadIdentity:
        try:
            if self.workloads is None:
                raise IdentityError("no trusted trust domains", code="identity.bad_issuer")
            return self.workloads.verify(credential)
        except Exception as exc:
            _fail_closed(exc)

    def _access(self, token: str) -> VerifiedAccessToken:
        verified = self.access.verify(token)
        if verified.issuer.act_chains == "granted":
            self._check_grants(verified)
        return verified

    def _check_grants(self, verified: VerifiedAccessToken) -> None:
        """Each hop must be allowed by a delegation grant, with scopes inside the grant's."""
        principal = verified.principal
        previous = "user"
        for actor in principal.actors:
            parse_spiffe_id(actor.subject)
            grant = self.config.grant(actor.subject, previous)
            if grant is None or not principal.scopes <= frozenset(grant.scopes):
                raise IdentityError("delegation not permitted", code="identity.bad_delegation")
            previous = actor.subject


class RefusingVerifier(MintingVerifier):
    """What a guard gets when identity configuration is missing or invalid: refuses, says why."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def verify(self, token: str) -> Identity:
        raise ConfigurationError(self.reason)

    def verify_presented(self, token: str, workload_credential: str) -> Identity:
        raise ConfigurationError(self.reason)

    @classmethod
    def or_verifier(
        cls, path: str | os.PathLike[str] | None, *, clock: Callable[[], float] = time.time
    ) -> MintingVerifier:
        """An :class:`IdentityVerifier` from ``path``, or a refusing one carrying the reason."""
        try:
            return IdentityVerifier.from_yaml(path, clock=clock)
        except ConfigurationError as exc:
            return cls(str(exc))
