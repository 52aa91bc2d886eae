"""redteam33: a read's allow event written at the driver level (memguard/ledger/readevent.py) and
its deferred links (memguard/ledger/readlinks.py), attacked.

The driver path skips SQLAlchemy, which turns anything raised while a statement runs (a bind
processor's or the driver's ``TypeError``) into a ``StatementError`` and so into
:class:`~memguard.errors.LedgerError`. The driver path only translated the driver's own
``sqlite3.Error``: anything else reached the kernel's operation, which files ``ValueError`` and
``TypeError`` as the *caller's* ``invalid_request``. A failing ledger must read as one (deny +
an audit event with the reason ``backend.ledger``), never as the caller's fault, whatever the
driver raised.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import InvalidRequest, LedgerError
from memguard.events import AuditEvent, Decision
from memguard.identity import Identity
from memguard.ledger import readevent, readlinks
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        self.tokens = LocalTokenService(tmp_path / "keys")
        self.guard = MemoryGuard(store=InMemoryStore(dimension=8),
                                 ledger=Ledger.sqlite(tmp_path / "l.db", witness=None),
                                 verifier=self.tokens.verifier())  # fmt: skip
        self.me: Identity = self.guard.authenticate(self.tokens.issue("alice"))
        self.fact_id = self.guard.write(self.me, "the sky is blue", namespace="n", source=SRC,
                                        turn=Turn(session_id="s", turn_index=0)).fact_id  # fmt: skip

    def sql(self, statement: str) -> None:
        with self.guard.ledger.engine.begin() as conn:
            conn.exec_driver_sql(statement)

    def decisions(self, action: str) -> list[tuple[str, str]]:
        with self.guard.ledger.engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT decision, reason FROM mg_audit_event WHERE action = :a ORDER BY seq"
            ), {"a": action}).all()  # fmt: skip
        return [(str(d), str(r)) for d, r in rows]


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    s = Setup(tmp_path)
    try:
        yield s
    finally:
        s.guard.close()


def test_a_read_event_the_database_silently_drops_is_a_ledger_failure(setup: Setup) -> None:
    """A trigger that drops the read's allow event (``RAISE(IGNORE)``: the insert's ``RETURNING``
    gives no row, and the driver path's ``fetchone()[0]`` raises ``TypeError``): the read failed
    as the caller's ``invalid_request``. It must be a ledger failure, audited as such."""
    setup.sql(
        "CREATE TRIGGER drop_reads BEFORE INSERT ON mg_audit_event "
        "WHEN NEW.action = 'get' AND NEW.decision = 'allow' BEGIN SELECT RAISE(IGNORE); END"
    )
    with pytest.raises(LedgerError) as caught:
        setup.guard.get(setup.me, setup.fact_id)
    assert not isinstance(caught.value, InvalidRequest)
    assert setup.decisions("get") == [("deny", "backend.ledger")]


@pytest.mark.parametrize("raised", [TypeError, ValueError, OverflowError])
def test_a_bind_or_driver_error_on_the_read_event_is_a_ledger_failure(
    setup: Setup, monkeypatch: pytest.MonkeyPatch, raised: type[Exception]
) -> None:
    """What a column's bind processor or the driver raises for a value it cannot bind (the
    SQLAlchemy path raises it as ``StatementError``, a ledger failure)."""

    def params(self: Any, row: dict[str, Any]) -> tuple[Any, ...]:
        raise raised("cannot bind")

    monkeypatch.setattr(readevent._Insert, "params", params)
    with pytest.raises(LedgerError):
        setup.guard.get(setup.me, setup.fact_id)
    with pytest.raises(LedgerError):
        setup.guard.search(setup.me, "sky", k=3)
    assert setup.decisions("get") == [("deny", "backend.ledger")]
    assert setup.decisions("search") == [("deny", "backend.ledger")]


def _read(*fact_ids: str) -> AuditEvent:
    return AuditEvent(action="get", decision=Decision.ALLOW, reason="ok",
                      principal={"subject": "alice", "issuer": "https://id.example"},
                      fact_ids=fact_ids)  # fmt: skip


