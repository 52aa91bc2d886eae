"""The people-facing paths: `memguard --help` start-up, and the audit console's pages against the
raw ledger reads they are built on (guarded / raw).

- start-up: `memguard --help` and `memguard audit --help` as real processes (median wall time), and
  how many modules `--help` imports (`python -X importtime`);
- fact list: one page of 50 of alice's facts through the console (audited operation, the audit
  plan and the point evaluator on each row) vs the same SQL batch read raw;
- fact page: the console's fact view (the policy-gated audit report, with every event's inclusion
  proof, plus the scoped lineage graph) and its SVG, vs `audit_fact` alone and an unscoped graph.

Run: python benchmarks/bench_console.py [--quick]   (SQLite ledger in a temp folder, in-memory store)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchutil import median_ms, quiet_logs

from memguard import FactInput, InMemoryStore, Ledger, LocalTokenService, MemoryGuard, Source, Turn
from memguard.audit import audit_fact
from memguard.console.graph import lineage_graph
from memguard.console.pages import Console, FactFilters
from memguard.console.svg import render_svg
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.trust import SourceKind


def _process_ms(args: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "memguard", *args], capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def _help_modules() -> int:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "memguard", "--help"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return sum(line.startswith("import time:") and "|" in line for line in proc.stderr.splitlines()) - 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    facts, chain, repeats = (400, 20, 5) if args.quick else (4000, 100, 15)
    print(f"method: {facts} facts for alice and as many for bob, a derivation chain of {chain}; "
          f"medians of {repeats} runs; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")  # fmt: skip

    print(f"memguard --help          {_process_ms(['--help'], repeats):8.1f} ms, "
          f"{_help_modules()} modules imported")  # fmt: skip
    print(f"memguard audit --help    {_process_ms(['audit', '--help'], repeats):8.1f} ms")

    with tempfile.TemporaryDirectory() as tmp, quiet_logs():
        root = Path(tmp)
        tokens = LocalTokenService(root / "keys")
        signer = CheckpointSigner.load_or_create(root / "keys" / "checkpoint.key")
        ledger = Ledger.sqlite(root / "ledger.db", checkpoint_signer=signer)
        guard = MemoryGuard(store=InMemoryStore(), ledger=ledger, verifier=tokens.verifier())
        alice = guard.authenticate(tokens.issue("alice", ttl=3600))
        bob = guard.authenticate(tokens.issue("bob", ttl=3600))
        for who in (alice, bob):
            for start in range(0, facts, 64):
                guard.write_many(who, [
                    FactInput(text=f"note {i}", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                              turn=Turn(session_id="s", turn_index=i))
                    for i in range(start, min(start + 64, facts))
                ])  # fmt: skip
        parent = guard.write(alice, "the root", namespace="n", source=Source(kind=SourceKind.WEB,
                             uri="https://x.example/"), turn=Turn(session_id="c", turn_index=0))  # fmt: skip
        root_id = parent.fact_id
        for i in range(chain):
            parent = guard.write(alice, f"derived {i}", namespace="n",
                                 source=Source(kind=SourceKind.AGENT_INFERENCE, name="p"),
                                 turn=Turn(session_id="c", turn_index=i + 1),
                                 derived_from=[parent.fact_id])  # fmt: skip
        ledger.log.flush()
        console = Console(guard)
        middle = guard.ledger.lineage.descendants([root_id])[chain // 2]

        page = median_ms(lambda: console.facts(alice, FactFilters()), repeats)
        raw_page = median_ms(lambda: console._batch(FactFilters(), [], None)[:50], repeats)

        def fact_view() -> None:
            view = console.fact(alice, middle)
            render_svg(view.graph, lambda f: f"/facts/{f}")

        view = median_ms(fact_view, repeats)
        raw_view = median_ms(lambda: (audit_fact(ledger, guard.store, middle),
                                      lineage_graph(ledger, middle)), repeats)  # fmt: skip
        guard.close()
    print(f"fact list, 50 of alice's: console {page:8.1f} ms   raw batch {raw_page:8.1f} ms   "
          f"{page / raw_page:5.2f}x")
    print(f"fact page ({chain + 1}-node lineage): console {view:8.1f} ms   audit_fact + graph "
          f"{raw_view:8.1f} ms   {view / raw_view:5.2f}x")


if __name__ == "__main__":
    main()
