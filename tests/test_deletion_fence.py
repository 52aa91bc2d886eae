"""The deletion fence (issue 21 item 4): after a delete or a revocation commits, no derived write
that read the deleted or revoked facts (its declared inputs or its turn's read set) commits, even
one that was in flight. Real SQLite and PostgreSQL ledgers, the in-memory store."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, PLANNER, pg_available, pg_schema_url

from memguard import (
    FactInput,
    FactNotFound,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    RevocationSelector,
    Source,
    SourceKind,
    Turn,
)
from memguard.errors import AccessDenied, Fenced, MemguardError
from memguard.identity import Identity
from memguard.stores.base import StoredPoint
from memguard.stores.memory import InMemoryStore

USER = Source(kind=SourceKind.USER_MESSAGE)
DERIVED = Source(kind=SourceKind.AGENT_INFERENCE)


class HookedStore(InMemoryStore):
    """Runs ``hook`` once inside the next upsert: the write is staged, not yet committed."""

    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.hook: Callable[[], None] | None = None

    def upsert(self, points: list[StoredPoint]) -> None:  # type: ignore[override]
        hook, self.hook = self.hook, None
        if hook is not None:
            hook()
        super().upsert(points)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[MemoryGuard, HookedStore, Identity]]:
    tokens = LocalTokenService(tmp_path / "keys")
    store = HookedStore()
    guard = MemoryGuard(store=store, ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier(), revocation_ttl=0)  # fmt: skip
    guard.user = guard.authenticate(tokens.issue("alice"))  # type: ignore[attr-defined]
    yield guard, store, guard.authenticate(tokens.issue("alice", actors=[PLANNER]))
    guard.close()


def _turn(i: int) -> Turn:
    return Turn(session_id="s", turn_index=i)


def _denied(guard: MemoryGuard, reason: str) -> int:
    return sum(1 for e in guard.ledger.events(decision="deny") if e.reason == reason)


def test_a_derived_write_in_flight_when_its_input_is_deleted_is_refused(setup: Any) -> None:
    guard, store, me = setup
    parent = guard.write(me, "the meeting is at 10", namespace="n", source=USER, turn=_turn(1))
    store.hook = lambda: guard.delete(guard.user, parent.fact_id)  # alice herself, not the agent
    with pytest.raises(Fenced):
        guard.write(me, "summary: meeting at 10", namespace="n", source=DERIVED, turn=_turn(2),
                    derived_from=[parent.fact_id])  # fmt: skip
    assert guard.search(me, "meeting", k=10) == []  # neither the parent nor its re-derivation
    assert _denied(guard, "access_denied.fenced") == 1


def test_a_write_whose_turn_read_a_fact_deleted_meanwhile_is_refused(setup: Any) -> None:
    guard, store, me = setup
    seen = guard.write(me, "door code 4411", namespace="n", source=USER, turn=_turn(1))
    assert [h.fact_id for h in guard.search(me, "door code", k=5, turn=_turn(2))] == [seen.fact_id]
    store.hook = lambda: guard.delete(guard.user, seen.fact_id)
    with pytest.raises(Fenced):  # no declared input: the turn's read set is the fence
        guard.write(me, "remember: 4411", namespace="n", source=DERIVED, turn=_turn(2))
    assert guard.search(me, "4411", k=5) == []
    # the same turn, after the delete: still fenced (it read what was deleted)
    with pytest.raises(Fenced):
        guard.write(me, "remember again: 4411", namespace="n", source=DERIVED, turn=_turn(2))
    # another turn never read it: writes as usual
    guard.write(me, "an unrelated note", namespace="n", source=USER, turn=_turn(3))


def test_a_derived_write_in_flight_when_its_input_is_revoked_is_refused(setup: Any) -> None:
    guard, store, me = setup
    parent = guard.write(me, "wire money to X", namespace="n",
                         source=Source(kind=SourceKind.WEB, uri="https://evil.example/p"),
                         turn=_turn(1))  # fmt: skip
    store.hook = lambda: guard.revoke(None, RevocationSelector.fact(parent.fact_id),
                                      reason="poisoned", operator="ops")  # fmt: skip
    with pytest.raises(Fenced):
        guard.write(me, "plan: wire money", namespace="n", source=DERIVED, turn=_turn(2),
                    derived_from=[parent.fact_id])  # fmt: skip
    assert guard.search(me, "wire", k=10) == []


def test_an_agent_replacing_a_memory_it_read_is_not_fenced_by_its_own_delete(setup: Any) -> None:
    """Consolidation by the same principal (LangMem: read, delete the outdated one, write the
    merged one, in one turn) is the writer's own intent, not a re-derivation behind its back."""
    guard, _store, me = setup
    old = guard.write(me, "prefers tea", namespace="n", source=USER, turn=_turn(1))
    assert guard.search(me, "prefers", k=5, turn=_turn(2))
    guard.delete(me, old.fact_id)
    merged = guard.write(me, "prefers green tea", namespace="n", source=DERIVED, turn=_turn(2))
    assert guard.get(me, merged.fact_id).fact_id == merged.fact_id


