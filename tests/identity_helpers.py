"""Shared pieces of the identity tests: a local STS with real keys, clients, a counting store."""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from helpers import BROWSER, PLANNER, Clock, CountingStore

from memguard import IdentityError, Ledger, MemoryGuard
from memguard.events import AuditEvent
from memguard.tokens import IdentityConfig, IdentityVerifier, SecurityTokenService
from memguard.tokens.config import DelegationGrant
from memguard.tokens.rfc7523 import RegisteredClient
from memguard.tokens.sts import public_jwk

ISSUER = "https://sts.memguard.local"
AUDIENCE = "memguard"
PRESENTER_AUDIENCE = "memguard/workload"
TOKEN_ENDPOINT = f"{ISSUER}/token"
SCOPES = ("memory:read", "memory:write")
GRANTS = (
    DelegationGrant(actor=PLANNER, on_behalf_of="user", scopes=SCOPES),
    DelegationGrant(actor=BROWSER, on_behalf_of=PLANNER, scopes=SCOPES),
)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("utf-8")


@dataclass
class Client:
    client_id: str
    key: ec.EllipticCurvePrivateKey
    kid: str

    @property
    def pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def registered(self) -> RegisteredClient:
        jwk = public_jwk(self.key)
        return RegisteredClient(self.client_id, {"keys": [jwk]}, frozenset({"ES256"}))

    def assertion(self, aud: str, now: int, /, **over: Any) -> str:
        claims: dict[str, Any] = {
            "iss": self.client_id, "sub": self.client_id, "aud": aud,
            "iat": now, "exp": now + 60, "jti": f"j-{now}-{uuid.uuid4().hex}",
        }
        claims.update(over)
        return jwt.encode({k: v for k, v in claims.items() if v is not None}, self.key,
                          algorithm="ES256", headers={"kid": self.kid, "typ": "JWT"})


def make_client(client_id: str) -> Client:
    key = ec.generate_private_key(ec.SECP256R1())
    return Client(client_id, key, public_jwk(key)["kid"])


