"""Guarded searches that come back to the same facts (an agent re-reading its memories), vs new ones.

Opens a state folder loaded by ``bench_storage.py --state DIR`` (``DIR/state-<size>``; copy it
first: the reads' events change it) in a new process, as ``owner-0``, and runs ``--distinct``
random queries ``--rounds`` times over (the same queries each round, k=10): round 1 reads the
facts for the first time in the process, later rounds read them again. Per round: guarded search
CPU and wall per call, the same engine's raw filtered search of the same queries, their ratio,
and (where the code has it) how many hits the verified-rows cache served
(memguard/ledger/readcache.py). Then RSS (anonymous + file-backed) of the process.

    cp -r /var/tmp/mg-bench/state-100000 /tmp/copy
    python benchmarks/bench_rereads.py /tmp/copy --distinct 30 --rounds 5
    PYTHONPATH=/tmp/base python benchmarks/bench_rereads.py /tmp/copy2 ...   # a baseline
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import qdrant_edge as qe
from benchutil import quiet_logs

import memguard
from memguard import open_embedded
from memguard.pushdown.edge import to_edge_filter
from memguard.stores.edge import HNSW_EF, QdrantEdgeStore, _filter

DIM, K = 384, 10


def rss() -> dict[str, float]:
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = int(rest.split()[0]) / 1024
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("state", type=Path)
    ap.add_argument("--distinct", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    say = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731 (stdout is quiet)
    say(f"memguard from {Path(memguard.__file__).parent}; load {os.getloadavg()}")
    with quiet_logs():
        stack = open_embedded(args.state)
        guard = stack.guard
        store = guard.store
        assert isinstance(store, QdrantEdgeStore)
        me = guard.authenticate(stack.tokens.issue("owner-0", ttl=3600))
        rng = np.random.default_rng(args.seed)
        qs = rng.standard_normal((args.distinct, DIM)).astype(np.float32)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        queries = [[float(x) for x in q] for q in qs]
        captured: list[object] = []
        original = store.search

        def spy(vector, *, condition, limit, offset=0):  # type: ignore[no-untyped-def]
            captured.append(condition)
            return original(vector, condition=condition, limit=limit, offset=offset)

        store.search = spy  # type: ignore[method-assign]
        guard.search(me, vector=queries[0], k=K)  # the plan's filter, and the first open costs
        store.search = original  # type: ignore[method-assign]
        translated = _filter(captured[0])  # type: ignore[arg-type]
        flt = to_edge_filter(captured[0])  # type: ignore[arg-type]
        params = (
            qe.SearchParams(hnsw_ef=HNSW_EF)
            if translated and translated[1]
            else qe.SearchParams(exact=True)
        )
        cache = getattr(guard.ledger, "_verified", None)
        before = rss()
        for r in range(args.rounds):
            gc, gw, rc, rw = [], [], [], []
            hits0 = cache.hits if cache is not None else 0
            for i, q in enumerate(queries):
                for which in (0, 1) if i % 2 else (1, 0):  # taking turns going first
                    c0, t0 = time.process_time(), time.perf_counter()
                    if which:
                        guard.search(me, vector=q, k=K)
                    else:
                        store._shard.query(qe.QueryRequest(limit=K, query=qe.Query.Nearest(q), filter=flt,  # type: ignore[arg-type]
                                                           params=params, with_payload=True))  # fmt: skip
                    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                    (gw if which else rw).append(wall)
                    (gc if which else rc).append(cpu)
            served = (cache.hits - hits0) if cache is not None else 0
            g, rf = statistics.median(gw) * 1e3, statistics.median(rw) * 1e3
            gcm, rcm = statistics.mean(gc) * 1e3, statistics.mean(rc) * 1e3
            say(f"round {r + 1}: guarded {g:.2f} ms wall / {gcm:.2f} ms CPU; raw filtered {rf:.2f} / {rcm:.2f};"
                f" ratio wall {g / rf:.2f}x, CPU {gcm / rcm:.2f}x; cache served {served} of {K * len(queries)} hits")  # fmt: skip
        after = rss()
        say(
            "RSS MiB before rounds / after: "
            + ", ".join(f"{k} {before[k]:.0f} / {after[k]:.0f}" for k in before)
        )
        say(f"load after {os.getloadavg()}")
        stack.close()


if __name__ == "__main__":
    main()
