"""Revocation of a large lineage, and ``memguard audit`` on a large audit log.

1. **revoke**: a web page with N descendants (three shapes: fan-out, one chain N deep, a binary tree)
   in Qdrant local mode (``":memory:"``) and a SQLite ledger (WAL, ``synchronous=FULL``). The
   descendants are loaded through the ledger's own write protocol in bulk (pending -> store ->
   committed with their lineage edges); the timed call is ``guard.revoke(user, source selector)``,
   split into the ledger transaction (match, recursive descendant query, quarantine rows, event)
   and the store sync (``trust = quarantined`` on every point).
2. **audit**: one fact with a 3-level lineage and a few dozen events in a ledger of E audit events,
   integrated into the Merkle tree and checkpointed; the timed call is ``audit_fact`` (provenance,
   lineage both ways, reads, quarantine, every event's inclusion proof against the signed checkpoint).
   The command's wall time (``python -m memguard audit ... --json``, a new process) is reported too.

    python benchmarks/bench_lineage.py            # N = 10^4, E = 10^6 (several minutes)
    python benchmarks/bench_lineage.py --quick    # N = 10^3, E = 10^5 (about a minute)
"""

from __future__ import annotations

import argparse
import logging
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from memguard import (
    AuditEvent,
    Decision,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    Provenance,
    QdrantStore,
    Source,
    SourceKind,
    Turn,
)
from memguard.audit import audit_fact
from memguard.embedding import HashEmbedder
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.logging import configure_json_logging
from memguard.provenance import content_digest, now_utc
from memguard.revocation import RevocationSelector
from memguard.stores.base import StoredPoint, build_payload
from memguard.trust import TrustLevel

DIM = 64
URL = "https://poison.example/page"
PLANNER = "spiffe://memguard.local/agent/planner"


