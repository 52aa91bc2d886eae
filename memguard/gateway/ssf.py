"""The gateway's Shared Signals receiver: RFC 8935 push delivery of CAEP events.

``POST {ssf.path}`` (default ``/ssf/events``) with ``Content-Type: application/secevent+jwt`` and a
Security Event Token (RFC 8417) of a configured transmitter as the body. RFC 8935 2.2: "If the SET
is determined to be valid, the SET Recipient SHALL acknowledge successful transmission by
responding with HTTP Response Status Code 202 (Accepted)"; 2.3: otherwise 400 with a JSON body
``{"err": ..., "description": ...}``, ``err`` one of the codes of 2.4 (``invalid_request``,
``invalid_key``, ``invalid_issuer``, ``invalid_audience``, ``authentication_failed``,
``access_denied``).

Order of work for one SET (each step fails closed):

1. verify it (:mod:`memguard.tokens.rfc8417`: signature, issuer, audience, ``iat``) and read its
   events (:mod:`memguard.tokens.caep`); a bad SET is a 400 and one deny event;
2. add the deny entries to the shared deny list (:mod:`memguard.tokens.denylist`), persisted, so
   from here on every call naming that subject, session, token or agent is refused
   (``identity.revoked``) by the verifier, in every worker within ``ssf.refresh`` seconds; if the
   table cannot be written the answer is 503 and the transmitter's retry applies it;
3. record the SET's ``jti`` (a replay is a 400 and a deny event; its entries were already there);
4. one audit event per event with its effect (``ssf.session-revoked``, ...);
5. with ``ssf.revoke_session_writes``, a ``session-revoked`` event revokes (quarantines) what
   was written in that session, through the guard's own revocation (audited there).

SSF 1.0 stream events change no deny entry: a verification SET (8.1.4) is matched against the
verification memguard asked for (memguard.gateway.ssf_stream_state; ``verification: matched`` or
``unsolicited`` in its audit event); a stream-updated SET (8.1.5) records the stream's status,
and a stream that is ``paused`` or ``disabled`` (revocations may no longer arrive) is an
``alarm``. Their table is written in step 2, so a failure there is a 503 too.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memguard.errors import ConfigurationError, IdentityError, MemguardError
from memguard.events import AuditEvent, Decision
from memguard.gateway.ssf_stream_state import StreamStates
from memguard.logging import get_logger
from memguard.provenance import sha256_digest
from memguard.revocation import RevocationSelector
from memguard.tokens.caep import SSF_STREAM_UPDATED, SSF_VERIFICATION, Signal, signals
from memguard.tokens.denylist import DenyList
from memguard.tokens.rfc7517 import JwksUrlSource, KeySource, StaticKeySource
from memguard.tokens.rfc7523 import ReplayCache
from memguard.tokens.rfc8417 import SetVerifier, Transmitter

if TYPE_CHECKING:
    from memguard.gateway.config import GatewayConfig
    from memguard.guard import MemoryGuard

__all__ = [
    "MEDIA_TYPE",
    "SsfReceiver",
    "SsfRefused",
    "SsfResult",
    "build_receiver",
    "config_key_source",
    "ssf_audience",
    "ssf_route",
]

MEDIA_TYPE = "application/secevent+jwt"
MAX_SET_BYTES = 8192

# RFC 8935 2.4 error codes for memguard's identity error codes
_ERR = {
    "identity.bad_issuer": "invalid_issuer",
    "identity.bad_audience": "invalid_audience",
    "identity.unknown_key": "invalid_key",
    "identity.bad_alg": "invalid_key",
    "identity.jwks_unavailable": "invalid_key",
    "identity.bad_signature": "authentication_failed",
}


class SsfRefused(Exception):
    """A SET that was not accepted: ``err`` is the RFC 8935 code, ``code`` memguard's."""

    def __init__(self, code: str, *, status: int = 400) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.err = _ERR.get(code, "invalid_request")


@dataclass(frozen=True)
class SsfResult:
    issuer: str
    jti: str
    signals: list[Signal] = field(default_factory=list)
    revoked_sessions: dict[str, int] = field(default_factory=dict)


