"""OpenTelemetry tracing: GenAI memory spans, span links from reads to writes, W3C trace context.

memguard depends on ``opentelemetry-api`` only. With no tracer provider configured (the SDK is the
``otel`` extra) nothing is created: :func:`tracing_active` is one attribute read, and a read still
fills provenance from an incoming trace context (a ``traceparent`` the gateway extracted) when
there is one. With a provider, every memory operation is one span named after its
``gen_ai.operation.name`` (:mod:`memguard.telemetry.semconv`); a write's provenance keeps the
trace and span id of the span that wrote it, and a read span carries one span link per returned
fact to that writing span, so a trace viewer goes from a bad answer to the turn that planted it.

Content (query text, record text) is captured only on opt-in: :func:`configure` or the GenAI
conventions' ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from memguard.telemetry import semconv as sc

__all__ = [
    "KEEP",
    "TelemetrySettings",
    "client_span",
    "configure",
    "current_ids",
    "error_status",
    "extract",
    "fact_link",
    "inject",
    "restore",
    "server_span",
    "settings",
    "store_span",
    "tracer",
    "tracing_active",
    "use_context",
]

_CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_PROVIDER_ENV = "OTEL_PYTHON_TRACER_PROVIDER"
#: OpenTelemetry SDKs keep at most 128 links per span by default; more are dropped, not an error
MAX_LINKS = 128


class _Keep(enum.Enum):
    KEEP = "keep"


KEEP: Final = _Keep.KEEP


@dataclass(frozen=True, slots=True)
class TelemetrySettings:
    """Process-wide telemetry options (:func:`configure`)."""

    #: record query text and record content on spans (sensitive: opt-in only)
    capture_content: bool = False
    #: ``gen_ai.memory.store.id`` on memory spans: the store's collection name
    store_id: str | None = None
    #: a tracer provider for memguard's spans instead of the global one
    tracer_provider: trace.TracerProvider | None = None
    #: a meter provider for memguard's instruments instead of the global one
    meter_provider: MeterProvider | None = None


_settings = TelemetrySettings(
    capture_content=os.environ.get(_CAPTURE_ENV, "").strip().lower() == "true"
)


def configure(
    *,
    capture_content: bool | _Keep = KEEP,
    store_id: str | _Keep | None = KEEP,
    tracer_provider: trace.TracerProvider | _Keep | None = KEEP,
    meter_provider: MeterProvider | _Keep | None = KEEP,
) -> TelemetrySettings:
    """Set memguard's telemetry options for this process; arguments not given keep their value.

    ``tracer_provider`` / ``meter_provider`` (as OpenTelemetry instrumentations take them): use
    these instead of the global providers (``None``: the global ones again). Returns the previous
    settings, so a test can put them back with :func:`restore`.
    """
    global _settings
    previous = _settings
    _settings = TelemetrySettings(
        capture_content=previous.capture_content if capture_content is KEEP else capture_content,
        store_id=previous.store_id if store_id is KEEP else store_id,
        tracer_provider=(previous.tracer_provider if tracer_provider is KEEP else tracer_provider),
        meter_provider=previous.meter_provider if meter_provider is KEEP else meter_provider,
    )
    return previous


def restore(previous: TelemetrySettings) -> None:
    """Put back settings :func:`configure` returned."""
    configure(
        capture_content=previous.capture_content,
        store_id=previous.store_id,
        tracer_provider=previous.tracer_provider,
        meter_provider=previous.meter_provider,
    )


def settings() -> TelemetrySettings:
    return _settings


def tracing_active() -> bool:
    """Is a real tracer provider installed? Cheap enough to ask on every operation.

    The API's own check (``get_tracer_provider()``) looks up an environment variable on every
    call (about 1.5 us); the module global it guards is read directly when the API has it.
    """
    if _settings.tracer_provider is not None:
        return True
    provider = getattr(trace, "_TRACER_PROVIDER", _UNKNOWN)
    if provider is None and not _PROVIDER_FROM_ENV:
        return False
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


_UNKNOWN = object()
_PROVIDER_FROM_ENV = _PROVIDER_ENV in os.environ


def tracer() -> trace.Tracer:
    """memguard's tracer (made once per provider: the global one is a proxy that follows it)."""
    global _tracer
    provider = _settings.tracer_provider
    cached = _tracer
    if cached is not None and cached[0] is provider:
        return cached[1]
    from memguard import __version__

    made = trace.get_tracer("memguard", __version__, tracer_provider=provider)
    _tracer = (provider, made)
    return made


