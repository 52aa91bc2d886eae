"""SIGTERM and the audit log's queue (memguard/ledger/shutdown.py): with the drain installed the
process integrates and signs every queued event before it ends; without it nothing is lost (the
events are durable in the queue) and :meth:`Ledger.drain` integrates them later."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memguard.ledger import Ledger
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.witness import WitnessDir

CHILD = """
import sys, time
from pathlib import Path
from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.shutdown import drain_on_sigterm
from memguard.ledger.witness import WitnessDir
from memguard.stores.memory import InMemoryStore

root = Path(sys.argv[1])
tokens = LocalTokenService(root / "keys")
ledger = Ledger.sqlite(root / "ledger.db",
                       checkpoint_signer=CheckpointSigner.load_or_create(root / "keys" / "cp.key"),
                       witness=WitnessDir(root / "witness"))
ledger.log.max_delay = ledger.log.checkpoint_interval = 1e9  # everything stays queued
guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger, verifier=tokens.verifier())
if sys.argv[2] == "drain":
    assert drain_on_sigterm(guard.close)
me = guard.authenticate(tokens.issue("alice"))
for i in range(5):
    guard.write(me, "fact %d" % i, namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id="s", turn_index=i))
print("ready", ledger.log.pending_count(), flush=True)
time.sleep(120)
"""


def _run_until_terminated(root: Path, mode: str) -> int:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root), mode],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    assert line[0] == "ready" and int(line[1]) > 0, line  # events are queued when the signal lands
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == -signal.SIGTERM  # still ends the way SIGTERM ends a process
    return int(line[1])


def _open(root: Path) -> Ledger:
    signer = CheckpointSigner.load_or_create(root / "keys" / "cp.key")
    return Ledger.sqlite(root / "ledger.db", checkpoint_signer=signer,
                         witness=WitnessDir(root / "witness"))  # fmt: skip


@pytest.mark.parametrize("mode", ["drain", "default"])
def test_sigterm_leaves_no_event_outside_the_signed_tree(tmp_path: Path, mode: str) -> None:
    queued = _run_until_terminated(tmp_path, mode)
    ledger = _open(tmp_path)
    try:
        if mode == "drain":  # drained and signed before the process ended
            assert ledger.log.pending_count() == 0
        else:  # the default SIGTERM: left queued, durable, and integrated by the next drain
            assert ledger.log.pending_count() == queued
            assert ledger.drain() == queued
        size = ledger.log.size()
        latest = ledger.log.latest_checkpoint()
        assert latest is not None and latest.tree_size == size
        witnessed = WitnessDir(tmp_path / "witness").latest()
        assert witnessed is not None and f"\n{size}\n" in witnessed
        report = ledger.verify()
        assert report.ok, [p.as_json() for p in report.problems]
        assert report.pending == 0
    finally:
        ledger.close()


def test_drain_survives_a_damaged_queue(tmp_path: Path) -> None:
    """A malformed queued leaf hash: drain logs and returns, it never raises; verify names it."""
    import sqlite3

    ledger = _open(tmp_path)
    try:
        from memguard.events import AuditEvent, Decision

        ledger.record([AuditEvent(action="get", decision=Decision.ALLOW, reason="a")])
        with sqlite3.connect(tmp_path / "ledger.db") as db:
            db.execute("UPDATE mg_log_pending SET leaf_hash = x'00'")
        db.close()
        assert ledger.drain() == 0
        assert not ledger.verify().ok
        ledger.record([AuditEvent(action="get", decision=Decision.ALLOW, reason="b")])  # alive
    finally:
        ledger.close()
