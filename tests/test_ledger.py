"""The ledger on a SQLite file and on the real PostgreSQL: lifecycle, events, WAL, and failing closed
when the ledger itself breaks."""

from __future__ import annotations

import sqlite3
import subprocess
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import _dsn, require_pg
from sqlalchemy import text as sql

from memguard import (
    FactNotFound,
    Ledger,
    LedgerError,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
    audit_fact,
)
from memguard.events import AuditEvent
from memguard.identity import Identity
from memguard.ledger import FactState
from memguard.provenance import Provenance, content_digest, sha256_digest

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _turn(i: int = 0) -> Turn:
    return Turn(session_id="s1", turn_index=i)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        require_pg()
    return str(request.param)


@pytest.fixture
def ledger_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    app = f"mgt_{uuid.uuid4().hex[:12]}"  # lets a test find (and kill) exactly its connections
    return f"{request.getfixturevalue('pg_url')}&application_name={app}"


@pytest.fixture
def ledger(ledger_url: str) -> Ledger:
    return Ledger.from_url(ledger_url)  # closed by the guard that make_guard builds on it


def _events_json(ledger: Ledger) -> list[str]:
    with ledger.engine.connect() as conn:
        return [r[0] for r in conn.execute(sql("SELECT event FROM mg_audit_event ORDER BY seq"))]


def _write(guard: MemoryGuard, ident: Identity, text: str, i: int = 0) -> Provenance:
    return guard.write(ident, text, namespace="notes", source=SRC, turn=_turn(i))


# -- lifecycle ------------------------------------------------------------------------------------


def test_pending_committed_superseded_lifecycle(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger: Ledger
) -> None:
    guard = make_guard("qdrant-memory", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))

    seen_at_upsert: list[list[tuple[int, FactState]]] = []
    real_upsert = guard.store.upsert

    def spy(points: Sequence[Any]) -> None:  # the row must be durable and pending before the store
        for p in points:
            seen_at_upsert.append([(v.version, v.state) for v in ledger.versions(p.fact_id)])
        real_upsert(points)

    guard.store.upsert = spy  # type: ignore[method-assign]
    v1 = _write(guard, alice, "alice lives in Lyon")
    assert seen_at_upsert == [[(1, FactState.PENDING)]]
    assert [(v.version, v.state) for v in ledger.versions(v1.fact_id)] == [(1, FactState.COMMITTED)]

    v2 = guard.update(alice, v1.fact_id, "alice lives in Paris", source=SRC, turn=_turn(1))
    assert seen_at_upsert[-1] == [(1, FactState.COMMITTED), (2, FactState.PENDING)]
    v3 = guard.update(alice, v1.fact_id, "alice lives in Nantes", source=SRC, turn=_turn(2))
    versions = ledger.versions(v1.fact_id)
    assert [(v.version, v.state) for v in versions] == [
        (1, FactState.SUPERSEDED),
        (2, FactState.SUPERSEDED),
        (3, FactState.COMMITTED),
    ]
    assert [v.record_digest for v in versions] == [p.record_digest for p in (v1, v2, v3)]
    assert ledger.latest([v1.fact_id])[v1.fact_id].version == 3
    assert ledger.in_state(FactState.PENDING) == []
    fact = guard.get(alice, v1.fact_id)
    assert fact.text == "alice lives in Nantes" and fact.provenance == v3
    assert audit_fact(ledger, guard.store, v1.fact_id)["verification"]["verified"] is True


