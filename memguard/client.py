"""A Python client for the memguard gateway over HTTP (httpx), sync and async.

The client sends the agent's token in ``Authorization: Bearer`` and its workload credential in
``Workload-Identity-Token``; it never puts a credential in a URL. Refusals come back as the same
typed errors the in-process guard raises (the gateway's error ``code`` picks the class)::

    401 -> IdentityError   403 -> AccessDenied   404 -> FactNotFound   400/422 -> InvalidRequest
    409 -> Conflict        429 -> RateLimited    503 -> StoreError / LedgerError / Overloaded
    504 -> GatewayTimeout  other -> MemguardError("internal")   transport failures -> GatewayUnavailable

Retries (:class:`RetryPolicy`, with tenacity): 429, 503 and connection failures are retried with
exponential backoff and jitter, waiting what ``Retry-After`` says when the gateway says it, within
an overall deadline. A request the gateway may have executed (a timeout, a dropped connection, a
504, a 503 from the store or ledger) is retried only when repeating it is harmless: reads, and
writes, because every write carries an ``Idempotency-Key`` (one per call, the same on every try)
that the gateway uses to store it once and answer a retry with the first result. Revocations and
endorsements are retried only when they were certainly not executed.

Every call is an OpenTelemetry ``CLIENT`` span when a tracer provider is configured, and the
current trace context goes out as ``traceparent``.

Results are the gateway's response models: each fact carries its provenance (trust, source, writer
chain, fact id) and a one-line ``summary`` an agent harness can show next to the text.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel, ValidationError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_random_exponential,
)

from memguard.errors import (
    AccessDenied,
    BackendError,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    LedgerError,
    MemguardError,
    ReservedField,
    StoreError,
    TrustEscalation,
)
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
from memguard.telemetry import semconv as sc
from memguard.telemetry import tracing
from memguard.trust import TrustLevel

__all__ = [
    "AsyncMemguardClient",
    "Conflict",
    "EndorseOut",
    "FactListOut",
    "FactOut",
    "GatewayTimeout",
    "GatewayUnavailable",
    "MemguardClient",
    "NewFact",
    "Overloaded",
    "RateLimited",
    "RetryPolicy",
    "RevocationOut",
    "WriteOut",
]

WORKLOAD_HEADER = "Workload-Identity-Token"
IDEMPOTENCY_HEADER = "Idempotency-Key"
_M = TypeVar("_M", bound=BaseModel)
Params = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the client retries. ``attempts`` counts the first try; ``deadline`` bounds the whole
    call (no retry starts after it); waits grow from ``backoff`` to ``max_wait`` seconds with
    full jitter, or follow ``Retry-After`` (capped at ``max_wait``)."""

    attempts: int = 5
    backoff: float = 0.2
    max_wait: float = 10.0
    deadline: float = 30.0

    @classmethod
    def none(cls) -> RetryPolicy:
        """One try, no retry."""
        return cls(attempts=1)


class RateLimited(MemguardError):
    """429: the caller's rate is exceeded; retry after ``retry_after`` seconds."""

    code = "limits.rate_limited"

    def __init__(self, message: str, *, code: str | None = None, retry_after: int = 1) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after


class Conflict(MemguardError):
    """409: ``idempotency.in_progress`` (the first try of this write is still running: retried)
    or ``idempotency.key_reused`` (the key was used for another request: never retried)."""

    code = "idempotency.conflict"


class Overloaded(BackendError):
    """503 from the gateway's own limits (too many requests in progress)."""

    code = "limits.overloaded"


class GatewayTimeout(BackendError):
    """504: the gateway gave up waiting; the operation's outcome is unknown."""

    code = "limits.timeout"


class GatewayUnavailable(BackendError):
    """The gateway could not be reached (connection refused, reset, client timeout)."""

    code = "backend.gateway"


class NewFact(BaseModel):
    """One fact of a batch write."""

    text: str
    namespace: str
    source: Source
    turn: Turn
    metadata: dict[str, object] = {}
    trust: TrustLevel | None = None
    derived_from: tuple[str, ...] = ()

    def body(self) -> dict[str, object]:
        return _fact_body(self.text, self.namespace, self.source, self.turn, self.metadata,
                          self.trust, self.derived_from)


