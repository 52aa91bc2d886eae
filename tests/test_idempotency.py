"""Idempotency-Key on writes, and the client's retries: a retried write is stored once and
answered with the first result; Retry-After is honoured; non-idempotent calls are not repeated
when they may have run. A real gateway on 127.0.0.1 throughout; failures are injected into its
real store and ledger, or into the client's transport after the gateway answered."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, fact, running_gateway

from memguard import FactState, RevocationSelector, Source, SourceKind, Turn
from memguard.client import (
    AsyncMemguardClient,
    Conflict,
    GatewayUnavailable,
    MemguardClient,
    NewFact,
    RateLimited,
    RetryPolicy,
)
from memguard.errors import LedgerError

FAST = RetryPolicy(attempts=8, backoff=0.05, max_wait=2.0, deadline=20.0)


@pytest.fixture
def gw(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path, mcp=False, idempotency={"lease": 1.0}) as gateway:
        yield gateway


def _keyed(gw: Gateway, token: str, key: str, body: Any, path: str = "/v1/facts",
           method: str = "POST") -> httpx.Response:
    return httpx.request(method, f"{gw.base}{path}", json=body, timeout=10,
                         headers={**gw.headers(token), "Idempotency-Key": key})


def _committed(gw: Gateway) -> set[str]:
    return {r.fact_id for r in gw.stack.guard.ledger.in_state(FactState.COMMITTED)}


def test_the_same_key_and_body_is_stored_once_and_answered_with_the_first_result(
    gw: Gateway,
) -> None:
    alice = gw.user_token("alice")
    first = _keyed(gw, alice, "k-1", fact("only once"))
    again = _keyed(gw, alice, "k-1", fact("only once"))
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert _committed(gw) == {first.json()["fact_id"]}
    # the key is in the write's audit event
    writes = [e for e in gw.stack.guard.ledger.events() if e.action == "write"]
    assert len(writes) == 1 and writes[0].detail["idempotency_key"] == "k-1"
    # another body under the same key is refused, and the refusal is audited
    other = _keyed(gw, alice, "k-1", fact("something else"))
    assert other.status_code == 409 and other.json()["error"]["code"] == "idempotency.key_reused"
    denies = [e for e in gw.stack.guard.ledger.events(decision="deny")]
    assert denies[-1].reason == "idempotency.key_reused"
    # keys are per principal: bob's k-1 is his own
    bob = _keyed(gw, gw.user_token("bob"), "k-1", fact("only once"))
    assert bob.status_code == 201 and bob.json()["fact_id"] != first.json()["fact_id"]
    # a malformed key is refused
    bad = _keyed(gw, alice, "has space", fact("x"))
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "idempotency.invalid_key"


def test_batch_update_and_delete_replay(gw: Gateway) -> None:
    alice = gw.user_token("alice")
    batch = {"facts": [fact("a"), fact("b")]}
    first = _keyed(gw, alice, "b-1", batch, "/v1/facts/batch")
    assert _keyed(gw, alice, "b-1", batch, "/v1/facts/batch").json() == first.json()
    fact_id = first.json()["facts"][0]["fact_id"]
    body = {"text": "a2", "source": {"kind": "user_message"},
            "turn": {"session_id": "s-1", "turn_index": 1}}
    updated = _keyed(gw, alice, "u-1", body, f"/v1/facts/{fact_id}", "PUT")
    replayed = _keyed(gw, alice, "u-1", body, f"/v1/facts/{fact_id}", "PUT")
    assert updated.status_code == replayed.status_code == 200
    assert replayed.json() == updated.json() and updated.json()["provenance"]["version"] == 2
    versions = gw.stack.guard.ledger.versions(fact_id)
    assert [v.version for v in versions] == [1, 2]  # the retry made no third version
    gone = _keyed(gw, alice, "d-1", None, f"/v1/facts/{fact_id}", "DELETE")
    again = _keyed(gw, alice, "d-1", None, f"/v1/facts/{fact_id}", "DELETE")
    assert gone.status_code == again.status_code == 204
    assert again.headers["idempotent-replayed"] == "true"


def test_concurrent_tries_store_one_fact(gw: Gateway) -> None:
    alice = gw.user_token("alice")
    results: list[httpx.Response] = []

    def send() -> None:
        results.append(_keyed(gw, alice, "race", fact("raced")))

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(r.status_code for r in results)
    assert set(codes) <= {201, 409} and 201 in codes
    assert all(r.json()["error"]["code"] == "idempotency.in_progress"
               for r in results if r.status_code == 409)
    ids = {r.json()["fact_id"] for r in results if r.status_code == 201}
    assert len(ids) == 1 and _committed(gw) == ids


class _LoseFirstResponse(httpx.BaseTransport):
    """Sends each request to the real gateway; the first answer to a POST is lost on the way
    back (``sent``: the POSTs)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.sent: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.sent.append(request)
        response = self.inner.handle_request(request)
        response.read()
        if request.method == "POST" and len(self.sent) == 1:
            raise httpx.ReadError("connection reset after the gateway answered", request=request)
        return response


