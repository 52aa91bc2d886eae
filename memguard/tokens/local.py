"""The embedded development token service: Ed25519-signed ``at+jwt`` tokens with ``act`` chains.

This is the zero-config default of :func:`memguard.open_embedded` and the demo: it signs with a key
it generates and keeps on disk (mode 0600) and mints tokens directly, chains included. Its verifier
is not a second implementation: :class:`LocalVerifier` is :class:`IdentityVerifier` configured with
the service's public key as a static JWKS, ``act_chains: asserted`` (the chains it minted are
taken as minted: there are no delegation grants in a development setup) and
``presenter_binding: optional`` (there are no workload credentials either). Everything else
(strict JWS parsing, typed claims, identifier hygiene, act-chain shape) is the same code that
verifies external issuers. For delegation with grants and presenter binding, use
:class:`~memguard.tokens.SecurityTokenService` and :class:`~memguard.tokens.IdentityVerifier`.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from memguard.errors import ConfigurationError
from memguard.identity import check_identifier
from memguard.tokens.config import IdentityConfig
from memguard.tokens.rfc7517 import public_jwk
from memguard.tokens.verifier import IdentityVerifier

__all__ = ["LOCAL_CLIENT_ID", "LocalTokenService", "LocalVerifier"]

LOCAL_CLIENT_ID = "memguard-local"


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
        self.kid = public_jwk(self._private)["kid"]

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
        client_id: str | None = LOCAL_CLIENT_ID,
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


class LocalVerifier(IdentityVerifier):
    """:class:`IdentityVerifier` for one issuer's pinned Ed25519 keys (the embedded default)."""

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
        if not keys:
            raise ConfigurationError("verifier needs at least one key")
        jwks = {"keys": [{**public_jwk(key), "kid": kid} for kid, key in keys.items()]}
        config = IdentityConfig.from_mapping(
            {
                "version": 1,
                "access_tokens": {
                    "audience": audience,
                    "issuers": [
                        {
                            "issuer": issuer,
                            "algorithms": ["EdDSA"],
                            "jwks": jwks,
                            "act_chains": "asserted",
                        }
                    ],
                },
                "limits": {
                    "max_ttl": max_ttl,
                    "max_age": max_age,
                    "leeway": leeway,
                    "max_depth": max_depth,
                },
                "presenter_binding": "optional",
            },
            where="local verifier",
        )
        super().__init__(config, clock=clock)
        self.issuer = issuer
        self.audience = audience
