"""A Python client for the memguard gateway over HTTP (httpx), sync and async.

The client sends the agent's token in ``Authorization: Bearer`` and its workload credential in
``Workload-Identity-Token``; it never puts a credential in a URL. Refusals come back as the same
typed errors the in-process guard raises (the gateway's error ``code`` picks the class)::

    401 -> IdentityError   403 -> AccessDenied   404 -> FactNotFound   400/422 -> InvalidRequest
    429 -> RateLimited     503 -> StoreError / LedgerError / Overloaded   504 -> GatewayTimeout
    other -> MemguardError("internal")   transport failures -> GatewayUnavailable

Results are the gateway's response models: each fact carries its provenance (trust, source, writer
chain, fact id) and a one-line ``summary`` an agent harness can show next to the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

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
from memguard.trust import TrustLevel

__all__ = [
    "AsyncMemguardClient",
    "EndorseOut",
    "FactListOut",
    "FactOut",
    "GatewayTimeout",
    "GatewayUnavailable",
    "MemguardClient",
    "NewFact",
    "Overloaded",
    "RateLimited",
    "RevocationOut",
    "WriteOut",
]

WORKLOAD_HEADER = "Workload-Identity-Token"
_M = TypeVar("_M", bound=BaseModel)
Params = Sequence[tuple[str, str]]


class RateLimited(MemguardError):
    """429: the caller's rate is exceeded; retry after ``retry_after`` seconds."""

    code = "limits.rate_limited"

    def __init__(self, message: str, *, code: str | None = None, retry_after: int = 1) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after


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
    if status == 429:
        retry = response.headers.get("retry-after", "1")
        raise RateLimited(message, code=code, retry_after=int(retry) if retry.isdigit() else 1)
    if code in _BY_CODE:
        raise _BY_CODE[code](message, code=code)
    if status == 401:
        raise IdentityError(message, code=code)
    if status == 403:
        raise AccessDenied(message, code=code)
    if status == 404:
        raise FactNotFound(message, code="not_found")
    if status in (400, 413):
        raise InvalidRequest(message, code=code)
    if status in (502, 503, 504):
        raise BackendError(message, code=code)
    raise MemguardError("internal error", code="internal")


def _parse(model: type[_M], response: httpx.Response) -> _M:
    raise_for(response)
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise MemguardError("unexpected gateway response", code="internal") from exc


class _Base:
    def __init__(self, token: str, workload_credential: str | None) -> None:
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        if workload_credential is not None:
            self._headers[WORKLOAD_HEADER] = workload_credential


