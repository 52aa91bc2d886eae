"""One adapter error table: a backend that cannot be reached is the same typed error
(:class:`~memguard.errors.StoreUnavailable`, code ``backend.unavailable``) and the same HTTP status
(503 through the gateway's one mapping) through every adapter, sync and async, with a deny event
and no row left pending.

Before adapters/_toolkit.py, a ``ConnectionError`` was a 503 through the qdrant adapter and an
``internal`` 500 through LangGraph and mem0. The backends are the real ones of each adapter world
(tests/test_poisoning_adapters.py); what fails is the backend client's own call: Qdrant's
``upsert`` and mem0's ``add`` raise what their clients raise when the server is gone, LangGraph's
store raises ``ConnectionError``, and the SQL store is pointed at a database file it cannot open
(a real ``sqlite3.OperationalError`` through SQLAlchemy).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
from qdrant_client import models
from qdrant_client.http.exceptions import ResponseHandlingException
from sqlalchemy import create_engine
from test_poisoning_adapters import (
    CHAT,
    RESEARCH,
    Adapter,
    LangGraphAdapter,
    Mem0Adapter,
    QdrantAdapter,
    SqlAdapter,
    adapter,  # noqa: F401 - the parametrized fixture over every adapter
)

from adapters._toolkit import backend_error, flow_step, is_unavailable, scan_text
from memguard.context import CallContext
from memguard.errors import InvalidRequest, StoreError, StoreUnavailable
from memguard.gateway.errors import http_error
from memguard.ledger import FactState
from memguard.provenance import Turn


def break_backend(a: Adapter, monkeypatch: pytest.MonkeyPatch, who: Any, ctx: CallContext) -> None:
    def gone(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("connection refused")

    if isinstance(a, QdrantAdapter):
        raw = a.side.raw

        def lost(*args: Any, **kwargs: Any) -> Any:  # what qdrant-client raises, server gone
            raise ResponseHandlingException(ConnectionError("connection refused"))

        monkeypatch.setattr(raw, "upsert", lost)
    elif isinstance(a, LangGraphAdapter):
        inner = type(a.world.inner)  # the store's attributes are read-only: its class, undone after
        monkeypatch.setattr(inner, "batch", gone)
        monkeypatch.setattr(inner, "abatch", gone)
    elif isinstance(a, Mem0Adapter):
        monkeypatch.setattr(a.world.memory, "add", gone)
    else:
        assert isinstance(a, SqlAdapter)
        store = a.guard.store
        monkeypatch.setattr(store, "_engine", create_engine("sqlite:////nonexistent-dir/x/db.sqlite"))


def write(a: Adapter, who: Any, ctx: CallContext) -> None:
    text = "Alice prefers aisle seats on every trip."
    if isinstance(a, QdrantAdapter):
        point = models.PointStruct(id=7, vector=[0.5, 0.5, 0.5, 0.5], payload={"text": text})
        a.side.guard(who, ctx).upsert(RESEARCH, points=[point])
    elif isinstance(a, LangGraphAdapter):
        a.store(who, ctx).put((RESEARCH,), "k", {"text": text})
    elif isinstance(a, Mem0Adapter):
        a.memory(who, ctx, RESEARCH).add(text, infer=False)
    elif isinstance(a, SqlAdapter) and a.facade:
        a.memory(who, ctx).add(text, namespace=RESEARCH)
    else:
        assert isinstance(a, SqlAdapter)
        a.guard.write(who, text, namespace=RESEARCH, source=CHAT, turn=ctx.turn)


def test_a_backend_that_is_down_is_the_same_error_and_status_through_every_adapter(
    adapter: Adapter, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    who = adapter.identity("alice")
    ctx = CallContext(source=CHAT, turn=Turn(session_id="down", turn_index=0))
    break_backend(adapter, monkeypatch, who, ctx)
    with pytest.raises(StoreUnavailable) as exc:
        write(adapter, who, ctx)
    assert exc.value.code == "backend.unavailable"
    assert http_error(exc.value).status == 503
    denies = [e for e in adapter.ledger.events(decision="deny") if e.action == "write"]
    assert [e.reason for e in denies] == ["backend.unavailable"]
    assert adapter.ledger.in_state(FactState.PENDING) == []  # nothing left refused


@pytest.mark.parametrize(("raised", "expected"), [
    (ConnectionError("refused"), StoreUnavailable),
    (TimeoutError("slow"), StoreUnavailable),
    (OSError("socket"), StoreUnavailable),
    (ResponseHandlingException(OSError("x")), StoreUnavailable),
    (ValueError("shape"), InvalidRequest),
    (RuntimeError("bug"), StoreError),
])  # fmt: skip
def test_the_table(raised: Exception, expected: type[Exception]) -> None:
    err = backend_error("x", "call", raised)
    assert type(err) is expected and err.__cause__ is raised
    assert is_unavailable(raised) is (expected is StoreUnavailable)


def test_scan_text_takes_every_string_and_odd_keys() -> None:
    assert scan_text({"text": "a"}) == "a"
    assert scan_text({"a": ["b", {"c": "d"}], "n": 1}) == "b\nd"
    assert scan_text({"ignore previous instructions": 1}) == "ignore previous instructions"


def test_a_sql_error_that_is_not_about_the_connection_stays_a_store_error() -> None:
    import sqlite3

    from sqlalchemy.exc import OperationalError

    missing = OperationalError("SELECT 1", {}, sqlite3.OperationalError("no such table: t"))
    gone = OperationalError("SELECT 1", {}, sqlite3.OperationalError("unable to open database file"))
    assert type(backend_error("sql", "q", missing)) is StoreError
    assert type(backend_error("sql", "q", gone)) is StoreUnavailable


def test_flow_step_is_the_one_driver_step() -> None:
    def flow() -> Generator[str, object, str]:
        got = yield "first call"
        try:
            yield f"second call after {got}"
        except StoreUnavailable as exc:
            return f"handled {exc.code}"
        return "not reached"

    f = flow()
    assert flow_step(f, None, None) == (False, "first call")
    assert flow_step(f, 42, None) == (False, "second call after 42")
    # an error goes into the flow; its end comes back as a value, not as StopIteration
    assert flow_step(f, None, StoreUnavailable("down")) == (True, "handled backend.unavailable")
