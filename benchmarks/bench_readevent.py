"""CPU of a read's allow event alone (memguard/ledger/readevent.py), on a ledger that already holds
many reads: what the audit tables' indexes cost a search (issue 16).

Fills a SQLite ledger with ``--prefill`` read events of ``--links`` facts each (fact ids drawn from
``--facts``), then times ``--calls`` more (``Ledger.record(..., durable=False)``, the path every
search's allow event takes), ``--rounds`` rounds, and prints the median and the best round in us
of process CPU per event (and the wall median: on PostgreSQL the server's work is not this
process's CPU), with the load average. The same script runs on an older checkout for a
before/after (a venv whose memguard is not an editable install of this one, with
``PYTHONPATH=/path/to/checkout``); run the two alternately.

    python benchmarks/bench_readevent.py --prefill 100000
    python benchmarks/bench_readevent.py --url 'postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3Dmy_empty_schema'

``--url``: a ledger there instead of a SQLite file (an empty database or schema: PostgreSQL takes
the transaction every other event takes, not the SQLite driver path).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import memguard
from memguard import Ledger
from memguard.events import AuditEvent, Decision


def _event(rng: random.Random, ids: list[str], links: int, *, uuid4: bool = False) -> AuditEvent:
    extra = {"event_id": str(uuid.uuid4())} if uuid4 else {}  # else the model's own (UUIDv7)
    return AuditEvent(action="search", decision=Decision.ALLOW, reason="ok", **extra,
                      principal={"subject": "owner-0", "issuer": "https://id.example"},
                      fact_ids=tuple(rng.sample(ids, links)),
                      detail={"k": links, "returned_count": links})  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--prefill", type=int, default=100_000)
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--links", type=int, default=10)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--url", default=None, help="a ledger URL (empty) instead of a SQLite file")
    ap.add_argument(
        "--uuid4-events",
        action="store_true",
        help="random event ids (version 4, as before the time-ordered ones) for an A/B",
    )
    args = ap.parse_args()
    print(f"memguard from {Path(memguard.__file__).parent}")
    print(f"event ids: {'uuid4' if args.uuid4_events else 'uuid7 (the default)'}")
    rng = random.Random(7)
    ids = [f"{rng.getrandbits(128):032x}" for _ in range(args.facts)]
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{Path(tmp) / 'ledger.db'}"
        ledger = Ledger.from_url(url, witness=None)
        ledger.log.batch_size = 10**9  # integration is not what is measured here
        ledger.log.max_delay = 1e9
        try:
            for start in range(0, args.prefill, 1000):
                n = min(1000, args.prefill - start)
                ledger.record(
                    [_event(rng, ids, args.links, uuid4=args.uuid4_events) for _ in range(n)],
                    durable=False,
                )
            ledger.log.integrate(max_batch=10**9)
            rounds, walls = [], []
            for _ in range(args.rounds):
                events = [
                    _event(rng, ids, args.links, uuid4=args.uuid4_events) for _ in range(args.calls)
                ]
                t0, w0 = time.process_time(), time.perf_counter()
                for ev in events:
                    ledger.record([ev], durable=False)
                rounds.append((time.process_time() - t0) / args.calls * 1e6)
                walls.append((time.perf_counter() - w0) / args.calls * 1e6)
        finally:
            ledger.close()
    print(f"load average {os.getloadavg()}")
    print(f"read event with {args.links} links after {args.prefill:,} reads: "
          f"median {statistics.median(rounds):.1f} us CPU, best round {min(rounds):.1f} us; "
          f"wall median {statistics.median(walls):.1f} us")  # fmt: skip


if __name__ == "__main__":
    main()
