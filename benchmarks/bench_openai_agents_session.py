"""GuardedSession vs the SDK's own SQLiteSession: the cost of a guarded conversation history.

Both sessions get the same items: a conversation of ``turns`` turns, four items each (the user's
message, a function call, its output, the answer), added one turn per ``add_items`` call as the
Runner does, then ``get_items()`` (the whole history) and ``get_items(limit=4)``. The guarded side
is the embedded stack (qdrant-edge, SQLite ledger with one fsync per write, the built-in scanner);
the SDK side is ``SQLiteSession`` on a file.

    .venv/bin/python benchmarks/bench_openai_agents_session.py            # 50 and 200 turns
    .venv/bin/python benchmarks/bench_openai_agents_session.py --quick    # 50 turns
    .venv/bin/python benchmarks/bench_openai_agents_session.py --sizes 50 --others 200
        # first the same caller's other session gets 200 turns (800 items), as a caller with many
        # conversations has; the measured session's reads should not pay for them

Prints a markdown table of medians per call and the guarded/raw ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agents import SQLiteSession
from benchutil import quiet_logs

from memguard import open_embedded
from memguard.adapters.openai_agents import GuardedSession


def turn_items(i: int) -> list[Any]:
    return [
        {"role": "user", "content": f"question {i}: what is the rate limit of service {i}?"},
        {"type": "function_call", "call_id": f"c{i}", "name": "rate_limit",
         "arguments": f'{{"api": "svc-{i}"}}', "id": f"fc{i}"},
        {"type": "function_call_output", "call_id": f"c{i}", "output": f"svc-{i}: {i} req/min"},
        {"role": "assistant", "type": "message", "id": f"m{i}", "status": "completed",
         "content": [{"type": "output_text", "text": f"service {i} allows {i} requests a minute",
                      "annotations": []}]},
    ]  # fmt: skip


async def timed(samples: list[float], call: Callable[[], Awaitable[Any]]) -> Any:
    start = time.perf_counter()
    out = await call()
    samples.append(time.perf_counter() - start)
    return out


async def run(session: Any, turns: int) -> dict[str, float]:
    add: list[float] = []
    full: list[float] = []
    tail: list[float] = []
    for i in range(turns):
        items = turn_items(i)
        await timed(add, lambda items=items: session.add_items(items))  # type: ignore[misc]
    for _ in range(5):
        history = await timed(full, session.get_items)
        await timed(tail, lambda: session.get_items(limit=4))
    assert len(history) == 4 * turns, len(history)
    return {"add_items (1 turn)": statistics.median(add), "get_items()": statistics.median(full),
            "get_items(limit=4)": statistics.median(tail)}  # fmt: skip


async def fill(session: Any, turns: int) -> None:
    for i in range(turns):
        await session.add_items(turn_items(i))


async def measure(turns: int, others: int = 0) -> tuple[dict[str, float], dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        raw = SQLiteSession("bench", str(Path(tmp) / "sdk.db"))
        stack = open_embedded(Path(tmp) / "state")
        try:
            me = stack.guard.authenticate(stack.tokens.issue("bench-user"))
            guarded = GuardedSession("bench", guard=stack.guard, identity=me)
            with quiet_logs():  # the guard's decision lines cost time but are not the table
                if others:
                    other = SQLiteSession("other", str(Path(tmp) / "sdk.db"))
                    await fill(other, others)
                    other.close()
                    await fill(GuardedSession("other", guard=stack.guard, identity=me), others)
                base = await run(raw, turns)
                mine = await run(guarded, turns)
        finally:
            stack.guard.close()
            raw.close()
    return base, mine


async def main(sizes: list[int], others: int) -> None:
    print(f"load average: {os.getloadavg()[0]:.2f}; other session of the caller: {others} turns")
    print("| turns | call | SQLiteSession | GuardedSession | ratio |\n| --- | --- | --- | --- | --- |")
    for turns in sizes:
        base, mine = await measure(turns, others)
        for name, value in base.items():
            g = mine[name]
            print(f"| {turns} | {name} | {value * 1e3:.2f} ms | {g * 1e3:.2f} ms | {g / value:.1f}x |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*")
    parser.add_argument("--others", type=int, default=0, help="turns in another session first")
    args = parser.parse_args()
    sizes = args.sizes or ([50] if args.quick else [50, 200])
    asyncio.run(main(sizes, args.others))
