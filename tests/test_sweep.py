"""The general expiry sweep: ``MemoryGuard.sweep_expired`` / ``AsyncMemoryGuard.sweep_expired`` and
``memguard sweep``. Facts with a time-to-live are written through the kernel's write protocol into
the guard's own store (what an adapter with a TTL does); a clock the test moves decides what has
expired. Real parts: the in-memory store of ``guard_harness``, a SQLite ledger, signed tokens; the
CLI runs on a real embedded state folder (qdrant-edge) and ``memguard ledger verify`` checks the log.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from helpers import Clock
from typer.testing import CliRunner

from memguard import AsyncMemoryGuard, FactNotFound, MemguardError, MemoryGuard, Source, SourceKind
from memguard.cli import app
from memguard.embedded import open_embedded
from memguard.identity import Identity
from memguard.kernel import StampRequest
from memguard.ledger import FactState
from memguard.ports import StorePort
from memguard.provenance import Provenance, Turn, content_digest
from memguard.stores.base import MemoryStore, StoredPoint, build_payload
from memguard.stores.memory import InMemoryStore
from memguard.testing import GuardHarness, guard_harness

CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")


def write_ttl(
    guard: MemoryGuard, me: Identity, text: str, ttl: int | None, store: MemoryStore | None = None
) -> Provenance:
    """One fact with a time-to-live, through the kernel's write protocol into ``store``."""
    target = store if store is not None else guard.store
    with guard.kernel.operation("write", me) as op:
        (record,) = op.stamp([StampRequest(
            namespace="notes", source=CHAT, turn=Turn(session_id="s", turn_index=0),
            content_digest=content_digest(text, {}), text=text, ttl_seconds=ttl,
        )])  # fmt: skip
        vector = guard.embedder.embed([text])[0]
        point = StoredPoint(record.fact_id, build_payload(text, {}, record), vector)
        op.persist([record], StorePort(target, lambda _: [point]))
    return record


@pytest.fixture
def harness(tmp_path: Path, clock: Clock) -> Iterator[GuardHarness]:
    with guard_harness(tmp_path, clock=clock, dimension=16, scan=False) as h:
        yield h


def _state(guard: MemoryGuard, fact_id: str) -> tuple[FactState, bool]:
    head = guard.ledger.latest([fact_id])[fact_id]
    return head.state, head.purged


def test_sweep_deletes_the_expired_keeps_the_rest_and_the_log_verifies(
    harness: GuardHarness, clock: Clock
) -> None:
    guard, me = harness.guard, harness.identity("alice")
    short = write_ttl(guard, me, "the door code is 4411", 60)
    long = write_ttl(guard, me, "the office opens at 9", 3600)
    plain = harness.write(me, "no expiry on this one")
    other_store = InMemoryStore(dimension=16)  # another backend on the same ledger
    foreign = write_ttl(guard, me, "kept by another backend", 60, store=other_store)
    clock.advance(120)

    dry = guard.sweep_expired(operator="ops", dry_run=True)
    assert dry.dry_run and dry.due == (short.fact_id,) and dry.deleted == ()
    assert dry.elsewhere == (foreign.fact_id,)
    assert _state(guard, short.fact_id) == (FactState.COMMITTED, False)  # nothing changed
    assert not harness.events(action="expire")

    report = guard.sweep_expired(operator="ops")
    assert report.deleted == (short.fact_id,) and report.elsewhere == (foreign.fact_id,)
    assert _state(guard, short.fact_id) == (FactState.DELETED, True)
    assert guard.store.retrieve([short.fact_id]) == []
    with pytest.raises(FactNotFound):
        guard.get(me, short.fact_id)
    for kept in (long, plain):  # unexpired and never-expiring facts stay readable
        assert guard.get(me, kept.fact_id).text
    assert _state(guard, foreign.fact_id) == (FactState.COMMITTED, False)  # not ours to tombstone
    assert other_store.retrieve([foreign.fact_id])
    (event,) = harness.events(action="expire")
    assert event.decision.value == "allow" and event.fact_ids == (short.fact_id,)
    assert event.detail["operator"] == "ops" and event.principal is None

    assert guard.sweep_expired(operator="ops").deleted == ()  # nothing left to do
    clock.advance(3600)
    assert guard.sweep_expired(operator="ops", batch=1).deleted == (long.fact_id,)
    guard.ledger.log.flush()
    verified = guard.ledger.verify(store=guard.store)
    tamper = [(p.kind.value, p.table, p.key) for p in verified.problems if p.severity == "tamper"]
    # the one finding: the foreign fact is committed but not in this store (it lives elsewhere)
    assert tamper == [("row_deleted", "store", {"fact_id": foreign.fact_id})], tamper


