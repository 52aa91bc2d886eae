"""Where the embedded store's memory goes as facts grow: qdrant-edge alone, by storage option.

Loads ``--points`` points of memguard's payload shape (the reserved block with its provenance record,
~1.5 KB of JSON, 10 owners round-robin in batches of 512, 384-d random unit vectors) into a
:class:`~memguard.stores.edge.QdrantEdgeStore` built with one named layout, closes it, and then opens
the folder in a **new process** (no copy of the vectors there) and reports, from ``/proc/self/status``:
RSS after ``import``, after the open, and after ``--searches`` owner-scoped searches, split into
anonymous memory (heap: what the engine keeps in RAM) and file-backed pages (mmap'd segment files the
searches touched, which the kernel may drop), plus the peak (``VmHWM``). It also checks recall@10 of the
scoped search against numpy's exact top 10 of the owner's points (in the loading process).

    python benchmarks/bench_memory.py --points 100000 --layouts main default
    python benchmarks/bench_memory.py --points 200000 --dir /var/tmp/mg-mem --keep

Layouts: ``main`` is the layout of the store before the memory round (vectors and payload indexes in
RAM); ``default`` is what :class:`QdrantEdgeStore` opens with now. The guarded-stack figures (ledger,
Python heap) are in ``bench_storage.py``; this one isolates the engine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memguard.scope import FIELDS, And, Eq
from memguard.stores.base import StoredPoint
from memguard.stores.edge import QdrantEdgeStore, StorageLayout

DIM = 384
OWNERS = 10
BATCH = 512
K = 10
ISS = "https://memguard.local"

class _Without(QdrantEdgeStore):
    """The store without some of its payload indexes (to measure what they hold; never used by memguard)."""

    skip: frozenset[str] = frozenset()

    def _ensure_indexes(self, shard: object) -> None:
        saved = dict(FIELDS)
        try:
            for name in self.skip:
                FIELDS.pop(name, None)  # type: ignore[attr-defined]
            super()._ensure_indexes(shard)  # type: ignore[arg-type]
        finally:
            FIELDS.clear()  # type: ignore[attr-defined]
            FIELDS.update(saved)  # type: ignore[attr-defined]


class _NoIndexes(_Without):
    skip = frozenset(FIELDS)


class _NoFactIdIndex(_Without):
    skip = frozenset({"fact_id"})


#: variants that change the store's payload indexes, not only its layout (measurement only)
STORES: dict[str, type[QdrantEdgeStore]] = {"no-indexes": _NoIndexes, "no-fact-id-index": _NoFactIdIndex}

LAYOUTS: dict[str, StorageLayout] = {
    "main": StorageLayout.in_ram(),
    "default": StorageLayout(),
    "cold-vectors": StorageLayout(vectors="cold", payload=None, payload_indexes=None),
    "cold-indexes": StorageLayout(vectors=None, payload=None, payload_indexes="cold"),
    "cold-ids": StorageLayout(id_tracker="cold"),
    "no-indexes": StorageLayout(),
    "no-fact-id-index": StorageLayout(),
}


def status() -> dict[str, float]:
    """RSS, its anonymous and file-backed parts, and the peak, in MiB (``/proc/self/status``)."""
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = int(rest.split()[0]) / 1024
    return out


def payload(i: int, owner: int, fact_id: str) -> dict[str, object]:
    """A payload of the shape and size the guard writes (memguard/stores/base.py's reserved block)."""
    digest = "sha256:" + uuid.uuid4().hex + uuid.uuid4().hex
    subject = {"issuer": ISS, "subject": f"owner-{owner}"}
    record = {
        "content_digest": digest, "created_at": "2026-12-07T11:04:14.672836Z", "derived_from": [],
        "fact_id": fact_id, "lineage_trust": "user", "namespace": "notes", "owner": subject,
        "policy_digest": digest, "scan": {"cap": None, "endorsed_by": None, "label": "clean",
        "reasons": [], "refused": False, "scanner": "memguard.rules", "score": 0.0,
        "uncapped": None, "version": "4"}, "source": {"kind": "user_message", "name": None, "uri": None},
        "trust": "user", "trust_reason": "source user_message default user; writer depth 0 ceiling user",
        "turn": {"session_id": "bench", "span_id": None, "trace_id": None, "turn_index": i},
        "version": 1, "writer": {"actors": [], "client_id": "memguard-local", "subject": subject,
        "token_jti": uuid.uuid4().hex[:22], "workload_id": None},
    }  # fmt: skip
    return {
        "text": f"fact bench-{i}", "metadata": {},
        "memguard": {"fact_id": fact_id, "namespace": "notes", "owner_iss": ISS,
                     "owner_sub": f"owner-{owner}", "trust": 4, "source_kind": "user_message",
                     "writer_sub": f"owner-{owner}", "workload_id": None, "created_at": 1796641454 + i,
                     "derived_from_count": 0, "lineage_trust": 4, "version": 1,
                     "record_digest": digest, "record": record},
    }  # fmt: skip


def unit(rng: np.random.Generator, n: int) -> npt.NDArray[np.float32]:
    m = rng.standard_normal((n, DIM), dtype=np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def scope(owner: int) -> And:
    return And((Eq("owner_iss", ISS), Eq("owner_sub", f"owner-{owner}")))


def load(path: Path, name: str, points: int, queries: int, optimize: bool = False) -> dict[str, float]:
    """Write ``points`` points; recall@10 of owner-0's scoped search against numpy; close."""
    rng = np.random.default_rng(points)
    layout = LAYOUTS[name]
    store = STORES.get(name, QdrantEdgeStore)(path, layout=layout)
    ids: list[str] = []
    owner0: list[npt.NDArray[np.float32]] = []
    owner0_ids: list[str] = []
    t0, c0 = time.perf_counter(), time.process_time()
    for b, start in enumerate(range(0, points, BATCH)):
        n = min(BATCH, points - start)
        owner = b % OWNERS
        vecs = unit(rng, n)
        batch_ids = [str(uuid.uuid4()) for _ in range(n)]
        store.upsert([StoredPoint(f, payload(start + j, owner, f), tuple(v.tolist()))
                      for j, (f, v) in enumerate(zip(batch_ids, vecs, strict=True))])  # fmt: skip
        ids += batch_ids
        if owner == 0:
            owner0.append(vecs)
            owner0_ids += batch_ids
    out = {"load_s": time.perf_counter() - t0, "load_cpu_s": time.process_time() - c0}
    mine = np.concatenate(owner0)
    mine_ids = np.asarray(owner0_ids)
    recall = []
    for q in unit(rng, queries):
        hits = store.search(q.tolist(), condition=scope(0), limit=K)
        exact = set(mine_ids[np.argsort(-(mine @ q))[:K]].tolist())
        recall.append(len(exact & {h.fact_id for h in hits}) / K)
    if optimize:  # `memguard store optimize`: immutable segments (and graphs for owners above the threshold)
        t0, c0 = time.perf_counter(), time.process_time()
        store.optimize()
        out["optimize_s"], out["optimize_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
        for q in unit(rng, queries):
            hits = store.search(q.tolist(), condition=scope(0), limit=K)
            exact = set(mine_ids[np.argsort(-(mine @ q))[:K]].tolist())
            recall.append(len(exact & {h.fact_id for h in hits}) / K)
    out["recall10_min"] = min(recall)
    out["recall10_mean"] = float(np.mean(recall))
    out["segments"] = store._shard.info().segments_count
    store.close()
    out["disk_mib"] = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20
    return out


def reopen(path: Path, layout_name: str, searches: int) -> dict[str, float]:
    """A new process opens the folder and searches owner-0's scope ``searches`` times."""
    code = "\n".join([
        "import json, sys, time, numpy as np",
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})",
        "from bench_memory import LAYOUTS, STORES, scope, status, unit",
        "from memguard.stores.edge import QdrantEdgeStore",
        "out = {f'import_{k}': v for k, v in status().items()}",
        "t0 = time.perf_counter()",
        f"s = STORES.get({layout_name!r}, QdrantEdgeStore)({str(path)!r}, layout=LAYOUTS[{layout_name!r}])",
        "out['open_s'] = time.perf_counter() - t0",
        "out.update({f'open_{k}': v for k, v in status().items()})",
        "rng = np.random.default_rng(7)",
        "c0 = time.process_time()",
        f"for q in unit(rng, {searches}):",
        "    s.search(q.tolist(), condition=scope(0), limit=10)",
        f"out['search_cpu_ms'] = (time.process_time() - c0) * 1000 / {searches}",
        "out.update({f'search_{k}': v for k, v in status().items()})",
        "s.close()",
        "print(json.dumps(out))",
    ])  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--layouts", nargs="*", default=["main", "default"], choices=sorted(LAYOUTS))
    ap.add_argument("--queries", type=int, default=20, help="recall@10 queries in the loading process")
    ap.add_argument("--searches", type=int, default=50, help="searches in the new process")
    ap.add_argument("--dir", type=Path, default=None, help="where the folders go (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep each layout's folder")
    ap.add_argument("--optimize", action="store_true", help="run the store's optimize before closing")
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()}  points: {args.points:,}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="mg-bench-memory-") as tmp:
        root = args.dir or Path(tmp)
        for name in args.layouts:
            path = root / f"mem-{name}-{args.points}"
            if path.exists():
                shutil.rmtree(path)
            row: dict[str, object] = {"layout": name, "points": args.points, "load_before": os.getloadavg()[0]}
            row.update(load(path, name, args.points, args.queries, args.optimize))
            row["optimized"] = args.optimize
            row.update(reopen(path, name, args.searches))
            row["load_after"] = os.getloadavg()[0]
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.json_out is not None:
                args.json_out.write_text(json.dumps(rows, indent=1))
            if not args.keep:
                shutil.rmtree(path)
    print()
    print("| layout | optimized | points | load avg | open s | RSS MiB after open (anon + file) | after searches (anon + file) "
          "| peak | search CPU ms | recall@10 mean (min) | disk MiB |")  # fmt: skip
    print("|" + "---|" * 11)
    for r in rows:
        print(f"| {r['layout']} | {'yes' if r['optimized'] else 'no'} | {r['points']:,} | {r['load_before']:.1f}-{r['load_after']:.1f} | {r['open_s']:.2f} | "
              f"{r['open_VmRSS']:.0f} ({r['open_RssAnon']:.0f} + {r['open_RssFile']:.0f}) | "
              f"{r['search_VmRSS']:.0f} ({r['search_RssAnon']:.0f} + {r['search_RssFile']:.0f}) | "
              f"{r['search_VmHWM']:.0f} | {r['search_cpu_ms']:.2f} | {r['recall10_mean']:.3f} ({r['recall10_min']:.2f}) | "
              f"{r['disk_mib']:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
