"""LangGraph TTL through the guard: the expiry is part of the fact's provenance, the kernel never
serves an expired fact, a read's refresh is a logged new version, the sweep deletes through the
kernel's delete path (tombstone + audit event). Real parts: LangGraph's ``InMemoryStore``, a
SQLite ledger, signed tokens, a clock the test moves (the kernel's; tokens use the same one).
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="the `langgraph` extra")

from helpers import Clock
from langgraph.store.base import GetOp, PutOp, Result, SearchOp
from langgraph.store.memory import InMemoryStore

from memguard import InvalidRequest, Ledger, LocalTokenService, Source, SourceKind, TrustLevel, Turn
from memguard.adapters.langgraph import GuardedStore
from memguard.context import CallContext
from memguard.errors import MemguardError
from memguard.identity import PrincipalId
from memguard.kernel import Kernel
from memguard.ledger import FactState
from memguard.ledger.verification import verify_ledger
from memguard.provenance import Provenance, WriterChain

NS = ("memories",)
CHAT = Source(kind=SourceKind.USER_MESSAGE, name="chat")
WEB = Source(kind=SourceKind.WEB, uri="https://example.org/")


def ctx(turn: int = 0) -> CallContext:
    return CallContext(source=CHAT, turn=Turn(session_id="s-1", turn_index=turn))


class Spy(InMemoryStore):
    """An InMemoryStore that remembers the ops it was given (and can fail its puts)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []
        self.fail_puts = False

    def batch(self, ops: Any) -> list[Result]:
        ops = list(ops)
        self.seen.extend(ops)
        if self.fail_puts and any(isinstance(o, PutOp) for o in ops):
            raise RuntimeError("store down")
        return super().batch(ops)

    async def abatch(self, ops: Any) -> list[Result]:
        return self.batch(ops)


@pytest.fixture
def kernel(tmp_path: Path, tokens: LocalTokenService, clock: Clock) -> Kernel:
    return Kernel(
        ledger=Ledger.sqlite(tmp_path / "ledger.db"),
        verifier=tokens.verifier(clock=clock),
        clock=clock,
    )


@pytest.fixture
def inner() -> Spy:
    return Spy()


def make(kernel: Kernel, tokens: LocalTokenService, inner: Spy, who: str = "alice", **kw: Any) -> GuardedStore:
    me = kernel.authenticate(tokens.issue(who, ttl=3600))
    return GuardedStore(inner, kernel=kernel, identity=me, context=ctx(), **kw)


def latest(kernel: Kernel, store: GuardedStore, key: str) -> Any:
    fact_id = store.fact_id(NS, key)
    return kernel.ledger.latest([fact_id])[fact_id]


# -- the provenance field -------------------------------------------------------------------------


def _record(**extra: Any) -> Provenance:
    return Provenance(
        fact_id="f-1",
        version=1,
        namespace="memories",
        owner=PrincipalId(issuer="https://issuer.example", subject="alice"),
        source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
        turn=Turn(session_id="s-1", turn_index=0),
        trust=TrustLevel.USER,
        trust_reason="source user_message default user",
        writer=WriterChain(
            subject=PrincipalId(issuer="https://issuer.example", subject="alice"), token_jti="j-1"
        ),
        created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        content_digest="sha256:" + "0" * 64,
        policy_digest="sha256:" + "1" * 64,
        **extra,
    )


def test_a_record_without_an_expiry_keeps_its_digest_byte_for_byte() -> None:
    # the digest of this record before the expiry fields existed (memguard at d914662)
    record = _record()
    assert b"expires_at" not in record.canonical() and b"ttl_seconds" not in record.canonical()
    assert record.record_digest == (
        "sha256:d9a0c3fe95b29a91b4ac581381592aa4dd9519c54384aa223cc59bfb877dd4e6"
    )
    # with an expiry the record says so, and the fields round-trip
    expiring = _record(expires_at=datetime(2026, 1, 2, 4, 4, 5, tzinfo=UTC), ttl_seconds=3600)
    assert expiring.record_digest != record.record_digest
    again = Provenance.model_validate_json(expiring.canonical())
    assert again.record_digest == expiring.record_digest
    assert again.expired(datetime(2026, 1, 2, 4, 4, 5, tzinfo=UTC).timestamp())
    assert not again.expired(datetime(2026, 1, 2, 4, 4, 4, tzinfo=UTC).timestamp())
    with pytest.raises(ValueError):
        _record(ttl_seconds=60)  # an expiry needs both fields


