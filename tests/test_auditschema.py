"""The audit events' indexes for the read path (memguard/ledger/auditschema.py, issue 16).

A ledger this code creates has it from the start; a ledger built with the previous release's DDL
(written out below, as d4d21da's SQLModel tables created it) is reshaped at open: its reads, the
audit of its facts and ``ledger verify`` work as before, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.audit import audit_fact
from memguard.errors import MemguardError
from memguard.events import AuditEvent, Decision
from memguard.ledger import auditschema
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)

#: d4d21da's audit tables (SQLModel's DDL for the then AuditEventRow and AuditFactRow)
_OLD_EVENT = {
    "sqlite": "seq INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, ts DATETIME NOT NULL",
    "postgresql": "seq SERIAL NOT NULL PRIMARY KEY, ts TIMESTAMP WITH TIME ZONE NOT NULL",
}
_OLD_DDL = [
    "CREATE TABLE mg_audit_event ({head}, event_id VARCHAR(64) NOT NULL, "
    "action VARCHAR(32) NOT NULL, decision VARCHAR(16) NOT NULL, reason VARCHAR(128) NOT NULL, "
    "subject VARCHAR, trace_id VARCHAR, event TEXT NOT NULL, event_digest VARCHAR(80) NOT NULL, "
    "UNIQUE (event_id))",
    "CREATE INDEX ix_mg_audit_event_ts ON mg_audit_event (ts)",
    "CREATE INDEX ix_mg_audit_event_decision ON mg_audit_event (decision)",
    "CREATE INDEX ix_mg_audit_event_action ON mg_audit_event (action)",
    "CREATE INDEX ix_mg_audit_event_subject ON mg_audit_event (subject)",
    "CREATE INDEX ix_mg_audit_event_trace_id ON mg_audit_event (trace_id)",
    "CREATE TABLE mg_audit_fact (event_seq INTEGER NOT NULL, fact_id VARCHAR(64) NOT NULL, "
    "PRIMARY KEY (event_seq, fact_id), FOREIGN KEY(event_seq) REFERENCES mg_audit_event (seq))",
    "CREATE INDEX ix_mg_audit_fact_fact_id ON mg_audit_fact (fact_id)",
]
_OLD_INDEXES = {"ix_mg_audit_event_ts", "ix_mg_audit_event_decision", "ix_mg_audit_event_action",
                "ix_mg_audit_event_subject", "ix_mg_audit_event_trace_id",
                "ix_mg_audit_fact_fact_id"}  # fmt: skip
_NEW_INDEXES = {"ix_mg_audit_event_flagged", "ix_mg_audit_event_changes",
                "ix_mg_audit_fact_fact_id"}  # fmt: skip


def _shape(url: str) -> set[str]:
    """The audit tables' index names."""
    engine = create_engine(url)
    try:
        found = inspect(engine)
        return {str(i["name"]) for t in ("mg_audit_event", "mg_audit_fact")
                for i in found.get_indexes(t) if str(i["name"]).startswith("ix_")}  # fmt: skip
    finally:
        engine.dispose()


