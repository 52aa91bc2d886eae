"""redteam34: a model test of the verified-rows cache against cold reads (issue 16).

A seeded random sequence of changes (the guard's revoke, update and delete; row, state and
quarantine edits by a second ``sqlite3`` connection of this process and through this engine;
the log's integration and checkpoint; a WAL checkpoint by another connection; the pool emptied;
a pooled connection held so the next read uses another; searches, whose allow events the cache
keeps) runs against one ledger. After every step, each fact's answer through
``Ledger.latest_checked`` (asked twice: the second is served by the cache when it holds the
facts) must equal a cold one (``Ledger.latest`` + ``Ledger.logged_heads``, which never use it):
the same row, and the same verdict of the row against the signed log
(``integrity.ledger_problem``). Two variants switch one invalidation off (the epoch bump; the
``data_version`` check) and must find a stale answer: the model can fail.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from test_verified_rows import USER, Served, _forged

from memguard import Turn
from memguard.errors import MemguardError
from memguard.integrity import ledger_problem
from memguard.provenance import Provenance
from memguard.revocation import RevocationSelector

STEPS = 150


class Model:
    def __init__(self, served: Served, seed: int) -> None:
        self.s = served
        self.rng = random.Random(seed)
        self.facts: list[Provenance] = served.write(8)
        self.ids = [p.fact_id for p in self.facts]
        self.turn = 2
        self.held: Any = None
        self.checks = 0
        self.served_from_cache = 0

    # -- changes ----------------------------------------------------------------------------

    def _fact(self) -> Provenance:
        return self.rng.choice(self.facts)

    def _raw(self, sql: str, *args: Any) -> None:
        with sqlite3.connect(self.s.root / "l.db") as raw:
            raw.execute(sql, args)
        raw.close()

    def revoke(self) -> None:
        self.s.guard.revoke(None, RevocationSelector.fact(self._fact().fact_id), reason="r",
                            operator="ops")  # fmt: skip

    def update(self) -> None:
        self.turn += 1
        self.s.guard.update(self.s.me, self._fact().fact_id, f"note {self.turn}", source=USER,
                            turn=Turn(session_id="s", turn_index=self.turn))  # fmt: skip

    def delete(self) -> None:
        self.s.guard.delete(self.s.me, self._fact().fact_id)

    def raw_record(self) -> None:
        victim = self._fact()
        self._raw("UPDATE mg_provenance SET record = ? WHERE fact_id = ? AND version = 1",
                  _forged(victim), victim.fact_id)  # fmt: skip

    def raw_state(self) -> None:
        state = self.rng.choice(["superseded", "committed", "deleted"])
        self._raw("UPDATE mg_provenance SET state = ? WHERE fact_id = ?", state,
                  self._fact().fact_id)  # fmt: skip

    def raw_lift(self) -> None:
        self._raw("UPDATE mg_quarantine SET lifted = 1 WHERE fact_id = ?", self._fact().fact_id)

    def own_state(self) -> None:
        with self.s.guard.ledger.engine.begin() as conn:
            conn.execute(text("UPDATE mg_provenance SET state = 'superseded' WHERE fact_id = :f"),
                         {"f": self._fact().fact_id})  # fmt: skip

    def flush(self) -> None:
        self.s.guard.ledger.log.flush()

    def wal_checkpoint(self) -> None:
        self._raw("PRAGMA wal_checkpoint(TRUNCATE)")

    def empty_pool(self) -> None:
        self.s.guard.ledger.engine.pool.dispose()

    def hold(self) -> None:
        if self.held is None:
            self.held = self.s.guard.ledger.engine.raw_connection()
        else:
            self.held.close()
            self.held = None

    def search(self) -> None:
        self.s.found()

    # -- the check ------------------------------------------------------------------------------

    def answer(self, records: dict[str, Any], heads: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for fid in self.ids:
            rec = records.get(fid)
            out[fid] = None if rec is None else (rec, ledger_problem(rec, heads.get(fid)))
        return out

    def stale(self) -> list[str]:
        ledger = self.s.guard.ledger
        cache = self.s.cache
        found: list[str] = []
        for _ in range(2):
            before = cache.hits
            warm = self.answer(*ledger.latest_checked(self.ids))
            self.served_from_cache += cache.hits - before
            cold_rows = ledger.latest(self.ids)
            cold = self.answer(cold_rows, ledger.logged_heads(list(cold_rows)))
            self.checks += 1
            found += [f for f in self.ids if warm[f] != cold[f]]
        return found

    def run(self, steps: int) -> list[tuple[int, str, list[str]]]:
        ops: list[Callable[[], None]] = [
            self.revoke, self.update, self.delete, self.raw_record, self.raw_state, self.raw_lift,
            self.own_state, self.flush, self.wal_checkpoint, self.empty_pool, self.hold,
            self.search, self.search, self.search,
        ]  # fmt: skip
        bad: list[tuple[int, str, list[str]]] = []
        try:
            self.stale()
            for step in range(steps):
                op = self.rng.choice(ops)
                try:
                    op()
                except MemguardError:
                    pass  # e.g. updating a revoked fact: refused, the model goes on
                if found := self.stale():
                    bad.append((step, op.__name__, found))
        finally:
            if self.held is not None:
                self.held.close()
        return bad


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    yield s
    s.guard.close()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_cached_answers_equal_cold_ones_after_every_change(served: Served, seed: int) -> None:
    model = Model(served, seed)
    assert model.run(STEPS) == []
    assert model.checks == 2 * (STEPS + 1)
    print(
        f"seed {seed}: {model.checks} checks, {model.served_from_cache} facts served by the cache"
    )
    assert model.served_from_cache > 0  # the cache took part


@pytest.mark.parametrize("broken", ["no_bump", "no_data_version"])
def test_the_model_finds_a_cache_that_misses_a_change(
    served: Served, broken: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = served.cache
    if broken == "no_bump":
        monkeypatch.setattr(cache, "_bump", lambda: None)
    else:
        monkeypatch.setattr(cache, "_open", lambda pooled: cache._epoch)
    model = Model(served, 1)
    assert model.run(STEPS) != []
