"""Red team (round 31): the index-set migrations at open against an edited log.

Each marker migration (``change_links``, ``provenance_indexes``, ``audit_schema``) reads the
change entries that mention its marker when the marker row is missing, to tell a ledger from
before (migrate) from a row deleted around the log (do not put it back; ``verify`` names it). It
read each entry's ``detail`` and ops as objects: an entry edited so that an op (or the detail) is
a string or a list made the open raise ``AttributeError``, so ``memguard ledger verify`` on that
ledger stopped with exit 1 "unexpected" instead of exit 4 naming the edited entry and the
deleted row. The attack needs write access to the database (it is tampering); what must hold is
that ``verify`` reports it, on SQLite and on PostgreSQL.

``verify`` itself stopped the same way on a change entry edited to hold a detail that is not an
object, a fact id that is a list or an object, or a row key holding one (``AttributeError`` or
``TypeError`` out of the replay instead of a report).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from helpers import pg_schema_url
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from memguard.cli import app
from memguard.clikit import ExitCode
from memguard.ledger.ledger import Ledger
from memguard.ledger.logreport import ProblemKind

MARKERS = ("change_links", "provenance_indexes", "audit_schema")


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        with pg_schema_url() as got:
            yield got


def _edit(url: str, marker: str, how: str) -> None:
    """Delete ``marker``'s row and edit the ``ledger.create`` entry (which mentions it) around the
    log: a non-object op (``op``) or a non-object detail (``detail``) that still names it."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            seq, raw = conn.execute(
                text(
                    "SELECT seq, event FROM mg_audit_event WHERE action = 'ledger.change' "
                    "ORDER BY seq LIMIT 1"
                )
            ).one()
            event: dict[str, Any] = json.loads(raw)
            assert event["reason"] == "ledger.create" and f'"{marker}"' in raw
            if how == "op":
                event["detail"]["ops"].append(marker)
            else:
                event["detail"] = [marker]
            conn.execute(
                text("UPDATE mg_audit_event SET event = :e WHERE seq = :s"),
                {"e": json.dumps(event), "s": seq},
            )
            conn.execute(text("DELETE FROM mg_ledger_meta WHERE key = :k"), {"k": marker})
    finally:
        engine.dispose()


@pytest.mark.parametrize("how", ["op", "detail"])
@pytest.mark.parametrize("marker", MARKERS)
def test_an_edited_entry_naming_a_deleted_marker_is_reported_by_verify(
    url: str, marker: str, how: str
) -> None:
    Ledger.from_url(url, witness=None).close()
    _edit(url, marker, how)
    ledger = Ledger.from_url(url, witness=None)  # raised AttributeError before the fix
    try:
        report = ledger.verify()
        assert not report.ok
        assert any(p.kind is ProblemKind.EDITED for p in report.problems), report.problems
        if how == "op":  # (a detail that is no object logs no row: the marker is migrated again)
            named = {(p.table, json.dumps(p.key, sort_keys=True)) for p in report.problems}
            assert ("mg_ledger_meta", json.dumps({"key": marker})) in named, report.problems
    finally:
        ledger.close()


