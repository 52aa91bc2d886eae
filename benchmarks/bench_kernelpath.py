"""The guard's own work per search and per batch write, on the default ``open_embedded`` build.

Loads ``--facts`` facts once into ``--state`` (kept between runs, so before/after runs of two
checkouts measure the very same folder: copy it first, writes change it), then measures:

- guarded search (k=10, the caller's scope holds ~10% of the facts) vs the same engine's raw
  filtered search with the filter the guard pushes down: CPU ms per call (``time.process_time``)
  and wall ms, and their difference (the guard's share);
- guarded ``write_many`` of 64 facts: CPU and wall ms per batch; with ``--update-batches``, of 64
  new versions of facts written just before (``fact_ids=``, the same writer);
- guarded search with a ``turn`` (a new one each: the turn's reads are recorded too), CPU ms;
- SQL statements (SQLAlchemy's and SQLite's own count) and commits per search;
- ``--profile search|write``: a cProfile of that phase (top entries by cumulative time);
- ``--stages``: where a guarded search's CPU goes, stage by stage (each stage's function wrapped
  with a ``time.process_time`` accumulator, ~1 us each; the engine's share is the raw filtered
  search of the same query), a table; and the same for ``write_many(64)`` (CPU and wall per stage:
  scan, turn reads, stamp, payloads, ledger ``begin``, store upsert, ledger ``commit`` with its
  fsync), over ``--batches`` more batches after the timed ones; the search table comes from a second
  pass over the same queries (warm), or with ``--stages-new`` over new ones (hits mostly read for
  the first time).

    python benchmarks/bench_kernelpath.py --state /tmp/kp-10k --facts 10000
    PYTHONPATH=/tmp/base python benchmarks/bench_kernelpath.py --state /tmp/kp-copy   # a baseline

It prints the load average before and after and which ``memguard`` it imported.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import qdrant_edge as qe
from benchutil import quiet_logs
from sqlalchemy import event

import memguard
from memguard import FactInput, Source, SourceKind, Turn, open_embedded
from memguard.embedded import EmbeddedStack
from memguard.pushdown.edge import to_edge_filter
from memguard.stores.edge import HNSW_EF, QdrantEdgeStore, _filter

DIM = 384
OWNERS = 10
K = 10
LOAD_BATCH = 512


def unit(rng: np.random.Generator, n: int) -> npt.NDArray[np.float32]:
    m = rng.standard_normal((n, DIM), dtype=np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def facts(vecs: npt.NDArray[np.float32], tag: str) -> list[FactInput]:
    src = Source(kind=SourceKind.USER_MESSAGE)
    return [
        FactInput(text=f"fact {tag}-{i}", namespace="notes", source=src,
                  turn=Turn(session_id=f"bench-{tag}", turn_index=i % 4),
                  vector=tuple(float(x) for x in v))
        for i, v in enumerate(vecs)
    ]  # fmt: skip


def count_loaded(stack: EmbeddedStack) -> int:
    store = stack.guard.store
    assert isinstance(store, QdrantEdgeStore)
    return int(store._shard.info().points_count)


def load(stack: EmbeddedStack, size: int, rng: np.random.Generator) -> None:
    guard = stack.guard
    who = {f"owner-{o}": guard.authenticate(stack.tokens.issue(f"owner-{o}", ttl=3600)) for o in range(OWNERS)}
    for b, start in enumerate(range(0, size, LOAD_BATCH)):
        n = min(LOAD_BATCH, size - start)
        guard.write_many(who[f"owner-{b % OWNERS}"], facts(unit(rng, n), f"load{b}"))


class Counter:
    """SQL statements and commits on the ledger's engine: those SQLAlchemy runs (its statement
    event) and, on SQLite, every statement SQLite itself runs (its trace callback, set on each
    connection as the pool hands it out), which also sees the statements the ledger runs on the
    driver's cursor (memguard/ledger/readpath.py) and BEGIN/COMMIT/ROLLBACK."""

    def __init__(self, engine: Any) -> None:
        self.statements = 0
        self.commits = 0
        self.traced = 0
        event.listen(engine, "before_cursor_execute", self._stmt)
        event.listen(engine, "commit", self._commit)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "checkout", self._checkout)

    def _checkout(self, dbapi_conn: Any, *_: Any) -> None:
        dbapi_conn.set_trace_callback(self._trace)

    def _trace(self, _sql: str) -> None:
        self.traced += 1

    def _stmt(self, *_: Any) -> None:
        self.statements += 1

    def _commit(self, *_: Any) -> None:
        self.commits += 1


