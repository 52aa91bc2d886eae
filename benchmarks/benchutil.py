"""Helpers the benchmark scripts share (run as ``python benchmarks/<script>.py``)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def quiet_logs() -> Iterator[None]:
    """The guard's structlog decision lines are part of its cost, but not of the printed table."""
    devnull = open(os.devnull, "w")
    saved = sys.stdout
    sys.stdout = devnull
    try:
        yield
    finally:
        sys.stdout = saved
        devnull.close()


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn`` over ``repeats`` calls, in ms."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000
