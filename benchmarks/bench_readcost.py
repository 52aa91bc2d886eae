"""The read path's CPU per guarded search and per ``list_facts`` page, with and without read history,
and the write path's CPU per call (what the change-entry links cost there).

Every read links the facts it returned to its allow event (``mg_audit_fact``). Before the link table
``mg_change_fact`` (memguard/ledger/changelinks.py) the read path looked up each hit's change
entries among *all* those links, so a fact read often was slower to read again; it now reads only
the change entries' links. This loads 10^4 facts (``open_embedded``, batches of 512 over 10 owners;
``bench_storage``'s helpers), then, as ``owner-0`` (~1,000 facts in scope): ``--history N`` pages
of ``list_facts(limit=1000)`` (each reads every one of the caller's facts once: N reads per fact),
then the CPU time (``process_time``) of 200 guarded searches (k=10) and of 5
``list_facts(limit=1000)``, then of ``--writes`` single writes and ``--writes // 8`` batches of 64.
``--state`` keeps the folder, so runs on the same folder accumulate history. The same script runs
on an older checkout (``PYTHONPATH=/path/to/checkout``) for a before/after on copies of one
state; opening an older state with this code migrates it (the time is printed).

    python benchmarks/bench_readcost.py --state /tmp/rc               # first run loads
    python benchmarks/bench_readcost.py --state /tmp/rc --history 100  # ~100 more reads per fact
    python benchmarks/bench_readcost.py --state /tmp/rc --profile search   # cProfile, by tottime
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_storage import LOAD_BATCH, OWNERS, Callers, facts, unit
from benchutil import quiet_logs

from memguard import FactInput, Source, SourceKind, Turn, open_embedded


def _count(stack: object, table: str) -> int | None:
    engine = stack.guard.ledger.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        try:
            return int(conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar() or 0)
        except Exception:  # the older code has no such table
            return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", type=Path, default=None, help="kept state folder (default: a temp one)")
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--history", type=int, default=0, help="list pages read first (reads per fact)")
    ap.add_argument("--writes", type=int, default=64, help="single writes measured (0: none)")
    ap.add_argument("--profile", choices=("search", "list"), default=None)
    ap.add_argument("--load-only", action="store_true", help="load the facts (or open) and stop")
    args = ap.parse_args()
    state = args.state or Path(tempfile.mkdtemp(prefix="readcost-")) / "state"
    fresh = not state.exists()
    rng = np.random.default_rng(1)
    profile = ""
    with quiet_logs():
        t0, c0 = time.perf_counter(), time.process_time()
        stack = open_embedded(state)  # an older state is migrated here
        open_s, open_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        who = Callers(stack)
        if fresh:
            vecs = unit(rng, args.facts)
            for b, start in enumerate(range(0, args.facts, LOAD_BATCH)):
                stack.guard.write_many(who(f"owner-{b % OWNERS}"),  # type: ignore[arg-type]
                                       facts(vecs[start : start + LOAD_BATCH], f"{b}"))  # fmt: skip
        if args.load_only:
            stack.close()
            print(f"load={os.getloadavg()[0]:.2f} open_s={open_s:.2f} open_cpu_s={open_cpu_s:.2f} "
                  f"{'loaded' if fresh else 'opened'}", file=sys.__stdout__)  # fmt: skip
            return
        me = who("owner-0")
        for _ in range(args.history):
            stack.guard.list_facts(me, limit=1000)
        qs = [[float(x) for x in q] for q in unit(rng, args.searches)]
        for q in qs[:20]:
            stack.guard.search(me, vector=q, k=10)
        c0 = time.process_time()
        for q in qs:
            stack.guard.search(me, vector=q, k=10)
        search_ms = (time.process_time() - c0) / len(qs) * 1000
        stack.guard.list_facts(me, limit=1000)
        c0 = time.process_time()
        for _ in range(5):
            page, _cursor = stack.guard.list_facts(me, limit=1000)
        list_ms = (time.process_time() - c0) / 5 * 1000
        if args.profile:
            pr = cProfile.Profile()
            pr.enable()
            if args.profile == "search":
                for q in qs:
                    stack.guard.search(me, vector=q, k=10)
            else:
                for _ in range(5):
                    stack.guard.list_facts(me, limit=1000)
            pr.disable()
            out = io.StringIO()
            pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(40)
            profile = out.getvalue()
        write_ms = batch_ms = 0.0
        if args.writes:
            writer = who("owner-9")
            src = Source(kind=SourceKind.USER_MESSAGE)
            wv = [tuple(float(x) for x in v) for v in unit(rng, args.writes + 64 * (args.writes // 8))]
            c0 = time.process_time()
            for i in range(args.writes):
                stack.guard.write(writer, f"w {i}", namespace="bench", source=src,  # type: ignore[arg-type]
                                  turn=Turn(session_id="w", turn_index=i), vector=wv[i])  # fmt: skip
            write_ms = (time.process_time() - c0) / args.writes * 1000
            batches = args.writes // 8
            c0 = time.process_time()
            for b in range(batches):
                base = args.writes + 64 * b
                stack.guard.write_many(writer, [FactInput(  # type: ignore[arg-type]
                    text=f"b {b} {i}", namespace="bench", source=src,
                    turn=Turn(session_id="wb", turn_index=b), vector=wv[base + i])
                    for i in range(64)])  # fmt: skip
            batch_ms = (time.process_time() - c0) / max(1, batches) * 1000
        links, change_links = _count(stack, "mg_audit_fact"), _count(stack, "mg_change_fact")
        stack.close()
    print(f"facts={args.facts} links={links} change_links={change_links} "
          f"load={os.getloadavg()[0]:.2f} open_s={open_s:.2f} open_cpu_s={open_cpu_s:.2f} "
          f"history={args.history} "
          f"search_cpu_ms={search_ms:.2f} list1000_cpu_ms={list_ms:.1f} listed={len(page)} "
          f"write_cpu_ms={write_ms:.2f} batch64_cpu_ms={batch_ms:.1f}")  # fmt: skip
    if profile:
        print(profile, file=sys.stderr)


if __name__ == "__main__":
    main()