def pushed(stack: EmbeddedStack, me: Any, rng: np.random.Generator) -> tuple[Any, Any]:
    store = stack.guard.store
    assert isinstance(store, QdrantEdgeStore)
    captured: list[Any] = []
    original = store.search

    def spy(vector, *, condition, limit, offset=0):  # type: ignore[no-untyped-def]
        captured.append(condition)
        return original(vector, condition=condition, limit=limit, offset=offset)

    store.search = spy  # type: ignore[method-assign]
    try:
        stack.guard.search(me, vector=[float(x) for x in unit(rng, 1)[0]], k=K)
    finally:
        store.search = original  # type: ignore[method-assign]
    condition = captured[0]
    flt = None if condition is None else to_edge_filter(condition)
    translated = _filter(condition)
    tenant = translated is not False and translated[1]
    return flt, (qe.SearchParams(hnsw_ef=HNSW_EF) if tenant else qe.SearchParams(exact=True))


def _checks_module() -> Any:
    """The module whose globals the per-hit checks call (``ledger_problem``, ``plan_admits``, ...):
    ``memguard.operation``, or ``memguard.kernel`` on a checkout from before the split."""
    try:
        from memguard import operation
    except ImportError:
        from memguard import kernel as operation
    return operation


#: the stages of one guarded search, in order: (label, object, attribute) of the function timed
def _stage_targets(store: Any) -> list[tuple[str, Any, str]]:
    from memguard import guard as guard_mod
    from memguard import kernel
    from memguard.ledger import ledger as ledger_mod

    operation = _checks_module()
    return [
        ("open operation + identity check", kernel.Kernel, "_principal"),
        ("scope plan (read_plan)", kernel.Operation, "read_plan"),
        ("store.search (engine + hit conversion)", store, "search"),
        ("candidates (payload digests)", guard_mod, "payload_candidate"),
        ("ledger rows + logged heads (one snapshot)", ledger_mod.Ledger, "latest_checked"),
        ("per-hit checks (integrity, plan, point)", kernel.Operation, "_check"),
        ("row vs log compare (ledger_problem)", operation, "ledger_problem"),
        ("allow event + fact links + commit (finish)", kernel.Operation, "finish"),
        ("  of which: ledger.record", ledger_mod.Ledger, "record"),
        ("  of which: payload vs row (candidate_problem)", operation, "candidate_problem"),
        *_detail_targets(),
    ]


def _detail_targets() -> list[tuple[str, Any, str]]:
    """Parts of the stages above (each also counted in its stage): the lookup statement, the
    logged heads, the provenance parse, the plan verdict, the allow event's inserts (on a
    checkout without ``memguard/ledger/readevent.py``: ``Ledger._insert_events``)."""
    from memguard.ledger import ledger as ledger_mod
    from memguard.ledger import readpath, records

    operation = _checks_module()

    out: list[tuple[str, Any, str]] = [
        ("  lookup: rows + links statement (ReadLookup.run)", readpath.ReadLookup, "run"),
        ("  lookup: logged heads", ledger_mod, "logged_heads"),
        ("  checks: provenance parse (records._parse)", records, "_parse"),
        ("  checks: plan verdict (plan_admits)", operation, "plan_admits"),
    ]
    try:
        from memguard.ledger.readevent import ReadEvents
    except ImportError:
        out.append(("  record: the event's inserts (_insert_events)", ledger_mod.Ledger, "_insert_events"))
    else:
        out.append(("  record: the event's transaction (ReadEvents.record)", ReadEvents, "record"))
    return out



#: the stages of one guarded ``write_many``, in order (the indented ones are inside the one above)
def _write_stage_targets(store: Any) -> list[tuple[str, Any, str]]:
    from memguard import guard as guard_mod
    from memguard import protocol
    from memguard import stamp as stamp_mod
    from memguard.ledger import ledger as ledger_mod
    from memguard.ledger import lineage

    return [
        ("stamp (decide, scan, provenance)", stamp_mod, "stamp"),
        ("  of which: scan stage (scan_texts)", stamp_mod, "scan_texts"),
        ("  of which: the turns' reads (turn_reads_many)", lineage.Lineage, "turn_reads_many"),
        ("payloads (build_payload: record JSON, digest)", guard_mod, "build_payload"),
        ("ledger.begin (pending rows + change entry)", ledger_mod.Ledger, "begin"),
        ("store.upsert (points + engine update)", store, "upsert"),
        ("commit (committed + allow event + change entry, fsync)", protocol, "_commit"),
    ]