@dataclass
class Env:
    """A local STS, its clients, and a guard whose verifier trusts the STS through static JWKS."""

    tmp: Path
    clock: Clock
    sts: SecurityTokenService
    planner: Client
    browser: Client
    events: list[AuditEvent] = field(default_factory=list)
    guards: list[MemoryGuard] = field(default_factory=list)

    def config(self, **over: Any) -> IdentityConfig:
        data: dict[str, Any] = {
            "version": 1,
            "access_tokens": {"audience": AUDIENCE, "issuers": [
                {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks": self.sts.jwks()}]},
            "workload_credentials": {"audience": PRESENTER_AUDIENCE, "trust_domains": [
                {"trust_domain": "memguard.local", "algorithms": ["EdDSA"],
                 "jwks": self.sts.workload_jwks()}]},
            "delegation": [g.model_dump(mode="json") for g in GRANTS],
        }
        data.update(over)
        return IdentityConfig.from_mapping(data)

    def guard(self, verifier: Any = None, **kw: Any) -> MemoryGuard:
        g = MemoryGuard(
            store=CountingStore(),  # type: ignore[arg-type]
            ledger=Ledger.sqlite(self.tmp / f"ledger-{len(self.guards)}.db"),
            verifier=verifier or IdentityVerifier(self.config(), clock=self.clock),
            clock=self.clock,
            **kw,
        )
        self.guards.append(g)
        return g

    def form(self, client: Client, subject_token: str, /, **over: Any) -> dict[str, list[str]]:
        fields: dict[str, Any] = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": client.assertion(ISSUER, int(self.clock())),
            "subject_token": subject_token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "audience": AUDIENCE,
            "scope": "memory:read",
        }
        fields.update(over)
        return {k: (v if isinstance(v, list) else [v]) for k, v in fields.items() if v is not None}

    def user_token(self, **kw: Any) -> str:
        kw.setdefault("scopes", SCOPES)
        return self.sts.issue_user_token("alice", **kw)

    def planner_token(self, scope: str = "memory:read memory:write") -> str:
        out = self.sts.token_request(self.form(self.planner, self.user_token(), scope=scope))
        return str(out["access_token"])

    def browser_token(self, scope: str = "memory:read") -> str:
        actor = self.sts.issue_workload_credential(BROWSER, use="actor")
        out = self.sts.token_request(self.form(
            self.planner, self.planner_token(), scope=scope, actor_token=actor,
            actor_token_type="urn:ietf:params:oauth:token-type:jwt"))
        return str(out["access_token"])

    def svid(self, spiffe_id: str, **kw: Any) -> str:
        return self.sts.issue_workload_credential(spiffe_id, **kw)


def make_env(tmp: Path, clock: Clock, **sts_kw: Any) -> Env:
    planner, browser = make_client(PLANNER), make_client(BROWSER)
    events: list[AuditEvent] = []
    sts = SecurityTokenService(
        tmp / "sts", issuer=ISSUER, clients=[planner.registered(), browser.registered()],
        delegation=GRANTS, sink=events.append, clock=clock, **sts_kw,
    )
    return Env(tmp, clock, sts, planner, browser, events)


def deny_ids(guard: MemoryGuard) -> set[str]:
    return {e.event_id for e in guard.ledger.events(decision="deny")}


def assert_refused(
    guard: MemoryGuard, token: object, code: str, *, workload_credential: str | None = None
) -> None:
    """Refused with ``code``, exactly one deny event with that reason, no store call, no token leak."""
    store = guard.store
    assert isinstance(store, CountingStore)
    calls = list(store.calls)
    before = deny_ids(guard)
    with pytest.raises(IdentityError) as info:
        guard.authenticate(token, workload_credential=workload_credential)  # type: ignore[arg-type]
    assert info.value.code == code, f"expected {code}, got {info.value.code} ({info.value})"
    new = [e for e in guard.ledger.events(decision="deny") if e.event_id not in before]
    assert len(new) == 1, new
    assert new[0].action == "authenticate" and new[0].reason == code
    assert new[0].principal is None
    if isinstance(token, str) and token:
        assert token not in new[0].canonical().decode("utf-8")
    assert store.calls == calls


# -- two issuers, one token service (issue 12) -------------------------------------------------------

LOGIN_A = "https://login-a.example"
LOGIN_B = "https://login-b.example"
USER_SCOPES = (*SCOPES, "memory:endorse", "memory:revoke")


@dataclass
class TwoIssuers:
    """Two identity providers whose users share ``sub`` values, and one token service that
    exchanges either's tokens for the planner agent (it attests both, RFC 9493 ``sub_id``)."""

    clock: Clock
    idps: dict[str, SecurityTokenService]
    sts: SecurityTokenService
    planner: Client

    def config(self) -> IdentityConfig:
        return IdentityConfig.from_mapping({
            "version": 1,
            "access_tokens": {"audience": AUDIENCE, "issuers": [
                *({"issuer": i.issuer, "algorithms": ["EdDSA"], "jwks": i.jwks()}
                  for i in self.idps.values()),
                {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks": self.sts.jwks(),
                 "attests": sorted(self.idps)}]},
            "workload_credentials": {"audience": PRESENTER_AUDIENCE, "trust_domains": [
                {"trust_domain": "memguard.local", "algorithms": ["EdDSA"],
                 "jwks": self.sts.workload_jwks()}]},
            "delegation": [g.model_dump(mode="json") for g in GRANTS],
        })

    def verifier(self) -> IdentityVerifier:
        return IdentityVerifier(self.config(), clock=self.clock)

    def user_token(self, issuer: str, subject: str = "alice") -> str:
        return self.idps[issuer].issue_user_token(subject, scopes=USER_SCOPES, audience=AUDIENCE)

    def agent_token(self, issuer: str, subject: str = "alice") -> str:
        """The planner's token for ``subject`` of ``issuer``, exchanged at the token service."""
        form = {
            "grant_type": ["urn:ietf:params:oauth:grant-type:token-exchange"],
            "client_assertion_type": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
            "client_assertion": [self.planner.assertion(ISSUER, int(self.clock()))],
            "subject_token": [self.user_token(issuer, subject)],
            "subject_token_type": ["urn:ietf:params:oauth:token-type:access_token"],
            "audience": [AUDIENCE], "scope": [" ".join(SCOPES)],
        }
        return str(self.sts.token_request(form)["access_token"])

    def presenter(self) -> str:
        return self.sts.issue_workload_credential(PLANNER)


def two_issuers(tmp: Path, clock: Clock) -> TwoIssuers:
    from memguard.tokens.rfc9068 import TrustedIssuer

    planner = make_client(PLANNER)
    idps = {iss: SecurityTokenService(tmp / f"idp-{n}", issuer=iss, clock=clock)
            for n, iss in enumerate((LOGIN_A, LOGIN_B))}
    sts = SecurityTokenService(
        tmp / "sts", issuer=ISSUER, clients=[planner.registered()], delegation=GRANTS, clock=clock,
        extra_issuers={i.issuer: TrustedIssuer(i.issuer, frozenset({"EdDSA"}), i.access_keys)
                       for i in idps.values()},
    )
    return TwoIssuers(clock, idps, sts, planner)
