"""A commit of new versions supersedes the older committed versions of the same facts with one
statement per distinct new version number (memguard/ledger/supersede.py), not one per fact: the
same rows change and the commit's change entry logs the same ops, in the same order, as the
per-fact statements did (kept here as the reference), on SQLite and on the real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from helpers import pg_schema_url
from sqlalchemy import and_, event, func, select

from memguard import Ledger, Source, SourceKind, Turn
from memguard.events import AuditEvent, Decision
from memguard.identity import PrincipalId
from memguard.ledger import ledger as ledger_module
from memguard.ledger import supersede as supersede_module
from memguard.ledger.changelog import CHANGE_ACTION, ChangeSet
from memguard.ledger.records import FactState
from memguard.ledger.tables import AuditEventRow, ProvenanceRow
from memguard.provenance import Provenance, WriterChain, sha256_digest
from memguard.trust import TrustLevel

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_ME = PrincipalId(issuer="https://issuer.example", subject="alice")
_T0 = datetime(2026, 12, 7, 12, 0, 0, tzinfo=UTC)


def _prov(fact_id: str, version: int) -> Provenance:
    return Provenance(
        fact_id=fact_id, version=version, namespace="notes", owner=_ME,
        source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="s", turn_index=0),
        trust=TrustLevel.USER, trust_reason="test", writer=WriterChain(subject=_ME, token_jti="j"),
        created_at=_T0, content_digest=sha256_digest(f"{fact_id}/{version}".encode()),
        policy_digest=sha256_digest(b"p"),
    )  # fmt: skip


def _per_fact(conn: Any, records: Sequence[Provenance], changes: ChangeSet) -> None:
    """The statements before the batched one: one ``UPDATE`` per record of a version > 1."""
    for prov in records:
        if prov.version > 1:
            changes.update(
                conn,
                _PROV,
                and_(
                    _PROV.c.fact_id == prov.fact_id,
                    _PROV.c.version < prov.version,
                    func.coalesce(_PROV.c.state, "") == FactState.COMMITTED.value,
                ),
                {"state": FactState.SUPERSEDED.value},
            )


def _write(ledger: Ledger, records: list[Provenance]) -> None:
    ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                    fact_ids=tuple(dict.fromkeys(p.fact_id for p in records)))  # fmt: skip
    ledger.begin(records)
    ledger.commit(records, [ev])


def _story(ledger: Ledger) -> tuple[list[tuple[str, int, str]], list[Any]]:
    """Versions written over three commits; the rows' states and the commits' logged ops."""
    _write(ledger, [_prov(f, 1) for f in "abcdef"])
    ev = AuditEvent(action="delete", decision=Decision.ALLOW, reason="ok", fact_ids=("d",))
    ledger.mark_deleted(["d"], [ev])  # d's first version is deleted, not committed
    # e jumps to 3; b twice in one batch (2 and 3); f's second version, then its third later
    _write(ledger, [_prov("e", 3), _prov("b", 2), _prov("a", 2), _prov("d", 2),
                    _prov("b", 3), _prov("f", 2)])  # fmt: skip
    _write(ledger, [_prov("f", 3), _prov("c", 2), _prov("a", 3)])
    _write(ledger, [_prov("g", 1)])  # nothing to supersede
    with ledger.engine.connect() as conn:
        rows = [(str(r[0]), int(r[1]), str(r[2])) for r in conn.execute(
            select(_PROV.c.fact_id, _PROV.c.version, _PROV.c.state)
            .order_by(_PROV.c.fact_id, _PROV.c.version))]  # fmt: skip
        texts = conn.execute(
            select(_EVENT.c.event).where(_EVENT.c.action == CHANGE_ACTION).order_by(_EVENT.c.seq)
        ).scalars().all()
    entries = [AuditEvent.model_validate_json(t) for t in texts]
    ops = [(e.reason, e.fact_ids, e.detail["ops"]) for e in entries if e.reason == "fact.commit"]
    return rows, ops


@pytest.fixture
def two_ledgers(ledger_url: str) -> Iterator[tuple[Ledger, Ledger]]:
    """Two ledgers on one backend: SQLite files side by side, or two PostgreSQL schemas."""
    if ledger_url.startswith("sqlite"):
        other = ledger_url.replace("ledger.db", "reference.db")
        a, b = Ledger.from_url(ledger_url, witness=None), Ledger.from_url(other, witness=None)
        yield a, b
        a.close(), b.close()
        return
    with pg_schema_url() as other:
        a, b = Ledger.from_url(ledger_url, witness=None), Ledger.from_url(other, witness=None)
        yield a, b
        a.close(), b.close()


def test_batched_supersede_changes_and_logs_what_per_fact_statements_did(
    two_ledgers: tuple[Ledger, Ledger], monkeypatch: pytest.MonkeyPatch
) -> None:
    batched, reference = two_ledgers
    monkeypatch.setattr(supersede_module, "CHUNK", 2)  # several statements per version too
    got = _story(batched)
    monkeypatch.setattr(ledger_module, "supersede", _per_fact)
    want = _story(reference)
    assert got == want
    rows = {(f, v): s for f, v, s in got[0]}
    assert rows[("b", 1)] == rows[("b", 2)] == "superseded" and rows[("b", 3)] == "committed"
    assert rows[("d", 1)] == "deleted" and rows[("d", 2)] == "committed"
    assert rows[("e", 1)] == "superseded" and rows[("e", 3)] == "committed"
    assert [s for (f, _), s in rows.items() if f == "a"] == ["superseded", "superseded", "committed"]
    assert sum(s == "committed" for s in rows.values()) == 7  # one per fact
    logged = [[(op["key"]["fact_id"], op["key"]["version"]) for op in ops
               if op["row"] == {"state": "superseded"}] for _, _, ops in got[1]]  # fmt: skip
    assert logged[1] == [("e", 1), ("b", 1), ("a", 1), ("b", 2), ("f", 1)]  # statement order


def test_one_update_per_distinct_new_version(sqlite_ledger: Ledger) -> None:
    """64 second versions are superseded by one statement (it was 64)."""
    ids = [f"fact-{i:02d}" for i in range(64)]
    _write(sqlite_ledger, [_prov(f, 1) for f in ids])
    seen: list[str] = []

    def count(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE MG_PROVENANCE SET STATE"):
            seen.append(statement)

    event.listen(sqlite_ledger.engine, "before_cursor_execute", count)
    _write(sqlite_ledger, [_prov(f, 2) for f in ids])
    # the pending -> committed change, then the superseding (one statement)
    assert len(seen) == 2
    _write(sqlite_ledger, [_prov(f, 3 + i % 2) for i, f in enumerate(ids)])  # versions 3 and 4
    assert len(seen) == 2 + 3
    with sqlite_ledger.engine.connect() as conn:
        states = conn.execute(
            select(_PROV.c.state, func.count()).group_by(_PROV.c.state)
        ).all()
    assert dict((str(s), int(n)) for s, n in states) == {"committed": 64, "superseded": 128}