class Stages:
    """CPU seconds, wall seconds and calls per stage (:func:`_stage_targets` or the ``targets``
    given), by wrapping each function."""

    def __init__(self, store: Any, targets: list[tuple[str, Any, str]] | None = None) -> None:
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._saved: list[tuple[Any, str, Any]] = []
        for label, owner, name in targets if targets is not None else _stage_targets(store):
            fn = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
            self._saved.append((owner, name, fn))
            setattr(owner, name, self._wrap(label, fn))
            self.cpu[label], self.wall[label], self.calls[label] = 0.0, 0.0, 0

    def _wrap(self, label: str, fn: Any) -> Any:
        cpu, wall, calls = self.cpu, self.wall, self.calls
        clock, counter = time.process_time, time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0, w0 = clock(), counter()
            try:
                return fn(*args, **kwargs)
            finally:
                cpu[label] += clock() - t0
                wall[label] += counter() - w0
                calls[label] += 1

        return timed

    def restore(self) -> None:
        for owner, name, fn in reversed(self._saved):
            if isinstance(owner, type) or not hasattr(type(owner), name):
                setattr(owner, name, fn)
            else:  # an instance: drop the wrapper, the class's method shows again
                delattr(owner, name)

    def table(self, searches: int, total_cpu: float, raw_cpu: float) -> str:
        rows = ["| stage | CPU ms per search | calls per search |", "|---|---|---|"]
        rows.append(f"| whole guarded search | {total_cpu * 1e3 / searches:.3f} | 1 |")
        rows.append(f"| (raw filtered search of the same engine) | {raw_cpu * 1e3 / searches:.3f} | 1 |")
        for label in self.cpu:
            rows.append(f"| {label} | {self.cpu[label] * 1e3 / searches:.3f} | "
                        f"{self.calls[label] / searches:.1f} |")  # fmt: skip
        return "\n".join(rows)

    def write_table(self, batches: int, cpu: float, wall: float) -> str:
        rows = ["| stage of write_many(64) | CPU ms per batch | wall ms per batch | calls per batch |",
                "|---|---|---|---|",
                f"| whole guarded write_many(64) | {cpu * 1e3 / batches:.2f} | {wall * 1e3 / batches:.2f} | 1 |"]
        for label in self.cpu:
            rows.append(f"| {label} | {self.cpu[label] * 1e3 / batches:.2f} | "
                        f"{self.wall[label] * 1e3 / batches:.2f} | {self.calls[label] / batches:.1f} |")  # fmt: skip
        return "\n".join(rows)


