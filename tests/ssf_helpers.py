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


VERIFICATION = "https://schemas.openid.net/secevent/ssf/event-type/verification"
STREAM_UPDATED = "https://schemas.openid.net/secevent/ssf/event-type/stream-updated"


class ManagedTransmitter(PollingTransmitter):
    """The polling transmitter plus SSF 1.0 stream management on loopback: configuration
    metadata at ``/.well-known/ssf-configuration/ssf``, stream create/read/update/delete,
    status, subjects and verification, every management call behind ``mgmt_bearer``. Its issuer
    is ``{base}/ssf`` once :meth:`bind` names the base URL."""

    __test__ = False

    def __init__(self, bearer: str = "poll-secret", mgmt_bearer: str = "mgmt-secret") -> None:
        super().__init__(bearer)
        self.mgmt_bearer = mgmt_bearer
        self.base = ""
        self.audience = ""
        self.streams: dict[str, dict[str, Any]] = {}
        self.status: dict[str, dict[str, str]] = {}
        self.subjects: dict[str, list[dict[str, Any]]] = {}
        self.pushed: list[httpx.Response] = []
        self.issuer_override: str | None = None  # metadata naming another issuer
        self.mgmt_requests: list[tuple[str, str]] = []

    def bind(self, base: str, audience: str) -> None:
        self.base, self.audience, self.issuer = base, audience, f"{base}/ssf"

    def deliver(self, stream_id: str, token: str) -> None:
        """Send a SET the way the stream says: push it, or queue it for the poll."""
        delivery = self.streams[stream_id]["delivery"]
        if delivery["method"] == "urn:ietf:rfc:8935":
            self.pushed.append(self.push(delivery["endpoint_url"], token))
        else:
            self.queue(token)

    def stream_event(self, stream_id: str, uri: str, body: dict[str, Any]) -> str:
        return self.set(self.audience, {uri: event(**body)},
                        sub_id={"format": "opaque", "id": stream_id})

    def change_status(self, stream_id: str, status: str, reason: str = "") -> None:
        """The transmitter changes the status itself and tells the receiver (SSF 1.0 8.1.5)."""
        self.status[stream_id] = {"status": status, "reason": reason}
        self.deliver(stream_id, self.stream_event(stream_id, STREAM_UPDATED,
                                                  {"status": status, "reason": reason}))

    def app(self) -> Starlette:
        from starlette.background import BackgroundTask

        poll_app = super().app()

        def authorized(request: Request) -> bool:
            self.mgmt_requests.append((request.method, request.url.path))
            return request.headers.get("authorization") == f"Bearer {self.mgmt_bearer}"

        def denied() -> JSONResponse:
            return JSONResponse({"error": "invalid_token"}, status_code=401,
                                headers={"WWW-Authenticate": "Bearer"})

        async def metadata(request: Request) -> Response:
            ep = f"{self.base}/ssf"
            return JSONResponse({
                "spec_version": "1_0", "issuer": self.issuer_override or self.issuer,
                "jwks_uri": f"{ep}/jwks",
                "delivery_methods_supported": ["urn:ietf:rfc:8935", "urn:ietf:rfc:8936"],
                "configuration_endpoint": f"{ep}/streams", "status_endpoint": f"{ep}/status",
                "add_subject_endpoint": f"{ep}/subjects:add",
                "remove_subject_endpoint": f"{ep}/subjects:remove",
                "verification_endpoint": f"{ep}/verify",
                "authorization_schemes": [{"spec_urn": "urn:ietf:rfc:6749"}],
            })

        async def streams(request: Request) -> Response:
            if not authorized(request):
                return denied()
            if request.method == "POST":
                body = await request.json()
                sid = secrets.token_urlsafe(8)
                delivery = dict(body["delivery"])
                if delivery["method"] == "urn:ietf:rfc:8936":
                    delivery["endpoint_url"] = f"{self.base}/poll"
                self.streams[sid] = {
                    "stream_id": sid, "iss": self.issuer, "aud": self.audience,
                    "delivery": delivery, "events_requested": body.get("events_requested", []),
                    "events_supported": [SESSION_REVOKED, CREDENTIAL_CHANGE],
                    "events_delivered": [e for e in body.get("events_requested", [])
                                         if e in (SESSION_REVOKED, CREDENTIAL_CHANGE)],
                    "min_verification_interval": 0,
                    **({"description": body["description"]} if "description" in body else {}),
                }
                self.status[sid] = {"status": "enabled"}
                return JSONResponse(self.streams[sid], status_code=201)
            sid = request.query_params.get("stream_id")
            if request.method == "PATCH":
                body = await request.json()
                sid = body.pop("stream_id", None)
            if sid not in self.streams:
                return JSONResponse({"error": "not_found"}, status_code=404)
            if request.method == "DELETE":
                del self.streams[sid]
                return Response(status_code=204)
            if request.method == "PATCH":
                self.streams[sid].update(body)
            return JSONResponse(self.streams[sid])

        async def status(request: Request) -> Response:
            if not authorized(request):
                return denied()
            if request.method == "GET":
                sid = request.query_params.get("stream_id", "")
                if sid not in self.status:
                    return JSONResponse({"error": "not_found"}, status_code=404)
                return JSONResponse({"stream_id": sid, **self.status[sid]})
            body = await request.json()
            self.status[body["stream_id"]] = {"status": body["status"]}
            return JSONResponse(body)

        async def subjects(request: Request) -> Response:
            if not authorized(request):
                return denied()
            body = await request.json()
            held = self.subjects.setdefault(body["stream_id"], [])
            if request.url.path.endswith(":add"):
                held.append(body["subject"])
                return Response(status_code=200)
            held.remove(body["subject"])
            return Response(status_code=204)

        async def verify(request: Request) -> Response:
            if not authorized(request):
                return denied()
            body = await request.json()
            sid = body["stream_id"]
            if sid not in self.streams:
                return JSONResponse({"error": "not_found"}, status_code=404)
            token = self.stream_event(sid, VERIFICATION, {"state": body["state"]})
            # 8.1.4.2: the event follows the answer, on the stream's own delivery
            return Response(status_code=204,
                             background=BackgroundTask(self.deliver, sid, token))

        return Starlette(routes=[
            *poll_app.routes,
            Route("/.well-known/ssf-configuration/ssf", metadata, methods=["GET"]),
            Route("/ssf/streams", streams, methods=["GET", "POST", "PATCH", "DELETE"]),
            Route("/ssf/status", status, methods=["GET", "POST"]),
            Route("/ssf/subjects:add", subjects, methods=["POST"]),
            Route("/ssf/subjects:remove", subjects, methods=["POST"]),
            Route("/ssf/verify", verify, methods=["POST"]),
        ])
