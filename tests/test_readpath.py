"""The read path's compiled ledger statements (memguard/ledger/readpath.py, issue 16), on a SQLite
file and on the real PostgreSQL: the one-statement lookup of a read's hits returns exactly the
rows of ``Ledger.latest`` and the links of the read path's links query (updated, deleted,
quarantined, unknown and aborted-only facts; more ids than one statement takes); the compiled
event insert stores exactly the row SQLAlchemy's insert stores; a tampered row found through the
new lookup is still withheld with an alarm."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock
from sqlalchemy import insert, text

from memguard import FactNotFound, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.events import AuditEvent, Decision
from memguard.ledger import inserts
from memguard.ledger.inserts import EventInsert
from memguard.ledger.readpath import MAX_IDS, ReadLookup
from memguard.ledger.replay import _LINKS
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


@pytest.fixture
def guard(ledger_url: str, tmp_path: Path) -> Iterator[MemoryGuard]:
    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    made = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.from_url(ledger_url),
                       verifier=tokens.verifier(clock=clock), clock=clock,
                       revocation_ttl=0)  # fmt: skip
    made.test_me = made.authenticate(tokens.issue("alice"))  # type: ignore[attr-defined]
    yield made
    made.close()


def _write(guard: MemoryGuard, body: str, i: int) -> str:
    me = guard.test_me  # type: ignore[attr-defined]
    turn = Turn(session_id="s", turn_index=i)
    return guard.write(me, body, namespace="n", source=SRC, turn=turn).fact_id


def _facts(guard: MemoryGuard) -> list[str]:
    """Plain, updated twice, deleted, quarantined, plus two ids the ledger never saw."""
    me = guard.test_me  # type: ignore[attr-defined]
    plain, updated, deleted, held = (_write(guard, f"fact {i}", i) for i in range(4))
    for v in (2, 3):
        guard.update(me, updated, f"fact v{v}", source=SRC, turn=Turn(session_id="s", turn_index=9))
    guard.delete(me, deleted)
    guard.revoke(None, RevocationSelector.fact(held), reason="bad", operator="ops")
    return [plain, updated, deleted, held, str(uuid.uuid4()), str(uuid.uuid4())]


def _links(ledger: Ledger, ids: list[str]) -> list[tuple[str, int, bytes | None]]:
    with ledger.engine.connect() as conn:
        rows = conn.execute(_LINKS, {"ids": ids}).all()
    return [(str(f), int(s), bytes(h) if h is not None else None) for f, s, h in rows]


def test_the_lookup_is_latest_and_the_links_query(guard: MemoryGuard) -> None:
    ids = _facts(guard)
    ledger = guard.ledger
    with ledger.log._snapshot() as conn:
        records, links = ReadLookup(ledger.engine.dialect).run(conn, ids + ids[:2])  # repeats
    assert records == ledger.latest(ids)
    assert set(records) == set(ids[:4])
    assert records[ids[3]].quarantined and not records[ids[0]].quarantined
    assert records[ids[1]].version == 3 and records[ids[2]].state.value == "deleted"
    assert links == _links(ledger, ids)
    assert {f for f, _s, _h in links} == set(ids[:4])


def test_latest_checked_is_the_same_through_either_path(
    guard: MemoryGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _facts(guard)
    fast = guard.ledger.latest_checked(ids)
    guard.ledger._entry_cache = type(guard.ledger._entry_cache)()  # computed afresh
    monkeypatch.setattr("memguard.ledger.ledger.MAX_IDS", 0)  # the two-statement path
    assert guard.ledger.latest_checked(ids) == fast
    assert set(fast[1]) == set(ids[:4]) and all(h.intact for h in fast[1].values())


def test_more_ids_than_one_statement_takes(guard: MemoryGuard) -> None:
    ids = _facts(guard)
    many = ids + [str(uuid.uuid4()) for _ in range(MAX_IDS)]
    records, heads = guard.ledger.latest_checked(many)
    assert records == guard.ledger.latest(ids) and set(heads) == set(ids[:4])
    with guard.ledger.log._snapshot() as conn, pytest.raises(ValueError):
        ReadLookup(guard.ledger.engine.dialect).run(conn, many)


def _event_row(ev: AuditEvent) -> dict[str, Any]:
    return {"event_id": ev.event_id, "ts": ev.ts, "action": ev.action,
            "decision": ev.decision.value, "reason": ev.reason, "subject": "alice",
            "trace_id": None, "event": ev.canonical().decode("utf-8"),
            "event_digest": ev.digest}  # fmt: skip


def test_the_compiled_event_insert_stores_what_sqlalchemy_stores(guard: MemoryGuard) -> None:
    ledger = guard.ledger
    table = inserts._EVENT
    ours, theirs = (
        AuditEvent(action="search", decision=Decision.ALLOW, reason="ok", fact_ids=("a", "b"))
        for _ in range(2)
    )
    with ledger.engine.begin() as conn:
        (seq,) = EventInsert(ledger.engine.dialect).events(conn, [_event_row(ours)])
        ledger._insert_event_fact.run(conn, [{"event_seq": seq, "fact_id": f} for f in ours.fact_ids])
        conn.execute(insert(table), [{**_event_row(theirs), "ts": ours.ts}])
    cols = ", ".join(c for c in inserts._EVENT_COLUMNS if c not in ("event_id", "event", "event_digest"))
    with ledger.engine.connect() as conn:
        got = {
            r[0]: tuple(r[1:])
            for r in conn.exec_driver_sql(
                f"SELECT event_id, {cols} FROM mg_audit_event WHERE event_id IN "
                f"('{ours.event_id}', '{theirs.event_id}')"
            )
        }
        linked = conn.execute(
            text("SELECT fact_id FROM mg_audit_fact WHERE event_seq = :s ORDER BY fact_id"), {"s": seq}
        ).scalars().all()
    assert got[ours.event_id] == got[theirs.event_id]  # the ts text, byte for byte
    assert linked == ["a", "b"]
    # ``theirs`` names "a" too (a read's event without its links: in the answer from the log)
    assert ours.event_id in [ev.event_id for _, ev, _ in ledger.events_for("a")]


def test_a_row_edited_around_the_log_is_still_withheld(guard: MemoryGuard) -> None:
    me = guard.test_me  # type: ignore[attr-defined]
    fid = _write(guard, "fact", 0)
    assert guard.get(me, fid)
    with guard.ledger.engine.begin() as conn:
        conn.execute(text("UPDATE mg_provenance SET record = replace(record, '\"n\"', '\"m\"') "
                          "WHERE fact_id = :f"), {"f": fid})  # fmt: skip
    with pytest.raises(FactNotFound):
        guard.get(me, fid)
    alarms = [e for e in guard.ledger.events(decision="alarm") if fid in e.fact_ids]
    assert alarms and alarms[0].reason == "integrity.record_mismatch"


def test_a_sqlite_snapshot_is_one_snapshot_and_always_ends(tmp_path: Path) -> None:
    """The snapshot's BEGIN and rollback run on the driver connection: what another connection
    commits meanwhile is not seen inside, and the pooled connection leaves it (also on an error)
    with no transaction open."""
    ledger = Ledger.sqlite(tmp_path / "l.db")
    count = "SELECT count(*) FROM mg_audit_event"

    def event() -> AuditEvent:
        return AuditEvent(action="search", decision=Decision.ALLOW, reason="ok")

    try:
        ledger.record([event()])
        with ledger.log._snapshot() as conn:
            before = int(conn.exec_driver_sql(count).scalar() or 0)
            ledger.record([event()])  # another pooled connection, committed
            assert conn.exec_driver_sql(count).scalar() == before
            held = conn.connection.dbapi_connection
            assert held is not None and held.in_transaction
        assert not held.in_transaction
        with pytest.raises(RuntimeError), ledger.log._snapshot() as conn:
            conn.exec_driver_sql(count)
            raise RuntimeError("inside a snapshot")
        assert not held.in_transaction
        with ledger.engine.connect() as conn:
            assert conn.exec_driver_sql(count).scalar() == before + 1
    finally:
        ledger.close()
