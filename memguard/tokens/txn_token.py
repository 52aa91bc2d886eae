"""Transaction Tokens (draft-ietf-oauth-transaction-tokens) as subject tokens at the token endpoint.

A Txn-Token is minted by the Transaction Token Service of one trust domain and carries the
immutable context of one call chain through the workloads of that domain. memguard accepts one as
the ``subject_token`` of an RFC 8693 exchange (``subject_token_type
urn:ietf:params:oauth:token-type:txn_token``) only from a configured trust domain:

- ``typ`` is ``txntoken+jwt`` (the draft's media type; explicit typing, RFC 8725 3.11), so an
  access token, ID token or workload credential is never taken for one, nor one for them;
- ``aud``: "the trust domain in which the Txn-Token is used" -- exactly one value, the configured
  trust domain identifier; ``iss`` (optional in the draft) must be the configured Txn-Token
  Service when one is configured;
- ``iat`` / ``exp`` REQUIRED integers with a short lifetime (``max_ttl``, 300 s by default: the
  draft calls Txn-Tokens short-lived); ``txn`` REQUIRED, "a unique transaction identifier"
  (RFC 8417 2.2 ``txn``); ``sub`` REQUIRED, "unique within the trust domain"; ``scope`` REQUIRED;
- ``tctx`` / ``rctx`` objects when present (``rctx.req_wl`` the requesting workload(s)).

The subject is the principal (trust domain, ``sub``): unique per trust domain, never ``sub``
alone. The exchanged access token keeps ``txn`` (and the subject's ``sub_profile``), so every fact
written with it records the transaction in its provenance (``writer.txn``). A Txn-Token names no
actors here (an ``act`` claim is refused): the exchange adds the first hop, under the token
endpoint's delegation grants. Tokens are not recorded: the audit event holds their digest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memguard.errors import ConfigurationError, IdentityError
from memguard.identity import Actor, Principal, PrincipalId, check_identifier
from memguard.provenance import sha256_digest
from memguard.tokens.entity_profiles import parse_profile
from memguard.tokens.rfc7515 import check_alg, check_kid, parse_compact, verify_jws
from memguard.tokens.rfc7517 import KeySource
from memguard.tokens.rfc7519 import check_leeway, check_times, single_audience
from memguard.tokens.rfc8693 import TXN_TOKEN_TYPE

__all__ = [
    "MAX_CONTEXT_BYTES",
    "TXN_TOKEN_HEADER",
    "TXN_TOKEN_TYP",
    "TXN_TOKEN_TYPE",
    "ResourceTxnTokens",
    "TxnTokenService",
    "TxnTokenVerifier",
    "VerifiedTxnToken",
    "transaction_context",
]

TXN_TOKEN_TYP = "txntoken+jwt"
#: the most ``tctx`` + ``rctx`` may take in canonical JSON; provenance keeps them whole or not at all
MAX_CONTEXT_BYTES = 2048
_MAX_CONTEXT_DEPTH = 4
_MAX_CONTEXT_STRING = 512


def _check_context_value(value: object, depth: int) -> None:
    if depth > _MAX_CONTEXT_DEPTH:
        raise IdentityError("transaction context nested too deeply", code="identity.bad_claims")
    if value is None or isinstance(value, bool) or type(value) is int:
        return
    if isinstance(value, str):
        if len(value) > _MAX_CONTEXT_STRING or any(
            ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in value
        ):
            raise IdentityError("transaction context string", code="identity.bad_claims")
        return
    if isinstance(value, list):
        for item in value:
            _check_context_value(item, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check_context_value(key, depth + 1)
            _check_context_value(item, depth + 1)
        return
    # floats (no one canonical form across issuers) and anything else
    raise IdentityError("transaction context value type", code="identity.bad_claims")


def transaction_context(claims: Mapping[str, Any]) -> str | None:
    """``tctx`` and ``rctx`` of a Txn-Token (or a token exchanged from one) as canonical JSON
    (sorted keys, compact, UTF-8), or ``None`` when it has neither. Each must be an object of
    JSON strings, integers, booleans, nulls, lists and objects (no floats, no control characters,
    depth <= 4), together at most :data:`MAX_CONTEXT_BYTES`; anything else is refused, never cut."""
    context = {name: claims[name] for name in ("tctx", "rctx") if claims.get(name) is not None}
    if not context:
        return None
    for name, value in context.items():
        if not isinstance(value, dict):
            raise IdentityError(f"`{name}` must be an object", code="identity.bad_claims")
        _check_context_value(value, 1)
    raw = json.dumps(
        context, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    if len(raw.encode("utf-8")) > MAX_CONTEXT_BYTES:
        raise IdentityError("transaction context too large", code="identity.bad_claims")
    return raw


@dataclass(frozen=True, slots=True)
class TxnTokenService:
    """A trusted trust domain: its identifier (the Txn-Tokens' ``aud``), the key set and pinned
    algorithms of its Transaction Token Service, and that service's ``iss`` if it sends one."""

    trust_domain: str
    algorithms: frozenset[str]
    keys: KeySource
    issuer: str | None = None


@dataclass(frozen=True, slots=True)
class VerifiedTxnToken:
    subject: PrincipalId
    txn: str
    scopes: frozenset[str]
    expires_at: int
    subject_profile: tuple[str, ...]
    #: the requesting workload(s) of ``rctx.req_wl``, if named
    requesting_workloads: tuple[str, ...]
    claims: Mapping[str, Any]
    #: ``tctx`` / ``rctx`` as canonical JSON (:func:`transaction_context`), if any
    context: str | None = None


class TxnTokenVerifier:
    """Verifies Txn-Tokens of the configured trust domains; raises ``IdentityError`` otherwise."""

    def __init__(
        self,
        services: Mapping[str, TxnTokenService],
        *,
        max_ttl: int = 300,
        leeway: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.services = dict(services)
        self.max_ttl = max_ttl
        self.leeway = check_leeway(leeway)
        self._clock = clock

    def verify(self, token: str) -> VerifiedTxnToken:
        header, unverified = parse_compact(token)
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in (
            TXN_TOKEN_TYP,
            f"application/{TXN_TOKEN_TYP}",
        ):
            raise IdentityError("not a transaction token", code="identity.bad_type")
        aud = unverified.get("aud")
        service = self.services.get(aud) if isinstance(aud, str) else None
        if service is None or service.trust_domain != aud:
            raise IdentityError("not a trusted trust domain", code="identity.bad_audience")
        iss = unverified.get("iss")
        if service.issuer is not None and iss != service.issuer:
            raise IdentityError("untrusted transaction token service", code="identity.bad_issuer")
        alg = check_alg(header, service.algorithms)
        claims = verify_jws(token, service.keys.get(check_kid(header), alg), alg, unverified)
        single_audience(claims, {service.trust_domain})
        exp = check_times(
            claims,
            now=self._clock(),
            leeway=self.leeway,
            max_ttl=self.max_ttl,
            max_age=self.max_ttl + self.leeway,
        )
        for required in ("txn", "sub", "scope"):
            if required not in claims:
                raise IdentityError(f"missing `{required}`", code="identity.bad_claims")
        if "act" in claims:
            raise IdentityError(
                "a transaction token subject names no actors", code="identity.bad_chain"
            )
        scope = claims["scope"]
        if not isinstance(scope, str):
            raise IdentityError("scope must be a string", code="identity.bad_claims")
        for name in ("tctx", "rctx"):
            if name in claims and not isinstance(claims[name], dict):
                raise IdentityError(f"`{name}` must be an object", code="identity.bad_claims")
        context = transaction_context(claims)
        req_wl = (claims.get("rctx") or {}).get("req_wl")
        workloads = (req_wl,) if isinstance(req_wl, str) else tuple(req_wl or ())
        return VerifiedTxnToken(
            subject=PrincipalId(
                issuer=service.trust_domain,
                subject=check_identifier(claims["sub"], "sub", code="identity.bad_claims"),
            ),
            txn=check_identifier(claims["txn"], "txn", code="identity.bad_claims"),
            scopes=frozenset(s for s in scope.split(" ") if s),
            expires_at=exp,
            subject_profile=parse_profile(claims.get("sub_profile")),
            requesting_workloads=tuple(
                check_identifier(w, "req_wl", code="identity.bad_claims") for w in workloads
            ),
            claims=claims,
            context=context,
        )


#: draft-ietf-oauth-transaction-tokens: the HTTP header a Txn-Token travels in between workloads
TXN_TOKEN_HEADER = "Txn-Token"


class ResourceTxnTokens:
    """Txn-Tokens presented directly at the memory resource, inside their trust domain.

    The draft's use is service to service: a workload called inside a transaction passes its
    Txn-Token on in the ``Txn-Token`` header. A Txn-Token does not authenticate the caller, so the
    calling workload also presents its own credential (``Workload-Identity-Token``), and it must be
    one of the ``callers`` configured for that trust domain. The identity is the Txn-Token's
    subject (trust domain, ``sub``) with the calling workload as its one actor; it carries ``txn``
    and ``tctx`` / ``rctx`` into what it writes. The Txn-Token keeps its own ``typ`` and audience
    (the trust domain): it is never taken as an access token, nor an access token as it.
    """

    def __init__(self, verifier: TxnTokenVerifier, callers: Mapping[str, frozenset[str]]) -> None:
        for domain, allowed in callers.items():
            if domain not in verifier.services or not allowed:
                raise ConfigurationError(
                    f"transaction tokens at the resource: `{domain}` needs "
                    "a trusted trust domain and at least one caller"
                )
        self.verifier = verifier
        self.callers = dict(callers)

    def principal(
        self, token: str, *, caller: str, caller_domain: str
    ) -> tuple[Principal, int, Mapping[str, Any]]:
        """The identity a Txn-Token presented by ``caller`` (a verified workload) stands for:
        ``(principal, expires_at, claims)``; raises ``IdentityError``."""
        txn = self.verifier.verify(token)
        if caller not in self.callers.get(txn.subject.issuer, frozenset()):
            raise IdentityError(
                "workload may not present this trust domain's transaction tokens",
                code="identity.unbound",
            )
        jti = txn.claims.get("jti")
        principal = Principal(
            subject=txn.subject,
            actors=(Actor(issuer=caller_domain, subject=caller),),
            client_id=caller,
            scopes=txn.scopes,
            subject_profile=txn.subject_profile,
            token_jti=check_identifier(jti, "jti")
            if jti is not None
            else sha256_digest(token.encode()),
            txn=txn.txn,
            txn_context=txn.context,
        )
        return principal, txn.expires_at, txn.claims
