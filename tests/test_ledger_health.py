"""The console's health page and the ledger-verify gauge run the full replay verify
(``Ledger.verify``: tree, projection rows, event columns), not the tree-only ``AuditLog.verify``:
an edited projection row, which leaves the Merkle tree intact, turns both red."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memguard import InMemoryStore, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.console.pages import Console
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.telemetry.metrics import LedgerGauges


def test_health_and_gauge_see_an_edited_projection_row(tmp_path: Path) -> None:
    tokens = LocalTokenService(tmp_path / "keys")
    signer = CheckpointSigner.load_or_create(tmp_path / "keys" / "checkpoint.key")
    ledger = Ledger.sqlite(tmp_path / "l.db", checkpoint_signer=signer)
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger, verifier=tokens.verifier())
    try:
        me = guard.authenticate(tokens.issue("alice"))
        fact = guard.write(me, "a fact", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                           turn=Turn(session_id="s", turn_index=0))  # fmt: skip
        ledger.log.flush()
        console, gauges = Console(guard), LedgerGauges(ledger, verify_interval=0)
        assert console.health(verify=True).problems == []
        assert gauges.run_verify() is True

        with sqlite3.connect(tmp_path / "l.db") as db:  # trust raised behind the log's back
            db.execute("UPDATE mg_provenance SET trust = 90 WHERE fact_id = ?", (fact.fact_id,))
        db.close()
        assert ledger.log.verify().ok  # the tree alone does not see it ...
        health = console.health(verify=True)  # ... the health page does
        assert any("mg_provenance" in p for p in health.problems), health.problems
        assert health.verify is not None and health.verify["verified"] is False
        assert gauges.run_verify() is False
    finally:
        guard.close()
