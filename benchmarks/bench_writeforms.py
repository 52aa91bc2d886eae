"""The per-fact forms of a guarded ``write_many(64)``, without the scanner and the store engine.

For each batch: 64 new provenance records (parsed from fixed texts, not timed: a new record
has no cached form), then, each timed with ``time.process_time`` (CPU, means over the batches):

- payloads: ``build_payload`` of each record (its canonical JSON, digest and the store payload);
- begin: ``Ledger.begin`` (the pending rows and their change entry) on a SQLite ledger;
- commit: ``Ledger.commit`` with one allow event (state change, event, change entry, the fsync).

The same records each run (fixed texts, new fact ids per batch), so two checkouts compare on
the same work; run them alternately (paired A/B), e.g.::

    python benchmarks/bench_writeforms.py --batches 200
    PYTHONPATH=/tmp/base python benchmarks/bench_writeforms.py --batches 200   # the baseline

It prints the load average before and after, and which ``memguard`` it imported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import memguard
from memguard import Ledger
from memguard.events import AuditEvent, Decision
from memguard.provenance import Provenance
from memguard.stores.base import build_payload

BATCH = 64
_TEMPLATE = (
    '{"content_digest":"sha256:%(c)s","created_at":"%(t)s","derived_from":[],"fact_id":"%(id)s",'
    '"lineage_trust":"user","namespace":"notes","owner":{"issuer":"https://memguard.local",'
    '"subject":"owner-%(o)d"},"policy_digest":"sha256:%(p)s","scan":{"cap":null,"endorsed_by":null,'
    '"label":"clean","reasons":[],"refused":false,"scanner":"memguard.rules+memguard.model",'
    '"score":0.2286,"uncapped":null,"version":"6+3+89794d4d5703"},"source":{"kind":"user_message",'
    '"name":null,"uri":null},"trust":"user","trust_reason":"source user_message default user; '
    'writer depth 0 ceiling user","turn":{"session_id":"bench-%(o)d","span_id":null,"trace_id":null,'
    '"turn_index":%(i)d},"version":1,"writer":{"actors":[],"client_id":"memguard-local","subject":'
    '{"issuer":"https://memguard.local","subject":"owner-%(o)d"},"token_jti":"VgO4uOxup2Z-5MZGg1Mlyw",'
    '"workload_id":null}}'
)


def batch(b: int) -> list[Provenance]:
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    return [
        Provenance.model_validate_json(
            _TEMPLATE
            % {
                "c": f"{b:032x}{i:032x}",
                "t": now,
                "id": str(uuid.uuid4()),
                "o": b % 10,
                "p": "0" * 64,
                "i": i,
            }
        )
        for i in range(BATCH)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    print(f"memguard from {Path(memguard.__file__).parent}")
    print(f"load average before: {os.getloadavg()}")
    times: dict[str, list[float]] = {"payloads": [], "begin": [], "commit": []}
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger.sqlite(Path(tmp) / "ledger.db", witness=None)
        try:
            for b in range(args.warmup + args.batches):
                records = batch(b)
                ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                                fact_ids=tuple(p.fact_id for p in records))  # fmt: skip
                t0 = time.process_time()
                for p in records:
                    build_payload("a short text", {"k": b}, p)
                t1 = time.process_time()
                ledger.begin(records)
                t2 = time.process_time()
                ledger.commit(records, [ev])
                t3 = time.process_time()
                if b >= args.warmup:
                    times["payloads"].append(t1 - t0)
                    times["begin"].append(t2 - t1)
                    times["commit"].append(t3 - t2)
        finally:
            ledger.engine.dispose()
    print(f"load average after: {os.getloadavg()}")
    for name, got in times.items():
        print(f"{name}: CPU mean {statistics.fmean(got) * 1e3:.3f} ms, "
              f"median {statistics.median(got) * 1e3:.3f} ms per batch of {BATCH}")  # fmt: skip
    total = [sum(t) for t in zip(*times.values(), strict=True)]
    print(f"all three: CPU mean {statistics.fmean(total) * 1e3:.3f} ms, "
          f"median {statistics.median(total) * 1e3:.3f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
