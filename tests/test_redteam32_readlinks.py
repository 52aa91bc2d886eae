"""redteam32: reads that escape a fact's audit answer while their links are deferred
(memguard/ledger/readlinks.py).

A read's ``mg_audit_fact`` links are written in batches; until then :meth:`Ledger.events_for`
(``memguard audit``, the console, receipts) finds the read by a text match of the fact id in the
event's stored JSON. A fact id holding a character JSON escapes (``"`` or ``\\``: a caller-chosen
id only has to be 1 to 64 characters) is stored escaped, so the text match must look for the
escaped form, or the read is invisible to the audit until the next batch.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import event

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.audit import audit_fact
from memguard.events import AuditEvent, Decision
from memguard.guard import FactInput
from memguard.ledger import readlinks
from memguard.ledger.records import TurnRead
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _sql(ledger: Ledger, sql: str, *params: object) -> None:
    with ledger.engine.begin() as conn:
        conn.exec_driver_sql(sql, params) if params else conn.exec_driver_sql(sql)


def _problems(ledger: Ledger) -> list[tuple[str, str]]:
    report = ledger.verify()
    return [(p.kind.value, str(p.table)) for p in report.problems if p.severity == "tamper"]
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


def _truth(ledger: Ledger, fact_id: str) -> list[str]:
    """Every logged event but change entries whose JSON names ``fact_id``: what the audit answer
    must hold whatever the links' state."""
    with ledger.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT event FROM mg_audit_event WHERE action != 'change' ORDER BY seq"
        ).all()
    out = []
    for (text,) in rows:
        ev = json.loads(text)
        if fact_id in (ev.get("fact_ids") or []):
            out.append(str(ev["event_id"]))
    return out


def _event(action: str, decision: Decision, ids: tuple[str, ...]) -> AuditEvent:
    return AuditEvent(action=action, decision=decision, reason="ok",
                      principal={"subject": "alice", "issuer": "https://id.example"},
                      fact_ids=ids)  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_model_every_read_is_in_its_facts_audit_answer_through_every_path(
    tmp_path: Path, seed: int
) -> None:
    """Random interleavings of reads by both write paths (the driver-level read event and, with
    turn reads, the SQLAlchemy one), denials, writes, audits, flushes, a second ledger object on
    the file, a crash and reopen, the mark moved down or deleted: after every step each fact's
    ``events_for`` is exactly the logged events naming it, and at the end verify is clean."""
    rnd = random.Random(seed)
    path = tmp_path / "l.db"
    ledgers = [Ledger.sqlite(path), Ledger.sqlite(path)]
    facts = [f"f-{i}" for i in range(12)] + ['q"1', "b\\2", "p%3", "u_4", "f-1/"]
    try:
        for step in range(700):
            lg = ledgers[rnd.randrange(2)]
            ids = tuple(rnd.sample(facts, rnd.randint(1, 4)))
            op = rnd.random()
            if op < 0.55:
                lg.record([_event("search", Decision.ALLOW, ids)], durable=False)
            elif op < 0.7:
                reads = [TurnRead("https://id.example", "alice", "s", step, f, 30) for f in ids]
                lg.record([_event("get", Decision.ALLOW, ids)], reads, durable=False)
            elif op < 0.78:
                lg.record([_event("get", Decision.DENY, ids)])
            elif op < 0.86:
                lg.record([_event("write", Decision.ALLOW, ids)])
            elif op < 0.9:
                lg.record([_event("audit", Decision.ALLOW, ids)], durable=False)
            elif op < 0.93:
                lg.project_reads()
            elif op < 0.95:
                _sql(lg, "UPDATE mg_read_projection SET upto = max(0, upto - ?)", rnd.randint(1, 50))
            elif op < 0.96:
                _sql(lg, "DELETE FROM mg_read_projection")
            elif op < 0.98:  # a crash: the process goes, its unflushed batch with it
                i = ledgers.index(lg)
                lg.engine.dispose()
                ledgers[i] = Ledger.sqlite(path)
            if step % 7 == 0 or op >= 0.9:
                for f in rnd.sample(facts, 4):
                    got = [e.event_id for _, e, _ in ledgers[rnd.randrange(2)].events_for(f)]
                    assert got == _truth(lg, f), (seed, step, f)
        for f in facts:
            assert [e.event_id for _, e, _ in ledgers[0].events_for(f)] == _truth(ledgers[0], f)
        ledgers[0].project_reads()
        assert _problems(ledgers[0]) == []
    finally:
        for lg in ledgers:
            lg.close()


def test_a_hot_facts_backlog_larger_than_sqlites_variable_limit_still_answers(
    tmp_path: Path,
) -> None:
    """Short-lived processes that each read fewer than a batch never flush: the backlog of a
    fact read by all of them outgrows SQLite's bound-variable limit (999 on older builds, 32766
    on current ones) and an answer that bound one variable per backlog read failed (``memguard
    audit``, the console and receipts down for that fact) though nothing was wrong."""
    path = tmp_path / "l.db"
    n = 0
    for _ in range(1000 // (readlinks.BATCH - 6) + 1):  # processes, each short of a batch
        lg = Ledger.sqlite(path)
        for _ in range(readlinks.BATCH - 6):
            lg.record([_read("hot")], durable=False)
            n += 1
        lg.engine.dispose()
    reader = Ledger.sqlite(path)
    reader.engine.dispose()
    event.listen(reader.engine, "connect",
                 lambda dbapi, _rec: dbapi.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999))  # fmt: skip
    try:
        assert n > 999
        assert len(reader.events_for("hot")) == n
    finally:
        reader.close()