class MemguardClient(_Base):
    """Synchronous client: ``MemguardClient(base_url, token, workload_credential=...)``."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        workload_credential: str | None = None,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(token, workload_credential)
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout,
                                  transport=transport, trust_env=False, follow_redirects=False)

    def set_credentials(self, token: str, workload_credential: str | None = None) -> None:
        """Use another token (and workload credential) from now on, e.g. after an exchange."""
        _Base.__init__(self, token, workload_credential)

    def _send(self, method: str, path: str, json: object = None,
              params: Params | None = None) -> httpx.Response:
        try:
            return self._http.request(method, path, json=json, headers=self._headers,
                                      params=tuple(params) if params is not None else None)
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"gateway unreachable: {type(exc).__name__}") from exc

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
    ) -> WriteOut:
        body = _fact_body(text, namespace, source, turn, metadata, trust, derived_from)
        return _parse(WriteOut, self._send("POST", "/v1/facts", body))

    def write_many(self, facts: Sequence[NewFact]) -> list[WriteOut]:
        body = {"facts": [f.body() for f in facts]}
        return _parse(BatchWriteOut, self._send("POST", "/v1/facts/batch", body)).facts

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
        return _parse(SearchOut, self._send("POST", "/v1/search", body)).facts

    def get(self, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None) -> FactOut:
        return _parse(FactOut, self._send("GET", f"/v1/facts/{_id(fact_id)}",
                                          params=_read_params(purpose, turn)))

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
        return _parse(FactListOut, self._send("GET", "/v1/facts", params=params))

    def revoke(
        self, selector: RevocationSelector, *, reason: str, follow_context: bool = True
    ) -> RevocationOut:
        """Quarantine what ``selector`` matches in the caller's revoke scope, and every
        descendant; needs the ``memory:revoke`` scope (by default)."""
        body = _revoke_body(selector, reason, follow_context)
        return _parse(RevocationOut, self._send("POST", "/v1/revocations", body))

    def endorse(self, fact_id: str, *, reason: str) -> EndorseOut:
        """Lift the quarantine of one fact; needs the ``memory:endorse`` scope (by default) and
        the policy's ``endorse`` permission (by default: the user directly, never an agent)."""
        return _parse(EndorseOut, self._send("POST", f"/v1/facts/{_id(fact_id)}/endorse",
                                             {"reason": reason}))

    def update(
        self,
        fact_id: str,
        text: str,
        *,
        source: Source,
        turn: Turn,
        metadata: Mapping[str, object] | None = None,
        trust: TrustLevel | None = None,
    ) -> WriteOut:
        body = _fact_body(text, None, source, turn, metadata, trust)
        return _parse(WriteOut, self._send("PUT", f"/v1/facts/{_id(fact_id)}", body))

    def delete(self, fact_id: str) -> None:
        raise_for(self._send("DELETE", f"/v1/facts/{_id(fact_id)}"))

    def audit(self, fact_id: str) -> AuditOut:
        return _parse(AuditOut, self._send("GET", f"/v1/facts/{_id(fact_id)}/audit"))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncMemguardClient(_Base):
    """Async twin of :class:`MemguardClient`; same calls, same errors."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        workload_credential: str | None = None,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(token, workload_credential)
        self._http = httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout,
                                       transport=transport, trust_env=False,
                                       follow_redirects=False)

    def set_credentials(self, token: str, workload_credential: str | None = None) -> None:
        """Use another token (and workload credential) from now on, e.g. after an exchange."""
        _Base.__init__(self, token, workload_credential)

    async def _send(self, method: str, path: str, json: object = None,
                    params: Params | None = None) -> httpx.Response:
        try:
            return await self._http.request(method, path, json=json, headers=self._headers,
                                            params=tuple(params) if params is not None else None)
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"gateway unreachable: {type(exc).__name__}") from exc

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
    ) -> WriteOut:
        body = _fact_body(text, namespace, source, turn, metadata, trust, derived_from)
        return _parse(WriteOut, await self._send("POST", "/v1/facts", body))

    async def write_many(self, facts: Sequence[NewFact]) -> list[WriteOut]:
        body = {"facts": [f.body() for f in facts]}
        return _parse(BatchWriteOut, await self._send("POST", "/v1/facts/batch", body)).facts

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
        return _parse(SearchOut, await self._send("POST", "/v1/search", body)).facts

    async def get(
        self, fact_id: str, *, purpose: str = "answer", turn: Turn | None = None
    ) -> FactOut:
        return _parse(FactOut, await self._send("GET", f"/v1/facts/{_id(fact_id)}",
                                                params=_read_params(purpose, turn)))

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
        return _parse(FactListOut, await self._send("GET", "/v1/facts", params=params))

    async def revoke(
        self, selector: RevocationSelector, *, reason: str, follow_context: bool = True
    ) -> RevocationOut:
        body = _revoke_body(selector, reason, follow_context)
        return _parse(RevocationOut, await self._send("POST", "/v1/revocations", body))

    async def endorse(self, fact_id: str, *, reason: str) -> EndorseOut:
        return _parse(EndorseOut, await self._send(
            "POST", f"/v1/facts/{_id(fact_id)}/endorse", {"reason": reason}))

    async def update(
        self,
        fact_id: str,
        text: str,
        *,
        source: Source,
        turn: Turn,
        metadata: Mapping[str, object] | None = None,
        trust: TrustLevel | None = None,
    ) -> WriteOut:
        body = _fact_body(text, None, source, turn, metadata, trust)
        return _parse(WriteOut, await self._send("PUT", f"/v1/facts/{_id(fact_id)}", body))

    async def delete(self, fact_id: str) -> None:
        raise_for(await self._send("DELETE", f"/v1/facts/{_id(fact_id)}"))

    async def audit(self, fact_id: str) -> AuditOut:
        return _parse(AuditOut, await self._send("GET", f"/v1/facts/{_id(fact_id)}/audit"))

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
