"""A policy that fails at run time is in the ledger, not only in the operational log: a reload
that does not validate, and a decision that raises, each write the ``policy`` meta row (a logged
change entry, so ``verify`` holds it) and a ``deny`` audit event (Ledger.policy_event)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock

from memguard import InMemoryStore, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import AccessDenied
from memguard.events import AuditEvent
from memguard.policy.resolver import PolicyResolver

POLICIES = Path(__file__).resolve().parent.parent / "policies"


def _meta(db: Path) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        (value,) = conn.execute("SELECT value FROM mg_ledger_meta WHERE key = 'policy'").fetchone()
    conn.close()
    return dict(json.loads(value))


def _policy_events(ledger: Ledger) -> list[AuditEvent]:
    return [e for e in ledger.events() if e.action.startswith("policy.")]


@pytest.fixture
def world(tmp_path: Path) -> Any:
    folder = tmp_path / "policies"
    shutil.copytree(POLICIES, folder)
    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    resolver = PolicyResolver.from_path(folder, clock=clock, reload_interval=1.0)
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger,
                        verifier=tokens.verifier(clock=clock), scope=resolver, clock=clock)  # fmt: skip
    me = guard.authenticate(tokens.issue("alice"))
    guard.write(me, "alice's note", namespace="user:alice", source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id="s", turn_index=0))  # fmt: skip
    yield guard, me, resolver, folder, clock, tmp_path / "ledger.db"
    guard.close()


def test_a_broken_reload_is_a_logged_deny_and_a_good_one_is_logged_too(world: Any) -> None:
    guard, me, resolver, folder, clock, db = world
    kept = resolver.digest
    assert _policy_events(guard.ledger) == []  # the set in force at start: in every event
    (folder / "broken.yaml").write_text("apiVersion: memguard/v1\nrules: [{id: oops}]\n")
    clock.advance(2)
    guard.search(me, "note", k=5)  # the next decision notices the change
    (failed,) = _policy_events(guard.ledger)
    assert failed.action == "policy.failed" and failed.decision.value == "deny"
    assert failed.policy_digest == kept and failed.detail["problems"]
    assert _meta(db)["status"] == "failed" and _meta(db)["policy_digest"] == kept
    assert guard.ledger.verify().ok  # the meta row is what its change entry says

    (folder / "broken.yaml").unlink()
    (folder / "extra.yaml").write_text(
        "apiVersion: memguard/v1\nrules:\n"
        "  - {id: no-web, effect: forbid, actions: [read], when: {attr: fact.source_kind, eq: web}}\n"
    )
    clock.advance(2)
    guard.search(me, "note", k=5)
    loaded = _policy_events(guard.ledger)[-1]
    assert loaded.action == "policy.loaded" and loaded.decision.value == "allow"
    assert loaded.policy_digest == resolver.digest != kept
    assert _meta(db) == {"status": "loaded", "policy_digest": resolver.digest, "problems": []}

    # the projection row is held by the log: an edit back to "loaded" of the failure is named
    guard.ledger.close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE mg_ledger_meta SET value = '{}' WHERE key = 'policy'")
    conn.close()
    again = Ledger.sqlite(db)
    try:
        report = again.verify()
        assert not report.ok
        assert any(p.table == "mg_ledger_meta" for p in report.problems)
    finally:
        again.close()


def test_an_evaluation_error_is_a_logged_deny_once(world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    guard, me, resolver, _, _, db = world

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a rule that cannot be evaluated")

    monkeypatch.setattr(resolver.engine, "candidates", broken)
    for _ in range(2):
        with pytest.raises(AccessDenied):
            guard.search(me, "note", k=5)
    (event,) = _policy_events(guard.ledger)  # once per set and error type, not per request
    assert event.action == "policy.evaluation_failed" and event.decision.value == "deny"
    assert event.detail["problems"] == ["evaluation error: RuntimeError"]
    assert _meta(db)["status"] == "evaluation_failed"
    assert any(e.action == "search" and e.decision.value == "deny" for e in guard.ledger.events())
    assert guard.ledger.verify().ok


def test_a_start_on_a_broken_set_is_logged(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "bad.yaml").write_text("apiVersion: memguard/v1\nrules: [{id: oops}]\n")
    resolver = PolicyResolver.from_path(folder, strict=False)
    tokens = LocalTokenService(tmp_path / "keys")
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier(), scope=resolver)  # fmt: skip
    try:
        (event,) = _policy_events(guard.ledger)
        assert event.action == "policy.failed" and event.decision.value == "deny"
    finally:
        guard.close()
