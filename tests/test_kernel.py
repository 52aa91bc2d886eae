"""The kernel's protocol, driven directly: verify -> decide -> stamp -> stage -> store -> commit ->
record, with a dict as the backend (the adapter's half). Each step that fails gives a typed error and
one deny event; nothing staged and not committed is ever served."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from memguard.errors import AccessDenied, IdentityError, InvalidRequest, LedgerError, MemguardError
from memguard.identity import Identity
from memguard.integrity import payload_candidate
from memguard.kernel import Kernel, StampRequest
from memguard.ledger import FactState, Ledger
from memguard.ports import Flow, FlowPort, MemoryPort, done, run_flow
from memguard.provenance import Provenance, Source, Turn, content_digest
from memguard.scope import DefaultScopeResolver, ReadRequest
from memguard.stores.base import build_payload
from memguard.tokens.local import LocalTokenService
from memguard.trust import SourceKind, TrustLevel

TURN = Turn(session_id="s", turn_index=0)
SOURCE = Source(kind=SourceKind.USER_MESSAGE)


class Backend:
    """The adapter's side: a dict of payloads, and a switch to make its next write fail."""

    def __init__(self) -> None:
        self.points: dict[str, dict[str, Any]] = {}
        self.fail_next = False

    def put(self, fact_id: str, payload: dict[str, Any]) -> None:
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("backend down")
        self.points[fact_id] = payload

    @staticmethod
    def of(port: MemoryPort) -> Backend:
        backend = Backend()
        backend.points = port.points
        return backend


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    tokens = LocalTokenService(tmp_path / "keys")
    k = Kernel(ledger=ledger, verifier=tokens.verifier())
    k.tokens = tokens  # type: ignore[attr-defined]
    yield k
    ledger.close()


def ident(kernel: Kernel, subject: str = "alice") -> Identity:
    return kernel.authenticate(kernel.tokens.issue(subject))  # type: ignore[attr-defined]


def write(kernel: Kernel, backend: Backend, who: Identity, text: str) -> str:
    with kernel.operation("write", who, turn=TURN) as op:
        (prov,) = op.stamp([StampRequest("notes", SOURCE, TURN, content_digest(text, {}))])
        op.persist([prov], FlowPort(lambda _: done(backend.put(prov.fact_id, build_payload(
            text, {}, prov))), lambda ids: done([])))
        return prov.fact_id


def read(kernel: Kernel, backend: Backend, who: Identity) -> list[str]:
    with kernel.operation("search", who) as op:
        request = ReadRequest("search")
        plan = op.read_plan(request)
        facts = op.verify(plan, request, [payload_candidate(i, p) for i, p in backend.points.items()])
        return [f.fact_id for f in facts]


def denies(kernel: Kernel) -> list[tuple[str, str]]:
    return [(e.action, e.reason) for e in kernel.ledger.events(decision="deny")]


def test_the_whole_protocol_commits_and_serves(kernel: Kernel) -> None:
    backend, alice = Backend(), ident(kernel)
    fact_id = write(kernel, backend, alice, "tea at five")
    assert kernel.ledger.latest([fact_id])[fact_id].state is FactState.COMMITTED
    assert read(kernel, backend, alice) == [fact_id]
    assert read(kernel, backend, ident(kernel, "bob")) == []
    assert [e.action for e in kernel.ledger.events(decision="allow")] == ["write", "search", "search"]


def test_a_backend_failure_after_staging_is_a_deny_and_the_row_is_never_served(kernel: Kernel) -> None:
    backend, alice = Backend(), ident(kernel)
    backend.fail_next = True
    with pytest.raises(MemguardError) as exc:
        write(kernel, backend, alice, "lost")
    assert exc.value.code == "internal"
    assert denies(kernel) == [("write", "internal")]
    (event,) = kernel.ledger.events(decision="deny")
    assert event.detail["error"] == "ConnectionError"
    assert backend.points == {} and read(kernel, backend, alice) == []