#: marks SQLite keeps as it is given (the column's INTEGER affinity converts only what reads
#: as an integer): text, a blob, infinity, a real too large for a seq, a fraction
MARKS = ["'abc'", "x'00'", "'1e999'", "1e300", "5.5", "'12abc'"]


def _problems(ledger: Ledger) -> list[tuple[str, str]]:
    return [(p.kind.value, str(p.table)) for p in ledger.verify().problems
            if p.severity == "tamper"]  # fmt: skip


@pytest.mark.parametrize("mark", MARKS)
def test_a_crafted_mark_is_reported_and_answers_stay_complete(tmp_path: Path, mark: str) -> None:
    """The mark's column is typed, but SQLite keeps what it cannot convert. ``int(upto)`` then
    raised ``ValueError`` / ``OverflowError`` (or bound a seq SQLite cannot hold) in verify (a
    crash, not a report), in ``events_for`` (``memguard audit``, the console, receipts: the
    caller's ``invalid_request`` through the guard) and in ``project_reads``. A mark that is
    not a seq is taken as gone: reported by verify, answers look at every event, the next flush
    rebuilds the links and puts a seq back."""
    ledger = Ledger.sqlite(tmp_path / "l.db", witness=None)
    try:
        reads = [_read("f1", "f2") for _ in range(3)]
        for ev in reads:
            ledger.record([ev], durable=False)
        with ledger.engine.begin() as conn:
            conn.exec_driver_sql(f"UPDATE mg_read_projection SET upto = {mark}")
        assert ("row_edited", "mg_read_projection") in _problems(ledger)
        want = [ev.event_id for ev in reads]
        assert [e.event_id for _, e, _ in ledger.events_for("f1")] == want
        ledger.project_reads()
        assert [e.event_id for _, e, _ in ledger.events_for("f2")] == want
        assert _problems(ledger) == []
    finally:
        ledger.close()


@pytest.mark.parametrize("mark", MARKS[:3])
def test_reads_over_a_crafted_mark_are_served_and_audited(setup: Setup, mark: str) -> None:
    """Through the guard: the read that flushes (every ``BATCH`` reads) raised ``ValueError``
    out of ``int(upto)`` and was denied as the caller's ``invalid_request``."""
    setup.sql(f"UPDATE mg_read_projection SET upto = {mark}")
    for _ in range(readlinks.BATCH + 1):
        setup.guard.get(setup.me, setup.fact_id)
    assert setup.decisions("get") == [("allow", "ok")] * (readlinks.BATCH + 1)
    report = setup.guard.audit(setup.me, setup.fact_id)
    assert len([r for r in report["reads"] if r["action"] == "get"]) == readlinks.BATCH + 1


