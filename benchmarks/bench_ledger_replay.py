"""What logging every projection change costs: guarded write and get latency, and ``verify``.

A guard on an in-memory store (8-d vectors, so the store costs next to nothing) and a SQLite file
ledger (WAL, ``synchronous=FULL``). Measures single writes and gets (medians), then the full
``Ledger.verify()`` (tree + replay of every change entry, compared with every row) against the
tree-only ``AuditLog.verify()``.

    .venv/bin/python benchmarks/bench_ledger_replay.py --quick          # 300 facts, < 1 min
    .venv/bin/python benchmarks/bench_ledger_replay.py --facts 100000   # a big ledger (slow)

Runs on a tree without change entries too (it only uses public calls and skips what is missing),
for a before/after comparison.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchutil import quiet_logs

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.stores.memory import InMemoryStore


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=2000)
    ap.add_argument("--quick", action="store_true", help="300 facts")
    args = ap.parse_args()
    n = 300 if args.quick else args.facts
    quiet_logs()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tokens = LocalTokenService(root / "keys")
        guard = MemoryGuard(store=InMemoryStore(dimension=8),
                            ledger=Ledger.sqlite(root / "ledger.db"),
                            verifier=tokens.verifier())  # fmt: skip
        user = guard.authenticate(tokens.issue("alice"))
        source = Source(kind=SourceKind.USER_MESSAGE)
        writes, gets, ids = [], [], []
        for i in range(n):
            t0 = time.perf_counter()
            prov = guard.write(user, f"fact {i}", namespace="n", source=source,
                               turn=Turn(session_id="s", turn_index=i), vector=[1.0] * 8)  # fmt: skip
            writes.append(time.perf_counter() - t0)
            ids.append(prov.fact_id)
        for fact_id in ids[: min(n, 500)]:
            t0 = time.perf_counter()
            guard.get(user, fact_id)
            gets.append(time.perf_counter() - t0)
        guard.ledger.log.flush()
        ledger = guard.ledger
        t0 = time.perf_counter()
        tree = ledger.log.verify()
        tree_s = time.perf_counter() - t0
        full_s = None
        if hasattr(ledger, "verify"):
            t0 = time.perf_counter()
            full = ledger.verify()
            full_s = time.perf_counter() - t0
            assert full.ok, full.problems[:3]
        assert tree.ok
        print(f"facts {n}, leaves {tree.tree_size}")
        print("| measure | result |\n|---|---|")
        print(f"| guarded write, median | {statistics.median(writes) * 1e3:.2f} ms |")
        print(f"| guarded get, median | {statistics.median(gets) * 1e3:.2f} ms |")
        print(f"| AuditLog.verify (tree only) | {tree_s:.2f} s |")
        if full_s is not None:
            print(f"| Ledger.verify (tree + replay of every row) | {full_s:.2f} s |")
        guard.close()


if __name__ == "__main__":
    main()
