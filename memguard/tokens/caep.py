"""OpenID CAEP 1.0 events (over the Shared Signals Framework 1.0) as deny entries.

Events memguard acts on (CAEP 1.0 section 3):

- 3.1 ``session-revoked``: "the session of the subject has been revoked" -- every token of that
  session (``sid``) is refused; a subject without a session: every token of the subject issued
  up to ``event_timestamp``.
- 3.3 ``credential-change``: "a credential was created, changed, revoked or deleted" -- tokens of the
  subject issued up to ``event_timestamp`` are refused (a token obtained afterwards is good).
- 3.2 ``token-claims-change``: "claim values ... have changed" -- same: old tokens carry stale claims.
- 3.4 ``assurance-level-change``: ``change_direction: decrease`` as a claims change; ``increase``
  is recorded and changes nothing.
- SSF 1.0 8.1.4 ``verification``: recorded, no effect (the digest of its ``state`` and the stream
  id of its ``opaque`` subject go to the audit event; memguard.gateway.ssf_stream_state matches
  the state against the verification memguard asked for).
- SSF 1.0 8.1.5 ``stream-updated``: the stream's new ``status`` (``enabled``, ``paused``,
  ``disabled``) and ``reason``; no deny entry (the receiver records the status and raises an
  ``alarm`` for a stream that no longer delivers).

Subjects (RFC 9493, SSF 1.0 3): ``iss_sub`` (a principal, issuer-qualified), ``jwt_id`` (one token),
``uri`` with a SPIFFE ID (an agent, wherever it is in an ``act`` chain) and ``complex`` with
``user`` and/or ``session`` (``opaque`` id, the ``sid`` of the user's issuer, else of the
transmitter). The subject is the SET's top-level ``sub_id`` (SSF 1.0) or the event's ``subject``
member (earlier CAEP drafts), not both. Other formats (``email``, ``phone_number``, ...) name no
memguard principal: the event is recorded as unsupported and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memguard.errors import IdentityError
from memguard.identity import check_identifier
from memguard.provenance import sha256_digest
from memguard.tokens.denylist import DenyEntry, DenyKind
from memguard.tokens.rfc8417 import SecurityEventToken
from memguard.tokens.svid import parse_spiffe_id

__all__ = ["CAEP", "SSF_STREAM_UPDATED", "SSF_VERIFICATION", "Signal", "signals"]

CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
SSF = "https://schemas.openid.net/secevent/ssf/event-type/"
SSF_VERIFICATION = SSF + "verification"
SSF_STREAM_UPDATED = SSF + "stream-updated"
_STREAM_STATUSES = frozenset({"enabled", "paused", "disabled"})
SESSION_REVOKED = CAEP + "session-revoked"
CREDENTIAL_CHANGE = CAEP + "credential-change"
TOKEN_CLAIMS_CHANGE = CAEP + "token-claims-change"
ASSURANCE_LEVEL_CHANGE = CAEP + "assurance-level-change"
_ACTED_ON = frozenset(
    {SESSION_REVOKED, CREDENTIAL_CHANGE, TOKEN_CLAIMS_CHANGE, ASSURANCE_LEVEL_CHANGE}
)

Outcome = Literal["deny", "none", "unsupported"]


@dataclass(frozen=True, slots=True)
class Signal:
    """One event of a SET and what memguard does about it."""

    uri: str
    event_timestamp: int
    outcome: Outcome
    entries: tuple[DenyEntry, ...] = ()
    #: ``(session id, owner issuer, owner subject)`` whose writes a configured receiver revokes
    #: (session-revoked with a ``complex`` subject naming the user)
    sessions: tuple[tuple[str, str, str], ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return (
            self.uri.rsplit("/", 1)[-1]
            if self.uri.startswith(CAEP) or (self.uri in (SSF_VERIFICATION, SSF_STREAM_UPDATED))
            else "unknown"
        )


def signals(token: SecurityEventToken, *, retention: int) -> list[Signal]:
    """The signals of a verified SET; an event whose shape is wrong raises ``IdentityError``."""
    out = []
    for uri, body in token.events.items():
        ts = body.get("event_timestamp", token.issued_at)
        if type(ts) is not int or ts > token.issued_at + 60:
            raise IdentityError(
                "`event_timestamp` must be an integer, not after the SET",
                code="identity.bad_claims",
            )
        reasons = {
            k: body[k]
            for k in (
                "initiating_entity",
                "reason_admin",
                "reason_user",
                "change_type",
                "credential_type",
                "change_direction",
            )
            if k in body
        }
        if uri in (SSF_VERIFICATION, SSF_STREAM_UPDATED):
            out.append(
                Signal(uri, ts, "none", detail={**reasons, **_stream_detail(token, uri, body)})
            )
            continue
        if uri not in _ACTED_ON:
            outcome: Outcome = "unsupported"
            out.append(Signal(uri, ts, outcome, detail=reasons))
            continue
        if uri == ASSURANCE_LEVEL_CHANGE and body.get("change_direction") != "decrease":
            out.append(Signal(uri, ts, "none", detail=reasons))
            continue
        subject = _subject(token, body)
        raw, sessions = _entries(subject, token.issuer, uri, ts)
        cause = f"{uri.rsplit('/', 1)[-1]} {token.issuer} {token.jti}"
        entries = tuple(DenyEntry(k, i, v, na, ts + retention, cause) for k, i, v, na in raw)
        out.append(
            Signal(uri, ts, "deny" if entries else "unsupported", entries, sessions, reasons)
        )
    return out


def _stream_detail(token: SecurityEventToken, uri: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """What an SSF stream event says: the stream (its ``opaque`` subject), and its ``state``
    (verification; as a digest) or its new ``status`` and ``reason`` (stream-updated)."""
    out: dict[str, Any] = {}
    subject = token.sub_id if token.sub_id is not None else body.get("subject")
    if isinstance(subject, Mapping) and subject.get("format") == "opaque":
        out["stream_id"] = _id(subject, "id")
    if uri == SSF_VERIFICATION:
        state = body.get("state")
        if state is not None:
            if not isinstance(state, str) or len(state) > 1024:
                raise IdentityError("`state` must be a string", code="identity.bad_claims")
            out["state_digest"] = sha256_digest(state.encode("utf-8", "surrogatepass"))
        return out
    status = body.get("status")
    if status not in _STREAM_STATUSES:
        raise IdentityError(
            "`status` must be enabled, paused or disabled", code="identity.bad_claims"
        )
    out["status"] = status
    reason = body.get("reason")
    if isinstance(reason, str):
        out["reason"] = reason[:256]
    return out


def _subject(token: SecurityEventToken, body: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = body.get("subject")
    if (inner is None) == (token.sub_id is None):
        raise IdentityError(
            "the event needs exactly one subject (`sub_id` or `subject`)",
            code="identity.bad_claims",
        )
    subject = inner if inner is not None else token.sub_id
    if not isinstance(subject, dict):
        raise IdentityError("a subject must be an object", code="identity.bad_claims")
    return subject


_Raw = tuple[DenyKind, str, str, int | None]


def _entries(
    subject: Mapping[str, Any], transmitter: str, uri: str, ts: int
) -> tuple[list[_Raw], tuple[tuple[str, str, str], ...]]:
    fmt = subject.get("format")
    before: int | None = ts  # only tokens issued up to the event
    if fmt == "iss_sub":
        return [("subject", _id(subject, "iss"), _id(subject, "sub"), before)], ()
    if fmt == "jwt_id":
        return [("token", _id(subject, "iss"), _id(subject, "jti"), None)], ()
    if fmt == "uri":
        uri_value = _id(subject, "uri")
        if not uri_value.startswith("spiffe://"):
            return [], ()
        domain, _ = parse_spiffe_id(uri_value)
        return [("agent", f"spiffe://{domain}", uri_value, before)], ()
    if fmt in ("complex", None) and ("user" in subject or "session" in subject):
        user = subject.get("user")
        issuer = transmitter
        user_entry: list[_Raw] = []
        owner: tuple[str, str] | None = None
        if user is not None:
            if not isinstance(user, dict) or user.get("format") != "iss_sub":
                return [], ()
            issuer = _id(user, "iss")
            owner = (issuer, _id(user, "sub"))
            user_entry = [("subject", issuer, owner[1], before)]
        session = subject.get("session")
        if session is None:
            return user_entry, ()
        if not isinstance(session, dict) or session.get("format") != "opaque":
            return [], ()
        sid = _id(session, "id")
        if uri == SESSION_REVOKED:  # that session only; the user's other sessions stay
            return [("session", issuer, sid, None)], ((sid, *owner),) if owner else ()
        return [("session", issuer, sid, before)], ()
    return [], ()


def _id(obj: Mapping[str, Any], name: str) -> str:
    return check_identifier(obj.get(name), f"subject `{name}`", code="identity.bad_claims")
