"""A read's allow event written on the driver connection (memguard/ledger/readevent.py).

The rows must be what the SQLAlchemy path writes, byte for byte; the transaction is all or
nothing and relaxed (no fsync at commit) without leaving the pooled connection relaxed for the
next durable transaction; its events are queued for the log and verify; a failure fails the read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import LedgerError, MemguardError
from memguard.events import AuditEvent, Decision
from memguard.ledger.readevent import ReadEvents
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _allow(*fact_ids: str, action: str = "search") -> AuditEvent:
    return AuditEvent(action=action, decision=Decision.ALLOW, reason="ok",
                      principal={"subject": "alice", "issuer": "https://id.example"},
                      fact_ids=fact_ids, detail={"k": 3, "returned_count": len(fact_ids)})  # fmt: skip


def _stored(ledger: Ledger, event_id: str) -> tuple[tuple[Any, ...], bytes, list[str]]:
    """An event's row (but its seq), its queued leaf hash and its fact links."""
    with ledger.engine.connect() as conn:
        row = conn.exec_driver_sql(
            "SELECT seq, event_id, ts, action, decision, reason, subject, trace_id, event, "
            "event_digest FROM mg_audit_event WHERE event_id = ?", (event_id,)
        ).one()
        leaf = conn.exec_driver_sql(
            "SELECT leaf_hash FROM mg_log_pending WHERE event_seq = ?", (row[0],)
        ).scalar_one()
        links = conn.exec_driver_sql(
            "SELECT fact_id FROM mg_audit_fact WHERE event_seq = ? ORDER BY fact_id", (row[0],)
        ).scalars().all()
    return tuple(row[1:]), bytes(leaf), list(links)


@pytest.fixture
def ledgers(tmp_path: Path) -> Iterator[tuple[Ledger, Ledger]]:
    a, b = Ledger.sqlite(tmp_path / "a.db"), Ledger.sqlite(tmp_path / "b.db")
    yield a, b
    a.close()
    b.close()


def test_the_driver_path_stores_what_the_sqlalchemy_path_stores(ledgers: tuple[Ledger, Ledger]) -> None:
    lean, full = ledgers
    ev = _allow("f-2", "f-1", "f-2")  # a repeated id is linked once
    lean.record([ev], durable=False)  # the read's path
    full.record([ev], durable=True)  # the transaction every other event takes
    assert _stored(lean, ev.event_id)[2] == []  # its links: a projection, written in batches
    assert lean.events_for("f-1")[-1][1] == ev  # ... and the answer has it meanwhile
    lean.project_reads()  # memguard/ledger/readlinks.py
    full.project_reads()
    assert _stored(lean, ev.event_id) == _stored(full, ev.event_id)
    assert _stored(lean, ev.event_id)[2] == ["f-1", "f-2"]


def test_only_a_reads_allow_events_take_the_driver_path() -> None:
    from memguard.ledger.changelog import CHANGE_ACTION
    from memguard.ledger.records import TurnRead

    read = _allow("f")
    assert ReadEvents.takes([read], ())
    assert not ReadEvents.takes([], ())
    assert not ReadEvents.takes([read], [TurnRead("i", "s", "t", 0, "f", 3)])
    denied = AuditEvent(action="get", decision=Decision.DENY, reason="x", fact_ids=("f",))
    assert not ReadEvents.takes([read, denied], ())
    change = AuditEvent(action=CHANGE_ACTION, decision=Decision.ALLOW, reason="x", fact_ids=("f",))
    assert not ReadEvents.takes([change], ())


