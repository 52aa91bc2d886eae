"""Several real processes on one ledger (SQLite file and PostgreSQL): start-up recovery under the
lease (memguard/ledger/recovery.py) never fails a start and never touches a live process's
in-flight rows; only the rows of a process that died (here: killed mid-write) are recovered."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from helpers import pg_schema_url

from memguard import FactInput, MemoryGuard, Source, SourceKind, Turn
from memguard.ledger import FactState, Ledger
from memguard.stores.base import StoredPoint
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService

SRC = Source(kind=SourceKind.USER_MESSAGE)
CRASHED, IN_FLIGHT = 20, 5


class _DiesInUpsert(InMemoryStore):
    """The process is killed after the ledger staged the rows, before the store holds them."""

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        os._exit(3)


class _WaitsInUpsert(InMemoryStore):
    """Holds the write in flight (rows staged, store not written) until the parent says go."""

    def __init__(self, staged: Any, go: Any) -> None:
        super().__init__(dimension=8)
        self.staged, self.go = staged, go

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        self.staged.set()
        if not self.go.wait(120):
            raise TimeoutError("never released")
        super().upsert(points)


def _facts(prefix: str, n: int) -> list[FactInput]:
    return [FactInput(text=f"{prefix} {i}", namespace="n", source=SRC,
                      turn=Turn(session_id="s", turn_index=i)) for i in range(n)]  # fmt: skip


def _guard(url: str, keys: str, store: InMemoryStore) -> tuple[MemoryGuard, LocalTokenService]:
    tokens = LocalTokenService(Path(keys))
    guard = MemoryGuard(store=store, ledger=Ledger.from_url(url), verifier=tokens.verifier(),
                        recover_on_start=False)  # fmt: skip
    return guard, tokens


def _crash_mid_write(url: str, keys: str) -> None:
    guard, tokens = _guard(url, keys, _DiesInUpsert(dimension=8))
    guard.write_many(guard.authenticate(tokens.issue("alice")), _facts("crashed", CRASHED))


def _write_in_flight(url: str, keys: str, staged: Any, go: Any, out: Any) -> None:
    try:
        guard, tokens = _guard(url, keys, _WaitsInUpsert(staged, go))
        try:
            written = guard.write_many(guard.authenticate(tokens.issue("bob")),
                                       _facts("in flight", IN_FLIGHT))  # fmt: skip
            out.put(("writer", "ok", [p.fact_id for p in written]))
        finally:
            guard.close()
    except BaseException as exc:  # reported to the parent
        out.put(("writer", "failed", repr(exc)))


def _start(url: str, keys: str, ready: Any, out: Any) -> None:
    try:
        ready.wait(60)  # all four start recovering at once
        guard, _ = _guard(url, keys, InMemoryStore(dimension=8))
        try:
            report = guard.recover()  # what recover_on_start runs
            out.put(("start", "ok", [len(report.aborted), len(report.committed)]))
        finally:
            guard.close()
    except BaseException as exc:
        out.put(("start", "failed", repr(exc)))


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with ExitStack() as stack:
        if request.param == "sqlite":
            yield f"sqlite:///{tmp_path / 'ledger.db'}"
        else:
            yield stack.enter_context(pg_schema_url())


def test_four_starts_recover_only_dead_writers_rows(ledger_url: str, tmp_path: Path) -> None:
    keys = str(tmp_path / "keys")
    LocalTokenService(Path(keys))
    Ledger.from_url(ledger_url).close()
    ctx = multiprocessing.get_context("spawn")
    crasher = ctx.Process(target=_crash_mid_write, args=(ledger_url, keys))
    crasher.start()
    crasher.join(120)
    assert crasher.exitcode == 3  # killed between staging and the store write

    out = ctx.Queue()
    staged, go, ready = ctx.Event(), ctx.Event(), ctx.Event()
    writer = ctx.Process(target=_write_in_flight, args=(ledger_url, keys, staged, go, out))
    writer.start()
    assert staged.wait(120), "the live writer never staged its rows"
    starts = [ctx.Process(target=_start, args=(ledger_url, keys, ready, out)) for _ in range(4)]
    for p in starts:
        p.start()
    ready.set()
    results = [out.get(timeout=180) for _ in starts]
    go.set()
    results.append(out.get(timeout=120))
    for p in [writer, *starts]:
        p.join(60)

    assert [r[1] for r in results] == ["ok"] * 5, results
    # the dead writer's rows were aborted exactly once (one start held the lease, or each row
    # went to one of them), none committed: the store never held them
    assert sum(r[2][0] for r in results if r[0] == "start") == CRASHED
    assert sum(r[2][1] for r in results if r[0] == "start") == 0
    (written,) = [r[2] for r in results if r[0] == "writer"]
    check = Ledger.from_url(ledger_url)
    try:
        assert check.in_state(FactState.PENDING) == []
        aborted = check.in_state(FactState.ABORTED)
        assert len(aborted) == CRASHED
        # the live writer's in-flight rows were left alone and it committed them afterwards
        assert {r.fact_id for r in check.in_state(FactState.COMMITTED)} == set(written)
        report = check.verify()
        assert report.ok, [p.as_json() for p in report.problems]
    finally:
        check.close()
