"""Cost of the tamper-evident audit log (memguard/ledger/auditlog.py) on the SQLite ledger.

1. Group commit: the audit log's cost per event, amortized, when events are recorded one per
   transaction (as the guard does) and integrated in batches of 1, 64, 256 and 1024
   (``AuditLog(batch_size=B)``, ``maybe_integrate()`` after every event, a signed checkpoint every
   1024 leaves). Counted: queueing the leaf hash inside the event's transaction, the integration
   transactions, the checkpoints. Not counted: the event transaction itself (the ledger's cost),
   shown for context. SQLite WAL with ``synchronous=FULL``, as the ledger opens it.
2. Proofs in a log of 10^5 and 10^6 events: inclusion proof generation (from stored nodes: two
   queries) plus verification against the signed checkpoint's root, and consistency proof
   generation plus verification, per proof. The big logs are built fast: events bulk-inserted with
   their queued leaf hashes, then integrated in batches of 65536 through ``AuditLog.integrate``.

    .venv/bin/python benchmarks/bench_auditlog.py --quick   # 10^5 only, short runs (< 1 min)
    .venv/bin/python benchmarks/bench_auditlog.py           # 10^5 and 10^6 (~5 min)
    .venv/bin/python benchmarks/bench_auditlog.py --workdir /tmp/mg-bench   # keep the big logs

Prints markdown tables; wall-clock medians and CPU time (the CPU column is steadier on a busy
machine; the wall column includes fsync waits).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

from sqlalchemy import Connection

from memguard.events import AuditEvent, Decision
from memguard.ledger import Ledger
from memguard.ledger.auditlog import AuditLog
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.rfc6962 import leaf_hash
from memguard.provenance import canonical_json

BATCHES = (1, 64, 256, 1024)
CHECKPOINT_EVERY = 1024


def _event(i: int) -> AuditEvent:
    return AuditEvent(
        action="search",
        decision=Decision.ALLOW,
        reason="allowed by rule `owner-reads`",
        principal={"issuer": "https://memguard.local", "subject": f"user-{i % 50}"},
        fact_ids=(str(uuid.uuid4()), str(uuid.uuid4())),
        trace_id=uuid.uuid4().hex,
        purpose="answer",
        policy_digest="sha256:" + "ab" * 32,
        detail={"k": 10, "returned": 2},
    )


class _Meter:
    """Accumulates wall and CPU time of the calls it wraps."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def __call__(self, fn: Callable[[], object]) -> object:
        w, c = time.perf_counter(), time.process_time()
        try:
            return fn()
        finally:
            self.wall += time.perf_counter() - w
            self.cpu += time.process_time() - c


def group_commit(batch: int, events: int, workdir: Path) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(dir=workdir))
    ledger = Ledger.sqlite(folder / "ledger.db")
    with ledger.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    log = AuditLog(
        ledger.engine,
        signer=CheckpointSigner.generate(),
        batch_size=batch,
        max_delay=float("inf"),
        checkpoint_every=CHECKPOINT_EVERY,
        checkpoint_interval=float("inf"),
    )
    ledger.log = log
    enqueue, integrate, record = _Meter(), _Meter(), _Meter()
    inner = log.enqueue

    def timed_enqueue(conn: Connection, pairs: Iterable[tuple[int, str]]) -> None:
        enqueue(lambda: inner(conn, pairs))

    log.enqueue = timed_enqueue  # type: ignore[method-assign]
    evs = [_event(i) for i in range(events)]
    for ev in evs:
        record(lambda ev=ev: ledger.record([ev]))
        integrate(log.maybe_integrate)
    integrate(log.flush)
    assert log.size() == events and log.pending_count() == 0
    checkpoints = len(log.checkpoints())
    ledger.close()
    shutil.rmtree(folder, ignore_errors=True)
    per = 1e6 / events
    return {
        "batch": batch,
        "events": events,
        "wall": (enqueue.wall + integrate.wall) * per,
        "cpu": (enqueue.cpu + integrate.cpu) * per,
        "enqueue": enqueue.wall * per,
        "integrate": integrate.wall * per,
        "record": (record.wall - enqueue.wall) * per,
        "checkpoints": checkpoints,
    }