_tracer: tuple[trace.TracerProvider | None, trace.Tracer] | None = None


def current_ids() -> tuple[str, str] | None:
    """(trace id, span id) of the current span context as W3C hex, if there is a valid one
    (a recording span, or a remote parent extracted from a ``traceparent``)."""
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return None
    return trace.format_trace_id(ctx.trace_id), trace.format_span_id(ctx.span_id)


def _hex(value: str | None, width: int) -> int | None:
    if value is None or len(value) != width:
        return None
    try:
        number = int(value, 16)
    except ValueError:
        return None
    return number or None


def fact_link(
    fact_id: str, trace_id: str | None, span_id: str | None, trust: str | None = None
) -> Link | None:
    """A span link to the span that wrote a fact (from its provenance turn), if it names one."""
    tid, sid = _hex(trace_id, 32), _hex(span_id, 16)
    if tid is None or sid is None:
        return None
    ctx = SpanContext(tid, sid, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    attributes: dict[str, str] = {sc.MG_FACT_ID: fact_id, sc.MG_LINK: "written_by"}
    if trust is not None:
        attributes[sc.MG_TRUST] = trust
    return Link(ctx, attributes)


def records_attribute(records: Sequence[Mapping[str, Any]]) -> str:
    """``gen_ai.memory.records`` as a JSON string (the conventions allow it on spans)."""
    return json.dumps(list(records), ensure_ascii=False, separators=(",", ":"), default=str)


# -- W3C trace context ---------------------------------------------------------------------------


def inject(carrier: MutableMapping[str, str]) -> None:
    """Put the current trace context into ``carrier`` (``traceparent``, ``tracestate``)."""
    propagate.inject(carrier)


def extract(carrier: Mapping[str, str]) -> otel_context.Context:
    """The trace context a request carries (a ``traceparent`` header, an MCP ``_meta``)."""
    return propagate.extract(carrier)


@contextmanager
def use_context(ctx: otel_context.Context) -> Iterator[None]:
    """Make ``ctx`` current for the block."""
    token = otel_context.attach(ctx)
    try:
        yield
    finally:
        otel_context.detach(token)


@contextmanager
def client_span(action: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Span | None]:
    """A ``CLIENT`` span for a call to the gateway (``None`` when tracing is not configured).

    The caller injects the current context into its request inside the block, so the gateway's
    spans become children of this one. A :class:`~memguard.errors.MemguardError` leaving the block
    sets ``error.type`` to its code.
    """
    if not tracing_active():
        yield None
        return
    attrs: dict[str, Any] = {sc.MG_ACTION: action}
    name = sc.operation_name(action)
    if name is not None:
        attrs[sc.GEN_AI_OPERATION_NAME] = name
    if _settings.store_id is not None:
        attrs[sc.GEN_AI_MEMORY_STORE_ID] = _settings.store_id
    attrs.update(attributes or {})
    with tracer().start_as_current_span(
        sc.span_name(action),
        kind=SpanKind.CLIENT,
        attributes=attrs,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield span
        except Exception as exc:
            code = getattr(exc, "code", None)
            error = code if isinstance(code, str) else type(exc).__qualname__
            span.set_attribute(sc.ERROR_TYPE, error)
            span.set_status(Status(StatusCode.ERROR, error))
            raise


def error_status(description: str) -> Status:
    return Status(StatusCode.ERROR, description)


@contextmanager
def server_span(name: str, attributes: Mapping[str, Any]) -> Iterator[Span | None]:
    """A ``SERVER`` span for one gateway request, child of the current (extracted) context;
    ``None`` when tracing is not configured. Exceptions are left to the caller to describe."""
    if not tracing_active():
        yield None
        return
    with tracer().start_as_current_span(
        name,
        kind=SpanKind.SERVER,
        attributes=dict(attributes),
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        yield span


@contextmanager
def store_span(operation: str, store_id: str) -> Iterator[None]:
    """A span for a memory-store lifecycle operation (``create_memory_store``,
    ``delete_memory_store``) on the store named ``store_id``; nothing when not configured."""
    if not tracing_active():
        yield
        return
    attrs = {sc.GEN_AI_OPERATION_NAME: operation, sc.GEN_AI_MEMORY_STORE_ID: store_id}
    with tracer().start_as_current_span(
        operation,
        kind=SpanKind.CLIENT,
        attributes=attrs,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield
        except Exception as exc:
            span.set_attribute(sc.ERROR_TYPE, type(exc).__qualname__)
            span.set_status(Status(StatusCode.ERROR, type(exc).__qualname__))
            raise
