"""Guarded vs raw SQL store (``memguard.adapters.sql.SqlStore``): search and write overhead.

- **search** (k=10, the main read): ``guard.search`` vs the very same SQL query and ranking without the
  guard, i.e. ``SqlStore.search(vector, condition=plan.condition, limit=10)`` with the scope the guard
  pushes (same WHERE clause, same exact cosine ranking over the selected rows); also the unscoped
  query for reference. Every guarded result is checked to equal the raw one.
- **write**: ``guard.write`` (batch 1) and ``guard.write_many`` (batch 64) vs ``SqlStore.upsert`` of
  the same rows under fresh ids (what a team's own INSERT of these rows costs).

Vectors are precomputed (384-d) and passed as ``vector=``, so embedding is not measured. SQLite: store
and ledger in two files of a temp dir (WAL, ``synchronous=FULL``). PostgreSQL (127.0.0.1:5432, or
``MEMGUARD_TEST_PG``): store and ledger in one fresh schema, dropped afterwards; skipped with a note
if the server is not reachable.

    .venv/bin/python benchmarks/bench_adapter_sql.py            # 10k facts, SQLite and PostgreSQL
    .venv/bin/python benchmarks/bench_adapter_sql.py --quick    # 1k facts, fewer repeats
    .venv/bin/python benchmarks/bench_adapter_sql.py --sizes 10000 --owners 100 --backends sqlite
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from benchutil import quiet_logs

from memguard import (
    FactInput,
    Identity,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
)
from memguard.adapters.sql import SqlStore
from memguard.scope import ReadRequest
from memguard.stores.base import StoredPoint

DIM = 384
BATCH = 64
PG_BASE = os.environ.get("MEMGUARD_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def unit_vectors(rng: np.random.Generator, n: int) -> list[tuple[float, ...]]:
    m = rng.standard_normal((n, DIM)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return [tuple(float(x) for x in row) for row in m]


def med(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def ms(x: float) -> str:
    return f"{x * 1000:.2f}"


@contextmanager
def pg_schema() -> Iterator[str | None]:
    """A URL whose search_path is a fresh schema (dropped afterwards), or None without a server."""
    try:
        import psycopg

        dsn = PG_BASE.replace("postgresql+psycopg://", "postgresql://")
        schema = f"mg_bench_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    except Exception as exc:
        print(
            f"- postgresql: skipped ({type(exc).__name__}: server not reachable)", file=sys.stderr
        )
        yield None
        return
    try:
        yield f"{PG_BASE}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _timed(fn: Callable[..., Any], spent: dict[str, float], name: str) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - t0

    return timed


class Bench:
    def __init__(
        self, tmp: Path, store_url: str, ledger_url: str, size: int, owners: int, singles: int
    ) -> None:
        self.size, self.owners, self.singles = size, owners, singles
        self.rng = np.random.default_rng(size)
        tokens = LocalTokenService(tmp / "keys")
        self.store = SqlStore(store_url, dimension=DIM)
        self.guard = MemoryGuard(
            store=self.store, ledger=Ledger.from_url(ledger_url), verifier=tokens.verifier()
        )
        self.idents: list[Identity] = [
            self.guard.authenticate(tokens.issue(f"owner-{i}", ttl=3600)) for i in range(owners)
        ]
        self.source = Source(kind=SourceKind.USER_MESSAGE)

    def facts(self, n: int, tag: str) -> list[FactInput]:
        return [
            FactInput(
                text=f"fact {tag}-{i}: the quick brown fox",
                namespace="notes",
                source=self.source,
                turn=Turn(session_id="bench", turn_index=i),
                vector=v,
            )
            for i, v in enumerate(unit_vectors(self.rng, n))
        ]

    def time_writes(self) -> dict[str, list[float]]:
        """Load `size` facts in batches of 64 (timed), round-robin owners; then batch-1 writes;
        the raw side upserts the same rows (payload and vector) under fresh ids."""
        out: dict[str, list[float]] = {"guard64": [], "raw64": [], "guard1": [], "raw1": []}
        facts = self.facts(self.size, "load")
        for b, start in enumerate(range(0, self.size, BATCH)):
            batch = facts[start : start + BATCH]
            t0 = time.perf_counter()
            self.guard.write_many(self.idents[b % self.owners], batch)
            if len(batch) == BATCH:
                out["guard64"].append(time.perf_counter() - t0)
        # raw rows: the very payloads the guard stored (text, metadata, reserved block), new ids
        stored, _ = self.store.scroll(condition=None, limit=max(BATCH, self.singles))
        vectors = [f.vector for f in facts[: len(stored)]]
        rounds = max(len(out["guard64"]), 1)
        for _ in range(rounds):
            chunk = [
                StoredPoint(str(uuid.uuid4()), p.payload, v)
                for p, v in zip(stored[:BATCH], vectors, strict=False)
            ]
            t0 = time.perf_counter()
            self.store.upsert(chunk)
            out["raw64"].append(time.perf_counter() - t0)
            self.store.delete([p.fact_id for p in chunk])
        for i, fact in enumerate(self.facts(self.singles, "single")):
            t0 = time.perf_counter()
            self.guard.write(
                self.idents[i % self.owners],
                fact.text,
                namespace=fact.namespace,
                source=fact.source,
                turn=fact.turn,
                vector=fact.vector,
            )
            out["guard1"].append(time.perf_counter() - t0)
        raw_ids = []
        for i in range(self.singles):
            point = StoredPoint(str(uuid.uuid4()), stored[i % len(stored)].payload, vectors[0])
            t0 = time.perf_counter()
            self.store.upsert([point])
            out["raw1"].append(time.perf_counter() - t0)
            raw_ids.append(point.fact_id)
        self.store.delete(raw_ids)
        return out

    def time_search(self, repeats: int, queries: int) -> dict[str, list[float]]:
        """Guarded search, the same SqlStore call without the guard, and the unscoped call; the
        guard's store call and its two ledger calls are timed too (where the overhead goes)."""
        ident = self.idents[0]
        plan = self.guard.scope.read_plan(ident.principal, ReadRequest("search"))
        condition = plan.condition
        qs = [list(q) for q in unit_vectors(np.random.default_rng(1), queries)]
        out: dict[str, list[float]] = {"guard": [], "raw": [], "unscoped": []}
        for q in qs[:2]:  # warm-up
            self.guard.search(ident, vector=q, k=10)
            self.store.search(q, condition=condition, limit=10)
        ledger = self.guard.ledger
        parts: dict[str, Any] = {
            "store.search": self.store,
            "ledger.latest": ledger,
            "ledger.record": ledger,
        }
        for name in parts:
            out[name] = []
        for _ in range(repeats):
            for q in qs:
                spent = dict.fromkeys(parts, 0.0)
                for name, obj in parts.items():
                    method = name.split(".")[1]
                    setattr(obj, method, _timed(getattr(obj, method), spent, name))
                t0 = time.perf_counter()
                got = self.guard.search(ident, vector=q, k=10)
                out["guard"].append(time.perf_counter() - t0)
                for name, obj in parts.items():
                    delattr(obj, name.split(".")[1])  # back to the class's method
                    out[name].append(spent[name])
                t0 = time.perf_counter()
                raw = self.store.search(q, condition=condition, limit=10)
                out["raw"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                self.store.search(q, condition=None, limit=10)
                out["unscoped"].append(time.perf_counter() - t0)
                if [r.fact_id for r in got] != [h.fact_id for h in raw]:
                    raise SystemExit("guarded and raw results differ")
        return out

    def close(self) -> None:
        self.guard.close()


def run(
    sizes: Sequence[int],
    owner_counts: Sequence[int],
    repeats: int,
    queries: int,
    singles: int,
    backends: Sequence[str],
) -> None:
    logging.disable(logging.CRITICAL)
    rows: list[str] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memguard-bench-sql-") as tmpdir:
        tmp = Path(tmpdir)
        for backend, size, owners in itertools.product(backends, sizes, owner_counts):
            sub = tmp / f"{backend}-{size}-{owners}"
            sub.mkdir()
            with pg_schema() if backend == "postgresql" else _sqlite(sub) as url:
                if url is None:
                    continue
                ledger_url = url if backend == "postgresql" else f"sqlite:///{sub / 'ledger.db'}"
                started = time.perf_counter()
                with quiet_logs():
                    bench = Bench(sub, url, ledger_url, size, owners, singles)
                    try:
                        w = bench.time_writes()
                        s = bench.time_search(repeats, queries)
                    finally:
                        bench.close()
                took = time.perf_counter() - started
            g1, r1, g64, r64 = (med(w[k]) for k in ("guard1", "raw1", "guard64", "raw64"))
            gs, rs, us = med(s["guard"]), med(s["raw"]), med(s["unscoped"])
            scope = f"{100 / owners:.0f}%"
            label = f"| {backend} | {size:,} | {scope} |"
            rows.append(
                f"{label} search k=10 | {ms(gs)} | {ms(rs)} | **{gs / rs:.2f}x** | {ms(us)} |"
            )
            rows.append(f"{label} write batch 1 | {ms(g1)} | {ms(r1)} | {g1 / r1:.2f}x | |")
            rows.append(f"{label} write batch 64 | {ms(g64)} | {ms(r64)} | {g64 / r64:.2f}x | |")
            inner, latest, record = (
                med(s[k]) for k in ("store.search", "ledger.latest", "ledger.record")
            )
            rest = gs - inner - latest - record
            notes.append(
                f"- {backend}, {size:,} facts, scope {scope}: a guarded search spends {ms(inner)} ms "
                f"in the store call, {ms(latest)} ms reading the hits' ledger rows, {ms(record)} ms "
                f"committing the audit event and {ms(rest)} ms in the rest (identity, plan, digests, "
                f"point checks); section took {took:.0f} s"
            )
    print(
        "SqlStore, dim 384, medians in ms; raw = the same SqlStore call without the guard (search:"
    )
    print(
        "the guard's WHERE clause and the same exact ranking); scope = the caller's share of facts\n"
    )
    print("| database | facts | scope | operation | guarded | raw | guarded/raw | raw unscoped |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print("\n".join(notes))


@contextmanager
def _sqlite(sub: Path) -> Iterator[str]:
    yield f"sqlite:///{sub / 'store.db'}"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    ap.add_argument(
        "--owners", type=int, nargs="+", default=[10, 1], help="the caller's scope is 1/owners"
    )
    ap.add_argument("--repeats", type=int, default=3, help="search rounds over the query set")
    ap.add_argument("--queries", type=int, default=20, help="query vectors per round")
    ap.add_argument("--singles", type=int, default=100, help="batch-1 writes per size")
    ap.add_argument(
        "--backends", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"]
    )
    ap.add_argument("--quick", action="store_true", help="1k facts, fewer repeats")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.owners, args.repeats = [1000], [10], 2
        args.queries, args.singles = 10, 30
    run(args.sizes, args.owners, args.repeats, args.queries, args.singles, args.backends)


if __name__ == "__main__":
    main()
