"""memguard's metrics, defined once and recorded to OpenTelemetry and, in the gateway, Prometheus.

Every instrument is one :class:`Spec` below. The library records through the OpenTelemetry
metrics API (a no-op until the host installs a ``MeterProvider``); a gateway process also enables
:func:`enable_prometheus`, which records the same measurements into ``prometheus_client``
instruments (multi-process mode when ``PROMETHEUS_MULTIPROC_DIR`` is set: one file per worker,
summed at scrape time). Ledger-wide gauges (audit-log queue depth, checkpoint age, verification,
quarantined facts, active revocations) are read from the ledger when scraped
(:class:`LedgerGauges`), never kept per process.

Label values are bounded: actions, decisions, reason codes, source kinds and trust levels; never
principals, fact ids or text.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from opentelemetry import metrics as otel_metrics
from opentelemetry.metrics import _internal as _metrics_internal

from memguard.telemetry import tracing

if TYPE_CHECKING:
    from memguard.ledger import Ledger

__all__ = [
    "GAUGES",
    "SPECS",
    "LedgerGauges",
    "LedgerSnapshot",
    "Spec",
    "enable_prometheus",
    "observe_ledger",
    "prometheus_enabled",
    "record",
    "record_scanner_verdict",
]

_UNKNOWN = object()
_PROVIDER_FROM_ENV = "OTEL_PYTHON_METER_PROVIDER" in os.environ
_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True, slots=True)
class Spec:
    """One instrument: its OpenTelemetry name, its Prometheus name and its labels."""

    otel: str
    prom: str
    kind: Literal["counter", "histogram"]
    description: str
    labels: tuple[str, ...]
    unit: str = "1"
    buckets: tuple[float, ...] = _LATENCY


SPECS: dict[str, Spec] = {
    s.otel: s
    for s in (
        Spec(
            "memguard.decisions",
            "memguard_decisions",
            "counter",
            "Security decisions (allow, deny, alarm) by action and reason code.",
            ("action", "decision", "reason"),
        ),
        Spec(
            "memguard.denies",
            "memguard_denies",
            "counter",
            "Refusals by action and reason code (also counted in memguard.decisions).",
            ("action", "reason"),
        ),
        Spec(
            "memguard.operation.duration",
            "memguard_operation_duration_seconds",
            "histogram",
            "Duration of a memory operation, from identity check to recorded decision.",
            ("action", "decision"),
            unit="s",
        ),
        Spec(
            "memguard.writes",
            "memguard_writes",
            "counter",
            "Facts written, by channel (source kind) and the trust memguard assigned: the trust mix "
            "of new memory.",
            ("source_kind", "trust"),
        ),
        Spec(
            "memguard.quarantined",
            "memguard_quarantined_facts",
            "counter",
            "Facts put in quarantine by revocations (their rate is the quarantine rate).",
            (),
        ),
        Spec(
            "memguard.quarantine.lifted",
            "memguard_quarantine_lifted",
            "counter",
            "Facts whose quarantine an endorsement lifted.",
            (),
        ),
        Spec("memguard.revocations", "memguard_revocations", "counter", "Revocations made.", ()),
        Spec(
            "memguard.scanner.verdicts",
            "memguard_scanner_verdicts",
            "counter",
            "Content-scanner verdicts on new writes, by scanner and verdict.",
            ("scanner", "verdict"),
        ),
        Spec(
            "memguard.http.requests",
            "memguard_http_requests",
            "counter",
            "Gateway requests by route, method and status.",
            ("route", "method", "status"),
        ),
        Spec(
            "http.server.request.duration",
            "memguard_http_request_duration_seconds",
            "histogram",
            "Gateway request duration by route and method.",
            ("route", "method"),
            unit="s",
        ),
        Spec(
            "memguard.idempotency",
            "memguard_idempotency",
            "counter",
            "Writes with an Idempotency-Key, by outcome (first, replayed, conflict, in_progress).",
            ("outcome",),
        ),
        Spec(
            "memguard.rate_limit.storage_errors",
            "memguard_rate_limit_storage_errors",
            "counter",
            "Rate-limit checks whose shared storage (Redis) failed.",
            ("failure_mode",),
        ),
    )
}

#: OpenTelemetry attribute names of the labels (the conventions' names where there is one)
_OTEL_LABEL = {
    "route": "http.route",
    "method": "http.request.method",
    "status": "http.response.status_code",
    "action": "memguard.action",
    "decision": "memguard.decision",
    "reason": "memguard.reason",
    "source_kind": "memguard.source_kind",
    "trust": "memguard.trust",
    "scanner": "memguard.scanner",
    "verdict": "memguard.verdict",
    "outcome": "memguard.outcome",
    "failure_mode": "memguard.failure_mode",
}
_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.:/{}\- ]")


def _label(value: object) -> str:
    """A bounded label value: at most 96 plain characters."""
    text = str(value)[:96]
    return _LABEL_VALUE.sub("_", text)


class _Otel:
    """Instruments from the global meter provider (proxies until the host installs one)."""

    def __init__(self) -> None:
        from memguard import __version__

        meter = otel_metrics.get_meter(
            "memguard", __version__, meter_provider=tracing.settings().meter_provider
        )
        self.instruments: dict[str, Any] = {}
        for spec in SPECS.values():
            if spec.kind == "counter":
                self.instruments[spec.otel] = meter.create_counter(
                    spec.otel, unit=spec.unit, description=spec.description
                )
            else:
                self.instruments[spec.otel] = meter.create_histogram(
                    spec.otel,
                    unit=spec.unit,
                    description=spec.description,
                    explicit_bucket_boundaries_advisory=list(spec.buckets),
                )

    def record(self, spec: Spec, value: float, labels: Sequence[str]) -> None:
        attrs = {_OTEL_LABEL[k]: v for k, v in zip(spec.labels, labels, strict=True)}
        if "http.response.status_code" in attrs:
            attrs["http.response.status_code"] = int(attrs["http.response.status_code"])  # type: ignore[assignment]
        instrument = self.instruments[spec.otel]
        if spec.kind == "counter":
            instrument.add(value, attrs)
        else:
            instrument.record(value, attrs)


class _Prometheus:
    """``prometheus_client`` instruments (registered in ``registry`` unless multi-process)."""

    def __init__(self, registry: Any) -> None:
        from prometheus_client import Counter, Histogram

        self.instruments: dict[str, Any] = {}
        for spec in SPECS.values():
            if spec.kind == "counter":
                self.instruments[spec.otel] = Counter(
                    spec.prom, spec.description, spec.labels, registry=registry
                )
            else:
                self.instruments[spec.otel] = Histogram(
                    spec.prom,
                    spec.description,
                    spec.labels,
                    registry=registry,
                    buckets=spec.buckets,
                )

    def record(self, spec: Spec, value: float, labels: Sequence[str]) -> None:
        child = (
            self.instruments[spec.otel].labels(*labels)
            if spec.labels
            else (self.instruments[spec.otel])
        )
        if spec.kind == "counter":
            child.inc(value)
        else:
            child.observe(value)


_lock = threading.Lock()
#: instruments per meter provider (``None``: the global one, whose proxies follow it)
_otel: dict[int | None, tuple[object, _Otel]] = {}
_prometheus: _Prometheus | None = None


def _otel_sink() -> _Otel:
    provider = tracing.settings().meter_provider
    key = None if provider is None else id(provider)
    found = _otel.get(key)
    if found is not None and found[0] is provider:
        return found[1]
    with _lock:
        made = _Otel()
        _otel[key] = (provider, made)
        while len(_otel) > 8:  # a few providers over a process's life (tests make many)
            del _otel[next(k for k in _otel if k is not None and k != key)]
        return made


def enable_prometheus(registry: Any = None) -> None:
    """Record into ``prometheus_client`` instruments too (once per process).

    ``registry``: where a single process registers them (its ``/metrics`` collects that
    registry); ignored in multi-process mode (``PROMETHEUS_MULTIPROC_DIR``), where each process
    writes its own files and the scraping process sums them.
    """
    global _prometheus
    with _lock:
        if _prometheus is not None:
            return
        multiprocess = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
        _prometheus = _Prometheus(None if multiprocess else registry)


def prometheus_enabled() -> bool:
    return _prometheus is not None


def _otel_active() -> bool:
    """Is a meter provider installed? (One attribute read, as for tracing: the API's own check
    looks up an environment variable on every call.)"""
    if tracing.settings().meter_provider is not None:
        return True
    provider = getattr(_metrics_internal, "_METER_PROVIDER", _UNKNOWN)
    if provider is None and not _PROVIDER_FROM_ENV:
        return False
    return type(otel_metrics.get_meter_provider()).__name__ != "_ProxyMeterProvider"


def record(name: str, value: float = 1.0, *labels: object) -> None:
    """Record ``value`` on instrument ``name`` (an OpenTelemetry name from :data:`SPECS`);
    nothing at all while neither a meter provider nor Prometheus is set up."""
    otel = _otel_active()
    if not otel and _prometheus is None:
        return
    spec = SPECS[name]
    values = [_label(v) for v in labels]
    try:
        if otel:
            _otel_sink().record(spec, value, values)
        if _prometheus is not None:
            _prometheus.record(spec, value, values)
    except Exception:  # telemetry never flips a decision or fails an operation
        pass


def record_scanner_verdict(scanner: str, verdict: str) -> None:
    """Count one content-scanner verdict (``clean``, ``suspicious``, ``malicious``, ``error``...).

    For the write pipeline's scanner stage: call it once per scanned fact.
    """
    record("memguard.scanner.verdicts", 1.0, scanner, verdict)


# -- ledger-wide gauges ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedgerSnapshot:
    """Ledger-wide values at one moment (``None``: could not be read)."""

    queue_depth: int | None
    checkpoint_age: float | None
    quarantined: int | None
    revocations_active: int | None
    verify_ok: bool | None
    verify_at: float | None
    verify_seconds: float | None


@dataclass
class LedgerGauges:
    """Reads the gauges from a ledger; verification runs at most every ``verify_interval`` s.

    A full ``ledger verify`` recomputes the whole log, so it runs in a background thread on its
    own schedule and the scrape reports the last result; any error in it reports ``ok = 0``.
    ``verify_interval = 0`` never verifies (the gauge is absent).
    """

    ledger: Ledger
    verify_interval: float = 300.0
    verify: Callable[[], bool] | None = None
    clock: Callable[[], float] = time.time
    _verify_ok: bool | None = None
    _verify_at: float | None = None
    _verify_seconds: float | None = None
    _thread: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        """Start the verification thread (no-op when ``verify_interval`` is 0)."""
        if self.verify_interval <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="memguard-verify", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_verify()
            self._stop.wait(self.verify_interval)

    def run_verify(self) -> bool:
        started = time.monotonic()
        try:
            check = self.verify or self._default_verify
            ok = bool(check())
        except Exception:  # a verification that cannot finish is a failed verification
            ok = False
        self._verify_ok, self._verify_at = ok, self.clock()
        self._verify_seconds = time.monotonic() - started
        return ok

    def _default_verify(self) -> bool:
        # the full replay (tree, every projection row and event column), not the tree only
        return bool(self.ledger.verify().ok)

    def snapshot(self) -> LedgerSnapshot:
        from sqlalchemy import func, select

        from memguard.ledger.tables import QuarantineRow, RevocationRow

        def read(fn: Callable[[], Any]) -> Any:
            try:
                return fn()
            except Exception:
                return None

        quarantine = QuarantineRow.__table__  # type: ignore[attr-defined]
        revocation = RevocationRow.__table__  # type: ignore[attr-defined]

        def count(statement: Any) -> int:
            with self.ledger.engine.connect() as conn:
                return int(conn.execute(statement).scalar_one())

        latest = read(self.ledger.log.latest_checkpoint)
        return LedgerSnapshot(
            queue_depth=read(self.ledger.log.pending_count),
            checkpoint_age=(
                max(0.0, self.clock() - latest.created_at) if latest is not None else None
            ),
            quarantined=read(
                lambda: count(
                    select(func.count(func.distinct(quarantine.c.fact_id))).where(
                        quarantine.c.lifted.is_(False)
                    )
                )
            ),
            revocations_active=read(
                lambda: count(
                    select(func.count())
                    .select_from(revocation)
                    .where(revocation.c.active.is_(True))
                )
            ),
            verify_ok=self._verify_ok,
            verify_at=self._verify_at,
            verify_seconds=self._verify_seconds,
        )

    def samples(self) -> Iterable[tuple[str, str, float]]:
        """(Prometheus name, help, value) of each gauge that has a value now."""
        s = self.snapshot()
        values = (
            s.queue_depth,
            s.checkpoint_age,
            s.quarantined,
            s.revocations_active,
            s.verify_ok,
            s.verify_at,
            s.verify_seconds,
        )
        return [(n, h, float(v)) for (n, h), v in zip(GAUGES, values, strict=True) if v is not None]


#: The ledger-wide gauges (Prometheus name, help), in :class:`LedgerSnapshot` order.
GAUGES: tuple[tuple[str, str], ...] = (
    (
        "memguard_ledger_queue_depth",
        "Audit events appended but not yet integrated into the Merkle log.",
    ),
    (
        "memguard_checkpoint_age_seconds",
        "Seconds since the latest signed checkpoint of the audit log.",
    ),
    (
        "memguard_quarantined_facts_current",
        "Facts in quarantine now (an active revocation holds them).",
    ),
    ("memguard_revocations_active", "Active revocations."),
    ("memguard_ledger_verify_ok", "1 if the last full audit-log verification passed, else 0."),
    (
        "memguard_ledger_verify_timestamp_seconds",
        "When the last full audit-log verification finished (Unix time).",
    ),
    (
        "memguard_ledger_verify_duration_seconds",
        "How long the last full audit-log verification took.",
    ),
)


def observe_ledger(gauges: LedgerGauges) -> None:
    """Expose ``gauges`` as OpenTelemetry observable gauges of the global meter provider."""
    from opentelemetry.metrics import CallbackOptions, Observation

    from memguard import __version__

    meter = otel_metrics.get_meter(
        "memguard", __version__, meter_provider=tracing.settings().meter_provider
    )

    def callback(name: str) -> Callable[[CallbackOptions], Iterable[Observation]]:
        def observe(options: CallbackOptions) -> Iterable[Observation]:
            return [Observation(v) for n, _h, v in gauges.samples() if n == name]

        return observe

    for prom, otel in (
        ("memguard_ledger_queue_depth", "memguard.ledger.queue_depth"),
        ("memguard_checkpoint_age_seconds", "memguard.ledger.checkpoint.age"),
        ("memguard_quarantined_facts_current", "memguard.quarantined.current"),
        ("memguard_revocations_active", "memguard.revocations.active"),
        ("memguard_ledger_verify_ok", "memguard.ledger.verify.ok"),
    ):
        meter.create_observable_gauge(otel, callbacks=[callback(prom)])
