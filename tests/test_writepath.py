"""The write path's cheaper forms must write exactly what the general ones wrote (issue 16):

- change entries: ``encode_row`` / ``key_of`` with their inline cases give the values
  ``encode_value`` gives, column by column, for every projection table and every kind of value
  (an enum or other ``str`` subclass, naive and aware datetimes, digested text, null);
- the ledger's bulk inserts (driver SQL with the column types' bind processors) store the very
  rows SQLAlchemy's insert stores, on SQLite and on PostgreSQL, and a ledger written by them
  verifies (every projection row replayed from the log);
- a commit logs its events and its change entry in one insert, in that order, with links;
- the store payload of a guarded write holds the record as the ledger row's exact text.
"""

from __future__ import annotations

import enum
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select

from memguard import FactInput, Ledger, Source, SourceKind, Turn, open_embedded
from memguard.errors import LedgerError
from memguard.events import AuditEvent, Decision
from memguard.identity import PrincipalId
from memguard.ledger.changelinks import CHANGE_FACT
from memguard.ledger.changelog import (
    CHANGE_ACTION,
    PROJECTIONS,
    ChangeSet,
    encode_row,
    encode_value,
    key_of,
)
from memguard.ledger.inserts import BulkInsert
from memguard.ledger.records import FactState, _row_values
from memguard.ledger.tables import AuditEventRow, AuditFactRow, ProvenanceRow
from memguard.provenance import Provenance, WriterChain, sha256_digest
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint
from memguard.trust import TrustLevel

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_EVENT_FACT = AuditFactRow.__table__  # type: ignore[attr-defined]


class _Kind(enum.StrEnum):
    A = "a"


class _Level(enum.IntEnum):
    ONE = 1


_VALUES: list[Any] = [
    None, "text", "", 0, -7, 2**62, 1.5, -0.0, True, False, _Kind.A, _Level.ONE,
    datetime(2026, 12, 7, 11, 0, 0, 123456, tzinfo=UTC),
    datetime(2026, 12, 7, 11, 0, 0, tzinfo=timezone(timedelta(hours=2))),
    datetime(2026, 12, 7, 11, 0, 0),  # naive, as SQLite hands it back
    uuid.UUID(int=5), b"bytes",
]  # fmt: skip


def _reference_row(table: Any, row: dict[str, Any]) -> dict[str, Any]:
    return {c.name: encode_value(table.name, c.name, row.get(c.name)) for c in table.columns}


@pytest.mark.parametrize("name", sorted(PROJECTIONS))
def test_encoded_rows_and_keys_are_the_general_encoding(name: str) -> None:
    table = PROJECTIONS[name]
    columns = [c.name for c in table.columns]
    for i, value in enumerate(_VALUES):
        # each value in each column, and a row missing some columns
        row = {c: value for c in columns}
        partial = {c: value for j, c in enumerate(columns) if (i + j) % 2}
        for r in (row, partial):
            want = _reference_row(table, r)
            got = encode_row(table, r)
            assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
            assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
            key = {c.name: want[c.name] for c in table.primary_key}
            assert key_of(table, r) == key
            changes = ChangeSet()
            changes.put(table, [r])
            (op,) = changes.ops
            assert op == {"t": table.name, "op": "put", "key": key, "row": want}


def test_a_digested_column_is_logged_by_digest() -> None:
    row = {c.name: None for c in _PROV.columns} | {"record": "{\"a\":1}", "fact_id": "f"}
    encoded = encode_row(_PROV, row)
    assert encoded["record"] == sha256_digest(b'{"a":1}')
    assert encoded["fact_id"] == "f"


# -- the bulk inserts ------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        yield request.getfixturevalue("pg_url")


def _prov(fact_id: str, **changes: Any) -> Provenance:
    me = PrincipalId(issuer="https://issuer.example", subject="alice")
    base = Provenance(
        fact_id=fact_id,
        version=1,
        namespace="notes",
        owner=me,
        source=Source(kind=SourceKind.TOOL_OUTPUT, uri="https://example.com/x"),
        turn=Turn(session_id="s", turn_index=3),
        trust=TrustLevel.TOOL,
        trust_reason="test",
        writer=WriterChain(subject=me, token_jti="jti", workload_id=None),
        created_at=datetime(2026, 12, 7, 11, 0, 0, 654321, tzinfo=UTC),
        content_digest=sha256_digest(b"c"),
        policy_digest=sha256_digest(b"p"),
    )
    return base.model_copy(update=changes)


