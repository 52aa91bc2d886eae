"""Adoption throughput: ``adopt_into_guard`` vs the raw store upsert and vs ordinary guarded writes.

N legacy rows (``--rows``, 50 owners) are adopted into a fresh embedded stack (qdrant-edge store,
SQLite ledger, the built-in scanner, the hash embedder) in batches of 256:

- **raw**: ``QdrantEdgeStore.upsert`` of the same texts with their vectors and a plain payload (what
  copying the rows into the store costs, no ledger, no scan);
- **write_many**: ``MemoryGuard.write_many`` of the same rows as one user (the ordinary guarded write);
- **adopt**: ``adopt_into_guard`` (owner mapping, scan, stamp, ledger stage + commit, store);
- **rerun**: the same adoption again (every row found in the ledger and skipped);
- **dry run**: counting only.

    .venv/bin/python benchmarks/bench_adopt.py              # 5000 rows
    .venv/bin/python benchmarks/bench_adopt.py --rows 500   # quick
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

from benchutil import quiet_logs

from memguard import FactInput, Source, SourceKind, Turn
from memguard.adopt import OwnerMapping, adopt_into_guard, legacy_source
from memguard.adopt.rows import LegacyRow
from memguard.embedded import open_embedded
from memguard.stores.base import StoredPoint
from memguard.stores.edge import QdrantEdgeStore

BATCH = 256


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    args = parser.parse_args()
    n = args.rows
    texts = [f"note {i}: the user mentioned topic {i * 7919 % 1000} on day {i % 365}" for i in range(n)]
    rows = [LegacyRow(str(i), {"text": t, "user_id": f"user{i % 50}"}) for i, t in enumerate(texts)]
    root = Path(tempfile.mkdtemp(prefix="memguard-bench-adopt-"))
    results: dict[str, float] = {}
    with quiet_logs():
        stack = open_embedded(root / "adopt")
        embed = stack.guard.embedder.embed
        raw = QdrantEdgeStore(root / "raw", dimension=stack.guard.store.dimension)
        t0 = time.perf_counter()
        for start in range(0, n, BATCH):
            chunk = texts[start : start + BATCH]
            raw.upsert([StoredPoint(str(uuid.uuid4()), {"text": t}, v)
                        for t, v in zip(chunk, embed(chunk), strict=True)])  # fmt: skip
        results["raw"] = time.perf_counter() - t0
        raw.close()

        writer = open_embedded(root / "write")
        me = writer.guard.authenticate(writer.tokens.issue("user0", scopes=["memory:write"]))
        t0 = time.perf_counter()
        for start in range(0, n, BATCH):
            writer.guard.write_many(me, [
                FactInput(text=t, namespace="notes", source=Source(kind=SourceKind.DOCUMENT),
                          turn=Turn(session_id="bench", turn_index=0))
                for t in texts[start : start + BATCH]
            ])  # fmt: skip
        results["write_many"] = time.perf_counter() - t0
        writer.close()

        options = dict(source=legacy_source("bench:legacy"), namespace="notes", operator="bench",
                       mapping=OwnerMapping(issuer=stack.tokens.issuer, fields=("user_id",)))
        t0 = time.perf_counter()
        adopt_into_guard(None, rows, dry_run=True, **options)  # type: ignore[arg-type]
        results["dry run"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = adopt_into_guard(stack.guard, rows, **options)  # type: ignore[arg-type]
        results["adopt"] = time.perf_counter() - t0
        assert report.adopted == n, report.as_json()
        t0 = time.perf_counter()
        again = adopt_into_guard(stack.guard, rows, **options)  # type: ignore[arg-type]
        results["rerun"] = time.perf_counter() - t0
        assert again.already == n
        stack.close()
    print(f"adoption of {n} rows (batch {BATCH}), embedded stack")
    print(f"{'phase':<12}{'seconds':>10}{'rows/s':>10}{'vs raw':>9}")
    for name, secs in results.items():
        print(f"{name:<12}{secs:>10.2f}{n / secs:>10.0f}{secs / results['raw']:>8.1f}x")


if __name__ == "__main__":
    main()
