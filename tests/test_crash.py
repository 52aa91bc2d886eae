"""Crash consistency: a real child process writing through Qdrant local (path=) + a real ledger is
SIGKILLed mid-batch; a fresh guard on the same state must recover to a consistent, verifiable state."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock, pg_available, pg_schema_url, require_pg

from memguard import (
    FactNotFound,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    QdrantStore,
    RecoveryReport,
    audit_fact,
)
from memguard.integrity import payload_problem
from memguard.ledger import FactState

WRITER = Path(__file__).parent / "scripts" / "writer.py"
BATCH = 16

pytestmark = pytest.mark.slow


def _spawn(tmp_path: Path, ledger_url: str, *extra: str) -> subprocess.Popen[str]:
    cmd = [
        sys.executable,
        str(WRITER),
        "--store-path",
        str(tmp_path / "qdrant"),
        "--ledger-url",
        ledger_url,
        "--keys",
        str(tmp_path / "keys"),
        "--batch",
        str(BATCH),
        *extra,
    ]
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _parse_acks(lines: list[str]) -> dict[str, str]:
    acks: dict[str, str] = {}
    for line in lines:
        if line.startswith("ACK "):
            parts = line.split()
            assert len(parts) == 3, f"torn ack line {line!r}"
            acks[parts[1]] = parts[2]
    return acks


def _all_points(store: QdrantStore) -> dict[str, dict[str, Any]]:
    """Every point in every collection of the store, read straight from the qdrant client."""
    out: dict[str, dict[str, Any]] = {}
    client = store._client
    for desc in client.get_collections().collections:
        offset: Any = None
        while True:
            records, offset = client.scroll(
                desc.name, limit=256, offset=offset, with_payload=True, with_vectors=False
            )
            for r in records:
                assert str(r.id) not in out, "a point is present in two collections"
                out[str(r.id)] = dict(r.payload or {})
            if offset is None:
                break
    return out


def _verify_after_crash(
    tmp_path: Path, ledger_url: str, acks: dict[str, str], clock: Clock
) -> tuple[set[str], RecoveryReport, set[str], set[str]]:
    """Open a fresh guard (recover_on_start=True) and check every invariant.

    Returns (ids pending before recovery, second recovery report, committed-by-recovery,
    aborted-by-recovery)."""
    probe = Ledger.from_url(ledger_url)
    pending_before = {r.fact_id for r in probe.in_state(FactState.PENDING)}
    probe.close()

    tokens = LocalTokenService(tmp_path / "keys", clock=clock)
    store = QdrantStore(path=str(tmp_path / "qdrant"))
    ledger = Ledger.from_url(ledger_url)
    guard = MemoryGuard(
        store=store,
        ledger=ledger,
        verifier=tokens.verifier(clock=clock),
        clock=clock,
        recover_on_start=True,
    )
    try:
        ident = guard.authenticate(tokens.issue("alice"))

        # no ledger row is left pending
        assert ledger.in_state(FactState.PENDING) == []

        # the recovery that ran at start is consistent: each formerly pending row was settled by one
        # recover event, committed iff the store held exactly that version
        points = _all_points(store)
        rec_committed: set[str] = set()
        rec_aborted: set[str] = set()
        for fact_id in pending_before:
            versions = ledger.versions(fact_id)
            assert [v.state for v in versions] in (
                [FactState.COMMITTED],
                [FactState.ABORTED],
            ), versions
            reasons = [
                ev.reason for _, ev, _ in ledger.events_for(fact_id) if ev.action == "recover"
            ]
            if versions[0].state is FactState.COMMITTED:
                assert reasons == ["recovered_commit"]
                assert fact_id in points
                assert payload_problem(points[fact_id], versions[0], versions[0].provenance) is None
                rec_committed.add(fact_id)
            else:
                assert reasons == ["recovered_abort"]
                assert fact_id not in points
                rec_aborted.add(fact_id)
            assert fact_id not in acks, "an acknowledged write was still pending"

        # recovery is idempotent: nothing is left to do
        second = guard.recover()
        assert second == RecoveryReport()

        # every acknowledged fact is readable with the digest the child was told
        for fact_id, record_digest in acks.items():
            fact = guard.get(ident, fact_id)
            assert fact.provenance.record_digest == record_digest
            assert fact.provenance.fact_id == fact_id
            report = audit_fact(ledger, store, fact_id)
            assert report["state"] == "committed"
            assert report["verification"]["verified"] is True, report["verification"]

        # every point in the store has a committed, matching row and is served -- or is withheld
        served: set[str] = set()
        for fact_id, payload in points.items():
            record = ledger.latest([fact_id]).get(fact_id)
            ok = (
                record is not None
                and record.state is FactState.COMMITTED
                and payload_problem(payload, record, record.provenance) is None
            )
            if ok:
                assert guard.get(ident, fact_id).fact_id == fact_id
                served.add(fact_id)
            else:
                with pytest.raises(FactNotFound):
                    guard.get(ident, fact_id)
        assert set(acks) <= served
        hits = guard.search(ident, "fact", k=1000)
        assert {h.fact_id for h in hits} == served
        # every committed row has its point (nothing acknowledged was lost from the store)
        committed = {r.fact_id for r in ledger.in_state(FactState.COMMITTED)}
        assert committed == served
    finally:
        guard.close()
    return pending_before, second, rec_committed, rec_aborted


def _run_to_death(proc: subprocess.Popen[str], timeout: float = 60) -> list[str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == -signal.SIGKILL, f"rc={proc.returncode} stderr={err[-2000:]}"
    return out.splitlines()


@pytest.fixture(scope="module")
def self_killed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], Any]]:
    """Start every deterministic self-kill child at once (their start-up dominates the run time);
    each test then waits for its own child."""
    started: dict[tuple[str, str], Any] = {}
    with ExitStack() as stack:
        for backend in ("sqlite", "postgres"):
            for kill_at in ("half", "after", "random"):
                root = tmp_path_factory.mktemp(f"crash-{backend}-{kill_at}")
                if backend == "sqlite":
                    url = f"sqlite:///{root / 'ledger.db'}"
                else:
                    if not pg_available():
                        continue  # the test itself skips (or fails) through require_pg()
                    url = stack.enter_context(pg_schema_url())
                if kill_at == "random":
                    proc = _spawn(root, url, "--batches", "40", "--wait-stdin")
                else:
                    proc = _spawn(root, url, "--kill-at", kill_at, "--kill-batch", "3")
                stack.callback(_reap, proc)
                started[(backend, kill_at)] = (root, url, proc)
        yield started


def _reap(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=30)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("kill_at", ["half", "after"])
def test_self_kill_mid_batch(
    self_killed: dict[tuple[str, str], Any], backend: str, kill_at: str, clock: Clock
) -> None:
    """Deterministic: on batch 3 the child's store upserts the first half (or all) of the batch,
    then the child SIGKILLs itself before the ledger commit."""
    if backend == "postgres":
        require_pg()
    root, url, proc = self_killed[(backend, kill_at)]
    lines = _run_to_death(proc)
    assert "DONE" not in lines
    acks = _parse_acks(lines)
    assert len(acks) == 3 * BATCH  # batches 0, 1, 2 acknowledged; batch 3 never returned

    pending, _, committed, aborted = _verify_after_crash(root, url, acks, clock)
    assert len(pending) == BATCH  # exactly the batch in flight
    if kill_at == "half":
        assert len(committed) == BATCH // 2  # the half that reached the store
        assert len(aborted) == BATCH // 2
    else:
        assert len(committed) == BATCH  # the store had all of it
        assert aborted == set()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_kill_at_random_time(
    self_killed: dict[tuple[str, str], Any], backend: str, clock: Clock
) -> None:
    """The parent SIGKILLs the child at a random moment after a few acknowledged batches
    (the seed is in the failure message; MEMGUARD_CRASH_SEED replays one)."""
    if backend == "postgres":
        require_pg()
    root, url, proc = self_killed[(backend, "random")]
    seed = int(os.environ.get("MEMGUARD_CRASH_SEED", time.time_ns() % 100_000))
    rng = random.Random(seed)
    min_acks = BATCH * rng.randint(1, 3)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "READY", proc.stderr.read() if proc.stderr else ""
    proc.stdin.write("go\n")
    proc.stdin.flush()
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while sum(line.startswith("ACK ") for line in lines) < min_acks:
        line = proc.stdout.readline()
        assert line, f"child ended early (seed {seed}): {proc.stderr.read() if proc.stderr else ''}"
        lines.append(line.rstrip("\n"))
        assert time.monotonic() < deadline
    time.sleep(rng.uniform(0, 0.15))
    os.kill(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, f"seed {seed}"
    lines.extend(rest.splitlines())
    # a line cut by the kill was never a complete acknowledgement
    acks = _parse_acks([ln for ln in lines if ln.count(" ") == 2])
    assert len(acks) >= min_acks

    pending, _, committed, aborted = _verify_after_crash(root, url, acks, clock)
    assert len(pending) <= BATCH, f"seed {seed}"
    assert committed | aborted == pending
