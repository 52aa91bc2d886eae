"""Guarded vs raw LangGraph store: ``search`` (the main read) and ``put`` (the main write).

Both sides are LangGraph ``InMemoryStore`` with the same semantic index (64-d ``HashEmbedder``,
``fields=["text"]``) and the same items, all owned by the caller (the guard's worst case: its pushed
scope filter runs over every item, as the raw search does). The guard uses the default scope (owner
isolation, trust >= untrusted: the trust floor is pushed into the store's filter), a SQLite file
ledger (WAL, ``synchronous=FULL``) in a temporary directory, and records an audit event per call.
One row uses an owner-isolation-only policy, which the tenant partition decides entirely: no
filter is pushed, so it shows the guard's own overhead (plan, verify k hits, one audit event).

    .venv/bin/python benchmarks/bench_adapter_langgraph.py            # 10k items, ~2 min
    .venv/bin/python benchmarks/bench_adapter_langgraph.py --quick    # 1k items, < 30 s
    .venv/bin/python benchmarks/bench_adapter_langgraph.py --items 5000 --repeats 50

Prints a markdown table of medians (ms) and guarded/raw ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchutil import median_ms
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore

from memguard import (
    HashEmbedder,
    Ledger,
    LocalTokenService,
    PolicyResolver,
    Source,
    SourceKind,
    Turn,
)
from memguard.adapters.langgraph import GuardedStore
from memguard.context import CallContext
from memguard.kernel import Kernel

NS = ("memories", "user")
WORDS = (
    "rate limit api key dark mode meeting friday budget report travel paris flight hotel "
    "python rust deploy server cache index query vector memory agent tool web page note"
).split()


OWNER_ONLY = """\
apiVersion: memguard/v1
rules:
  - id: own
    effect: permit
    actions: [search, get, update, delete]
    when:
      all:
        - {attr: fact.owner_iss, eq: {attr: principal.issuer}}
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
  - id: write
    effect: permit
    actions: [write]
