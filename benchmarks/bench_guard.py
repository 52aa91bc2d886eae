"""Guarded vs raw qdrant-client (local mode, ``":memory:"``): write and scoped-search overhead.

Both sides get the same precomputed 384-d vectors (embedding is excluded) and, for searches, the very
same points: the raw collection is loaded with the guarded store's ids, vectors and payloads, and raw
filtered search uses the filter the guard pushes, ``to_qdrant_filter(plan.condition)``. The guard uses
a SQLite file ledger (WAL, ``synchronous=FULL``) in a temporary directory.

    /work/venv/bin/python benchmarks/bench_guard.py            # 1k and 10k, ~5 min
    /work/venv/bin/python benchmarks/bench_guard.py --quick    # 1k only, < 1 min
    /work/venv/bin/python benchmarks/bench_guard.py --sizes 1000 5000 --repeats 3

Prints a markdown table of medians (per operation) and ratios.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from benchutil import quiet_logs
from qdrant_client import QdrantClient, models

from memguard import (
    FactInput,
    Identity,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    QdrantStore,
    Source,
    SourceKind,
    Turn,
)
from memguard.pushdown.qdrant import to_qdrant_filter
from memguard.scope import ReadRequest

DIM = 384
OWNERS = 10  # the caller's scope keeps ~10% of the facts
BATCH = 64


def unit_vectors(rng: np.random.Generator, n: int) -> list[list[float]]:
    m = rng.standard_normal((n, DIM)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return [[float(x) for x in row] for row in m]


@dataclass
class Timer:
    """Accumulates wall time of wrapped calls (for the write breakdown)."""

    totals: dict[str, float] = field(default_factory=dict)

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.totals[name] = self.totals.get(name, 0.0) + time.perf_counter() - t0

        return timed


def med(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


class Bench:
    def __init__(
        self, tmp: Path, size: int, repeats: int, queries: int, singles: int, partitioned: bool
    ) -> None:
        self.size = size
        self.repeats = repeats
        self.queries = queries
        self.singles = singles
        self.rng = np.random.default_rng(size)
        tokens = LocalTokenService(tmp / "keys")
        self.store = QdrantStore(
            location=":memory:", dimension=DIM, partition_by_owner=partitioned
        )
        self.guard = MemoryGuard(
            store=self.store, ledger=Ledger.sqlite(tmp / "ledger.db"), verifier=tokens.verifier()
        )
        self.idents: list[Identity] = [
            self.guard.authenticate(tokens.issue(f"owner-{i}", ttl=3600)) for i in range(OWNERS)
        ]
        self.raw = QdrantClient(location=":memory:")
        self.source = Source(kind=SourceKind.USER_MESSAGE)
        self.timer = Timer()
        self.guard.ledger.begin = self.timer.wrap("ledger.begin", self.guard.ledger.begin)  # type: ignore[method-assign]
        self.guard.ledger.commit = self.timer.wrap("ledger.commit", self.guard.ledger.commit)  # type: ignore[method-assign]
        self.guard.store.upsert = self.timer.wrap("store.upsert", self.guard.store.upsert)  # type: ignore[method-assign]

    def facts(self, n: int, tag: str) -> list[FactInput]:
        return [
            FactInput(
                text=f"fact {tag}-{i}: the quick brown fox",
                namespace="notes",
                source=self.source,
                turn=Turn(session_id="bench", turn_index=i),
                vector=tuple(v),
            )
            for i, v in enumerate(unit_vectors(self.rng, n))
        ]

    def new_raw(self, name: str) -> None:
        self.raw.create_collection(
            name, vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
        )

    # -- writes -------------------------------------------------------------------------------

    def load_and_time_batches(self) -> dict[str, list[float]]:
        """Fill the guarded store with `size` facts in batches of 64 (timed), round-robin owners."""
        out: dict[str, list[float]] = {"guard64": [], "raw64": [], "guard1": [], "raw1": []}
        facts = self.facts(self.size, "load")
        for b, start in enumerate(range(0, self.size, BATCH)):
            batch = facts[start : start + BATCH]
            t0 = time.perf_counter()
            self.guard.write_many(self.idents[b % OWNERS], batch)
            if len(batch) == BATCH:
                out["guard64"].append(time.perf_counter() - t0)
        # The raw side upserts the very payloads the guard stored, under fresh ids.
        self.new_raw("raw_write")
        pts = self._points()
        for start in range(0, len(pts), BATCH):
            chunk = [
                models.PointStruct(id=str(uuid.uuid4()), vector=p.vector, payload=p.payload)
                for p in pts[start : start + BATCH]
            ]
            t0 = time.perf_counter()
            self.raw.upsert("raw_write", points=chunk, wait=True)
            if len(chunk) == BATCH:
                out["raw64"].append(time.perf_counter() - t0)
        # batch 1, on top of the loaded collections
        singles = self.facts(self.singles, "single")
        for i, fact in enumerate(singles):
            t0 = time.perf_counter()
            self.guard.write(
                self.idents[i % OWNERS],
                fact.text,
                namespace=fact.namespace,
                source=fact.source,
                turn=fact.turn,
                vector=fact.vector,
            )
            out["guard1"].append(time.perf_counter() - t0)
        for i in range(self.singles):
            p = pts[i % len(pts)]
            point = models.PointStruct(id=str(uuid.uuid4()), vector=p.vector, payload=p.payload)
            t0 = time.perf_counter()
            self.raw.upsert("raw_write", points=[point], wait=True)
            out["raw1"].append(time.perf_counter() - t0)
        return out

    def _collections(self) -> list[str]:
        """The guarded store's collections: the base one and, if partitioned, one per owner."""
        names = [d.name for d in self.store._client.get_collections().collections]
        return [n for n in names if n == self.store.collection or n.startswith(self.store._prefix)]

    def _points(self) -> list[models.Record]:
        """Every point of the guarded store, with payload and vector."""
        out: list[models.Record] = []
        for name in self._collections():
            offset = None
            while True:
                recs, offset = self.store._client.scroll(
                    name, limit=1024, offset=offset, with_payload=True, with_vectors=True
                )
                out.extend(recs)
                if offset is None:
                    break
        return out

    # -- searches -----------------------------------------------------------------------------

    def time_search(self) -> dict[str, list[float]]:
        """Guarded scoped search vs raw query_points with the same filter, and raw unfiltered."""
        # a raw collection holding exactly the guarded store's points
        self.new_raw("raw_search")
        pts = self._points()
        for start in range(0, len(pts), 1024):
            self.raw.upsert(
                "raw_search",
                points=[
                    models.PointStruct(id=str(p.id), vector=p.vector, payload=p.payload)
                    for p in pts[start : start + 1024]
                ],
                wait=True,
            )
        ident = self.idents[0]
        plan = self.guard.scope.read_plan(ident.principal, ReadRequest("search"))
        assert plan.condition is not None
        qfilter = to_qdrant_filter(plan.condition)
        queries = unit_vectors(np.random.default_rng(1), self.queries)
        out: dict[str, list[float]] = {"guard": [], "raw": [], "unfiltered": []}
        for q in queries[:2]:  # warm-up
            self.guard.search(ident, vector=q, k=10)
        for _ in range(self.repeats):
            for q in queries:
                t0 = time.perf_counter()
                got = self.guard.search(ident, vector=q, k=10)
                out["guard"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                raw = self.raw.query_points(
                    "raw_search", query=q, query_filter=qfilter, limit=10, with_payload=True
                ).points
                out["raw"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                self.raw.query_points("raw_search", query=q, limit=10, with_payload=True)
                out["unfiltered"].append(time.perf_counter() - t0)
                if [r.fact_id for r in got] != [str(p.id) for p in raw]:
                    raise SystemExit("guarded and raw results differ")
        return out

    def close(self) -> None:
        self.guard.close()
        self.raw.close()


def fsync_cost(tmp: Path, n: int = 50) -> float:
    """Median wall time of one write+fsync of 4 KiB in the ledger's directory."""
    path = tmp / "fsync.probe"
    times = []
    with open(path, "wb") as fh:
        for _ in range(n):
            fh.write(b"x" * 4096)
            fh.flush()
            t0 = time.perf_counter()
            os.fsync(fh.fileno())
            times.append(time.perf_counter() - t0)
    return med(times)


def ms(x: float) -> str:
    return f"{x * 1000:.2f}"


def run(sizes: Sequence[int], repeats: int, queries: int, singles: int) -> None:
    logging.disable(logging.CRITICAL)
    rows: list[str] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memguard-bench-") as tmpdir:
        tmp = Path(tmpdir)
        probe = fsync_cost(tmp)
        for size in sizes:
            for partitioned in (False, True):
                layout = "owner partitions" if partitioned else "one collection"
                sub = tmp / f"n{size}-{int(partitioned)}"
                sub.mkdir()
                t_start = time.perf_counter()
                with quiet_logs():
                    bench = Bench(sub, size, repeats, queries, singles, partitioned)
                    w = bench.load_and_time_batches()
                    s = bench.time_search()
                    totals = dict(bench.timer.totals)
                    bench.close()
                g64, r64, g1, r1 = (med(w[k]) for k in ("guard64", "raw64", "guard1", "raw1"))
                gs, rs, us = med(s["guard"]), med(s["raw"]), med(s["unfiltered"])
                rows.append(
                    f"| {size:,} | {layout} | write b=1 | {ms(g1)} | {ms(r1)} | {g1 / r1:.2f}x | | |"
                )
                rows.append(
                    f"| {size:,} | {layout} | write b=64 | {ms(g64)} | {ms(r64)} "
                    f"| {g64 / r64:.2f}x | | |"
                )
                rows.append(
                    f"| {size:,} | {layout} | search k=10 (scope ~{100 // OWNERS}%) | {ms(gs)} "
                    f"| {ms(rs)} | {gs / rs:.2f}x | {ms(us)} | {gs / us:.2f}x |"
                )
                calls = len(w["guard64"]) + len(w["guard1"])
                notes.append(
                    f"- n={size:,}, {layout}: per guarded write call (mean over batch-64 and "
                    f"batch-1 calls) ledger begin {ms(totals.get('ledger.begin', 0) / calls)} ms, "
                    f"commit {ms(totals.get('ledger.commit', 0) / calls)} ms, store upsert "
                    f"{ms(totals.get('store.upsert', 0) / calls)} ms; "
                    f"section took {time.perf_counter() - t_start:.0f} s"
                )
    print(f"qdrant local mode (:memory:), dim {DIM}, {OWNERS} owners, medians in ms; raw = one")
    print("collection, the guard's filter (`to_qdrant_filter(plan.condition)`)\n")
    print(
        "| facts | guarded layout | operation | guarded | raw (same filter) | guarded/raw "
        "| raw unfiltered | guarded/unfiltered |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print(f"- one 4 KiB write+fsync in the ledger directory: {ms(probe)} ms (median)")
    print("\n".join(notes))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    ap.add_argument("--repeats", type=int, default=3, help="search rounds over the query set")
    ap.add_argument("--queries", type=int, default=20, help="query vectors per round")
    ap.add_argument("--singles", type=int, default=100, help="batch-1 writes per size")
    ap.add_argument("--quick", action="store_true", help="1k facts, fewer repeats (< 1 min)")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.repeats, args.queries, args.singles = [1000], 2, 10, 30
    run(args.sizes, args.repeats, args.queries, args.singles)


if __name__ == "__main__":
    main()