# -- never served ---------------------------------------------------------------------------------


@pytest.mark.parametrize("pushdown", [False, True], ids=["kernel-only", "pushed-down"])
def test_an_expired_item_is_never_served_on_any_read_path(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock, pushdown: bool
) -> None:
    ttl = {"refresh_on_read": False} if pushdown else None
    store = make(kernel, tokens, inner, ttl=ttl)
    store.put(NS, "short", {"text": "short-lived"}, ttl=1)  # one minute
    store.put(NS, "long", {"text": "kept"})
    # positive control: both are served before the minute is up (these reads do not refresh;
    # without a ttl_config LangGraph's default is to refresh)
    clock.advance(59)
    assert store.get(NS, "short", refresh_ttl=False) is not None
    assert {i.key for i in store.search(NS, refresh_ttl=False)} == {"short", "long"}
    clock.advance(2)
    assert store.get(NS, "short") is None
    assert asyncio.run(store.aget(NS, "short")) is None
    assert store.batch([GetOp(NS, "short")]) == [None]
    assert [i.key for i in store.search(NS)] == ["long"]
    assert [i.key for i in asyncio.run(store.asearch(NS))] == ["long"]
    assert [i.key for i in store.search(NS, min_trust="user", purpose="answer")] == ["long"]
    with pytest.raises(MemguardError):
        store.provenance(NS, "short")
    assert latest(kernel, store, "short").state is FactState.COMMITTED  # withheld, not deleted
    searches = [o for o in inner.seen if isinstance(o, SearchOp)]
    pushed = [o for o in searches if o.filter and "__memguard_expires_at" in o.filter]
    assert bool(pushed) is pushdown and (not pushdown or len(pushed) == len(searches))
    withheld = [e for e in kernel.ledger.events(decision="allow") if e.detail.get("why") == "expired"]
    assert withheld  # the kernel's check withheld it (audited), on every path without push-down