def parents_for(shape: str, n: int) -> list[int]:
    """parent index (into [root, d0, d1, ...]) of each descendant."""
    if shape == "fanout":
        return [0] * n
    if shape == "chain":
        return list(range(n))
    return [(i + 1) // 2 for i in range(n)]  # binary tree over [root, d0, ...]: node k's parent


def bulk_descendants(guard: MemoryGuard, root: Provenance, parents: list[int]) -> list[str]:
    ids = [root.fact_id] + [str(uuid.uuid4()) for _ in parents]
    vec = HashEmbedder(DIM).embed(["derived"])[0]
    batch = 500
    for start in range(0, len(parents), batch):
        records, points, edges = [], [], []
        for i in range(start, min(start + batch, len(parents))):
            fid, parent = ids[i + 1], ids[parents[i]]
            text = f"derived fact {i}"
            prov = Provenance(
                fact_id=fid, version=1, namespace="research", owner=root.owner,
                source=Source(kind=SourceKind.AGENT_INFERENCE, name="planner"),
                turn=Turn(session_id="bench", turn_index=i + 2), trust=TrustLevel.UNTRUSTED,
                trust_reason="min of inputs = untrusted",
                writer=root.writer,
                derived_from=(parent,), created_at=now_utc(),
                content_digest=content_digest(text, {}), policy_digest=root.policy_digest,
            )  # fmt: skip
            records.append(prov)
            points.append(StoredPoint(fid, build_payload(text, {}, prov), vec))
            edges.append((fid, parent, "derived"))
        guard.ledger.begin(records)
        guard.store.upsert(points)
        guard.ledger.commit(records, [], edges=edges)
    return ids


def _timed(fn: Callable[[dict[str, int]], None], into: list[float]) -> Callable[[dict[str, int]], None]:
    def timed(trust: dict[str, int]) -> None:
        t = time.perf_counter()
        fn(trust)
        into.append(time.perf_counter() - t)

    return timed


def bench_revoke(n: int, shapes: list[str]) -> list[str]:
    rows = []
    for shape in shapes:
        with tempfile.TemporaryDirectory() as tmp:
            tokens = LocalTokenService(Path(tmp) / "keys")
            guard = MemoryGuard(
                store=QdrantStore(location=":memory:", dimension=DIM),
                ledger=Ledger.sqlite(Path(tmp) / "ledger.db"),
                verifier=tokens.verifier(),
                embedder=HashEmbedder(DIM),
            )
            user = guard.authenticate(tokens.issue("alice"))
            browser = guard.authenticate(tokens.issue("alice", actors=[PLANNER]))
            root = guard.write(browser, "poisoned page", namespace="research",
                               source=Source(kind=SourceKind.WEB, uri=URL),
                               turn=Turn(session_id="bench", turn_index=1))  # fmt: skip
            t0 = time.perf_counter()
            bulk_descendants(guard, root, parents_for(shape, n))
            load = time.perf_counter() - t0
            synced: list[float] = []
            guard.store.set_trust = _timed(guard.store.set_trust, synced)  # type: ignore[method-assign]
            t0 = time.perf_counter()
            report = guard.revoke(user, RevocationSelector.source(URL), reason="benchmark")
            total = time.perf_counter() - t0
            assert report.count == n + 1, report.count
            assert guard.search(user, "derived fact", k=10) == []
            store_s = sum(synced)
            rows.append(
                f"| {n:,} | {shape} | {total * 1000:,.0f} | {(total - store_s) * 1000:,.0f} |"
                f" {store_s * 1000:,.0f} | {load:,.1f} |"
            )
            guard.close()
    return rows


def bench_audit(events: int, repeats: int) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        signer = CheckpointSigner.load_or_create(state / "keys" / "checkpoint.key")
        tokens = LocalTokenService(state / "keys")
        ledger = Ledger.sqlite(state / "ledger.db", checkpoint_signer=signer)
        guard = MemoryGuard(
            store=QdrantStore(path=str(state / "qdrant"), dimension=384, partition_by_owner=True),
            ledger=ledger,
            verifier=tokens.verifier(),
        )
        user = guard.authenticate(tokens.issue("alice"))
        agent = guard.authenticate(tokens.issue("alice", actors=[PLANNER]))
        turn = Turn(session_id="bench", turn_index=1)
        page = guard.write(agent, "page", namespace="r", source=Source(kind=SourceKind.WEB, uri=URL),
                           turn=turn)  # fmt: skip
        mid = guard.write(agent, "summary", namespace="r",
                          source=Source(kind=SourceKind.AGENT_INFERENCE, name="p"), turn=turn,
                          derived_from=[page.fact_id])  # fmt: skip
        top = guard.write(agent, "plan", namespace="r",
                          source=Source(kind=SourceKind.AGENT_INFERENCE, name="p"), turn=turn,
                          derived_from=[mid.fact_id])  # fmt: skip
        for i in range(30):
            guard.get(user if i % 2 else agent, top.fact_id, purpose="answer")
        t0 = time.perf_counter()
        batch = 5000
        written = ledger.count_events()
        while written < events:
            size = min(batch, events - written)
            ledger.record(
                [
                    AuditEvent(action="search", decision=Decision.ALLOW, reason="ok",
                               principal={"subject": "bob", "actors": []},
                               fact_ids=(), detail={"n": written + i})
                    for i in range(size)
                ]
            )  # fmt: skip
            written += size
            ledger.log.integrate(max_batch=50_000)
        ledger.log.flush()
        fill = time.perf_counter() - t0
        guard.get(user, top.fact_id)  # an event after the checkpoint, proved unsigned
        ledger.log.integrate()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            report = audit_fact(ledger, guard.store, top.fact_id)
            times.append(time.perf_counter() - t)
        assert report["verification"]["verified"], report["verification"]
        n_events = len(report["events"])
        guard.close()
        cli = []
        for _ in range(3):
            t = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "memguard", "audit", top.fact_id, "--json",
                 "--state-dir", str(state)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            cli.append(time.perf_counter() - t)
            assert proc.returncode == 0, proc.stderr
        ledger_events = ledger.count_events()
        ledger.close()
        return [
            f"| {ledger_events:,} | {n_events} | {statistics.median(times) * 1000:.1f} |"
            f" {max(times) * 1000:.1f} | {statistics.median(cli) * 1000:.0f} | {fill:,.0f} |"
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--descendants", type=int)
    parser.add_argument("--events", type=int)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    configure_json_logging(logging.CRITICAL)
    n = args.descendants or (1_000 if args.quick else 10_000)
    e = args.events or (100_000 if args.quick else 1_000_000)
    print("## revoke a source with N descendants (ms)\n")
    print("| N | shape | revoke total | ledger txn | store sync | load (s) |")
    print("|---:|---|---:|---:|---:|---:|")
    for row in bench_revoke(n, ["fanout", "chain", "tree"]):
        print(row, flush=True)
    print("\n## audit one fact on a ledger of E events (ms)\n")
    print("| events in ledger | events of the fact | audit_fact p50 | max | `memguard audit` process | fill (s) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for row in bench_audit(e, 5 if args.quick else 20):
        print(row, flush=True)


if __name__ == "__main__":
    main()
