"""The synchronous gateway client."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self

import httpx
from tenacity import Retrying

from memguard.client import calls
from memguard.client.body import Body, keep
from memguard.client.calls import Call, NewFact, Session, parse
from memguard.client.errors import GatewayUnavailable, raise_for
from memguard.client.retry import RetryPolicy, retry_args
from memguard.gateway.schemas import (
    AuditOut,
    BatchWriteOut,
    EndorseOut,
    FactListOut,
    FactOut,
    RevocationOut,
    SearchOut,
    WriteOut,
)
from memguard.provenance import Source, Turn
from memguard.revocation import RevocationSelector
from memguard.telemetry import tracing
from memguard.trust import TrustLevel

__all__ = ["MemguardClient"]


class MemguardClient(Session):
    """Synchronous client: ``MemguardClient(base_url, token, workload_credential=...)``.

    ``timeout``: seconds (or an ``httpx.Timeout``) for each try; ``retry``: the
    :class:`RetryPolicy` (``RetryPolicy.none()`` for a single try); ``verify`` / ``cert``: TLS
    (a CA bundle path or ``ssl.SSLContext``; a client certificate for mutual TLS);
    ``max_response_bytes``: a larger answer (decoded: a compressed one is decoded within it as it
    arrives, memguard/client/body.py) is refused (``internal``) without being read whole.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        workload_credential: str | None = None,
        timeout: float | httpx.Timeout = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        verify: Any = True,
        cert: Any = None,
        max_response_bytes: int = calls.MAX_RESPONSE_BYTES,
    ) -> None:
        super().__init__(token, workload_credential)
        self.retry = retry or RetryPolicy()
        self.max_response_bytes = max_response_bytes
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            timeout=calls.timeout(timeout),
            transport=transport,
            trust_env=False,
            follow_redirects=False,
            verify=verify,
            cert=cert,
        )

    def _send(self, call: Call) -> httpx.Response:
        params = tuple(call.params) if call.params is not None else None
        request = self._http.build_request(
            call.method, call.path, json=call.json, headers=self.headers_for(call), params=params
        )
        limit = self.max_response_bytes
        try:  # read as it comes and decode it, at most ``max_response_bytes`` of it
            response = self._http.send(request, stream=True)
            self.heard(response)  # what it says of keys, a refusal's answer too
            try:
                body = Body(response, limit)
                if body.wants_more:
                    for chunk in response.iter_raw():
                        if not body.feed(chunk):
                            break
                    else:
                        body.finish()
            finally:
                response.close()
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"gateway unreachable: {type(exc).__name__}") from exc
        keep(response, body)
        raise_for(response)
        return response

    def _run(self, call: Call) -> httpx.Response:
        """One logical call: a span, its tries (see :class:`RetryPolicy`), the typed error."""
        with tracing.client_span(call.action, call.span):
            retrying = Retrying(**retry_args(self.retry, lambda: self.may_repeat(call)))
            return retrying(self._send, call)

    def write(
        self,
        text: str,
        *,
        namespace: str,
        source: Source,
        turn: Turn,
        metadata: Mapping[str, object] | None = None,
        trust: TrustLevel | None = None,
        derived_from: Sequence[str] = (),
        idempotency_key: str | None = None,
    ) -> WriteOut:
        """Store one fact. It carries an ``idempotency_key`` (a fresh one per call unless given)
        and, once it may have run (a lost answer, a timeout), is sent again only if the gateway
        said on an earlier answer that it honours keys (``Idempotency-Key-Honored: true``), so
        it is stored once; otherwise the error is raised and the write may or may not be stored."""
        call = calls.write(
            text, namespace, source, turn, metadata, trust, derived_from, idempotency_key
        )
        return parse(WriteOut, self._run(call))

    def write_many(
        self, facts: Sequence[NewFact], *, idempotency_key: str | None = None
    ) -> list[WriteOut]:
        return parse(BatchWriteOut, self._run(calls.write_many(facts, idempotency_key))).facts

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        purpose: str = "answer",
        trace_id: str | None = None,
        turn: Turn | None = None,
    ) -> list[FactOut]:
        """``turn``: what the search returns taints the writes made later in that turn."""
        call = calls.search(query, k, namespaces, min_trust, purpose, trace_id, turn)
        return parse(SearchOut, self._run(call)).facts

    def get(self, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None) -> FactOut:
        return parse(FactOut, self._run(calls.get(fact_id, purpose, turn)))

    def list_facts(
        self,
        *,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        limit: int = 100,
        cursor: str | None = None,
        purpose: str = "answer",
        turn: Turn | None = None,
    ) -> FactListOut:
        """One page of the facts the caller may read (fact-id order); pass ``next_cursor`` on."""
        call = calls.list_facts(namespaces, min_trust, limit, cursor, purpose, turn)
        return parse(FactListOut, self._run(call))

    def revoke(
        self, selector: RevocationSelector, *, reason: str, follow_context: bool = True
    ) -> RevocationOut:
        """Quarantine what ``selector`` matches in the caller's revoke scope, and every
        descendant; needs the ``memory:revoke`` scope (by default)."""
        return parse(RevocationOut, self._run(calls.revoke(selector, reason, follow_context)))

    def endorse(self, fact_id: str, *, reason: str) -> EndorseOut:
        """Lift the quarantine of one fact; needs the ``memory:endorse`` scope (by default) and
        the policy's ``endorse`` permission (by default: the user directly, never an agent)."""
        return parse(EndorseOut, self._run(calls.endorse(fact_id, reason)))

    def update(
        self,
        fact_id: str,
        text: str,
        *,
        source: Source,
        turn: Turn,
        metadata: Mapping[str, object] | None = None,
        trust: TrustLevel | None = None,
        idempotency_key: str | None = None,
    ) -> WriteOut:
        call = calls.update(fact_id, text, source, turn, metadata, trust, idempotency_key)
        return parse(WriteOut, self._run(call))

    def delete(self, fact_id: str, *, idempotency_key: str | None = None) -> None:
        self._run(calls.delete(fact_id, idempotency_key))

    def audit(self, fact_id: str) -> AuditOut:
        return parse(AuditOut, self._run(calls.audit(fact_id)))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