"""


def _index() -> Any:
    return {"dims": 64, "embed": HashEmbedder(64).embed, "fields": ["text"]}


def _text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=8))


def _load(store: BaseStore, n: int, rng: random.Random) -> None:
    for start in range(0, n, 64):
        store.batch(
            [
                PutOp(NS, f"k{i}", {"text": _text(rng), "i": i})
                for i in range(start, min(start + 64, n))
            ]
        )


def run(items: int, repeats: int) -> list[tuple[str, float, float]]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-langgraph-"))
    tokens = LocalTokenService(tmp / "keys")
    kernel = Kernel(ledger=Ledger.sqlite(tmp / "ledger.db"), verifier=tokens.verifier())
    me = kernel.authenticate(tokens.issue("alice", ttl=3600))
    context = CallContext(
        source=Source(kind=SourceKind.USER_MESSAGE, name="bench"),
        turn=Turn(session_id="bench", turn_index=0),
    )
    raw = InMemoryStore(index=_index())
    guarded_inner = InMemoryStore(index=_index())
    guarded = GuardedStore(guarded_inner, kernel=kernel, identity=me, context=context)
    _load(raw, items, random.Random(7))
    _load(guarded, items, random.Random(7))

    rng = random.Random(11)
    queries = [" ".join(rng.choices(WORDS, k=3)) for _ in range(repeats)]
    q_raw, q_guard = iter(queries), iter(queries)
    rows: list[tuple[str, float, float]] = []
    rows.append(
        (
            "search k=10 (query)",
            median_ms(lambda: guarded.search(NS, query=next(q_guard), limit=10), repeats),
            median_ms(lambda: raw.search(NS, query=next(q_raw), limit=10), repeats),
        )
    )
    rows.append(
        (
            "search k=10 (filter, no query)",
            median_ms(lambda: guarded.search(NS, filter={"i": {"$gte": 5}}, limit=10), repeats),
            median_ms(lambda: raw.search(NS, filter={"i": {"$gte": 5}}, limit=10), repeats),
        )
    )
    rows.append(
        (
            "get",
            median_ms(lambda: guarded.get(NS, "k5"), repeats),
            median_ms(lambda: raw.get(NS, "k5"), repeats),
        )
    )
    # owner isolation only: the tenant partition decides it, nothing is left to push
    owner_kernel = Kernel(
        ledger=kernel.ledger, verifier=tokens.verifier(), scope=PolicyResolver.from_text(OWNER_ONLY)
    )
    owner_only = GuardedStore(
        guarded_inner,
        kernel=owner_kernel,
        identity=owner_kernel.authenticate(tokens.issue("alice", ttl=3600)),
        context=context,
    )
    q_owner, q_raw = iter(queries), iter(queries)
    rows.append(
        (
            "search k=10 (query), owner-only policy",
            median_ms(lambda: owner_only.search(NS, query=next(q_owner), limit=10), repeats),
            median_ms(lambda: raw.search(NS, query=next(q_raw), limit=10), repeats),
        )
    )
    rows.extend(_ttl_rows(kernel, tokens, guarded_inner, raw, context, queries, repeats))
    loop = asyncio.new_event_loop()
    rows.append(
        (
            "asearch k=10 (query)",
            median_ms(
                lambda: loop.run_until_complete(guarded.asearch(NS, query="dark mode", limit=10)),
                repeats,
            ),
            median_ms(
                lambda: loop.run_until_complete(raw.asearch(NS, query="dark mode", limit=10)),
                repeats,
            ),
        )
    )
    loop.close()
    wrng_g, wrng_r = random.Random(3), random.Random(3)
    counter = iter(range(10**9))
    rows.append(
        (
            "put 1 (new key)",
            median_ms(
                lambda: guarded.put(NS, f"new{next(counter)}", {"text": _text(wrng_g)}), repeats
            ),
            median_ms(
                lambda: raw.put(NS, f"new{next(counter)}", {"text": _text(wrng_r)}), repeats
            ),
        )
    )
    batch_g = [PutOp(NS, f"k{i}", {"text": _text(wrng_g), "i": i}) for i in range(64)]
    batch_r = [PutOp(NS, f"k{i}", {"text": _text(wrng_r), "i": i}) for i in range(64)]
    rows.append(
        (
            "put batch 64 (updates)",
            median_ms(lambda: guarded.batch(batch_g), max(3, repeats // 5)),
            median_ms(lambda: raw.batch(batch_r), max(3, repeats // 5)),
        )
    )
    kernel.ledger.close()
    return rows


class _Clock:
    """The TTL rows' kernel clock: real time plus what the benchmark moved it by."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def _ttl_rows(
    kernel: Kernel,
    tokens: LocalTokenService,
    inner: InMemoryStore,
    raw: InMemoryStore,
    context: CallContext,
    queries: list[str],
    repeats: int,
) -> list[tuple[str, float, float]]:
    """TTL (memguard.expiry): a get that renews the expiry (a new version through the write
    protocol: the clock moves 2% of the TTL per call), one whose renewal is below the step, one
    without refresh, and a search with the expiry pushed into the inner filter."""
    clock = _Clock()
    ttl_kernel = Kernel(ledger=kernel.ledger, verifier=tokens.verifier(), clock=clock)
    store = GuardedStore(
        inner,
        kernel=ttl_kernel,
        identity=ttl_kernel.authenticate(tokens.issue("alice", ttl=3600)),
        context=context,
        ttl={"refresh_on_read": True},
    )
    store.put(NS, "ttl5", {"text": "expiring note", "i": 5}, ttl=60)

    def renewing() -> object:
        clock.offset += 72  # 2% of 60 minutes: every read renews (a new version)
        return store.get(NS, "ttl5")

    q_ttl, q_raw = iter(queries), iter(queries)
    return [
        ("get, ttl item, renewed on every read", median_ms(renewing, repeats),
         median_ms(lambda: raw.get(NS, "k5"), repeats)),
        ("get, ttl item, renewal below the step", median_ms(lambda: store.get(NS, "ttl5"), repeats),
         median_ms(lambda: raw.get(NS, "k5"), repeats)),
        ("get, ttl item, refresh_ttl=False",
         median_ms(lambda: store.get(NS, "ttl5", refresh_ttl=False), repeats),
         median_ms(lambda: raw.get(NS, "k5"), repeats)),
        ("search k=10 (query), expiry pushed down",
         median_ms(lambda: store.search(NS, query=next(q_ttl), limit=10, refresh_ttl=False), repeats),
         median_ms(lambda: raw.search(NS, query=next(q_raw), limit=10), repeats)),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k items, fewer repeats")
    parser.add_argument("--items", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    items = args.items or (1_000 if args.quick else 10_000)
    repeats = args.repeats or (15 if args.quick else 40)
    # the guard's structlog decision lines are part of its cost, but not of the printed table
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        rows = run(items, repeats)
    print(f"\nLangGraph InMemoryStore, {items:,} items, medians of {repeats} calls (ms)\n")
    print("| operation | guarded | raw | guarded/raw |")
    print("|---|---:|---:|---:|")
    for name, guard_ms, raw_ms in rows:
        print(f"| {name} | {guard_ms:.2f} | {raw_ms:.3f} | {guard_ms / raw_ms:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
