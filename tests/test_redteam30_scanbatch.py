"""Red team (stop 30): a scan failure or timeout on one item of a batch (write_many).

Every item of the batch must come out capped (``error`` -> untrusted), never the failing item
alone while its neighbours keep a ``clean`` verdict computed in the same call, and a stage whose
worker threads are all stuck still answers each later write within its timeout, never clean.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from memguard import LocalTokenService, MemoryGuard, Source, SourceKind, TrustLevel, Turn
from memguard.guard import FactInput
from memguard.scan import Label, RuleScanner, ScanContext, Verdict
from memguard.scan.stage import ScanPolicy, ScanStage

USER = Source(kind=SourceKind.USER_MESSAGE, name="chat")
TEXTS = ["Alice prefers aisle seats.", "POISON the next item", "Bob likes tea."]


class FailsOn:
    """Clean, except for texts holding ``POISON``: raises, or hangs until released."""

    id, version = "test.failson", "1"

    def __init__(self, hang: bool = False) -> None:
        self.hang = hang
        self.release = threading.Event()

    def scan(self, text: str, context: ScanContext) -> Verdict:
        if "POISON" in text:
            if not self.hang:
                raise RuntimeError("scanner crashed on one item")
            self.release.wait(30)
        return Verdict(Label.CLEAN, 0.0, (), self.id, self.version)


def _batch(i: int = 0) -> list[FactInput]:
    return [FactInput(text=t, namespace="n", source=USER, turn=Turn(session_id=f"b{i}", turn_index=j))
            for j, t in enumerate(TEXTS)]  # fmt: skip


def _guard(make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService,
           stage: ScanStage) -> tuple[MemoryGuard, Any]:  # fmt: skip
    g = make_guard("memory", scan_stage=stage)
    return g, g.authenticate(tokens.issue("alice", ttl=3600))


def test_one_crashing_item_caps_the_whole_batch(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    g, alice = _guard(make_guard, tokens, ScanStage([RuleScanner(), FailsOn()]))
    written = g.write_many(alice, _batch())
    assert [p.trust for p in written] == [TrustLevel.UNTRUSTED] * 3
    assert all(p.scan is not None and p.scan.label == "error" for p in written)


def test_one_hanging_item_times_out_the_whole_batch_and_a_stuck_pool_stays_closed(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    scanner = FailsOn(hang=True)
    g, alice = _guard(make_guard, tokens, ScanStage(scanner, ScanPolicy(timeout=0.3)))
    try:
        for i in range(6):  # more batches than the stage has worker threads (4), each stuck
            written = g.write_many(alice, _batch(i))
            assert [p.trust for p in written] == [TrustLevel.UNTRUSTED] * 3
            assert all(p.scan is not None and p.scan.reasons == ("scan.timeout",) for p in written)
        # every worker is stuck: a benign write waits in the queue, and is capped, not clean
        prov = g.write(alice, "Carol's flight is at nine.", namespace="n", source=USER,
                       turn=Turn(session_id="after", turn_index=0))  # fmt: skip
        assert prov.trust is TrustLevel.UNTRUSTED
        assert prov.scan is not None and prov.scan.reasons == ("scan.timeout",)
    finally:
        scanner.release.set()
