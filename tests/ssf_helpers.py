"""A Shared Signals transmitter of the tests' own: real ES256-signed SETs pushed over loopback HTTP."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from memguard.tokens.rfc7517 import public_jwk

CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
SESSION_REVOKED = CAEP + "session-revoked"
CREDENTIAL_CHANGE = CAEP + "credential-change"
TOKEN_CLAIMS_CHANGE = CAEP + "token-claims-change"
ASSURANCE_LEVEL_CHANGE = CAEP + "assurance-level-change"
ISSUER = "https://idp.example.test/ssf"


@dataclass
class TestTransmitter:
    """Signs SETs with its own P-256 key; ``push`` delivers one per RFC 8935."""

    issuer: str = ISSUER
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))

    __test__ = False  # not a pytest class

    @property
    def jwk(self) -> dict[str, str]:
        return public_jwk(self.key)

    @property
    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.jwk]}

    def config(self) -> dict[str, Any]:
        return {"issuer": self.issuer, "jwks": self.jwks, "algorithms": ["ES256"]}

    def set(self, audience: str, events: dict[str, dict[str, Any]], *,
            sub_id: dict[str, Any] | None = None, typ: str = "secevent+jwt",
            key: ec.EllipticCurvePrivateKey | None = None, iat: int | None = None,
            jti: str | None = None, **extra: Any) -> str:
        claims: dict[str, Any] = {
            "iss": self.issuer, "aud": audience, "iat": iat if iat is not None else int(time.time()),
            "jti": jti or secrets.token_urlsafe(12), "events": events, **extra,
        }
        if sub_id is not None:
            claims["sub_id"] = sub_id
        return jwt.encode(claims, key or self.key, algorithm="ES256",
                          headers={"typ": typ, "kid": self.jwk["kid"]})

    def push(self, url: str, token: str, *,
             content_type: str = "application/secevent+jwt") -> httpx.Response:
        return httpx.post(url, content=token.encode("ascii"),
                          headers={"Content-Type": content_type, "Accept": "application/json"},
                          timeout=10)


def iss_sub(iss: str, sub: str) -> dict[str, str]:
    return {"format": "iss_sub", "iss": iss, "sub": sub}


def event(ts: int | None = None, **body: Any) -> dict[str, Any]:
    return {"event_timestamp": ts if ts is not None else int(time.time()), **body}
