"""fsync + fdatasync per guarded write call, by file: the ledger's (SQLite WAL) and the store's.

A child process opens the embedded default stack (``open_embedded``: SQLite ledger, qdrant-edge
store, checkpoint signer and witness directory) and makes N single writes, or N/8 ``write_many``
calls of 8 facts, after one warm-up write; the same child with N = 0 is the baseline, and the
difference divided by the number of write calls is the figure. Counted with
``strace -f -y -e trace=fsync,fdatasync`` (``-y`` names the file of each call). Also run with
``--memory-store`` (an in-memory store: the ledger's own cost only) and with ``--pg`` (the ledger
on the local PostgreSQL: the fsyncs are the server's, so only the store's show here).

    .venv/bin/python benchmarks/bench_ledger_fsync.py            # N = 60, < 1 min
    PYTHONPATH=/tmp/old-tree .venv/bin/python benchmarks/bench_ledger_fsync.py   # before

The checkpoint interval (10 s) and integration delay (1 s) are the defaults, so a slow machine
sees some integration and checkpoint transactions inside the window (they are part of the cost).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import sys
from memguard import open_embedded, Source, SourceKind, Turn, FactInput
from memguard.stores.memory import InMemoryStore
state, n, batch, memory = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
if memory:
    from memguard import Ledger, LocalTokenService, MemoryGuard
    from memguard.ledger.checkpoint import CheckpointSigner
    from memguard.ledger.witness import WitnessDir
    from pathlib import Path
    root = Path(state); root.mkdir(parents=True, exist_ok=True)
    tokens = LocalTokenService(root / "keys")
    ledger = Ledger.sqlite(root / "ledger.db",
                           checkpoint_signer=CheckpointSigner.load_or_create(root / "keys" / "cp.key"),
                           witness=WitnessDir(root / "witness"))
    g = MemoryGuard(store=InMemoryStore(dimension=384), ledger=ledger, verifier=tokens.verifier())
    close = g.close
else:
    s = open_embedded(state, scan=False); g = s.guard; tokens = s.tokens; close = s.close
me = g.authenticate(tokens.issue("a"))
src = Source(kind=SourceKind.USER_MESSAGE)
g.write(me, "warm", namespace="n", source=src, turn=Turn(session_id="s", turn_index=0))
if batch == 1:
    for i in range(n):
        g.write(me, "fact %d" % i, namespace="n", source=src, turn=Turn(session_id="s", turn_index=i))
else:
    for c in range(n // batch):
        g.write_many(me, [FactInput(text="fact %d %d" % (c, j), namespace="n", source=src,
                                    turn=Turn(session_id="s", turn_index=c)) for j in range(batch)])
close()
"""

LINE = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?(fsync|fdatasync)\((\d+)<([^>]*)>")


def _kind(path: str) -> str:
    name = os.path.basename(path)
    if name.startswith("ledger.db"):
        return "ledger"
    if "witness" in path:
        return "witness"
    return "store"


def count(root: Path, n: int, batch: int, memory: bool, tag: str) -> collections.Counter[str]:
    state = root / f"state-{tag}-{n}-{batch}"
    log = root / f"strace-{tag}-{n}-{batch}.txt"
    subprocess.run(
        ["strace", "-f", "-y", "-e", "trace=fsync,fdatasync", "-o", str(log),
         sys.executable, "-c", CHILD, str(state), str(n), str(batch), "1" if memory else "0"],
        check=True, capture_output=True, cwd=root,  # not this checkout: PYTHONPATH decides
    )  # fmt: skip
    out: collections.Counter[str] = collections.Counter()
    for line in log.read_text().splitlines():
        m = LINE.match(line)
        if m:
            out[_kind(m.group(3))] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--writes", type=int, default=60, help="facts per run (a multiple of 8)")
    args = ap.parse_args()
    if shutil.which("strace") is None:
        print("strace is not installed: nothing measured")
        return
    import memguard

    print(f"memguard from {Path(memguard.__file__).parent}")
    print(f"load average: {os.getloadavg()}  cpus: {os.cpu_count()}")
    n = args.writes - args.writes % 8
    print()
    print("| stack | write call | calls | ledger | store | witness | total per call |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="mg-bench-fsync-") as tmp:
        root = Path(tmp)
        for memory in (False, True):
            tag = "memory" if memory else "embedded"
            base = count(root, 0, 1, memory, tag)
            for batch in (1, 8):
                got = count(root, n, batch, memory, tag)
                calls = n // batch
                per = {k: (got[k] - base[k]) / calls for k in ("ledger", "store", "witness")}
                label = "write" if batch == 1 else f"write_many({batch})"
                print(f"| {tag} | {label} | {calls} | {per['ledger']:.2f} | {per['store']:.2f} "
                      f"| {per['witness']:.2f} | {sum(per.values()):.2f} |")  # fmt: skip
    print()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