def test_the_cli_verify_exits_with_tamper_detected(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.from_url(url, witness=None).close()
    _edit(url, "audit_schema", "op")
    saved = structlog.get_config()
    try:
        got = CliRunner().invoke(
            app, ["ledger", "verify", "--ledger-url", url, "--state-dir", str(tmp_path)]
        )
    finally:
        structlog.configure(**saved)
    assert got.exit_code == ExitCode.VERIFY_FAILED, (got.exit_code, got.stdout, got.stderr)


EDITS: dict[str, Any] = {
    "detail is a list": lambda ev: ev.__setitem__("detail", ["x"]),
    "detail is a string": lambda ev: ev.__setitem__("detail", "x"),
    "a fact id is a list": lambda ev: ev.__setitem__("fact_ids", [["a"]]),
    "a fact id is an object": lambda ev: ev.__setitem__("fact_ids", [{"a": 1}]),
    "a row key holds a list": lambda ev: ev["detail"]["ops"].append(
        {"t": "mg_ledger_meta", "op": "put", "key": {"key": ["k"]}, "row": {"key": "k", "value": "1"}}
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_verify_reports_a_change_entry_edited_into_other_json_types(url: str, edit: str) -> None:
    Ledger.from_url(url, witness=None).close()
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            seq, raw = conn.execute(
                text(
                    "SELECT seq, event FROM mg_audit_event WHERE action = 'ledger.change' "
                    "ORDER BY seq LIMIT 1"
                )
            ).one()
            event = json.loads(raw)
            EDITS[edit](event)
            conn.execute(
                text("UPDATE mg_audit_event SET event = :e WHERE seq = :s"),
                {"e": json.dumps(event), "s": seq},
            )
    finally:
        engine.dispose()
    ledger = Ledger.from_url(url, witness=None)
    try:
        report = ledger.verify()  # raised before the fix
        assert not report.ok
        assert any(p.kind is ProblemKind.EDITED for p in report.problems), report.problems
    finally:
        ledger.close()


#: JSON values an edit puts in place of a field (lists and objects where strings were, and so on)
VALUES: list[Any] = [None, [], {}, "x", 1, -1, 1.5, True, [["a"]], [{"a": 1}], {"a": [1]},
                     2**70, ["x"], {"ops": "x"}]  # fmt: skip


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at] if at else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        out += _paths(inner, (*at, key))
    return out


def test_random_edits_of_logged_events_are_reported_never_fatal(tmp_path: Path) -> None:
    """A ledger with writes, reads and a revocation; 40 seeded edits of one field of one change
    entry's JSON into another JSON type (where the replay reads types): each ledger opens and
    ``verify`` reports it (on 8d79f91 some of them raised from the open or from verify)."""
    from memguard import LocalTokenService, MemoryGuard, Source, SourceKind, Turn
    from memguard.revocation import RevocationSelector
    from memguard.stores.memory import InMemoryStore

    built = tmp_path / "built.db"
    tokens = LocalTokenService(tmp_path / "keys")
    guard = MemoryGuard(store=InMemoryStore(dimension=384), verifier=tokens.verifier(),
                        ledger=Ledger.from_url(f"sqlite:///{built}", witness=None))  # fmt: skip
    alice = guard.authenticate(tokens.issue("alice"))
    ids = [guard.write(alice, f"note {i} on Lisbon trams", namespace="notes",
                       source=Source(kind=SourceKind.WEB, uri="https://x.example/p"),
                       turn=Turn(session_id="s1", turn_index=i)).fact_id for i in range(3)]  # fmt: skip
    guard.search(alice, "Lisbon", k=5)
    guard.get(alice, ids[0])
    guard.revoke(alice, RevocationSelector.source("https://x.example/p"), reason="test")
    guard.close()
    engine = create_engine(f"sqlite:///{built}")
    with engine.connect() as conn:
        events = [tuple(r) for r in conn.execute(text(
            "SELECT seq, event FROM mg_audit_event WHERE action = 'ledger.change'"))]  # fmt: skip
    engine.dispose()
    rnd = __import__("random").Random(31)
    for n in range(40):
        seq, raw = rnd.choice(events)
        event = json.loads(raw)
        *parents, last = rnd.choice(_paths(event))
        holder = event
        for key in parents:
            holder = holder[key]
        holder[last] = json.loads(json.dumps(rnd.choice(VALUES)))
        if json.dumps(event, sort_keys=True) == json.dumps(json.loads(raw), sort_keys=True):
            continue  # (the same value put back: no edit)
        copy = tmp_path / f"edit{n}.db"
        copy.write_bytes(built.read_bytes())
        url = f"sqlite:///{copy}"
        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("UPDATE mg_audit_event SET event = :e WHERE seq = :s"),
                         {"e": json.dumps(event), "s": seq})  # fmt: skip
        engine.dispose()
        ledger = Ledger.from_url(url, witness=None)
        try:
            report = ledger.verify()
            assert not report.ok, (seq, holder, last)
        finally:
            ledger.close()


def _edit_change_entries(db: Path, fact_id: str, edit: Any) -> None:
    """Apply ``edit`` to the JSON of every change entry that names ``fact_id`` (around the log)."""
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.begin() as conn:
            rows = conn.execute(
                text("SELECT seq, event FROM mg_audit_event WHERE action = 'ledger.change'")
            ).all()
            for seq, raw in rows:
                if fact_id in raw:
                    event = json.loads(raw)
                    edit(event)
                    conn.execute(text("UPDATE mg_audit_event SET event = :e WHERE seq = :s"),
                                 {"e": json.dumps(event, separators=(",", ":")), "s": seq})  # fmt: skip
    finally:
        engine.dispose()


def test_a_read_of_a_fact_whose_entry_holds_a_list_fact_id_alarms(tmp_path: Path) -> None:
    """The read path's entry scan read ``fact_ids`` with ``dict.fromkeys``: a list in it raised
    ``TypeError``, recorded as the caller's ``invalid_request``, with no integrity alarm."""
    from memguard import LocalTokenService, MemoryGuard, Source, SourceKind, Turn
    from memguard.errors import FactNotFound
    from memguard.stores.memory import InMemoryStore

    db, store = tmp_path / "l.db", InMemoryStore(dimension=384)
    tokens = LocalTokenService(tmp_path / "keys")

    def guard() -> MemoryGuard:
        return MemoryGuard(store=store, verifier=tokens.verifier(),
                           ledger=Ledger.from_url(f"sqlite:///{db}", witness=None))  # fmt: skip

    g = guard()
    alice = g.authenticate(tokens.issue("alice"))
    fact = g.write(alice, "Lisbon trams run late", namespace="notes",
                   source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=Turn(session_id="s1", turn_index=1))  # fmt: skip
    g.close()
    _edit_change_entries(db, fact.fact_id, lambda ev: ev["fact_ids"].append(["x"]))
    g = guard()
    try:
        alice = g.authenticate(tokens.issue("alice"))
        with pytest.raises(FactNotFound):
            g.get(alice, fact.fact_id)
        assert g.search(alice, "Lisbon trams", k=3) == []
        with g.ledger.engine.connect() as conn:
            decided = conn.execute(text(
                "SELECT action, decision, reason FROM mg_audit_event WHERE action IN ('get', 'search')"
            )).all()  # fmt: skip
        assert ("get", "alarm", "integrity.unlogged_row") in decided, decided
        assert ("search", "alarm", "integrity.unlogged_row") in decided, decided
    finally:
        g.close()


def test_incremental_verify_reports_a_row_key_edited_into_a_list(tmp_path: Path) -> None:
    """``verify --incremental`` replays the entries after its marker with its own ``_apply``:
    a row key holding a list raised ``TypeError`` there (exit 1, not 4)."""
    from memguard import Source, SourceKind, Turn
    from memguard.embedded import open_embedded
    from memguard.ledger.cli import ledger_app

    state = tmp_path / "state"

    def write(start: int) -> list[str]:
        stack = open_embedded(state, dimension=8)
        try:
            alice = stack.guard.authenticate(stack.tokens.issue("alice", ttl=600))
            return [stack.guard.write(alice, f"Alice fact {i}", namespace="n",
                                      source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
                                      turn=Turn(session_id="s", turn_index=i),
                                      vector=[float(i + 1)] * 8).fact_id
                    for i in range(start, start + 2)]  # fmt: skip
        finally:
            stack.close()

    def verify(*args: str) -> int:
        saved = structlog.get_config()
        try:
            got = CliRunner().invoke(ledger_app, ["verify", "--json", "--state-dir", str(state), *args])
        finally:
            structlog.configure(**saved)
        return got.exit_code

    write(0)
    assert verify() == ExitCode.OK  # the marker of a clean full verify
    late = write(2)

    def key_to_list(ev: dict[str, Any]) -> None:
        for op in ev["detail"]["ops"]:
            if op.get("t") == "mg_provenance":
                op["key"]["fact_id"] = [op["key"]["fact_id"]]

    _edit_change_entries(state / "ledger.db", late[0], key_to_list)
    assert verify("--incremental") == ExitCode.VERIFY_FAILED
    assert verify() == ExitCode.VERIFY_FAILED