def test_abort(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger: Ledger
) -> None:
    guard = make_guard("qdrant-memory", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    base = _write(guard, alice, "alice has a cat")
    v2 = Provenance.model_validate(
        base.model_copy(
            update={"version": 2, "content_digest": content_digest("a dog", {})}
        ).model_dump()
    )
    ledger.begin([v2])
    assert ledger.latest([base.fact_id])[base.fact_id].state is FactState.PENDING
    ledger.abort([v2])
    assert [v.state for v in ledger.versions(base.fact_id)] == [
        FactState.COMMITTED,
        FactState.ABORTED,
    ]
    assert ledger.latest([base.fact_id])[base.fact_id].version == 1  # aborted rows are skipped
    # an aborted row cannot be committed or aborted again
    with pytest.raises(LedgerError):
        ledger.commit([v2], [])
    with pytest.raises(LedgerError):
        ledger.abort([v2])
    # nor can the same version be inserted twice
    with pytest.raises(LedgerError):
        ledger.begin([v2])
    assert guard.get(alice, base.fact_id).provenance == base


def test_deleted_then_purged(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger: Ledger
) -> None:
    guard = make_guard("qdrant-memory", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    gone = _write(guard, alice, "alice's old address")
    half = _write(guard, alice, "alice's old phone number")

    guard.delete(alice, gone.fact_id)
    (row,) = ledger.versions(gone.fact_id)
    assert row.state is FactState.DELETED and row.purged is True
    assert guard.store.retrieve([gone.fact_id]) == []
    with pytest.raises(FactNotFound):
        guard.get(alice, gone.fact_id)
    assert audit_fact(ledger, guard.store, gone.fact_id)["verification"]["verified"] is True

    # a crash between the tombstone and the store purge: the point lingers, is never served,
    # and recovery purges it
    ledger.mark_deleted([half.fact_id], [])
    (row,) = ledger.versions(half.fact_id)
    assert row.state is FactState.DELETED and row.purged is False
    assert len(guard.store.retrieve([half.fact_id])) == 1
    assert guard.search(alice, "alice's old phone number", k=5) == []
    with pytest.raises(FactNotFound):
        guard.get(alice, half.fact_id)
    report = guard.recover()
    assert report.purged == (half.fact_id,) and report.committed == report.aborted == ()
    assert guard.store.retrieve([half.fact_id]) == []
    assert ledger.versions(half.fact_id)[0].purged is True
    assert guard.recover().purged == ()


# -- events ---------------------------------------------------------------------------------------


def test_events_for_lists_reads_in_order(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger: Ledger
) -> None:
    guard = make_guard("qdrant-memory", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    planner = guard.authenticate(tokens.issue("alice", actors=["planner"]))
    prov = _write(guard, alice, "alice is allergic to peanuts")
    guard.get(alice, prov.fact_id)
    guard.search(planner, "peanuts", k=3, purpose="planning")
    guard.get(planner, prov.fact_id, purpose="tool_argument")

    events = ledger.events_for(prov.fact_id)
    seqs = [seq for seq, _, _ in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [(e.action, e.decision.value, e.purpose) for _, e, _ in events] == [
        ("write", "allow", None),
        ("get", "allow", "answer"),
        ("search", "allow", "planning"),
        ("get", "allow", "tool_argument"),
    ]
    assert [(e.principal or {}).get("actors") for _, e, _ in events][-1] == ["planner"]
    for _, ev, stored in events:
        assert stored == ev.digest == sha256_digest(ev.canonical())
    reads = audit_fact(ledger, guard.store, prov.fact_id)["reads"]
    assert [r["action"] for r in reads] == ["get", "search", "get"]


def test_events_hold_digests_never_tokens(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger: Ledger
) -> None:
    guard = make_guard("qdrant-memory", ledger=ledger)
    token = tokens.issue("alice")
    alice = guard.authenticate(token)
    prov = _write(guard, alice, "alice's locker is 42")
    guard.get(alice, prov.fact_id)
    bad = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    with pytest.raises(Exception):  # noqa: B017 - the class is asserted by the identity tests
        guard.authenticate(bad)

    stored = _events_json(ledger)
    assert len(stored) >= 3
    blob = "\n".join(stored)
    for secret in (token, bad, token.split(".")[2], bad.split(".")[2], token.split(".")[1]):
        assert secret not in blob
    # the refused token is identified by its digest only (a successful authenticate is not a
    # ledger event today; the reads and writes it enables are, with the token's jti)
    (auth,) = [e for e in ledger.events() if e.action == "authenticate"]
    assert auth.decision.value == "deny"
    assert auth.detail["token_digest"] == sha256_digest(bad.encode())
    write = next(e for e in ledger.events() if e.action == "write")
    assert (write.principal or {}).get("jti") == alice.principal.token_jti
    # the event_digest column is the digest of exactly the stored event text
    with ledger.engine.connect() as conn:
        for event, digest in conn.execute(sql("SELECT event, event_digest FROM mg_audit_event")):
            assert digest == AuditEvent.model_validate_json(event).digest
            assert digest == sha256_digest(event.encode())


def test_sqlite_ledger_runs_in_wal_mode(tmp_path: Path) -> None:
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    try:
        with ledger.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        ledger.record([AuditEvent(action="test", decision="allow", reason="ok")])  # type: ignore[arg-type]
        assert (tmp_path / "ledger.db-wal").exists()
        # and the mode is persistent in the file, seen by a plain sqlite3 connection
        with sqlite3.connect(tmp_path / "ledger.db") as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        ledger.close()


def test_guard_end_to_end(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger: Ledger, backend: str
) -> None:
    guard = make_guard("qdrant-memory", ledger=ledger)
    assert ledger.dialect == ("sqlite" if backend == "sqlite" else "postgresql")
    alice = guard.authenticate(tokens.issue("alice"))
    bob = guard.authenticate(tokens.issue("bob"))
    a = _write(guard, alice, "alice flies to Oslo on Monday")
    b = _write(guard, bob, "bob flies to Oslo on Tuesday")
    assert [h.fact_id for h in guard.search(alice, "flies to Oslo", k=5)] == [a.fact_id]
    assert guard.get(alice, a.fact_id).provenance == a
    with pytest.raises(FactNotFound):
        guard.get(alice, b.fact_id)
    a2 = guard.update(alice, a.fact_id, "alice flies to Oslo on Friday", source=SRC, turn=_turn(1))
    assert a2.version == 2
    assert guard.search(alice, "Friday", k=5)[0].text == "alice flies to Oslo on Friday"
    guard.delete(alice, a.fact_id)
    assert guard.search(alice, "Oslo", k=5) == []
    with pytest.raises(FactNotFound):
        guard.get(alice, a.fact_id)
    assert [h.fact_id for h in guard.search(bob, "Oslo", k=5)] == [b.fact_id]
    # a second ledger object on the same database sees the same state
    other = Ledger.from_url(str(ledger.engine.url.render_as_string(hide_password=False)))
    try:
        assert [v.state for v in other.versions(a.fact_id)] == [
            FactState.SUPERSEDED,
            FactState.DELETED,
        ]
        assert other.count_events() == ledger.count_events()
    finally:
        other.close()


# -- failing closed when the ledger breaks ----------------------------------------------------------


def _point_count(guard: MemoryGuard) -> int:
    client = guard.store._client  # type: ignore[attr-defined]
    return sum(client.count(d.name, exact=True).count for d in client.get_collections().collections)


def _assert_ledger_down(guard: MemoryGuard, ident: Identity, fact_id: str) -> None:
    """Every operation raises LedgerError; no data comes back and nothing reaches the store."""
    before = _point_count(guard)
    with pytest.raises(LedgerError):
        _write(guard, ident, "written while the ledger is down")
    assert _point_count(guard) == before  # the store never saw it
    with pytest.raises(LedgerError):
        guard.get(ident, fact_id)
    with pytest.raises(LedgerError):
        guard.search(ident, "alice", k=5)
    with pytest.raises(LedgerError):
        guard.update(ident, fact_id, "changed", source=SRC, turn=_turn(9))
    with pytest.raises(LedgerError):
        guard.delete(ident, fact_id)
    assert _point_count(guard) == before
    assert guard.store.retrieve([fact_id])[0].payload["text"] == "alice's bank is ACME"


def _admin(statement: str) -> None:
    import psycopg

    with psycopg.connect(_dsn(), autocommit=True) as conn:
        conn.execute(statement)


def _schema(ledger_url: str) -> str:
    return ledger_url.split("search_path%3D", 1)[1].split("&", 1)[0]


def _app(ledger_url: str) -> str:
    return ledger_url.rsplit("application_name=", 1)[1]


def test_postgres_backends_terminated_reconnects_cleanly(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, pg_url: str
) -> None:
    """pg_terminate_backend on every ledger connection: the pool's pre-ping reconnects, and the
    answers stay exactly right (nothing is served from a half-dead session)."""
    url = f"{pg_url}&application_name=mgt_{uuid.uuid4().hex[:12]}"
    guard = make_guard("qdrant-memory", ledger=Ledger.from_url(url))
    alice = guard.authenticate(tokens.issue("alice"))
    prov = _write(guard, alice, "alice's bank is ACME")
    _admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        f"WHERE application_name = '{_app(url)}'"
    )
    assert guard.get(alice, prov.fact_id).provenance == prov
    assert [h.fact_id for h in guard.search(alice, "bank", k=3)] == [prov.fact_id]


@pytest.mark.parametrize("fault", ["schema_renamed", "schema_dropped"])
def test_postgres_ledger_failure_fails_closed(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, pg_url: str, fault: str
) -> None:
    url = f"{pg_url}&application_name=mgt_{uuid.uuid4().hex[:12]}"
    ledger = Ledger.from_url(url)
    guard = make_guard("qdrant-memory", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    prov = _write(guard, alice, "alice's bank is ACME")
    events_before = ledger.count_events()
    schema = _schema(url)
    kill = (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        f"WHERE application_name = '{_app(url)}'"
    )
    if fault == "schema_renamed":
        _admin(f'ALTER SCHEMA "{schema}" RENAME TO "{schema}_away"')
    else:
        _admin(f'DROP SCHEMA "{schema}" CASCADE')
        _admin(f'CREATE SCHEMA "{schema}"')  # empty: the ledger tables are gone
    _admin(kill)
    try:
        _assert_ledger_down(guard, alice, prov.fact_id)
    finally:
        if fault == "schema_renamed":
            _admin(f'ALTER SCHEMA "{schema}_away" RENAME TO "{schema}"')
    if fault == "schema_renamed":
        # back in place: nothing was recorded as allowed while it was away, and reads work again
        assert ledger.count_events() == events_before
        assert ledger.in_state(FactState.PENDING) == []
        assert guard.get(alice, prov.fact_id).provenance == prov


def _drop_tables(db: Path) -> None:
    with sqlite3.connect(db) as raw:
        raw.executescript(
            "DROP TABLE mg_audit_fact; DROP TABLE mg_audit_event; DROP TABLE mg_provenance;"
        )


def test_sqlite_ledger_tables_dropped_fails_closed(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, tmp_path: Path
) -> None:
    ledger = Ledger.sqlite(tmp_path / "l.db")
    guard = make_guard("qdrant-path", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    prov = _write(guard, alice, "alice's bank is ACME")
    _drop_tables(tmp_path / "l.db")
    _assert_ledger_down(guard, alice, prov.fact_id)


@pytest.fixture
def immutable() -> Iterator[Callable[[Path], None]]:
    done: list[Path] = []

    def make(path: Path) -> None:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("chattr +i is not available here (root ignores a chmod read-only)")
        done.append(path)

    yield make
    for path in done:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_sqlite_ledger_read_only_fails_closed(
    make_guard: Callable[..., MemoryGuard],
    tokens: LocalTokenService,
    tmp_path: Path,
    immutable: Callable[[Path], None],
) -> None:
    """The ledger file becomes unwritable (immutable: the tests run as root, which ignores modes).
    Reads still find the rows, but the allow event of a read cannot be recorded, so no data."""
    db = tmp_path / "l.db"
    ledger = Ledger.sqlite(db)
    guard = make_guard("qdrant-path", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    prov = _write(guard, alice, "alice's bank is ACME")
    events_before = ledger.count_events()
    ledger.engine.dispose()  # connections opened from now on get a read-only file
    immutable(db)
    _assert_ledger_down(guard, alice, prov.fact_id)
    assert ledger.count_events() == events_before
    assert ledger.in_state(FactState.PENDING) == []


class _CommitFails(Ledger):
    """A ledger whose commit step fails (the database goes away between begin and commit)."""

    fail = True

    def commit(self, records: Sequence[Provenance], events: Sequence[AuditEvent]) -> None:
        if self.fail and any(r.namespace == "doomed" for r in records):
            raise LedgerError("ledger operation failed: OperationalError")
        super().commit(records, events)


def test_ledger_commit_failure_leaves_nothing_visible(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, ledger_url: str
) -> None:
    ledger = _CommitFails(Ledger.from_url(ledger_url).engine)
    guard = make_guard("qdrant-memory", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    with pytest.raises(LedgerError):
        guard.write(alice, "alice's doomed fact", namespace="doomed", source=SRC, turn=_turn())
    (deny,) = ledger.events(decision="deny")
    assert deny.action == "write" and deny.reason == "backend.ledger"
    (fact_id,) = deny.fact_ids
    # the kernel resolved the failed commit in-process (protocol.py): the store held the version,
    # the commit was tried again and failed again, so the rows were aborted: never left pending
    assert ledger.versions(fact_id)[0].state is FactState.ABORTED
    assert len(guard.store.retrieve([fact_id])) == 1  # the store has it ...
    assert guard.search(alice, "alice's doomed fact", k=5) == []  # ... but it is not served
    with pytest.raises(FactNotFound):
        guard.get(alice, fact_id)
    assert next(e.decision.value for _, e, _ in ledger.events_for(fact_id)) == "deny"
    # nothing is left for recovery, and the same fact can be written again once the ledger works
    ledger.fail = False
    assert guard.recover().committed == ()
    again = guard.write(alice, "alice's doomed fact", namespace="doomed", source=SRC, turn=_turn())
    assert guard.get(alice, again.fact_id).text == "alice's doomed fact"