def test_a_point_the_ledger_never_committed_is_withheld(kernel: Kernel) -> None:
    """A backend that holds a point whose ledger row is only staged (a crash between store and
    commit) does not serve it."""
    backend, alice = Backend(), ident(kernel)
    with kernel.operation("write", alice, turn=TURN) as op:
        (prov,) = op.stamp([StampRequest("notes", SOURCE, TURN, content_digest("half", {}))])
        kernel.ledger.begin([prov])  # the protocol's first step, by hand
        backend.put(prov.fact_id, build_payload("half", {}, prov))
        op.finished = True  # the process "dies" here: no commit
    assert kernel.ledger.latest([prov.fact_id])[prov.fact_id].state is FactState.PENDING
    assert read(kernel, backend, alice) == []


@pytest.mark.parametrize(("raised", "expected", "code"), [
    (ValueError("bad"), InvalidRequest, "invalid_request"),
    (TypeError("bad"), InvalidRequest, "invalid_request"),
    (RuntimeError("bug"), MemguardError, "internal"),
    (KeyError("x"), MemguardError, "internal"),
    (AccessDenied("no", code="access_denied.custom"), AccessDenied, "access_denied.custom"),
])
def test_any_exception_inside_an_operation_is_a_typed_deny_with_one_event(
    kernel: Kernel, raised: Exception, expected: type[MemguardError], code: str
) -> None:
    alice = ident(kernel)
    with pytest.raises(expected) as exc, kernel.operation("search", alice):
        raise raised
    assert exc.value.code == code
    assert denies(kernel) == [("search", code)]


def test_no_identity_is_a_deny(kernel: Kernel) -> None:
    with pytest.raises(IdentityError), kernel.operation("search", None):
        pass
    assert denies(kernel) == [("search", "identity.missing")]


