"""Crash-test child: writes batches through a guard on Qdrant local (path=) and a ledger, forever.

After each ``write_many`` returns, prints one line per acknowledged fact and flushes::

    ACK <fact_id> <record_digest>

``--kill-at half``: on batch ``--kill-batch`` the store's upsert writes the first half of the batch,
then the process SIGKILLs itself. ``--kill-at after``: the whole batch reaches the store, then
SIGKILL (before the ledger commit). ``--kill-at none``: the parent kills it at a time it picks.
``--wait-stdin``: open everything, print ``READY``, and start writing only after a line on stdin.
The wrapping is done here, on this process's store object; memguard itself is not modified.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from memguard import FactInput, Ledger, LocalTokenService, MemoryGuard, QdrantStore, Source, Turn
from memguard.trust import SourceKind


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store-path", required=True)
    ap.add_argument("--ledger-url", required=True)
    ap.add_argument("--keys", required=True)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--batches", type=int, default=1000)
    ap.add_argument("--kill-at", choices=["none", "half", "after"], default="none")
    ap.add_argument("--kill-batch", type=int, default=3)
    ap.add_argument("--wait-stdin", action="store_true", help="start writing after a stdin line")
    args = ap.parse_args()

    tokens = LocalTokenService(args.keys)
    store = QdrantStore(path=args.store_path)
    ledger = Ledger.from_url(args.ledger_url)
    guard = MemoryGuard(store=store, ledger=ledger, verifier=tokens.verifier())
    ident = guard.authenticate(tokens.issue("alice", ttl=3600))

    state = {"batch": 0}
    original = store.upsert

    def upsert(points: Any) -> None:
        if state["batch"] == args.kill_batch and args.kill_at != "none":
            if args.kill_at == "half":
                original(points[: len(points) // 2])
            else:
                original(points)
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        original(points)

    store.upsert = upsert  # type: ignore[method-assign]
    print("READY", flush=True)
    if args.wait_stdin:
        sys.stdin.readline()
    for b in range(args.batches):
        state["batch"] = b
        facts = [
            FactInput(
                text=f"fact {b}-{i} pid {os.getpid()}",
                namespace="crash",
                source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id=f"s{os.getpid()}", turn_index=b),
                metadata={"batch": b, "i": i},
            )
            for i in range(args.batch)
        ]
        provs = guard.write_many(ident, facts)
        sys.stdout.write("".join(f"ACK {p.fact_id} {p.record_digest}\n" for p in provs))
        sys.stdout.flush()
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
