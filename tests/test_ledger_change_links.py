"""The change-entry link table ``mg_change_fact`` (memguard/ledger/changelinks.py, issue 16), on a
SQLite file and on the real PostgreSQL: written for change entries only; an old ledger migrated
at open once (also with several processes opening at once); a bogus link (to another fact's entry,
to a read event, to no event) refused on read with an ``integrity.log_mismatch`` alarm and named
by ``ledger verify``; a missing link (deleted, or never written by a process of the previous
release) never a false alarm nor a hidden change on read, named by verify, rewritten by repair."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock
from sqlalchemy import create_engine, text

from memguard import FactNotFound, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.ledger import changelinks
from memguard.ledger import ledger as ledger_module
from memguard.ledger.auditlog import ProblemKind, VerifyReport
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.provenance import Provenance
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)
MIGRATE = "ledger.migrate.change_links"


class World:
    """A guard on ``ledger_url`` that can be closed and opened again on the same store and ledger."""

    def __init__(self, ledger_url: str, root: Path) -> None:
        self.ledger_url, self.clock = ledger_url, Clock()
        self.tokens = LocalTokenService(root / "keys", clock=self.clock)
        self.store = InMemoryStore(dimension=8)
        self.guard: MemoryGuard | None = None

    def open(self) -> MemoryGuard:
        self.close()
        self.guard = MemoryGuard(store=self.store, ledger=Ledger.from_url(self.ledger_url),
                                 verifier=self.tokens.verifier(clock=self.clock),
                                 clock=self.clock, revocation_ttl=0)  # fmt: skip
        return self.guard

    def me(self) -> Any:
        assert self.guard is not None
        return self.guard.authenticate(self.tokens.issue("alice"))

    def close(self) -> None:
        if self.guard is not None:
            self.guard.close()
            self.guard = None


@pytest.fixture
def world(ledger_url: str, tmp_path: Path) -> Iterator[World]:
    made = World(ledger_url, tmp_path)
    yield made
    made.close()


@contextmanager
def previous_release(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run the ledger as the release before the table did: no link rows, no migration, no marker
    (the meta row it writes instead is a harmless logged row)."""
    with monkeypatch.context() as m:
        m.setattr(ledger_module, "entry_links", lambda seqs, events: [])
        m.setattr(ledger_module, "migrate", lambda ledger: None)
        m.setattr(ledger_module, "MARKER", "before_change_links")
        yield


