"""OpenTelemetry SDK providers with in-memory exporters, handed to memguard (not made global)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from memguard import telemetry


@dataclass
class Telemetry:
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if name is None or s.name == name]

    def one(self, name: str, wait: float = 5.0) -> ReadableSpan:
        """The one finished span named ``name``. A server span ends after the response was sent,
        so the client can see the response first: wait up to ``wait`` seconds for it."""
        deadline = time.monotonic() + wait
        found = self.spans(name)
        while not found and time.monotonic() < deadline:
            time.sleep(0.02)
            found = self.spans(name)
        assert len(found) == 1, f"{len(found)} spans named {name}: {[s.name for s in self.spans()]}"
        return found[0]

    def points(self, metric: str) -> list[tuple[dict[str, Any], Any]]:
        """(attributes, data point) of every data point of ``metric`` collected now."""
        data = self.reader.get_metrics_data()
        out: list[tuple[dict[str, Any], Any]] = []
        if data is None:
            return out
        for rm in data.resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name == metric:
                        out.extend((dict(p.attributes or {}), p) for p in m.data.data_points)
        return out

    def total(self, metric: str, **attrs: Any) -> float:
        """Sum of a counter's points whose attributes include ``attrs``."""
        return sum(p.value for a, p in self.points(metric)
                   if all(a.get(k) == v for k, v in attrs.items()))


@contextmanager
def in_memory_telemetry(**options: Any) -> Iterator[Telemetry]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    previous = telemetry.configure(tracer_provider=tracer_provider, meter_provider=meter_provider,
                                   **options)
    try:
        yield Telemetry(exporter, reader, tracer_provider)
    finally:
        telemetry.restore(previous)
        tracer_provider.shutdown()
        meter_provider.shutdown()