def test_the_bulk_insert_stores_what_sqlalchemy_stores(ledger_url: str) -> None:
    ledger = Ledger.from_url(ledger_url)
    try:
        a, b = str(uuid.uuid4()), str(uuid.uuid4())
        rows = [_row_values(_prov(a)), _row_values(_prov(b))]
        rows[1]["purged"] = True
        rows[1]["workload_id"] = "spiffe://example/w"
        bulk = BulkInsert(_PROV, ledger.engine.dialect)
        with ledger.engine.begin() as conn:
            bulk.run(conn, [rows[0] | {"fact_id": "bulk-" + a[:8]}, rows[1] | {"fact_id": "bulk-" + b[:8]}])
            conn.execute(insert(_PROV), [rows[0] | {"fact_id": "sqla-" + a[:8]},
                                         rows[1] | {"fact_id": "sqla-" + b[:8]}])  # fmt: skip
            bulk.run(conn, [])  # nothing to insert: no statement
        with ledger.engine.connect() as conn:
            got = {r.fact_id: r._asdict() for r in conn.execute(select(_PROV))}
            raw = {
                r[0]: r[1:]
                for r in conn.exec_driver_sql(
                    "SELECT fact_id, created_at, purged FROM mg_provenance"
                )
            }
        assert len(got) == 4
        for x in (a, b):
            bulk_row, sqla_row = got["bulk-" + x[:8]], got["sqla-" + x[:8]]
            assert {k: v for k, v in bulk_row.items() if k != "fact_id"} == {
                k: v for k, v in sqla_row.items() if k != "fact_id"
            }
            # the stored form itself (SQLite keeps datetimes as text: the same text)
            assert raw["bulk-" + x[:8]] == raw["sqla-" + x[:8]]
    finally:
        ledger.engine.dispose()


def test_a_ledger_written_by_the_write_path_verifies(ledger_url: str) -> None:
    ledger = Ledger.from_url(ledger_url)
    try:
        records = [_prov(str(uuid.uuid4())) for _ in range(5)]
        ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                        fact_ids=tuple(p.fact_id for p in records))  # fmt: skip
        ledger.begin(records)
        ledger.commit(records, [ev])
        report = ledger.verify()
        assert report.ok, report
        assert {r.fact_id: r.state for r in ledger.latest([p.fact_id for p in records]).values()} == {
            p.fact_id: FactState.COMMITTED for p in records
        }
        with ledger.engine.connect() as conn:
            events = conn.execute(
                select(_EVENT.c.seq, _EVENT.c.action, _EVENT.c.event, _EVENT.c.event_digest)
                .order_by(_EVENT.c.seq)
            ).all()
            event_links = set(conn.execute(select(_EVENT_FACT.c.event_seq, _EVENT_FACT.c.fact_id)))
            change_links = set(conn.execute(select(CHANGE_FACT.c.event_seq, CHANGE_FACT.c.fact_id)))
        # begin: its change entry; commit: the allow event, then its change entry
        assert [e.action for e in events[-3:]] == [CHANGE_ACTION, "write", CHANGE_ACTION]
        for e in events:
            assert e.event_digest == sha256_digest(e.event.encode("utf-8"))
        ids = {p.fact_id for p in records}
        for e in events[-3:]:
            assert {f for s, f in event_links if s == e.seq} == ids
            linked = {f for s, f in change_links if s == e.seq}
            assert linked == (ids if e.action == CHANGE_ACTION else set())
    finally:
        ledger.engine.dispose()


def test_the_state_change_moves_exactly_the_rows_in_the_old_state(ledger_url: str) -> None:
    """``FactKeys`` (driver SQL per chunk length): a commit of 600 facts (two chunks) moves each
    row pending -> committed, logs each in its change entry and drops every staging-owner row;
    a row that is not pending fails the whole commit (nothing moves)."""
    ledger = Ledger.from_url(ledger_url)
    try:
        records = [_prov(str(uuid.uuid4())) for _ in range(600)]
        ledger.begin(records)
        with ledger.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM mg_pending_owner").scalar_one() == 600
        ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                        fact_ids=tuple(p.fact_id for p in records))  # fmt: skip
        ledger.commit(records, [ev])
        ids = [p.fact_id for p in records]
        assert {r.state for r in ledger.latest(ids).values()} == {FactState.COMMITTED}
        with ledger.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM mg_pending_owner").scalar_one() == 0
            entry = conn.execute(
                select(_EVENT.c.event).where(_EVENT.c.action == CHANGE_ACTION).order_by(_EVENT.c.seq.desc())
            ).first()
        assert entry is not None
        ops = json.loads(entry[0])["detail"]["ops"]
        assert sorted(o["key"]["fact_id"] for o in ops) == sorted(ids)
        assert {(o["op"], json.dumps(o["row"])) for o in ops} == {("set", '{"state": "committed"}')}
        # a batch with one row already committed: refused, and the pending one stays pending
        again = [_prov(str(uuid.uuid4())), records[0]]
        ledger.begin(again[:1])
        with pytest.raises(LedgerError):
            ledger.commit(again, [])
        assert ledger.latest([again[0].fact_id])[again[0].fact_id].state is FactState.PENDING
        ledger.abort(again[:1])  # aborted: no longer a version latest() names
        assert ledger.latest([again[0].fact_id]) == {}
        assert ledger.verify().ok
    finally:
        ledger.engine.dispose()