class SsfReceiver:
    """Verifies pushed SETs and applies their CAEP events; see the module docstring."""

    def __init__(
        self,
        verifier: SetVerifier,
        denylist: DenyList,
        guard: MemoryGuard,
        *,
        retention: int = 86400,
        revoke_session_writes: bool = False,
        streams: StreamStates | None = None,
    ) -> None:
        self.verifier, self.denylist, self.guard = verifier, denylist, guard
        self.streams = streams
        self.retention = retention
        self.revoke_session_writes = revoke_session_writes
        self._log = get_logger()

    def receive(
        self,
        token: str,
        *,
        issuer: str | None = None,
        jti: str | None = None,
        delivery: str = "push",
    ) -> SsfResult:
        """Verify and apply one SET. ``issuer`` / ``jti``: what the delivery says the SET is (RFC
        8936 poll: the polled transmitter, the key of ``sets``); a SET that is not is refused
        before any effect."""
        digest = sha256_digest(token.encode("utf-8", "replace"))
        try:
            verified = self.verifier.verify(token, claim=False)
            if issuer is not None and verified.issuer != issuer:
                raise IdentityError(
                    "the SET is not the polled transmitter's", code="identity.bad_issuer"
                )
            if jti is not None and verified.jti != jti:
                raise IdentityError(
                    "the SET's `jti` is not its key in `sets`", code="identity.bad_claims"
                )
            found = signals(verified, retention=self.retention)
        except Exception as exc:
            code = exc.code if isinstance(exc, MemguardError) else "identity.internal"
            self.deny(code, {"set_digest": digest, "delivery": delivery})
            raise SsfRefused(code) from None
        where = {
            "transmitter": verified.issuer,
            "set_jti": verified.jti,
            "set_digest": digest,
            "delivery": delivery,
        }
        notes: list[dict[str, Any]] = [{} for _ in found]
        try:
            for signal in found:
                self.denylist.add(signal.entries)
            for i, signal in enumerate(found):
                notes[i] = self._stream_event(verified.issuer, signal)
        except Exception as exc:
            code = exc.code if isinstance(exc, MemguardError) else "internal"
            self._log.error("ssf.apply_failed", error=code, **where)
            self.deny("ssf.apply_failed", where)  # best effort: the ledger may be the cause
            raise SsfRefused("ssf.apply_failed", status=503) from None
        try:
            fresh = self.verifier.claim(verified)
        except Exception as exc:
            code = exc.code if isinstance(exc, MemguardError) else "identity.internal"
            self.deny(code, where)
            raise SsfRefused(code, status=503) from None
        if not fresh:
            self.deny("identity.replayed", where)
            raise SsfRefused("identity.replayed")
        events = [
            AuditEvent(
                action="ssf.receive",
                decision=Decision.ALARM
                if s.outcome == "unsupported"
                or (s.uri == SSF_STREAM_UPDATED and s.detail.get("status") != "enabled")
                else Decision.ALLOW,
                reason=f"ssf.{s.name}" if s.outcome != "unsupported" else "ssf.unsupported",
                detail={
                    **where,
                    "event_type": s.uri,
                    "event_timestamp": s.event_timestamp,
                    "outcome": s.outcome,
                    "effect": [e.summary() for e in s.entries],
                    **({"event": dict(s.detail)} if s.detail else {}),
                    **note,
                },
            )
            for s, note in zip(found, notes, strict=True)
        ]
        self.guard.ledger.record(events)
        result = SsfResult(verified.issuer, verified.jti, found)
        if self.revoke_session_writes:
            for s in found:
                for sid, owner_iss, owner_sub in s.sessions:
                    result.revoked_sessions[sid] = self._revoke_session(
                        sid, (owner_iss, owner_sub), where
                    )
        self._log.info("ssf.received", events=[s.name for s in found], **where)
        return result

    def _stream_event(self, transmitter: str, s: Signal) -> dict[str, Any]:
        """SSF stream events: match a verification, record a status (no deny entry either way)."""
        now = int(time.time())
        stream_id = s.detail.get("stream_id")
        if s.uri == SSF_VERIFICATION:
            digest = s.detail.get("state_digest")
            matched = (
                self.streams is not None
                and isinstance(digest, str)
                and (self.streams.verification_arrived(transmitter, stream_id, digest, now))
            )
            return {"verification": "matched" if matched else "unsolicited"}
        if s.uri == SSF_STREAM_UPDATED:
            known = self.streams is not None and self.streams.set_status(
                transmitter, stream_id, str(s.detail["status"]), s.detail.get("reason"), now
            )
            return {"stream_known": known}
        return {}

    def _revoke_session(self, sid: str, owner: tuple[str, str], where: dict[str, Any]) -> int:
        """Quarantine the facts written in session ``sid`` that ``owner`` owns (a session id is
        only unique per user, so another owner's facts of a session with the same id stay)."""
        try:
            ledger = self.guard.ledger
            records = ledger.latest(ledger.lineage.match(RevocationSelector.session(sid)))
            mine = sorted(
                fid
                for fid, rec in records.items()
                if (rec.provenance.owner.issuer, rec.provenance.owner.subject) == owner
            )
            quarantined = 0
            for fid in mine:
                report = self.guard.revoke(
                    None,
                    RevocationSelector.fact(fid),
                    reason=f"CAEP session-revoked from {where['transmitter']} ({where['set_jti']})",
                    operator=f"ssf:{where['transmitter']}",
                )
                quarantined += len(report.quarantined)
            return quarantined
        except Exception as exc:
            code = exc.code if isinstance(exc, MemguardError) else "internal"
            self.guard.ledger.record(
                [
                    AuditEvent(
                        action="ssf.receive",
                        decision=Decision.ALARM,
                        reason="ssf.revoke_writes_failed",
                        detail={**where, "session": sid, "error": code},
                    )
                ]
            )
            return -1

    def deny(self, reason: str, detail: dict[str, Any]) -> None:
        """One deny event for a refused delivery."""
        try:
            self.guard.ledger.record(
                [
                    AuditEvent(
                        action="ssf.receive", decision=Decision.DENY, reason=reason, detail=detail
                    )
                ]
            )
        except Exception as exc:
            self._log.error("audit_event_lost", op="ssf.receive", error=type(exc).__name__)


