"""The ledger's share of a guarded ``write_many(64)``: ``Ledger.begin`` and ``Ledger.commit`` of
64 new facts on a SQLite ledger that already holds ``--prefill`` facts (the indexes' cost grows
with the ledger, so an empty ledger understates it), without the scanner and the store engine.

Per batch of 64, each timed apart: CPU (``time.process_time``), wall (``perf_counter``) and the
bytes the process wrote (``wchar`` of ``/proc/self/io``: the WAL frames of the transaction, so
the pages it dirtied). The same records each run (fixed texts, new fact ids), so two checkouts
compare on the same work; run them alternately (paired A/B), e.g.::

    PYTHONPATH=. python benchmarks/bench_ledgerwrite.py --prefill 10000
    PYTHONPATH=/work/base python benchmarks/bench_ledgerwrite.py --prefill 10000   # the baseline

It prints the load average before and after, and which ``memguard`` it imported.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import bench_writeforms
from bench_writeforms import batch

import memguard
from memguard import Ledger
from memguard.context import external_fact_id
from memguard.events import AuditEvent, Decision
from memguard.provenance import Provenance, new_uuid7


def _wchar() -> int:
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _write(ledger: Ledger, records: list[Provenance]) -> None:
    ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                    fact_ids=tuple(p.fact_id for p in records))  # fmt: skip
    ledger.begin(records)
    ledger.commit(records, [ev])


_counter = itertools.count()


def _uuid5() -> str:  # what the Qdrant adapter gives point n of a collection
    return external_fact_id("qdrant", "bench", str(next(_counter)))


_IDS: dict[str, Callable[[], object]] = {
    "uuid7": new_uuid7,
    "uuid4": uuid.uuid4,
    "uuid5": _uuid5,
    "uuid5-sorted": _uuid5,
    "uuid7+map": new_uuid7,
}


class _ExternalMap:
    """What a ledger keyed by time-ordered ids with the adapters' external ids mapped through one
    index would add per batch (docs/ledger-indexes.md): 64 inserts into a table keyed by the
    uuid5 of the external id, in its own transaction on the same SQLite file (an upper bound:
    in the ledger's transaction it would share the commit)."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS ext_map (ext_id TEXT PRIMARY KEY, fact_id TEXT NOT NULL)"
            " WITHOUT ROWID"
        )

    def put(self, records: list[Provenance]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany(
            "INSERT INTO ext_map VALUES (?, ?)", [(_uuid5(), p.fact_id) for p in records]
        )
        self.conn.execute("COMMIT")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--prefill", type=int, default=10000, help="facts written before timing")
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument(
        "--uuid4",
        action="store_true",
        help="random fact ids (the guard makes time-ordered ones: UUID version 7); = --ids uuid4",
    )
    ap.add_argument(
        "--ids",
        choices=_IDS,
        default="uuid7",
        help="fact ids: uuid7 (the guard's own, memguard/stamp.py), uuid4 (random), uuid5 "
        "(adapters' external_fact_id of a counter) or uuid5-sorted (the same, each batch's "
        "records ordered by fact id before begin and commit) or uuid7+map (uuid7, and the "
        "uuid5 of the external id put into a table of its own: the 'map' figures)",
    )
    args = ap.parse_args()
    ids = "uuid4" if args.uuid4 else args.ids
    bench_writeforms.uuid = type("U", (), {"uuid4": staticmethod(_IDS[ids])})  # type: ignore[assignment]
    print(f"fact ids: {ids}")
    print(f"memguard from {Path(memguard.__file__).parent}")
    names = ("begin CPU", "begin wall", "begin KiB", "commit CPU", "commit wall", "commit KiB")
    if ids == "uuid7+map":
        names += ("map CPU", "map wall", "map KiB")
    got: dict[str, list[float]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        ledger = Ledger.sqlite(Path(tmp) / "ledger.db", witness=None)
        ext_map = _ExternalMap(Path(tmp) / "ledger.db") if ids == "uuid7+map" else None
        try:
            t0 = time.perf_counter()
            for b in range(args.prefill // 64):
                records = batch(100000 + b)
                _write(ledger, records)
                if ext_map is not None:
                    ext_map.put(records)
            print(f"prefilled {args.prefill // 64 * 64} facts in {time.perf_counter() - t0:.1f} s")
            ledger.log.integrate()
            print(f"load average before: {os.getloadavg()}")
            for b in range(args.warmup + args.batches):
                records = batch(b)
                if ids == "uuid5-sorted":
                    records.sort(key=lambda p: p.fact_id)
                ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                                fact_ids=tuple(p.fact_id for p in records))  # fmt: skip
                c0, w0, b0 = time.process_time(), time.perf_counter(), _wchar()
                ledger.begin(records)
                c1, w1, b1 = time.process_time(), time.perf_counter(), _wchar()
                ledger.commit(records, [ev])
                c2, w2, b2 = time.process_time(), time.perf_counter(), _wchar()
                figures = [
                    (c1 - c0) * 1e3,
                    (w1 - w0) * 1e3,
                    (b1 - b0) / 1024,
                    (c2 - c1) * 1e3,
                    (w2 - w1) * 1e3,
                    (b2 - b1) / 1024,
                ]
                if ext_map is not None:
                    ext_map.put(records)
                    c3, w3, b3 = time.process_time(), time.perf_counter(), _wchar()
                    figures += [(c3 - c2) * 1e3, (w3 - w2) * 1e3, (b3 - b2) / 1024]
                if b >= args.warmup:
                    for name, value in zip(names, figures, strict=True):
                        got[name].append(value)
        finally:
            if ext_map is not None:
                ext_map.conn.close()
            ledger.engine.dispose()
    print(f"load average after: {os.getloadavg()}")
    for name, values in got.items():
        unit = "KiB" if name.endswith("KiB") else "ms"
        print(f"{name}: mean {statistics.fmean(values):.2f} {unit}, "
              f"median {statistics.median(values):.2f} {unit} per batch of 64")  # fmt: skip
    cpu = [a + b for a, b in zip(got["begin CPU"], got["commit CPU"], strict=True)]
    wall = [a + b for a, b in zip(got["begin wall"], got["commit wall"], strict=True)]
    print(f"begin+commit: CPU median {statistics.median(cpu):.2f} ms, "
          f"wall median {statistics.median(wall):.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
