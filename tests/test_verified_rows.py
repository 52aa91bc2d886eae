"""The verified-rows cache never serves a fact the database no longer says (issue 16).

``memguard.ledger.readcache.VerifiedRows`` keeps each hit's ledger row and logged head after they
agreed, and serves them while the SQLite database is unchanged. Each test first proves the cache
is serving the facts (its hit counter moves on a repeated search), then changes the database one
way (this process through the guard, a second connection of this process, a second process, a
raw ``sqlite3`` edit in this process and in another) and checks the fact is withheld, alarmed or
served in its new form. Two tests switch one invalidation off and show the stale answer would
then be served: the other tests depend on each invalidation, they do not pass by accident.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memguard import FactInput, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import FactNotFound
from memguard.ledger import Ledger
from memguard.ledger.readcache import VerifiedRows
from memguard.provenance import Provenance
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService
from memguard.trust import TrustLevel

USER = Source(kind=SourceKind.USER_MESSAGE)


class Served:
    def __init__(self, root: Path) -> None:
        from helpers import Clock

        self.root = root
        self.clock = Clock()
        self.tokens = LocalTokenService(root / "keys", clock=self.clock)
        self.guard = self.open()
        self.me = self.guard.authenticate(self.tokens.issue("alice"))

    def open(self) -> MemoryGuard:
        return MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(self.root / "l.db"),
                           verifier=self.tokens.verifier(clock=self.clock), clock=self.clock)  # fmt: skip

    @property
    def cache(self) -> VerifiedRows:
        held = self.guard.ledger._verified
        assert held is not None
        return held

    def write(self, n: int = 5) -> list[Provenance]:
        return self.guard.write_many(self.me, [FactInput(text=f"note {i}", namespace="travel",
            source=USER, turn=Turn(session_id="s", turn_index=1)) for i in range(n)])  # fmt: skip

    def found(self) -> dict[str, Any]:
        return {h.fact_id: h for h in self.guard.search(self.me, "note", k=50)}

    def warm(self, facts: list[Provenance]) -> None:
        """Search until one search got every fact from the cache (a log integration between two
        searches empties it: it is a transaction of this process)."""
        ids = {p.fact_id for p in facts}
        for _ in range(5):
            before = self.cache.hits
            assert ids <= set(self.found())
            if self.cache.hits - before >= len(ids):
                return
        raise AssertionError("the cache never served the facts")

    def alarms(self) -> list[str]:
        return [e.reason for e in self.guard.ledger.events(decision="alarm")]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    yield s
    s.guard.close()


def _forged(victim: Provenance) -> str:
    forged = Provenance.model_validate({**victim.model_dump(), "trust": TrustLevel.SYSTEM})
    return forged.canonical().decode()


def test_a_repeated_search_is_served_from_the_cache_and_equals_a_cold_one(served: Served) -> None:
    facts = served.write()
    cold = served.found()
    served.warm(facts)
    warm = served.found()
    assert {f: (h.text, h.provenance) for f, h in warm.items()} == {
        f: (h.text, h.provenance) for f, h in cold.items()
    }
    assert served.alarms() == []


def test_own_revoke_update_and_delete_are_seen(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    served.guard.revoke(
        None, RevocationSelector.fact(facts[0].fact_id), reason="bad", operator="ops"
    )
    assert facts[0].fact_id not in served.found()
    served.warm(facts[1:])
    newer = served.guard.update(served.me, facts[1].fact_id, "note 1, amended", source=USER,
                                turn=Turn(session_id="s", turn_index=2))  # fmt: skip
    got = served.found()[facts[1].fact_id]
    assert (got.text, got.provenance.version) == ("note 1, amended", newer.version)
    served.warm(facts[2:])
    served.guard.delete(served.me, facts[2].fact_id)
    assert facts[2].fact_id not in served.found()
    with pytest.raises(FactNotFound):
        served.guard.get(served.me, facts[2].fact_id)
    assert served.alarms() == []


def test_a_revoke_through_a_second_connection_is_seen(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    other = served.open()  # its own engine and connections on the same file
    try:
        other.revoke(None, RevocationSelector.fact(facts[3].fact_id), reason="bad", operator="ops")
    finally:
        other.close()
    assert facts[3].fact_id not in served.found()
    assert served.alarms() == []  # withheld as quarantined, as the row and the log say


def test_a_revoke_by_a_second_process_is_seen(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    script = textwrap.dedent(f"""
        from pathlib import Path
        from memguard import MemoryGuard
        from memguard.ledger import Ledger
        from memguard.revocation import RevocationSelector
        from memguard.stores.memory import InMemoryStore
        from memguard.tokens.local import LocalTokenService
        root = Path({str(served.root)!r})
        tokens = LocalTokenService(root / "keys")
        guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(root / "l.db"),
                            verifier=tokens.verifier())
        guard.revoke(None, RevocationSelector.fact({facts[4].fact_id!r}), reason="bad",
                     operator="ops")
        guard.close()
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=50)
    assert facts[4].fact_id not in served.found()
    assert served.alarms() == []


