"""redteam34: the verified-rows cache under threads (issue 16).

Reader threads call ``Ledger.latest_checked`` in a loop (each on its own pooled connection, most
answers from the cache) while the main thread changes facts one at a time: a revocation through
the guard (this engine), a state edit by a second ``sqlite3`` connection of this process, a
record edit through this engine's own pool, a state edit by another process (a gateway worker). Every change completes before a generation counter
moves; a read that began after a fact's change must not return that fact as a clean committed
row that agrees with its log (it is quarantined, superseded, or alarmed). A variant with the
epoch bump switched off must see such a stale answer: the check can fail.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from test_verified_rows import Served, _forged

from memguard.integrity import ledger_problem
from memguard.ledger.records import FactState
from memguard.revocation import RevocationSelector


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    yield s
    s.guard.close()


_OTHER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
for line in sys.stdin:
    db.execute("UPDATE mg_provenance SET state = 'deleted' WHERE fact_id = ?", (line.strip(),))
    db.commit()
    print("ok", flush=True)
"""


def _race(served: Served, readers: int = 3) -> tuple[list[str], int, int]:
    """(stale answers seen, reads done, facts served by the cache) over 12 changes."""
    facts = served.write(12)
    served.warm(facts)
    ledger = served.guard.ledger
    ids = [p.fact_id for p in facts]
    lock = threading.Lock()
    generation = 0
    changed: dict[str, int] = {}  # fact id -> the generation its change completed in
    stale: list[str] = []
    reads = [0]
    done = threading.Event()
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            while not done.is_set():
                with lock:
                    began, known = generation, dict(changed)
                records, heads = ledger.latest_checked(ids)
                with lock:
                    reads[0] += 1
                for fid, gen in known.items():
                    rec = records.get(fid)
                    if gen <= began and rec is not None and rec.state is FactState.COMMITTED \
                            and not rec.quarantined and ledger_problem(rec, heads.get(fid)) is None:  # fmt: skip
                        stale.append(fid)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    other = subprocess.Popen(  # another process: one edit per line it reads, "ok" after each
        [sys.executable, "-c", _OTHER, str(served.root / "l.db")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    threads = [threading.Thread(target=reader) for _ in range(readers)]
    for t in threads:
        t.start()
    before = served.cache.hits
    try:
        for i, victim in enumerate(facts):
            kind = i % 4
            if kind == 0:
                served.guard.revoke(None, RevocationSelector.fact(victim.fact_id), reason="r",
                                    operator="ops")  # fmt: skip
            elif kind == 1:
                with sqlite3.connect(served.root / "l.db") as raw:
                    raw.execute("UPDATE mg_provenance SET state = 'superseded' WHERE fact_id = ?",
                                (victim.fact_id,))  # fmt: skip
                raw.close()
            elif kind == 3:
                assert other.stdin is not None and other.stdout is not None
                other.stdin.write(victim.fact_id + "\n")
                other.stdin.flush()
                assert other.stdout.readline().strip() == "ok"
            else:
                with ledger.engine.begin() as conn:
                    conn.execute(text("UPDATE mg_provenance SET record = :r WHERE fact_id = :f"),
                                 {"r": _forged(victim), "f": victim.fact_id})  # fmt: skip
            with lock:
                generation += 1
                changed[victim.fact_id] = generation
            for _ in range(3):  # let the readers run a few rounds in this generation
                with lock:
                    at = reads[0]
                while not errors:
                    with lock:
                        if reads[0] >= at + readers:
                            break
                    done.wait(0.005)
    finally:
        done.set()
        for t in threads:
            t.join(30)
        other.communicate(timeout=30)
    assert not errors, errors
    return stale, reads[0], served.cache.hits - before


def test_no_reader_gets_a_change_it_began_after_as_clean(served: Served) -> None:
    stale, reads, hits = _race(served)
    assert stale == []
    assert reads >= 12 * 3
    assert hits > 0  # readers were served by the cache between the changes


def test_without_the_epoch_bump_a_reader_gets_a_stale_row(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(served.cache, "_bump", lambda: None)
    stale, _reads, _hits = _race(served)
    assert stale
