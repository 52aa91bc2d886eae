"""The default ``open_embedded`` build (qdrant-edge in a state folder, SQLite ledger), measured as users run it.

Not ``":memory:"``: the store is the on-disk shard ``open_embedded`` opens. Facts are written through
the guard (``write_many``, batches of 512, round-robin over 10 owners, so a caller's scope holds ~10%
of the facts) with precomputed 384-d unit vectors (embedding excluded). Per size it prints:

- guarded search (``guard.search`` with the caller's scope, k=10) vs the *same engine's* raw filtered
  search (the shard's ``query`` with the very filter the guard pushes down) and raw unfiltered;
- numpy brute force over the caller's facts (a boolean mask, a mat-vec, ``argpartition``);
- recall@10 of guarded search vs the exact top 10 of the caller's facts;
- guarded ``write_many`` of 64 vs the raw engine upsert of the same 64 payloads plus one fdatasync;
- fdatasync calls per guarded write call (``strace -f -c``, if present; else said so);
- peak RSS after loading, and the time ``open_embedded`` takes to reopen the folder.

    python benchmarks/bench_storage.py --quick          # 10^4 without the HNSW phase, CI
    python benchmarks/bench_storage.py                  # 10^4 and 10^5 (~10 min on 2 cores)
    python benchmarks/bench_storage.py --million        # adds 10^6 (hours; ~1.2 GiB per 10^5 on disk)
    python benchmarks/bench_storage.py --sizes 1000000 --queries 20 --no-hnsw   # 10^6 alone, exact
    python benchmarks/bench_storage.py --sizes 100000 --state /var/tmp/mg-bench   # keep the loaded folder
    python benchmarks/bench_storage.py --sizes 100000 --state /var/tmp/mg-bench   # ... and reuse it

``--state DIR`` keeps each size's state folder and the benchmark's copy of what it wrote
(``DIR/arrays-<size>.npz``: vectors, owners, ids of every point in the shard) so a later run skips the
loading and measures the same folder again. The timed writes of each run go to writer subjects of their
own (never ``owner-0``, the measured caller), and every point they add is recorded, so recall stays
exact on a reused folder. A folder without its arrays (a load that was cut short) is loaded afresh.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe
from benchutil import quiet_logs

from memguard import FactInput, Identity, Source, SourceKind, Turn, open_embedded
from memguard.embedded import EmbeddedStack
from memguard.pushdown.edge import to_edge_filter
from memguard.stores.base import StoredPoint
from memguard.stores.edge import HNSW_EF, QdrantEdgeStore, _filter

DIM = 384
OWNERS = 10
BATCH = 64  # the timed write batch
LOAD_BATCH = 512  # loading is set-up, not measured: bigger batches keep the quick run short
K = 10
PROBE = 1_000  # facts of the fixed-size caller measured at each milestone


def unit(rng: np.random.Generator, n: int) -> npt.NDArray[np.float32]:
    m = rng.standard_normal((n, DIM), dtype=np.float32)  # float32 throughout: no 8-byte copy in RSS
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def med_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1000 if xs else float("nan")


def mean_ms(xs: list[float]) -> float:
    """CPU times: the mean (process_time ticks are coarse; a median of them is a tick)."""
    return statistics.mean(xs) * 1000 if xs else float("nan")


def rss_mib() -> float:
    """Peak RSS of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_now_mib() -> float:
    """Current RSS (MiB), from /proc (peak RSS where there is none)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return rss_mib()
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_split() -> dict[str, float]:
    """RSS now, its anonymous part (heap: what the process and the engine keep in memory) and its
    file-backed part (mmap'd pages of the shard's files: clean ones the kernel may drop), in MiB,
    from ``/proc/self/status`` (empty where there is none)."""
    keys = {"VmRSS": "rss_now_mib", "RssAnon": "rss_anon_mib", "RssFile": "rss_file_mib",
            "VmHWM": "rss_peak_mib"}  # fmt: skip
    out: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in keys:
                out[keys[key]] = int(rest.split()[0]) / 1024
    except (OSError, IndexError, ValueError):
        pass
    return out


def facts(vecs: npt.NDArray[np.float32], tag: str) -> list[FactInput]:
    src = Source(kind=SourceKind.USER_MESSAGE)
    return [
        FactInput(text=f"fact {tag}-{i}", namespace="notes", source=src,
                  turn=Turn(session_id="bench", turn_index=i), vector=tuple(float(x) for x in v))
        for i, v in enumerate(vecs)
    ]  # fmt: skip


class Callers:
    """Identities by subject, re-authenticated every half hour (tokens live at most an hour, and a
    10^6 load takes longer)."""

    def __init__(self, stack: EmbeddedStack) -> None:
        self.stack = stack
        self.held: dict[str, tuple[float, object]] = {}

    def __call__(self, subject: str) -> Identity:
        at, ident = self.held.get(subject, (float("-inf"), None))
        if time.monotonic() - at > 1800:
            ident = self.stack.guard.authenticate(self.stack.tokens.issue(subject, ttl=3600))
            self.held[subject] = (time.monotonic(), ident)
        return ident  # type: ignore[return-value]


Milestone = Callable[[int, Callers, "npt.NDArray[np.float32]", "npt.NDArray[np.int64]", list[str]], None]


def progress(msg: str) -> None:
    """Progress on stderr (stdout is silenced while the guard runs), with the time and load average."""
    print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {msg}", file=sys.stderr, flush=True)


def load(
    stack: EmbeddedStack, size: int, rng: np.random.Generator, *, budget_s: float | None = None,
    milestones: tuple[int, ...] = (), at_milestone: Milestone | None = None,
    stats: dict[str, float] | None = None,
) -> tuple[Callers, npt.NDArray[np.float32], npt.NDArray[np.int64], list[str], float]:
    """Write ``size`` facts; returns (the callers, vectors, owner index per fact, fact ids, seconds).

    ``budget_s`` stops loading early (the arrays are cut to what was written); ``at_milestone(n)`` is
    called when ``n`` facts (a value of ``milestones``) are in, its time is not counted as loading.
    ``stats`` gets the loading's CPU seconds (``load_cpu_s``, this process: engine threads included)
    and the batch size (``load_batch``): the guarded ingest rate the report projects to 10^6."""
    guard = stack.guard
    who = Callers(stack)
    vecs = unit(rng, size)
    owner = np.zeros(size, dtype=np.int64)
    ids: list[str] = []
    loading = cpu = 0.0
    done = 0
    pending = sorted(m for m in milestones if m <= size)
    for b, start in enumerate(range(0, size, LOAD_BATCH)):
        t0, c0 = time.perf_counter(), time.process_time()
        chunk = vecs[start : start + LOAD_BATCH]
        recs = guard.write_many(who(f"owner-{b % OWNERS}"), facts(chunk, f"{b}"))  # type: ignore[arg-type]
        owner[start : start + len(chunk)] = b % OWNERS
        ids.extend(r.fact_id for r in recs)
        loading += time.perf_counter() - t0
        cpu += time.process_time() - c0
        done = start + len(chunk)
        if b % 100 == 99:
            split = rss_split()
            progress(f"loaded {done:,} / {size:,} in {loading:.0f} s, RSS {rss_now_mib():.0f} MiB (peak {rss_mib():.0f};"
                     f" anon {split.get('rss_anon_mib', 0):.0f}, file {split.get('rss_file_mib', 0):.0f})")  # fmt: skip
        if pending and done >= pending[0] and at_milestone is not None:
            pending.pop(0)
            at_milestone(done, who, vecs[:done], owner[:done], ids)
        if budget_s is not None and loading > budget_s and done < size:
            progress(f"load budget {budget_s:.0f} s spent at {done:,} facts: stopping there")
            break
    if stats is not None:
        stats.update(load_cpu_s=cpu, load_batch=float(LOAD_BATCH))
    return who, vecs[:done], owner[:done], ids, loading


def pushed_filter(stack: EmbeddedStack, me: object, rng: np.random.Generator) -> tuple[object, qe.SearchParams]:
    """The filter the guard pushes down for ``me`` (taken from a real guarded search's plan) and the
    search params the store uses for that scope (its tenant's graph, or exact)."""
    store = stack.guard.store
    assert isinstance(store, QdrantEdgeStore), type(store)
    captured: list[object] = []
    original = store.search

    def spy(vector, *, condition, limit, offset=0):  # type: ignore[no-untyped-def]
        captured.append(condition)
        return original(vector, condition=condition, limit=limit, offset=offset)

    store.search = spy  # type: ignore[method-assign]
    try:
        stack.guard.search(me, vector=[float(x) for x in unit(rng, 1)[0]], k=K)  # type: ignore[arg-type]
    finally:
        store.search = original  # type: ignore[method-assign]
    condition = captured[0]
    flt = None if condition is None else to_edge_filter(condition)  # type: ignore[arg-type]
    translated = _filter(condition)  # type: ignore[arg-type]
    tenant = translated is not False and translated[1]
    params = qe.SearchParams(hnsw_ef=HNSW_EF) if tenant else qe.SearchParams(exact=True)
    return flt, params


_EXACT = qe.SearchParams(exact=True)


def searches(
    stack: EmbeddedStack, me: object, vecs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_],
    ids: list[str], queries: int, rng: np.random.Generator, tag: str,
) -> dict[str, float]:
    """Guarded vs raw filtered vs raw unfiltered vs numpy over ``me``'s facts (``mask``), and recall@10
    of the guarded search (vs the exact top 10 of ``me``'s facts) and of the raw unfiltered search
    (vs the exact top 10 of every point; ``vecs`` and ``ids`` must then cover the whole shard)."""
    store = stack.guard.store
    assert isinstance(store, QdrantEdgeStore)
    shard = store._shard
    flt, params = pushed_filter(stack, me, rng)
    mine = vecs[mask]
    all_ids = np.asarray(ids)
    mine_ids = all_ids[mask]
    qs = unit(rng, queries)
    g, rf, ru, npb, recall, gc, rfc, recall_all = [], [], [], [], [], [], [], []
    def guarded(ql: list[float]) -> list[object]:
        c0, t0 = time.process_time(), time.perf_counter()
        found = stack.guard.search(me, vector=ql, k=K)  # type: ignore[arg-type]
        g.append(time.perf_counter() - t0)
        gc.append(time.process_time() - c0)
        return found  # type: ignore[return-value]

    def raw(ql: list[float]) -> None:
        c0, t0 = time.process_time(), time.perf_counter()
        shard.query(qe.QueryRequest(limit=K, query=qe.Query.Nearest(ql), filter=flt, params=params,  # type: ignore[arg-type]
                                    with_payload=True))  # fmt: skip
        rf.append(time.perf_counter() - t0)
        rfc.append(time.process_time() - c0)

    for i, q in enumerate(qs):
        ql = [float(x) for x in q]
        # guarded and raw filtered take turns going first: the second runs the same query with
        # the engine's pages and caches warm from the first, and the first comes right after the
        # previous query's unfiltered full scan (which evicts them); always guarded first made
        # every guarded search the cold one (10^5: 27-36 vs 5-6.5 ms CPU, most of it that)
        if i % 2:
            raw(ql)
            hits: list[Any] = guarded(ql)
        else:
            hits = guarded(ql)
            raw(ql)
        t0 = time.perf_counter()
        # as the store runs a scope that pins no owner: exact (with `m = 0` there is no global graph,
        # and the engine's default parameters walk the empty one after a build: recall@10 ~0)
        unfiltered = shard.query(qe.QueryRequest(limit=K, query=qe.Query.Nearest(ql), params=_EXACT,
                                                 with_payload=True))  # fmt: skip
        ru.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        sel = vecs[mask]
        scores = sel @ q
        np.argpartition(-scores, K)[:K]
        npb.append(time.perf_counter() - t0)
        exact = set(mine_ids[np.argsort(-(mine @ q))[:K]].tolist())
        recall.append(len(exact & {h.fact_id for h in hits}) / K)
        everywhere = set(all_ids[np.argpartition(-(vecs @ q), K)[:K]].tolist())
        recall_all.append(len(everywhere & {str(p.id) for p in unfiltered}) / K)
    return {f"guarded_ms{tag}": med_ms(g), f"raw_filtered_ms{tag}": med_ms(rf),
            f"guarded_cpu_ms{tag}": mean_ms(gc), f"raw_filtered_cpu_ms{tag}": mean_ms(rfc),
            f"raw_unfiltered_ms{tag}": med_ms(ru), f"numpy_ms{tag}": med_ms(npb),
            f"recall10{tag}": min(recall), f"recall10_mean{tag}": statistics.mean(recall),
            f"recall10_unfiltered{tag}": min(recall_all),
            f"recall10_unfiltered_mean{tag}": statistics.mean(recall_all)}  # fmt: skip


class Kept:
    """What the benchmark wrote into a state folder (``--state``): every point's vector, owner index
    (``owner-<i>``; writers of the timed batches get ``OWNERS + i``, raw engine points ``-1``) and id."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def exists(self) -> bool:
        return self.path.exists()

    def save(self, vecs: npt.NDArray[np.float32], owner: npt.NDArray[np.int64], ids: list[str],
             load_s: float, runs: int) -> None:  # fmt: skip
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, vecs=vecs, owner=owner, ids=np.asarray(ids), load_s=load_s, runs=runs)
        tmp.replace(self.path)  # a run cut short never leaves half a file

    def load(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], list[str], float, int]:
        with np.load(self.path) as z:
            return (z["vecs"], z["owner"], [str(i) for i in z["ids"]], float(z["load_s"]), int(z["runs"]))


def bench_size(
    root: Path, size: int, queries: int, hnsw: bool, *, budget_s: float | None = None,
    milestones: tuple[int, ...] = (), keep: bool = False,
) -> dict[str, float]:
    rng = np.random.default_rng(size)
    state = root / f"state-{size}"
    kept = Kept(root / f"arrays-{size}.npz")
    reuse = keep and kept.exists() and state.exists()
    if keep and not reuse and state.exists():
        progress(f"{state} has no saved arrays (a load cut short?): loading it afresh")
        shutil.rmtree(state)
    t0 = time.perf_counter()
    stack = open_embedded(state)
    opened = time.perf_counter() - t0
    store = stack.guard.store
    assert isinstance(store, QdrantEdgeStore), type(store)
    out: dict[str, float] = {"size": size, "reused": float(reuse)}
    steps: list[dict[str, float]] = []

    who = Callers(stack)
    probe: tuple[npt.NDArray[np.float32], list[str]] | None = None
    if milestones and not reuse:  # a caller with a fixed 1,000 facts: its search cost against the total's growth
        pv = unit(rng, PROBE)
        precs = stack.guard.write_many(who("probe"), facts(pv, "probe"))
        probe = (pv, [r.fact_id for r in precs])

    def at(n: int, who: Callers, v: npt.NDArray[np.float32], o: npt.NDArray[np.int64], i: list[str]) -> None:
        row = {"facts": float(n), "rss_mib": rss_now_mib(), **rss_split()}
        row.update(searches(stack, who("owner-0"), v, o == 0, i, max(10, queries // 2), rng, ""))
        if probe is not None:
            small = searches(stack, who("probe"), probe[0], np.ones(PROBE, dtype=bool), probe[1],
                             max(10, queries // 2), rng, "")  # fmt: skip
            row.update({f"probe_{key}": val for key, val in small.items()})
        steps.append(row)
        progress(f"at {n:,}: guarded {row['guarded_ms']:.2f} ms, raw filtered {row['raw_filtered_ms']:.2f} ms, "
                 f"numpy {row['numpy_ms']:.2f} ms, recall {row['recall10_mean']:.3f}, RSS {row['rss_mib']:.0f} MiB; "
                 f"{PROBE:,}-fact caller: guarded {row.get('probe_guarded_ms', 0):.2f} ms, "
                 f"raw filtered {row.get('probe_raw_filtered_ms', 0):.2f} ms")  # fmt: skip

    if reuse:
        vecs, owner, id_list, secs, runs = kept.load()
        ids = list(id_list)
        rng = np.random.default_rng([size, runs])  # other queries and write batches than earlier runs
        out["open_reused_s"] = opened
        progress(f"reusing {state}: {len(ids):,} points ({runs} earlier runs), opened in {opened:.2f} s")
    else:
        who, vecs, owner, ids, secs = load(stack, size, rng, budget_s=budget_s, milestones=milestones,
                                              at_milestone=at, stats=out)  # fmt: skip
        runs = 0
        if probe is not None:  # the probe's facts are in the shard too (unfiltered recall)
            vecs = np.concatenate([probe[0], vecs])
            owner = np.concatenate([np.full(PROBE, -2, dtype=np.int64), owner])
            ids = probe[1] + ids
        if keep:
            kept.save(vecs, owner, ids, secs, runs)
    loaded = int((owner >= 0).sum() - (owner >= OWNERS).sum())
    out["size"] = size = loaded
    out["points"] = len(ids)
    out["load_s"] = secs
    out["rss_mib"] = rss_mib()
    out.update(rss_split())
    out["arrays_mib"] = vecs.nbytes / 2**20  # the benchmark's own copy of the vectors, inside RSS
    shard = store._shard
    progress(f"{size:,} facts ({len(ids):,} points), loaded in {secs:.0f} s; searching")
    out.update(searches(stack, who("owner-0"), vecs, owner == 0, ids, queries, rng, ""))
    if hnsw:  # the HNSW build, off the request path (`memguard store optimize`), then the same
        progress("optimize (HNSW build)")
        t0, c0 = time.perf_counter(), time.process_time()
        store.optimize()
        out["optimize_s"] = time.perf_counter() - t0
        out["optimize_cpu_s"] = time.process_time() - c0
        progress(f"optimize took {out['optimize_s']:.1f} s")
        out.update(searches(stack, who("owner-0"), vecs, owner == 0, ids, queries, rng, "_hnsw"))
    for k, row in enumerate(steps):
        for key, val in row.items():
            out[f"step{k}_{key}"] = val
    progress("writes")
    # writes, batch 64: guarded vs raw engine upsert of the same payloads + one fdatasync, and the
    # store's own upsert (StoredPoints as the guard hands them over)
    gw, rw, fs, gwc, rwc, rwu, sw = [], [], [], [], [], [], []
    new_vecs: list[npt.NDArray[np.float32]] = []
    new_owner: list[int] = []
    new_ids: list[str] = []
    fsync_probe = root / f"fsync-{size}.bin"
    with fsync_probe.open("wb") as fh:
        for i in range(12):
            batch = unit(rng, BATCH)
            inputs = facts(batch, f"w{runs}-{i}")
            writer = OWNERS + i % OWNERS  # never owner-0, the measured caller
            c0, t0 = time.process_time(), time.perf_counter()
            recs = stack.guard.write_many(who(f"owner-{writer}"), inputs)  # type: ignore[arg-type]
            gw.append(time.perf_counter() - t0)
            gwc.append(time.process_time() - c0)
            got = store.retrieve([r.fact_id for r in recs])
            payloads = [dict(p.payload) for p in got]
            # vectors of their own (no duplicate scores in the unfiltered recall of a reused folder)
            raw_batch, store_batch = unit(rng, BATCH), unit(rng, BATCH)
            vectors = [[float(x) for x in v] for v in raw_batch]
            # the raw engine write from Python: build the points (id, vector, payload) and upsert
            raw_ids = [str(uuid.uuid4()) for _ in vectors]
            c0, t0 = time.process_time(), time.perf_counter()
            pts = [qe.Point(r, v, p) for r, v, p in zip(raw_ids, vectors, payloads, strict=True)]
            t1 = time.perf_counter()
            shard.update(qe.UpdateOperation.upsert_points(pts))
            rw.append(time.perf_counter() - t0)
            rwu.append(time.perf_counter() - t1)
            rwc.append(time.process_time() - c0)
            # the store's upsert of the same (as the guard calls it: tuples of floats, payload dicts)
            store_ids = [str(uuid.uuid4()) for _ in vectors]
            store_vectors = [tuple(float(x) for x in v) for v in store_batch]  # as the guard hands them over
            points = [StoredPoint(sid, p, v) for sid, p, v in zip(store_ids, payloads, store_vectors, strict=True)]
            c0 = time.process_time()
            store.upsert(points)
            sw.append(time.process_time() - c0)
            t0 = time.perf_counter()
            fh.write(b"x" * 4096)
            fh.flush()
            os.fdatasync(fh.fileno())
            fs.append(time.perf_counter() - t0)
            new_vecs += [batch, raw_batch, store_batch]
            new_owner += [writer] * BATCH + [-1] * (2 * BATCH)
            new_ids += [r.fact_id for r in recs] + raw_ids + store_ids
    out.update(guard64_ms=med_ms(gw), raw64_ms=med_ms(rw), fdatasync_ms=med_ms(fs), guard64_cpu_ms=mean_ms(gwc),
               raw64_cpu_ms=mean_ms(rwc), raw64_update_only_ms=med_ms(rwu), store64_cpu_ms=mean_ms(sw))  # fmt: skip
    if keep:
        kept.save(np.concatenate([vecs, *new_vecs]), np.concatenate([owner, np.asarray(new_owner, dtype=np.int64)]),
                  ids + new_ids, secs, runs + 1)  # fmt: skip
    stack.close()
    t0 = time.perf_counter()
    stack = open_embedded(state)
    out["reopen_s"] = time.perf_counter() - t0
    stack.close()
    out.update(fresh_process(state, writes=0 if keep else 5))  # a kept folder's points stay recorded
    out["disk_mib"] = sum(f.stat().st_size for f in (state / "edge").rglob("*") if f.is_file()) / 2**20
    return out


def fresh_process(state: Path, searches: int = 100, writes: int = 5) -> dict[str, float]:
    """A new process opens the folder, runs ``searches`` guarded searches of owner-0 and ``writes``
    guarded ``write_many(64)`` of another writer: its open time, RSS after the open and after the
    work (anonymous and file-backed parts) and its peak RSS (what a service holding this store needs,
    without the benchmark's arrays)."""
    code = "\n".join([
        "import json, resource, sys, time, numpy as np",
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})",
        "from benchutil import quiet_logs",
        "from bench_storage import facts, rss_split, unit",
        "from memguard import open_embedded",
        "out = {'import_' + k: v for k, v in rss_split().items()}",
        "with quiet_logs():",
        "    t0 = time.perf_counter()",
        f"    s = open_embedded({str(state)!r})",
        "    out['fresh_open_s'] = time.perf_counter() - t0",
        "    out.update({'open_' + k: v for k, v in rss_split().items()})",
        "    me = s.guard.authenticate(s.tokens.issue('owner-0'))",
        "    rng = np.random.default_rng(7)",
        "    c0 = time.process_time()",
        f"    for q in unit(rng, {searches}):",
        f"        s.guard.search(me, vector=[float(x) for x in q], k={K})",
        f"    out['fresh_search_cpu_ms'] = (time.process_time() - c0) * 1000 / {searches}",
        "    w = s.guard.authenticate(s.tokens.issue('owner-19'))",
        f"    for i in range({writes}):",
        f"        s.guard.write_many(w, facts(unit(rng, {BATCH}), f'fresh-{{time.time_ns()}}-{{i}}'))",
        "    out.update({'work_' + k: v for k, v in rss_split().items()})",
        "    s.close()",
        # the peak of this process's own memory (VmHWM): not ru_maxrss, which a child started by
        # fork + exec inherits from its parent (it reported the loading process's peak here)
        "out['fresh_rss_mib'] = rss_split().get('rss_peak_mib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)",
        "print(json.dumps(out))",
    ])  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def fsync_per_write(root: Path) -> str:
    """fdatasync+fsync per guarded write call (batch 1), from ``strace -f -c`` of a child that
    writes 0 and then 40 facts into a fresh default stack (the difference / 40)."""
    if shutil.which("strace") is None:
        return "n/a (strace not installed)"
    counts = []
    for n in (0, 40):
        state = root / f"strace-{n}"
        log = root / f"strace-{n}.txt"
        src = "Source(kind=SourceKind.USER_MESSAGE)"
        code = "\n".join([
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})",
            "from memguard import open_embedded, Source, SourceKind, Turn",
            f"s = open_embedded({str(state)!r}); g = s.guard",
            "me = g.authenticate(s.tokens.issue('a'))",
            f"g.write(me, 'warm', namespace='n', source={src}, turn=Turn(session_id='s', turn_index=0))",
            f"for i in range({n}):",
            f"    g.write(me, 'f' + str(i), namespace='n', source={src}, turn=Turn(session_id='s', turn_index=i))",
            "s.close()",
        ])  # fmt: skip
        subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(log),
                        sys.executable, "-c", code], check=True, capture_output=True)  # fmt: skip
        total = 0
        for line in log.read_text().splitlines():
            parts = line.split()
            if parts and parts[-1] in ("fsync", "fdatasync"):
                total += int(parts[3])
        counts.append(total)
    return f"{(counts[1] - counts[0]) / 40:.2f}"


