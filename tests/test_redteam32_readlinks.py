"""redteam32: reads that escape a fact's audit answer while their links are deferred
(memguard/ledger/readlinks.py).

A read's ``mg_audit_fact`` links are written in batches; until then :meth:`Ledger.events_for`
(``memguard audit``, the console, receipts) finds the read by a text match of the fact id in the
event's stored JSON. A fact id holding a character JSON escapes (``"`` or ``\\``: a caller-chosen
id only has to be 1 to 64 characters) is stored escaped, so the text match must look for the
escaped form, or the read is invisible to the audit until the next batch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.audit import audit_fact
from memguard.events import AuditEvent, Decision
from memguard.guard import FactInput
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)
ESCAPED_IDS = ['q"1', "b\\1", 'x\\"y', "t\t1", "nl\n1", "c\x01d"]


def _read(*fact_ids: str) -> AuditEvent:
    return AuditEvent(action="get", decision=Decision.ALLOW, reason="ok",
                      principal={"subject": "alice", "issuer": "https://id.example"},
                      fact_ids=fact_ids, detail={"returned_count": len(fact_ids)})  # fmt: skip


@pytest.mark.parametrize("fact_id", ESCAPED_IDS)
def test_a_deferred_read_of_an_id_json_escapes_is_in_its_audit_answer(
    tmp_path: Path, fact_id: str
) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ev = _read(fact_id, "other")
        ledger.record([ev], durable=False)  # deferred: no link yet
        assert [e.event_id for _, e, _ in ledger.events_for(fact_id)] == [ev.event_id]
        ledger.project_reads()
        assert [e.event_id for _, e, _ in ledger.events_for(fact_id)] == [ev.event_id]
    finally:
        ledger.close()


def test_a_guarded_get_of_a_quoted_caller_chosen_id_is_in_memguard_audit(tmp_path: Path) -> None:
    tokens = LocalTokenService(tmp_path / "keys")
    store = InMemoryStore(dimension=8)
    guard = MemoryGuard(store=store, ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier())  # fmt: skip
    try:
        me = guard.authenticate(tokens.issue("alice"))
        fact_id = 'note"1'
        (fact,) = guard.write_many(
            me,
            [
                FactInput(
                    text="the sky is blue", namespace="n", source=SRC,
                    turn=Turn(session_id="s", turn_index=0),
                )
            ],
            fact_ids=[fact_id],
        )
        assert fact.fact_id == fact_id
        assert guard.get(me, fact_id)
        reads = audit_fact(guard.ledger, store, fact_id)["reads"]
        assert [r["action"] for r in reads] == ["get"]  # the read before any batch
    finally:
        guard.close()