def config_key_source(t: Any, config: GatewayConfig, clock: Callable[[], float]) -> KeySource:
    """The key source a config entry with ``jwks`` / ``jwks_file`` / ``jwks_url`` names."""
    algorithms = frozenset(t.algorithms)
    if t.jwks_url is not None:
        return JwksUrlSource(t.jwks_url, algorithms, clock=clock)
    jwks = t.jwks
    if t.jwks_file is not None:
        try:
            jwks = json.loads(config.path(t.jwks_file).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigurationError(
                f"`{getattr(t, 'issuer', None) or t.trust_domain}`: cannot read jwks_file: {exc}"
            ) from None
    return StaticKeySource(jwks, algorithms)


def build_receiver(
    config: GatewayConfig,
    guard: MemoryGuard,
    denylist: DenyList,
    replay: ReplayCache,
    *,
    clock: Callable[[], float] = time.time,
) -> SsfReceiver:
    """The receiver ``config.ssf`` describes."""
    ssf = config.ssf
    if not ssf.transmitters:
        raise ConfigurationError("ssf: `transmitters` must name at least one transmitter")
    transmitters = {
        t.issuer: Transmitter(
            t.issuer, frozenset(t.algorithms), config_key_source(t, config, clock)
        )
        for t in ssf.transmitters
    }
    verifier = SetVerifier(
        transmitters,
        audiences=frozenset({ssf_audience(config)}),
        replay=replay,
        max_age=ssf.max_age,
        clock=clock,
    )
    streams = StreamStates(denylist.engine) if denylist.engine is not None else None
    return SsfReceiver(
        verifier,
        denylist,
        guard,
        retention=ssf.retention,
        revoke_session_writes=ssf.revoke_session_writes,
        streams=streams,
    )


def ssf_audience(config: GatewayConfig) -> str:
    return config.ssf.audience or f"{config.resource.rstrip('/')}/ssf"


def _refusal(exc: SsfRefused) -> JSONResponse:
    text = {
        "invalid_request": "the security event token is not acceptable",
        "invalid_key": "the key named by the token is unknown or unusable",
        "invalid_issuer": "the issuer is not a configured transmitter",
        "invalid_audience": "the audience is not this receiver",
        "authentication_failed": "the signature does not verify",
    }.get(exc.err, exc.err)
    if exc.status != 400:
        return JSONResponse(
            {"err": "temporarily_unavailable", "description": exc.code},
            status_code=exc.status,
            headers={"Retry-After": "1", "Cache-Control": "no-store"},
        )
    return JSONResponse(
        {"err": exc.err, "description": f"{text} ({exc.code})"},
        status_code=400,
        headers={"Cache-Control": "no-store"},
    )


def ssf_route(receiver: SsfReceiver, path: str) -> Route:
    """The RFC 8935 push endpoint."""

    def handle(ctype: str, body: bytes) -> Response:
        if ctype != MEDIA_TYPE:
            receiver.deny("ssf.media_type", {})
            return _refusal(SsfRefused("ssf.media_type"))
        if len(body) > MAX_SET_BYTES:
            receiver.deny("identity.too_large", {})
            return _refusal(SsfRefused("identity.too_large"))
        try:
            receiver.receive(body.decode("ascii").strip())
        except UnicodeDecodeError:
            receiver.deny("identity.malformed", {})
            return _refusal(SsfRefused("identity.malformed"))
        except SsfRefused as exc:
            return _refusal(exc)
        return Response(status_code=202)

    async def push(request: Request) -> Response:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        body = await request.body()
        return await asyncio.to_thread(handle, ctype, body)

    return Route(path, endpoint=push, methods=["POST"])
