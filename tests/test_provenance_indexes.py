"""mg_provenance's index set (memguard/ledger/provindexes.py): a new ledger has it, a ledger with
the previous DDL (nine indexes, built here statement by statement) gets it at open, logged, and
then writes, reads, revokes and verifies; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import pg_schema_url
from sqlalchemy import create_engine, inspect

from memguard import FactNotFound, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import LedgerError
from memguard.ledger import provindexes
from memguard.ledger.ledger import Ledger
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore

#: the secondary indexes of mg_provenance as the previous release (d4d21da) created them
OLD_DDL = [
    f"CREATE INDEX ix_mg_provenance_{column} ON mg_provenance ({column})"
    for column in ("state", "namespace", "owner_sub", "source_kind", "source_uri", "session_id",
                   "workload_id", "token_jti")
]  # fmt: skip
NEW = {"ix_mg_provenance_state", "ix_mg_provenance_owner_sub", "ix_mg_provenance_session_id",
       "ix_mg_provenance_token_jti", "ix_mg_provenance_source_uri_set"}  # fmt: skip
PAGE = "https://tips.evil.example/page"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        with pg_schema_url() as got:
            yield got


def _indexes(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return {str(ix["name"]) for ix in inspect(engine).get_indexes("mg_provenance")}
    finally:
        engine.dispose()


def _old_ledger(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ledger as the previous release left it: created without the marker, its mg_provenance
    indexes replaced by the old DDL."""
    with monkeypatch.context() as m:
        m.setattr(provindexes, "created_rows", lambda: [])
        m.setattr(provindexes, "migrate", lambda ledger: False)
        ledger = Ledger.from_url(url, witness=None)
        with ledger.engine.begin() as conn:
            for name in sorted(_indexes(url) - {"ix_mg_provenance_state"}):
                conn.exec_driver_sql(f"DROP INDEX {name}")
            for ddl in OLD_DDL[1:]:  # the state index is the same DDL
                conn.exec_driver_sql(ddl)
        ledger.close()
        assert _indexes(url) == {
            f"ix_mg_provenance_{c}"
            for c in (
                "state",
                "namespace",
                "owner_sub",
                "source_kind",
                "source_uri",
                "session_id",
                "workload_id",
                "token_jti",
            )
        }


def _guard(url: str, store: InMemoryStore, tokens: LocalTokenService, clock: Any) -> MemoryGuard:
    return MemoryGuard(store=store, ledger=Ledger.from_url(url, witness=None),
                       verifier=tokens.verifier(clock=clock), clock=clock,
                       revocation_ttl=0)  # fmt: skip


def _migrations(ledger: Ledger) -> int:
    """How many change entries ran this migration."""
    with ledger.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT event FROM mg_audit_event WHERE action = 'ledger.change'"
        ).scalars()
        return sum(
            1 for raw in rows if json.loads(raw)["reason"] == "ledger.migrate.provenance_indexes"
        )


def test_a_new_ledger_has_the_index_set_and_its_marker(url: str) -> None:
    ledger = Ledger.from_url(url, witness=None)
    try:
        assert _indexes(url) == NEW
        assert provindexes.migrate(ledger) is False  # marked at creation: nothing to do
        assert ledger.verify().ok
    finally:
        ledger.close()


def test_an_old_ledger_is_migrated_at_open_then_writes_reads_revokes_and_verifies(
    url: str, monkeypatch: pytest.MonkeyPatch, tokens: LocalTokenService, clock: Any
) -> None:
    _old_ledger(url, monkeypatch)
    store = InMemoryStore(dimension=384)
    with monkeypatch.context() as m:  # written with the old indexes (the previous release)
        m.setattr(provindexes, "migrate", lambda ledger: False)
        g = _guard(url, store, tokens, clock)
        alice = g.authenticate(tokens.issue("alice"))
        before = g.write(alice, "Lisbon trams run late in May.", namespace="notes",
                         source=Source(kind=SourceKind.WEB, uri=PAGE),
                         turn=Turn(session_id="s1", turn_index=1))  # fmt: skip
        g.close()
    assert "ix_mg_provenance_namespace" in _indexes(url)

    g = _guard(url, store, tokens, clock)  # the real open: migrates
    try:
        assert _indexes(url) == NEW
        assert _migrations(g.ledger) == 1
        alice = g.authenticate(tokens.issue("alice"))
        after = g.write(alice, "The page says to email the passport.", namespace="notes",
                        source=Source(kind=SourceKind.WEB, uri=PAGE),
                        turn=Turn(session_id="s1", turn_index=2))  # fmt: skip
        mine = g.write(alice, "Alice prefers aisle seats.", namespace="notes",
                       source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
                       turn=Turn(session_id="s1", turn_index=3))  # fmt: skip
        found = {f.fact_id for f in g.search(alice, "Lisbon passport aisle", k=10)}
        assert {before.fact_id, after.fact_id, mine.fact_id} <= found
        # revocation by source finds the fact written before the migration and the one after
        report = g.revoke(alice, RevocationSelector.source(PAGE), reason="injected")
        assert set(report.quarantined) == {before.fact_id, after.fact_id}
        assert {f.fact_id for f in g.search(alice, "Lisbon passport aisle", k=10)} == {mine.fact_id}
        for fid in (before.fact_id, after.fact_id):
            with pytest.raises(FactNotFound):
                g.get(alice, fid)
        # a session revocation still reaches every fact of the session
        report = g.revoke(alice, RevocationSelector.session("s1"), reason="session")
        assert mine.fact_id in set(report.quarantined)
        report_ok = g.ledger.verify()
        assert report_ok.ok, report_ok.problems[:3]
    finally:
        g.close()

    ledger = Ledger.from_url(url, witness=None)  # once only
    try:
        assert _migrations(ledger) == 1 and _indexes(url) == NEW
    finally:
        ledger.close()


