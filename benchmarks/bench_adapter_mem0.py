"""Guarded vs raw mem0 ``Memory``: ``search`` (the main read) and ``add(..., infer=False)`` (the main write).

One mem0 ``Memory`` in Qdrant local mode (``":memory:"``), a SQLite history file and the offline 64-d
``HashEmbedding``; memories of ten users, so the caller's scope keeps ~10%. The raw side is that very
``Memory`` called as a mem0 user would (``filters={"user_id": ...}``); the guarded side is
``GuardedMemory`` over it (default scope pushed into mem0's filter, every hit verified against a SQLite
file ledger with WAL and ``synchronous=FULL``, an audit event per call). Every guarded search is checked
to return the raw search's ids.

    .venv/bin/python benchmarks/bench_adapter_mem0.py            # 10k memories, ~3-4 min
    .venv/bin/python benchmarks/bench_adapter_mem0.py --quick    # 1k memories, < 1 min
    .venv/bin/python benchmarks/bench_adapter_mem0.py --memories 5000 --repeats 30

Prints a markdown table of medians (ms) and guarded/raw ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ["MEM0_TELEMETRY"] = "False"  # before mem0 is imported: no telemetry, no network
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="memguard-bench-mem0-"))

from benchutil import median_ms

from memguard import Ledger, LocalTokenService, Source, SourceKind, Turn
from memguard.adapters.mem0 import GuardedMemory, offline_memory
from memguard.context import CallContext
from memguard.kernel import Kernel

USERS = 10
BATCH = 100
WORDS = (
    "rate limit api key dark mode meeting friday budget report travel paris flight hotel "
    "python rust deploy server cache index query vector memory agent tool web page note"
).split()


def _text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=8))


def run(memories: int, repeats: int, tmp: Path) -> tuple[list[tuple[str, float, float]], float]:
    rng = random.Random(7)
    tokens = LocalTokenService(tmp / "keys")
    ledger = Ledger.sqlite(tmp / "ledger.db")
    kernel = Kernel(ledger=ledger, verifier=tokens.verifier())
    memory = offline_memory(dimension=64, history_db_path=str(tmp / "history.db"))
    context = CallContext(
        source=Source(kind=SourceKind.USER_MESSAGE, name="chat"), turn=Turn(session_id="s", turn_index=0)
    )
    guards = [
        GuardedMemory(
            memory, kernel=kernel, identity=kernel.authenticate(tokens.issue(f"user-{u}")), context=context
        )
        for u in range(USERS)
    ]
    t0 = time.perf_counter()
    per_user = memories // USERS
    for guarded in guards:  # loaded through the guard, so every memory has its ledger row
        for start in range(0, per_user, BATCH):
            batch = [{"role": "user", "content": _text(rng)} for _ in range(min(BATCH, per_user - start))]
            guarded.add(batch, infer=False)
    load_s = time.perf_counter() - t0

    me = guards[0]
    queries = [_text(rng) for _ in range(repeats)]
    it = iter(queries * 2)

    def same_hits() -> None:
        q = next(it)
        got = me.search(q, top_k=10)["results"]
        want = memory.search(q, top_k=10, filters={"user_id": me.user_id})["results"]
        # the same scores (local mode's float32 math differs in the last digits between query
        # shapes), and the same hits up to the order of equal scores
        scores = sorted(round(r["score"], 5) for r in got)
        assert scores == sorted(round(r["score"], 5) for r in want), "guarded search differs"
        wider = memory.search(q, top_k=40, filters={"user_id": me.user_id})["results"]
        tied = {r["id"] for r in wider if round(r["score"], 5) >= scores[0]}
        assert {r["id"] for r in got} <= tied, "guarded search differs from raw search"

    # correctness pass (not timed): the guarded hits are the raw ones
    for _ in range(min(5, repeats)):
        same_hits()
    # interleaved, alternating which side goes first: the machine is shared, so load changes
    # during a run hit both sides alike
    guard_t: list[float] = []
    raw_t: list[float] = []
    for i, q in enumerate(queries):
        sides = [(guard_t, lambda q=q: me.search(q, top_k=10)),
                 (raw_t, lambda q=q: memory.search(q, top_k=10, filters={"user_id": me.user_id}))]
        for times, call in sides if i % 2 == 0 else sides[::-1]:
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
    guard_search, raw_search = (statistics.median(t) * 1000 for t in (guard_t, raw_t))
    # writes in a turn of their own: writes after reads in the same turn carry lineage edges to
    # every fact that turn read (the taint), a cost of their own
    writer = me.with_context(turn=Turn(session_id="s", turn_index=1))
    guard_add = median_ms(lambda: writer.add(_text(rng), infer=False), repeats)
    raw_add = median_ms(lambda: memory.add(_text(rng), user_id=me.user_id, infer=False), repeats)
    memory.vector_store.client.close()
    ledger.close()
    rows = [
        ("search top_k=10", guard_search, raw_search),
        ("add 1 message, infer=False", guard_add, raw_add),
    ]
    return rows, load_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k memories, fewer repeats")
    parser.add_argument("--memories", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    memories = args.memories or (1_000 if args.quick else 10_000)
    repeats = args.repeats or (15 if args.quick else 40)
    logging.disable(logging.WARNING)  # mem0 warns about optional spaCy/fastembed on every call
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
        # the guard's structlog decision lines are part of its cost, but not of the printed table
        with contextlib.redirect_stdout(devnull):
            rows, load_s = run(memories, repeats, Path(tmp))
    print(
        f"\nmem0 Memory (Qdrant local :memory:, 64-d), {memories:,} memories of {USERS} users "
        f"(loaded through the guard in {load_s:.0f} s), medians of {repeats} calls (ms)\n"
    )
    print("| operation | guarded | raw | guarded/raw |")
    print("|---|---:|---:|---:|")
    for name, guard_ms, raw_ms in rows:
        print(f"| {name} | {guard_ms:.2f} | {raw_ms:.2f} | {guard_ms / raw_ms:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
