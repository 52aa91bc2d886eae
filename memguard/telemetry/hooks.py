"""Where the kernel reports to telemetry: five calls, each a line in ``memguard/kernel.py``,
``memguard/operation.py`` or ``memguard/stamp.py``.

* :func:`observe` when an operation starts, and :meth:`Watch.close` when it ends (its span, its
  duration, its decision counted once);
* :func:`decided` from the kernel's decision emission (every allow, deny and alarm event);
* :func:`stamp_turn` while stamping: a write whose caller named no trace keeps the current one;
* :func:`stamped` with the provenance records a write is about to stage;
* :func:`returned` with the facts a read verified (for the span links to their writers).

None of them raises: telemetry never changes a decision (an error inside is dropped, the
operation goes on). A gateway request may also register a :class:`RequestObserver` (its access
log line, its idempotency record) with :func:`observing`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from memguard.telemetry import metrics, tracing
from memguard.telemetry import semconv as sc

if TYPE_CHECKING:
    from memguard.events import AuditEvent
    from memguard.kernel import Operation, VerifiedFact
    from memguard.provenance import Provenance, Turn

__all__ = [
    "RequestObserver",
    "Watch",
    "current_observer",
    "decided",
    "observe",
    "observing",
    "returned",
    "stamp_turn",
    "stamped",
]


class RequestObserver(Protocol):
    """Told about the operations of one request (a gateway request's access log, idempotency)."""

    def on_start(self, op: Operation) -> None: ...

    def on_decision(self, event: AuditEvent) -> None: ...

    def on_stamped(self, op: Operation, records: Sequence[Provenance]) -> None: ...


_watch: ContextVar[Watch | None] = ContextVar("memguard_watch", default=None)
_observer: ContextVar[RequestObserver | None] = ContextVar("memguard_observer", default=None)


def current_observer() -> RequestObserver | None:
    return _observer.get()


@contextmanager
def observing(observer: RequestObserver) -> Iterator[RequestObserver]:
    """Report the operations run in this context (and threads it starts) to ``observer``."""
    token = _observer.set(observer)
    try:
        yield observer
    finally:
        _observer.reset(token)


class Watch:
    """One operation as telemetry sees it."""

    __slots__ = (
        "_span",
        "_started",
        "_token",
        "_watch_token",
        "action",
        "allowed",
        "decision",
        "policy_digest",
        "read",
        "reason",
        "records",
    )

    def __init__(self, op: Operation) -> None:
        self.action = op.action
        self._started = time.perf_counter()
        self.decision: str | None = None
        self.allowed: AuditEvent | None = None
        self.reason: str | None = None
        self.policy_digest: str | None = None
        self.records: list[Provenance] = []
        self.read: dict[str, VerifiedFact] = {}
        self._span: trace.Span | None = None
        self._token: object | None = None
        if op.trace_id is None:  # the audit event names the caller's trace, if it runs in one
            ids = tracing.current_ids()
            if ids is not None:
                op.trace_id = ids[0]
        if tracing.tracing_active():
            attrs: dict[str, Any] = {sc.MG_ACTION: op.action}
            name = sc.operation_name(op.action)
            if name is not None:
                attrs[sc.GEN_AI_OPERATION_NAME] = name
            settings = tracing.settings()
            if settings.store_id is not None:
                attrs[sc.GEN_AI_MEMORY_STORE_ID] = settings.store_id
            if op.purpose is not None:
                attrs[sc.MG_PURPOSE] = op.purpose
            session = getattr(op.turn, "session_id", None)
            if isinstance(session, str):
                attrs[sc.GEN_AI_CONVERSATION_ID] = session
            if len(op.fact_ids) == 1:
                attrs[sc.GEN_AI_MEMORY_RECORD_ID] = op.fact_ids[0]
            self._span = tracing.tracer().start_span(
                sc.span_name(op.action), kind=SpanKind.INTERNAL, attributes=attrs
            )
            self._token = otel_context.attach(trace.set_span_in_context(self._span))
        self._watch_token = _watch.set(self)

    # -- what the kernel reports ------------------------------------------------------------------

    def decided(self, event: AuditEvent) -> None:
        decision = event.decision.value
        if decision == "alarm":
            metrics.record("memguard.decisions", 1.0, event.action, decision, event.reason)
            if self._span is not None:
                self._span.add_event(
                    sc.MG_ALARM,
                    {sc.MG_REASON: event.reason, sc.MG_FACT_ID: list(event.fact_ids)[:16]},
                )
            return
        self.decision, self.reason = decision, event.reason
        self.allowed = event if decision == "allow" else None
        self.policy_digest = event.policy_digest or self.policy_digest
        span = self._span
        if span is None:
            return
        span.set_attribute(sc.MG_DECISION, decision)
        span.set_attribute(sc.MG_REASON, event.reason)
        _agent_attributes(span, event)
        if event.policy_digest:
            span.set_attribute(sc.MG_POLICY_DIGEST, event.policy_digest)
        if decision == "deny":
            span.set_attribute(sc.ERROR_TYPE, event.reason)
            span.set_status(Status(StatusCode.ERROR, event.reason))
            return
        if self.action in sc.READ_ACTIONS:
            self._link_writers(span, event.fact_ids)
        elif self.action in sc.WRITE_ACTIONS and self.records:
            span.set_attribute(sc.GEN_AI_MEMORY_RECORD_COUNT, len(self.records))
            if len(self.records) == 1:
                span.set_attribute(sc.GEN_AI_MEMORY_RECORD_ID, self.records[0].fact_id)
            span.set_attribute(sc.MG_TRUST, min(p.trust for p in self.records).label)
        elif self.action == "delete":
            span.set_attribute(sc.GEN_AI_MEMORY_RECORD_COUNT, len(event.fact_ids))

    def _link_writers(self, span: trace.Span, fact_ids: Sequence[str]) -> None:
        returned = [self.read[f] for f in dict.fromkeys(fact_ids) if f in self.read]
        span.set_attribute(sc.GEN_AI_MEMORY_RECORD_COUNT, len(returned))
        if not returned:
            return
        span.set_attribute(sc.MG_TRUST, min(f.provenance.trust for f in returned).label)
        for fact in returned[: tracing.MAX_LINKS]:
            turn = fact.provenance.turn
            link = tracing.fact_link(
                fact.fact_id, turn.trace_id, turn.span_id, fact.provenance.trust.label
            )
            if link is not None:
                span.add_link(link.context, link.attributes)
        if tracing.settings().capture_content:
            records = []
            for fact in returned:
                payload = fact.candidate.payload or {}
                record: dict[str, Any] = {"id": fact.fact_id, "content": payload.get("text")}
                if fact.score is not None:
                    record["score"] = fact.score
                records.append(record)
            span.set_attribute(sc.GEN_AI_MEMORY_RECORDS, tracing.records_attribute(records))

    def close(self) -> None:
        """The operation ended: its duration and its decision are counted, its span ends.
        Never raises: it runs in the kernel's ``finally``, after the decision was recorded."""
        try:
            _watch.reset(self._watch_token)
        except Exception:  # closed in another context than it was opened in
            _watch.set(None)
        try:
            self._count()
        except Exception:
            pass
        if self._span is not None:
            try:
                if self._token is not None:
                    otel_context.detach(self._token)  # type: ignore[arg-type]
                self._span.end()
            except Exception:
                pass

    def _count(self) -> None:
        decision = self.decision or "allow"  # an operation that ends quietly (authenticate)
        metrics.record(
            "memguard.operation.duration",
            time.perf_counter() - self._started,
            self.action,
            decision,
        )
        if self.decision is None:
            return
        metrics.record("memguard.decisions", 1.0, self.action, self.decision, self.reason)
        if self.decision == "deny":
            metrics.record("memguard.denies", 1.0, self.action, self.reason)
            return
        for prov in self.records:
            metrics.record("memguard.writes", 1.0, prov.source.kind.value, prov.trust.label)
        if self.allowed is not None:
            _lineage_counts(self.allowed)


def observe(op: Operation) -> Watch | _NullWatch:
    """Start watching ``op`` (its span becomes current until :meth:`Watch.close`)."""
    try:
        watch: Watch | _NullWatch = Watch(op)
    except Exception:  # telemetry never stops an operation
        watch = _NULL
    observer = _observer.get()
    if observer is not None:
        try:
            observer.on_start(op)
        except Exception:
            pass
    return watch


class _NullWatch:
    def close(self) -> None:
        pass


_NULL = _NullWatch()


def _agent_attributes(span: trace.Span, event: AuditEvent) -> None:
    """The agent-auth record's identity fields on the decision span (memguard/agentauth.py):
    the acting agent, the chain's depth, the transaction; the subject only as a digest."""
    from memguard.agentauth import agent_auth_record

    record = agent_auth_record(event)
    if record["agent"] is not None:
        span.set_attribute(sc.GEN_AI_AGENT_ID, record["agent"])
    span.set_attribute(sc.MG_DELEGATION_DEPTH, len(record["delegation_chain"]))
    if record["transaction_id"] is not None:
        span.set_attribute(sc.MG_TRANSACTION_ID, str(record["transaction_id"]))
    subject = record["delegated_subject"]
    if subject is not None:
        qualified = f"{subject['iss']}\x00{subject['sub']}".encode()
        span.set_attribute(sc.MG_PRINCIPAL_DIGEST, hashlib.sha256(qualified).hexdigest())


def decided(event: AuditEvent) -> None:
    """A decision the kernel emitted (allow, deny or alarm)."""
    try:
        watch = _watch.get()
        if watch is not None:
            watch.decided(event)
        else:
            decision = event.decision.value
            metrics.record("memguard.decisions", 1.0, event.action, decision, event.reason)
            if decision == "deny":
                metrics.record("memguard.denies", 1.0, event.action, event.reason)
            elif decision == "allow":
                _lineage_counts(event)
        observer = _observer.get()
        if observer is not None:
            observer.on_decision(event)
    except Exception:
        pass


def _lineage_counts(event: AuditEvent) -> None:
    if event.action == "revoke" and event.reason == "revoked":
        metrics.record("memguard.revocations")
        if event.fact_ids:
            metrics.record("memguard.quarantined", float(len(event.fact_ids)))
    elif event.action == "endorse" and event.reason == "endorsed" and event.fact_ids:
        metrics.record("memguard.quarantine.lifted", float(len(event.fact_ids)))


def stamp_turn(turn: Turn) -> Turn:
    """``turn``, with the current trace and span id when its caller named neither."""
    try:
        if turn.span_id is not None:
            return turn
        ids = tracing.current_ids()
        if ids is None:
            return turn
        if turn.trace_id is None:
            return turn.model_copy(update={"trace_id": ids[0], "span_id": ids[1]})
        if turn.trace_id == ids[0]:
            return turn.model_copy(update={"span_id": ids[1]})
        return turn
    except Exception:
        return turn


def stamped(op: Operation, records: list[Provenance]) -> list[Provenance]:
    """The records a write stamped (returned unchanged). A request observer may refuse them:
    its :class:`~memguard.errors.MemguardError` is the operation's refusal (idempotency)."""
    watch = _watch.get()
    if watch is not None:
        watch.records = list(records)
    observer = _observer.get()
    if observer is not None:
        observer.on_stamped(op, records)  # may raise: a refusal the kernel records
    return records


def returned(facts: Sequence[VerifiedFact]) -> None:
    """Facts a read verified (some may still be cut from what the caller gets)."""
    try:
        watch = _watch.get()
        if watch is not None and watch._span is not None:
            for fact in facts:
                watch.read[fact.fact_id] = fact
    except Exception:
        pass