def build_log(size: int, workdir: Path) -> tuple[Ledger, float]:
    """A ledger of ``size`` events, integrated and checkpointed; reused from ``workdir`` if there."""
    path = workdir / f"auditlog-{size}.db"
    key = workdir / "checkpoint.key"
    signer = CheckpointSigner.load_or_create(key)
    if path.exists():
        ledger = Ledger.sqlite(path, checkpoint_signer=signer)
        last = ledger.log.latest_checkpoint()
        if last is not None and last.tree_size == size and ledger.log.size() == size:
            return ledger, 0.0
        ledger.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    start = time.perf_counter()
    Ledger.sqlite(path).close()  # creates the tables
    template = json.loads(_event(0).canonical())
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=OFF")  # the build is not what is measured
    chunk = 50_000
    for base in range(0, size, chunk):
        events, pending = [], []
        for i in range(base, min(base + chunk, size)):
            template["event_id"] = f"{i:08d}-bench"
            text = canonical_json(template).decode()
            events.append((i + 1, template["event_id"], template["ts"], text))
            pending.append((i + 1, leaf_hash(text.encode()), 0.0))
        raw.executemany(
            "INSERT INTO mg_audit_event (seq, event_id, ts, action, decision, reason, event, "
            "event_digest) VALUES (?, ?, ?, 'search', 'allow', 'bench', ?, '')",
            events,
        )
        raw.executemany(
            "INSERT INTO mg_log_pending (event_seq, leaf_hash, queued_at) VALUES (?, ?, ?)",
            pending,
        )
        raw.commit()
    raw.close()
    ledger = Ledger.sqlite(path, checkpoint_signer=signer)
    while ledger.log.integrate(65_536) == 65_536:
        pass
    ledger.log.checkpoint()
    return ledger, time.perf_counter() - start


def _stats(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def proofs(size: int, count: int, workdir: Path) -> dict[str, float]:
    ledger, build = build_log(size, workdir)
    log = ledger.log
    checkpoint = log.latest_checkpoint()
    assert checkpoint is not None and checkpoint.tree_size == size
    root = checkpoint.root_hash
    rng = random.Random(size)
    for _ in range(20):  # warm the page cache and the statement cache
        log.inclusion_proof(rng.randrange(size), size).verify(root)
    inclusion, consistency, lengths = [], [], []
    for _ in range(count):
        leaf = rng.randrange(size)
        t = time.perf_counter()
        proof = log.inclusion_proof(leaf, size)
        proof.verify(root)
        inclusion.append(time.perf_counter() - t)
        lengths.append(len(proof.path))
    for _ in range(count):
        old = rng.randrange(1, size)
        t = time.perf_counter()
        cproof = log.consistency_proof(old, size)
        cproof.verify(new_root=root)
        consistency.append(time.perf_counter() - t)
    ledger.close()
    inc, inc95 = _stats(inclusion)
    con, con95 = _stats(consistency)
    return {
        "size": size,
        "build": build,
        "inclusion": inc * 1e6,
        "inclusion95": inc95 * 1e6,
        "consistency": con * 1e6,
        "consistency95": con95 * 1e6,
        "path": statistics.median(lengths),
    }


def fsync_probe(folder: Path, rounds: int = 20) -> float:
    samples = []
    path = folder / "fsync.probe"
    with path.open("wb") as fh:
        for _ in range(rounds):
            t = time.perf_counter()
            fh.write(os.urandom(4096))
            fh.flush()
            os.fsync(fh.fileno())
            samples.append(time.perf_counter() - t)
    path.unlink()
    return statistics.median(samples) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="10^5 events only, short runs (< 1 min)")
    ap.add_argument("--sizes", type=int, nargs="+", help="log sizes for the proof benchmark")
    ap.add_argument("--batches", type=int, nargs="*", default=list(BATCHES), help="none: skip")
    ap.add_argument("--events", type=int, help="events per group-commit run (default: by batch)")
    ap.add_argument("--proofs", type=int, help="proofs timed per size")
    ap.add_argument("--workdir", type=Path, help="keep (and reuse) the big logs here")
    args = ap.parse_args()
    sizes = args.sizes or ([100_000] if args.quick else [100_000, 1_000_000])
    count = args.proofs or (100 if args.quick else 500)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mg-bench-auditlog-"))
    workdir.mkdir(parents=True, exist_ok=True)

    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} cpus,"
          f" load {os.getloadavg()[0]:.1f}; one 4 KiB write+fsync: {fsync_probe(workdir):.2f} ms\n")

    print("## Group commit: audit-log cost per event (µs), events recorded one per transaction\n")
    print("| batch | events | audit log wall | audit log CPU | queue leaf hash | integrate + checkpoint"
          " | checkpoints | event tx itself (context) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for batch in args.batches:
        events = args.events or (max(4 * batch, 512) if args.quick else max(16 * batch, 4096))
        r = group_commit(batch, events, workdir)
        print(f"| {batch} | {events} | **{r['wall']:.1f}** | {r['cpu']:.1f} | {r['enqueue']:.1f} |"
              f" {r['integrate']:.1f} | {r['checkpoints']:.0f} | {r['record']:.0f} |", flush=True)

    print("\n## Proofs: generation from stored nodes + verification (µs per proof)\n")
    print("| events | build s | inclusion median | inclusion p95 | consistency median |"
          " consistency p95 | path length |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        r = proofs(size, count, workdir)
        build = f"{r['build']:.1f}" if r["build"] else "reused"
        print(f"| {size:,} | {build} | **{r['inclusion']:.0f}** | {r['inclusion95']:.0f} |"
              f" **{r['consistency']:.0f}** | {r['consistency95']:.0f} | {r['path']:.0f} |",
              flush=True)
    print(f"\ntargets: <= 20 µs per event amortized (batch >= 256); <= 1000 µs per proof. "
          f"workdir: {workdir}")


if __name__ == "__main__":
    main()
