"""What logging every projection change costs, and what a full replay of a big log costs.

Two parts:

1. Guarded writes and gets (a guard on an in-memory store, 8-d vectors, and a SQLite file ledger,
   WAL, ``synchronous=FULL``): medians, then ``Ledger.verify()`` (tree + replay of every change
   entry, compared with every row) against the tree-only ``AuditLog.verify()``.
2. A big log (``--events N`` leaves): facts staged and committed through the ledger's own write
   calls (``Ledger.begin`` + ``Ledger.commit`` with the allow event, ``--batch`` facts per call,
   as a guard's batch write does), signed checkpoints published to a witness folder. Then the full
   replay (``Ledger.verify()``), the tree-only pass, and an incremental verify
   (``since_checkpoint=True``) after 10% more leaves were written past the verified marker.
   Prints seconds, microseconds per leaf and the process's peak RSS.

    .venv/bin/python benchmarks/bench_ledger_replay.py --quick                # < 1 min
    .venv/bin/python benchmarks/bench_ledger_replay.py                        # 300 facts, 20k leaves
    .venv/bin/python benchmarks/bench_ledger_replay.py --facts 0 --events 1000000   # 10^6 (long)

Not run in CI (speed goes here, never in timed test assertions).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from benchutil import quiet_logs

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.events import AuditEvent, Decision
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.witness import WitnessDir
from memguard.provenance import Provenance
from memguard.stores.memory import InMemoryStore


def guarded(root: Path, n: int) -> None:
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
    t0 = time.perf_counter()
    full = ledger.verify()
    full_s = time.perf_counter() - t0
    assert tree.ok and full.ok, full.problems[:3]
    print(f"guarded: facts {n}, leaves {tree.tree_size}")
    print("| measure | result |\n|---|---|")
    print(f"| guarded write, median | {statistics.median(writes) * 1e3:.2f} ms |")
    print(f"| guarded get, median | {statistics.median(gets) * 1e3:.2f} ms |")
    print(f"| AuditLog.verify (tree only) | {tree_s:.2f} s |")
    print(f"| Ledger.verify (tree + replay of every row) | {full_s:.2f} s |")
    guard.close()


def _template(root: Path) -> Provenance:
    """One real stamped record (a guard write) to copy under new fact ids."""
    tokens = LocalTokenService(root / "tkeys")
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(root / "t.db"),
                        verifier=tokens.verifier())  # fmt: skip
    user = guard.authenticate(tokens.issue("alice"))
    prov = guard.write(user, "a template fact", namespace="n",
                       source=Source(kind=SourceKind.USER_MESSAGE),
                       turn=Turn(session_id="s", turn_index=0), vector=[1.0] * 8)  # fmt: skip
    guard.close()
    return prov


def _fill(ledger: Ledger, template: Provenance, leaves: int, batch: int) -> int:
    """Write facts until the log holds ``leaves`` leaves; returns the facts written."""
    facts = 0
    while ledger.log.size() + ledger.log.pending_count() < leaves:
        records = [
            template.model_copy(update={"fact_id": uuid.uuid4().hex}) for _ in range(batch)
        ]
        ledger.begin(records)
        events = [
            AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                       fact_ids=[r.fact_id])
            for r in records
        ]  # fmt: skip
        ledger.commit(records, events)
        facts += batch
    ledger.log.flush()
    return facts


def big_log(root: Path, leaves: int, batch: int) -> None:
    template = _template(root)
    signer = CheckpointSigner.load_or_create(root / "keys" / "checkpoint.key")
    witness = WitnessDir(root / "witness")
    ledger = Ledger.sqlite(root / "big.db", checkpoint_signer=signer, witness=witness)
    t0 = time.perf_counter()
    facts = _fill(ledger, template, leaves, batch)
    build_s = time.perf_counter() - t0
    size = ledger.log.size()
    t0 = time.perf_counter()
    tree = ledger.log.verify()
    tree_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    full = ledger.verify()  # records the marker
    full_s = time.perf_counter() - t0
    assert tree.ok and full.ok and full.marked_verified is not None, full.problems[:3]
    _fill(ledger, template, size + size // 10, batch)
    t0 = time.perf_counter()
    inc = ledger.verify(since_checkpoint=True)
    inc_s = time.perf_counter() - t0
    assert inc.ok and inc.replay_from == full.marked_verified, inc.problems[:3]
    ledger.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nbig log: {size} leaves ({facts} facts, {batch} per write call), built in "
          f"{build_s:.0f} s, database {(root / 'big.db').stat().st_size / 2**20:.0f} MiB")  # fmt: skip
    print("| measure | seconds | µs per leaf |\n|---|---|---|")
    print(f"| AuditLog.verify (tree only), {size} leaves | {tree_s:.2f} | {tree_s / size * 1e6:.1f} |")
    print(f"| Ledger.verify (full replay), {size} leaves | {full_s:.2f} | {full_s / size * 1e6:.1f} |")
    after = inc.tree_size
    print(f"| Ledger.verify(since_checkpoint=True), {after} leaves, {after - inc.replay_from} "
          f"after the marker | {inc_s:.2f} | {inc_s / after * 1e6:.1f} |")  # fmt: skip
    print(f"peak RSS of the process: {rss:.0f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=300, help="guarded writes (0: skip part 1)")
    ap.add_argument("--events", type=int, default=20000, help="leaves of the big log (0: skip)")
    ap.add_argument("--batch", type=int, default=16, help="facts per write call in the big log")
    ap.add_argument("--quick", action="store_true", help="100 facts, 5000 leaves")
    args = ap.parse_args()
    if args.quick:
        args.facts, args.events = 100, 5000
    quiet_logs()
    with tempfile.TemporaryDirectory() as tmp:
        if args.facts:
            guarded(Path(tmp) / "guarded", args.facts)
        if args.events:
            big_log(Path(tmp) / "big", args.events, args.batch)


if __name__ == "__main__":
    main()