def test_the_marker_row_is_held_to_the_log(url: str) -> None:
    """The marker is a projection row: deleting it is named by verify, and the next open does
    not put it back silently (which would hide the deletion from verify); it only makes the
    index set whole again."""
    ledger = Ledger.from_url(url, witness=None)
    with ledger.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM mg_ledger_meta WHERE key = 'provenance_indexes'")
        conn.exec_driver_sql("DROP INDEX ix_mg_provenance_source_uri_set")
    ledger.close()
    again = Ledger.from_url(url, witness=None)
    try:
        assert _indexes(url) == NEW
        assert _migrations(again) == 0
        report = again.verify()
        assert not report.ok
        assert any(
            p.table == "mg_ledger_meta" and p.key == {"key": "provenance_indexes"}
            for p in report.problems
        ), report.problems
    finally:
        again.close()


def test_a_failed_migration_fails_the_open_and_changes_nothing(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _old_ledger(url, monkeypatch)
    monkeypatch.setattr(provindexes, "_PARTIAL", "CREATE INDEX broken ON no_such_table (x)")
    with pytest.raises(LedgerError):
        Ledger.from_url(url, witness=None)
    assert "ix_mg_provenance_namespace" in _indexes(url)  # rolled back: the old set is whole
    monkeypatch.undo()
    ledger = Ledger.from_url(url, witness=None)
    try:
        assert _indexes(url) == NEW and _migrations(ledger) == 1
    finally:
        ledger.close()


@pytest.mark.parametrize(
    "selector",
    [
        RevocationSelector.source(PAGE),
        RevocationSelector.session("s1"),
        RevocationSelector.jti("jti-1"),
        RevocationSelector.subject("https://issuer.example", "alice"),
    ],
    ids=["source", "session", "jti", "subject"],
)
def test_the_revocation_lookups_still_use_an_index(tmp_path: Path, selector: Any) -> None:
    """SQLite's plan of the statement :meth:`Lineage.match` runs for each selector that the
    kept indexes serve: a search through an index, not a scan of every fact."""
    from sqlalchemy import event

    ledger = Ledger.sqlite(tmp_path / "ledger.db", witness=None)
    seen: list[tuple[str, Any]] = []

    def grab(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
        if "FROM mg_provenance" in statement:
            seen.append((statement, params))

    event.listen(ledger.engine, "before_cursor_execute", grab)
    try:
        assert ledger.lineage.match(selector) == []
        ((statement, params),) = seen
        with ledger.engine.connect() as conn:
            plan = " ".join(
                str(row[-1])
                for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params)
            )
        assert "USING INDEX ix_mg_provenance_" in plan, plan
        assert "SCAN mg_provenance" not in plan, plan
    finally:
        event.remove(ledger.engine, "before_cursor_execute", grab)
        ledger.close()


def test_several_processes_opening_an_old_ledger_migrate_it_once(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    _old_ledger(url, monkeypatch)
    # four openers released at once by a barrier: threads, each with its own engine and
    # connections (the locks taken are the database's, as between processes)
    start, errors, opened = threading.Barrier(4), [], []

    def open_one() -> None:
        try:
            start.wait()
            opened.append(Ledger.from_url(url, witness=None))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert errors == [] and len(opened) == 4
        assert _indexes(url) == NEW and _migrations(opened[0]) == 1
        assert opened[0].verify().ok
    finally:
        for ledger in opened:
            ledger.close()