def test_the_latest_version_decides(harness: GuardHarness, clock: Clock) -> None:
    guard, me = harness.guard, harness.identity("alice")
    fact = write_ttl(guard, me, "expires unless rewritten", 60)
    guard.update(me, fact.fact_id, "rewritten with a longer time-to-live", source=CHAT,
                 turn=harness.turn(), ttl=3600)  # fmt: skip
    clock.advance(120)
    report = guard.sweep_expired(operator="ops")
    assert report.due == () and report.deleted == ()
    assert guard.get(me, fact.fact_id).text == "rewritten with a longer time-to-live"


def test_two_sweeps_at_once_delete_a_fact_once(
    harness: GuardHarness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep lists candidates before its operation opens; the operation decides again, so a
    fact another sweep deleted in between (here: right after the store lookup) is not deleted twice."""
    guard, me = harness.guard, harness.identity("alice")
    fact = write_ttl(guard, me, "the door code is 4411", 60)
    clock.advance(120)
    retrieve = guard.store.retrieve
    inner: list[Any] = []

    def retrieve_then_other_sweep(fact_ids: Any) -> Any:
        found = retrieve(fact_ids)
        if not inner:
            inner.append(None)
            inner[0] = guard.sweep_expired(operator="other")
        return found

    monkeypatch.setattr(guard.store, "retrieve", retrieve_then_other_sweep)
    report = guard.sweep_expired(operator="ops")
    monkeypatch.undo()
    assert inner[0].deleted == (fact.fact_id,)
    assert report.due == (fact.fact_id,) and report.deleted == ()
    events = harness.events(action="expire")
    assert [(e.decision.value, e.detail["operator"]) for e in events] == [
        ("allow", "other"), ("allow", "ops")
    ]
    assert events[0].fact_ids == (fact.fact_id,) and events[1].detail["why"] == "nothing due"
    assert _state(guard, fact.fact_id) == (FactState.DELETED, True)
    # a fact another sweep purged before the store lookup is not reported as another backend's
    late = write_ttl(guard, me, "the office opens at 9", 60)
    clock.advance(120)
    inner.clear()

    def other_sweep_then_retrieve(fact_ids: Any) -> Any:
        if not inner:
            inner.append(None)
            inner[0] = guard.sweep_expired(operator="other")
        return retrieve(fact_ids)

    monkeypatch.setattr(guard.store, "retrieve", other_sweep_then_retrieve)
    report = guard.sweep_expired(operator="ops")
    monkeypatch.undo()
    assert inner[0].deleted == (late.fact_id,) and report.elsewhere == () and report.due == ()


def test_a_failed_purge_leaves_the_fact_tombstoned_and_audited(
    harness: GuardHarness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, me = harness.guard, harness.identity("alice")
    fact = write_ttl(guard, me, "the door code is 4411", 60)
    clock.advance(120)

    def broken(fact_ids: Any) -> None:
        raise OSError("store down")

    monkeypatch.setattr(guard.store, "delete", broken)
    with pytest.raises(MemguardError):
        guard.sweep_expired(operator="ops")
    assert _state(guard, fact.fact_id) == (FactState.DELETED, False)  # tombstoned first
    with pytest.raises(FactNotFound):
        guard.get(me, fact.fact_id)
    decisions = [e.decision.value for e in harness.events(action="expire")]
    assert decisions == ["allow", "deny"]  # the tombstone's event, then the failure's
    monkeypatch.undo()
    assert fact.fact_id in guard.recover().purged  # recovery finishes the purge
    assert guard.store.retrieve([fact.fact_id]) == []


def test_a_ledger_failure_deletes_nothing_and_is_denied(
    harness: GuardHarness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, me = harness.guard, harness.identity("alice")
    fact = write_ttl(guard, me, "the door code is 4411", 60)
    clock.advance(120)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("ledger down")

    monkeypatch.setattr(guard.ledger, "mark_deleted", broken)
    with pytest.raises(MemguardError):
        guard.sweep_expired(operator="ops")
    monkeypatch.undo()
    assert _state(guard, fact.fact_id) == (FactState.COMMITTED, False)
    assert guard.store.retrieve([fact.fact_id])  # nothing purged without a tombstone
    with pytest.raises(FactNotFound):  # and still never served: it has expired
        guard.get(me, fact.fact_id)
    assert [e.decision.value for e in harness.events(action="expire")] == ["deny"]


def test_bad_arguments_are_refused(harness: GuardHarness) -> None:
    with pytest.raises(MemguardError):
        harness.guard.sweep_expired(operator="")
    with pytest.raises(MemguardError):
        harness.guard.sweep_expired(operator="ops", batch=0)


def test_the_async_twin_sweeps_the_same(harness: GuardHarness, clock: Clock) -> None:
    guard, me = harness.guard, harness.identity("alice")
    fact = write_ttl(guard, me, "the door code is 4411", 60)
    keep = write_ttl(guard, me, "the office opens at 9", 3600)
    clock.advance(120)
    seen: list[int] = []
    report = asyncio.run(AsyncMemoryGuard(guard).sweep_expired(operator="ops", on_batch=seen.append))
    assert report.deleted == (fact.fact_id,) and sum(seen) == 2
    assert _state(guard, keep.fact_id) == (FactState.COMMITTED, False)


# -- memguard sweep -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _keep_logging_config() -> Iterator[None]:
    """The CLI callback points structlog at the runner's (soon closed) stderr; put it back after."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def cli(*args: str | Path) -> tuple[int, str]:
    got = CliRunner().invoke(app, [str(a) for a in args])
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        raise got.exception
    return got.exit_code, got.stdout


def test_the_sweep_command_on_an_embedded_state_folder(tmp_path: Path) -> None:
    state = tmp_path / "state"
    stack = open_embedded(state, scan=False)
    try:
        guard = stack.guard
        me = guard.authenticate(stack.tokens.issue("alice"))
        guard.kernel.clock = lambda: time.time() - 7200  # written two hours ago
        gone = write_ttl(guard, me, "the door code is 4411", 60)
        kept = write_ttl(guard, me, "the office opens at 9", 30 * 24 * 3600)
    finally:
        stack.close()

    code, out = cli("sweep", "--state-dir", state, "--dry-run", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["format"] == "memguard.sweep/v1" and data["dry_run"] is True
    assert data["due"] == [gone.fact_id] and data["deleted"] == []

    code, out = cli("sweep", "--state-dir", state, "--json")
    assert code == 0, out
    assert json.loads(out)["deleted"] == [gone.fact_id]
    code, out = cli("sweep", "--state-dir", state)
    assert code == 0 and out.startswith("deleted 0 expired facts")

    code, out = cli("ledger", "verify", "--state-dir", state, "--json")
    assert code == 0, out
    stack = open_embedded(state, scan=False)
    try:
        heads = stack.guard.ledger.latest([gone.fact_id, kept.fact_id])
        assert heads[gone.fact_id].state is FactState.DELETED and heads[gone.fact_id].purged
        assert heads[kept.fact_id].state is FactState.COMMITTED
        assert stack.guard.store.retrieve([gone.fact_id]) == []
    finally:
        stack.close()

    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = cli("sweep", "--state-dir", empty, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "state.no_ledger"