def main() -> None:
    nan = float("nan")
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10^4 only (CI, < 1 min)")
    ap.add_argument("--million", action="store_true", help="add 10^6 (hours)")
    ap.add_argument("--sizes", type=int, nargs="*")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--hnsw", action=argparse.BooleanOptionalAction, default=None,
                    help="also measure after the HNSW build (default: on, off with --quick)")
    ap.add_argument("--load-budget", type=float, default=None, metavar="SECONDS",
                    help="stop loading a size after this many seconds and measure what was written")
    ap.add_argument("--milestones", type=int, nargs="*", default=(),
                    help="while loading, measure searches when this many facts are in (plus a fixed 1,000-fact caller)")
    ap.add_argument("--json-out", type=Path, default=None, help="write the raw figures here after each size")
    ap.add_argument("--state", type=Path, default=None, metavar="DIR",
                    help="keep each size's loaded state folder here, and reuse it on the next run")
    ap.add_argument("--full-scan-kb", type=int, default=None,
                    help="the store's full-scan threshold (default: the store's own, FULL_SCAN_KB)")
    ap.add_argument("--load-batch", type=int, default=LOAD_BATCH, metavar="N",
                    help=f"facts per guarded write_many while loading (default {LOAD_BATCH})")
    args = ap.parse_args()
    globals()["LOAD_BATCH"] = args.load_batch
    if args.full_scan_kb is not None:  # open_embedded builds the store with its defaults
        QdrantEdgeStore.__init__.__kwdefaults__["full_scan_kb"] = args.full_scan_kb  # type: ignore[index]
    hnsw = (not args.quick) if args.hnsw is None else args.hnsw
    sizes = args.sizes or ([10_000] if args.quick else [10_000, 100_000])
    if args.million:
        sizes.append(1_000_000)
    full_scan = QdrantEdgeStore.__init__.__kwdefaults__["full_scan_kb"]  # type: ignore[index]
    print(f"load average: {os.getloadavg()}  cpus: {os.cpu_count()}  full_scan_kb: {full_scan}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="mg-bench-storage-") as tmp:
        root = Path(tmp) if args.state is None else args.state
        root.mkdir(parents=True, exist_ok=True)
        with quiet_logs():
            fsyncs = fsync_per_write(Path(tmp))
            for size in sizes:
                rows.append(bench_size(root, size, args.queries, hnsw, budget_s=args.load_budget,
                                       milestones=tuple(args.milestones), keep=args.state is not None))  # fmt: skip
                if args.json_out is not None:
                    args.json_out.write_text(json.dumps(rows, indent=1))
    print(f"load average after: {os.getloadavg()}")
    print(f"fdatasync+fsync per guarded write call (batch 1): {fsyncs}")
    print()
    print("Searches (k=10, the caller's scope holds ~10% of the facts; medians, ms). Before / after"
          " the HNSW build (`memguard store optimize`, its time in the last column).")
    print()
    print("| facts | guarded | raw filtered (same engine) | raw unfiltered | numpy brute force"
          " | guarded / raw filtered | guarded / numpy | CPU ms guarded / raw filtered (ratio)"
          " | recall@10 mean (min) | unfiltered raw recall@10 mean (min) | HNSW build s |")  # fmt: skip
    print("|" + "---|" * 11)
    for r in rows:
        for tag, label in (("", "exact"), ("_hnsw", "HNSW")):
            if "guarded_ms" + tag not in r:
                continue
            gc, rc = r.get("guarded_cpu_ms" + tag, nan), r.get("raw_filtered_cpu_ms" + tag, nan)
            print(f"| {int(r['size']):,} {label} | {r['guarded_ms' + tag]:.2f} | {r['raw_filtered_ms' + tag]:.2f} | "
                  f"{r['raw_unfiltered_ms' + tag]:.2f} | {r['numpy_ms' + tag]:.2f} | "
                  f"{r['guarded_ms' + tag] / r['raw_filtered_ms' + tag]:.2f}x | "
                  f"{r['guarded_ms' + tag] / r['numpy_ms' + tag]:.2f}x | "
                  f"{gc:.2f} / {rc:.2f} ({gc / rc:.2f}x) | "
                  f"{r['recall10_mean' + tag]:.3f} ({r['recall10' + tag]:.2f}) | "
                  f"{r.get('recall10_unfiltered_mean' + tag, nan):.3f} ({r.get('recall10_unfiltered' + tag, nan):.2f}) | "
                  f"{r['optimize_s'] if tag else 0:.1f} |")  # fmt: skip
    print()
    print("Writes of 64 facts: guarded `write_many` vs the raw engine write from Python (build 64 points,"
          " upsert) plus one fdatasync; in parentheses the upsert call alone. Medians, ms; CPU: means.")
    print()
    print("| facts | write 64 guarded ms | raw build + upsert 64 + fdatasync ms (upsert only) | ratio (vs upsert only)"
          " | CPU ms guarded / raw / store.upsert | load s | peak RSS MiB (bench arrays MiB) | disk MiB | reopen s"
          " | a new process: open s, peak RSS MiB | reused state (open s) |")  # fmt: skip
    print("|" + "---|" * 11)
    for r in rows:
        reused = f"yes ({r['open_reused_s']:.2f})" if r.get("reused") else "no"
        raw_w = r["raw64_ms"] + r["fdatasync_ms"]
        raw_u = r.get("raw64_update_only_ms", nan) + r["fdatasync_ms"]
        print(f"| {int(r['size']):,} | {r['guard64_ms']:.1f} | {raw_w:.1f} ({raw_u:.1f}) | "
              f"{r['guard64_ms'] / raw_w:.2f}x ({r['guard64_ms'] / raw_u:.2f}x) | "
              f"{r.get('guard64_cpu_ms', nan):.1f} / {r.get('raw64_cpu_ms', nan):.1f} / {r.get('store64_cpu_ms', nan):.1f} | "
              f"{r['load_s']:.1f} | {r['rss_mib']:.0f} ({r['arrays_mib']:.0f}) | {r['disk_mib']:.0f} | "
              f"{r['reopen_s']:.2f} | {r['fresh_open_s']:.2f}, {r['fresh_rss_mib']:.0f} | "
              f"{reused} |")  # fmt: skip
    loaded = [r for r in rows if r.get("load_cpu_s")]
    if loaded:
        print()
        print("Guarded ingest while loading (write_many of the load batch, 10 owners, vectors given; the"
              " scan stage on): facts/s wall and CPU, and 10^6 facts at that rate (a projection: the"
              " rate falls as the ledger grows; compare it with the rate of a larger size).")
        print()
        print("| facts | batch | load s | facts/s wall | facts/s CPU | 10^6 at this rate, h (wall) |")
        print("|" + "---|" * 6)
        for r in loaded:
            fps = r["size"] / r["load_s"]
            print(f"| {int(r['size']):,} | {int(r['load_batch'])} | {r['load_s']:.1f} | {fps:.0f} | "
                  f"{r['size'] / r['load_cpu_s']:.0f} | {1e6 / fps / 3600:.2f} |")  # fmt: skip
    print()
    print("Memory (MiB): the loading process after its searches and writes (RSS: anonymous + file-backed;"
          " the anonymous part includes the benchmark's arrays), and a new process that opens the folder,"
          " after the open and after its searches and writes, and its peak.")
    print()
    print("| facts | loading process RSS (anon + file), arrays | new process: open s | after open (anon + file)"
          " | after work (anon + file) | peak | search CPU ms |")  # fmt: skip
    print("|" + "---|" * 7)
    for r in rows:
        print(f"| {int(r['size']):,} | {r.get('rss_now_mib', nan):.0f} ({r.get('rss_anon_mib', nan):.0f} + "
              f"{r.get('rss_file_mib', nan):.0f}), {r['arrays_mib']:.0f} | {r['fresh_open_s']:.2f} | "
              f"{r.get('open_rss_now_mib', nan):.0f} ({r.get('open_rss_anon_mib', nan):.0f} + {r.get('open_rss_file_mib', nan):.0f}) | "
              f"{r.get('work_rss_now_mib', nan):.0f} ({r.get('work_rss_anon_mib', nan):.0f} + {r.get('work_rss_file_mib', nan):.0f}) | "
              f"{r['fresh_rss_mib']:.0f} | {r.get('fresh_search_cpu_ms', nan):.2f} |")  # fmt: skip
    steps = [(r, k) for r in rows for k in range(100) if f"step{k}_facts" in r]
    if steps:
        print()
        print(f"While loading (exact search; the 10% caller, and a caller with a fixed {PROBE:,} facts):")
        print()
        print("| facts | guarded ms | raw filtered ms | numpy ms | recall@10 | RSS MiB (anon + file)"
              f" | {PROBE:,}-fact caller guarded ms | its raw filtered ms |")  # fmt: skip
        print("|" + "---|" * 8)
        for r, k in steps:

            def g(key: str, r: dict[str, float] = r, k: int = k) -> float:
                return r.get(f"step{k}_{key}", float("nan"))

            print(f"| {int(g('facts')):,} | {g('guarded_ms'):.2f} | {g('raw_filtered_ms'):.2f} | {g('numpy_ms'):.2f} | "
                  f"{g('recall10_mean'):.3f} | {g('rss_mib'):.0f} ({g('rss_anon_mib'):.0f} + {g('rss_file_mib'):.0f}) | "
                  f"{g('probe_guarded_ms'):.2f} | "
                  f"{g('probe_raw_filtered_ms'):.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
