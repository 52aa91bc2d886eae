"""A Shared Signals transmitter of the tests' own: real ES256-signed SETs pushed (RFC 8935) or
polled (RFC 8936) over loopback HTTP."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

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


class PollingTransmitter(TestTransmitter):
    """The same transmitter, serving RFC 8936 poll delivery on loopback: SETs queued with
    :meth:`queue` are handed out until acknowledged; acks and ``setErrs`` are recorded."""

    __test__ = False

    def __init__(self, bearer: str = "poll-secret") -> None:
        super().__init__()
        self.bearer = bearer
        self.pending: dict[str, str] = {}
        self.acked: list[str] = []
        self.errors: dict[str, dict[str, str]] = {}
        self.requests: list[dict[str, Any]] = []
        self.fail_with: int | None = None
        self.lock = threading.Lock()

    def queue(self, token: str, jti: str | None = None) -> str:
        key = jti or jwt.decode(token, options={"verify_signature": False})["jti"]
        with self.lock:
            self.pending[key] = token
        return str(key)

    def app(self) -> Starlette:
        async def poll(request: Request) -> Response:
            if request.headers.get("authorization") != f"Bearer {self.bearer}":
                return JSONResponse({"error": "invalid_token"}, status_code=401)
            if self.fail_with is not None:
                return JSONResponse({"error": "unavailable"}, status_code=self.fail_with)
            body = await request.json()
            with self.lock:
                self.requests.append(body)
                for jti in body.get("ack", []):
                    self.acked.append(jti)
                    self.pending.pop(jti, None)
                for jti, err in body.get("setErrs", {}).items():
                    self.errors[jti] = err
                    self.pending.pop(jti, None)
                limit = int(body.get("maxEvents", 10))
                out = dict(list(self.pending.items())[:limit])
                more = len(self.pending) > limit
            return JSONResponse({"sets": out, "moreAvailable": more})

        return Starlette(routes=[Route("/poll", poll, methods=["POST"])])
