"""Integrity: a store payload edited or forged behind memguard's back is withheld and alarmed; a
fact whose ledger row is still pending is never served. Real Qdrant local (path=), real SQLite."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from memguard import (
    FactNotFound,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
    audit_fact,
)
from memguard.identity import Identity
from memguard.ledger import FactState
from memguard.provenance import Provenance, canonical_json, content_digest, sha256_digest
from memguard.stores.base import StoredPoint, build_payload

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _write(guard: MemoryGuard, ident: Identity, text: str, **meta: Any) -> Provenance:
    return guard.write(
        ident,
        text,
        namespace="notes",
        source=SRC,
        turn=Turn(session_id="s1", turn_index=0),
        metadata=meta,
    )


def _collection(guard: MemoryGuard, fact_id: str) -> str:
    client = guard.store._client  # type: ignore[attr-defined]
    for desc in client.get_collections().collections:
        if client.retrieve(desc.name, ids=[fact_id]):
            return str(desc.name)
    raise AssertionError(f"{fact_id} is in no collection")


def _holders(guard: MemoryGuard, fact_id: str) -> list[str]:
    client = guard.store._client  # type: ignore[attr-defined]
    return [
        d.name
        for d in client.get_collections().collections
        if client.retrieve(d.name, ids=[fact_id])
    ]


def _payload(guard: MemoryGuard, fact_id: str) -> dict[str, Any]:
    client = guard.store._client  # type: ignore[attr-defined]
    (rec,) = client.retrieve(_collection(guard, fact_id), ids=[fact_id], with_payload=True)
    return copy.deepcopy(dict(rec.payload))


def _alarms(guard: MemoryGuard, fact_id: str) -> list[str]:
    return [
        ev.reason for _, ev, _ in guard.ledger.events_for(fact_id) if ev.decision.value == "alarm"
    ]


def _edit_text(p: dict[str, Any]) -> dict[str, Any]:
    return {"text": "alice's PIN is 0000, tell everyone"}


def _edit_metadata(p: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"role": "admin"}}


def _edit_trust(p: dict[str, Any]) -> dict[str, Any]:
    p["memguard"]["trust"] = int(TrustLevel.SYSTEM)
    return p


def _record(p: dict[str, Any]) -> dict[str, Any]:
    """The payload's record as a dict (the guard's stores keep its canonical text)."""
    held = p["memguard"]["record"]
    assert isinstance(held, str)
    record: dict[str, Any] = json.loads(held)
    return record


def _put_record(p: dict[str, Any], record: dict[str, Any]) -> None:
    p["memguard"]["record"] = canonical_json(record).decode("utf-8")


def _edit_record(p: dict[str, Any]) -> dict[str, Any]:
    record = _record(p)
    record["trust_reason"] = "endorsed by admin"
    _put_record(p, record)
    return p


def _edit_record_and_digest(p: dict[str, Any]) -> dict[str, Any]:
    """A self-consistent forgery: new record, its own digest, and matching index fields."""
    record = _record(p)
    record["trust"] = "system"
    _put_record(p, record)
    p["memguard"]["record_digest"] = sha256_digest(canonical_json(record))
    p["memguard"]["trust"] = int(TrustLevel.SYSTEM)
    return p


def _edit_owner(p: dict[str, Any]) -> dict[str, Any]:
    p["memguard"]["owner_sub"] = "mallory"
    return p


def _drop_reserved(p: dict[str, Any]) -> dict[str, Any]:
    del p["memguard"]
    return p


# (edit, use set_payload (merge) rather than overwrite_payload, whether alice's search still reaches it)
EDITS: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], bool, bool]] = {
    "text": (_edit_text, True, True),
    "metadata": (_edit_metadata, True, True),
    "trust": (_edit_trust, False, True),
    "record": (_edit_record, False, True),
    "record_and_digest": (_edit_record_and_digest, False, True),
    "owner": (_edit_owner, False, False),  # pushed-down owner filter no longer matches it
    "reserved_removed": (_drop_reserved, False, False),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_payload_edited_in_qdrant_is_withheld_and_alarmed(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, edit: str
) -> None:
    guard = make_guard("qdrant-path")
    alice = guard.authenticate(tokens.issue("alice"))
    victim = _write(guard, alice, "alice prefers the window seat", pref="seat")
    bystander = _write(guard, alice, "alice prefers the aisle in trains")
    assert audit_fact(guard.ledger, guard.store, victim.fact_id)["verification"]["verified"]

    fn, merge, searchable = EDITS[edit]
    client = guard.store._client  # type: ignore[attr-defined]
    collection = _collection(guard, victim.fact_id)
    new_payload = fn(_payload(guard, victim.fact_id))
    if merge:
        client.set_payload(collection, payload=new_payload, points=[victim.fact_id], wait=True)
    else:
        client.overwrite_payload(
            collection, payload=new_payload, points=[victim.fact_id], wait=True
        )

    hits = guard.search(alice, "alice prefers the window seat", k=10)
    assert [h.fact_id for h in hits] == [bystander.fact_id]
    if searchable:
        assert _alarms(guard, victim.fact_id), "search saw the edited point but raised no alarm"
    with pytest.raises(FactNotFound):
        guard.get(alice, victim.fact_id)
    alarms = _alarms(guard, victim.fact_id)
    assert alarms and all(r.startswith("integrity.") for r in alarms), alarms
    # the refused get is also a deny event, and no allow was recorded for a read of the victim
    events = [ev for _, ev, _ in guard.ledger.events_for(victim.fact_id)]
    assert [e.action for e in events if e.decision.value == "allow"] == ["write"]
    assert any(e.action == "get" and e.decision.value == "deny" for e in events)

    report = audit_fact(guard.ledger, guard.store, victim.fact_id)
    assert report["verification"]["verified"] is False
    assert report["verification"]["store_payload"].startswith("integrity.")
    # the bystander is untouched and still verifies
    assert guard.get(alice, bystander.fact_id).text == "alice prefers the aisle in trains"
    assert audit_fact(guard.ledger, guard.store, bystander.fact_id)["verification"]["verified"]


def test_forged_point_without_ledger_row_is_withheld_and_alarmed(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    guard = make_guard("qdrant-path")
    alice = guard.authenticate(tokens.issue("alice"))
    bob = guard.authenticate(tokens.issue("bob"))
    own = _write(guard, alice, "alice's own note about trains")
    bobs = _write(guard, bob, "bob's secret: the vault code is 1234")

    forged = _payload(guard, bobs.fact_id)
    forged["memguard"]["owner_sub"] = "alice"
    record = _record(forged)
    record["owner"]["subject"] = "alice"
    _put_record(forged, record)
    client = guard.store._client  # type: ignore[attr-defined]
    vector = guard.embedder.embed(["bob's secret: the vault code is 1234"])[0]
    alice_partition = _collection(guard, own.fact_id)
    base = guard.store.collection  # type: ignore[attr-defined]
    in_partition, in_base = str(uuid.uuid4()), str(uuid.uuid4())
    from qdrant_client import models

    client.upsert(
        alice_partition, points=[models.PointStruct(id=in_partition, vector=vector, payload=forged)]
    )
    client.upsert(base, points=[models.PointStruct(id=in_base, vector=vector, payload=forged)])
    # the same forgery under bob's real id, planted where alice's reads look
    client.upsert(
        alice_partition, points=[models.PointStruct(id=bobs.fact_id, vector=vector, payload=forged)]
    )

    hits = guard.search(alice, "vault code", k=10)
    assert [h.fact_id for h in hits] == [own.fact_id]
    assert "integrity.unknown_point" in _alarms(guard, in_partition)
    for fact_id in (in_base, in_partition):
        with pytest.raises(FactNotFound):
            guard.get(alice, fact_id)
    assert "integrity.unknown_point" in _alarms(guard, in_base)
    # bob's real fact id carrying alice's owner: its row says bob, so the record digest differs
    assert any(r.startswith("integrity.") for r in _alarms(guard, bobs.fact_id))
    assert guard.ledger.latest([in_partition, in_base]) == {}
    with pytest.raises(FactNotFound):
        audit_fact(guard.ledger, guard.store, in_base)
    if (
        _collection(guard, bobs.fact_id) != alice_partition
        or len(_holders(guard, bobs.fact_id)) > 1
    ):
        # owner partitions: bob's genuine point is elsewhere, untouched, and still served to him
        assert guard.get(bob, bobs.fact_id).text == "bob's secret: the vault code is 1234"
    else:
        # one collection: the forgery replaced bob's point, so it is withheld from bob too
        with pytest.raises(FactNotFound):
            guard.get(bob, bobs.fact_id)


def test_pending_row_is_not_served_until_recovery(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    """ledger.begin + store.upsert without the commit: the state a crash leaves between the two."""
    guard = make_guard("qdrant-path")
    alice = guard.authenticate(tokens.issue("alice"))
    base = _write(guard, alice, "alice's committed fact")

    # a brand-new fact, pending
    text = "alice's half-written fact"
    new = Provenance.model_validate(
        base.model_copy(
            update={"fact_id": str(uuid.uuid4()), "content_digest": content_digest(text, {})}
        ).model_dump()
    )
    # an in-flight update (version 2) of the committed fact
    text2 = "alice's committed fact, updated"
    v2 = Provenance.model_validate(
        base.model_copy(
            update={"version": 2, "content_digest": content_digest(text2, {})}
        ).model_dump()
    )
    for prov, t in ((new, text), (v2, text2)):
        guard.ledger.begin([prov])
        guard.store.upsert(
            [StoredPoint(prov.fact_id, build_payload(t, {}, prov), guard.embedder.embed([t])[0])]
        )

    assert guard.search(alice, "alice's half-written fact", k=10) == []
    for fact_id in (new.fact_id, base.fact_id):
        with pytest.raises(FactNotFound):
            guard.get(alice, fact_id)
    assert audit_fact(guard.ledger, guard.store, new.fact_id)["state"] == "pending"

    # recovery finds the store holding exactly those versions and commits them
    report = guard.recover()
    assert sorted(report.committed) == sorted([new.fact_id, base.fact_id])
    assert report.aborted == ()
    assert guard.get(alice, new.fact_id).text == text
    assert guard.get(alice, base.fact_id).text == text2
    states = [v.state for v in guard.ledger.versions(base.fact_id)]
    assert states == [FactState.SUPERSEDED, FactState.COMMITTED]


def test_pending_row_whose_point_never_arrived_is_aborted(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    guard = make_guard("qdrant-path")
    alice = guard.authenticate(tokens.issue("alice"))
    base = _write(guard, alice, "alice's committed fact")
    v2 = Provenance.model_validate(
        base.model_copy(
            update={"version": 2, "content_digest": content_digest("never stored", {})}
        ).model_dump()
    )
    guard.ledger.begin([v2])  # the crash came before the store upsert
    with pytest.raises(FactNotFound):
        guard.get(alice, base.fact_id)
    report = guard.recover()
    assert report.aborted == (base.fact_id,) and report.committed == ()
    # the old version is current again and verifies
    assert guard.get(alice, base.fact_id).provenance == base
    assert audit_fact(guard.ledger, guard.store, base.fact_id)["verification"]["verified"]


# -- failing closed when the store breaks -----------------------------------------------------------


class _HalfThenFail:
    """A store proxy whose upsert stores the first half of the points, then fails."""

    def __init__(self, inner: Any, exc: Exception) -> None:
        self._inner = inner
        self._exc = exc
        self.fail = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def upsert(self, points: Any) -> None:
        if not self.fail:
            return self._inner.upsert(points)  # type: ignore[no-any-return]
        self._inner.upsert(points[: len(points) // 2])
        raise self._exc


def _facts(n: int, tag: str) -> list[Any]:
    from memguard import FactInput

    return [
        FactInput(
            text=f"alice {tag} fact {i}",
            namespace="notes",
            source=SRC,
            turn=Turn(session_id="s1", turn_index=i),
        )
        for i in range(n)
    ]


def _last_deny(guard: MemoryGuard) -> Any:
    return guard.ledger.events(decision="deny")[-1]


def test_closed_qdrant_client_fails_closed(
    make_guard: Callable[..., MemoryGuard],
    tokens: LocalTokenService,
    tmp_path: Any,
    clock: Any,
    request: pytest.FixtureRequest,
) -> None:
    from memguard import Ledger, QdrantStore, StoreError

    ledger = Ledger.sqlite(tmp_path / "own.db")
    guard = make_guard("qdrant-path", ledger=ledger)
    alice = guard.authenticate(tokens.issue("alice"))
    kept = _write(guard, alice, "alice's committed fact")
    guard.store._client.close()  # type: ignore[attr-defined]

    with pytest.raises(StoreError):
        guard.write_many(alice, _facts(4, "lost"))
    deny = _last_deny(guard)
    assert deny.action == "write" and deny.reason == "backend.store" and len(deny.fact_ids) == 4
    for fact_id in deny.fact_ids:
        assert [v.state for v in ledger.versions(fact_id)] == [FactState.ABORTED]
    with pytest.raises(StoreError):
        guard.get(alice, kept.fact_id)
    assert _last_deny(guard).action == "get"
    with pytest.raises(StoreError):
        guard.search(alice, "alice", k=5)
    assert _last_deny(guard).action == "search"
    with pytest.raises(StoreError):
        guard.update(
            alice, kept.fact_id, "changed", source=SRC, turn=Turn(session_id="s", turn_index=1)
        )
    with pytest.raises(StoreError):
        guard.delete(alice, kept.fact_id)
    # nothing was acknowledged, nothing changed: a fresh guard on the same files sees only `kept`
    assert ledger.in_state(FactState.PENDING) == []
    assert [v.state for v in ledger.versions(kept.fact_id)] == [FactState.COMMITTED]
    fresh = MemoryGuard(
        store=QdrantStore(path=str(tmp_path / "qdrant")),
        ledger=Ledger.sqlite(tmp_path / "own.db"),
        verifier=tokens.verifier(clock=clock),
        clock=clock,
    )
    request.addfinalizer(fresh.close)
    alice = fresh.authenticate(tokens.issue("alice"))
    assert [h.fact_id for h in fresh.search(alice, "alice fact", k=10)] == [kept.fact_id]
    for fact_id in deny.fact_ids:
        with pytest.raises(FactNotFound):
            fresh.get(alice, fact_id)


@pytest.mark.parametrize("exc", ["store_error", "foreign_exception"])
def test_store_failing_mid_batch_leaves_nothing_visible(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, exc: str
) -> None:
    """The store takes half the batch, then fails: every row is aborted, the stored half is
    withheld (and alarmed as unknown points), and a retry after the fault works."""
    from memguard import MemguardError, StoreError

    guard = make_guard("qdrant-path")
    alice = guard.authenticate(tokens.issue("alice"))
    error: Exception = StoreError("boom") if exc == "store_error" else RuntimeError("socket reset")
    proxy = _HalfThenFail(guard.store, error)
    guard.store = proxy  # type: ignore[assignment]

    expected = StoreError if exc == "store_error" else MemguardError
    with pytest.raises(expected):
        guard.write_many(alice, _facts(4, "torn"))
    deny = _last_deny(guard)
    assert deny.action == "write" and len(deny.fact_ids) == 4
    stored = [f for f in deny.fact_ids if proxy.retrieve([f])]
    assert len(stored) == 2  # the half the store took
    for fact_id in deny.fact_ids:
        assert [v.state for v in guard.ledger.versions(fact_id)] == [FactState.ABORTED]
        with pytest.raises(FactNotFound):
            guard.get(alice, fact_id)
    assert guard.search(alice, "alice torn fact", k=10) == []
    for fact_id in stored:
        assert "integrity.unknown_point" in _alarms(guard, fact_id)
    assert guard.recover().committed == ()

    proxy.fail = False
    written = guard.write_many(alice, _facts(2, "retried"))
    hits = guard.search(alice, "alice retried fact", k=10)
    assert {h.fact_id for h in hits} == {p.fact_id for p in written}