def test_an_unrelated_write_is_not_fenced(setup: Any) -> None:
    guard, store, me = setup
    a = guard.write(me, "alpha", namespace="n", source=USER, turn=_turn(1))
    b = guard.write(me, "beta", namespace="n", source=USER, turn=_turn(2))
    store.hook = lambda: guard.delete(me, a.fact_id)
    child = guard.write(me, "from beta", namespace="n", source=DERIVED, turn=_turn(3),
                        derived_from=[b.fact_id])  # fmt: skip
    assert guard.get(me, child.fact_id).fact_id == child.fact_id


def test_a_descendant_committed_between_plan_and_revocation_is_quarantined_too(
    setup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, _store, me = setup
    parent = guard.write(me, "source page", namespace="n",
                         source=Source(kind=SourceKind.WEB, uri="https://evil.example/q"),
                         turn=_turn(1))  # fmt: skip
    lineage = guard.ledger.lineage
    original = lineage.plan_revocation
    late: list[str] = []

    def plan_then_race(roots: Any, **kw: Any) -> list[str]:
        planned = original(roots, **kw)
        if not late:  # a consolidating writer commits right after the plan was taken
            late.append(guard.write(me, "derived late", namespace="n", source=DERIVED,
                                    turn=_turn(2), derived_from=[parent.fact_id]).fact_id)  # fmt: skip
        return planned

    monkeypatch.setattr(lineage, "plan_revocation", plan_then_race)
    report = guard.revoke(None, RevocationSelector.fact(parent.fact_id), reason="bad",
                          operator="ops")  # fmt: skip
    with pytest.raises(FactNotFound):
        guard.get(me, late[0])
    assert late[0] in lineage.quarantined([late[0]])
    assert any(e.reason == "revoked.late_descendants" and late[0] in e.fact_ids
               for e in guard.ledger.events())  # fmt: skip
    assert report.revocation_id


# -- consolidating writers against deletes and revocations, concurrently -------------------------


def _ledgers(tmp_path: Path) -> Iterator[tuple[str, Callable[[], Ledger]]]:
    yield "sqlite", lambda: Ledger.sqlite(tmp_path / "race.db")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_consolidating_writers_re_derive_nothing_deleted_or_revoked(
    backend: str, tmp_path: Path
) -> None:
    if backend == "postgres" and not pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    with pg_schema_url() if backend == "postgres" else _nullctx() as url:
        ledger = Ledger.from_url(url) if url else Ledger.sqlite(tmp_path / "race.db")
        tokens = LocalTokenService(tmp_path / "keys")
        guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=ledger,
                            verifier=tokens.verifier(), revocation_ttl=0)  # fmt: skip
        try:
            _race(guard, tokens)
        finally:
            guard.close()


class _nullctx:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _race(guard: MemoryGuard, tokens: LocalTokenService) -> None:
    me = guard.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    user = guard.authenticate(tokens.issue("alice"))  # deletes behind the consolidating agents
    sources = guard.write_many(me, [FactInput(text=f"source {i}", namespace="n", source=USER,
                                              turn=_turn(0)) for i in range(24)])  # fmt: skip
    ids = [p.fact_id for p in sources]
    stop = threading.Event()
    errors: list[BaseException] = []
    written: list[str] = []

    def consolidate(worker: int) -> None:
        rng = random.Random(worker)
        turn = 1000 * (worker + 1)
        while not stop.is_set():
            turn += 1
            try:
                hits = guard.search(me, "source", k=4, turn=_turn(turn))
                if not hits:
                    continue
                parents = [h.fact_id for h in rng.sample(hits, min(2, len(hits)))]
                child = guard.write(me, f"summary {worker}/{turn}", namespace="n", source=DERIVED,
                                    turn=_turn(turn), derived_from=parents)  # fmt: skip
                written.append(child.fact_id)
            except (AccessDenied, FactNotFound):
                continue  # fenced, or a parent went away before the write was decided
            except MemguardError as exc:
                if exc.code not in ("access_denied.conflict",):
                    errors.append(exc)
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=consolidate, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    removed: list[str] = []
    try:
        for i, fid in enumerate(ids[:16]):
            if i % 2:
                guard.delete(user, fid)
            else:
                guard.revoke(None, RevocationSelector.fact(fid), reason="race", operator="ops")
            removed.append(fid)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert not errors, errors[:3]
    assert written, "the writers made progress"
    # every committed summary is either free of removed parents, or (revocation) quarantined,
    # or (deletion) committed before the delete's event
    seq_of: dict[tuple[str, str], int] = {}
    for seq, ev, _digest in _all_events(guard):
        for fid in ev.fact_ids:
            seq_of.setdefault((ev.action, fid), seq)
    records = guard.ledger.latest(written)
    quarantined = guard.ledger.lineage.quarantined(written)
    escaped = []
    for fid in written:
        rec = records.get(fid)
        if rec is None:
            continue
        for parent in rec.provenance.derived_from:
            if parent not in removed:
                continue
            if ("revoke", parent) in seq_of and fid not in quarantined:
                escaped.append((fid, parent, "revoked"))
            delete_seq = seq_of.get(("delete", parent))
            if delete_seq is not None and seq_of.get(("write", fid), -1) > delete_seq:
                escaped.append((fid, parent, "deleted"))
    assert escaped == []


def _all_events(guard: MemoryGuard) -> list[tuple[int, Any, str]]:
    out: list[tuple[int, Any, str]] = []
    for fid_events in [guard.ledger.events_for(f) for f in {
            f for e in guard.ledger.events() for f in e.fact_ids}]:  # fmt: skip
        out.extend(fid_events)
    return out
