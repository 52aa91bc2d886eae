"""Red team (stop 30), end to end on SQLite and PostgreSQL with real tokens: the residual plan's
verdict cache across principals, a row tampered between two reads, a read after a revocation, and
a read whose driver-level allow event fails half-way (memguard/ledger/readevent.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import FactNotFound, MemguardError
from memguard.ledger import readlinks
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)
NS = "shared"


def _guard(ledger_url: str, tokens: LocalTokenService, clock: Callable[[], float]) -> MemoryGuard:
    return MemoryGuard(store=InMemoryStore(dimension=384), ledger=Ledger.from_url(ledger_url),
                       verifier=tokens.verifier(clock=clock), clock=clock)  # fmt: skip


def _write(guard: MemoryGuard, who: Any, body: str) -> str:
    fact = guard.write(who, body, namespace=NS, source=SRC, turn=Turn(session_id="s", turn_index=0))
    return str(fact.fact_id)


def _events(guard: MemoryGuard, decision: str) -> list[dict[str, Any]]:
    with guard.ledger.engine.connect() as conn:
        rows = conn.execute(text("SELECT event FROM mg_audit_event WHERE decision = :d ORDER BY seq"),
                            {"d": decision}).scalars().all()  # fmt: skip
    return [json.loads(r) for r in rows]


def test_one_principals_cached_verdicts_never_serve_another(
    ledger_url: str, tokens: LocalTokenService, clock: Callable[[], float]
) -> None:
    guard = _guard(ledger_url, tokens, clock)
    try:
        alice = guard.authenticate(tokens.issue("alice"))
        bob = guard.authenticate(tokens.issue("bob"))
        mine = _write(guard, alice, "the vault code is 1234")
        theirs = _write(guard, bob, "the vault code is 1234")
        for _ in range(3):  # cold, then every verdict from the cache, in both orders
            for who, own, other in ((alice, mine, theirs), (bob, theirs, mine)):
                got = [f.fact_id for f in guard.search(who, "the vault code", k=5, namespaces=[NS])]
                assert got == [own]
                assert guard.get(who, own) is not None
                with pytest.raises(FactNotFound):
                    guard.get(who, other)
    finally:
        guard.close()


def test_a_record_edited_between_two_reads_is_never_served(
    ledger_url: str, tokens: LocalTokenService, clock: Callable[[], float]
) -> None:
    """Bob's fact read (its record parsed, its fields and verdicts cached), then its record text
    rewritten to name alice as owner: alice never gets it; an alarm is recorded."""
    guard = _guard(ledger_url, tokens, clock)
    try:
        alice = guard.authenticate(tokens.issue("alice"))
        bob = guard.authenticate(tokens.issue("bob"))
        fid = _write(guard, bob, "bob's secret plan")
        assert guard.get(bob, fid) is not None
        with guard.ledger.engine.begin() as conn:
            edited = conn.execute(text(
                "UPDATE mg_provenance SET record = replace(record, '\"bob\"', '\"alice\"'), "
                "owner_sub = 'alice' WHERE fact_id = :f AND record LIKE '%\"bob\"%'"), {"f": fid})  # fmt: skip
            assert edited.rowcount == 1
        with pytest.raises(MemguardError):
            guard.get(alice, fid)
        assert guard.search(alice, "bob's secret plan", k=5, namespaces=[NS]) == []
        assert any(e["decision"] == "alarm" for e in _events(guard, "alarm"))
    finally:
        guard.close()


def test_a_read_after_a_revocation_never_serves_the_revoked_fact(
    ledger_url: str, tokens: LocalTokenService, clock: Callable[[], float]
) -> None:
    guard = _guard(ledger_url, tokens, clock)
    try:
        alice = guard.authenticate(tokens.issue("alice"))
        fid = _write(guard, alice, "a note from a poisoned page")
        for _ in range(2):  # warm: the record, its fields and its verdicts cached
            assert [f.fact_id for f in guard.search(alice, "a note", k=3, namespaces=[NS])] == [fid]
        guard.revoke(alice, RevocationSelector.fact(fid), reason="poisoned")
        assert guard.search(alice, "a note", k=3, namespaces=[NS]) == []
        with pytest.raises(MemguardError):
            guard.get(alice, fid)
    finally:
        guard.close()


def test_a_read_whose_fact_links_fail_commits_no_allow_and_returns_nothing(
    tmp_path: Any, tokens: LocalTokenService, clock: Callable[[], float], monkeypatch: Any
) -> None:
    """The driver-level allow event: the event row and its leaf inserted, then the batch of fact
    links (memguard/ledger/readlinks.py) that falls in this read's transaction fails. The read
    raises, a deny is recorded, and no allow event of that read is left without its leaf."""
    guard = _guard(f"sqlite:///{tmp_path / 'l.db'}", tokens, clock)
    try:
        alice = guard.authenticate(tokens.issue("alice"))
        fid = _write(guard, alice, "a fact to read")
        assert guard.get(alice, fid) is not None
        allows = len(_events(guard, "allow"))
        original = readlinks.flush
        failed: list[int] = []

        def failing_links(dbapi: Any, known: Any = {}) -> int:  # noqa: B006
            try:
                monkeypatch.setattr(readlinks, "_INSERT", real.replace("mg_audit_fact",
                                                                       "mg_no_such_table"))
                return original(dbapi, known)
            except Exception:
                failed.append(len(known))
                raise
            finally:
                monkeypatch.setattr(readlinks, "_INSERT", real)

        real = readlinks._INSERT
        monkeypatch.setattr(readlinks, "flush", failing_links)
        monkeypatch.setattr(readlinks, "BATCH", 1)  # every read's transaction runs the batch
        with pytest.raises(MemguardError):
            guard.get(alice, fid)
        with pytest.raises(MemguardError):
            guard.search(alice, "a fact to read", k=3, namespaces=[NS])
        monkeypatch.undo()
        assert len(failed) == 2  # both failed at the links, after the event row and its leaf
        assert len(_events(guard, "allow")) == allows  # no allow of the failed reads committed
        denied = _events(guard, "deny")[-2:]
        assert [e["action"] for e in denied] == ["get", "search"]
        assert guard.ledger.verify().ok
    finally:
        guard.close()