def test_ttl_config_gives_the_default_ttl_and_bad_ttls_are_refused(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    store = make(kernel, tokens, inner, ttl={"default_ttl": 2, "refresh_on_read": False})
    assert store.supports_ttl and store.ttl_config == {"default_ttl": 2, "refresh_on_read": False}
    store.put(NS, "d", {"text": "default ttl"})
    store.put(NS, "n", {"text": "no ttl"}, ttl=None)
    prov = store.provenance(NS, "d")
    assert prov.ttl_seconds == 120 and prov.expires_at is not None
    assert store.provenance(NS, "n").expires_at is None
    clock.advance(121)
    assert store.get(NS, "d") is None and store.get(NS, "n") is not None
    for bad in (0, -1, float("nan"), "5", True):
        with pytest.raises(InvalidRequest):
            store.batch([PutOp(NS, "b", {"v": 1}, ttl=bad)])  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        make(kernel, tokens, inner, ttl={"default_ttl": -1})
    with pytest.raises(InvalidRequest):
        make(kernel, tokens, inner, ttl={"unknown": 1})  # type: ignore[typeddict-unknown-key]
    assert store.get(NS, "b") is None


# -- refresh on read ------------------------------------------------------------------------------


def test_a_read_refreshes_the_expiry_through_a_logged_new_version(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    store = make(kernel, tokens, inner, ttl={"refresh_on_read": True})
    store.put(NS, "k", {"text": "refreshed"}, ttl=1)
    store.put(NS, "still", {"text": "not read"}, ttl=1)
    first = store.provenance(NS, "k")  # a get: refreshes (nothing to move yet: below the step)
    assert latest(kernel, store, "k").version == 1
    clock.advance(45)
    assert store.get(NS, "k") is not None  # refresh_on_read: a new version, expiry now + 60
    head = latest(kernel, store, "k")
    assert head.version == 2 and head.state is FactState.COMMITTED
    renewed = head.provenance
    assert renewed.expires_at is not None and first.expires_at is not None
    assert (renewed.expires_at - first.expires_at).total_seconds() == 45
    assert renewed.content_digest == first.content_digest and renewed.trust == first.trust
    assert renewed.writer == first.writer and renewed.created_at == first.created_at
    refreshes = [e for e in kernel.ledger.events(decision="allow") if e.action == "refresh"]
    assert refreshes and refreshes[-1].fact_ids == (store.fact_id(NS, "k"),)
    clock.advance(30)  # 75 s after the write: the refreshed one lives, the other expired
    assert store.get(NS, "k", refresh_ttl=False) is not None
    assert store.get(NS, "still") is None
    # a search refreshes what it returns; refresh_ttl=False does not
    assert [i.key for i in store.search(NS, refresh_ttl=False)] == ["k"]
    assert latest(kernel, store, "k").version == 2
    assert [i.key for i in store.search(NS)] == ["k"]
    assert latest(kernel, store, "k").version == 3
    clock.advance(10)
    assert [i.key for i in asyncio.run(store.asearch(NS))] == ["k"]  # the async shell too
    assert latest(kernel, store, "k").version == 4
    clock.advance(59)
    assert [i.key for i in store.search(NS, refresh_ttl=False)] == ["k"]
    clock.advance(2)
    assert store.search(NS) == [] and store.get(NS, "k") is None  # an expired fact is not renewed
    assert latest(kernel, store, "k").version == 4
    report = verify_ledger(kernel.ledger)
    assert report.ok, report.problems


def test_a_refresh_that_cannot_be_stored_is_a_deny_and_changes_nothing(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    store = make(kernel, tokens, inner)
    store.put(NS, "k", {"text": "x"}, ttl=1)
    clock.advance(30)
    inner.fail_puts = True
    with pytest.raises(MemguardError):
        store.get(NS, "k")  # the refresh (a write) fails: refused, audited
    assert kernel.ledger.events(decision="deny")[-1].action == "refresh"
    inner.fail_puts = False
    head = latest(kernel, store, "k")
    assert head.version == 1 and head.state is FactState.COMMITTED  # the new version was aborted
    assert store.get(NS, "k", refresh_ttl=False) is not None
    clock.advance(31)
    assert store.get(NS, "k") is None  # the failed refresh did not extend it


# -- sweep ----------------------------------------------------------------------------------------


def test_the_sweep_deletes_expired_items_with_a_tombstone_and_an_audit_event(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    alice = make(kernel, tokens, inner)
    bob = make(kernel, tokens, inner, who="bob")
    alice.put(NS, "gone", {"text": "a"}, ttl=1)
    bob.put(NS, "gone", {"text": "b"}, ttl=1)
    alice.put(NS, "later", {"text": "c"}, ttl=10)
    alice.put(NS, "kept", {"text": "d"})
    assert alice.sweep_ttl() == 0  # nothing has expired yet (positive control below)
    clock.advance(61)
    assert alice.sweep_ttl() == 2  # the operator's sweep: every tenant
    for store in (alice, bob):
        head = latest(kernel, store, "gone")
        assert head.state is FactState.DELETED and head.purged
    assert len(inner.search(())) == 2  # the inner copies are gone; "later" and "kept" remain
    expire = [e for e in kernel.ledger.events(decision="allow") if e.action == "expire"]
    assert set(expire[-1].fact_ids) == {alice.fact_id(NS, "gone"), bob.fact_id(NS, "gone")}
    assert latest(kernel, alice, "later").state is FactState.COMMITTED
    assert asyncio.run(alice.asweep_ttl()) == 0
    clock.advance(600)
    assert asyncio.run(alice.asweep_ttl()) == 1
    assert [i.key for i in alice.search(NS)] == ["kept"]
    report = verify_ledger(kernel.ledger)
    assert report.ok, report.problems


def test_the_sweep_does_not_delete_what_the_ledger_says_is_alive(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    store = make(kernel, tokens, inner)
    store.put(NS, "k", {"text": "x"}, ttl=1)
    # an edited store copy claims the item expired long ago: the kernel decides from the ledger
    (item,) = inner.search(())
    inner.put(item.namespace, item.key, {**item.value, "__memguard_expires_at": "0" * 15})
    assert store.sweep_ttl() == 0
    assert latest(kernel, store, "k").state is FactState.COMMITTED
    clock.advance(61)
    assert store.sweep_ttl() == 1


def test_the_sweeper_thread_sweeps_until_stopped(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    store = make(kernel, tokens, inner, ttl={"sweep_interval_minutes": 0.001})
    store.put(NS, "k", {"text": "x"}, ttl=1)
    clock.advance(61)
    future = store.start_ttl_sweeper()
    assert store.start_ttl_sweeper() is future
    deadline = time.monotonic() + 20
    while latest(kernel, store, "k").state is not FactState.DELETED:
        assert time.monotonic() < deadline, "the sweeper did not run"
        time.sleep(0.05)
    assert store.stop_ttl_sweeper(timeout=10)
    assert future.done()


# -- min_trust names ------------------------------------------------------------------------------


def test_min_trust_takes_trust_names(kernel: Kernel, tokens: LocalTokenService, inner: Spy) -> None:
    store = make(kernel, tokens, inner)
    store.put(NS, "chat", {"text": "from chat"})
    store.with_context(source=WEB, turn=Turn(session_id="s-1", turn_index=1)).put(
        NS, "web", {"text": "from the web"}
    )
    assert [i.key for i in store.search(NS, min_trust="user")] == ["chat"]
    assert [i.key for i in asyncio.run(store.asearch(NS, min_trust="user"))] == ["chat"]
    assert {i.key for i in store.search(NS, min_trust="untrusted")} == {"chat", "web"}
    assert store.search(NS, min_trust="system") == []
    assert [i.key for i in store.search(NS, min_trust=TrustLevel.USER)] == ["chat"]
    for bad in ("trusted", "USER", ""):
        with pytest.raises(ValueError, match="unknown trust level"):
            store.search(NS, min_trust=bad)
    with pytest.raises(ValueError, match="one of: system, verified, user"):
        asyncio.run(store.asearch(NS, min_trust="admin"))


def test_an_expired_fact_cannot_be_named_as_an_input(
    kernel: Kernel, tokens: LocalTokenService, inner: Spy, clock: Clock
) -> None:
    # the kernel's visible_records (inputs of a derived write, Qdrant's retrieve) withholds it too
    store = make(kernel, tokens, inner)
    store.put(NS, "src", {"text": "short-lived source"}, ttl=1)
    fact_id = store.fact_id(NS, "src")
    derived = store.with_context(derived_from=[fact_id], turn=Turn(session_id="s-1", turn_index=1))
    derived.put(NS, "ok", {"text": "derived while the source lives"})  # positive control
    clock.advance(61)
    with pytest.raises(MemguardError) as caught:
        derived.put(NS, "late", {"text": "derived from an expired source"})
    assert caught.value.code == "not_found"
    assert kernel.ledger.events(decision="deny")[-1].detail.get("why") == "expired"


def test_refresh_and_sweep_with_a_postgresql_ledger(
    pg_url: str, tokens: LocalTokenService, clock: Clock
) -> None:
    # the same two scenarios, the ledger on a real PostgreSQL server (skipped without one)
    kernel = Kernel(ledger=Ledger.from_url(pg_url), verifier=tokens.verifier(clock=clock), clock=clock)
    try:
        test_a_read_refreshes_the_expiry_through_a_logged_new_version(kernel, tokens, Spy(), clock)
        test_the_sweep_deletes_expired_items_with_a_tombstone_and_an_audit_event(
            kernel, tokens, Spy(), clock
        )
    finally:
        kernel.ledger.close()