def _fact_body(
    text: str,
    namespace: str | None,
    source: Source,
    turn: Turn,
    metadata: Mapping[str, object] | None,
    trust: TrustLevel | None,
    derived_from: Sequence[str] = (),
) -> dict[str, object]:
    body: dict[str, object] = {
        "text": text,
        "source": source.model_dump(mode="json", exclude_none=True),
        "turn": turn.model_dump(mode="json", exclude_none=True),
        "metadata": dict(metadata or {}),
    }
    if namespace is not None:
        body["namespace"] = namespace
    if trust is not None:
        body["trust"] = trust.label
    if derived_from:
        body["derived_from"] = list(derived_from)
    return body


def _search_body(
    query: str,
    k: int,
    namespaces: Sequence[str] | None,
    min_trust: TrustLevel | None,
    purpose: str,
    trace_id: str | None,
    turn: Turn | None = None,
) -> dict[str, object]:
    body: dict[str, object] = {"query": query, "k": k, "purpose": purpose}
    if namespaces is not None:
        body["namespaces"] = list(namespaces)
    if min_trust is not None:
        body["min_trust"] = min_trust.label
    if trace_id is not None:
        body["trace_id"] = trace_id
    if turn is not None:
        body["turn"] = turn.model_dump(mode="json", exclude_none=True)
    return body


def _read_params(purpose: str, turn: Turn | None) -> list[tuple[str, str]]:
    """Query parameters of a read: its purpose and, if given, its turn (the read taints it)."""
    params = [("purpose", purpose)]
    if turn is not None:
        params += [("session_id", turn.session_id), ("turn_index", str(turn.turn_index))]
    return params


def _list_params(
    namespaces: Sequence[str] | None,
    min_trust: TrustLevel | None,
    limit: int,
    cursor: str | None,
    purpose: str,
    turn: Turn | None,
) -> list[tuple[str, str]]:
    if isinstance(namespaces, str):
        raise InvalidRequest("`namespaces` must be a list of names")
    params = [("namespace", n) for n in namespaces or ()]
    params.append(("limit", str(limit)))
    if min_trust is not None:
        params.append(("min_trust", min_trust.label))
    if cursor is not None:
        params.append(("cursor", cursor))
    return params + _read_params(purpose, turn)


def _revoke_body(
    selector: RevocationSelector, reason: str, follow_context: bool
) -> dict[str, object]:
    return {"selector": selector.model_dump(mode="json", exclude_none=True), "reason": reason,
            "follow_context": follow_context}


_BY_CODE: dict[str, type[MemguardError]] = {
    "not_found": FactNotFound,
    "access_denied.trust_escalation": TrustEscalation,
    "access_denied.reserved_field": ReservedField,
    "backend.store": StoreError,
    "backend.ledger": LedgerError,
    "limits.overloaded": Overloaded,
    "limits.timeout": GatewayTimeout,
}


def raise_for(response: httpx.Response) -> None:
    """Translate a gateway refusal into memguard's error tree (the seam where HTTP ends)."""
    if response.status_code < 400:
        return
    code, message = "internal", "gateway error"
    try:
        err = response.json().get("error")
        if isinstance(err, Mapping):
            code = str(err.get("code", code))
            message = str(err.get("message", message))
    except (ValueError, AttributeError):
        pass
    status = response.status_code
    if status == 422:
        raise InvalidRequest("invalid request", code="invalid_request")
    retry_after = _retry_after(response.headers.get("retry-after"))
    if status == 429:
        raise RateLimited(message, code=code, retry_after=max(1, round(retry_after or 1)))
    if status == 409:
        raise _later(Conflict(message, code=code), retry_after)
    if code in _BY_CODE:
        raise _later(_BY_CODE[code](message, code=code), retry_after)
    if status == 401:
        raise IdentityError(message, code=code)
    if status == 403:
        raise AccessDenied(message, code=code)
    if status == 404:
        raise FactNotFound(message, code="not_found")
    if status in (400, 413):
        raise InvalidRequest(message, code=code)
    if status in (502, 503, 504):
        raise _later(BackendError(message, code=code), retry_after)
    raise MemguardError("internal error", code="internal")


