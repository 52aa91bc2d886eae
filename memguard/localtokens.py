"""A minimal local token service: Ed25519-signed ``at+jwt`` access tokens with RFC 8693 ``act`` chains.

This is the embedded default for development and the demo. It signs with a key it generates and keeps
on disk (mode 0600), and its verifier does a real signature check with PyJWT plus the checks PyJWT
leaves out (see :mod:`memguard.jws`). The full identity layer (external issuers, JWKS, workload
credentials, the RFC 8693 grant) plugs in behind the same :class:`~memguard.identity.Verifier` seam.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from memguard.errors import ConfigurationError, IdentityError
from memguard.identity import (
    Actor,
    Identity,
    MintingVerifier,
    Principal,
    PrincipalId,
    check_identifier,
)
from memguard.jws import parse_compact

__all__ = ["LocalTokenService", "LocalVerifier"]

_ACCEPTED_TYP = frozenset({"at+jwt", "application/at+jwt"})
_ACT_MEMBERS = frozenset({"sub", "iss", "act"})
MAX_LEEWAY = 60


def _kid(public: Ed25519PublicKey) -> str:
    """RFC 7638 JWK thumbprint of an OKP key."""
    import base64
    import hashlib

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class LocalTokenService:
    """Issues tokens for local development and demos. Not an authorization server."""

    def __init__(
        self,
        key_dir: str | os.PathLike[str],
        *,
        issuer: str = "https://memguard.local",
        audience: str = "memguard",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.issuer = check_identifier(issuer, "issuer")
        self.audience = audience
        self._clock = clock
        self._key_dir = Path(key_dir)
        self._private = self._load_or_create()
        self.kid = _kid(self._private.public_key())

    def _load_or_create(self) -> Ed25519PrivateKey:
        self._key_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self._key_dir / "signing-key.pem"
        if path.exists():
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
            if not isinstance(key, Ed25519PrivateKey):
                raise ConfigurationError(f"`{path}` is not an Ed25519 private key")
            return key
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        return key

    def public_keys(self) -> dict[str, Ed25519PublicKey]:
        return {self.kid: self._private.public_key()}

    def issue(
        self,
        subject: str,
        *,
        actors: Sequence[str] = (),
        scopes: Iterable[str] = (),
        ttl: int = 600,
        client_id: str | None = None,
        extra_claims: Mapping[str, Any] | None = None,
    ) -> str:
        """Sign an access token for ``subject`` acting through ``actors`` (first delegate -> current)."""
        now = int(self._clock())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": self.audience,
            "iat": now,
            "exp": now + ttl,
            "jti": secrets.token_urlsafe(16),
            "scope": " ".join(scopes),
        }
        if client_id is not None:
            claims["client_id"] = client_id
        act: dict[str, Any] | None = None
        for actor in actors:  # nest so the outermost `act` is the current actor (RFC 8693 4.1)
            act = {"sub": actor, "iss": self.issuer, **({"act": act} if act else {})}
        if act is not None:
            claims["act"] = act
        claims.update(extra_claims or {})
        return jwt.encode(
            claims, self._private, algorithm="EdDSA", headers={"typ": "at+jwt", "kid": self.kid}
        )

    def verifier(self, **options: Any) -> LocalVerifier:
        return LocalVerifier(
            issuer=self.issuer,
            audience=self.audience,
            keys=self.public_keys(),
            clock=options.pop("clock", self._clock),
            **options,
        )


class LocalVerifier(MintingVerifier):
    """Verifies tokens of one issuer with pinned EdDSA keys; every failure is an ``IdentityError``."""

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        keys: Mapping[str, Ed25519PublicKey],
        max_ttl: int = 3600,
        max_age: int = 86400,
        leeway: int = 30,
        max_depth: int = 3,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(clock=clock)
        if not keys:
            raise ConfigurationError("verifier needs at least one key")
        if not 0 <= leeway <= MAX_LEEWAY:
            raise ConfigurationError(f"leeway must be between 0 and {MAX_LEEWAY} seconds")
        self.issuer = issuer
        self.audience = audience
        self._keys = dict(keys)
        self.max_ttl = max_ttl
        self.max_age = max_age
        self.leeway = leeway
        self.max_depth = max_depth

    def verify(self, token: str) -> Identity:
        header, unverified = parse_compact(token)
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in _ACCEPTED_TYP:
            raise IdentityError("unsupported token type", code="identity.bad_type")
        if header.get("alg") != "EdDSA":
            raise IdentityError("unsupported algorithm", code="identity.bad_alg")
        kid = header.get("kid")
        if not isinstance(kid, str) or kid not in self._keys:
            raise IdentityError("unknown key", code="identity.unknown_key")
        if unverified.get("iss") != self.issuer:
            raise IdentityError("untrusted issuer", code="identity.bad_issuer")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._keys[kid],
                algorithms=["EdDSA"],
                audience=self.audience,
                issuer=self.issuer,
                options={
                    "require": ["exp", "iat", "iss", "sub", "aud", "jti"],
                    "strict_aud": True,
                    # time checks run below against the injected clock, with int-only claims
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                },
            )
        except jwt.InvalidSignatureError:
            raise IdentityError("bad signature", code="identity.bad_signature") from None
        except jwt.InvalidAudienceError:
            raise IdentityError("wrong audience", code="identity.bad_audience") from None
        except jwt.PyJWTError:
            raise IdentityError("invalid token", code="identity.invalid") from None
        return self._mint(*self._principal(claims))

    def _principal(self, claims: dict[str, Any]) -> tuple[Principal, int]:
        now = self._clock()
        exp, iat = claims["exp"], claims["iat"]
        for value in (exp, iat):
            if type(value) is not int:
                raise IdentityError("time claims must be integers", code="identity.bad_claims")
        if exp <= now - self.leeway:
            raise IdentityError("token expired", code="identity.expired")
        if iat > now + self.leeway:
            raise IdentityError("token issued in the future", code="identity.bad_claims")
        if exp - iat > self.max_ttl:
            raise IdentityError("token lifetime too long", code="identity.bad_claims")
        if now - iat > self.max_age:
            raise IdentityError("token too old", code="identity.expired")
        if "nbf" in claims and (
            type(claims["nbf"]) is not int or claims["nbf"] > now + self.leeway
        ):
            raise IdentityError("token not yet valid", code="identity.bad_claims")
        subject = PrincipalId(
            issuer=check_identifier(claims["iss"], "iss"),
            subject=check_identifier(claims["sub"], "sub"),
        )
        jti = check_identifier(claims["jti"], "jti")
        scope = claims.get("scope", "")
        if not isinstance(scope, str):
            raise IdentityError("scope must be a string", code="identity.bad_claims")
        client_id = claims.get("client_id")
        if client_id is not None:
            check_identifier(client_id, "client_id")
        actors = self._actors(claims.get("act"), subject)
        principal = Principal(
            subject=subject,
            actors=actors,
            client_id=client_id,
            token_jti=jti,
            scopes=frozenset(s for s in scope.split(" ") if s),
        )
        return principal, exp

    def _actors(self, act: object, subject: PrincipalId) -> tuple[Actor, ...]:
        chain: list[Actor] = []
        seen = {(subject.issuer, subject.subject)}
        while act is not None:
            if not isinstance(act, dict) or not set(act) <= _ACT_MEMBERS or "sub" not in act:
                raise IdentityError("malformed act chain", code="identity.bad_chain")
            actor = Actor(
                issuer=check_identifier(act.get("iss", self.issuer), "act.iss"),
                subject=check_identifier(act["sub"], "act.sub"),
            )
            key = (actor.issuer, actor.subject)
            if key in seen:
                raise IdentityError("cycle in act chain", code="identity.bad_chain")
            seen.add(key)
            chain.append(actor)
            if len(chain) > self.max_depth:
                raise IdentityError("delegation chain too deep", code="identity.bad_chain")
            act = act.get("act")
        chain.reverse()  # outermost `act` is the current actor; we store first delegate -> current
        return tuple(chain)