def test_concurrent_flushes_from_two_ledgers_and_threads_lose_no_read(tmp_path: Path) -> None:
    """Two ledger objects on one file (two processes' worth of engines and batches), two threads
    on each, reading with and without turn reads (both write paths), each flushing every
    ``BATCH`` reads of its ledger at once with the others: every read is in its facts' answers
    after every round and verify is clean at the end (no link lost, no mark past a read whose
    links are missing, no ``database is locked`` surfacing as a failed read)."""
    import json
    import random
    import threading

    from memguard.ledger.records import TurnRead

    path = tmp_path / "l.db"
    ledgers = [Ledger.sqlite(path, witness=None), Ledger.sqlite(path, witness=None)]
    facts = [f"f-{i}" for i in range(8)]
    errors: list[BaseException] = []

    def reader(lg: Ledger, seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for step in range(120):
                ids = tuple(rnd.sample(facts, rnd.randint(1, 3)))
                if rnd.random() < 0.8:
                    lg.record([_read(*ids)], durable=False)
                else:
                    reads = [TurnRead("https://id.example", "alice", f"s{seed}", step, f, 30)
                             for f in ids]  # fmt: skip
                    lg.record([_read(*ids)], reads, durable=False)
        except BaseException as exc:
            errors.append(exc)

    try:
        threads = [threading.Thread(target=reader, args=(ledgers[i % 2], i)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=50)
        assert not errors, errors
        with ledgers[0].engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT event FROM mg_audit_event").all()
        truth: dict[str, list[str]] = {f: [] for f in facts}
        for (raw,) in rows:
            ev = json.loads(raw)
            for f in ev.get("fact_ids") or []:
                if f in truth:
                    truth[f].append(str(ev["event_id"]))
        assert sum(map(len, truth.values())) > 480
        for f in facts:
            for lg in ledgers:
                assert [e.event_id for _, e, _ in lg.events_for(f)] == truth[f], f
        ledgers[1].project_reads()
        assert _problems(ledgers[0]) == []
    finally:
        for lg in ledgers:
            lg.close()


@pytest.mark.parametrize("edit", ['{"fact_ids": ["{fid}"], "x": 1}', "[1, 2]", '"{fid}"'])
@pytest.mark.parametrize("flushed", [False, True])
def test_an_audit_answer_over_an_event_edited_into_another_shape_is_an_integrity_error(
    setup: Setup, edit: str, flushed: bool
) -> None:
    """A read's stored event edited into JSON that is not an audit event (still naming the fact,
    or, once its links are written, anything): ``events_for`` raised pydantic's
    ``ValidationError`` and the kernel filed it as the caller's ``invalid_request``; the audit
    answer must refuse as tampering (``integrity.*``), or show the event (never drop it)."""
    from memguard.errors import IntegrityError

    setup.guard.get(setup.me, setup.fact_id)
    if flushed:
        setup.guard.ledger.project_reads()
    raw = edit.replace("{fid}", setup.fact_id)
    with setup.guard.ledger.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE mg_audit_event SET event = ? WHERE action = 'get'", (raw,))
    if not flushed and not raw.startswith("{"):
        pytest.skip("names no fact and has no link yet: not this fact's event (verify reports it)")
    with pytest.raises(IntegrityError):
        setup.guard.audit(setup.me, setup.fact_id)
    assert [d for d in setup.decisions("audit") if d[0] == "deny"] == [
        ("deny", "integrity.event_unreadable")
    ]
    with pytest.raises(IntegrityError):
        setup.guard.ledger.events_for(setup.fact_id)


def test_a_deferred_read_edited_to_name_an_unhashable_id_does_not_stop_flushes(
    setup: Setup,
) -> None:
    """A read's event edited so its ``fact_ids`` holds an object: ``fact_ids_of`` raised
    ``TypeError`` (``dict.fromkeys`` of an unhashable value) in every flush and answer over it,
    so every ``BATCH``-th read of every process failed, the fact's audit answer failed as the
    caller's ``invalid_request``, and ``project_reads`` (``memguard ledger repair``) could not get
    past it. The edit is verify's to report and the fact's answer refuses as tampering; reads go
    on."""
    import json

    setup.guard.get(setup.me, setup.fact_id)
    with setup.guard.ledger.engine.begin() as conn:
        (raw,) = conn.exec_driver_sql(
            "SELECT event FROM mg_audit_event WHERE action = 'get'").one()  # fmt: skip
        ev = json.loads(raw)
        ev["fact_ids"] = [{"x": 1}, setup.fact_id]
        conn.exec_driver_sql("UPDATE mg_audit_event SET event = ? WHERE action = 'get'",
                             (json.dumps(ev),))  # fmt: skip
    from memguard.errors import IntegrityError

    with pytest.raises(IntegrityError):  # the answer: tampering (not the caller's error)
        setup.guard.ledger.events_for(setup.fact_id)
    for _ in range(readlinks.BATCH + 1):
        setup.guard.get(setup.me, setup.fact_id)
    setup.guard.ledger.project_reads()
    assert ("deny", "invalid_request") not in setup.decisions("get")
    assert not [d for d in setup.decisions("get") if d[0] == "deny"]
