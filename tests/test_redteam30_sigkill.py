"""Red team (stop 30): a read's allow event, written on the driver connection without an fsync
(memguard/ledger/readevent.py), is in the ledger once the read has returned, even when the
process is killed (SIGKILL) right after: the event, its queued leaf and its fact link together.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text

from memguard import Ledger
from memguard.events import Decision

_CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
    from memguard.stores.memory import InMemoryStore

    here = Path(sys.argv[1])
    tokens = LocalTokenService(here / "keys")
    guard = MemoryGuard(store=InMemoryStore(dimension=384), ledger=Ledger.sqlite(here / "l.db"),
                        verifier=tokens.verifier())
    me = guard.authenticate(tokens.issue("alice"))
    fact = guard.write(me, "a fact", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                       turn=Turn(session_id="s", turn_index=0))
    for _ in range(3):
        assert guard.get(me, fact.fact_id) is not None
    print(fact.fact_id, flush=True)  # the reads have returned
    time.sleep(60)
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_a_returned_reads_allow_event_survives_a_sigkill(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path)], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    try:
        assert child.stdout is not None
        fact_id = child.stdout.readline().strip()
        assert fact_id, "the child wrote and read nothing"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        # killed before its reads' links were written (memguard/ledger/readlinks.py): the audit
        # answer has every read from the logged events, and a batch then writes their links
        reads = [seq for seq, ev, _ in ledger.events_for(fact_id)
                 if ev.action == "get" and ev.decision is Decision.ALLOW]  # fmt: skip
        ledger.project_reads()
        with ledger.engine.connect() as conn:
            linked = conn.execute(text(
                "SELECT e.seq FROM mg_audit_event e JOIN mg_audit_fact f ON f.event_seq = e.seq "
                "WHERE e.action = 'get' AND e.decision = 'allow' AND f.fact_id = :f"), {"f": fact_id}
            ).scalars().all()  # fmt: skip
            unlogged = conn.execute(text(
                "SELECT count(*) FROM mg_audit_event e WHERE NOT EXISTS (SELECT 1 FROM mg_log_pending p "
                "WHERE p.event_seq = e.seq) AND NOT EXISTS (SELECT 1 FROM mg_log_leaf l "
                "WHERE l.event_seq = e.seq)")).scalar_one()  # fmt: skip
        assert len(reads) == 3  # every returned read is audited
        assert sorted(linked) == sorted(reads)
        assert unlogged == 0
        assert ledger.verify().ok
    finally:
        ledger.close()
