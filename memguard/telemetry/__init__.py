"""memguard's telemetry: OpenTelemetry spans and metrics, and the gateway's Prometheus metrics.

* :mod:`.tracing` -- GenAI memory spans, span links from a read to the writes that planted what it
  returned, W3C trace context for the gateway, the client and MCP;
* :mod:`.metrics` -- every instrument defined once, recorded to OpenTelemetry and (gateway) to
  Prometheus, plus ledger-wide gauges read at scrape time;
* :mod:`.hooks` -- the few calls the kernel makes.

Nothing is recorded or exported until the host installs an OpenTelemetry SDK provider (the
``otel`` extra) or the gateway enables Prometheus.
"""

from __future__ import annotations

from memguard.telemetry.metrics import record_scanner_verdict
from memguard.telemetry.tracing import TelemetrySettings, configure, restore, settings

__all__ = ["TelemetrySettings", "configure", "record_scanner_verdict", "restore", "settings"]
