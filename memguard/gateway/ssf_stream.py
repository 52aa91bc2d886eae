"""OpenID Shared Signals Framework 1.0, the receiver's side of stream management: memguard asks a
transmitter for a stream of events to its push endpoint (or to poll), and manages it.

Every request carries the transmitter's management bearer token (SSF 1.0 7.1.1
``authorization_schemes``: OAuth 2.0 bearer; the token from a file or an environment variable,
never the configuration itself). What is used of the spec:

- 7.1 transmitter configuration metadata at ``/.well-known/ssf-configuration`` (the issuer's path
  appended, 7.1 "the well-known URI ... inserted between the host and path components"); 7.2 "The
  issuer value returned MUST be identical to the Issuer URL ... If these values are not identical,
  the data contained in the response MUST NOT be used": refused (``ssf.metadata_issuer``); an
  endpoint that is not https (or loopback http) is refused too.
- 8.1.1 stream configuration: create (``POST``, 201), read (``GET ?stream_id``), update
  (``PATCH``), delete (``DELETE ?stream_id``, 204); delivery ``urn:ietf:rfc:8935`` (push to
  memguard's ``/ssf/events``) or ``urn:ietf:rfc:8936`` (poll: the transmitter names the URL). The
  stream's ``aud`` must be memguard's SSF audience, or the SETs it sends would all be refused:
  checked after create and read (``ssf.stream_audience``).
- 8.1.2 stream status: read (``GET``) and update (``POST``: ``enabled``/``paused``/``disabled``).
- 8.1.3 add / remove subject (``POST``; 200 / 204).
- 8.1.4 verification: ``POST {"stream_id", "state"}`` (204); the transmitter then sends a
  verification SET whose ``state`` memguard matches (memguard.gateway.ssf_stream_state).

Errors: a transmitter that cannot be reached or answers with another status is a
:class:`TransmitterError` (``ssf.transmitter.http_<status>``), never retried silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memguard.errors import BackendError, IntegrityError

__all__ = [
    "POLL",
    "PUSH",
    "STATUSES",
    "TransmitterClient",
    "TransmitterError",
    "TransmitterMetadata",
    "well_known_url",
]

PUSH = "urn:ietf:rfc:8935"
POLL = "urn:ietf:rfc:8936"
STATUSES = ("enabled", "paused", "disabled")
_MAX_BODY = 256 * 1024
_JSON = "application/json"


class TransmitterError(BackendError):
    """The transmitter's management API failed or answered what SSF 1.0 does not allow."""

    code = "ssf.transmitter"


class TransmitterMetadata(BaseModel):
    """SSF 1.0 7.1 transmitter configuration metadata (unknown members are kept, unused)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    issuer: str = Field(min_length=1, max_length=2048)
    spec_version: str | None = None
    jwks_uri: str | None = None
    delivery_methods_supported: tuple[str, ...] = ()
    configuration_endpoint: str | None = None
    status_endpoint: str | None = None
    add_subject_endpoint: str | None = None
    remove_subject_endpoint: str | None = None
    verification_endpoint: str | None = None
    default_subjects: str | None = None


def well_known_url(issuer: str) -> str:
    """SSF 1.0 7.1: ``https://host/.well-known/ssf-configuration`` + the issuer's path."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, "/.well-known/ssf-configuration" + path, "", ""))


def _safe_url(url: str) -> bool:
    from memguard.gateway.config import https_or_loopback

    return https_or_loopback(url)


