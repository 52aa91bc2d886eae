"""What the adapters' shared identity checks cost (adapters/_toolkit.py).

- ``require_identity`` with a good identity (what every adapter runs when it is built): the
  expiry, the verifier's mint check and the active revocations (cached by the kernel);
- ``check_binding`` on each call, outside any ``acting_as`` block (one context-variable read) and
  inside a block for the same caller;
- the same guarded call, ``GuardedSqlMemory.get`` on SQLite, measured here for scale: the checks
  are what it pays on top of the guard.

    .venv/bin/python benchmarks/bench_adapter_identity.py            # 20,000 checks, 500 gets
    .venv/bin/python benchmarks/bench_adapter_identity.py --quick    # 2,000 checks, 100 gets

Prints CPU (``time.process_time``) and wall time per call, with the load average.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchutil import quiet_logs

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.adapters import require_identity
from memguard.adapters._toolkit import check_binding
from memguard.adapters.sql import GuardedSqlMemory, SqlStore
from memguard.context import CallContext, acting_as


def per_call(fn: Callable[[], object], n: int) -> tuple[float, float]:
    """(CPU us, wall us) per call of ``fn`` over ``n`` calls."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(n):
        fn()
    return (time.process_time() - cpu) / n * 1e6, (time.perf_counter() - wall) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    checks, gets = (2_000, 100) if args.quick else (20_000, 500)
    quiet_logs()
    root = Path(tempfile.mkdtemp(prefix="bench-adapter-identity-"))
    tokens = LocalTokenService(root / "keys")
    ledger = Ledger.sqlite(root / "ledger.db")
    ctx = CallContext(source=Source(kind=SourceKind.USER_MESSAGE, uri="chat://b"),
                      turn=Turn(session_id="b", turn_index=0))  # fmt: skip
    with MemoryGuard(store=SqlStore(engine=ledger.engine, dimension=16), ledger=ledger,
                     verifier=tokens.verifier()) as guard:  # fmt: skip
        kernel = guard.kernel
        me = guard.authenticate(tokens.issue("alice"))
        mem = GuardedSqlMemory(guard, identity=me, context=ctx)
        row = mem.add("a memory to read back", namespace="notes")
        rows = [
            ("require_identity (good identity)", per_call(lambda: require_identity(kernel, me), checks)),
            ("check_binding, no acting_as block", per_call(lambda: check_binding(kernel, me, "get"), checks)),
        ]
        with acting_as(me, ctx):
            rows.append(("check_binding, block for the same caller",
                         per_call(lambda: check_binding(kernel, me, "get"), checks)))  # fmt: skip
        rows.append(("GuardedSqlMemory.get (for scale)", per_call(lambda: mem.get(row.id), gets)))
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {checks} checks, {gets} gets\n")
    print("| what | CPU us/call | wall us/call |")
    print("|---|---|---|")
    for name, (cpu, wall) in rows:
        print(f"| {name} | {cpu:.2f} | {wall:.2f} |")


if __name__ == "__main__":
    main()
