"""Generated mutation test: a ledger built by a scripted guard workload (writes, derivation, a
read-tainted write, update, delete, revocation, endorsement, a lifted revocation), then for every
table and every column one single-row mutation (update), and per table an inserted, a deleted and
a swapped row, each applied to a fresh copy of the closed ledger. ``memguard ledger verify``
(:meth:`Ledger.verify`, with the default witness) must name every one: the table, and for a
projection row its key and column. Prints the detection rate; the target is 100%.

``MEMGUARD_MUTATE_ALL_ROWS=1`` mutates every column of every row, not one row per column
(slow: minutes).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, PLANNER

from memguard import MemoryGuard, Source, SourceKind, Turn
from memguard.errors import IntegrityError
from memguard.events import AuditEvent, Decision
from memguard.ledger import FactState, Ledger
from memguard.ledger.auditlog import Problem, ProblemKind, VerifyReport
from memguard.ledger.changelog import PROJECTIONS
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.witness import WitnessDir
from memguard.revocation import RevocationSelector
from memguard.tokens.local import LocalTokenService

WEB = "https://evil.example/page"
ALL_ROWS = os.environ.get("MEMGUARD_MUTATE_ALL_ROWS") == "1"
LOG_TABLES = ("mg_log_leaf", "mg_log_node", "mg_log_checkpoint", "mg_log_pending")
LINK_TABLES = ("mg_audit_fact", "mg_change_fact")


def _turn(i: int) -> Turn:
    return Turn(session_id="s-1", turn_index=i)


def workload(guard: MemoryGuard, tokens: LocalTokenService) -> None:
    """Every kind of state change the guard makes, at least once."""
    user = guard.authenticate(tokens.issue("alice"))
    browser = guard.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    planner = guard.authenticate(tokens.issue("alice", actors=[PLANNER]))
    page = guard.write(browser, "a web page", namespace="research",
                       source=Source(kind=SourceKind.WEB, uri=WEB), turn=_turn(1))  # fmt: skip
    summary = guard.write(planner, "its summary", namespace="research",
                          source=Source(kind=SourceKind.AGENT_INFERENCE, name="p"), turn=_turn(2),
                          derived_from=[page.fact_id])  # fmt: skip
    note = guard.write(user, "aisle seats", namespace="travel",
                       source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(3))  # fmt: skip
    guard.get(user, note.fact_id, turn=_turn(4))  # a read that taints the next write
    guard.write(user, "book an aisle seat", namespace="travel",
                source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(4))  # fmt: skip
    guard.update(user, note.fact_id, "window seats", source=Source(kind=SourceKind.USER_MESSAGE),
                 turn=_turn(5))  # fmt: skip
    gone = guard.write(user, "to delete", namespace="travel",
                       source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(6))  # fmt: skip
    guard.delete(user, gone.fact_id)
    guard.revoke(None, RevocationSelector.source(WEB), reason="bad page", operator="ops")
    guard.endorse(None, [summary.fact_id], reason="checked", operator="ops")
    other = guard.revoke(None, RevocationSelector.fact(note.fact_id), reason="x", operator="ops")
    event = AuditEvent(action="revocation.lift", decision=Decision.ALLOW, reason="mistake",
                       detail={"revocation_id": other.revocation_id})  # fmt: skip
    guard.ledger.lineage.deactivate(other.revocation_id, event)
    guard.ledger.log.flush()


@dataclass
class Built:
    db: Path
    witness: Path
    signer: CheckpointSigner


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    from helpers import Clock

    from memguard.stores.memory import InMemoryStore

    root = tmp_path_factory.mktemp("tamper")
    signer = CheckpointSigner.load_or_create(root / "keys" / "checkpoint.key")
    clock = Clock()
    tokens = LocalTokenService(root / "keys", clock=clock)
    ledger = Ledger.sqlite(root / "ledger.db", checkpoint_signer=signer)
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger,
                        verifier=tokens.verifier(clock=clock), clock=clock,
                        revocation_ttl=0)  # fmt: skip
    workload(guard, tokens)
    guard.close()  # integrates what is queued
    again = Ledger.sqlite(root / "ledger.db")
    again.record([AuditEvent(action="get", decision=Decision.DENY, reason="late")])
    again.close()  # left queued (mg_log_pending), not integrated
    return Built(root / "ledger.db", root / "witness", signer)


def _open(built: Built, work: Path) -> Ledger:
    return Ledger.sqlite(work, witness=WitnessDir(built.witness))


def _verify(built: Built, work: Path) -> VerifyReport:
    ledger = _open(built, work)
    try:
        return ledger.verify(verifier=built.signer.verifier())
    finally:
        ledger.close()


def test_the_built_ledger_verifies_and_covers_every_table(built: Built, tmp_path: Path) -> None:
    work = tmp_path / "ledger.db"
    shutil.copy(built.db, work)
    report = _verify(built, work)
    assert report.ok, [p.as_json() for p in report.problems]
    assert [p for p in report.problems if p.severity == "tamper"] == []
    with sqlite3.connect(work) as db:
        for table in [*PROJECTIONS, "mg_audit_event", *LINK_TABLES, *LOG_TABLES[:3]]:
            assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] >= 1, table
        states = {r[0] for r in db.execute("SELECT state FROM mg_provenance")}
        assert {"committed", "superseded", "deleted"} <= states
        assert {r[0] for r in db.execute("SELECT active FROM mg_revocation")} == {0, 1}
        assert {r[0] for r in db.execute("SELECT kind FROM mg_lineage")} >= {"derived", "context"}
    db.close()


# -- mutations ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    table: str
    kind: str  # update | insert | delete | swap
    column: str | None
    key: dict[str, Any] | None
    sql: tuple[tuple[str, tuple[Any, ...]], ...]

    @property
    def label(self) -> str:
        return f"{self.kind} {self.table}.{self.column or '*'} {self.key}"


def _changed(value: Any, column: str) -> Any:
    if value is None:
        return 1 if column in ("trust", "turn_index") else "x"
    if isinstance(value, bytes):
        return bytes([value[0] ^ 1]) + value[1:]
    if isinstance(value, int):
        return 1 - value if value in (0, 1) and column in _BOOLS else value + 1
    if isinstance(value, float):
        return value + 1.0
    text = str(value)
    if column == "state":
        return "superseded" if text == "committed" else "committed"
    if column in ("ts", "created_at") and text[:4].isdigit():
        return str(int(text[:4]) - 1) + text[4:]
    return text[:-1] + ("x" if not text.endswith("x") else "y") if text else "x"


_BOOLS = {"purged", "active", "lifted", "store_synced"}

#: columns with no security meaning, left out (and said so in docs/audit-log.md): when an event
#: was queued only feeds the ``pending_too_old`` warning; the event itself is fixed by its queued
#: leaf hash.
UNAUTHENTICATED = {("mg_log_pending", "queued_at"), ("mg_read_projection", "upto")}
# ``upto``: how far the reads' links are written (memguard/ledger/readlinks.py). Moved down it
# changes nothing but the next batch's work; moved up past a read whose links are not written,
# those links are reported missing (tests/test_readlinks.py); moved past the log, it is reported.


def _tables(db: sqlite3.Connection) -> list[str]:
    return [
        r[0]
        for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mg_%'")
    ]


def _pk(db: sqlite3.Connection, table: str) -> list[str]:
    cols = db.execute(f"PRAGMA table_info({table})").fetchall()
    return [c[1] for c in sorted(cols, key=lambda c: c[5]) if c[5] > 0]


def _unique(db: sqlite3.Connection, table: str) -> set[str]:
    """Key columns and those of a unique index: an inserted copy must change them all."""
    out = set(_pk(db, table))
    for index in db.execute(f"PRAGMA index_list({table})").fetchall():
        if index[2]:
            out.update(c[2] for c in db.execute(f"PRAGMA index_info({index[1]})").fetchall())
    return out


def mutations(db: sqlite3.Connection) -> list[Mutation]:
    out: list[Mutation] = []
    for table in _tables(db):
        cols = [c[1] for c in db.execute(f"PRAGMA table_info({table})").fetchall()]
        pk, unique = _pk(db, table), _unique(db, table)
        rows = db.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid").fetchall()
        if not rows:
            continue
        for ci, column in enumerate(cols):
            if (table, column) in UNAUTHENTICATED:
                continue
            targets = rows if ALL_ROWS else [rows[(ci * 7 + 3) % len(rows)]]
            for row in targets:
                rowid, values = row[0], dict(zip(cols, row[1:], strict=True))
                new = _changed(values[column], column)
                if column in unique and isinstance(new, int):
                    new = values[column] + 10**6  # a key that no other row holds
                out.append(Mutation(table, "update", column, {k: values[k] for k in pk},
                                    ((f"UPDATE {table} SET {column} = ? WHERE rowid = ?",
                                      (new, rowid)),)))  # fmt: skip
        rowid, *first = rows[len(rows) // 2]
        values = dict(zip(cols, first, strict=True))
        out.append(Mutation(table, "delete", None, {k: values[k] for k in pk},
                            ((f"DELETE FROM {table} WHERE rowid = ?", (rowid,)),)))  # fmt: skip
        copy = dict(values)
        for k in unique:
            copy[k] = copy[k] + 10**6 if isinstance(copy[k], int) else _changed(copy[k], k)
        names = ", ".join(copy)
        marks = ", ".join("?" for _ in copy)
        out.append(Mutation(table, "insert", None, {k: copy[k] for k in pk},
                            ((f"INSERT INTO {table} ({names}) VALUES ({marks})",
                              tuple(copy.values())),)))  # fmt: skip
        payload = [c for c in cols if c not in pk]
        # a row whose payload differs (swapping equal payloads, e.g. two meta markers both "2",
        # changes nothing and is no tampering)
        at = [cols.index(c) for c in payload]
        other = [r for r in rows if [r[1:][i] for i in at] != [first[i] for i in at]]
        if other and payload:
            orow, *ovals = other[0]
            ovalues = dict(zip(cols, ovals, strict=True))
            swapped_a = {**values, **{c: ovalues[c] for c in payload}}
            swapped_b = {**ovalues, **{c: values[c] for c in payload}}
            marks = ", ".join("?" for _ in cols)
            insert = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})"
            out.append(Mutation(table, "swap", None, {k: values[k] for k in pk}, (
                (f"DELETE FROM {table} WHERE rowid IN (?, ?)", (rowid, orow)),
                (insert, tuple(swapped_a[c] for c in cols)),
                (insert, tuple(swapped_b[c] for c in cols)),
            )))  # fmt: skip
    out.extend(
        Mutation(t, "drop", None, None, ((f"DROP TABLE {t}", ()),)) for t in LOG_TABLES
    )
    return out


def _names(problem: Problem, m: Mutation) -> bool:
    """Does the finding name the mutated table (and, for projection rows, its key/column)?"""
    if m.table in PROJECTIONS or m.table in LINK_TABLES:
        if problem.table != m.table:
            return False
        if m.kind == "update" and m.column is not None and problem.kind is ProblemKind.ROW_EDITED:
            return problem.column == m.column
        return True
    if m.table == "mg_audit_event":
        if problem.kind is ProblemKind.EVENT_COLUMN:
            return m.column == problem.column or m.kind == "swap"
        return problem.event_seq is not None or problem.leaf_index is not None
    return problem.severity == "tamper"  # the tree's own tables: located by leaf / node / size


def _detected(built: Built, work: Path, m: Mutation) -> bool:
    shutil.copy(built.db, work)
    with sqlite3.connect(work) as db:
        for sql, params in m.sql:
            db.execute(sql, params)
    db.close()
    try:
        report = _verify(built, work)
    except IntegrityError:
        return True  # refused to open: dropped log tables are never re-adopted silently
    return not report.ok and any(_names(p, m) for p in report.problems)


def test_every_single_mutation_is_detected_and_named(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(built.db) as db:
        todo = mutations(db)
    db.close()
    missed = [m.label for m in todo if not _detected(built, tmp_path / "work.db", m)]
    rate = 100.0 * (len(todo) - len(missed)) / len(todo)
    with capsys.disabled():
        print(f"\nmutation test: {len(todo) - len(missed)}/{len(todo)} detected ({rate:.1f}%)")
    assert missed == [], missed
    kinds = {(m.table, m.kind) for m in todo}
    assert len(kinds) >= 4 * len(PROJECTIONS)  # update, insert, delete, swap of every projection


@pytest.fixture
def copy(built: Built, tmp_path: Path) -> Iterator[Callable[[], Path]]:
    def make() -> Path:
        work = tmp_path / "ledger.db"
        shutil.copy(built.db, work)
        return work

    yield make


# -- PostgreSQL: the same log, the same findings ------------------------------------------------


def test_postgres_projection_mutations_are_named(tmp_path: Path) -> None:
    from helpers import Clock, pg_schema_url
    from sqlalchemy import text

    from memguard.stores.memory import InMemoryStore

    signer = CheckpointSigner.load_or_create(tmp_path / "keys" / "checkpoint.key")
    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    with pg_schema_url() as url:
        ledger = Ledger.from_url(url, checkpoint_signer=signer,
                                 witness=WitnessDir(tmp_path / "witness"))  # fmt: skip
        guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger,
                            verifier=tokens.verifier(clock=clock), clock=clock,
                            revocation_ttl=0)  # fmt: skip
        try:
            workload(guard, tokens)
            report = ledger.verify()
            assert report.ok, [p.as_json() for p in report.problems]
            cases = [
                ("UPDATE mg_provenance SET state = 'superseded' WHERE state = 'committed' "
                 "AND fact_id = (SELECT min(fact_id) FROM mg_provenance WHERE state = 'committed')",
                 "mg_provenance", "state"),
                ("UPDATE mg_provenance SET source_uri = 'https://good.example/' "
                 "WHERE source_uri IS NOT NULL", "mg_provenance", "source_uri"),
                ("UPDATE mg_revocation SET active = false", "mg_revocation", "active"),
                ("DELETE FROM mg_lineage", "mg_lineage", None),
                ("UPDATE mg_audit_event SET decision = 'deny' WHERE action = 'write'",
                 "mg_audit_event", "decision"),
                ("UPDATE mg_quarantine SET lifted = true", "mg_quarantine", "lifted"),
            ]  # fmt: skip
            for sql, table, column in cases:
                with ledger.engine.connect() as conn:
                    tx = conn.begin()
                    conn.execute(text(sql))
                    tx.commit()
                found = ledger.verify().problems
                assert any(p.table == table and (column is None or p.column == column)
                           for p in found), (sql, [p.as_json() for p in found])  # fmt: skip
                ledger.repair(actor="test", reason="reset")  # adopt, logged: clean again
                assert ledger.verify().ok
        finally:
            guard.close()


# -- the read path: row vs signed log, compared on every read ------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MemoryGuard, LocalTokenService]]:
    from helpers import Clock

    from memguard.stores.memory import InMemoryStore

    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier(clock=clock), clock=clock,
                        revocation_ttl=0)  # fmt: skip
    yield guard, tokens
    guard.close()


def _sql(guard: MemoryGuard, sql: str, **params: Any) -> None:
    from sqlalchemy import text

    with guard.ledger.engine.begin() as conn:
        conn.execute(text(sql), params)


def _alarms(guard: MemoryGuard) -> list[str]:
    return [e.reason for e in guard.ledger.events(decision="alarm")]


def test_read_path_alarms_on_a_row_and_payload_rewritten_consistently(
    served: tuple[MemoryGuard, LocalTokenService],
) -> None:
    from memguard import TrustLevel
    from memguard.errors import FactNotFound
    from memguard.provenance import Provenance
    from memguard.stores.base import StoredPoint, build_payload

    guard, tokens = served
    browser = guard.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    prov = guard.write(browser, "wire 500 EUR", namespace="research",
                       source=Source(kind=SourceKind.WEB, uri=WEB), turn=_turn(1))  # fmt: skip
    assert guard.get(browser, prov.fact_id).provenance.trust is TrustLevel.UNTRUSTED
    forged = Provenance.model_validate({**prov.model_dump(), "trust": TrustLevel.SYSTEM})
    _sql(guard, "UPDATE mg_provenance SET record = :r, record_digest = :d, trust = :t "
         "WHERE fact_id = :f", r=forged.canonical().decode(), d=forged.record_digest,
         t=int(TrustLevel.SYSTEM), f=prov.fact_id)  # fmt: skip
    guard.store.upsert([StoredPoint(prov.fact_id, build_payload("wire 500 EUR", {}, forged),
                                    [1.0] * 8)])  # fmt: skip
    with pytest.raises(FactNotFound):  # denied, not served with the forged trust
        guard.get(browser, prov.fact_id)
    assert "integrity.record_mismatch" in _alarms(guard)


def test_read_path_alarms_on_a_hidden_state_or_a_lifted_quarantine(
    served: tuple[MemoryGuard, LocalTokenService],
) -> None:
    from memguard.errors import FactNotFound

    guard, tokens = served
    user = guard.authenticate(tokens.issue("alice"))
    kept = guard.write(user, "aisle seats", namespace="travel",
                       source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(1))  # fmt: skip
    held = guard.write(user, "window seats", namespace="travel",
                       source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(2))  # fmt: skip
    guard.revoke(None, RevocationSelector.fact(held.fact_id), reason="bad", operator="ops")
    _sql(guard, "UPDATE mg_provenance SET state = 'superseded' WHERE fact_id = :f", f=kept.fact_id)
    with pytest.raises(FactNotFound):
        guard.get(user, kept.fact_id)
    _sql(guard, "UPDATE mg_quarantine SET lifted = 1 WHERE fact_id = :f", f=held.fact_id)
    with pytest.raises(FactNotFound):  # the lifted row does not release it
        guard.get(user, held.fact_id)
    assert {"integrity.state_mismatch", "integrity.quarantine_mismatch"} <= set(_alarms(guard))
    for links in LINK_TABLES:
        _sql(guard, f"DELETE FROM {links} WHERE fact_id = :f", f=kept.fact_id)
    with pytest.raises(FactNotFound):  # its log entries can no longer be found: unlogged
        guard.get(user, kept.fact_id)
    assert "integrity.unlogged_row" in _alarms(guard)


def test_read_path_compare_holds_for_a_batch_after_its_entry_was_cached(
    served: tuple[MemoryGuard, LocalTokenService],
) -> None:
    """A batch is one change entry; the read path parses it once and caches it by (seq, leaf).
    A warm cache must not hide a projection row edited afterwards, for any fact of the batch."""
    from memguard import FactInput
    from memguard.errors import FactNotFound

    guard, tokens = served
    user = guard.authenticate(tokens.issue("alice"))
    batch = guard.write_many(user, [FactInput(text=f"note {i}", namespace="travel",
                                              source=Source(kind=SourceKind.USER_MESSAGE),
                                              turn=_turn(1)) for i in range(40)])  # fmt: skip
    assert len(guard.search(user, "note", k=40)) == 40  # every head read: the entry is cached
    assert guard.ledger._entry_cache._entries  # warm: the batch entry is cached
    victim, other = batch[17], batch[3]
    _sql(guard, "UPDATE mg_provenance SET state = 'superseded' WHERE fact_id = :f",
         f=victim.fact_id)
    with pytest.raises(FactNotFound):
        guard.get(user, victim.fact_id)
    assert "integrity.state_mismatch" in _alarms(guard)
    assert guard.get(user, other.fact_id).provenance.fact_id == other.fact_id  # the rest serve
    served_ids = {h.provenance.fact_id for h in guard.search(user, "note", k=40)}
    assert victim.fact_id not in served_ids and len(served_ids) == 39


# -- faults: a damaged queue, several processes recovering at once ------------------------------


def test_deleting_the_last_queued_event_is_reported_not_fatal(
    served: tuple[MemoryGuard, LocalTokenService],
) -> None:
    guard, tokens = served
    user = guard.authenticate(tokens.issue("alice"))
    guard.write(user, "one", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                turn=_turn(1))  # fmt: skip
    last = "(SELECT max(seq) FROM mg_audit_event)"
    _sql(guard, f"DELETE FROM mg_audit_fact WHERE event_seq = {last}")
    _sql(guard, f"DELETE FROM mg_audit_event WHERE seq = {last}")
    # the next writes get new seqs (AUTOINCREMENT), not the deleted one's: nothing is bricked
    for i in range(3):
        guard.write(user, f"more {i}", namespace="n",
                    source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(2 + i))  # fmt: skip
    guard.ledger.log.flush()
    report = guard.ledger.verify()
    assert not report.ok
    assert any(p.kind in (ProblemKind.DELETED, ProblemKind.TRUNCATED) for p in report.problems)


# several processes starting on one ledger: tests/test_ledger_processes.py


# -- the witness --------------------------------------------------------------------------------


def test_the_default_witness_catches_a_rollback_and_stops_signing(tmp_path: Path) -> None:
    signer = CheckpointSigner.load_or_create(tmp_path / "keys" / "checkpoint.key")
    ledger = Ledger.sqlite(tmp_path / "ledger.db", checkpoint_signer=signer)
    ledger.record([AuditEvent(action="get", decision=Decision.ALLOW, reason="a")])
    ledger.log.flush()
    backup = tmp_path / "backup.db"
    ledger.close()
    shutil.copy(tmp_path / "ledger.db", backup)  # the database as it was
    ledger = Ledger.sqlite(tmp_path / "ledger.db", checkpoint_signer=signer)
    ledger.record([AuditEvent(action="get", decision=Decision.DENY, reason="evidence")])
    ledger.log.flush()
    ledger.close()
    assert (tmp_path / "witness" / "latest.note").exists()
    shutil.copy(backup, tmp_path / "ledger.db")  # rolled back, checkpoint rows included
    ledger = Ledger.sqlite(tmp_path / "ledger.db", checkpoint_signer=signer)
    try:
        report = ledger.verify()
        assert not report.ok
        assert {p.kind for p in report.problems} >= {ProblemKind.TRUNCATED, ProblemKind.ROW_DELETED}
        ledger.record([AuditEvent(action="get", decision=Decision.ALLOW, reason="b")])
        with pytest.raises(IntegrityError) as refused:  # never signs a second history
            ledger.log.flush()
        assert refused.value.code == "integrity.rollback"
        # with a new key (rotation) the witness still holds the tree, unsigned check
        rotated = CheckpointSigner.generate()
        ledger.log.signer = rotated
        with pytest.raises(IntegrityError):
            ledger.log.checkpoint()
    finally:
        ledger.close()


def test_recovery_never_commits_a_pending_row_the_log_did_not_stage(
    served: tuple[MemoryGuard, LocalTokenService],
) -> None:
    from memguard import TrustLevel
    from memguard.errors import FactNotFound
    from memguard.provenance import Provenance
    from memguard.stores.base import StoredPoint, build_payload

    guard, tokens = served
    user = guard.authenticate(tokens.issue("alice"))
    real = guard.write(user, "aisle seats", namespace="travel",
                       source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(1))  # fmt: skip
    forged = Provenance.model_validate(
        {**real.model_dump(), "fact_id": "forged-1", "trust": TrustLevel.SYSTEM}
    )
    _sql(guard, "INSERT INTO mg_provenance SELECT :f, version, 'pending', purged, namespace, "
         "owner_iss, owner_sub, :t, source_kind, source_uri, session_id, turn_index, writer_sub, "
         "workload_id, token_jti, :r, :d, content_digest, created_at FROM mg_provenance "
         "WHERE fact_id = :real", f="forged-1", t=int(TrustLevel.SYSTEM),
         r=forged.canonical().decode(), d=forged.record_digest, real=real.fact_id)  # fmt: skip
    guard.store.upsert([StoredPoint("forged-1", build_payload("aisle seats", {}, forged),
                                    [1.0] * 8)])  # fmt: skip
    report = guard.recover()
    assert "forged-1" not in report.committed
    assert "integrity.unlogged_row" in _alarms(guard)
    with pytest.raises(FactNotFound):
        guard.get(user, "forged-1")
    assert any(p.table == "mg_provenance" and p.key == {"fact_id": "forged-1", "version": 1}
               for p in guard.ledger.verify().problems)  # fmt: skip


def test_every_store_payload_field_mutation_is_named(tmp_path: Path) -> None:
    """With ``store=``, verify holds every committed fact's point to its row: each field of the
    payload (text, metadata, every reserved key) edited, and the point deleted."""
    import copy as copying

    from helpers import Clock

    from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint
    from memguard.stores.memory import InMemoryStore

    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    store = InMemoryStore(dimension=8)
    guard = MemoryGuard(store=store, ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier(clock=clock), clock=clock,
                        revocation_ttl=0)  # fmt: skip
    try:
        workload(guard, tokens)
        assert guard.ledger.verify(store=store).ok
        committed = [r.fact_id for r in guard.ledger.in_state(FactState.COMMITTED)]
        heads = guard.ledger.latest(committed)
        # a plain fact, and a quarantined one (its store copy carries the quarantine mark)
        picks = [next(f for f in committed if not heads[f].quarantined),
                 next(f for f in committed if heads[f].quarantined)]
        missed = []
        for fact_id in picks:
            (original,) = store.retrieve([fact_id])
            fields = [("text",), ("metadata",)] + [
                (RESERVED_PAYLOAD_KEY, k) for k in original.payload[RESERVED_PAYLOAD_KEY]
            ]
            for path in [*fields, ("<deleted>",)]:
                if path == ("<deleted>",):
                    store.delete([fact_id])
                else:
                    payload = copying.deepcopy(dict(original.payload))
                    target = payload if len(path) == 1 else payload[path[0]]
                    value = target[path[-1]]
                    target[path[-1]] = (
                        {**value, "x": 1} if isinstance(value, dict)
                        else value + 1 if isinstance(value, int) and not isinstance(value, bool)
                        else f"{value}x"
                    )  # fmt: skip
                    store.upsert([StoredPoint(fact_id, payload, original.vector)])
                found = guard.ledger.verify(store=store).problems
                if not any(p.table == "store" and p.key == {"fact_id": fact_id} for p in found):
                    missed.append((fact_id, *path))
                store.upsert([original])
        assert missed == [], missed
        assert guard.ledger.verify(store=store).ok
    finally:
        guard.close()


# -- incremental verify: every row written after the marker ---------------------------------------


def test_incremental_verify_names_every_mutation_of_a_row_written_after_the_marker(
    built: Built, tmp_path: Path
) -> None:
    """With the verified marker at the new ledger's first checkpoint (leaf 1), every projection
    row but the meta row was written after it: each update and deletion of one is named by
    ``verify(since_checkpoint=True)``, as are event columns and fact links of later events (what
    the increment cannot see, a row no later entry touched or inserted around the log, is the
    full replay's: docs/audit-log.md)."""
    from memguard.ledger.verified import VerifiedMark, write_mark

    witness = tmp_path / "witness"
    shutil.copytree(built.witness, witness)
    probe = Ledger.sqlite(built.db, witness=WitnessDir(witness))
    try:
        root = probe.log.root(1)
    finally:
        probe.close()
    write_mark(witness, VerifiedMark(1, root, 0.0), built.signer)
    with sqlite3.connect(built.db) as db:
        todo = [
            m for m in mutations(db)
            if m.kind in ("update", "delete")
            and (m.table in PROJECTIONS or m.table in ("mg_audit_event", *LINK_TABLES))
            and m.table != "mg_ledger_meta"  # its row is the creation entry's, before the marker
        ]  # fmt: skip
    db.close()
    assert len(todo) > 40
    work, missed = tmp_path / "work.db", []
    for m in todo:
        shutil.copy(built.db, work)
        with sqlite3.connect(work) as db:
            for sql, params in m.sql:
                db.execute(sql, params)
        db.close()
        ledger = Ledger.sqlite(work, witness=WitnessDir(witness))
        try:
            report = ledger.verify(verifier=built.signer.verifier(), since_checkpoint=True)
        finally:
            ledger.close()
        assert report.replay_from == 1, m.label
        if report.ok or not any(_names(p, m) for p in report.problems):
            missed.append(m.label)
    assert missed == [], missed
