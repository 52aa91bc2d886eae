"""Guarded vs raw qdrant-client in local mode (``":memory:"``): ``query_points`` and ``upsert``.

One collection holds N memories of 10 owners (the caller's scope keeps ~10%), written through
``GuardedQdrantClient`` with precomputed 384-d vectors; the raw client reads the very same collection.
Reads (k=10), medians over random query vectors:

- guarded ``query_points`` (the scope pushed into the filter, every hit verified against the ledger);
- raw ``query_points`` with the filter the guard pushes (the same Qdrant work: the guard's own cost);
- raw ``query_points`` with a one-key tenant filter (``user_id``), what a raw multi-tenant app runs;
- raw ``query_points`` without a filter (no isolation at all).

Writes: guarded ``upsert`` (SQLite ledger, WAL, ``synchronous=FULL``) vs raw ``upsert`` of the same
payloads and vectors, batch 1 and batch 64.

    .venv/bin/python benchmarks/bench_adapter_qdrant.py            # 10k memories, ~3 min
    .venv/bin/python benchmarks/bench_adapter_qdrant.py --quick    # 1k memories, < 1 min
    .venv/bin/python benchmarks/bench_adapter_qdrant.py --size 5000 --queries 50

Prints a markdown table of medians (ms per call) and ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from memguard import Ledger, LocalTokenService, Source, SourceKind, Turn, configure_json_logging
from memguard.adapters.qdrant import _STATE, GuardedQdrantClient
from memguard.context import CallContext
from memguard.kernel import Kernel

DIM = 384
OWNERS = 10
C = "memories"


def unit_vectors(rng: np.random.Generator, n: int) -> list[list[float]]:
    m = rng.standard_normal((n, DIM)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return [[float(x) for x in row] for row in m]


def medians(fns: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """Median ms per call of each function, measured round-robin so that load on a shared machine
    hits every variant alike."""
    for fn in fns.values():
        fn()  # warm
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t0) * 1000)
    return {name: statistics.median(ts) for name, ts in times.items()}


def payload(i: int, owner: str) -> dict[str, Any]:
    return {
        "text": f"memory {i} of {owner}",
        "user_id": owner,
        "topic": ["travel", "health", "food"][i % 3],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--writes", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="1k memories, fewer runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.size, args.queries, args.writes = 1000, 15, 10
    configure_json_logging(stream=open(os.devnull, "w"))  # the decision log is rendered, not shown

    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        tokens = LocalTokenService(Path(tmp) / "keys")
        kernel = Kernel(ledger=Ledger.sqlite(Path(tmp) / "ledger.db"), verifier=tokens.verifier())
        raw = QdrantClient(":memory:")
        raw.create_collection(
            C, vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
        )
        ctx = CallContext(
            source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="bench", turn_index=0)
        )
        owners = [f"user-{k}" for k in range(OWNERS)]
        guards = {
            o: GuardedQdrantClient(
                raw,
                kernel=kernel,
                identity=kernel.authenticate(tokens.issue(o, ttl=3600)),
                context=ctx,
            )
            for o in owners
        }
        vectors = unit_vectors(rng, args.size)
        t0 = time.perf_counter()
        for start in range(0, args.size, 256):
            by_owner: dict[str, list[models.PointStruct]] = {}
            for i in range(start, min(start + 256, args.size)):
                owner = owners[i % OWNERS]
                by_owner.setdefault(owner, []).append(
                    models.PointStruct(id=i, vector=vectors[i], payload=payload(i, owner))
                )
            for owner, pts in by_owner.items():
                guards[owner].upsert(C, points=pts)
        load_s = time.perf_counter() - t0
        print(f"loaded {args.size} memories through the guard in {load_s:.1f} s", file=sys.stderr)

        me = owners[3]
        guarded = guards[me]
        # the exact filter the guard pushes, read from its I/O-free core
        flow = _STATE[guarded].planner.query_points(
            C, False, query=[0.0] * DIM, with_payload=True, limit=10
        )
        pushed = next(flow).kwargs["query_filter"]
        flow.close()
        tenant = models.Filter(
            must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=me))]
        )
        queries = unit_vectors(rng, args.queries)
        qi = iter(range(10**9))

        def q() -> list[float]:
            return queries[next(qi) % len(queries)]

        rows: list[tuple[str, float, float | None, str]] = []
        reads = medians(
            {
                "guarded": lambda: guarded.query_points(C, query=q(), limit=10),
                "same": lambda: raw.query_points(C, query=q(), query_filter=pushed, limit=10),
                "tenant": lambda: raw.query_points(C, query=q(), query_filter=tenant, limit=10),
                "none": lambda: raw.query_points(C, query=q(), limit=10),
            },
            args.queries,
        )
        g_read, r_same, r_tenant, r_none = (reads[k] for k in ("guarded", "same", "tenant", "none"))
        # the guarded answer is the raw filtered answer
        probe = q()
        assert [p.id for p in guarded.query_points(C, query=probe, limit=10).points] == [
            p.id for p in raw.query_points(C, query=probe, query_filter=pushed, limit=10).points
        ]
        rows.append(("query_points k=10", g_read, r_same, "raw with the pushed filter"))
        rows.append(("query_points k=10", g_read, r_tenant, "raw with a `user_id` filter"))
        rows.append(("query_points k=10", g_read, r_none, "raw unfiltered"))

        next_id = iter(range(args.size, args.size + 10**6))
        wvecs = unit_vectors(rng, 64)

        def batch(n: int) -> list[models.PointStruct]:
            return [
                models.PointStruct(
                    id=(i := next(next_id)), vector=wvecs[k % 64], payload=payload(i, me)
                )
                for k in range(n)
            ]

        # writes in a turn of their own: a turn that already read facts records a lineage edge
        # from every fact it writes to every fact it read (its taint), which is not upsert's cost
        writer = guarded.with_context(turn=Turn(session_id="bench-writes", turn_index=0))
        for n in (1, 64):
            writes = medians(
                {
                    "guarded": lambda n=n: writer.upsert(C, points=batch(n)),
                    "raw": lambda n=n: raw.upsert(C, points=batch(n)),
                },
                args.writes,
            )
            g_w, r_w = writes["guarded"], writes["raw"]
            rows.append((f"upsert batch {n}", g_w, r_w, "raw upsert"))

        print(
            f"\n{args.size:,} memories, {OWNERS} owners, dimension {DIM}, qdrant-client local mode (`:memory:`)\n"
        )
        print("| operation | guarded ms | baseline | baseline ms | guarded/baseline |")
        print("|---|---:|---|---:|---:|")
        for name, g, r, what in rows:
            ratio = f"{g / r:.2f}x" if r else "-"
            print(f"| {name} | {g:.2f} | {what} | {r:.2f} | {ratio} |")
        kernel.ledger.close()
        raw.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
