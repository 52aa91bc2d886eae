"""The kernel's protocol, driven directly: verify -> decide -> stamp -> stage -> store -> commit ->
record, with a dict as the backend (the adapter's half). Each step that fails gives a typed error and
one deny event; nothing staged and not committed is ever served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memguard.errors import AccessDenied, IdentityError, InvalidRequest, MemguardError
from memguard.identity import Identity
from memguard.integrity import payload_candidate
from memguard.kernel import Kernel, StampRequest
from memguard.ledger import FactState, Ledger
from memguard.ports import FlowPort, done
from memguard.provenance import Source, Turn, content_digest
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