class TransmitterClient:
    """The management API of one transmitter (SSF 1.0 7 and 8.1), as a receiver uses it."""

    def __init__(
        self,
        issuer: str,
        *,
        token: Callable[[], str | None] = lambda: None,
        configuration_url: str | None = None,
        timeout: float = 10.0,
        client: httpx.Client | None = None,
    ) -> None:
        self.issuer = issuer
        self.configuration_url = configuration_url or well_known_url(issuer)
        self._token = token
        self._client = client or httpx.Client(
            timeout=timeout, follow_redirects=False, trust_env=False
        )
        self._own_client = client is None
        self._metadata: TransmitterMetadata | None = None

    def close(self) -> None:
        if self._own_client:
            self._client.close()

    # -- 7 discovery ----------------------------------------------------------------------------

    def discover(self) -> TransmitterMetadata:
        """Read and check the transmitter's configuration metadata (cached per client)."""
        if self._metadata is not None:
            return self._metadata
        if not _safe_url(self.configuration_url):
            raise TransmitterError(
                "the configuration URL must be https (or loopback http)",
                code="ssf.transmitter.insecure_url",
            )
        data = self._call("GET", self.configuration_url, auth=False)
        try:
            meta = TransmitterMetadata.model_validate(data)
        except ValidationError:
            raise TransmitterError(
                "the transmitter's configuration metadata is malformed",
                code="ssf.transmitter.bad_metadata",
            ) from None
        if meta.issuer != self.issuer:  # 7.2: MUST NOT be used
            raise IntegrityError(
                f"the metadata names issuer `{meta.issuer}`, not `{self.issuer}`",
                code="ssf.metadata_issuer",
            )
        for name in (
            "configuration_endpoint",
            "status_endpoint",
            "add_subject_endpoint",
            "remove_subject_endpoint",
            "verification_endpoint",
            "jwks_uri",
        ):
            value = getattr(meta, name)
            if value is not None and not _safe_url(value):
                raise TransmitterError(
                    f"`{name}` must be https (or loopback http)",
                    code="ssf.transmitter.insecure_url",
                )
        self._metadata = meta
        return meta

    def _endpoint(self, name: str) -> str:
        url: str | None = getattr(self.discover(), name)
        if url is None:
            raise TransmitterError(
                f"the transmitter has no `{name}`", code="ssf.transmitter.unsupported"
            )
        return url

    # -- 8.1.1 stream configuration -------------------------------------------------------------

    def create_stream(
        self,
        delivery: dict[str, Any],
        *,
        events_requested: list[str],
        description: str | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"delivery": delivery, "events_requested": events_requested}
        if description:
            body["description"] = description
        return self._stream(
            self._call(
                "POST", self._endpoint("configuration_endpoint"), body=body, expect=(201, 200)
            )
        )

    def get_stream(self, stream_id: str) -> dict[str, Any]:
        data = self._call(
            "GET", self._endpoint("configuration_endpoint"), params={"stream_id": stream_id}
        )
        if isinstance(data, list):  # some transmitters answer a list even for one id
            data = next(
                (s for s in data if isinstance(s, dict) and s.get("stream_id") == stream_id), None
            )
        return self._stream(data)

    def update_stream(self, stream_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        return self._stream(
            self._call(
                "PATCH",
                self._endpoint("configuration_endpoint"),
                body={"stream_id": stream_id, **changes},
            )
        )

    def delete_stream(self, stream_id: str) -> None:
        self._call(
            "DELETE",
            self._endpoint("configuration_endpoint"),
            params={"stream_id": stream_id},
            expect=(204, 200),
        )

    @staticmethod
    def _stream(data: Any) -> dict[str, Any]:
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("stream_id"), str)
            or not isinstance(data.get("delivery"), dict)
        ):
            raise TransmitterError(
                "the transmitter answered no stream configuration",
                code="ssf.transmitter.bad_stream",
            )
        return data

    # -- 8.1.2 status, 8.1.3 subjects, 8.1.4 verification ---------------------------------------

    def get_status(self, stream_id: str) -> dict[str, Any]:
        data = self._call("GET", self._endpoint("status_endpoint"), params={"stream_id": stream_id})
        if not isinstance(data, dict) or data.get("status") not in STATUSES:
            raise TransmitterError(
                "the transmitter answered no stream status", code="ssf.transmitter.bad_status"
            )
        return data

    def set_status(self, stream_id: str, status: str, reason: str | None = None) -> dict[str, Any]:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        body = {"stream_id": stream_id, "status": status, **({"reason": reason} if reason else {})}
        data = self._call("POST", self._endpoint("status_endpoint"), body=body)
        return data if isinstance(data, dict) else body

    def add_subject(
        self, stream_id: str, subject: dict[str, Any], *, verified: bool = True
    ) -> None:
        self._call(
            "POST",
            self._endpoint("add_subject_endpoint"),
            body={"stream_id": stream_id, "subject": subject, "verified": verified},
            expect=(200, 204),
        )

    def remove_subject(self, stream_id: str, subject: dict[str, Any]) -> None:
        self._call(
            "POST",
            self._endpoint("remove_subject_endpoint"),
            body={"stream_id": stream_id, "subject": subject},
            expect=(204, 200),
        )

    def request_verification(self, stream_id: str, state: str) -> None:
        self._call(
            "POST",
            self._endpoint("verification_endpoint"),
            body={"stream_id": stream_id, "state": state},
            expect=(204, 200),
        )

    # -- transport ------------------------------------------------------------------------------

    def _call(
        self,
        method: str,
        url: str,
        *,
        body: dict[str, Any] | None = None,
        params: dict[str, str] | None = None,
        expect: tuple[int, ...] = (200,),
        auth: bool = True,
    ) -> Any:
        headers = {"Accept": _JSON}
        if body is not None:
            headers["Content-Type"] = _JSON
        token = self._token() if auth else None
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            with self._client.stream(
                method,
                url,
                params=params,
                headers=headers,
                content=json.dumps(body).encode() if body is not None else None,
            ) as resp:
                raw = b""
                for chunk in resp.iter_bytes():
                    raw += chunk
                    if len(raw) > _MAX_BODY:
                        raise TransmitterError(
                            "the transmitter's answer is too large",
                            code="ssf.transmitter.too_large",
                        )
                status = resp.status_code
        except httpx.HTTPError as exc:
            raise TransmitterError(
                f"cannot reach the transmitter: {type(exc).__name__}",
                code="ssf.transmitter.unreachable",
            ) from None
        if status not in expect:
            raise TransmitterError(
                f"the transmitter answered {status} to {method}",
                code=f"ssf.transmitter.http_{status}",
            )
        if status == 204 or not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise TransmitterError(
                "the transmitter's answer is not JSON", code="ssf.transmitter.malformed"
            ) from None
