"""The read path's parsed change entries (``EntryCache``) are bounded by memory, not only by count
(issue 16: an entry holds every fact of one write call, so 80 entries of 512-fact batches grew
the process by 70 MiB and the 512-entry cap allowed several hundred)."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from memguard import FactInput, MemoryGuard, Source, SourceKind, Turn
from memguard.ledger import Ledger
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.entries import _parse_full
from memguard.ledger.replay import ENTRY_BYTES, EntryCache, _Entry, _parse_entry, logged_heads
from memguard.ledger.tables import AuditEventRow
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService

USER = Source(kind=SourceKind.USER_MESSAGE)
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]


def _entry(cost: int) -> _Entry:
    return _Entry(frozenset(), parsed={}, cost=cost)


def test_the_cache_holds_at_most_max_bytes_evicting_least_recently_used() -> None:
    cache = EntryCache(size=100, heads=10, max_bytes=1000)
    for seq in range(5):
        cache.put((seq, b"h"), _entry(300))
        assert cache.entry_bytes <= 1000
    # 3 fit: the two oldest went first
    assert [k for k in range(5) if cache.get((k, b"h")) is not None] == [2, 3, 4]
    assert cache.entry_bytes == 900
    cache.get((2, b"h"))  # now the most recently used
    cache.put((9, b"h"), _entry(300))
    assert cache.get((3, b"h")) is None and cache.get((2, b"h")) is not None
    assert cache.entry_bytes == 900


def test_an_entry_larger_than_the_bound_is_not_kept_and_a_replaced_one_is_not_counted_twice() -> None:
    cache = EntryCache(size=100, heads=10, max_bytes=1000)
    cache.put((1, b"h"), _entry(400))
    cache.put((2, b"h"), _entry(5000))
    assert cache.get((2, b"h")) is None and cache.get((1, b"h")) is not None
    assert cache.entry_bytes == 400
    cache.put((1, b"h"), _entry(500))  # the same key again (two readers parsed it at once)
    assert cache.entry_bytes == 500
    cache.put((3, b"h"), _entry(100))
    assert cache.entry_bytes == 600
    # the count bound still applies
    small = EntryCache(size=2, heads=10, max_bytes=10**9)
    for seq in range(4):
        small.put((seq, b"h"), _entry(1))
    assert small.entry_bytes == 2 and small.get((0, b"h")) is None


def test_the_default_bound_is_in_bytes() -> None:
    assert EntryCache()._max_bytes == ENTRY_BYTES <= 64 * 2**20


def _entries(ledger: Ledger) -> list[str]:
    with ledger.engine.connect() as conn:
        rows = conn.execute(select(_EVENT.c.event).where(_EVENT.c.action == CHANGE_ACTION)).all()
    return [str(r[0]) for r in rows]


def _guard(tmp_path: Path) -> tuple[MemoryGuard, Any]:
    tokens = LocalTokenService(tmp_path / "keys")
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                        verifier=tokens.verifier())  # fmt: skip
    return guard, guard.authenticate(tokens.issue("alice"))


def _write(guard: MemoryGuard, me: Any, n: int, tag: str) -> list[str]:
    recs = guard.write_many(me, [FactInput(text=f"{tag} {i}", namespace="notes", source=USER,
                                           turn=Turn(session_id="s", turn_index=i))
                                 for i in range(n)])  # fmt: skip
    return [r.fact_id for r in recs]


def _traced(parse: Callable[[str], _Entry | None], text: str) -> tuple[_Entry | None, int]:
    """What ``parse(text)`` returns and the memory it keeps alive (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        entry = parse(text)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return entry, kept


def test_the_estimate_is_close_to_the_parsed_entry_memory(tmp_path: Path) -> None:
    """The cost charged for an entry is what holding it keeps alive (tracemalloc, plus the entry's
    text when the scanned form keeps it), give or take: a bound on estimates far below the real
    size would not bound the memory. Both forms: the scan (change entries) and the full parse."""
    guard, me = _guard(tmp_path)
    try:
        _write(guard, me, 64, "note")
        texts = [t for t in _entries(guard.ledger) if len(t) > 5000]  # the batch's two entries
    finally:
        guard.close()
    assert len(texts) == 2
    for text in texts:
        entry, kept = _traced(_parse_entry, text)
        assert entry is not None and entry.parsed is None and len(entry.at) == 64  # scanned
        kept += sys.getsizeof(text)  # the scanned entry holds the text alive
        assert 0.8 * kept <= entry.cost <= 1.6 * kept, (entry.cost, kept)
        full, kept = _traced(_parse_full, text)
        assert full is not None and full.parsed is not None
        assert sum(len(v) for v in full.parsed.values()) == 64
        assert 0.8 * kept <= full.cost <= 1.6 * kept, (full.cost, kept)


def test_reads_through_a_small_cache_stay_within_it_and_give_the_cold_answer(tmp_path: Path) -> None:
    guard, me = _guard(tmp_path)
    try:
        batches = [_write(guard, me, 32, f"b{b}") for b in range(6)]
        ids = [i for batch in batches for i in batch]
        sizes = [_parse_entry(t) for t in _entries(guard.ledger)]
        largest = max(e.cost for e in sizes if e is not None)
        bound = 3 * largest  # room for three of the twelve entries
        cache = EntryCache(max_bytes=bound)
        with guard.ledger.engine.connect() as conn:
            cold = logged_heads(conn, ids, EntryCache(0, 0))
            for batch in batches:  # batch by batch: every entry gets parsed and put
                warm = logged_heads(conn, batch, cache)
                assert warm == {i: cold[i] for i in batch}
                assert 0 < cache.entry_bytes <= bound
            held = len(cache._entries)
            assert 0 < held < 12  # entries were evicted by bytes, long before the 512 count
            assert logged_heads(conn, ids, cache) == cold
        assert cache.entry_bytes <= bound
        # and the guard's own cache serves the facts as before
        assert {h.fact_id for h in guard.search(me, "b0", k=300)} == set(ids)
        assert guard.ledger._entry_cache.entry_bytes <= ENTRY_BYTES
    finally:
        guard.close()