def _old_ledger(url: str, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    """A ledger as d4d21da created it: the old audit DDL, no ``audit_schema`` marker."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for sql in _OLD_DDL:
                conn.exec_driver_sql(sql.format(head=_OLD_EVENT[engine.dialect.name]))
    finally:
        engine.dispose()
    with monkeypatch.context() as m:
        m.setattr(auditschema, "FRESH", [])  # d4d21da's ledger.create entry had no marker
        ledger = Ledger.from_url(url)
    assert _shape(url) == _OLD_INDEXES  # not migrated yet
    return ledger


def _sql(url: str, sql: str) -> list[Any]:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(sql))
            return list(result.all()) if result.returns_rows else []
    finally:
        engine.dispose()


@pytest.fixture
def tokens(tmp_path: Path) -> LocalTokenService:
    return LocalTokenService(tmp_path / "keys")


def _guard(ledger: Ledger, store: InMemoryStore, tokens: LocalTokenService) -> MemoryGuard:
    return MemoryGuard(store=store, ledger=ledger, verifier=tokens.verifier())


def test_a_new_ledger_has_the_shape_and_its_logged_marker(ledger_url: str) -> None:
    ledger = Ledger.from_url(ledger_url)
    try:
        assert auditschema.migrate(ledger) is False  # nothing to do
        assert _shape(ledger_url) == _NEW_INDEXES
        marker = _sql(ledger_url, "SELECT value FROM mg_ledger_meta WHERE key = 'audit_schema'")
        assert marker == [("2",)]
        assert ledger.verify().ok
        _sql(ledger_url, "DELETE FROM mg_ledger_meta WHERE key = 'audit_schema'")
        assert not ledger.verify().ok  # the marker is a logged row: removed around the log
    finally:
        ledger.close()


def test_an_old_ledger_is_reshaped_at_open_and_reads_audits_verifies(
    ledger_url: str, tokens: LocalTokenService, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = InMemoryStore(dimension=8)
    old = _guard(_old_ledger(ledger_url, monkeypatch), store, tokens)
    me = old.authenticate(tokens.issue("alice"))
    facts = [old.write(me, f"fact {i}", namespace="n", source=SRC,
                       turn=Turn(session_id="s", turn_index=i)) for i in range(3)]  # fmt: skip
    assert old.get(me, facts[0].fact_id)
    assert old.search(me, "fact", k=3)
    old.ledger.record([AuditEvent(action="search", decision=Decision.DENY, reason="x")])
    events_before = old.ledger.count_events()
    old.ledger.close()  # on SQLite closing writes the links of the reads it deferred
    links_before = _sql(ledger_url, "SELECT event_seq, fact_id FROM mg_audit_fact ORDER BY 1, 2")

    ledger = Ledger.from_url(ledger_url)  # the migration, at open
    guard = _guard(ledger, store, tokens)
    try:
        assert _shape(ledger_url) == _NEW_INDEXES
        assert _sql(ledger_url, "SELECT event_seq, fact_id FROM mg_audit_fact ORDER BY 1, 2") == (
            links_before
        )
        assert ledger.count_events() == events_before
        me = guard.authenticate(tokens.issue("alice"))
        assert guard.get(me, facts[0].fact_id)  # a read after: a new link in the new table
        reads = audit_fact(ledger, store, facts[0].fact_id)["reads"]
        assert [r["action"] for r in reads] == ["get", "search", "get"]  # before and after
        assert [e.decision for e in ledger.events(decision="deny")] == [Decision.DENY]
        assert ledger.verify().ok
        assert auditschema.migrate(ledger) is False  # once
        _sql(ledger_url, "DELETE FROM mg_audit_fact WHERE event_seq = "
                         "(SELECT max(event_seq) FROM mg_audit_fact)")  # fmt: skip
        report = ledger.verify()
        assert not report.ok and any(p.kind.value == "row_deleted" for p in report.problems)
    finally:
        guard.close()


def test_a_failed_migration_changes_nothing_and_the_ledger_does_not_open(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _old_ledger(ledger_url, monkeypatch)
    old.record([AuditEvent(action="get", decision=Decision.ALLOW, reason="ok", fact_ids=("f",))])
    old.close()
    before = _shape(ledger_url)
    broken = (*auditschema._NEW_INDEXES, "CREATE INDEX broken ON no_such_table (x)")
    monkeypatch.setattr(auditschema, "_NEW_INDEXES", broken)  # fails after the others ran
    with pytest.raises(MemguardError):
        Ledger.from_url(ledger_url)
    assert _shape(ledger_url) == before  # one transaction: rolled back whole
    assert _sql(ledger_url, "SELECT count(*) FROM mg_ledger_meta WHERE key = 'audit_schema'") == [
        (0,)
    ]
    monkeypatch.undo()
    ledger = Ledger.from_url(ledger_url)
    try:
        assert _shape(ledger_url) == _NEW_INDEXES
        assert [s for s, _e, _d in ledger.events_for("f")]
        assert ledger.verify().ok
    finally:
        ledger.close()


def test_the_rare_event_queries_use_the_partial_indexes(tmp_path: Path) -> None:
    """SQLite matches a partial index's condition by its text: the queries repeat it."""
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.record([AuditEvent(action="search", decision=Decision.ALLOW, reason="ok",
                                  fact_ids=("a",))], durable=False)  # fmt: skip
        ledger.record([AuditEvent(action="search", decision=Decision.ALARM, reason="x")])
        assert [e.reason for e in ledger.events(decision="alarm")] == ["x"]
        assert len(ledger.events(decision="allow")) == 1
        with ledger.engine.connect() as conn:
            total = conn.exec_driver_sql("SELECT count(*) FROM mg_audit_event "
                                         "WHERE action <> 'ledger.change'").scalar_one()  # fmt: skip
            plans = [
                " ".join(str(r[-1]) for r in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {q}"))
                for q in (
                    "SELECT seq FROM mg_audit_event WHERE decision = 'alarm' AND decision <> 'allow'",
                    "SELECT count(*) FROM mg_audit_event WHERE action = 'ledger.change'",
                )
            ]
        assert ledger.count_events() == total == 2
        assert "ix_mg_audit_event_flagged" in plans[0]
        assert "ix_mg_audit_event_changes" in plans[1]
    finally:
        ledger.close()


def test_several_openers_of_an_old_ledger_migrate_it_once(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _old_ledger(ledger_url, monkeypatch)
    old.record([AuditEvent(action="get", decision=Decision.ALLOW, reason="ok", fact_ids=("f",))])
    old.close()
    # openers released at once by a barrier: threads, each with its own engine and connections
    # (the locks taken are the database's, as between processes)
    start, errors, opened = threading.Barrier(4), list[Exception](), list[Ledger]()

    def open_one() -> None:
        try:
            start.wait()
            opened.append(Ledger.from_url(ledger_url))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert errors == [] and len(opened) == 4
        entries = _sql(ledger_url, "SELECT seq FROM mg_audit_event "
                                   "WHERE reason = 'ledger.migrate.audit_schema'")  # fmt: skip
        assert len(entries) == 1 and _shape(ledger_url) == _NEW_INDEXES
        assert opened[0].verify().ok
    finally:
        for ledger in opened:
            ledger.close()
