"""Upper bounds of structural changes to a write's ledger work (measurement only), SQLite.

Each variant is a SQLite ledger prefilled with ``--prefill`` facts (batches of 64, UUIDv7 ids, as
the guard makes them), patched to leave one thing out: the change entries' ``mg_audit_fact``
links, the staging-owner rows, or the index on ``state``. Then ``--rounds`` rounds, each doing
``begin`` + ``commit`` of 64 new facts on every variant in turn (interleaved, so load changes hit
them alike): CPU (``process_time``) and bytes written (``/proc/self/io`` ``write_bytes``: WAL
frames and checkpoints), medians. None of the variants is a valid ledger; see docs/storage.md
(write cost round 5)::

    python benchmarks/bench_ledgervariants.py --prefill 10000 --rounds 100
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import types
from pathlib import Path
from typing import Any

from bench_writeforms import batch

from memguard import Ledger
from memguard.events import AuditEvent, Decision
from memguard.ledger.changelinks import entry_links
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.inserts import event_canonical
from memguard.ledger.readevent import event_row
from memguard.provenance import new_uuid7


def batch7(b: int) -> list[Any]:
    """``bench_writeforms.batch`` with UUIDv7 fact ids, as the guard makes them."""
    return [p.model_copy(update={"fact_id": new_uuid7()}) for p in batch(b)]


def wbytes() -> int:
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("write_bytes"):
                return int(line.split()[1])
    return 0



def no_change_links(ledger: Ledger) -> None:
    def _insert_events(self: Any, conn: Any, events: Any) -> None:
        if not events:
            return
        rows = [event_row(ev, event_canonical(ev)) for ev in events]
        seqs = self._event_insert.events(conn, rows)
        self.log.enqueue(conn, zip(seqs, (str(r["event"]) for r in rows), strict=True))
        links = [{"event_seq": s, "fact_id": f} for s, ev in zip(seqs, events, strict=True)
                 if ev.action != CHANGE_ACTION for f in dict.fromkeys(ev.fact_ids)]  # fmt: skip
        if links:
            self._insert_event_fact.run_raw(conn, links, self.log._dbapi_error)
        self._insert_change_fact.run(conn, entry_links(seqs, events))
    ledger._insert_events = types.MethodType(_insert_events, ledger)  # type: ignore[method-assign]


def no_owner_rows(ledger: Ledger) -> None:
    ledger._insert_owner.run = lambda conn, rows: None  # type: ignore[method-assign]
    ledger._fact_keys.drop_owners = lambda conn, keys: None  # type: ignore[method-assign]


def no_state_index(ledger: Ledger) -> None:
    with ledger.engine.begin() as conn:
        conn.exec_driver_sql("DROP INDEX ix_mg_provenance_state")


VARIANTS: dict[str, Any] = {"normal": None, "no_change_entry_audit_links": no_change_links,
            "no_owner_rows": no_owner_rows, "no_state_index": no_state_index}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefill", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=100)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    res: dict[str, dict[str, list[float]]] = {
        n: {"begin": [], "commit": [], "begin_kib": [], "commit_kib": []} for n in VARIANTS
    }
    with tempfile.TemporaryDirectory() as tmp:
        ledgers = {}
        for name, patch in VARIANTS.items():
            ledger = Ledger.sqlite(Path(tmp) / name / "ledger.db", witness=None)
            if patch is not None:
                patch(ledger)
            ledgers[name] = ledger
        try:
            for b in range(args.prefill // 64):
                for ledger in ledgers.values():
                    write(ledger, batch7(b))
            for r in range(args.rounds):
                for name, ledger in ledgers.items():
                    got = write(ledger, batch7(10_000 + r))
                    for key, value in got.items():
                        res[name][key].append(value)
        finally:
            for ledger in ledgers.values():
                ledger.engine.dispose()
    print(f"load average after: {os.getloadavg()}")
    print(f"prefill {args.prefill}, rounds {args.rounds}; medians per batch of 64")
    print("| variant | begin CPU ms | commit CPU ms | begin KiB written | commit KiB written |")
    print("|---|---|---|---|---|")
    m = statistics.median
    for n, d in res.items():
        print(f"| {n} | {m(d['begin']):.3f} | {m(d['commit']):.3f} | {m(d['begin_kib']):.0f} | "
              f"{m(d['commit_kib']):.0f} |")  # fmt: skip


def write(ledger: Ledger, records: list[Any]) -> dict[str, float]:
    """``begin`` + ``commit`` of ``records`` with an allow event: CPU ms and KiB written each."""
    for p in records:
        p.record_digest  # noqa: B018 - the record's form, computed outside the timed part
    ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                    fact_ids=tuple(p.fact_id for p in records))  # fmt: skip
    w0, t0 = wbytes(), time.process_time()
    ledger.begin(records)
    w1, t1 = wbytes(), time.process_time()
    ledger.commit(records, [ev])
    w2, t2 = wbytes(), time.process_time()
    return {"begin": (t1 - t0) * 1e3, "commit": (t2 - t1) * 1e3,
            "begin_kib": (w1 - w0) / 1024, "commit_kib": (w2 - w1) / 1024}  # fmt: skip


if __name__ == "__main__":
    main()
