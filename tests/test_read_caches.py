"""The read path's caches never serve what the ledger no longer says (issue 16).

The read path keeps three caches: parsed change entries by (seq, leaf hash), each fact's logged head
by the exact (seq, leaf hash) links it was computed from, and parsed provenance by record text.
Each test warms them first (and checks they are warm), then changes or tampers with the ledger, and
checks the fact is withheld, alarmed or served in its new form; the warm cache's answer is also
compared with a cold computation, so a cache that kept a stale head fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memguard import FactInput, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import FactNotFound
from memguard.ledger import Ledger
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.replay import EntryCache, logged_heads
from memguard.provenance import Provenance
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService
from memguard.trust import TrustLevel

USER = Source(kind=SourceKind.USER_MESSAGE)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MemoryGuard, Any]]:
    from helpers import Clock

    clock = Clock()
    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier(clock=clock), clock=clock,
                        revocation_ttl=0)  # fmt: skip
    yield guard, guard.authenticate(tokens.issue("alice"))
    guard.close()


def _batch(guard: MemoryGuard, me: Any, n: int = 6) -> list[Provenance]:
    return guard.write_many(me, [FactInput(text=f"note {i}", namespace="travel", source=USER,
                                           turn=Turn(session_id="s", turn_index=1))
                                 for i in range(n)])  # fmt: skip


def _sql(guard: MemoryGuard, sql: str, **params: Any) -> None:
    from sqlalchemy import text

    with guard.ledger.engine.begin() as conn:
        conn.execute(text(sql), params)


def _alarms(guard: MemoryGuard) -> list[str]:
    return [e.reason for e in guard.ledger.events(decision="alarm")]


def _warm(guard: MemoryGuard, me: Any, facts: list[Provenance]) -> None:
    got = {h.fact_id for h in guard.search(me, "note", k=50)}
    assert {p.fact_id for p in facts} <= got
    cache = guard.ledger._entry_cache
    assert sum(1 for key in cache._heads if key[0] in got) >= len(facts)  # heads cached


def _warm_equals_cold(guard: MemoryGuard, ids: list[str]) -> None:
    with guard.ledger.engine.connect() as conn:
        warm = logged_heads(conn, ids, guard.ledger._entry_cache)
        cold = logged_heads(conn, ids, EntryCache(0, 0))
    assert warm == cold


def test_a_revoked_fact_is_withheld_after_its_head_was_cached(
    served: tuple[MemoryGuard, Any],
) -> None:
    guard, me = served
    facts = _batch(guard, me)
    _warm(guard, me, facts)
    victim = facts[2]
    guard.revoke(None, RevocationSelector.fact(victim.fact_id), reason="bad", operator="ops")
    _warm_equals_cold(guard, [p.fact_id for p in facts])
    got = {h.fact_id for h in guard.search(me, "note", k=50)}
    assert victim.fact_id not in got and len(got) == len(facts) - 1
    with pytest.raises(FactNotFound):
        guard.get(me, victim.fact_id)
    # withheld because the log says quarantined: a stale head (not quarantined) against the
    # quarantined row would have been an integrity alarm instead
    assert _alarms(guard) == []
    _warm_equals_cold(guard, [p.fact_id for p in facts])


def test_a_new_version_and_a_delete_are_seen_after_the_head_was_cached(
    served: tuple[MemoryGuard, Any],
) -> None:
    guard, me = served
    facts = _batch(guard, me)
    _warm(guard, me, facts)
    newer = guard.update(me, facts[0].fact_id, "note 0, amended", source=USER,
                         turn=Turn(session_id="s", turn_index=2))  # fmt: skip
    assert newer.version == 2
    got = guard.get(me, facts[0].fact_id)
    assert (got.text, got.provenance.version) == ("note 0, amended", 2)
    guard.delete(me, facts[1].fact_id)
    with pytest.raises(FactNotFound):
        guard.get(me, facts[1].fact_id)
    assert _alarms(guard) == []
    _warm_equals_cold(guard, [p.fact_id for p in facts])


def test_a_row_edited_after_its_head_and_record_were_cached_is_alarmed(
    served: tuple[MemoryGuard, Any],
) -> None:
    guard, me = served
    facts = _batch(guard, me)
    _warm(guard, me, facts)
    victim, forged_state = facts[4], facts[5]
    forged = Provenance.model_validate({**victim.model_dump(), "trust": TrustLevel.SYSTEM})
    # the record text changed, its digest column left alone: parsed afresh, compared with the log
    _sql(guard, "UPDATE mg_provenance SET record = :r WHERE fact_id = :f",
         r=forged.canonical().decode(), f=victim.fact_id)  # fmt: skip
    _sql(guard, "UPDATE mg_provenance SET state = 'superseded' WHERE fact_id = :f",
         f=forged_state.fact_id)
    got = {h.fact_id for h in guard.search(me, "note", k=50)}
    assert victim.fact_id not in got and forged_state.fact_id not in got
    assert len(got) == len(facts) - 2
    assert {"integrity.record_mismatch", "integrity.state_mismatch"} <= set(_alarms(guard))


def test_a_changed_leaf_hash_recomputes_the_cached_head(served: tuple[MemoryGuard, Any]) -> None:
    """A head is cached by the leaf hashes of its entries: a log entry whose leaf was rewritten is
    checked afresh (its text no longer hashes to it), never answered from the cache."""
    guard, me = served
    facts = _batch(guard, me)
    _warm(guard, me, facts)
    from sqlalchemy import text

    with guard.ledger.engine.connect() as conn:
        seqs = [int(r[0]) for r in conn.execute(text(
            "SELECT f.event_seq FROM mg_audit_fact f JOIN mg_audit_event e ON e.seq = f.event_seq"
            " WHERE f.fact_id = :f AND e.action = :a ORDER BY f.event_seq"),
            {"f": facts[0].fact_id, "a": CHANGE_ACTION})]  # fmt: skip
    assert len(seqs) == 2  # staged, committed
    for table in ("mg_log_leaf", "mg_log_pending"):
        _sql(guard, f"UPDATE {table} SET leaf_hash = :h WHERE event_seq = :s",
             h=b"\x00" * 32, s=seqs[-1])  # fmt: skip (the commit's entry)
    got = {h.fact_id for h in guard.search(me, "note", k=50)}
    assert not got & {p.fact_id for p in facts}  # the batch shares that entry: all withheld
    assert "integrity.log_mismatch" in _alarms(guard)
    _warm_equals_cold(guard, [p.fact_id for p in facts])


def test_the_record_parse_cache_is_keyed_by_the_exact_text(served: tuple[MemoryGuard, Any]) -> None:
    from memguard.ledger.records import FactState, LedgerRecord

    guard, me = served
    base = _batch(guard, me, 1)[0]
    forged = Provenance.model_validate({**base.model_dump(), "trust": TrustLevel.SYSTEM})

    def rec(p: Provenance) -> LedgerRecord:
        return LedgerRecord(p.fact_id, 1, FactState.COMMITTED, p.record_digest, p.content_digest,
                            p.canonical().decode(), False)  # fmt: skip

    assert rec(base).provenance.trust is TrustLevel.USER
    assert rec(forged).provenance.trust is TrustLevel.SYSTEM
    assert rec(base).provenance.trust is TrustLevel.USER


def test_the_links_query_lists_exactly_the_change_entries(
    served: tuple[MemoryGuard, Any],
) -> None:
    """The read path's links (``mg_change_fact``) are exactly the change entries among a fact's
    ``mg_audit_fact`` links (the wider query), in the same order with the same leaf hashes,
    after reads have linked the facts to many non-change events; reads add no change link."""
    from memguard.ledger import replay

    guard, me = served
    facts = _batch(guard, me)
    guard.revoke(None, RevocationSelector.fact(facts[3].fact_id), reason="bad", operator="ops")
    ids = [p.fact_id for p in facts]
    with guard.ledger.engine.connect() as conn:
        before = conn.execute(replay._LINKS, {"ids": ids}).all()
    for _ in range(3):
        guard.search(me, "note", k=50)
    with guard.ledger.engine.connect() as conn:
        fast = conn.execute(replay._LINKS, {"ids": ids}).all()
        wide = conn.execute(replay._WIDE, {"ids": ids}).all()
        all_links = conn.execute(replay.select(replay._EVENT_FACT)).all()
    assert [tuple(r) for r in fast] == [tuple(r) for r in wide] == [tuple(r) for r in before]
    assert len(all_links) > len(fast) >= 2 * len(facts)  # reads linked too, and were skipped
    got = {h.fact_id for h in guard.search(me, "note", k=50)}
    assert got == set(ids) - {facts[3].fact_id} and _alarms(guard) == []


def test_reads_of_an_intact_ledger_never_take_the_wider_links(
    served: tuple[MemoryGuard, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wider links (``mg_audit_fact``, every read's link) are only for a fact whose row
    disagrees with its change links: reads of an intact ledger, revoked and updated facts
    included, never query them (else the read history would cost again, unseen)."""
    from memguard.ledger import replay

    guard, me = served
    facts = _batch(guard, me)
    guard.revoke(None, RevocationSelector.fact(facts[3].fact_id), reason="bad", operator="ops")
    guard.update(me, facts[0].fact_id, "note 0, amended", source=USER,
                 turn=Turn(session_id="s", turn_index=2))  # fmt: skip
    wide: list[list[str]] = []
    inner = replay._logged_heads

    def counted(conn: Any, wanted: Any, cache: Any, query: Any) -> Any:
        if query is replay._WIDE:
            wide.append(list(wanted))
        return inner(conn, wanted, cache, query)

    monkeypatch.setattr(replay, "_logged_heads", counted)
    for _ in range(3):
        got = {h.fact_id for h in guard.search(me, "note", k=50)}
    assert got == {p.fact_id for p in facts} - {facts[3].fact_id} and wide == []
    _sql(guard, "DELETE FROM mg_change_fact WHERE fact_id = :f", f=facts[1].fact_id)
    assert facts[1].fact_id in {h.fact_id for h in guard.search(me, "note", k=50)}
    assert wide == [[facts[1].fact_id]] and _alarms(guard) == []
