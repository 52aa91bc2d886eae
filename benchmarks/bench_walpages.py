"""Where the WAL bytes of a guarded write go: the pages ``Ledger.begin`` and ``Ledger.commit`` of
64 new facts dirty, per table and per index, on a SQLite ledger prefilled with ``--prefill``
facts (issue 16).

Before each timed transaction the WAL is checkpointed and truncated (``wal_checkpoint(TRUNCATE)``
on a connection of its own); after it, the WAL file's frame headers name the pages the
transaction wrote, and SQLite's ``dbstat`` table names the B-tree each page belongs to (a page on
the free list is ``(free)``; page 1, the file header, is ``(header)``). One frame is one page
plus a 24-byte header. Figures are means per batch of 64 over ``--batches`` batches, with the
log's queued leaves integrated after each batch (the integration's pages are counted apart,
``integrate``, since a guard integrates when ``maybe_integrate`` says so, in batches).

    PYTHONPATH=. python benchmarks/bench_walpages.py --prefill 10000

It prints which ``memguard`` it imported. The figures are counts, not times: load does not move
them.
"""

from __future__ import annotations

import argparse
import sqlite3
import struct
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import bench_writeforms
from bench_writeforms import batch

import memguard
from memguard import Ledger
from memguard.context import external_fact_id
from memguard.events import AuditEvent, Decision
from memguard.provenance import Provenance, new_uuid7

_WAL_HEADER = 32
_FRAME_HEADER = 24


def _frames(wal: Path) -> list[int]:
    """The page number of each frame in the WAL file (in order; a page may repeat)."""
    data = wal.read_bytes() if wal.exists() else b""
    if len(data) < _WAL_HEADER:
        return []
    page_size = struct.unpack(">I", data[8:12])[0]
    salt = data[16:24]
    out = []
    at = _WAL_HEADER
    while at + _FRAME_HEADER + page_size <= len(data):
        pgno = struct.unpack(">I", data[at : at + 4])[0]
        if data[at + 8 : at + 16] != salt:  # a frame left over from before the last reset
            break
        out.append(pgno)
        at += _FRAME_HEADER + page_size
    return out


def _owners(conn: sqlite3.Connection) -> dict[int, str]:
    owners = {1: "(header)"}
    for name, pageno, pagetype in conn.execute("SELECT name, pageno, pagetype FROM dbstat"):
        owners[pageno] = f"{name} [overflow]" if pagetype == "overflow" else name
        if pageno == 1:
            owners[1] = "(header)"
    return owners


class _Meter:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.wal = Path(str(path) + "-wal")
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.page_size = int(self.conn.execute("PRAGMA page_size").fetchone()[0])
        self.pages: dict[str, Counter[str]] = {}

    def reset(self) -> None:
        busy, _, _ = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise RuntimeError("checkpoint blocked by another connection")

    def measure(self, stage: str, run: Callable[[], object]) -> None:
        self.reset()
        run()
        frames = _frames(self.wal)
        owners = _owners(self.conn)
        got = self.pages.setdefault(stage, Counter())
        for pgno in frames:
            got[owners.get(pgno, "(free)")] += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--prefill", type=int, default=10000, help="facts written before measuring")
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--ids", choices=("uuid7", "uuid5"), default="uuid7",
                    help="fact ids: the guard's own (uuid7) or the adapters' (external_fact_id)")
    args = ap.parse_args()
    counter = iter(range(10**9))
    make = new_uuid7 if args.ids == "uuid7" else (
        lambda: external_fact_id("qdrant", "bench", str(next(counter))))
    bench_writeforms.uuid = type("U", (), {"uuid4": staticmethod(make)})  # type: ignore[assignment]
    print(f"fact ids: {args.ids}")
    print(f"memguard from {Path(memguard.__file__).parent}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.db"
        ledger = Ledger.sqlite(path, witness=None)
        try:
            for b in range(args.prefill // 64):
                records = batch(100000 + b)
                ledger.begin(records)
                ledger.commit(records, [_event(records)])
                if b % 16 == 15:
                    ledger.log.integrate()
            ledger.log.integrate()
            meter = _Meter(path)
            print(f"page size {meter.page_size} B; prefilled {args.prefill // 64 * 64} facts")
            for b in range(args.batches):
                records = batch(b)
                meter.measure("begin", lambda r=records: ledger.begin(r))  # type: ignore[misc]
                meter.measure("commit", lambda r=records: ledger.commit(r, [_event(r)]))  # type: ignore[misc]
                meter.measure("integrate", ledger.log.integrate)
            meter.conn.close()
        finally:
            ledger.engine.dispose()
    frame = meter.page_size + _FRAME_HEADER
    total = 0.0
    for stage, counts in meter.pages.items():
        pages = sum(counts.values()) / args.batches
        total += pages
        print(f"\n{stage}: {pages:.1f} pages, {pages * frame / 1024:.1f} KiB per batch of 64, "
              f"{pages * frame / 64 / 1024:.2f} KiB per fact")  # fmt: skip
        for name, n in counts.most_common():
            print(f"  {n / args.batches:6.1f}  {name}")
    print(f"\nall three: {total:.1f} pages, {total * frame / 1024:.1f} KiB per batch, "
          f"{total * frame / 64 / 1024:.2f} KiB per fact")  # fmt: skip


def _event(records: list[Provenance]) -> AuditEvent:
    return AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                      fact_ids=tuple(p.fact_id for p in records))  # fmt: skip


if __name__ == "__main__":
    main()