def test_a_failed_transaction_commits_nothing_and_raises(ledgers: tuple[Ledger, Ledger]) -> None:
    ledger, _ = ledgers
    first = _allow("f-1")
    ledger.record([first], durable=False)
    fresh = _allow("f-2")
    with pytest.raises(LedgerError):  # the repeated event id fails after the fresh one went in
        ledger.record([fresh, first], durable=False)
    with ledger.engine.connect() as conn:
        ids = conn.execute(text("SELECT event_id FROM mg_audit_event")).scalars().all()
        unlogged = conn.execute(text(
            "SELECT count(*) FROM mg_audit_event e WHERE NOT EXISTS (SELECT 1 FROM mg_log_pending p "
            "WHERE p.event_seq = e.seq) AND NOT EXISTS (SELECT 1 FROM mg_log_leaf l "
            "WHERE l.event_seq = e.seq)")).scalar_one()  # fmt: skip
        orphans = conn.execute(text(
            "SELECT count(*) FROM mg_log_pending p WHERE NOT EXISTS (SELECT 1 FROM mg_audit_event e "
            "WHERE p.event_seq = e.seq)")).scalar_one()  # fmt: skip
        links = conn.execute(text("SELECT count(*) FROM mg_audit_fact WHERE fact_id = 'f-2'")).scalar_one()
    assert fresh.event_id not in ids and links == 0
    assert first.event_id in ids
    assert unlogged == 0 and orphans == 0  # no event without its queued leaf, no leaf left over
    ledger.record([_allow("f-3")], durable=False)  # the pooled connection is usable again
    assert ledger.verify().ok


def test_the_pooled_connection_is_durable_again_for_the_next_write(tmp_path: Path) -> None:
    """The driver path leaves its connection at NORMAL; the first durable transaction after it
    (even before any relaxed transaction went through SQLAlchemy) runs at FULL."""
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.record([_allow("f")], durable=False)
        for _ in range(3):
            with ledger.engine.begin() as conn:
                assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            ledger.record([_allow("g")], durable=False)
    finally:
        ledger.close()


def test_the_driver_path_commits_relaxed(tmp_path: Path) -> None:
    seen: list[tuple[str, int]] = []
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        original = ReadEvents._insert

        def spy(self: ReadEvents, dbapi: Any, events: Any, now: float) -> Any:
            seen.append(("level", dbapi.execute("PRAGMA synchronous").fetchone()[0]))
            return original(self, dbapi, events, now)

        ReadEvents._insert = spy  # type: ignore[method-assign]
        try:
            for _ in range(2):
                with ledger.engine.begin() as conn:  # the pooled connection back at FULL
                    assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2
                ledger.record([_allow("f")], durable=False)  # on that connection
                ledger.record([_allow("g")], durable=False)  # already relaxed
        finally:
            ReadEvents._insert = original  # type: ignore[method-assign]
        assert seen == [("level", 1)] * 4  # NORMAL: no fsync at its commit
    finally:
        ledger.close()


def test_driver_path_events_are_queued_integrated_and_verified(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    try:
        ledger.log.batch_size = 3
        ledger.log.checkpoint_interval = 1e9
        ledger.record([_allow("a")], durable=False)
        ledger.record([_allow("b"), _allow("c")], durable=False)
        assert ledger.log.maybe_integrate() >= 3  # the process's queue counter saw them
        assert ledger.verify().ok
        with ledger.engine.begin() as conn:  # a read's event edited after the fact
            conn.execute(text("UPDATE mg_audit_event SET event = replace(event, '\"b\"', '\"x\"') "
                              "WHERE action = 'search' AND event LIKE '%\"b\"%'"))  # fmt: skip
        assert not ledger.verify().ok
    finally:
        ledger.close()


def test_a_read_whose_event_cannot_be_written_fails_closed(tmp_path: Path) -> None:
    tokens = LocalTokenService(tmp_path / "keys")
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier())  # fmt: skip
    try:
        me = guard.authenticate(tokens.issue("alice"))
        fact = guard.write(me, "a fact", namespace="n", source=SRC,
                           turn=Turn(session_id="s", turn_index=0))  # fmt: skip
        assert guard.get(me, fact.fact_id)

        def broken(self: ReadEvents, dbapi: Any, events: Any, now: float) -> Any:
            raise sqlite3.OperationalError("disk I/O error")

        original = ReadEvents._insert
        ReadEvents._insert = broken  # type: ignore[method-assign]
        try:
            with pytest.raises(MemguardError):
                guard.get(me, fact.fact_id)
            with pytest.raises(MemguardError):
                guard.search(me, "a fact", k=3)
        finally:
            ReadEvents._insert = original  # type: ignore[method-assign]
        assert guard.search(me, "a fact", k=3)
    finally:
        guard.close()
