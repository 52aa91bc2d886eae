"""``MemoryGuard.write`` / ``write_many`` (and their async twins) with ``ttl=``: the time-to-live is
recorded in the provenance (``expires_at`` / ``ttl_seconds``), an expired fact is never served and
is swept; a bad ``ttl`` is refused inside the write's operation (nothing written, a deny event).

Real parts: the in-memory store of ``guard_harness``, a SQLite ledger, signed tokens; a clock the
test moves decides what has expired."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import Clock

from memguard import AsyncMemoryGuard, FactNotFound, InvalidRequest, Source, SourceKind
from memguard.expiry import MAX_TTL_SECONDS, ttl_seconds_of
from memguard.guard import FactInput
from memguard.ledger import FactState
from memguard.provenance import Turn
from memguard.testing import GuardHarness, guard_harness

CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")
TURN = Turn(session_id="s", turn_index=0)


@pytest.fixture
def harness(tmp_path: Path, clock: Clock) -> Iterator[GuardHarness]:
    with guard_harness(tmp_path, clock=clock, dimension=16, scan=False) as h:
        yield h


def test_ttl_seconds_of_accepts_seconds_and_timedeltas_rounding_up() -> None:
    assert ttl_seconds_of(None) is None
    assert ttl_seconds_of(60) == 60
    assert ttl_seconds_of(0.2) == 1
    assert ttl_seconds_of(90.5) == 91
    assert ttl_seconds_of(timedelta(minutes=2)) == 120
    assert ttl_seconds_of(MAX_TTL_SECONDS) == MAX_TTL_SECONDS


@pytest.mark.parametrize(
    "bad",
    [0, -5, 0.0, math.nan, math.inf, -math.inf, True, False, "60", MAX_TTL_SECONDS + 1,
     timedelta(0), timedelta(seconds=-1), 10**400],
)  # fmt: skip
def test_ttl_seconds_of_refuses_bad_values(bad: object) -> None:
    with pytest.raises(InvalidRequest):
        ttl_seconds_of(bad)


def _sync_write(h: GuardHarness, text: str, ttl: object) -> str:
    me = h.identity("alice")
    return h.guard.write(me, text, namespace="notes", source=CHAT, turn=TURN, ttl=ttl).fact_id  # type: ignore[arg-type]


def _async_write(h: GuardHarness, text: str, ttl: object) -> str:
    me = h.identity("alice")
    aguard = AsyncMemoryGuard(h.guard)
    prov = asyncio.run(aguard.write(me, text, namespace="notes", source=CHAT, turn=TURN, ttl=ttl))  # type: ignore[arg-type]
    return prov.fact_id


def _sync_many(h: GuardHarness, text: str, ttl: object) -> str:
    me = h.identity("alice")
    facts = [FactInput(text=text, namespace="notes", source=CHAT, turn=TURN)]
    return h.guard.write_many(me, facts, ttl=ttl)[0].fact_id  # type: ignore[arg-type]


def _async_many(h: GuardHarness, text: str, ttl: object) -> str:
    me = h.identity("alice")
    facts = [FactInput(text=text, namespace="notes", source=CHAT, turn=TURN)]
    return asyncio.run(AsyncMemoryGuard(h.guard).write_many(me, facts, ttl=ttl))[0].fact_id  # type: ignore[arg-type]


WRITERS = {"write": _sync_write, "awrite": _async_write, "write_many": _sync_many,
           "awrite_many": _async_many}  # fmt: skip


@pytest.mark.parametrize("how", sorted(WRITERS))
def test_a_write_with_ttl_expires_is_not_served_and_is_swept(
    harness: GuardHarness, clock: Clock, how: str
) -> None:
    guard, me = harness.guard, harness.identity("alice")
    fact_id = WRITERS[how](harness, "the door code is 4411", 60)
    plain = harness.write(me, "the office opens at 9")
    head = guard.ledger.latest([fact_id])[fact_id]
    assert head.provenance.ttl_seconds == 60
    assert head.provenance.expires_at is not None
    assert head.provenance.expires_at.timestamp() == pytest.approx(clock() + 60)
    assert guard.get(me, fact_id).fact_id == fact_id  # served before it expires
    assert {f.fact_id for f in guard.search(me, "door code", k=5)} == {fact_id, plain.fact_id}

    clock.advance(61)
    with pytest.raises(FactNotFound):
        guard.get(me, fact_id)
    assert [f.fact_id for f in guard.search(me, "door code", k=5)] == [plain.fact_id]
    listed, _ = guard.list_facts(me)
    assert [f.fact_id for f in listed] == [plain.fact_id]

    report = guard.sweep_expired(operator="ops")
    assert fact_id in report.deleted and plain.fact_id not in report.deleted
    assert guard.ledger.latest([fact_id])[fact_id].state is FactState.DELETED
    assert guard.store.retrieve([fact_id]) == []
    assert guard.get(me, plain.fact_id).fact_id == plain.fact_id


@pytest.mark.parametrize("how", sorted(WRITERS))
@pytest.mark.parametrize("bad", [0, -1, math.nan, True, MAX_TTL_SECONDS + 1])
def test_a_bad_ttl_is_refused_writes_nothing_and_is_audited(
    harness: GuardHarness, how: str, bad: object
) -> None:
    guard = harness.guard
    before = len(harness.events(action="write"))
    with pytest.raises(InvalidRequest):
        WRITERS[how](harness, f"never stored {how} {bad}", bad)
    denied = harness.events(action="write", decision="deny")
    assert len(harness.events(action="write")) == before + 1
    assert denied and denied[-1].reason == "invalid_request"
    me = harness.identity("alice")
    assert guard.list_facts(me)[0] == []


def test_a_write_without_ttl_records_no_expiry(harness: GuardHarness, clock: Clock) -> None:
    me = harness.identity("alice")
    prov = harness.write(me, "kept forever")
    assert prov.expires_at is None and prov.ttl_seconds is None
    clock.advance(10**7)
    assert harness.guard.sweep_expired(operator="ops").deleted == ()


def test_an_update_keeps_the_time_to_live_unless_given_one(harness: GuardHarness, clock: Clock) -> None:
    guard, me = harness.guard, harness.identity("alice")
    fact_id = _sync_write(harness, "the door code is 4411", 60)
    clock.advance(30)
    kept = guard.update(me, fact_id, "the door code is 5522", source=CHAT, turn=TURN)
    assert kept.ttl_seconds == 60  # an update never makes an expiring fact permanent
    assert kept.expires_at is not None and kept.expires_at.timestamp() == pytest.approx(clock() + 60)
    changed = guard.update(me, fact_id, "the door code is 6633", source=CHAT, turn=TURN, ttl=120)
    assert changed.ttl_seconds == 120
    clock.advance(100)
    assert guard.get(me, fact_id).provenance.version == changed.version  # the new window
    clock.advance(21)
    me = harness.identity("alice")
    with pytest.raises(FactNotFound):
        guard.get(me, fact_id)
    assert fact_id in guard.sweep_expired(operator="ops").deleted


def test_an_update_with_a_bad_ttl_changes_nothing_and_is_audited(harness: GuardHarness) -> None:
    guard, me = harness.guard, harness.identity("alice")
    prov = harness.write(me, "kept forever")
    with pytest.raises(InvalidRequest):
        asyncio.run(
            AsyncMemoryGuard(guard).update(me, prov.fact_id, "x", source=CHAT, turn=TURN, ttl=0)
        )
    denied = harness.events(action="update", decision="deny")
    assert denied and denied[-1].reason == "invalid_request"
    assert guard.get(me, prov.fact_id).provenance.version == prov.version


def test_sql_adapter_add_with_ttl_expires_and_is_swept_from_the_table(
    tmp_path: Path, clock: Clock
) -> None:
    from memguard import Ledger, LocalTokenService, MemoryGuard
    from memguard.adapters.sql import GuardedSqlMemory, SqlStore
    from memguard.context import CallContext

    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    store = SqlStore(engine=ledger.engine, dimension=16)
    with MemoryGuard(store=store, ledger=ledger, verifier=tokens.verifier(clock=clock),
                     clock=clock) as guard:  # fmt: skip
        me = guard.authenticate(tokens.issue("alice"))
        mem = GuardedSqlMemory(guard, identity=me, context=CallContext(source=CHAT, turn=TURN))
        short = mem.add("the door code is 4411", namespace="notes", ttl=timedelta(minutes=1))
        kept = mem.add("the office opens at 9", namespace="notes")
        assert short.provenance.ttl_seconds == 60 and kept.provenance.ttl_seconds is None
        assert short.memguard["expires_at"] == short.provenance.expires_at.isoformat()  # type: ignore[union-attr]
        assert {r.id for r in mem.search("door code", k=5)} == {short.id, kept.id}
        with pytest.raises(InvalidRequest):
            mem.add("never stored", namespace="notes", ttl=-1)
        assert guard.ledger.events(decision="deny")[-1].reason == "invalid_request"

        clock.advance(61)
        with pytest.raises(FactNotFound):
            mem.get(short.id)
        assert [r.id for r in mem.search("door code", k=5)] == [kept.id]
        assert [r.id for r in mem.search("door", k=5, contains=["door"])] == []
        assert [r.id for r in mem.list()[0]] == [kept.id]
        assert guard.sweep_expired(operator="ops").deleted == (short.id,)
        assert store.retrieve([short.id]) == [] and store.retrieve([kept.id]) != []
