"""A read's fact links as a projection of its logged event (memguard/ledger/readlinks.py).

A read's allow event commits without its ``mg_audit_fact`` links; they are written in batches. The
answers that list a fact's reads (``Ledger.events_for``: ``memguard audit``, the console,
receipts) must stay complete in between and after a crash, ``ledger verify`` must still find a
link deleted or a mark moved, a ledger from before must open with its links as they are, and a
failure of the batch must fail the read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.audit import audit_fact
from memguard.errors import LedgerError
from memguard.events import AuditEvent, Decision
from memguard.ledger import readlinks
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _read(*fact_ids: str) -> AuditEvent:
    return AuditEvent(action="search", decision=Decision.ALLOW, reason="ok",
                      principal={"subject": "alice", "issuer": "https://id.example"},
                      fact_ids=fact_ids, detail={"returned_count": len(fact_ids)})  # fmt: skip


def _sql(ledger: Ledger, sql: str, *params: Any) -> list[Any]:
    with ledger.engine.begin() as conn:
        result = conn.exec_driver_sql(sql, params) if params else conn.exec_driver_sql(sql)
        return list(result.all()) if result.returns_rows else []


def _links(ledger: Ledger, fact_id: str) -> list[int]:
    return [int(r[0]) for r in _sql(ledger, "SELECT event_seq FROM mg_audit_fact WHERE fact_id = ?"
                                    " ORDER BY event_seq", fact_id)]  # fmt: skip


def _reads_of(ledger: Ledger, fact_id: str) -> list[str]:
    return [ev.event_id for _, ev, _ in ledger.events_for(fact_id)]


def _problems(ledger: Ledger) -> list[tuple[str, str]]:
    report = ledger.verify()
    return [(p.kind.value, str(p.table)) for p in report.problems if p.severity == "tamper"]


def test_a_read_commits_without_links_and_its_audit_answer_is_complete(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        reads = [_read("f-1", "f-2"), _read("f-2"), _read("f-3")]
        for ev in reads:
            ledger.record([ev], durable=False)
        assert _links(ledger, "f-2") == []  # deferred: the batch has not run
        assert _reads_of(ledger, "f-2") == [reads[0].event_id, reads[1].event_id]
        assert _reads_of(ledger, "f-3") == [reads[2].event_id]
        assert _reads_of(ledger, "f-9") == []
        assert _problems(ledger) == []  # the backlog above the mark is not a problem
        assert ledger.project_reads() == 4
        assert len(_links(ledger, "f-2")) == 2
        assert _reads_of(ledger, "f-2") == [reads[0].event_id, reads[1].event_id]  # not twice
        assert _problems(ledger) == []
    finally:
        ledger.close()


def test_a_fact_id_that_is_a_substring_of_another_is_not_matched(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.record([_read("f-10")], durable=False)
        assert _reads_of(ledger, "f-1") == []
        assert _reads_of(ledger, "f-1%") == []  # LIKE's wildcard is escaped
    finally:
        ledger.close()


def test_every_batch_of_reads_writes_the_links_in_the_reads_transaction(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        for i in range(readlinks.BATCH):
            ledger.record([_read(f"f-{i % 7}")], durable=False)
        newest = _sql(ledger, "SELECT max(seq) FROM mg_audit_event")[0][0]
        assert _sql(ledger, "SELECT upto FROM mg_read_projection")[0][0] == newest
        assert sum(len(_links(ledger, f"f-{i}")) for i in range(7)) == readlinks.BATCH
        assert _problems(ledger) == []
    finally:
        ledger.close()


def test_a_crash_between_the_event_and_its_links_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    first = Ledger.sqlite(path)
    ev = _read("f-1")
    first.record([ev], durable=False)
    first.engine.dispose()  # the process goes away: no flush, no close
    again = Ledger.sqlite(path)
    try:
        assert _links(again, "f-1") == []
        assert _reads_of(again, "f-1") == [ev.event_id]  # rebuilt from the logged event
        again.project_reads()
        assert len(_links(again, "f-1")) == 1
        assert _problems(again) == []
    finally:
        again.close()


def test_verify_finds_a_deleted_link_at_or_below_the_mark(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.record([_read("f-1")], durable=False)
        ledger.project_reads()
        _sql(ledger, "DELETE FROM mg_audit_fact WHERE fact_id = 'f-1'")
        assert ("row_deleted", "mg_audit_fact") in _problems(ledger)
    finally:
        ledger.close()


def test_verify_finds_a_mark_moved_past_the_log_and_a_link_no_event_names(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.record([_read("f-1")], durable=False)
        _sql(ledger, "UPDATE mg_read_projection SET upto = upto + 100")
        assert ("row_edited", "mg_read_projection") in _problems(ledger)
        assert ("row_deleted", "mg_audit_fact") in _problems(ledger)  # compared without excuse
        _sql(ledger, "UPDATE mg_read_projection SET upto = 0")
        seq = _sql(ledger, "SELECT max(seq) FROM mg_audit_event")[0][0]
        _sql(ledger, "INSERT INTO mg_audit_fact (event_seq, fact_id) VALUES (?, 'f-x')", seq)
        assert ("row_unlogged", "mg_audit_fact") in _problems(ledger)  # above the mark too
    finally:
        ledger.close()


def test_a_mark_moved_up_past_a_read_without_links_is_found(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.record([_read("f-1")], durable=False)
        ledger.record([AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                                  fact_ids=("f-2",))])  # fmt: skip
        assert _problems(ledger) == []
        _sql(ledger, "UPDATE mg_read_projection SET upto = upto + 1")  # past the read
        assert _problems(ledger) == [("row_deleted", "mg_audit_fact")]
    finally:
        ledger.close()


def test_a_deleted_link_of_an_event_that_does_not_defer_is_found_above_the_mark(
    tmp_path: Path,
) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        for action, decision in (("write", Decision.ALLOW), ("search", Decision.DENY)):
            ledger.record([AuditEvent(action=action, decision=decision, reason="x",
                                      fact_ids=("f-1",))])  # fmt: skip
        assert len(_links(ledger, "f-1")) == 2  # written at once, above the mark
        for seq in _links(ledger, "f-1"):
            _sql(ledger, "DELETE FROM mg_audit_fact WHERE event_seq = ?", seq)
            assert ("row_deleted", "mg_audit_fact") in _problems(ledger)
            _sql(ledger, "INSERT INTO mg_audit_fact (event_seq, fact_id) VALUES (?, 'f-1')", seq)
    finally:
        ledger.close()


def test_a_deleted_mark_is_reported_answers_stay_complete_and_a_flush_rebuilds(
    tmp_path: Path,
) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        old = _read("f-1")
        ledger.record([old], durable=False)
        ledger.project_reads()
        new = _read("f-1")
        ledger.record([new], durable=False)
        _sql(ledger, "DELETE FROM mg_read_projection")
        _sql(ledger, "DELETE FROM mg_audit_fact WHERE fact_id = 'f-1'")
        problems = _problems(ledger)
        assert ("row_deleted", "mg_read_projection") in problems
        assert ("row_deleted", "mg_audit_fact") in problems
        assert _reads_of(ledger, "f-1") == [old.event_id, new.event_id]
        ledger.project_reads()
        assert len(_links(ledger, "f-1")) == 2
        assert _problems(ledger) == []
    finally:
        ledger.close()


def test_a_failing_batch_fails_the_read_and_commits_nothing(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        for _ in range(readlinks.BATCH - 1):
            ledger.record([_read("f-1")], durable=False)
        before = _sql(ledger, "SELECT count(*) FROM mg_audit_event")[0][0]
        _sql(ledger, "DROP TABLE mg_read_projection")
        with pytest.raises(LedgerError):
            ledger.record([_read("f-1")], durable=False)  # the batch's turn
        assert _sql(ledger, "SELECT count(*) FROM mg_audit_event")[0][0] == before
        with pytest.raises(LedgerError):
            ledger.events_for("f-1")  # the audit answer fails closed, not short
    finally:
        ledger.close()


def test_a_guarded_read_is_in_the_facts_audit_before_any_batch(tmp_path: Path) -> None:
    tokens = LocalTokenService(tmp_path / "keys")
    store = InMemoryStore(dimension=8)
    guard = MemoryGuard(store=store, ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier())  # fmt: skip
    try:
        me = guard.authenticate(tokens.issue("alice"))
        fact = guard.write(me, "the sky is blue", namespace="n", source=SRC,
                           turn=Turn(session_id="s", turn_index=0))  # fmt: skip
        written = _links(guard.ledger, fact.fact_id)
        assert written  # the write's own links (its event, its change entries), at once
        assert guard.get(me, fact.fact_id)
        assert [h.fact_id for h in guard.search(me, "sky", k=3)] == [fact.fact_id]
        assert _links(guard.ledger, fact.fact_id) == written  # the reads': not yet
        reads = audit_fact(guard.ledger, store, fact.fact_id)["reads"]
        assert [r["action"] for r in reads] == ["get", "search"]
    finally:
        guard.close()


def test_a_ledger_from_before_opens_with_its_links_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    first = Ledger.sqlite(path)
    first.record([_read("f-1")])
    first.project_reads()  # every link written, as the previous release left its ledgers
    first.close()
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE mg_read_projection")  # as the previous release left it
    engine.dispose()
    again = Ledger.sqlite(path)
    try:
        newest = _sql(again, "SELECT max(seq) FROM mg_audit_event")[0][0]
        assert _sql(again, "SELECT upto FROM mg_read_projection")[0][0] == newest
        assert _problems(again) == []
        _sql(again, "DELETE FROM mg_audit_fact WHERE fact_id = 'f-1'")
        assert ("row_deleted", "mg_audit_fact") in _problems(again)  # at or below the mark
    finally:
        again.close()


def test_postgresql_writes_every_link_in_the_reads_transaction(pg_url: str) -> None:
    ledger = Ledger.from_url(pg_url)
    try:
        ev = _read("f-1")
        ledger.record([ev], durable=False)
        assert _reads_of(ledger, "f-1") == [ev.event_id]
        with ledger.engine.begin() as conn:
            n = conn.exec_driver_sql(
                "SELECT count(*) FROM mg_audit_fact WHERE fact_id = 'f-1'"
            ).scalar_one()
            conn.exec_driver_sql("DELETE FROM mg_audit_fact WHERE fact_id = 'f-1'")
        assert n == 1
        assert ("row_deleted", "mg_audit_fact") in _problems(ledger)  # no backlog excused
        assert ledger.project_reads() == 0
    finally:
        ledger.close()



def test_closing_a_ledger_writes_the_links_of_the_reads_it_deferred(tmp_path: Path) -> None:
    """A short-lived process (fewer reads than a batch) leaves no backlog behind it."""
    ledger = Ledger.sqlite(tmp_path / "l.db")
    reads = [_read("f-1", "f-2"), _read("f-2")]
    for ev in reads:
        ledger.record([ev], durable=False)
    assert _links(ledger, "f-2") == []
    ledger.close()
    again = Ledger.sqlite(tmp_path / "l.db")
    try:
        assert len(_links(again, "f-2")) == 2 and len(_links(again, "f-1")) == 1
        newest = _sql(again, "SELECT max(seq) FROM mg_audit_event")[0][0]
        assert _sql(again, "SELECT upto FROM mg_read_projection")[0][0] == newest
        assert _reads_of(again, "f-2") == [reads[0].event_id, reads[1].event_id]
        assert _problems(again) == []
    finally:
        again.close()


def test_a_failing_flush_at_close_leaves_the_backlog_answerable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flush at close never raises (the events are committed); the answers stay complete
    and the next flush writes the links."""
    ledger = Ledger.sqlite(tmp_path / "l.db")
    read = _read("f-1")
    ledger.record([read], durable=False)

    def broken(*_: object, **__: object) -> int:
        raise LedgerError("ledger operation failed: OperationalError")

    monkeypatch.setattr(readlinks, "project", broken)
    ledger.close()  # does not raise
    monkeypatch.undo()
    again = Ledger.sqlite(tmp_path / "l.db")
    try:
        assert _links(again, "f-1") == []
        assert _reads_of(again, "f-1") == [read.event_id]
        assert again.project_reads() == 1 and len(_links(again, "f-1")) == 1
    finally:
        again.close()


def test_a_flush_projects_only_the_deferred_reads_not_the_writes_above_the_mark(
    tmp_path: Path,
) -> None:
    """Writes, denials and change entries above the mark wrote their links at once: a flush
    neither parses nor re-inserts them (a write's JSON names up to 512 facts; a write-heavy
    ledger made every flush re-project every write since the last one), and the answers still
    list them through their links."""
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        write = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                           principal={"subject": "alice", "issuer": "https://id.example"},
                           fact_ids=tuple(f"w-{i}" for i in range(50)))  # fmt: skip
        denied = AuditEvent(action="search", decision=Decision.DENY, reason="no",
                            principal={"subject": "alice", "issuer": "https://id.example"},
                            fact_ids=("w-1",))  # fmt: skip
        ledger.record([write], durable=False)
        ledger.record([denied], durable=False)
        read = _read("w-1", "w-2")
        ledger.record([read], durable=False)
        assert ledger.project_reads() == 2  # the read's two links only
        assert _reads_of(ledger, "w-1") == [write.event_id, denied.event_id, read.event_id]
        assert _reads_of(ledger, "w-49") == [write.event_id]
        assert _problems(ledger) == []
    finally:
        ledger.close()