def test_a_write_whose_answer_was_lost_is_retried_and_stored_once(gw: Gateway) -> None:
    transport = _LoseFirstResponse()
    with MemguardClient(gw.base, gw.user_token(), retry=FAST, transport=transport) as client:
        client.list_facts()  # an earlier answer: `Idempotency-Key-Honored: true`
        out = client.write("lost answer", namespace="notes", turn=Turn(session_id="s",
                           turn_index=0), source=Source(kind=SourceKind.USER_MESSAGE))
    assert len(transport.sent) == 2
    keys = {r.headers["idempotency-key"] for r in transport.sent}
    assert len(keys) == 1  # the same key on every try
    assert _committed(gw) == {out.fact_id}


def test_a_revocation_is_not_repeated_when_it_may_have_run(gw: Gateway) -> None:
    token = gw.user_token(scopes=("memory:read", "memory:write", "memory:revoke"))
    transport = _LoseFirstResponse()
    with MemguardClient(gw.base, token, retry=FAST, transport=transport) as client:
        with pytest.raises(GatewayUnavailable):
            client.revoke(RevocationSelector.domain("evil.example"), reason="bad")
    assert len(transport.sent) == 1
    revocations = gw.stack.guard.ledger.lineage.revocations(active=True)
    assert len(revocations) == 1  # it ran once; the client did not run it again

    # never sent (connection refused): any call is sent again, a revocation too
    class _RefuseFirst(httpx.HTTPTransport):
        tries = 0

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            type(self).tries += 1
            if type(self).tries == 1:
                raise httpx.ConnectError("refused", request=request)
            return super().handle_request(request)

    with MemguardClient(gw.base, token, retry=FAST, transport=_RefuseFirst()) as client:
        client.revoke(RevocationSelector.domain("worse.example"), reason="bad")
    assert _RefuseFirst.tries == 2


def test_retry_after_is_honoured_on_429(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False,
                         limits={"memory_rate": {"per_minute": 120, "burst": 2}}) as gw:
        token = gw.user_token()
        with MemguardClient(gw.base, token, retry=FAST) as client:
            started = time.monotonic()
            for _ in range(3):  # the third waits for the window (1 s), then succeeds
                client.search("x")
            assert time.monotonic() - started >= 0.9
        bob = gw.user_token("bob")
        with MemguardClient(gw.base, bob, retry=RetryPolicy(attempts=2, max_wait=0.01)) as c:
            c.search("x")
            c.search("x")
            with pytest.raises(RateLimited):  # a wait capped below Retry-After: out of tries
                c.search("x")


