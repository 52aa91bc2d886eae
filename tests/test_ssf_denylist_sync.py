"""Deny entries reach the other processes at once (memguard.tokens.denylist_watch): PostgreSQL
LISTEN/NOTIFY and the SQLite change counter, with the periodic re-read set far out of the way
(60 s) so that only the notification can explain what the other list sees; and failing closed
when the counter cannot be read or the write fails."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from helpers import pg_schema_url
from identity_helpers import ISSUER
from sqlalchemy import text

from memguard.errors import IdentityError, LedgerError
from memguard.identity import PrincipalId
from memguard.tokens.denylist import DenyEntry, DenyList, TokenFacts


def facts(jti: str) -> TokenFacts:
    return TokenFacts(token_issuer=ISSUER, subject=PrincipalId(issuer=ISSUER, subject="alice"),
                      actors=(), jti=jti, sid=None, issued_at=1)


def entry(jti: str) -> DenyEntry:
    return DenyEntry("token", ISSUER, jti, None, 10**10, "test")


def test_sqlite_counter_makes_another_list_see_an_entry_on_its_next_check(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'deny.db'}"
    one, other = DenyList.from_url(url, refresh=60), DenyList.from_url(url, refresh=60)
    assert other.check(facts("j1")) is None  # loaded now: the next re-read is 60 s away
    one.add([entry("j1")])
    assert other.check(facts("j1")) is not None  # no wait: the counter moved
    blind = DenyList.from_url(url, refresh=60, watch=False)
    one.add([entry("j2")])
    assert blind.check(facts("j2")) is None  # the control: without the counter, 60 s stale


def test_sqlite_entry_added_by_another_process_is_seen_at_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'deny.db'}"
    mine = DenyList.from_url(url, refresh=60)
    assert mine.check(facts("p1")) is None
    code = ("from memguard.tokens.denylist import DenyEntry, DenyList; "
            f"DenyList.from_url({url!r}).add([DenyEntry('token', {ISSUER!r}, 'p1', None, "
            "10**10, 'other process')])")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert mine.check(facts("p1")) is not None


def test_postgresql_notify_reaches_another_list_without_the_re_read() -> None:
    with ExitStack() as stack:
        url = stack.enter_context(pg_schema_url())
        one = DenyList.from_url(url, refresh=60)
        stack.callback(one.close)
        other = DenyList.from_url(url, refresh=60)
        stack.callback(other.close)
        assert one.listening and other.listening
        assert other.check(facts("j1")) is None
        one.add([entry("j1")])
        deadline = time.monotonic() + 10
        while other.check(facts("j1")) is None:
            assert time.monotonic() < deadline, "the notification never arrived"
            time.sleep(0.005)
        blind = DenyList.from_url(url, refresh=60, watch=False)
        stack.callback(blind.close)
        one.add([entry("j2")])
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:  # the control: without LISTEN, 60 s stale
            assert blind.check(facts("j2")) is None
            time.sleep(0.05)
        assert other.check(facts("j2")) is not None


def test_an_unreadable_change_counter_refuses_every_call(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'deny.db'}"
    deny = DenyList.from_url(url, refresh=60)
    assert deny.check(facts("j1")) is None
    assert deny.engine is not None
    with deny.engine.begin() as conn:
        conn.execute(text("DROP TABLE memguard_ssf_denylist_version"))
    with pytest.raises(IdentityError) as info:
        deny.check(facts("j1"))
    assert info.value.code == "identity.revocation_unavailable"


def test_the_adding_process_refuses_at_once_even_when_the_write_fails(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'deny.db'}"
    deny = DenyList.from_url(url, refresh=60)
    assert deny.engine is not None
    with deny.engine.begin() as conn:
        conn.execute(text("DROP TABLE memguard_ssf_denylist"))
    with pytest.raises(LedgerError):
        deny.add([entry("j1")])
    # applied in memory before the write: stricter, never looser (the sender retries the event)
    assert deny.check(facts("j1")) is not None