def profiled(fn: Any, prof: cProfile.Profile | None) -> Any:
    if prof is None:
        return fn()
    prof.enable()
    try:
        return fn()
    finally:
        prof.disable()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--state", type=Path, required=True)
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batches", type=int, default=12)
    ap.add_argument("--turn-queries", type=int, default=100,
                    help="searches with a turn (each a new one) after the plain ones; 0: none")
    ap.add_argument("--update-batches", type=int, default=0,
                    help="then write_many(64) of new versions of that many of the timed batches "
                         "(fact_ids= the batch's ids, the same writer): CPU and wall per batch")
    ap.add_argument("--profile", choices=("search", "write"), default=None)
    ap.add_argument("--top", type=int, default=45)
    ap.add_argument("--stages", action="store_true", help="tables of the guarded search's CPU and of write_many's CPU and wall, by stage")
    ap.add_argument("--stages-new", action="store_true",
                    help="the stage pass with new queries (hits mostly read for the first time), "
                         "not the same ones again (warm)")
    args = ap.parse_args()
    print(f"memguard from {Path(memguard.__file__).parent}")
    print(f"load average before: {os.getloadavg()}")
    rng = np.random.default_rng(11)
    with quiet_logs():
        stack = open_embedded(args.state)
        have = count_loaded(stack)
        if have < args.facts:
            load(stack, args.facts - have, rng)
        guard = stack.guard
        me = guard.authenticate(stack.tokens.issue("owner-0", ttl=3600))
        store = guard.store
        assert isinstance(store, QdrantEdgeStore)
        flt, params = pushed(stack, me, rng)
        counter = Counter(guard.kernel.ledger.engine)
        qs = [[float(x) for x in q] for q in unit(rng, args.queries)]
        for q in qs[:10]:  # warm
            guard.search(me, vector=q, k=K)
        prof = cProfile.Profile(time.process_time) if args.profile == "search" else None
        gc, gw, rc = [], [], []
        s0, c0, t0_ = counter.statements, counter.commits, counter.traced
        for q in qs:
            p0, t0 = time.process_time(), time.perf_counter()
            profiled(lambda q=q: guard.search(me, vector=q, k=K), prof)
            gw.append(time.perf_counter() - t0)
            gc.append(time.process_time() - p0)
            p0 = time.process_time()
            store._shard.query(qe.QueryRequest(limit=K, query=qe.Query.Nearest(q), filter=flt,
                                               params=params, with_payload=True))  # fmt: skip
            rc.append(time.process_time() - p0)
        per_search = ((counter.statements - s0) / len(qs), (counter.commits - c0) / len(qs),
                      (counter.traced - t0_) / len(qs))  # fmt: skip
        staged = ""
        if args.stages:  # a second pass over the same queries, wrapped (the figures above are not)
            stages = Stages(store)
            try:
                sc, rsc = 0.0, 0.0
                stage_qs = [[float(x) for x in q] for q in unit(rng, args.queries)] if args.stages_new else qs
                for q in stage_qs:
                    p0 = time.process_time()
                    guard.search(me, vector=q, k=K)
                    sc += time.process_time() - p0
                    p0 = time.process_time()
                    store._shard.query(qe.QueryRequest(limit=K, query=qe.Query.Nearest(q), filter=flt,
                                                       params=params, with_payload=True))  # fmt: skip
                    rsc += time.process_time() - p0
            finally:
                stages.restore()
            staged = stages.table(len(qs), sc, rsc)
        # a search in an agent's turn also records what the turn read (the taint of its later
        # writes): rows in mg_turn_read and their logged change entry; a new turn each time
        tc = []
        for i, q in enumerate(qs[: args.turn_queries]):
            turn = Turn(session_id=f"bench-turns-{os.getpid()}", turn_index=i)
            p0 = time.process_time()
            guard.search(me, vector=q, k=K, turn=turn)
            tc.append(time.process_time() - p0)
        wprof = cProfile.Profile(time.process_time) if args.profile == "write" else None
        wc, ww = [], []
        written: list[tuple[Any, list[str]]] = []
        for i in range(args.batches):
            batch = facts(unit(rng, 64), f"w{os.getpid()}-{i}")
            writer = guard.authenticate(stack.tokens.issue(f"owner-{i % OWNERS}", ttl=3600))
            p0, t0 = time.process_time(), time.perf_counter()
            recs = profiled(lambda b=batch, w=writer: guard.write_many(w, b), wprof)
            ww.append(time.perf_counter() - t0)
            wc.append(time.process_time() - p0)
            written.append((writer, [r.fact_id for r in recs]))
        uc, uw = [], []
        for i, (writer, ids) in enumerate(written[: args.update_batches]):
            batch = facts(unit(rng, 64), f"u{os.getpid()}-{i}")
            p0, t0 = time.process_time(), time.perf_counter()
            guard.write_many(writer, batch, fact_ids=ids)
            uw.append(time.perf_counter() - t0)
            uc.append(time.process_time() - p0)
        wstaged = ""
        if args.stages and args.batches:  # more batches, wrapped (the figures above are not)
            wstages = Stages(store, _write_stage_targets(store))
            try:
                wsc, wsw = 0.0, 0.0
                for i in range(args.batches):
                    batch = facts(unit(rng, 64), f"ws{os.getpid()}-{i}")
                    writer = guard.authenticate(stack.tokens.issue(f"owner-{i % OWNERS}", ttl=3600))
                    p0, t0 = time.process_time(), time.perf_counter()
                    guard.write_many(writer, batch)
                    wsw += time.perf_counter() - t0
                    wsc += time.process_time() - p0
            finally:
                wstages.restore()
            wstaged = wstages.write_table(args.batches, wsc, wsw)
        total = count_loaded(stack)
        stack.close()
    mean = statistics.mean
    print(f"facts: {total}")
    print(f"search: guarded CPU {mean(gc) * 1e3:.3f} ms (wall median {statistics.median(gw) * 1e3:.3f}), "
          f"raw filtered CPU {mean(rc) * 1e3:.3f} ms, guard share {(mean(gc) - mean(rc)) * 1e3:.3f} ms, "
          f"ratio {mean(gc) / mean(rc):.2f}x")  # fmt: skip
    if tc:
        print(f"search in a turn (a new turn each): guarded CPU {mean(tc) * 1e3:.3f} ms "
              f"({len(tc)} searches)")  # fmt: skip
    print(f"search: SQL statements {per_search[0]:.2f} (SQLAlchemy's), {per_search[2]:.2f} (SQLite's "
          f"trace, with BEGIN/COMMIT/ROLLBACK), commits {per_search[1]:.2f} per search")  # fmt: skip
    if wc:
        print(f"write_many(64): CPU {mean(wc) * 1e3:.2f} ms (wall median {statistics.median(ww) * 1e3:.2f})")
    if uc:
        print(f"write_many(64) of new versions: CPU {mean(uc) * 1e3:.2f} ms (wall median "
              f"{statistics.median(uw) * 1e3:.2f}), {len(uc)} batches")  # fmt: skip
    print(f"load average after: {os.getloadavg()}")
    if staged:
        print(staged)
    if wstaged:
        print()
        print(wstaged)
    for p in (prof, wprof):
        if p is not None:
            out = io.StringIO()
            pstats.Stats(p, stream=out).sort_stats("cumulative").print_stats(args.top)
            print(out.getvalue())
            out = io.StringIO()
            pstats.Stats(p, stream=out).sort_stats("tottime").print_stats(args.top)
            print(out.getvalue())


if __name__ == "__main__":
    main()
