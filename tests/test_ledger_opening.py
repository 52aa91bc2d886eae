"""Open-time refusals (memguard/ledger/opening.py): an old ledger without change entries is a
typed error naming the adopting command; read-only or immutable SQLite state is a typed error at
open and on every later operation, before SQLite writes its mapped WAL index (SIGBUS)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import LedgerError
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.opening import LedgerNeedsMigration, LedgerReadOnly
from memguard.stores.memory import InMemoryStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _written(root: Path) -> Path:
    tokens = LocalTokenService(root / "keys")
    guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(root / "l.db"),
                        verifier=tokens.verifier())  # fmt: skip
    me = guard.authenticate(tokens.issue("alice"))
    guard.write(me, "a fact", namespace="n", source=SRC, turn=Turn(session_id="s", turn_index=0))
    guard.close()
    return root / "l.db"


def test_a_ledger_without_change_entries_is_refused_naming_the_command(tmp_path: Path) -> None:
    db = _written(tmp_path)
    with sqlite3.connect(db) as conn:  # as a ledger written before the change log looks
        seqs = f"SELECT seq FROM mg_audit_event WHERE action = '{CHANGE_ACTION}'"
        conn.execute(f"DELETE FROM mg_audit_fact WHERE event_seq IN ({seqs})")
        conn.execute(f"DELETE FROM mg_log_pending WHERE event_seq IN ({seqs})")
        conn.execute(f"DELETE FROM mg_audit_event WHERE action = '{CHANGE_ACTION}'")
    conn.close()
    with pytest.raises(LedgerNeedsMigration) as refused:
        Ledger.sqlite(db)
    assert refused.value.code == "integrity.unmigrated"
    assert "memguard ledger repair" in str(refused.value)
    # the named path works: repair (which opens with adopt_unlogged) logs the current rows
    adopting = Ledger.sqlite(db, adopt_unlogged=True)
    counts = adopting.repair(actor="test", reason="migrate")
    adopting.close()
    assert counts["rows_put"] >= 1
    Ledger.sqlite(db).close()  # opens now


def test_a_new_and_a_current_ledger_open(tmp_path: Path) -> None:
    Ledger.sqlite(tmp_path / "new.db").close()
    Ledger.sqlite(tmp_path / "new.db").close()
    Ledger.sqlite(_written(tmp_path)).close()


@pytest.fixture
def immutable() -> Iterator[list[Path]]:
    done: list[Path] = []
    yield done
    for path in reversed(done):
        subprocess.run(["chattr", "-i", str(path)], check=True)


def _chattr(paths: list[Path], done: list[Path]) -> None:
    for path in paths:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("chattr +i is not available here (root ignores a chmod read-only)")
        done.append(path)


def test_immutable_state_is_a_typed_error_at_open(tmp_path: Path, immutable: list[Path]) -> None:
    db = _written(tmp_path)
    _chattr([*(p for p in tmp_path.iterdir() if p.name.startswith("l.db")), tmp_path], immutable)
    with pytest.raises(LedgerReadOnly) as refused:
        Ledger.sqlite(db)
    assert refused.value.code == "backend.ledger_read_only" and "immutable" in str(refused.value)


def test_state_made_immutable_under_a_live_guard_fails_closed(
    tmp_path: Path, immutable: list[Path]
) -> None:
    """Run in a child: were the check missing, SQLite's write to its mapped WAL index would kill
    the process with SIGBUS, which the parent sees as the exit status."""
    code = f"""
import subprocess, sys
from pathlib import Path
from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import LedgerError
from memguard.stores.memory import InMemoryStore
root = Path({str(tmp_path)!r})
tokens = LocalTokenService(root / "keys")
guard = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.sqlite(root / "l.db"),
                    verifier=tokens.verifier())
me = guard.authenticate(tokens.issue("alice"))
src = Source(kind=SourceKind.USER_MESSAGE)
fact = guard.write(me, "a fact", namespace="n", source=src, turn=Turn(session_id="s", turn_index=0))
files = [*(p for p in root.iterdir() if p.name.startswith("l.db")), root]
subprocess.run(["chattr", "+i", *map(str, files)], check=True)
try:
    failures = []
    for call in (lambda: guard.write(me, "b", namespace="n", source=src,
                                     turn=Turn(session_id="s", turn_index=1)),
                 lambda: guard.get(me, fact.fact_id),
                 lambda: guard.search(me, "a fact", k=3)):
        try:
            call()
            failures.append("served")
        except LedgerError as exc:
            failures.append(type(exc).__name__)
    print(",".join(failures), flush=True)
    guard.close()  # still immutable: closing must not checkpoint into the mapped index either
    print("closed", flush=True)
finally:
    subprocess.run(["chattr", "-i", *map(str, files)], check=True)
"""
    probe = tmp_path / "probe"
    probe.touch()
    _chattr([probe], immutable)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["LedgerReadOnly,LedgerReadOnly,LedgerReadOnly", "closed"]
    assert issubclass(LedgerReadOnly, LedgerError)


def test_the_precheck_holds_one_directory_descriptor_until_the_ledger_closes(tmp_path: Path) -> None:
    """precheck asks a held descriptor of the state directory (two system calls per
    transaction); it is one per engine and closed with it, never leaked per transaction."""
    import os

    from memguard.ledger import Ledger
    from memguard.ledger.opening import precheck

    def held() -> int:
        fds = Path("/proc/self/fd")
        if not fds.exists():  # pragma: no cover - not Linux
            pytest.skip("no /proc/self/fd here")
        n = 0
        for entry in fds.iterdir():
            try:
                n += os.readlink(entry) == str(tmp_path)
            except OSError:
                continue
        return n

    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    for _ in range(20):
        precheck(ledger.engine)
    assert held() == 1
    ledger.close()
    assert held() == 0