def test_new_fact_ids_are_time_ordered_uuids(tmp_path: Path) -> None:
    """A guarded write's fact ids are UUID version 7: unique, and a later write's ids sort after an
    earlier one's (index locality in the ledger; memguard/stamp.py ``new_fact_id``)."""
    import time

    stack = open_embedded(tmp_path / "state", scan=False)
    try:
        guard = stack.guard
        me = guard.authenticate(stack.tokens.issue("alice"))
        batches = []
        for b in range(3):
            recs = guard.write_many(me, [FactInput(text=f"f{b}-{i}", namespace="notes",
                                                   source=Source(kind=SourceKind.USER_MESSAGE),
                                                   turn=Turn(session_id="s", turn_index=i))
                                         for i in range(20)])  # fmt: skip
            batches.append([r.fact_id for r in recs])
            time.sleep(0.005)
        every = [i for batch in batches for i in batch]
        assert len(set(every)) == len(every)
        assert {uuid.UUID(i).version for i in every} == {7}
        assert max(batches[0]) < min(batches[1]) and max(batches[1]) < min(batches[2])
    finally:
        stack.close()


def test_the_store_payload_holds_the_ledger_rows_text(tmp_path: Path) -> None:
    stack = open_embedded(tmp_path / "state")
    try:
        guard = stack.guard
        me = guard.authenticate(stack.tokens.issue("alice"))
        prov = guard.write(me, "alice likes tea", namespace="notes",
                           source=Source(kind=SourceKind.USER_MESSAGE),
                           turn=Turn(session_id="s", turn_index=0))  # fmt: skip
        (point,) = guard.store.retrieve([prov.fact_id])
        reserved = point.payload[RESERVED_PAYLOAD_KEY]
        row = guard.ledger.latest([prov.fact_id])[prov.fact_id]
        assert reserved["record"] == row.record
        assert reserved["record_digest"] == row.record_digest == sha256_digest(row.record.encode())
        assert [h.fact_id for h in guard.search(me, "tea", k=3)] == [prov.fact_id]
        assert guard.ledger.verify(store=guard.store).ok
    finally:
        stack.close()


def test_a_store_written_with_the_nested_record_is_checked_served_and_rebuilt(tmp_path: Path) -> None:
    """Points written before the text layout (the record as a nested object) still verify and
    are served; ``store check`` passes them, a tampered one is named, and ``store rebuild``
    writes them in the new layout."""
    from memguard.stores.edge import QdrantEdgeStore
    from memguard.stores.repair import check_store, rebuild_store

    stack = open_embedded(tmp_path / "state")
    try:
        guard = stack.guard
        me = guard.authenticate(stack.tokens.issue("alice"))
        provs = guard.write_many(me, [  # type: ignore[arg-type]
            FactInput(text=f"alice note {i} about tea", namespace="notes",
                      source=Source(kind=SourceKind.USER_MESSAGE),
                      turn=Turn(session_id="s", turn_index=0))
            for i in range(3)
        ])  # fmt: skip
        ids = [p.fact_id for p in provs]
        store = guard.store
        assert isinstance(store, QdrantEdgeStore)
        vectors = store.vectors(ids)
        older = []
        for point in store.retrieve(ids):
            payload = json.loads(json.dumps(dict(point.payload)))
            payload[RESERVED_PAYLOAD_KEY]["record"] = json.loads(payload[RESERVED_PAYLOAD_KEY]["record"])
            older.append(StoredPoint(point.fact_id, payload, vectors[point.fact_id]))
        older[2].payload[RESERVED_PAYLOAD_KEY]["record"]["trust_reason"] = "edited"
        store.upsert(older)
        assert all(isinstance(p.payload[RESERVED_PAYLOAD_KEY]["record"], dict)
                   for p in store.retrieve(ids))  # fmt: skip
        got = {h.fact_id for h in guard.search(me, "tea", k=5)}
        assert got == set(ids[:2])  # the tampered one is withheld
        report = check_store(guard.ledger, store)
        assert report.matching == 2 and report.problems == {ids[2]: "integrity.record_mismatch"}
        target = QdrantEdgeStore(tmp_path / "rebuilt", dimension=store.dimension)
        try:
            rebuilt = rebuild_store(guard.ledger, store, target)
            assert rebuilt.restored == 3  # the content survived; the reserved block is the ledger's
            rows = guard.ledger.latest(ids)
            for point in target.retrieve(ids):
                assert point.payload[RESERVED_PAYLOAD_KEY]["record"] == rows[point.fact_id].record
            assert check_store(guard.ledger, target).matching == 3
        finally:
            target.close()
    finally:
        stack.close()


@pytest.mark.parametrize("name", sorted(PROJECTIONS))
def test_a_change_entry_is_serialised_as_its_canonical_form(name: str) -> None:
    """The ledger's shortcut for change entries gives exactly ``AuditEvent.canonical()``."""
    from memguard.ledger.inserts import event_canonical

    table = PROJECTIONS[name]
    changes = ChangeSet("test")
    for value in _VALUES:
        changes.put(table, [{c.name: value for c in table.columns}])
        changes.set(table, [{c.name: value for c in table.primary_key}], {"state": value})
    changes.fact_ids["f"] = None
    ev = changes.event()
    assert ev is not None
    assert event_canonical(ev) == ev.canonical()
    other = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                       detail={"when": datetime(2026, 1, 1, tzinfo=UTC), "kind": _Kind.A})  # fmt: skip
    assert event_canonical(other) == other.canonical()
