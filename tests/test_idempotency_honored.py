"""The client repeats a ``POST`` write whose answer it lost only when the gateway said it honours
``Idempotency-Key`` (``Idempotency-Key-Honored: true`` on an earlier answer); ``PUT`` and
``DELETE`` are idempotent by method. A gateway run with ``idempotency.enabled: false`` stored such
a write twice: the client, trusting the key it sent, repeated it. A real gateway on 127.0.0.1;
the answer is lost in the client's transport after the gateway answered."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from gateway_helpers import Gateway, fact, running_gateway

from memguard import FactState, Source, SourceKind, Turn
from memguard.client import (
    AsyncMemguardClient,
    GatewayUnavailable,
    MemguardClient,
    NewFact,
    RetryPolicy,
    calls,
)
from memguard.client.calls import Session

FAST = RetryPolicy(attempts=4, backoff=0.05, max_wait=1.0, deadline=20.0)
SOURCE = Source(kind=SourceKind.USER_MESSAGE)
TURN = Turn(session_id="s", turn_index=0)
HONORED = "idempotency-key-honored"


@pytest.fixture
def keys_off(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path, mcp=False, idempotency={"enabled": False}) as gateway:
        yield gateway


@pytest.fixture
def keys_on(tmp_path: Path) -> Iterator[Gateway]:
    with running_gateway(tmp_path, mcp=False, idempotency={"lease": 1.0}) as gateway:
        yield gateway


class LoseAnswer(httpx.BaseTransport):
    """Each request goes to the real gateway; the answer to the first ``method`` request is lost
    on the way back (``sent``: the ``method`` requests)."""

    def __init__(self, method: str) -> None:
        self.inner = httpx.HTTPTransport()
        self.method = method
        self.sent: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        ours = request.method == self.method
        if ours:
            self.sent.append(request)
        response = self.inner.handle_request(request)
        response.read()
        if ours and len(self.sent) == 1:
            raise httpx.ReadTimeout("timed out after the gateway answered", request=request)
        return response


class AsyncLoseAnswer(httpx.AsyncBaseTransport):
    def __init__(self, method: str) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.method = method
        self.sent = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        ours = request.method == self.method
        self.sent += ours
        response = await self.inner.handle_async_request(request)
        await response.aread()
        if ours and self.sent == 1:
            raise httpx.ReadTimeout("timed out after the gateway answered", request=request)
        return response


def _committed(gw: Gateway) -> list[str]:
    return [r.fact_id for r in gw.stack.guard.ledger.in_state(FactState.COMMITTED)]


# -- what the gateway says ------------------------------------------------------------------------


@pytest.mark.parametrize(("which", "said"), [("keys_on", "true"), ("keys_off", "false")])
def test_every_answer_says_whether_keys_are_honoured(
    which: str, said: str, request: pytest.FixtureRequest
) -> None:
    gw: Gateway = request.getfixturevalue(which)
    token = gw.user_token()
    keyed = {**gw.headers(token), "Idempotency-Key": "k-1"}
    answers = [
        httpx.post(f"{gw.base}/v1/facts", json=fact("x"), headers=keyed, timeout=10),  # 201
        httpx.post(f"{gw.base}/v1/facts", json=fact("x"), headers=keyed, timeout=10),  # again
        httpx.get(f"{gw.base}/v1/facts", headers=gw.headers(token), timeout=10),  # a read
        httpx.post(f"{gw.base}/v1/facts", json=fact("x"), timeout=10),  # 401: no token
        httpx.post(f"{gw.base}/v1/facts", content=b"{", headers=keyed, timeout=10),  # 400/422
    ]
    assert [a.status_code for a in answers][:3] == [201, 201, 200]
    assert [a.headers.get(HONORED) for a in answers] == [said] * len(answers)
    replayed = answers[1].headers.get("idempotent-replayed")
    # honoured: the second try is the first answer again; not honoured: it ran again
    assert (replayed == "true") is (said == "true")
    assert len(_committed(gw)) == (1 if said == "true" else 2)


# -- what the client does with it -----------------------------------------------------------------


def test_a_lost_write_is_not_repeated_when_the_gateway_does_not_honour_keys(
    keys_off: Gateway,
) -> None:
    transport = LoseAnswer("POST")
    with MemguardClient(keys_off.base, keys_off.user_token(), retry=FAST,
                        transport=transport) as client:  # fmt: skip
        client.list_facts()  # an earlier answer: `Idempotency-Key-Honored: false`
        assert client.keys_honored is False
        with pytest.raises(GatewayUnavailable):
            client.write("once", namespace="notes", source=SOURCE, turn=TURN)
    assert len(transport.sent) == 1
    assert len(_committed(keys_off)) == 1  # it ran once; the client did not run it again


def test_a_lost_batch_is_not_repeated_by_the_async_client_either(keys_off: Gateway) -> None:
    async def run() -> int:
        transport = AsyncLoseAnswer("POST")
        async with AsyncMemguardClient(keys_off.base, keys_off.user_token(), retry=FAST,
                                       transport=transport) as client:  # fmt: skip
            await client.list_facts()
            with pytest.raises(GatewayUnavailable):
                await client.write_many([NewFact(text=t, namespace="n", source=SOURCE, turn=TURN)
                                         for t in ("a", "b")])  # fmt: skip
        return transport.sent

    assert asyncio.run(run()) == 1
    assert len(_committed(keys_off)) == 2  # the one batch of two facts, once


def test_before_the_gateway_said_anything_a_lost_write_is_not_repeated(keys_on: Gateway) -> None:
    transport = LoseAnswer("POST")
    with MemguardClient(keys_on.base, keys_on.user_token(), retry=FAST,
                        transport=transport) as client:  # fmt: skip
        assert client.keys_honored is None
        with pytest.raises(GatewayUnavailable):
            client.write("first call", namespace="notes", source=SOURCE, turn=TURN)
    assert len(transport.sent) == 1 and len(_committed(keys_on)) == 1


def test_a_lost_write_is_repeated_and_stored_once_when_the_gateway_honours_keys(
    keys_on: Gateway,
) -> None:
    transport = LoseAnswer("POST")
    with MemguardClient(keys_on.base, keys_on.user_token(), retry=FAST,
                        transport=transport) as client:  # fmt: skip
        client.list_facts()
        assert client.keys_honored is True
        out = client.write("once", namespace="notes", source=SOURCE, turn=TURN)
    assert len(transport.sent) == 2
    assert len({r.headers["idempotency-key"] for r in transport.sent}) == 1
    assert _committed(keys_on) == [out.fact_id]


def test_put_and_delete_are_repeated_by_method_without_keys(keys_off: Gateway) -> None:
    token = keys_off.user_token()
    with MemguardClient(keys_off.base, token, retry=FAST) as setup:
        fact_id = setup.write("v1", namespace="notes", source=SOURCE, turn=TURN).fact_id
    put = LoseAnswer("PUT")
    with MemguardClient(keys_off.base, token, retry=FAST, transport=put) as client:
        client.list_facts()
        out = client.update(fact_id, "v2", source=SOURCE, turn=TURN)
    assert len(put.sent) == 2  # sent again: the same content as a new version, harmlessly
    with MemguardClient(keys_off.base, token, retry=FAST) as client:
        assert client.get(fact_id).text == "v2" and out.fact_id == fact_id


# -- the rule itself ------------------------------------------------------------------------------


def _said(value: str | None) -> httpx.Response:
    return httpx.Response(200, headers={} if value is None else {"Idempotency-Key-Honored": value})


def test_the_latest_answer_decides_and_only_true_is_honoured() -> None:
    session = Session("t", None)
    write = calls.write("x", "n", SOURCE, TURN, None, None, (), None)
    update = calls.update("f", "x", SOURCE, TURN, None, None, None)
    delete, get = calls.delete("f", None), calls.get("f", "answer", None)
    endorse = calls.endorse("f", "r")
    assert (
        not write.idempotent and write.key is not None
    )  # a POST write: only with the gateway's word
    assert not session.may_repeat(write)  # nothing said yet
    assert all(session.may_repeat(c) for c in (update, delete, get))  # idempotent by method
    assert not session.may_repeat(endorse)  # no key, not idempotent
    for value, honoured in [("true", True), ("false", False), ("TRUE", True), ("yes", False),
                            ("", False), ("true", True)]:  # fmt: skip
        session.heard(_said(value))
        assert session.may_repeat(write) is honoured
        assert not session.may_repeat(endorse)
    session.heard(_said(None))  # an answer without the header (a proxy's) changes nothing
    assert session.may_repeat(write)
    session.heard(_said("false"))  # the gateway changed its mind: no longer
    assert not session.may_repeat(write)
