"""What memguard's telemetry costs: a guarded operation with no provider vs the kernel without
telemetry, and with an OpenTelemetry SDK exporting spans and metrics.

The same guarded operations on one guard (in-memory store, SQLite file ledger in a temp dir,
precomputed vectors), the three modes taking turns call by call in a shuffled order:

* **off**: the kernel's telemetry hooks replaced by no-ops (the kernel as it was before);
* **unconfigured**: the real hooks, no tracer or meter provider installed (the default);
* **sdk**: the OpenTelemetry SDK with a span processor and an in-memory exporter, and a meter
  provider with an in-memory reader (spans and metrics really recorded).

It also times the hooks alone (a write's five calls) with no provider, in microseconds.

    .venv/bin/python benchmarks/bench_telemetry.py           # ~1 min
    .venv/bin/python benchmarks/bench_telemetry.py --quick   # a few seconds

Prints a markdown table of medians (ms per operation) and ratios to **off**.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from benchutil import quiet_logs

from memguard import (
    InMemoryStore,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
)
from memguard import kernel as kernel_module
from memguard.telemetry import hooks

DIM = 384


class _NullWatch:
    def close(self) -> None:
        pass


_NULL = _NullWatch()
OFF = types.SimpleNamespace(
    observe=lambda op: _NULL,
    decided=lambda event: None,
    stamp_turn=lambda turn: turn,
    stamped=lambda op, records: records,
    returned=lambda facts: None,
)


#: the modules whose ``telemetry`` global the hooks are called through (``memguard.operation`` holds
#: the read path's since the kernel split; a checkout from before it has only the kernel)
_HOOKED: list[Any] = [kernel_module]
try:
    from memguard import operation as operation_module
except ImportError:
    pass
else:
    _HOOKED.append(operation_module)


@contextmanager
def telemetry_off() -> Iterator[None]:
    """The kernel without its five telemetry calls."""
    saved = [module.telemetry for module in _HOOKED]
    for module in _HOOKED:
        module.telemetry = OFF
    try:
        yield
    finally:
        for module, hooks_module in zip(_HOOKED, saved, strict=True):
            module.telemetry = hooks_module


_PROVIDERS: list[Any] = []


def _providers() -> tuple[Any, Any, Any]:
    """One SDK tracer and meter provider for the whole run (as a host would have)."""
    if not _PROVIDERS:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
        _PROVIDERS.extend([tracer_provider, meter_provider, exporter])
    return _PROVIDERS[0], _PROVIDERS[1], _PROVIDERS[2]


@contextmanager
def sdk() -> Iterator[None]:
    from memguard import telemetry

    tracer_provider, meter_provider, exporter = _providers()
    previous = telemetry.configure(tracer_provider=tracer_provider, meter_provider=meter_provider)
    try:
        yield
    finally:
        telemetry.restore(previous)
        exporter.clear()  # the exporter keeps every span it got


def run(repeats: int, facts: int, modes: dict[str, Callable[[], Any]]) -> dict[str, dict[str, float]]:
    """Median ms per operation and mode. The modes take turns call by call, in a shuffled order,
    so a change of load on a shared machine falls on every mode alike."""
    import random
    import statistics

    rng = np.random.default_rng(7)
    order = random.Random(7)
    vectors = rng.standard_normal((facts + repeats * len(modes), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    times: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        tokens = LocalTokenService(Path(tmp) / "keys")
        guard = MemoryGuard(store=InMemoryStore(dimension=DIM),
                            ledger=Ledger.sqlite(Path(tmp) / "ledger.db"),
                            verifier=tokens.verifier())
        who = guard.authenticate(tokens.issue("alice"))
        source = Source(kind=SourceKind.USER_MESSAGE)
        ids = [guard.write(who, f"fact {i}", namespace="n", source=source,
                           turn=Turn(session_id="s", turn_index=i),
                           vector=[float(x) for x in vectors[i]]).fact_id
               for i in range(facts)]
        counter = iter(range(facts, len(vectors)))
        query = [float(x) for x in vectors[0]]

        def write() -> Any:
            i = next(counter)
            return guard.write(who, f"fact {i}", namespace="n", source=source,
                               turn=Turn(session_id="s", turn_index=i),
                               vector=[float(x) for x in vectors[i]])

        operations: dict[str, Callable[[], Any]] = {
            "write": write,
            "search (k=10)": lambda: guard.search(who, vector=query, k=10),
            "get": lambda: guard.get(who, ids[len(ids) // 2]),
        }
        for name, fn in operations.items():
            for _ in range(repeats):
                turn = list(modes)
                order.shuffle(turn)
                for mode in turn:
                    with modes[mode]():
                        t0 = time.perf_counter()
                        fn()
                        times[mode].setdefault(name, []).append(time.perf_counter() - t0)
        guard.close()
    return {m: {op: statistics.median(v) * 1000 for op, v in ops.items()}
            for m, ops in times.items()}


def hooks_alone(n: int) -> float:
    """Microseconds of a write's five hook calls with no provider (no I/O around them)."""
    from memguard.events import AuditEvent, Decision
    from memguard.provenance import Turn as T

    class Op:
        def __init__(self) -> None:
            self.action, self.purpose, self.turn, self.trace_id = "write", None, None, None
            self.fact_ids, self.detail = ["x"], {}

    turn = T(session_id="s", turn_index=0)
    event = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok")
    started = time.perf_counter()
    for _ in range(n):
        op: Any = Op()
        watch = hooks.observe(op)
        hooks.stamp_turn(turn)
        hooks.stamped(op, [])
        hooks.decided(event)
        hooks.returned([])
        watch.close()
    return (time.perf_counter() - started) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--facts", type=int, default=1000)
    args = parser.parse_args()
    repeats, facts = (60, 200) if args.quick else (args.repeats, args.facts)
    modes: dict[str, Callable[[], Any]] = {
        "off": telemetry_off, "unconfigured": contextmanager(lambda: iter([None])), "sdk": sdk}
    with quiet_logs():
        run(max(5, repeats // 10), 50, modes)  # warm-up
        results = run(repeats, facts, modes)
    print(f"\n{repeats} calls each over {facts} facts (median ms)\n")
    print("| operation | off | unconfigured | ratio | sdk (spans + metrics) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for op in results["off"]:
        off = results["off"][op]
        unc, full = results["unconfigured"][op], results["sdk"][op]
        print(f"| {op} | {off:.3f} | {unc:.3f} | {unc / off:.3f}x | {full:.3f} | {full / off:.3f}x |")
    print(f"\nthe five hooks of one write, no provider: {hooks_alone(20000):.2f} us")


if __name__ == "__main__":
    main()