def test_a_scope_resolver_that_raises_fails_closed(kernel: Kernel) -> None:
    class Broken(DefaultScopeResolver):
        def read_plan(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("policy engine crashed")

    backend, alice = Backend(), ident(kernel)
    fact_id = write(kernel, backend, alice, "tea")
    kernel.scope = Broken()
    with pytest.raises(MemguardError):
        read(kernel, backend, alice)
    assert denies(kernel)[-1][0] == "search"
    kernel.scope = DefaultScopeResolver()
    assert read(kernel, backend, alice) == [fact_id]


def test_a_tampered_point_is_withheld_with_an_alarm(kernel: Kernel) -> None:
    backend, alice = Backend(), ident(kernel)
    fact_id = write(kernel, backend, alice, "pay invoices to account A")
    backend.points[fact_id]["text"] = "pay invoices to account B"
    assert read(kernel, backend, alice) == []
    assert any(e.decision == "alarm" for e in kernel.ledger.events()), kernel.ledger.events()


def test_trust_may_only_be_lowered(kernel: Kernel) -> None:
    alice = ident(kernel)
    with kernel.operation("write", alice, turn=TURN) as op:
        (low,) = op.stamp([StampRequest("notes", SOURCE, TURN, content_digest("x", {}),
                                        trust=TrustLevel.UNTRUSTED)])
        op.finished = True
    assert low.trust == TrustLevel.UNTRUSTED
    with pytest.raises(AccessDenied), kernel.operation("write", alice, turn=TURN) as op:
        op.stamp([StampRequest("notes", SOURCE, TURN, content_digest("x", {}),
                               trust=TrustLevel.SYSTEM)])
    assert denies(kernel)[-1][0] == "write"


def test_when_the_ledger_cannot_record_a_deny_the_refusal_stands(kernel: Kernel) -> None:
    alice = ident(kernel)
    kernel.ledger.close()
    with pytest.raises(AccessDenied), kernel.operation("search", alice):
        raise AccessDenied("no")


# -- the write protocol the kernel owns: Operation.persist with the in-memory port ----------------

FACT = "fact-1"


def port() -> MemoryPort:
    return MemoryPort(lambda prov: build_payload(f"text of {prov.fact_id}", {}, prov))


def persist(kernel: Kernel, who: Identity, the_port: MemoryPort, fact_id: str = FACT) -> Provenance:
    digest = content_digest(f"text of {fact_id}", {})
    with kernel.operation("write", who, turn=TURN) as op:
        (prov,) = op.stamp([StampRequest("notes", SOURCE, TURN, digest, fact_id=fact_id)])
        op.persist([prov], the_port)
        return prov


def state(kernel: Kernel, fact_id: str = FACT) -> list[tuple[int, FactState]]:
    return [(r.version, r.state) for r in kernel.ledger.versions(fact_id)]


def not_refused(kernel: Kernel, who: Identity, the_port: MemoryPort) -> None:
    """The id is not left refused (`access_denied.conflict`): the next write of it commits."""
    prov = persist(kernel, who, the_port)
    assert state(kernel)[-1] == (prov.version, FactState.COMMITTED)


def test_persist_stages_stores_and_commits(kernel: Kernel) -> None:
    alice, p = ident(kernel), port()
    prov = persist(kernel, alice, p)
    assert p.calls == ["put"] and state(kernel) == [(1, FactState.COMMITTED)]
    assert read(kernel, Backend.of(p), alice) == [prov.fact_id]


def test_a_store_failure_is_a_deny_with_an_event_and_the_id_is_not_left_refused(
    kernel: Kernel,
) -> None:
    alice, p = ident(kernel), port()
    p.fail_put = True
    with pytest.raises(MemguardError):
        persist(kernel, alice, p)
    assert denies(kernel) == [("write", "internal")]
    assert state(kernel) == [(1, FactState.ABORTED)]
    not_refused(kernel, alice, p)


def test_a_stage_failure_is_a_deny_with_an_event_and_nothing_is_staged(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, p = ident(kernel), port()

    def down(records: object) -> None:
        raise LedgerError("ledger down")

    monkeypatch.setattr(kernel.ledger, "begin", down)
    with pytest.raises(LedgerError):
        persist(kernel, alice, p)
    monkeypatch.undo()
    assert denies(kernel) == [("write", "backend.ledger")]
    assert p.calls == [] and state(kernel) == []
    not_refused(kernel, alice, p)


def test_a_commit_that_keeps_failing_is_resolved_by_abort_never_left_pending(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store took the write, the ledger refuses every commit: the kernel probes the port,
    retries once, then aborts (fail closed): a deny with its event, never a pending row."""
    alice, p = ident(kernel), port()

    def down(*a: object, **k: object) -> None:
        raise LedgerError("commit lost")

    monkeypatch.setattr(kernel.ledger, "commit", down)
    with pytest.raises(LedgerError):
        persist(kernel, alice, p)
    monkeypatch.undo()
    assert p.calls == ["put", "probe"]
    assert state(kernel) == [(1, FactState.ABORTED)]
    (event,) = kernel.ledger.events(decision="deny")
    assert (event.action, event.reason, event.detail["commit_error"]) == (
        "write", "backend.ledger", "LedgerError"
    )
    assert read(kernel, Backend.of(p), alice) == []  # the orphan point is withheld
    not_refused(kernel, alice, p)


def test_a_commit_that_fails_once_is_committed_after_the_probe(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, p = ident(kernel), port()
    real, calls = kernel.ledger.commit, []

    def once(*a: Any, **k: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise LedgerError("commit lost")
        real(*a, **k)

    monkeypatch.setattr(kernel.ledger, "commit", once)
    prov = persist(kernel, alice, p)
    assert p.calls == ["put", "probe"] and state(kernel) == [(1, FactState.COMMITTED)]
    assert [e.reason for e in kernel.ledger.events(decision="allow")] == ["recovered_commit"]
    assert read(kernel, Backend.of(p), alice) == [prov.fact_id]


def test_a_commit_whose_answer_was_lost_is_not_aborted(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit went through but raised afterwards: the kernel sees the committed version."""
    alice, p = ident(kernel), port()
    real = kernel.ledger.commit

    def lost_answer(*a: Any, **k: Any) -> None:
        real(*a, **k)
        raise LedgerError("answer lost")

    monkeypatch.setattr(kernel.ledger, "commit", lost_answer)
    persist(kernel, alice, p)
    assert state(kernel) == [(1, FactState.COMMITTED)]


@pytest.mark.parametrize("how", ["probe fails", "store holds another version"])
def test_after_a_failed_commit_a_write_the_probe_cannot_confirm_is_aborted(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Fail closed: the kernel commits after a failed commit only what the backend provably
    holds; if this failed open, the row would end committed."""
    alice, p = ident(kernel), port()
    real, calls = kernel.ledger.commit, []

    def once(*a: Any, **k: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            if how == "probe fails":
                p.fail_probe = True
            else:
                p.points[FACT]["text"] = "something else"
            raise LedgerError("commit lost")
        real(*a, **k)

    monkeypatch.setattr(kernel.ledger, "commit", once)
    with pytest.raises(LedgerError):
        persist(kernel, alice, p)
    assert state(kernel) == [(1, FactState.ABORTED)] and len(calls) == 1
    assert denies(kernel) == [("write", "backend.ledger")]


def test_a_row_whose_abort_failed_is_resolved_on_its_next_touch_once(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Store and ledger both fail: the row stays pending, and the next write of the id resolves
    it in-process (an audited recover event) instead of refusing with a conflict."""
    alice, p = ident(kernel), port()
    p.fail_put = True

    def down(records: object) -> None:
        raise LedgerError("ledger down")

    monkeypatch.setattr(kernel.ledger, "abort", down)
    with pytest.raises(MemguardError):
        persist(kernel, alice, p)
    monkeypatch.undo()
    assert state(kernel) == [(1, FactState.PENDING)]
    not_refused(kernel, alice, p)
    assert state(kernel) == [(1, FactState.ABORTED), (2, FactState.COMMITTED)]
    recovered = [e for e in kernel.ledger.events() if e.action == "recover"]
    assert [(e.reason, e.fact_ids) for e in recovered] == [("recovered_abort", (FACT,))]
    assert kernel.resolve_stuck() == []  # idempotent: nothing left, no second event
    assert len([e for e in kernel.ledger.events() if e.action == "recover"]) == 1


def test_recovery_is_idempotent(kernel: Kernel) -> None:
    """A crash after the store (pending row, point held) and one before it (pending, no point):
    recovery commits the first, aborts the second; a second run changes nothing."""
    alice, p = ident(kernel), port()
    for fact_id, stored in (("landed", True), ("lost", False)):
        digest = content_digest(f"text of {fact_id}", {})
        with kernel.operation("write", alice, turn=TURN) as op:
            (prov,) = op.stamp([StampRequest("notes", SOURCE, TURN, digest, fact_id=fact_id)])
            kernel.ledger.begin([prov])  # the process dies after staging
            if stored:
                p.points[fact_id] = p.build(prov)
            op.finish()
    first = kernel.recover_pending(p.probe)
    assert first == (["landed"], ["lost"])
    events = len(kernel.ledger.events())
    assert kernel.recover_pending(p.probe) == ([], [])
    assert len(kernel.ledger.events()) == events
    assert state(kernel, "landed") == [(1, FactState.COMMITTED)]
    assert state(kernel, "lost") == [(1, FactState.ABORTED)]


class SlowPort(MemoryPort):
    """A put that waits on a gate, recording the order in which writes enter and leave it."""

    def __init__(self, log: list[str], gate: threading.Event) -> None:
        super().__init__(lambda prov: build_payload(f"text of {prov.fact_id}", {}, prov))
        self.log, self.gate = log, gate

    def put(self, records: Sequence[Provenance]) -> Flow[int]:
        self.log.append(f"put v{records[0].version}")
        self.gate.wait(10)
        self.log.append(f"done v{records[0].version}")
        return super().put(records)


def test_two_concurrent_writes_of_one_id_are_serialized(kernel: Kernel) -> None:
    """The second write waits for the first to commit, then writes the next version; without
    the kernel's claim both would stamp version 1 and one would fail at the ledger."""
    alice = ident(kernel)
    log: list[str] = []
    gate = threading.Event()
    results: list[object] = []

    def writer() -> None:
        try:
            results.append(persist(kernel, alice, SlowPort(log, gate)).version)
        except Exception as exc:  # pragma: no cover - the failure the test looks for
            results.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    assert log == ["put v1"]  # the second writer waits at its claim, before stamping
    gate.set()
    for t in threads:
        t.join(10)
    assert sorted(results, key=str) == [1, 2]
    assert log == ["put v1", "done v1", "put v2", "done v2"]
    assert state(kernel) == [(1, FactState.SUPERSEDED), (2, FactState.COMMITTED)]


def test_a_write_that_waits_too_long_for_an_id_is_a_conflict(kernel: Kernel) -> None:
    alice = ident(kernel)
    kernel.claim_timeout = 0.2
    gate = threading.Event()
    holder = threading.Thread(target=lambda: persist(kernel, alice, SlowPort([], gate)))
    holder.start()
    time.sleep(0.1)
    with pytest.raises(AccessDenied) as exc:
        persist(kernel, alice, port())
    gate.set()
    holder.join(10)
    assert exc.value.code == "access_denied.conflict"
    assert denies(kernel) == [("write", "access_denied.conflict")]
    not_refused(kernel, alice, port())


def test_on_an_event_loop_a_claim_never_blocks(kernel: Kernel) -> None:
    alice = ident(kernel)
    kernel.claim_timeout = 30.0
    gate = threading.Event()
    holder = threading.Thread(target=lambda: persist(kernel, alice, SlowPort([], gate)))
    holder.start()
    time.sleep(0.1)

    async def on_loop() -> float:
        start = time.monotonic()
        with pytest.raises(AccessDenied):
            persist(kernel, alice, port())
        return time.monotonic() - start

    try:
        assert asyncio.run(on_loop()) < 5.0
    finally:
        gate.set()
        holder.join(10)


def test_delete_tombstones_then_purges_through_the_kernel(kernel: Kernel) -> None:
    alice, p = ident(kernel), port()
    persist(kernel, alice, p)
    with kernel.operation("delete", alice) as op:
        op.delete([FACT], lambda: run_flow(p.purge([FACT])))
    assert FACT not in p.points and state(kernel) == [(1, FactState.DELETED)]
    assert kernel.ledger.in_state(FactState.DELETED, purged=False) == []


# -- no adapter drives the protocol itself ------------------------------------------------------

_DRIVES = re.compile(
    r"\.(stage|abort|commit|tombstone|purged)\(|"  # the protocol's steps
    r"\bop\.(\w+)\s*(\[[^\]]*\])?\s*(=|\+=|-=)(?!=)|"  # writes to Operation state
    r"\bop\.(detail|fact_ids|_edges|_claims)\.(append|update|extend|setdefault|pop|clear)\(|"
    r"\bledger\.(begin|commit|abort|mark_deleted|mark_purged)\("
)


def _protocol_drivers() -> list[str]:
    root = Path(__file__).resolve().parents[1]
    files = [*sorted((root / "adapters").rglob("*.py")), root / "memguard/guard.py",
             root / "memguard/aio.py"]  # fmt: skip
    hits = []
    for path in files:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if _DRIVES.search(code):
                hits.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    return hits


def test_no_adapter_or_guard_stages_aborts_commits_or_writes_operation_state() -> None:
    assert _protocol_drivers() == []


def test_the_driver_check_catches_what_it_looks_for() -> None:
    for line in ("op.stage(records)", "op.abort(staged)", "op.commit(r, x=1)",
                 'op.detail["why"] = "x"', "op.fact_ids = ids", "op.finished = True",
                 "op.detail.setdefault('scan', [])", "self.ledger.commit([p], [e])",
                 "op.tombstone(ids)"):  # fmt: skip
        assert _DRIVES.search(line), line
    for line in ("op.persist(records, port)", "op.note(why='x')", "op.about(ids)",
                 "if op.finished == True:", "yield from op.delete_flow(ids, purge)"):  # fmt: skip
        assert not _DRIVES.search(line), line