def _retry_after(value: str | None) -> float | None:
    """RFC 9110 ``Retry-After``: delay seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        import time

        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _later(exc: MemguardError, retry_after: float | None) -> MemguardError:
    if retry_after is not None:
        setattr(exc, "retry_after", retry_after)  # noqa: B010 - on any error class
    return exc


#: Refusals that say the request was not executed: any call may be sent again.
_NOT_EXECUTED = frozenset({"limits.rate_limited", "limits.overloaded", "limits.unavailable",
                           "idempotency.in_progress"})


def _retryable(exc: BaseException, idempotent: bool) -> bool:
    """May the call that raised ``exc`` be sent again?"""
    if isinstance(exc, GatewayUnavailable):
        not_sent = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
        return idempotent or isinstance(exc.__cause__, not_sent)
    if not isinstance(exc, MemguardError):
        return False
    if exc.code in _NOT_EXECUTED:
        return exc.code != "idempotency.in_progress" or idempotent
    # the gateway may have executed it: the store or ledger failed mid-way, or it timed out
    return idempotent and isinstance(exc, BackendError)


def _waiter(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    backoff = wait_random_exponential(multiplier=policy.backoff, max=policy.max_wait)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        hinted = getattr(exc, "retry_after", None)
        if isinstance(hinted, int | float) and hinted > 0:
            return float(min(hinted, policy.max_wait))
        return float(backoff(state))

    return wait


def _retry_args(policy: RetryPolicy, idempotent: bool) -> dict[str, Any]:
    return {
        "retry": retry_if_exception(lambda exc: _retryable(exc, idempotent)),
        "wait": _waiter(policy),
        "stop": stop_after_attempt(policy.attempts) | stop_before_delay(policy.deadline),
        "reraise": True,
    }


@dataclass(frozen=True, slots=True)
class _Call:
    """One logical call: its HTTP request, whether repeating it is harmless, its span."""

    action: str
    method: str
    path: str
    json: object = None
    params: Params | None = None
    idempotent: bool = True
    key: str | None = None
    span: Mapping[str, Any] | None = None


def _parse(model: type[_M], response: httpx.Response) -> _M:
    raise_for(response)
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise MemguardError("unexpected gateway response", code="internal") from exc


class _Base:
    retry: RetryPolicy

    def __init__(self, token: str, workload_credential: str | None) -> None:
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        if workload_credential is not None:
            self._headers[WORKLOAD_HEADER] = workload_credential

    def _headers_for(self, call: _Call) -> dict[str, str]:
        headers = dict(self._headers)
        if call.key is not None:
            headers[IDEMPOTENCY_HEADER] = call.key
        tracing.inject(headers)  # the caller's trace continues in the gateway
        return headers


def _key(given: str | None) -> str:
    return given if given is not None else uuid.uuid4().hex


def _span_attrs(query: str | None = None, texts: Sequence[str] = (),
                fact_id: str | None = None, count: int | None = None) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if fact_id is not None:
        attrs[sc.GEN_AI_MEMORY_RECORD_ID] = fact_id
    if count is not None:
        attrs[sc.GEN_AI_MEMORY_RECORD_COUNT] = count
    if tracing.settings().capture_content:  # opt-in: content is sensitive
        if query is not None:
            attrs[sc.GEN_AI_MEMORY_QUERY_TEXT] = query
        if texts:
            attrs[sc.GEN_AI_MEMORY_RECORDS] = tracing.records_attribute(
                [{"content": t} for t in texts])
    return attrs


def _timeout(timeout: float | httpx.Timeout) -> httpx.Timeout:
    return timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)


class MemguardClient(_Base):
    """Synchronous client: ``MemguardClient(base_url, token, workload_credential=...)``.

    ``timeout``: seconds (or an ``httpx.Timeout``) for each try; ``retry``: the
    :class:`RetryPolicy` (``RetryPolicy.none()`` for a single try); ``verify`` / ``cert``: TLS
    (a CA bundle path or ``ssl.SSLContext``; a client certificate for mutual TLS).
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
    ) -> None:
        super().__init__(token, workload_credential)
        self.retry = retry or RetryPolicy()
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=_timeout(timeout),
                                  transport=transport, trust_env=False, follow_redirects=False,
                                  verify=verify, cert=cert)

    def set_credentials(self, token: str, workload_credential: str | None = None) -> None:
        """Use another token (and workload credential) from now on, e.g. after an exchange."""
        _Base.__init__(self, token, workload_credential)

    def _send(self, method: str, path: str, json: object = None, params: Params | None = None,
              headers: Mapping[str, str] | None = None) -> httpx.Response:
        try:
            return self._http.request(method, path, json=json, headers=headers or self._headers,
                                      params=tuple(params) if params is not None else None)
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"gateway unreachable: {type(exc).__name__}") from exc

    def _run(self, call: _Call) -> httpx.Response:
        """One logical call: a span, its tries (see :class:`RetryPolicy`), the typed error."""

        def attempt() -> httpx.Response:
            response = self._send(call.method, call.path, call.json, call.params,
                                  self._headers_for(call))
            raise_for(response)
            return response

        with tracing.client_span(call.action, call.span):
            return Retrying(**_retry_args(self.retry, call.idempotent))(attempt)

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
        """Store one fact (retried safely: the gateway stores it once per ``idempotency_key``,
        a fresh one per call unless given)."""
        body = _fact_body(text, namespace, source, turn, metadata, trust, derived_from)
        return _parse(WriteOut, self._run(_Call(
            "write", "POST", "/v1/facts", body, key=_key(idempotency_key),
            span=_span_attrs(texts=[text], count=1))))

    def write_many(
        self, facts: Sequence[NewFact], *, idempotency_key: str | None = None
    ) -> list[WriteOut]:
        body = {"facts": [f.body() for f in facts]}
        return _parse(BatchWriteOut, self._run(_Call(
            "write", "POST", "/v1/facts/batch", body, key=_key(idempotency_key),
            span=_span_attrs(texts=[f.text for f in facts], count=len(facts))))).facts

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
        body = _search_body(query, k, namespaces, min_trust, purpose, trace_id, turn)
        return _parse(SearchOut, self._run(_Call(
            "search", "POST", "/v1/search", body, span=_span_attrs(query=query)))).facts

    def get(self, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None) -> FactOut:
        return _parse(FactOut, self._run(_Call(
            "get", "GET", f"/v1/facts/{_id(fact_id)}", params=_read_params(purpose, turn),
            span=_span_attrs(fact_id=fact_id))))

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
        params = _list_params(namespaces, min_trust, limit, cursor, purpose, turn)
        return _parse(FactListOut, self._run(_Call("list", "GET", "/v1/facts", params=params)))

    def revoke(
        self, selector: RevocationSelector, *, reason: str, follow_context: bool = True
    ) -> RevocationOut:
        """Quarantine what ``selector`` matches in the caller's revoke scope, and every
        descendant; needs the ``memory:revoke`` scope (by default)."""
        body = _revoke_body(selector, reason, follow_context)
        return _parse(RevocationOut, self._run(_Call(
            "revoke", "POST", "/v1/revocations", body, idempotent=False)))

    def endorse(self, fact_id: str, *, reason: str) -> EndorseOut:
        """Lift the quarantine of one fact; needs the ``memory:endorse`` scope (by default) and
        the policy's ``endorse`` permission (by default: the user directly, never an agent)."""
        return _parse(EndorseOut, self._run(_Call(
            "endorse", "POST", f"/v1/facts/{_id(fact_id)}/endorse", {"reason": reason},
            idempotent=False)))

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
        body = _fact_body(text, None, source, turn, metadata, trust)
        return _parse(WriteOut, self._run(_Call(
            "update", "PUT", f"/v1/facts/{_id(fact_id)}", body, key=_key(idempotency_key),
            span=_span_attrs(texts=[text], fact_id=fact_id, count=1))))

    def delete(self, fact_id: str, *, idempotency_key: str | None = None) -> None:
        self._run(_Call("delete", "DELETE", f"/v1/facts/{_id(fact_id)}",
                        key=_key(idempotency_key), span=_span_attrs(fact_id=fact_id)))

    def audit(self, fact_id: str) -> AuditOut:
        return _parse(AuditOut, self._run(_Call("audit", "GET", f"/v1/facts/{_id(fact_id)}/audit")))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncMemguardClient(_Base):
    """Async twin of :class:`MemguardClient`; same calls, same errors, same retries."""

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
    ) -> None:
        super().__init__(token, workload_credential)
        self.retry = retry or RetryPolicy()
        self._http = httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=_timeout(timeout),
                                       transport=transport, trust_env=False,
                                       follow_redirects=False, verify=verify, cert=cert)

    def set_credentials(self, token: str, workload_credential: str | None = None) -> None:
        """Use another token (and workload credential) from now on, e.g. after an exchange."""
        _Base.__init__(self, token, workload_credential)

    async def _send(self, method: str, path: str, json: object = None,
                    params: Params | None = None,
                    headers: Mapping[str, str] | None = None) -> httpx.Response:
        try:
            return await self._http.request(method, path, json=json,
                                            headers=headers or self._headers,
                                            params=tuple(params) if params is not None else None)
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"gateway unreachable: {type(exc).__name__}") from exc

    async def _run(self, call: _Call) -> httpx.Response:
        async def attempt() -> httpx.Response:
            response = await self._send(call.method, call.path, call.json, call.params,
                                        self._headers_for(call))
            raise_for(response)
            return response

        with tracing.client_span(call.action, call.span):
            runner: Callable[[Callable[[], Awaitable[httpx.Response]]], Awaitable[httpx.Response]]
            runner = AsyncRetrying(**_retry_args(self.retry, call.idempotent))
            return await runner(attempt)

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
        body = _fact_body(text, namespace, source, turn, metadata, trust, derived_from)
        return _parse(WriteOut, await self._run(_Call(
            "write", "POST", "/v1/facts", body, key=_key(idempotency_key),
            span=_span_attrs(texts=[text], count=1))))

    async def write_many(
        self, facts: Sequence[NewFact], *, idempotency_key: str | None = None
    ) -> list[WriteOut]:
        body = {"facts": [f.body() for f in facts]}
        return _parse(BatchWriteOut, await self._run(_Call(
            "write", "POST", "/v1/facts/batch", body, key=_key(idempotency_key),
            span=_span_attrs(texts=[f.text for f in facts], count=len(facts))))).facts

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
        body = _search_body(query, k, namespaces, min_trust, purpose, trace_id, turn)
        return _parse(SearchOut, await self._run(_Call(
            "search", "POST", "/v1/search", body, span=_span_attrs(query=query)))).facts

    async def get(
        self, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None
    ) -> FactOut:
        return _parse(FactOut, await self._run(_Call(
            "get", "GET", f"/v1/facts/{_id(fact_id)}", params=_read_params(purpose, turn),
            span=_span_attrs(fact_id=fact_id))))

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
        params = _list_params(namespaces, min_trust, limit, cursor, purpose, turn)
        return _parse(FactListOut, await self._run(_Call("list", "GET", "/v1/facts",
                                                         params=params)))

    async def revoke(
        self, selector: RevocationSelector, *, reason: str, follow_context: bool = True
    ) -> RevocationOut:
        body = _revoke_body(selector, reason, follow_context)
        return _parse(RevocationOut, await self._run(_Call(
            "revoke", "POST", "/v1/revocations", body, idempotent=False)))

    async def endorse(self, fact_id: str, *, reason: str) -> EndorseOut:
        return _parse(EndorseOut, await self._run(_Call(
            "endorse", "POST", f"/v1/facts/{_id(fact_id)}/endorse", {"reason": reason},
            idempotent=False)))

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
        body = _fact_body(text, None, source, turn, metadata, trust)
        return _parse(WriteOut, await self._run(_Call(
            "update", "PUT", f"/v1/facts/{_id(fact_id)}", body, key=_key(idempotency_key),
            span=_span_attrs(texts=[text], fact_id=fact_id, count=1))))

    async def delete(self, fact_id: str, *, idempotency_key: str | None = None) -> None:
        await self._run(_Call("delete", "DELETE", f"/v1/facts/{_id(fact_id)}",
                              key=_key(idempotency_key),
                              span=_span_attrs(fact_id=fact_id)))

    async def audit(self, fact_id: str) -> AuditOut:
        return _parse(AuditOut, await self._run(_Call("audit", "GET",
                                                      f"/v1/facts/{_id(fact_id)}/audit")))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _id(fact_id: str) -> str:
    """A fact id goes into the path as is only if it is a plain UUID-like string."""
    if not fact_id or not all(c.isalnum() or c == "-" for c in fact_id) or len(fact_id) > 64:
        raise InvalidRequest("invalid fact id")
    return fact_id
