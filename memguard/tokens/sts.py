"""The local security token service: signs with keys it generates and keeps, publishes them as JWKS.

It mints user tokens (local development login), workload credentials (it is the trust domain's
JWT-SVID issuer for development) and performs the RFC 8693 exchange (:mod:`.rfc8693`) for clients
authenticated by ``private_key_jwt`` (:mod:`.rfc7523`). It is I/O-free apart from its key folder;
:mod:`.server` puts it on HTTP.

Rotation: :meth:`KeyRing.rotate` makes a new active key; retired keys stay in the JWKS for
``retain`` seconds (the longest lifetime of a token they signed plus leeway), so tokens already
issued keep verifying until they expire.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from memguard.errors import ConfigurationError, IdentityError
from memguard.events import AuditEvent, Decision
from memguard.identity import Principal, check_identifier
from memguard.logging import get_logger
from memguard.provenance import sha256_digest
from memguard.tokens.config import DelegationGrant
from memguard.tokens.denylist import DenyCheck, TokenFacts
from memguard.tokens.entity_profiles import format_profile, parse_profile
from memguard.tokens.id_jag import (
    JWT_BEARER_GRANT,
    IdJagIssuer,
    IdJagRequest,
    IdJagVerifier,
    parse_id_jag_request,
)
from memguard.tokens.presenter import check_presenter
from memguard.tokens.rfc7517 import key_fits, public_jwk
from memguard.tokens.rfc7523 import (
    JWT_BEARER,
    ClientAssertionVerifier,
    MemoryReplayCache,
    RegisteredClient,
    ReplayCache,
)
from memguard.tokens.rfc8693 import (
    ACCESS_TOKEN_TYPE,
    TXN_TOKEN_TYPE,
    ExchangeRequest,
    TokenExchangeError,
    may_act_allows,
    parse_exchange_request,
)
from memguard.tokens.rfc9068 import AccessTokenVerifier, TrustedIssuer, VerifiedAccessToken
from memguard.tokens.rfc9493 import subject_identifier
from memguard.tokens.spiffe_client_auth import SpiffeClientVerifier
from memguard.tokens.svid import TrustDomain, WorkloadCredentialVerifier, parse_spiffe_id
from memguard.tokens.txn_token import TxnTokenService, TxnTokenVerifier
from memguard.tokens.uses import (
    ACTOR_TYP,
    CLIENT_ASSERTION_TYP,
    PRESENTER_TYP,
    check_distinct,
    default_presenter_audience,
    default_token_endpoint,
)

__all__ = ["JWT_SPIFFE", "KeyRing", "SecurityTokenService", "WorkloadUse", "public_jwk"]

# Client authentication with a JWT-SVID (draft-ietf-oauth-spiffe-client-auth).
JWT_SPIFFE = "urn:ietf:params:oauth:client-assertion-type:jwt-spiffe"

Alg = Literal["EdDSA", "ES256"]
WorkloadUse = Literal["presenter", "actor", "client"]
PrivateKey = Ed25519PrivateKey | ec.EllipticCurvePrivateKey


class KeyRing:
    """Signing keys in a folder (0600 PEM files + ``ring.json``); one active, retired ones retained."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        alg: Alg = "EdDSA",
        retain: int = 3700,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if alg not in ("EdDSA", "ES256"):
            raise ConfigurationError("the STS signs with `EdDSA` or `ES256`")
        self.alg: Alg = alg
        self.dir = Path(directory)
        self.retain = retain
        self._clock = clock
        self._lock = threading.Lock()
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._keys: dict[str, PrivateKey] = {}
        self._state: dict[str, Any] = {"active": None, "keys": {}}
        self._load()
        if self._state["active"] is None:
            self.rotate()

    def _load(self) -> None:
        path = self.dir / "ring.json"
        if not path.exists():
            return
        state = json.loads(path.read_text("utf-8"))
        for kid in state["keys"]:
            key = serialization.load_pem_private_key((self.dir / f"{kid}.pem").read_bytes(), None)
            if not isinstance(key, Ed25519PrivateKey | ec.EllipticCurvePrivateKey):
                raise ConfigurationError(f"`{kid}.pem` is not an EdDSA or ES256 key")
            self._keys[kid] = key
        self._state = state

    def _save(self) -> None:
        tmp = self.dir / "ring.json.tmp"
        tmp.write_text(json.dumps(self._state, sort_keys=True), "utf-8")
        os.replace(tmp, self.dir / "ring.json")

    def rotate(self) -> str:
        """Generate a new active key; the previous one is retired but still published."""
        with self._lock:
            key: PrivateKey = (
                Ed25519PrivateKey.generate()
                if self.alg == "EdDSA"
                else ec.generate_private_key(ec.SECP256R1())
            )
            kid = public_jwk(key)["kid"]
            pem = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            fd = os.open(self.dir / f"{kid}.pem", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(pem)
            now = int(self._clock())
            old = self._state["active"]
            if old is not None:
                self._state["keys"][old]["retired"] = now
            self._state["keys"][kid] = {"created": now, "retired": None}
            self._state["active"] = kid
            self._keys[kid] = key
            self._save()
            return kid

    @property
    def active_kid(self) -> str:
        return str(self._state["active"])

    def _published(self) -> list[str]:
        now = self._clock()
        return [
            kid
            for kid, meta in self._state["keys"].items()
            if meta["retired"] is None or now - meta["retired"] <= self.retain
        ]

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        return {"keys": [public_jwk(self._keys[kid]) for kid in self._published()]}

    def get(self, kid: str, alg: str) -> object:
        if kid not in self._published():
            raise IdentityError("unknown key", code="identity.unknown_key")
        pub = self._keys[kid].public_key()
        if alg != self.alg or not key_fits(alg, pub):
            raise IdentityError("key does not fit algorithm", code="identity.bad_alg")
        return pub

    def sign(self, claims: Mapping[str, Any], typ: str) -> str:
        kid = self.active_kid
        return jwt.encode(
            dict(claims), self._keys[kid], algorithm=self.alg, headers={"typ": typ, "kid": kid}
        )


class SecurityTokenService:
    """Local STS: user tokens, workload credentials, and the RFC 8693 exchange.

    Audiences per use (:mod:`memguard.tokens.uses`): access tokens name one of ``audiences`` (the
    resources); client assertions and actor tokens name the token endpoint (``token_endpoint``,
    default ``{issuer}/token``, and the issuer itself when no resource or presenter audience is
    the issuer); presenter credentials name ``presenter_audience`` (default
    ``{first resource}/workload``). A configuration in which two of these meet is refused.

    Exchanged tokens keep ``iss`` = this service and ``sub`` = the subject's, and carry the
    subject's issuer in ``sub_id`` (RFC 9493, :mod:`.rfc9493`), so the user and her agents name one
    principal wherever her token came from.
    """

    def __init__(
        self,
        key_dir: str | os.PathLike[str],
        *,
        issuer: str = "https://sts.memguard.local",
        audiences: Iterable[str] = ("memguard",),
        trust_domain: str = "memguard.local",
        clients: Sequence[RegisteredClient] = (),
        delegation: Sequence[DelegationGrant] = (),
        alg: Alg = "EdDSA",
        max_ttl: int = 3600,
        workload_ttl: int = 600,
        max_depth: int = 3,
        leeway: int = 30,
        replay: ReplayCache | None = None,
        sink: Callable[[AuditEvent], None] | None = None,
        extra_issuers: Mapping[str, TrustedIssuer] | None = None,
        token_endpoint: str | None = None,
        presenter_audience: str | None = None,
        txn_tokens: Sequence[TxnTokenService] = (),
        actor_profiles: Mapping[str, str] | None = None,
        id_jag: Sequence[IdJagIssuer] = (),
        id_jag_ttl: int = 900,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.issuer = check_identifier(issuer, "issuer")
        self.audiences = frozenset(audiences)
        if not self.audiences:
            raise ConfigurationError("the token service needs at least one resource audience")
        self.presenter_audience = presenter_audience or default_presenter_audience(
            min(self.audiences)
        )
        self.trust_domain = trust_domain
        self.max_ttl, self.workload_ttl, self.max_depth = max_ttl, workload_ttl, max_depth
        self.leeway = leeway
        self.delegation = tuple(delegation)
        self._clock = clock
        self._sink = sink
        self._log = get_logger()
        base = Path(key_dir)
        self.access_keys = KeyRing(base / "access", alg=alg, retain=max_ttl + leeway, clock=clock)
        self.workload_keys = KeyRing(
            base / "workload", alg=alg, retain=workload_ttl + leeway, clock=clock
        )
        external = {k: v for k, v in (extra_issuers or {}).items() if k != issuer}
        for t in txn_tokens:  # (trust domain, sub) must never name another issuer's user
            if t.trust_domain == issuer or t.trust_domain in external:
                raise ConfigurationError(
                    f"transaction tokens: trust domain `{t.trust_domain}` "
                    "is also a trusted token issuer"
                )
        #: Transaction Tokens of these trust domains are subject tokens (memguard.tokens.txn_token)
        self.txn_verifier = (
            TxnTokenVerifier({t.trust_domain: t for t in txn_tokens}, leeway=leeway, clock=clock)
            if txn_tokens
            else None
        )
        #: the entity profile (``sub_profile``) each actor's ``act`` entry gets, by actor id
        self.actor_profiles = {
            k: format_profile(parse_profile(v, "actor_profiles"))
            for k, v in (actor_profiles or {}).items()
        }
        for idp in id_jag:  # (IdP, sub) must never name this service's or a trust domain's user
            if idp.issuer == issuer or idp.issuer in {t.trust_domain for t in txn_tokens}:
                raise ConfigurationError(
                    f"id_jag: identity provider `{idp.issuer}` is this token "
                    "service or a transaction-token trust domain"
                )
        #: ID-JAGs (memguard.tokens.id_jag) of these enterprise IdPs are authorization grants;
        #: their audience is this service's issuer, its own token use
        self.id_jag = (
            IdJagVerifier(
                {i.issuer: i for i in id_jag},
                audience=self.issuer,
                resources=self.audiences,
                leeway=leeway,
                clock=clock,
            )
            if id_jag
            else None
        )
        self.id_jag_ttl = id_jag_ttl
        #: the issuers (Txn-Token trust domains, ID-JAG IdPs) whose subjects this service issues
        #: tokens for, and so names in ``sub_id``
        self.attests = (
            frozenset(external)
            | frozenset(t.trust_domain for t in txn_tokens)
            | frozenset(i.issuer for i in id_jag)
        )
        issuers = {
            issuer: TrustedIssuer(issuer, frozenset({alg}), self.access_keys, self.attests),
            **external,
        }
        # Subject tokens: any audience this STS serves, or the STS itself.
        self.subject_verifier = AccessTokenVerifier(
            issuers,
            audiences=self.audiences | {issuer},
            max_ttl=max_ttl,
            max_depth=max_depth,
            leeway=leeway,
            clock=clock,
        )
        self._domain = TrustDomain(trust_domain, frozenset({alg}), self.workload_keys, issuer)
        self.clients = ClientAssertionVerifier(
            {c.client_id: c for c in clients},
            audiences=frozenset(),
            replay=replay or MemoryReplayCache(),
            leeway=leeway,
            clock=clock,
        )
        #: called with each authenticated client id before its request is served; may refuse
        #: with a TokenExchangeError (the gateway's per-client rate limit)
        self.admit_client: Callable[[str], None] | None = None
        #: JWT-SVID client authentication for workloads of federated trust domains (their
        #: bundles; memguard.tokens.spiffe_client_auth), next to this service's own domain
        self.spiffe_clients: SpiffeClientVerifier | None = None
        #: credentials refused after a security event (memguard.tokens.denylist): a revoked
        #: subject token is not exchanged into a fresh one
        self.denylist: DenyCheck | None = None
        self.set_token_endpoint(token_endpoint or default_token_endpoint(issuer))

    def set_token_endpoint(self, url: str) -> None:
        """The token endpoint URL: the audience of client assertions and actor tokens (RFC 7523 3),
        with the issuer when no other use claims the issuer's name."""
        # with ID-JAGs enabled the issuer is their audience (draft 4.4.1), no other use's
        id_jag = [self.issuer] if self.id_jag is not None else []
        others = self.audiences | {self.presenter_audience} | set(id_jag)
        self.token_endpoint = url
        self.token_audiences = frozenset({url} | ({self.issuer} - others))
        check_distinct(
            {
                "access tokens": self.audiences,
                "presenter credentials": [self.presenter_audience],
                "the token endpoint": self.token_audiences,
                "identity assertion grants": id_jag,
            }
        )
        self.clients.audiences = self.token_audiences
        if self.spiffe_clients is not None:
            self.spiffe_clients.audiences = self.token_audiences
        domains = {self.trust_domain: self._domain}
        # Actor tokens and workload client assertions: each its own typ, the token endpoint's audience.
        self.actor_verifier = WorkloadCredentialVerifier(
            domains,
            audiences=self.token_audiences,
            typ=ACTOR_TYP,
            max_ttl=self.workload_ttl,
            leeway=self.leeway,
            clock=self._clock,
        )
        self.client_workloads = WorkloadCredentialVerifier(
            domains,
            audiences=self.token_audiences,
            typ=CLIENT_ASSERTION_TYP,
            max_ttl=self.workload_ttl,
            leeway=self.leeway,
            clock=self._clock,
        )

    @property
    def token_audience(self) -> str:
        """The audience this service puts in the actor tokens and client assertions it mints."""
        return self.issuer if self.issuer in self.token_audiences else self.token_endpoint

    # -- minting (development) ----------------------------------------------------------------

    def issue_user_token(
        self,
        subject: str,
        *,
        scopes: Iterable[str] = (),
        audience: str | None = None,
        ttl: int = 900,
        client_id: str = "memguard-cli",
        may_act: Mapping[str, str] | None = None,
    ) -> str:
        now = int(self._clock())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": check_identifier(subject, "sub"),
            "aud": audience or min(self.audiences),
            "iat": now,
            "exp": now + min(ttl, self.max_ttl),
            "jti": secrets.token_urlsafe(16),
            "client_id": client_id,
            "scope": " ".join(scopes),
        }
        if may_act is not None:
            claims["may_act"] = dict(may_act)
        return self.access_keys.sign(claims, "at+jwt")

    def issue_workload_credential(
        self,
        spiffe_id: str,
        *,
        use: WorkloadUse = "presenter",
        audience: str | None = None,
        ttl: int = 300,
    ) -> str:
        """A JWT-SVID for one use: ``presenter`` (sent with a delegated token to the resource),
        ``actor`` (an RFC 8693 ``actor_token``) or ``client`` (``jwt-spiffe`` client authentication
        at the token endpoint). ``audience`` overrides the use's audience (tests), but never with
        another use's."""
        domain, _ = parse_spiffe_id(spiffe_id)
        if domain != self.trust_domain:
            raise ConfigurationError(f"`{spiffe_id}` is not in trust domain `{self.trust_domain}`")
        if use == "presenter":
            typ, own, other = PRESENTER_TYP, self.presenter_audience, self.token_audiences
        elif use in ("actor", "client"):
            typ = ACTOR_TYP if use == "actor" else CLIENT_ASSERTION_TYP
            own, other = self.token_audience, frozenset({self.presenter_audience})
        else:
            raise ConfigurationError(f"unknown workload credential use `{use}`")
        if audience is not None and audience in other | self.audiences:
            raise ConfigurationError(f"`{audience}` is the audience of another token use")
        now = int(self._clock())
        claims = {
            "iss": self.issuer,
            "sub": spiffe_id,
            "aud": audience or own,
            "iat": now,
            "exp": now + min(ttl, self.workload_ttl),
            "jti": secrets.token_urlsafe(16),
        }
        return self.workload_keys.sign(claims, typ)

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        return self.access_keys.jwks()

    def workload_jwks(self) -> dict[str, list[dict[str, str]]]:
        return self.workload_keys.jwks()

    # -- RFC 8693 -----------------------------------------------------------------------------

    def token_request(self, form: Mapping[str, list[str]]) -> dict[str, Any]:
        """Handle a token request; returns the JSON response or raises ``TokenExchangeError``."""
        detail: dict[str, Any] = {}
        try:
            if form.get("grant_type") == [JWT_BEARER_GRANT]:
                response = self._id_jag_grant(form, detail)
            else:
                response = self._exchange(form, detail)
        except TokenExchangeError as exc:
            self._record(Decision.DENY, f"{exc.error}:{exc.reason}", detail)
            raise
        except Exception as exc:  # fail closed: a bug is a refusal, never a token
            self._record(Decision.DENY, f"server_error:{type(exc).__name__}", detail)
            raise TokenExchangeError("server_error", type(exc).__name__) from exc
        self._record(Decision.ALLOW, "issued", detail)
        return response

    def _workload_client(self, assertion: str, client_id: str | None) -> str:
        """A workload authenticates with a JWT-SVID for this STS; its SPIFFE ID is its client id.

        The credential must carry a ``jti``, and each ``jti`` is accepted once (same replay cache
        as ``private_key_jwt``), so a captured credential cannot be replayed at the token endpoint.
        """
        workload = self.client_workloads.verify(assertion)
        if client_id is not None and client_id != workload.spiffe_id:
            raise IdentityError("client_id mismatch", code="identity.bad_client")
        if workload.jti is None:
            raise IdentityError("workload credential needs a jti", code="identity.bad_claims")
        key = f"svid\x00{workload.spiffe_id}\x00{workload.jti}"
        if not self.clients.replay.use(key, workload.expires_at + 60, self._clock()):
            raise IdentityError("client assertion replayed", code="identity.replayed")
        return workload.spiffe_id

    def _txn_subject(self, token: str) -> VerifiedAccessToken:
        """A Transaction Token as the subject: only of a configured trust domain."""
        if self.txn_verifier is None:
            raise IdentityError("no transaction token service is trusted", code="identity.bad_type")
        txn = self.txn_verifier.verify(token)
        jti = txn.claims.get("jti")
        principal = Principal(
            subject=txn.subject,
            token_jti=check_identifier(jti, "jti")
            if jti is not None
            else sha256_digest(token.encode()),
            scopes=txn.scopes,
            subject_profile=txn.subject_profile,
            txn=txn.txn,
            txn_context=txn.context,
        )
        service = self.txn_verifier.services[txn.subject.issuer]
        return VerifiedAccessToken(
            principal=principal,
            expires_at=txn.expires_at,
            claims=txn.claims,
            issuer=TrustedIssuer(service.trust_domain, service.algorithms, service.keys),
        )

    def _record(self, decision: Decision, reason: str, detail: dict[str, Any]) -> None:
        event = AuditEvent(action="token_exchange", decision=decision, reason=reason, detail=detail)
        self._log.info("memguard.sts", decision=decision.value, reason=reason, **detail)
        if self._sink is not None:
            self._sink(event)

    def _authenticate_client(self, req: ExchangeRequest | IdJagRequest) -> str:
        if req.client_assertion is None:
            raise TokenExchangeError("invalid_client", "client_assertion")
        try:
            if req.client_assertion_type == JWT_BEARER:
                return self.clients.authenticate(req.client_assertion, req.client_id)
            if req.client_assertion_type == JWT_SPIFFE:
                federated = self.spiffe_clients
                if federated is not None and federated.handles(req.client_assertion):
                    return federated.authenticate(req.client_assertion, req.client_id)
                return self._workload_client(req.client_assertion, req.client_id)
            raise TokenExchangeError("invalid_client", "client_assertion_type")
        except IdentityError as exc:
            if isinstance(exc, TokenExchangeError):
                raise
            raise TokenExchangeError("invalid_client", exc.code) from None

    def _granted_scopes(
        self, hops: Sequence[tuple[str, str]], *, may_act: bool | None, first_hop_new: bool
    ) -> frozenset[str] | None:
        """The scopes every hop's grant allows (``None``: no grant limits them), or a refusal.

        Every hop the issued token will carry is checked against this service's grants, whoever
        asserted it: hops copied from the subject token too (an external issuer's ``act`` is not
        trusted). Only a new first hop may instead rest on the subject token's ``may_act``.
        """
        allowed: frozenset[str] | None = None
        for index, (actor, on_behalf_of) in enumerate(hops):
            try:
                parse_spiffe_id(actor)
            except IdentityError:
                raise TokenExchangeError("invalid_grant", "an actor is not a workload") from None
            grant = next(
                (g for g in self.delegation if g.actor == actor and g.on_behalf_of == on_behalf_of),
                None,
            )
            if grant is None:
                if index == 0 and first_hop_new and may_act is True:
                    continue
                raise TokenExchangeError("invalid_grant", f"hop {index} not granted")
            scopes = frozenset(grant.scopes)
            allowed = scopes if allowed is None else allowed & scopes
        return allowed

    def _id_jag_grant(
        self, form: Mapping[str, list[str]], detail: dict[str, Any]
    ) -> dict[str, Any]:
        """RFC 7523 2.1 with an ID-JAG (memguard.tokens.id_jag): an access token for the user the
        enterprise IdP names, for the authenticated client, audience-restricted to the resource."""
        detail["grant"] = "id-jag"
        if self.id_jag is None:
            raise TokenExchangeError("unsupported_grant_type", "no identity provider is trusted")
        req = parse_id_jag_request(form)
        client_id = self._authenticate_client(req)
        detail["client_id"] = client_id
        if self.admit_client is not None:
            self.admit_client(client_id)
        detail["assertion_digest"] = sha256_digest(req.assertion.encode())
        try:
            grant = self.id_jag.verify(req.assertion, client_id=client_id)
        except IdentityError as exc:
            raise TokenExchangeError("invalid_grant", f"assertion {exc.code}") from None
        subject = grant.subject
        detail.update(
            subject=subject.subject,
            subject_issuer=subject.issuer,
            resource=grant.resource,
            assertion_jti=grant.jti,
        )
        if req.resource is not None and req.resource != grant.resource:
            raise TokenExchangeError("invalid_target", "resource is not the assertion's")
        if self.denylist is not None:
            try:
                denied = self.denylist.check(
                    TokenFacts.of(
                        grant.claims,
                        token_issuer=subject.issuer,
                        subject=subject,
                        actors=[],
                        jti=grant.jti,
                    )
                )
            except IdentityError as exc:
                raise TokenExchangeError("invalid_grant", f"assertion {exc.code}") from None
            if denied is not None:
                raise TokenExchangeError("invalid_grant", "assertion identity.revoked")
        allowed = self.id_jag.allowed_scopes(grant)
        scopes = req.scopes if req.scopes is not None else grant.scopes  # never narrowed
        if not scopes or not scopes <= allowed:
            raise TokenExchangeError("invalid_scope", "scope not within the assertion's")
        now = int(self._clock())
        if not self.clients.replay.use(
            f"idjag\x00{subject.issuer}\x00{grant.jti}", grant.expires_at + self.leeway, now
        ):
            raise TokenExchangeError("invalid_grant", "assertion identity.replayed")
        exp = now + min(self.id_jag_ttl, self.max_ttl)
        claims = {
            "iss": self.issuer,
            "sub": subject.subject,
            "sub_id": subject_identifier(subject),
            "aud": grant.resource,
            "iat": now,
            "exp": exp,
            "jti": secrets.token_urlsafe(16),
            "client_id": client_id,
            "scope": " ".join(sorted(scopes)),
        }
        token = self.access_keys.sign(claims, "at+jwt")
        detail["issued_jti"] = claims["jti"]
        return {
            "access_token": token,
            "issued_token_type": ACCESS_TOKEN_TYPE,
            "token_type": "Bearer",
            "expires_in": exp - now,
            "scope": claims["scope"],
        }

    def _exchange(self, form: Mapping[str, list[str]], detail: dict[str, Any]) -> dict[str, Any]:
        req = parse_exchange_request(form)
        client_id = self._authenticate_client(req)
        detail["client_id"] = client_id
        if self.admit_client is not None:
            self.admit_client(client_id)
        try:
            if req.subject_token_type == TXN_TOKEN_TYPE:
                subject = self._txn_subject(req.subject_token)
            else:
                subject = self.subject_verifier.verify(req.subject_token)
        except IdentityError as exc:
            raise TokenExchangeError("invalid_grant", f"subject_token {exc.code}") from None
        principal = subject.principal
        if self.denylist is not None:
            try:
                denied = self.denylist.check(
                    TokenFacts.of(
                        subject.claims,
                        token_issuer=subject.issuer.issuer,
                        subject=principal.subject,
                        actors=[a.subject for a in principal.actors],
                        jti=principal.token_jti,
                    )
                )
            except IdentityError as exc:
                raise TokenExchangeError("invalid_grant", f"subject_token {exc.code}") from None
            if denied is not None:
                raise TokenExchangeError("invalid_grant", "subject_token identity.revoked")
        detail["subject_token_digest"] = sha256_digest(req.subject_token.encode())
        detail["subject"] = principal.subject.subject
        detail["subject_issuer"] = principal.subject.issuer
        exp_inputs = [subject.expires_at]
        actor_scopes: frozenset[str] | None = None
        if req.actor_token is not None:
            try:
                actor = self.actor_verifier.verify(req.actor_token)
            except IdentityError as exc:
                raise TokenExchangeError("invalid_grant", f"actor_token {exc.code}") from None
            new_actor, actor_scopes = actor.spiffe_id, actor.scopes
            exp_inputs.append(actor.expires_at)
        else:
            new_actor = client_id
        try:
            domain, _ = parse_spiffe_id(new_actor)
        except IdentityError:
            raise TokenExchangeError("unauthorized_client", "actor is not a workload") from None
        actor_iss = f"spiffe://{domain}"
        detail["actor"] = new_actor
        chain = [a.subject for a in principal.actors]
        if chain:
            # Re-delegation: only the token's current actor may hand it on (presenter binding).
            try:
                client_domain, _ = parse_spiffe_id(client_id)
                check_presenter(
                    principal,
                    client_id,
                    token_issuer=subject.issuer.issuer,
                    trust_domain_id=f"spiffe://{client_domain}",
                )
            except IdentityError:
                raise TokenExchangeError(
                    "invalid_grant", "client is not the current actor"
                ) from None
            on_behalf_of = chain[-1]
        else:
            if new_actor != client_id:
                raise TokenExchangeError("invalid_grant", "first hop must be the client itself")
            on_behalf_of = "user"
        if new_actor in chain or new_actor == principal.subject.subject:
            raise TokenExchangeError("invalid_grant", "cycle")
        if len(chain) + 1 > self.max_depth:
            raise TokenExchangeError("invalid_grant", "chain too deep")
        may_act = may_act_allows(subject.claims, new_actor, actor_iss) if not chain else None
        if may_act is False:
            raise TokenExchangeError("invalid_grant", "may_act names another actor")
        hops = list(zip(chain, ["user", *chain], strict=False))
        granted = self._granted_scopes(
            [*hops, (new_actor, on_behalf_of)], may_act=may_act, first_hop_new=not chain
        )
        allowed = principal.scopes
        for limit in (granted, actor_scopes):
            if limit is not None:
                allowed &= limit
        if not req.scopes <= allowed:
            raise TokenExchangeError("invalid_scope", "scope not within subject/actor/grant")
        target = req.targets[0]
        if target not in self.audiences:
            raise TokenExchangeError("invalid_target", "unknown audience")
        now = int(self._clock())
        exp = min([*exp_inputs, now + self.max_ttl])
        if exp <= now:
            raise TokenExchangeError("invalid_grant", "inputs expired")
        act: dict[str, Any] | None = None
        for hop in principal.actors:  # rebuilt from the verified chain, first delegate innermost
            act = {
                "sub": hop.subject,
                "iss": hop.issuer,
                **_profile(format_profile(hop.profile)),
                **({"act": act} if act else {}),
            }
        new_act = {
            "sub": new_actor,
            "iss": actor_iss,
            **_profile(self.actor_profiles.get(new_actor)),
            **({"act": act} if act else {}),
        }
        claims = {
            "iss": self.issuer,
            "sub": principal.subject.subject,
            "sub_id": subject_identifier(principal.subject),
            "aud": target,
            "iat": now,
            "exp": exp,
            "jti": secrets.token_urlsafe(16),
            "client_id": client_id,
            "scope": " ".join(sorted(req.scopes)),
            "act": new_act,
        }
        if principal.txn is not None:  # the transaction this call chain belongs to
            claims["txn"] = principal.txn
            detail["txn"] = principal.txn
        if principal.txn_context is not None:  # its tctx / rctx, canonical and bounded
            claims.update(json.loads(principal.txn_context))
        claims.update(_profile(format_profile(principal.subject_profile)))
        sid = subject.claims.get("sid")
        if isinstance(sid, str):  # the delegated token stays in the user's session (CAEP)
            claims["sid"] = check_identifier(sid, "sid")
        token = self.access_keys.sign(claims, "at+jwt")
        detail["issued_jti"] = claims["jti"]
        return {
            "access_token": token,
            "issued_token_type": ACCESS_TOKEN_TYPE,
            "token_type": "Bearer",
            "expires_in": exp - now,
            "scope": claims["scope"],
        }


def _profile(value: str | None) -> dict[str, str]:
    return {"sub_profile": value} if value else {}
