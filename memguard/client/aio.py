"""The async gateway client: the same calls, errors and retries as :mod:`memguard.client.sync`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self

import httpx
from tenacity import AsyncRetrying

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

__all__ = ["AsyncMemguardClient"]


class AsyncMemguardClient(Session):
    """Async twin of :class:`~memguard.client.MemguardClient`; same calls, same errors, same
    retries."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        workload_credential: str | None = None,
        timeout: float | httpx.Timeout = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        verify: Any = True,
        cert: Any = None,
        max_response_bytes: int = calls.MAX_RESPONSE_BYTES,
    ) -> None:
        super().__init__(token, workload_credential)
        self.retry = retry or RetryPolicy()
        self.max_response_bytes = max_response_bytes
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            timeout=calls.timeout(timeout),
            transport=transport,
            trust_env=False,
            follow_redirects=False,
            verify=verify,
            cert=cert,
        )

    async def _send(self, call: Call) -> httpx.Response:
        params = tuple(call.params) if call.params is not None else None
        request = self._http.build_request(
            call.method, call.path, json=call.json, headers=self.headers_for(call), params=params
        )
        limit = self.max_response_bytes
        try:  # read as it comes and decode it, at most ``max_response_bytes`` of it
            response = await self._http.send(request, stream=True)
            self.heard(response)  # what it says of keys, a refusal's answer too
            try:
                body = Body(response, limit)
                if body.wants_more:
                    async for chunk in response.aiter_raw():
                        if not body.feed(chunk):
                            break
                    else:
                        body.finish()
            finally:
                await response.aclose()
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"gateway unreachable: {type(exc).__name__}") from exc
        keep(response, body)
        raise_for(response)
        return response

    async def _run(self, call: Call) -> httpx.Response:
        with tracing.client_span(call.action, call.span):
            retrying = AsyncRetrying(**retry_args(self.retry, lambda: self.may_repeat(call)))
            response: httpx.Response = await retrying(self._send, call)
            return response

    async def write(
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
        call = calls.write(
            text, namespace, source, turn, metadata, trust, derived_from, idempotency_key
        )
        return parse(WriteOut, await self._run(call))

    async def write_many(
        self, facts: Sequence[NewFact], *, idempotency_key: str | None = None
    ) -> list[WriteOut]:
        call = calls.write_many(facts, idempotency_key)
        return parse(BatchWriteOut, await self._run(call)).facts

    async def search(
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
        call = calls.search(query, k, namespaces, min_trust, purpose, trace_id, turn)
        return parse(SearchOut, await self._run(call)).facts

    async def get(
        self, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None
    ) -> FactOut:
        return parse(FactOut, await self._run(calls.get(fact_id, purpose, turn)))

    async def list_facts(
        self,
        *,
        namespaces: Sequence[str] | None = None,
        min_trust: TrustLevel | None = None,
        limit: int = 100,
        cursor: str | None = None,
        purpose: str = "answer",
        turn: Turn | None = None,
    ) -> FactListOut:
        call = calls.list_facts(namespaces, min_trust, limit, cursor, purpose, turn)
        return parse(FactListOut, await self._run(call))

    async def revoke(
        self, selector: RevocationSelector, *, reason: str, follow_context: bool = True
    ) -> RevocationOut:
        call = calls.revoke(selector, reason, follow_context)
        return parse(RevocationOut, await self._run(call))

    async def endorse(self, fact_id: str, *, reason: str) -> EndorseOut:
        return parse(EndorseOut, await self._run(calls.endorse(fact_id, reason)))

    async def update(
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
        return parse(WriteOut, await self._run(call))

    async def delete(self, fact_id: str, *, idempotency_key: str | None = None) -> None:
        await self._run(calls.delete(fact_id, idempotency_key))

    async def audit(self, fact_id: str) -> AuditOut:
        return parse(AuditOut, await self._run(calls.audit(fact_id)))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
