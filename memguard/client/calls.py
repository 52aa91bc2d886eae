"""The gateway calls, built once for the sync and the async client.

Each function returns a :class:`Call`: its HTTP request, whether repeating it is harmless by
itself (reads; ``PUT`` and ``DELETE``, idempotent by method), its ``Idempotency-Key`` (every write
carries one, one per call unless the caller gives one, the same on every try: a ``POST`` write is
repeated only when the gateway said it honours keys, see :meth:`Session.may_repeat`; revocations
and endorsements carry none and are not repeated once they may have run), and its span attributes
(content only when the tracing settings capture it). :class:`Session` holds the credentials, turns
a call into its request headers and remembers what the gateway said of keys.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from memguard.client.body import ACCEPT_ENCODING
from memguard.client.errors import raise_for
from memguard.errors import InvalidRequest, MemguardError
from memguard.provenance import Source, Turn
from memguard.revocation import RevocationSelector
from memguard.telemetry import semconv as sc
from memguard.telemetry import tracing
from memguard.trust import TrustLevel

__all__ = ["Call", "NewFact", "Session", "parse"]

WORKLOAD_HEADER = "Workload-Identity-Token"
IDEMPOTENCY_HEADER = "Idempotency-Key"
#: the gateway's answer: whether it honours ``Idempotency-Key`` (memguard/gateway/idempotency.py)
HONORED_HEADER = "Idempotency-Key-Honored"
_M = TypeVar("_M", bound=BaseModel)
Params = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Call:
    """One logical call: its HTTP request, whether repeating it is harmless whatever the gateway
    does with keys (``idempotent``), its ``Idempotency-Key``, its span."""

    action: str
    method: str
    path: str
    json: object = None
    params: Params | None = None
    idempotent: bool = True
    key: str | None = None
    span: Mapping[str, Any] | None = None


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
        return _fact_body(
            self.text,
            self.namespace,
            self.source,
            self.turn,
            self.metadata,
            self.trust,
            self.derived_from,
        )


class Session:
    """The credentials a client sends: ``Authorization: Bearer`` and the workload credential
    header, never in a URL."""

    def __init__(self, token: str, workload_credential: str | None) -> None:
        self.set_credentials(token, workload_credential)
        #: what the gateway's latest answer said of ``Idempotency-Key`` (None: nothing yet)
        self.keys_honored: bool | None = None

    def heard(self, response: httpx.Response) -> None:
        """Remember what an answer says of keys: ``true`` honoured, anything else not; an answer
        without the header (a proxy's, an older gateway's) changes nothing."""
        said = response.headers.get(HONORED_HEADER)
        if said is not None:
            self.keys_honored = said.strip().lower() == "true"

    def may_repeat(self, call: Call) -> bool:
        """Whether ``call`` may be sent again once it may have run: when it is idempotent by
        itself, or it carries a key and the gateway said, on an earlier answer, that it honours
        keys (else a write whose answer was lost could be stored twice)."""
        return call.idempotent or (call.key is not None and self.keys_honored is True)

    def set_credentials(self, token: str, workload_credential: str | None = None) -> None:
        """Use another token (and workload credential) from now on, e.g. after an exchange."""
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json",
            "Accept-Encoding": ACCEPT_ENCODING,  # what it decodes within max_response_bytes
        }
        if workload_credential is not None:
            headers[WORKLOAD_HEADER] = workload_credential
        self._headers = headers

    def headers_for(self, call: Call) -> dict[str, str]:
        headers = dict(self._headers)
        if call.key is not None:
            headers[IDEMPOTENCY_HEADER] = call.key
        tracing.inject(headers)  # the caller's trace continues in the gateway
        return headers


def parse(model: type[_M], response: httpx.Response) -> _M:
    """The response as ``model``; a refusal as its typed error; anything else is internal."""
    raise_for(response)
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise MemguardError("unexpected gateway response", code="internal") from exc


#: the largest gateway answer a client reads, in bytes (decoded): a page of facts is far below;
#: a larger answer (a broken or hostile server, a proxy's page) is refused before it fills memory
MAX_RESPONSE_BYTES = 32 * 2**20


def timeout(value: float | httpx.Timeout) -> httpx.Timeout:
    return value if isinstance(value, httpx.Timeout) else httpx.Timeout(value)


def write(
    text: str,
    namespace: str,
    source: Source,
    turn: Turn,
    metadata: Mapping[str, object] | None,
    trust: TrustLevel | None,
    derived_from: Sequence[str],
    idempotency_key: str | None,
) -> Call:
    body = _fact_body(text, namespace, source, turn, metadata, trust, derived_from)
    span = _span_attrs(texts=[text], count=1)
    key = _key(idempotency_key)
    return Call("write", "POST", "/v1/facts", body, idempotent=False, key=key, span=span)


def write_many(facts: Sequence[NewFact], idempotency_key: str | None) -> Call:
    body = {"facts": [f.body() for f in facts]}
    span = _span_attrs(texts=[f.text for f in facts], count=len(facts))
    key = _key(idempotency_key)
    return Call("write", "POST", "/v1/facts/batch", body, idempotent=False, key=key, span=span)


def search(
    query: str,
    k: int,
    namespaces: Sequence[str] | None,
    min_trust: TrustLevel | None,
    purpose: str,
    trace_id: str | None,
    turn: Turn | None,
) -> Call:
    body: dict[str, object] = {"query": query, "k": k, "purpose": purpose}
    if namespaces is not None:
        body["namespaces"] = list(namespaces)
    if min_trust is not None:
        body["min_trust"] = min_trust.label
    if trace_id is not None:
        body["trace_id"] = trace_id
    if turn is not None:
        body["turn"] = turn.model_dump(mode="json", exclude_none=True)
    return Call("search", "POST", "/v1/search", body, span=_span_attrs(query=query))


def get(fact_id: str, purpose: str, turn: Turn | None) -> Call:
    params = _read_params(purpose, turn)
    span = _span_attrs(fact_id=fact_id)
    return Call("get", "GET", f"/v1/facts/{_id(fact_id)}", params=params, span=span)


def list_facts(
    namespaces: Sequence[str] | None,
    min_trust: TrustLevel | None,
    limit: int,
    cursor: str | None,
    purpose: str,
    turn: Turn | None,
) -> Call:
    if isinstance(namespaces, str):
        raise InvalidRequest("`namespaces` must be a list of names")
    params = [("namespace", n) for n in namespaces or ()]
    params.append(("limit", str(limit)))
    if min_trust is not None:
        params.append(("min_trust", min_trust.label))
    if cursor is not None:
        params.append(("cursor", cursor))
    return Call("list", "GET", "/v1/facts", params=params + _read_params(purpose, turn))


def revoke(selector: RevocationSelector, reason: str, follow_context: bool) -> Call:
    body = {
        "selector": selector.model_dump(mode="json", exclude_none=True),
        "reason": reason,
        "follow_context": follow_context,
    }
    return Call("revoke", "POST", "/v1/revocations", body, idempotent=False)


def endorse(fact_id: str, reason: str) -> Call:
    path = f"/v1/facts/{_id(fact_id)}/endorse"
    return Call("endorse", "POST", path, {"reason": reason}, idempotent=False)


def update(
    fact_id: str,
    text: str,
    source: Source,
    turn: Turn,
    metadata: Mapping[str, object] | None,
    trust: TrustLevel | None,
    idempotency_key: str | None,
) -> Call:
    body = _fact_body(text, None, source, turn, metadata, trust)
    span = _span_attrs(texts=[text], fact_id=fact_id, count=1)
    path = f"/v1/facts/{_id(fact_id)}"
    return Call("update", "PUT", path, body, key=_key(idempotency_key), span=span)


def delete(fact_id: str, idempotency_key: str | None) -> Call:
    path = f"/v1/facts/{_id(fact_id)}"
    span = _span_attrs(fact_id=fact_id)
    return Call("delete", "DELETE", path, key=_key(idempotency_key), span=span)


def audit(fact_id: str) -> Call:
    return Call("audit", "GET", f"/v1/facts/{_id(fact_id)}/audit")


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


def _read_params(purpose: str, turn: Turn | None) -> list[tuple[str, str]]:
    """Query parameters of a read: its purpose and, if given, its turn (the read taints it)."""
    params = [("purpose", purpose)]
    if turn is not None:
        params += [("session_id", turn.session_id), ("turn_index", str(turn.turn_index))]
    return params


def _key(given: str | None) -> str:
    return given if given is not None else uuid.uuid4().hex


def _span_attrs(
    query: str | None = None,
    texts: Sequence[str] = (),
    fact_id: str | None = None,
    count: int | None = None,
) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if fact_id is not None:
        attrs[sc.GEN_AI_MEMORY_RECORD_ID] = fact_id
    if count is not None:
        attrs[sc.GEN_AI_MEMORY_RECORD_COUNT] = count
    if tracing.settings().capture_content:  # opt-in: content is sensitive
        if query is not None:
            attrs[sc.GEN_AI_MEMORY_QUERY_TEXT] = query
        if texts:
            records = [{"content": t} for t in texts]
            attrs[sc.GEN_AI_MEMORY_RECORDS] = tracing.records_attribute(records)
    return attrs


def _id(fact_id: str) -> str:
    """A fact id goes into the path as is only if it is a plain UUID-like string."""
    if not fact_id or not all(c.isalnum() or c == "-" for c in fact_id) or len(fact_id) > 64:
        raise InvalidRequest("invalid fact id")
    return fact_id
