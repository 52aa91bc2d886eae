"""The read path's CPU per guarded search and per ``list_facts`` page, with and without read history.

Every read links the facts it returned to its allow event (``mg_audit_fact``), so a fact read often
has many links that are not change entries; the read path looks up each hit's change entries among
them. This loads 10^4 facts (``open_embedded``, batches of 512 over 10 owners; ``bench_storage``'s
helpers), then measures, as ``owner-0`` (~1,000 facts in scope), the CPU time (``process_time``) of
200 guarded searches (k=10) and of 5 ``list_facts(limit=1000)``. ``--state`` keeps the folder, so
runs on the same folder accumulate read history; ``--portable`` uses the portable links query
instead of SQLite's (``memguard/ledger/replay.py``, ``_links_query``) for a before/after.

    python benchmarks/bench_readcost.py --state /tmp/rc             # first run loads, later runs reuse
    python benchmarks/bench_readcost.py --state /tmp/rc --portable
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

from memguard import open_embedded
from memguard.ledger import replay


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", type=Path, default=None, help="kept state folder (default: a temp one)")
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--portable", action="store_true", help="the portable links query (the before)")
    ap.add_argument("--profile", choices=("search", "list"), default=None)
    args = ap.parse_args()
    if args.portable:
        replay._links_query = lambda conn: replay._LINKS  # type: ignore[assignment]
    state = args.state or Path(tempfile.mkdtemp(prefix="readcost-")) / "state"
    fresh = not state.exists()
    rng = np.random.default_rng(1)
    profile = ""
    with quiet_logs():
        stack = open_embedded(state)
        who = Callers(stack)
        if fresh:
            vecs = unit(rng, args.facts)
            for b, start in enumerate(range(0, args.facts, LOAD_BATCH)):
                stack.guard.write_many(who(f"owner-{b % OWNERS}"),  # type: ignore[arg-type]
                                       facts(vecs[start : start + LOAD_BATCH], f"{b}"))  # fmt: skip
        me = who("owner-0")
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
        with stack.guard.ledger.engine.connect() as conn:
            links = conn.exec_driver_sql("SELECT count(*) FROM mg_audit_fact").scalar()
        stack.close()
    print(f"facts={args.facts} links={links} load={os.getloadavg()[0]:.2f} "
          f"search_cpu_ms={search_ms:.2f} list1000_cpu_ms={list_ms:.1f} listed={len(page)}"
          f"{' (portable links query)' if args.portable else ''}")  # fmt: skip
    if profile:
        print(profile, file=sys.stderr)


if __name__ == "__main__":
    main()