def test_a_write_pending_when_its_worker_died_is_reconciled_then_replayed(
    gw: Gateway, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store took the point but the ledger commit failed (as if the worker died there): the
    retry waits for the lease, recovery commits the stored point, the retry gets that fact."""
    ledger = gw.stack.guard.ledger
    real_commit = ledger.commit
    calls = {"n": 0}

    def commit_fails_once(*a: Any, **k: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise LedgerError("lost the database connection")
        real_commit(*a, **k)

    monkeypatch.setattr(ledger, "commit", commit_fails_once)
    with MemguardClient(gw.base, gw.user_token(), retry=FAST) as client:
        out = client.write("pending", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                           turn=Turn(session_id="s", turn_index=0))
    assert _committed(gw) == {out.fact_id}
    recovered = [e for e in ledger.events() if e.reason == "recovered_commit"]
    assert [e.fact_ids for e in recovered] == [(out.fact_id,)]


def test_a_write_that_never_reached_the_store_is_written_again(
    gw: Gateway, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Staged, then the store failed and the abort was lost too (a dead worker): after the lease,
    recovery aborts the row and the retry stores the fact, once."""
    from memguard.errors import StoreError

    store, ledger = gw.stack.store, gw.stack.guard.ledger
    real_upsert, real_abort = store.upsert, ledger.abort
    state = {"upserts": 0, "aborts": 0}

    def upsert(points: Any) -> None:
        state["upserts"] += 1
        if state["upserts"] == 1:
            raise StoreError("store went away")
        real_upsert(points)

    def abort(records: Any) -> None:
        state["aborts"] += 1
        if state["aborts"] == 1:
            raise LedgerError("and so did the ledger")
        real_abort(records)

    monkeypatch.setattr(store, "upsert", upsert)
    monkeypatch.setattr(ledger, "abort", abort)
    with MemguardClient(gw.base, gw.user_token(), retry=FAST) as client:
        out = client.write("again", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                           turn=Turn(session_id="s", turn_index=0))
    assert _committed(gw) == {out.fact_id}
    aborted = [r for r in ledger.in_state(FactState.ABORTED)]
    assert len(aborted) == 1 and aborted[0].fact_id != out.fact_id


def test_the_idempotency_record_survives_a_restart(tmp_path: Path) -> None:
    from memguard.gateway.server import free_port

    server = {"host": "127.0.0.1", "port": free_port()}  # one resource: the same principal
    with running_gateway(tmp_path, mcp=False, server=server) as gw:
        token = gw.user_token()
        first = _keyed(gw, token, "restart-1", fact("durable"))
    with running_gateway(tmp_path, mcp=False, server=server) as gw2:  # new state, same ledger
        again = _keyed(gw2, token, "restart-1", fact("durable"))
        assert again.status_code == 201 and again.json() == first.json()
        assert _committed(gw2) == {first.json()["fact_id"]}


def test_key_reused_is_not_retried_by_the_client(gw: Gateway) -> None:
    with MemguardClient(gw.base, gw.user_token(), retry=FAST) as client:
        client.write("one", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                     turn=Turn(session_id="s", turn_index=0), idempotency_key="fixed")
        with pytest.raises(Conflict) as info:
            client.write("two", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                         turn=Turn(session_id="s", turn_index=0), idempotency_key="fixed")
    assert info.value.code == "idempotency.key_reused"


def test_the_async_client_retries_alike(gw: Gateway) -> None:
    class _LoseFirst(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()
            self.sent = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.sent += request.method == "POST"
            response = await self.inner.handle_async_request(request)
            await response.aread()
            if request.method == "POST" and self.sent == 1:
                raise httpx.ReadTimeout("timed out after the gateway answered", request=request)
            return response

    async def run() -> tuple[list[str], int]:
        transport = _LoseFirst()
        async with AsyncMemguardClient(gw.base, gw.user_token(), retry=FAST,
                                       transport=transport) as client:
            await client.list_facts()  # an earlier answer: `Idempotency-Key-Honored: true`
            outs = await client.write_many([
                NewFact(text="a", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                        turn=Turn(session_id="s", turn_index=0)),
                NewFact(text="b", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                        turn=Turn(session_id="s", turn_index=0)),
            ])
        return [o.fact_id for o in outs], transport.sent

    ids, sent = asyncio.run(run())
    assert sent == 2 and _committed(gw) == set(ids)
