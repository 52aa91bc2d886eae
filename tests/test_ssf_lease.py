"""The poll lease (memguard.gateway.ssf_lease) on its own: one holder, renewal, takeover after the
holder's expiry (SQLite) or the end of its session (PostgreSQL), and a lease that cannot be read
is not held, so its poller does not poll."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import Clock, pg_schema_url
from sqlalchemy import create_engine
from ssf_helpers import PollingTransmitter

from memguard import Ledger
from memguard.gateway.ssf_lease import PgAdvisoryLease, SqlLease
from memguard.gateway.ssf_poll import SsfPoller
from memguard.tokens.server import serve_local


def test_sql_lease_has_one_holder_and_is_taken_over_after_expiry(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'l.db'}")
    clock = Clock(1000)
    a = SqlLease(engine, "poll:x", ttl=5, holder="a", clock=clock)
    b = SqlLease(engine, "poll:x", ttl=5, holder="b", clock=clock)
    other = SqlLease(engine, "poll:y", ttl=5, holder="b", clock=clock)
    assert a.acquire() and not b.acquire()
    assert other.acquire()  # another transmitter's lease is its own
    clock.advance(4)
    assert a.acquire() and not b.acquire()  # renewed: good for 5 s more
    clock.advance(4)
    assert not b.acquire()
    clock.advance(2)  # a stopped renewing (it died): expired
    assert b.acquire() and not a.acquire()
    b.release()
    assert a.acquire()


def test_an_unreadable_lease_is_not_held_and_nothing_is_polled(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'missing' / 'l.db'}")  # cannot be opened
    lease = SqlLease(engine, "poll:x", ttl=5)
    assert lease.acquire() is False and lease.failing
    tx = PollingTransmitter()
    ledger = Ledger.sqlite(tmp_path / "ledger.db")
    with serve_local(tx.app()) as base:
        # the receiver is never reached (a poller without the lease does not poll); its
        # guard's ledger takes the alarm
        receiver: Any = SimpleNamespace(guard=SimpleNamespace(ledger=ledger))
        poller = SsfPoller(receiver, issuer=tx.issuer, url=f"{base}/poll", interval=0.05,
                           lease=lease)
        poller.start()
        try:
            time.sleep(0.5)
        finally:
            poller.stop()
        assert tx.requests == [] and poller.holding is False
    alarms = [e.reason for e in ledger.events() if e.action == "ssf.poll"]
    assert alarms == ["ssf.poll_lease_failed"]  # one alarm for the run of failures
    ledger.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    with pg_schema_url() as url:
        yield url


def test_pg_advisory_lease_is_released_when_the_holders_session_ends(pg_url: str) -> None:
    engine = create_engine(pg_url)
    try:
        a, b = PgAdvisoryLease(engine, "poll:x"), PgAdvisoryLease(engine, "poll:x")
        assert a.acquire() and not b.acquire()
        assert a.acquire()  # held, and still connected
        a._conn.close()  # the holder's session ends (as when its process dies)
        # the server releases the lock when the backend has exited, a moment after the close
        deadline = time.monotonic() + 10
        while not b.acquire():
            assert time.monotonic() < deadline, "the lease was not released with the session"
            time.sleep(0.05)
        assert not a.acquire()  # the old holder notices and does not poll
        b.release()
        assert a.acquire()
        a.release()
    finally:
        engine.dispose()