def _drop_links(ledger_url: str) -> None:
    """Drop the table the previous release's code created empty (it had no such table)."""
    engine = create_engine(ledger_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE mg_change_fact"))
    finally:
        engine.dispose()


def _sql(guard: MemoryGuard, sql: str, **params: Any) -> list[Any]:
    with guard.ledger.engine.begin() as conn:
        result = conn.execute(text(sql), params)
        return list(result.all()) if result.returns_rows else []


def _alarms(guard: MemoryGuard) -> list[str]:
    return [e.reason for e in guard.ledger.events(decision="alarm")]


def _links(guard: MemoryGuard) -> tuple[set[tuple[int, str]], set[tuple[int, str]]]:
    """(stored, logged) change links."""
    with guard.ledger.engine.connect() as conn:
        return changelinks.stored_links(conn), changelinks.logged_change_links(conn)


def _write(guard: MemoryGuard, me: Any, body: str, turn: int = 1) -> Provenance:
    return guard.write(me, body, namespace="n", source=SRC,
                       turn=Turn(session_id="s", turn_index=turn))  # fmt: skip


def _workload(guard: MemoryGuard, me: Any) -> list[Provenance]:
    facts = [_write(guard, me, f"note {i}", i) for i in range(4)]
    guard.update(me, facts[0].fact_id, "note 0, amended", source=SRC,
                 turn=Turn(session_id="s", turn_index=9))  # fmt: skip
    guard.delete(me, facts[1].fact_id)
    guard.revoke(None, RevocationSelector.fact(facts[2].fact_id), reason="bad", operator="ops")
    for _ in range(2):  # reads link every fact they return (mg_audit_fact), never mg_change_fact
        guard.search(me, "note", k=10)
    return facts


def _served(guard: MemoryGuard, me: Any) -> set[str]:
    return {h.fact_id for h in guard.search(me, "note", k=10)}


def _problems(report: VerifyReport, table: str) -> list[tuple[ProblemKind, Any]]:
    return [(p.kind, p.key) for p in report.problems if p.table == table]


def test_links_are_written_for_change_entries_only(world: World) -> None:
    guard = world.open()
    me = world.me()
    facts = _workload(guard, me)
    stored, logged = _links(guard)
    assert stored == logged and {f for _, f in stored} == {p.fact_id for p in facts}
    actions = _sql(guard, "SELECT DISTINCT e.action FROM mg_change_fact c"
                          " JOIN mg_audit_event e ON e.seq = c.event_seq")  # fmt: skip
    assert actions == [(CHANGE_ACTION,)]
    before = len(stored)
    assert _served(guard, me) == {facts[0].fact_id, facts[3].fact_id}
    assert len(_links(guard)[0]) == before  # a read adds no change link
    report = guard.ledger.verify()
    assert report.ok and _problems(report, "mg_change_fact") == []


def test_an_old_ledger_is_migrated_at_open_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    with previous_release(monkeypatch):
        guard = world.open()
        me = world.me()
        facts = _workload(guard, me)
        world.close()
    _drop_links(world.ledger_url)  # the shape before the table: no table, no marker
    guard = world.open()
    stored, logged = _links(guard)
    assert stored == logged and {f for _, f in stored} == {p.fact_id for p in facts}
    assert _sql(guard, "SELECT value FROM mg_ledger_meta WHERE key = 'change_links'") == [("1",)]
    me = world.me()
    assert _served(guard, me) == {facts[0].fact_id, facts[3].fact_id} and _alarms(guard) == []
    report = guard.ledger.verify()
    assert report.ok, [p.as_json() for p in report.problems if p.severity == "tamper"]
    world.close()
    guard = world.open()  # idempotent: the marker stops a second backfill
    assert len(_sql(guard, "SELECT seq FROM mg_audit_event WHERE reason = :r", r=MIGRATE)) == 1


def test_several_processes_opening_an_old_ledger_migrate_it_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    with previous_release(monkeypatch):
        guard = world.open()
        facts = _workload(guard, world.me())
        world.close()
    _drop_links(world.ledger_url)
    # four openers released at once by a barrier: threads, each with its own engine and
    # connections (the locks taken are the database's, as between processes)
    start, errors, opened = threading.Barrier(4), [], []

    def open_one() -> None:
        try:
            start.wait()
            opened.append(Ledger.from_url(world.ledger_url))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for ledger in opened:
        ledger.close()
    assert errors == [] and len(opened) == 4
    guard = world.open()
    assert len(_sql(guard, "SELECT seq FROM mg_audit_event WHERE reason = :r", r=MIGRATE)) == 1
    stored, logged = _links(guard)
    assert stored == logged and {f for _, f in stored} == {p.fact_id for p in facts}
    assert guard.ledger.verify().ok


def _read_event(guard: MemoryGuard, fact_id: str) -> int:
    guard.ledger.project_reads()  # the reads' links (memguard/ledger/readlinks.py)
    rows = _sql(guard, "SELECT max(e.seq) FROM mg_audit_event e JOIN mg_audit_fact f"
                       " ON f.event_seq = e.seq WHERE f.fact_id = :f AND e.action = 'search'",
                f=fact_id)  # fmt: skip
    assert rows[0][0] is not None
    return int(rows[0][0])


def _last_link(guard: MemoryGuard, fact_id: str) -> int:
    return int(_sql(guard, "SELECT max(event_seq) FROM mg_change_fact WHERE fact_id = :f",
                    f=fact_id)[0][0])  # fmt: skip


def test_bogus_links_are_refused_on_read_and_named_by_verify(world: World) -> None:
    """Four bogus links, one per victim: to another fact's change entry, to a read event, to no
    event, and the victim's commit link moved to a read event. Each victim is withheld with an
    ``integrity.log_mismatch`` alarm (its head was cached before), the other fact is served,
    verify names each row, and repair rewrites the table."""
    guard = world.open()
    me = world.me()
    victims = [_write(guard, me, f"note victim {i}", i) for i in range(4)]
    other = _write(guard, me, "note other", 9)
    assert _served(guard, me) == {p.fact_id for p in [*victims, other]}  # warm: heads cached
    to_other, to_read, to_nothing, moved = (p.fact_id for p in victims)
    bogus = {(to_other, _last_link(guard, other.fact_id)), (to_read, _read_event(guard, to_read)),
             (to_nothing, _last_link(guard, other.fact_id) + 1000),
             (moved, _read_event(guard, moved))}  # fmt: skip
    commit = _last_link(guard, moved)
    _sql(guard, "DELETE FROM mg_change_fact WHERE fact_id = :f AND event_seq = :c",
         f=moved, c=commit)  # fmt: skip
    for fact_id, seq in bogus:
        _sql(guard, "INSERT INTO mg_change_fact (fact_id, event_seq) VALUES (:f, :s)",
             f=fact_id, s=seq)  # fmt: skip
    assert _served(guard, me) == {other.fact_id}
    for fact_id in (to_other, to_read, to_nothing, moved):
        with pytest.raises(FactNotFound):
            guard.get(me, fact_id)
    assert "integrity.log_mismatch" in _alarms(guard)
    assert "integrity.state_mismatch" not in _alarms(guard)  # refused for the link, not the row
    report = guard.ledger.verify()
    assert not report.ok
    found = _problems(report, "mg_change_fact")
    for fact_id, seq in bogus:
        assert (ProblemKind.ROW_UNLOGGED, {"event_seq": seq, "fact_id": fact_id}) in found
    assert (ProblemKind.ROW_DELETED, {"event_seq": commit, "fact_id": moved}) in found
    assert guard.ledger.repair(actor="ops", reason="bogus links")["change_links"] == 5
    assert guard.ledger.verify().ok
    assert _served(guard, me) == {p.fact_id for p in [*victims, other]}


def test_a_deleted_link_neither_alarms_nor_hides_a_change_and_verify_names_it(
    world: World,
) -> None:
    guard = world.open()
    me = world.me()
    kept, held = _write(guard, me, "note kept"), _write(guard, me, "note held", 2)
    guard.revoke(None, RevocationSelector.fact(held.fact_id), reason="bad", operator="ops")
    assert _served(guard, me) == {kept.fact_id}
    gone = [(_last_link(guard, f), f) for f in (kept.fact_id, held.fact_id)]  # commit, quarantine
    for seq, fact_id in gone:
        _sql(guard, "DELETE FROM mg_change_fact WHERE event_seq = :s AND fact_id = :f",
             s=seq, f=fact_id)  # fmt: skip
    # the links left say `kept` is pending and `held` is not quarantined: the rows disagree, so
    # the wider links decide: served as it is, withheld as it is, no false alarm
    assert _served(guard, me) == {kept.fact_id}
    with pytest.raises(FactNotFound):
        guard.get(me, held.fact_id)
    assert _alarms(guard) == []
    report = guard.ledger.verify()
    assert not report.ok
    found = _problems(report, "mg_change_fact")
    for seq, fact_id in gone:
        assert (ProblemKind.ROW_DELETED, {"event_seq": seq, "fact_id": fact_id}) in found
    assert guard.ledger.repair(actor="ops", reason="links")["change_links"] == 2
    assert guard.ledger.verify().ok and _links(guard)[0] == _links(guard)[1]


def test_entries_a_previous_release_process_wrote_are_read_without_alarms(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rolling upgrade: the table exists and is marked, and a process of the previous release
    keeps writing (no link rows). Its facts are served and withheld as the log says, with no
    alarm; verify names the missing links and repair writes them."""
    guard = world.open()
    me = world.me()
    first = _write(guard, me, "note first")
    with previous_release(monkeypatch):
        late = _write(guard, me, "note late", 2)
        guard.update(me, first.fact_id, "note first, amended", source=SRC,
                     turn=Turn(session_id="s", turn_index=3))  # fmt: skip
        revoked = _write(guard, me, "note revoked", 4)
        guard.revoke(None, RevocationSelector.fact(revoked.fact_id), reason="x", operator="ops")
    assert _served(guard, me) == {first.fact_id, late.fact_id}
    assert guard.get(me, first.fact_id).text == "note first, amended"
    with pytest.raises(FactNotFound):
        guard.get(me, revoked.fact_id)
    assert _alarms(guard) == []
    stored, logged = _links(guard)
    assert stored < logged
    report = guard.ledger.verify()
    assert {k for k, _ in _problems(report, "mg_change_fact")} == {ProblemKind.ROW_DELETED}
    guard.ledger.repair(actor="ops", reason="after the upgrade")
    assert guard.ledger.verify().ok and _links(guard)[0] == _links(guard)[1]


def test_an_omitted_link_with_an_edited_row_is_named_by_verify(world: World) -> None:
    """What the read path cannot see (docs/ledger-operations.md): a deleted link together with a
    row edited to match the links left. The read path finds a fact's entries through the links,
    as it did through ``mg_audit_fact`` before; verify replays the whole log and names both."""
    guard = world.open()
    me = world.me()
    held = _write(guard, me, "note held")
    guard.revoke(None, RevocationSelector.fact(held.fact_id), reason="bad", operator="ops")
    seq = _last_link(guard, held.fact_id)
    _sql(guard, "DELETE FROM mg_change_fact WHERE event_seq = :s", s=seq)
    _sql(guard, "UPDATE mg_quarantine SET lifted = :t WHERE fact_id = :f", t=True, f=held.fact_id)
    report = guard.ledger.verify()
    assert not report.ok
    assert (ProblemKind.ROW_DELETED, {"event_seq": seq, "fact_id": held.fact_id}) in _problems(
        report, "mg_change_fact"
    )
    assert any(p.table == "mg_quarantine" and p.kind is ProblemKind.ROW_EDITED
               for p in report.problems)  # fmt: skip
