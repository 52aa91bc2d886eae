"""A first read's ledger lookup does no work the cached path alone needs (issue 16, readpath3).

``Ledger.latest_checked`` first asks the verified-rows cache (memguard/ledger/readcache.py) for
every hit at once, then reads what it lacks in one snapshot. A fact the cache does not hold makes
that first ask a miss whatever the database says, so it is answered from memory: a first read
checks out one connection (its snapshot's), not two. These tests pin that, and that a read of
held and unheld facts together still sees a row edited behind the cache's back (the snapshot's
own ``data_version`` check empties the cache, so the held pair is not served).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from memguard import FactInput, MemoryGuard, Source, SourceKind, Turn
from memguard.integrity import ledger_problem
from memguard.ledger import Ledger
from memguard.provenance import Provenance
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService
from memguard.trust import TrustLevel

USER = Source(kind=SourceKind.USER_MESSAGE)


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[tuple[MemoryGuard, list[Provenance], Path]]:
    tokens = LocalTokenService(tmp_path / "keys")
    g = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(tmp_path / "l.db"),
                    verifier=tokens.verifier())  # fmt: skip
    me = g.authenticate(tokens.issue("alice"))
    facts = g.write_many(me, [FactInput(text=f"note {i}", namespace="travel", source=USER,
                                        turn=Turn(session_id="s", turn_index=1))
                              for i in range(6)])  # fmt: skip
    yield g, facts, tmp_path / "l.db"
    g.close()


def _checkouts(ledger: Ledger) -> list[int]:
    seen: list[int] = []

    def on_checkout(*_args: Any) -> None:
        seen.append(1)

    event.listen(ledger.engine.pool, "checkout", on_checkout)
    return seen


def _held(ledger: Ledger, ids: list[str]) -> None:
    """Read ``ids`` until the cache serves them all (a log integration between reads empties it)."""
    cache = ledger._verified
    assert cache is not None
    for _ in range(5):
        ledger.latest_checked(ids)
        if cache.every(ledger.engine, ids) is not None:
            return
    raise AssertionError("the cache never held the facts")


def test_a_first_read_checks_out_one_connection(guard: Any) -> None:
    g, facts, _db = guard
    ledger: Ledger = g.ledger
    ids = [p.fact_id for p in facts]
    _held(ledger, ids[:3])
    seen = _checkouts(ledger)
    records, heads = ledger.latest_checked(ids)  # three held, three never read
    assert sorted(records) == sorted(ids)
    assert all(ledger_problem(records[f], heads[f]) is None for f in ids)
    assert len(seen) == 1  # the snapshot's: the cache's all-held check needed no connection
    seen.clear()
    ledger.latest_checked(ids)  # now all held: the data_version check's connection only
    assert len(seen) == 1


def test_a_row_edited_behind_the_cache_is_read_when_some_hits_are_not_held(guard: Any) -> None:
    g, facts, db = guard
    ledger: Ledger = g.ledger
    ids = [p.fact_id for p in facts]
    _held(ledger, ids[:3])
    victim = facts[1]
    forged = Provenance.model_validate({**victim.model_dump(), "trust": TrustLevel.SYSTEM})
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE mg_provenance SET record = ? WHERE fact_id = ?",
                    (forged.canonical().decode(), victim.fact_id))  # fmt: skip
    raw.close()
    records, heads = ledger.latest_checked(ids)
    # the edited row itself, not the pair held before the edit: and the log disagrees with it
    assert records[victim.fact_id].record == forged.canonical().decode()
    assert ledger_problem(records[victim.fact_id], heads[victim.fact_id]) is not None
    assert all(ledger_problem(records[f], heads[f]) is None for f in ids if f != victim.fact_id)
