"""A Python client for the memguard gateway over HTTP (httpx), sync and async.

The client sends the agent's token in ``Authorization: Bearer`` and its workload credential in
``Workload-Identity-Token``; it never puts a credential in a URL. Refusals come back as the same
typed errors the in-process guard raises (the gateway's error ``code`` picks the class)::

    401 -> IdentityError   403 -> AccessDenied   404 -> FactNotFound   400/422 -> InvalidRequest
    409 -> Conflict        429 -> RateLimited    503 -> StoreError / LedgerError / Overloaded
    504 -> GatewayTimeout  other -> MemguardError("internal")   transport failures -> GatewayUnavailable

Retries (:class:`~memguard.client.retry.RetryPolicy`, with tenacity): 429, 503 and connection failures are retried with
exponential backoff and jitter, waiting what ``Retry-After`` says when the gateway says it, within
an overall deadline. A request the gateway may have executed (a timeout, a dropped connection, a
504, a 503 from the store or ledger) is retried only when repeating it is harmless: reads, and
writes, because every write carries an ``Idempotency-Key`` (one per call, the same on every try)
that the gateway uses to store it once and answer a retry with the first result. Revocations and
endorsements are retried only when they were certainly not executed.

Only a 2xx is a success (a redirect is never followed: the credentials stay with the gateway, and
a 3xx is an ``internal`` error); an answer larger than ``max_response_bytes`` (32 MiB by default)
is refused without being read whole.

Every call is an OpenTelemetry ``CLIENT`` span when a tracer provider is configured, and the
current trace context goes out as ``traceparent``.

Results are the gateway's response models: each fact carries its provenance (trust, source, writer
chain, fact id) and a one-line ``summary`` an agent harness can show next to the text.
"""

from memguard.client.aio import AsyncMemguardClient
from memguard.client.calls import NewFact
from memguard.client.errors import (
    Conflict,
    GatewayTimeout,
    GatewayUnavailable,
    Overloaded,
    RateLimited,
    raise_for,
)
from memguard.client.retry import RetryPolicy
from memguard.client.sync import MemguardClient
from memguard.gateway.schemas import EndorseOut, FactListOut, FactOut, RevocationOut, WriteOut

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
    "raise_for",
]
