"""When and how the client sends a call again (tenacity).

429, 503 and connection failures are retried with exponential backoff and full jitter, or after
what ``Retry-After`` says (capped at ``max_wait``), within an overall deadline. A call the gateway
may have executed (a timeout, a dropped connection, a 504, a 503 from the store or ledger) is
retried only when repeating it is harmless (``may_repeat``: reads, ``PUT`` and ``DELETE``, which
are idempotent by method, and a ``POST`` write, which carries an ``Idempotency-Key``, once the
gateway said on an earlier answer that it honours keys: ``Idempotency-Key-Honored: true``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_random_exponential,
)

from memguard.client.errors import GatewayUnavailable
from memguard.errors import BackendError, MemguardError

__all__ = ["RetryPolicy", "retry_args", "retryable"]


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


#: Refusals that say the request was not executed: any call may be sent again.
_NOT_EXECUTED = frozenset(
    {"limits.rate_limited", "limits.overloaded", "limits.unavailable", "idempotency.in_progress"}
)


def retryable(exc: BaseException, idempotent: bool) -> bool:
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


def retry_args(policy: RetryPolicy, may_repeat: Callable[[], bool]) -> dict[str, Any]:
    """Keyword arguments of ``tenacity.Retrying`` / ``AsyncRetrying`` for one call;
    ``may_repeat`` is asked at each retry (what the gateway said of keys may have changed)."""
    return {
        "retry": retry_if_exception(lambda exc: retryable(exc, may_repeat())),
        "wait": _waiter(policy),
        "stop": stop_after_attempt(policy.attempts) | stop_before_delay(policy.deadline),
        "reraise": True,
    }
