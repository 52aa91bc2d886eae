"""RFC 8936 poll delivery: memguard polls a configured transmitter for its Security Event Tokens.

RFC 8936 2.1: the recipient "makes an HTTP POST request" to the transmitter's polling endpoint with
a JSON body: ``maxEvents`` (how many SETs at most), ``returnImmediately`` (memguard polls at an
interval and never holds the connection open), ``ack`` ("an array of strings that each
corresponds to the jti of a successfully received SET") and ``setErrs`` (jti -> ``{"err",
"description"}`` for the SETs that failed, 2.4 error codes). 2.2 the response: ``sets`` (jti ->
SET) and ``moreAvailable``.

Each polled SET goes through the push receiver's own :meth:`SsfReceiver.receive`: the same
verification (signature, the polled transmitter as issuer, audience, ``iat``, ``jti`` replay) and
the same effects (deny entries, audit events, session write revocation). Besides, the ``sets`` key
must be the SET's own ``jti`` and its ``iss`` the polled transmitter, checked before any effect.

What is acknowledged, in the next request (RFC 8936 2.3 "the SET Recipient acknowledges ... by
including the jti in the ack"):

- applied: acked;
- already received (its ``jti`` recorded, so its effects are in place): acked, so the transmitter
  stops redelivering; the repeat is still a deny event;
- refused (bad signature, wrong audience, malformed ...): reported in ``setErrs``, never acked;
- not applied because memguard could not write (deny list or replay table down, a 503 on push):
  neither, so the transmitter delivers it again and the next poll applies it.

A failed poll (transport error, a non-200 answer, a malformed body) changes nothing and is retried
at the next interval; the first failure of a run of failures is an ``alarm`` audit event, and the
outstanding acks are kept for the next successful poll.

Several gateway processes: each has a poller, and only the holder of the transmitter's lease
(memguard.gateway.ssf_lease) polls; a poller that loses the lease drops its outstanding acks
(the next holder receives those SETs again, finds their ``jti`` claimed and acks them).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from memguard.errors import MemguardError
from memguard.events import AuditEvent, Decision
from memguard.gateway.ssf import MAX_SET_BYTES, SsfReceiver, SsfRefused
from memguard.gateway.ssf_lease import PollLease, lease_for
from memguard.logging import get_logger

if TYPE_CHECKING:
    from memguard.gateway.config import GatewayConfig

__all__ = ["PollOutcome", "SsfPoller", "build_pollers"]

_JSON = "application/json"


@dataclass
class PollOutcome:
    """What one poll did: jtis applied, acked as already received, refused, and left for later."""

    applied: list[str] = field(default_factory=list)
    duplicate: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    deferred: list[str] = field(default_factory=list)
    more_available: bool = False


class SsfPoller:
    """Polls one transmitter's RFC 8936 endpoint and hands each SET to ``receiver``."""

    def __init__(
        self,
        receiver: SsfReceiver,
        *,
        issuer: str,
        url: str,
        token: Callable[[], str | None] = lambda: None,
        max_events: int = 32,
        interval: float = 1.0,
        timeout: float = 10.0,
        client: httpx.Client | None = None,
        lease: PollLease | None = None,
    ) -> None:
        self.receiver, self.issuer, self.url = receiver, issuer, url
        self.lease = lease
        self.holding = lease is None
        self._lease_failing = False
        self.max_events, self.interval, self.timeout = max_events, interval, timeout
        self._token = token
        self._client = client or httpx.Client(
            timeout=timeout, follow_redirects=False, trust_env=False
        )
        self._own_client = client is None
        self._acks: list[str] = []
        self._errs: dict[str, dict[str, str]] = {}
        self._failing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._log = get_logger()

    # -- one poll ---------------------------------------------------------------------------------

    def poll_once(self) -> PollOutcome:
        """One request: send the pending acks and errors, receive and process what comes back.
        Raises nothing: a failed poll is logged, audited (first of a run) and retried later."""
        body: dict[str, Any] = {"maxEvents": self.max_events, "returnImmediately": True}
        if self._acks:
            body["ack"] = list(self._acks)
        if self._errs:
            body["setErrs"] = dict(self._errs)
        try:
            sets, more = self._request(body)
        except Exception as exc:
            self._failed(exc)
            return PollOutcome()
        # the transmitter has the acks and errors now (RFC 8936 2.3): not sent again
        self._acks, self._errs = [], {}
        if self._failing:
            self._failing = False
            self._log.info("ssf.poll_recovered", transmitter=self.issuer)
        outcome = PollOutcome(more_available=more)
        for jti, token in sets.items():
            self._one(jti, token, outcome)
        return outcome

    def _request(self, body: dict[str, Any]) -> tuple[dict[str, str], bool]:
        headers = {"Content-Type": _JSON, "Accept": _JSON}
        token = self._token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        limit = self.max_events * (MAX_SET_BYTES + 256) + 4096
        with self._client.stream(
            "POST", self.url, content=json.dumps(body).encode(), headers=headers
        ) as resp:
            if resp.status_code != 200:
                raise _PollError(f"http.{resp.status_code}")
            raw = b""
            for chunk in resp.iter_bytes():
                raw += chunk
                if len(raw) > limit:
                    raise _PollError("ssf.poll_too_large")
        try:
            data = json.loads(raw)
        except ValueError:
            raise _PollError("ssf.poll_malformed") from None
        sets = data.get("sets") if isinstance(data, dict) else None
        more = data.get("moreAvailable", False) if isinstance(data, dict) else None
        if (
            not isinstance(sets, dict)
            or not isinstance(more, bool)
            or len(sets) > self.max_events
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in sets.items())
        ):
            raise _PollError("ssf.poll_malformed")
        return sets, more

    def _one(self, jti: str, token: str, outcome: PollOutcome) -> None:
        try:
            self.receiver.receive(token.strip(), issuer=self.issuer, jti=jti, delivery="poll")
        except SsfRefused as exc:
            if exc.code == "identity.replayed":  # applied before; its ack got lost
                self._acks.append(jti)
                outcome.duplicate.append(jti)
            elif exc.status == 400:
                self._errs[jti] = {"err": exc.err, "description": exc.code}
                outcome.refused[jti] = exc.code
            else:  # not applied: no ack, no error, so the transmitter delivers it again
                outcome.deferred.append(jti)
            return
        except Exception as exc:  # the receiver raises only SsfRefused; fail closed regardless
            self._log.error("ssf.poll_internal", transmitter=self.issuer, error=type(exc).__name__)
            outcome.deferred.append(jti)
            return
        self._acks.append(jti)
        outcome.applied.append(jti)

    def _failed(self, exc: Exception) -> None:
        code = exc.code if isinstance(exc, (_PollError, MemguardError)) else type(exc).__name__
        self._log.warning("ssf.poll_failed", transmitter=self.issuer, error=code)
        if self._failing:
            return
        self._failing = True
        self._alarm("ssf.poll_failed", code)

    def _alarm(self, reason: str, code: str) -> None:
        try:
            self.receiver.guard.ledger.record(
                [
                    AuditEvent(
                        action="ssf.poll",
                        decision=Decision.ALARM,
                        reason=reason,
                        detail={"transmitter": self.issuer, "error": code},
                    )
                ]
            )
        except Exception as err:
            self._log.error("audit_event_lost", op="ssf.poll", error=type(err).__name__)

    # -- the loop ---------------------------------------------------------------------------------

    def run(self) -> None:
        """Poll until :meth:`stop`; again at once while the transmitter has more."""
        while not self._stop.is_set():
            if not self._hold():
                self._stop.wait(self.interval)
                continue
            outcome = self.poll_once()
            if not outcome.more_available:
                self._stop.wait(self.interval)

    def _hold(self) -> bool:
        """Take or renew the lease (none: always held); a lost lease drops the pending acks."""
        if self.lease is None:
            return True
        held = self.lease.acquire()
        if held != self.holding:
            self._log.info(
                "ssf.poll_lease", transmitter=self.issuer, held=held, holder=self.lease.holder
            )
        if not held:
            self._acks, self._errs = [], {}
        if self.lease.failing and not self._lease_failing:  # the first of a run: an alarm
            self._alarm("ssf.poll_lease_failed", "lease")
        self._lease_failing = self.lease.failing
        self.holding = held
        return held

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(
            target=self.run, name=f"memguard-ssf-poll {self.issuer}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.timeout + 5)
            self._thread = None
        if self._own_client:
            self._client.close()
        if self.lease is not None:
            self.lease.release()


class _PollError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _token_source(t: Any, config: GatewayConfig) -> Callable[[], str | None]:
    if t.poll_token_file is not None:
        path = config.path(t.poll_token_file)

        def from_file() -> str | None:  # read per poll, so a rotated token is picked up
            return path.read_text("utf-8").strip() or None

        return from_file
    if t.poll_token_env is not None:
        name = t.poll_token_env
        return lambda: os.environ.get(name) or None
    return lambda: None


def build_pollers(config: GatewayConfig, receiver: SsfReceiver) -> list[SsfPoller]:
    """A poller for every configured transmitter with a ``poll_url`` (not started)."""
    engine = receiver.denylist.engine
    return [
        SsfPoller(
            receiver,
            issuer=t.issuer,
            url=t.poll_url,
            token=_token_source(t, config),
            max_events=t.poll_max_events,
            interval=t.poll_interval,
            lease=lease_for(engine, t.issuer, ttl=config.ssf.poll_lease_ttl)
            if engine is not None
            else None,
        )
        for t in config.ssf.transmitters
        if t.poll_url is not None
    ]
