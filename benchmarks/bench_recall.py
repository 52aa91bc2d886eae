"""Scoped-search recall@10 against exact filtered search, at 10%, 1% and 0.1% selectivity.

The guard pushes the scope into the store's query, so a scoped top-k should equal the exact top-k of
the allowed facts (a post-filtered top-k would not: at 1% it keeps ~0.1 of 10). Exact = numpy cosine
over the facts the reference evaluator (`memguard.scope.evaluate`) admits. Qdrant local mode searches
exhaustively, so recall must be 1.0; a Qdrant server with HNSW and payload indexes is approximate.

    python benchmarks/bench_recall.py            # 10,000 facts, 20 queries per selectivity
    python benchmarks/bench_recall.py --quick    # 2,000 facts, 5 queries
"""

from __future__ import annotations

import argparse
import logging
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from memguard import (
    FactInput,
    InMemoryStore,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    QdrantStore,
    Source,
    SourceKind,
    Turn,
    configure_json_logging,
)
from memguard.scope import ReadRequest, evaluate, index_fields

DIM = 384
SELECTIVITIES = {"10%": 0.10, "1%": 0.01, "0.1%": 0.001}


def namespace_for(i: int, n: int) -> str:
    """Namespaces laid out so that `sel-<p>` holds the given share of the facts."""
    if i < n * 0.001:
        return "sel-0.1%"
    if i < n * 0.011:
        return "sel-1%"
    if i < n * 0.111:
        return "sel-10%"
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    configure_json_logging(logging.WARNING)
    n, queries = (2_000, 5) if args.quick else (args.facts, args.queries)
    rnd = random.Random(7)
    vectors = np.asarray(
        [[rnd.gauss(0, 1) for _ in range(DIM)] for _ in range(n)], dtype=np.float32
    )
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    order = list(range(n))
    rnd.shuffle(order)
    namespaces = {i: namespace_for(rank, n) for rank, i in enumerate(order)}

    print(f"{n:,} facts, dim {DIM}, {queries} queries per selectivity, k=10\n")
    print("| store | selectivity | allowed facts | recall@10 | median search ms |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tokens = LocalTokenService(Path(tmp) / "keys")
        for label, store in (
            ("qdrant local", QdrantStore(location=":memory:", partition_by_owner=False)),
            ("in-memory", InMemoryStore(DIM)),
        ):
            ledger = Ledger.sqlite(Path(tmp) / f"{label}.db")
            guard = MemoryGuard(store=store, ledger=ledger, verifier=tokens.verifier())
            me = guard.authenticate(tokens.issue("alice"))
            provs = []
            for start in range(0, n, 256):
                batch = [
                    FactInput(
                        text=f"fact {i}",
                        namespace=namespaces[i],
                        source=Source(kind=SourceKind.USER_MESSAGE),
                        turn=Turn(session_id="bench", turn_index=i),
                        vector=tuple(float(x) for x in vectors[i]),
                    )
                    for i in range(start, min(start + 256, n))
                ]
                provs.extend(guard.write_many(me, batch))
            index = {p.fact_id: i for i, p in enumerate(provs)}
            for sel in SELECTIVITIES:
                ns = f"sel-{sel}"
                plan = guard.scope.read_plan(me.principal, ReadRequest("search", namespaces=(ns,)))
                assert plan.condition is not None
                allowed = [
                    i for i, p in enumerate(provs) if evaluate(plan.condition, index_fields(p))
                ]
                recalls, times = [], []
                for _ in range(queries):
                    q = np.asarray([rnd.gauss(0, 1) for _ in range(DIM)], dtype=np.float32)
                    q /= np.linalg.norm(q)
                    scores = unit[allowed] @ q
                    exact = {allowed[j] for j in np.argsort(-scores)[:10]}
                    t0 = time.perf_counter()
                    hits = guard.search(me, vector=q.tolist(), k=10, namespaces=[ns])
                    times.append((time.perf_counter() - t0) * 1000)
                    got = {index[h.fact_id] for h in hits}
                    recalls.append(len(got & exact) / max(1, min(10, len(allowed))))
                print(
                    f"| {label} | {sel} | {len(allowed):,} | {np.mean(recalls):.3f} "
                    f"| {np.median(times):.1f} |"
                )
            guard.close()


if __name__ == "__main__":
    main()