def test_a_row_edited_by_sqlite3_in_this_process_is_alarmed(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    with sqlite3.connect(served.root / "l.db") as raw:
        raw.execute("UPDATE mg_provenance SET record = ? WHERE fact_id = ?",
                    (_forged(facts[1]), facts[1].fact_id))  # fmt: skip
        raw.execute("UPDATE mg_quarantine SET lifted = 1")  # (none: a no-op commit is harmless)
    raw.close()
    for _ in range(2):  # and never stored: alarmed again on the next read
        assert facts[1].fact_id not in served.found()
    assert served.alarms().count("integrity.record_mismatch") == 2


def test_a_row_edited_by_sqlite3_in_another_process_is_alarmed(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    script = textwrap.dedent(f"""
        import sqlite3
        with sqlite3.connect({str(served.root / "l.db")!r}) as raw:
            raw.execute("UPDATE mg_provenance SET state = 'superseded' WHERE fact_id = ?",
                        ({facts[2].fact_id!r},))
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=50)
    assert facts[2].fact_id not in served.found()
    assert "integrity.state_mismatch" in served.alarms()


def test_without_the_data_version_check_a_raw_edit_would_be_served(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The raw-edit tests fail if ``_open`` (both read paths) ignores ``data_version``: the edited row is then
    served from the cache, unalarmed (this is what they guard against)."""
    facts = served.write()
    served.warm(facts)
    cache = served.cache
    monkeypatch.setattr(cache, "_open", lambda pooled: cache._epoch)
    with sqlite3.connect(served.root / "l.db") as raw:
        raw.execute("UPDATE mg_provenance SET record = ? WHERE fact_id = ?",
                    (_forged(facts[1]), facts[1].fact_id))  # fmt: skip
    raw.close()
    assert facts[1].fact_id in served.found()  # stale: the broken cache is what the tests catch
    assert "integrity.record_mismatch" not in served.alarms()


def _own_edit(served: Served, victim: Provenance) -> None:
    """An edit through this engine's own connections (the pooled one the reads use): its commit
    does not move ``data_version`` there, only the transaction hook sees it."""
    from sqlalchemy import text

    with served.guard.ledger.engine.begin() as conn:
        conn.execute(text("UPDATE mg_provenance SET record = :r WHERE fact_id = :f"),
                     {"r": _forged(victim), "f": victim.fact_id})  # fmt: skip


def test_a_row_edited_through_this_engine_is_alarmed(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    _own_edit(served, facts[3])
    assert facts[3].fact_id not in served.found()
    assert "integrity.record_mismatch" in served.alarms()


def test_without_the_invalidation_an_own_edit_would_be_served(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test above fails if this process's transactions do not empty the cache."""
    facts = served.write()
    served.warm(facts)
    monkeypatch.setattr(served.cache, "_bump", lambda: None)
    _own_edit(served, facts[3])
    assert facts[3].fact_id in served.found()  # stale
    assert "integrity.record_mismatch" not in served.alarms()


def test_the_cache_is_closed_while_a_transaction_of_this_engine_is_open(served: Served) -> None:
    facts = served.write()
    served.warm(facts)
    engine = served.guard.ledger.engine
    began, release = threading.Event(), threading.Event()

    def writer() -> None:
        from sqlalchemy import text

        with engine.begin() as conn:
            conn.execute(text("SELECT 1"))
            began.set()
            release.wait(30)

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert began.wait(30)
        before = served.cache.hits
        assert {p.fact_id for p in facts} <= set(served.found())
        assert served.cache.hits == before  # read from the ledger, not the cache
        assert not served.cache._pairs  # and nothing stored meanwhile
    finally:
        release.set()
        t.join(30)
    served.warm(facts)  # open again once the transaction is back in the pool


def test_a_read_that_began_before_a_change_stores_nothing(served: Served) -> None:
    facts = served.write(2)
    ledger = served.guard.ledger
    cache = served.cache
    with ledger.log._snapshot() as conn:
        epoch = cache.open(conn)
        records, heads = ledger.latest_checked([p.fact_id for p in facts])
    assert epoch is not None
    cache.clear()  # any change: the epoch moves
    cache.put(epoch, [(records[f], heads[f]) for f in records])
    assert cache.get(cache._epoch, list(records)) == {}


def test_postgresql_ledgers_have_no_cache(pg_url: str) -> None:
    ledger = Ledger.from_url(pg_url, witness=None)
    try:
        assert ledger._verified is None
    finally:
        ledger.engine.dispose()


def test_reads_and_log_integration_of_this_engine_keep_the_cache(served: Served) -> None:
    """Transactions that change no row a read computes (a read-only one, the log's integration
    and checkpoint) leave the pairs in place; the next write after them still empties it."""
    from sqlalchemy import text

    facts = served.write()
    served.warm(facts)
    with served.guard.ledger.engine.begin() as conn:
        conn.execute(text("SELECT count(*) FROM mg_provenance"))
    served.guard.ledger.log.flush()  # integrate every queued leaf, sign a checkpoint
    assert len(served.cache._pairs) >= len(facts)
    _own_edit(served, facts[0])  # the log-only mark did not outlive its transaction
    assert not served.cache._pairs
    assert facts[0].fact_id not in served.found()
    assert "integrity.record_mismatch" in served.alarms()


def test_own_ddl_empties_the_cache(served: Served) -> None:
    from sqlalchemy import text

    facts = served.write()
    served.warm(facts)
    with served.guard.ledger.engine.begin() as conn:
        conn.execute(text("CREATE TABLE scratch (x INTEGER)"))
    assert not served.cache._pairs
