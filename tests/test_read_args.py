"""Invalid `min_trust` / `purpose` on any read raise a typed error before the audited operation
opens (no half-audited operation, no pydantic error leaking out of the audit event, no filter that
silently matches nothing); valid level names work and still narrow the scope."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memguard.aio import AsyncMemoryGuard
from memguard.context import CallContext
from memguard.errors import InvalidRequest
from memguard.provenance import Source, Turn
from memguard.readargs import check_min_trust, check_purpose
from memguard.testing import GuardHarness, guard_harness
from memguard.trust import SourceKind, TrustLevel

BAD_TRUST: list[Any] = ["bogus", "USER", 99, -1, True, 1.5, ["user"]]
BAD_PURPOSE: list[Any] = ["", 5, None, "x" * 65, "Answer", "an swer", "weird\u200b", "ans\nwer"]


@pytest.fixture
def h(tmp_path: Path) -> Iterator[GuardHarness]:
    with guard_harness(tmp_path) as harness:
        yield harness


def _events(h: GuardHarness) -> int:
    return len(h.guard.ledger.events(limit=100_000))


@pytest.mark.parametrize("value", BAD_TRUST)
def test_bad_min_trust_is_refused_before_any_event(h: GuardHarness, value: Any) -> None:
    alice = h.identity("alice")
    h.write(alice, "alice likes tea")
    before = _events(h)
    for call in (lambda: h.guard.search(alice, "tea", min_trust=value),
                 lambda: h.guard.list_facts(alice, min_trust=value)):  # fmt: skip
        with pytest.raises(InvalidRequest) as info:
            call()
        assert info.value.code == "invalid_request.min_trust"
    assert _events(h) == before


@pytest.mark.parametrize("value", BAD_PURPOSE)
def test_bad_purpose_is_refused_before_any_event(h: GuardHarness, value: Any) -> None:
    alice = h.identity("alice")
    fact = h.write(alice, "alice likes tea")
    before = _events(h)
    for call in (lambda: h.guard.search(alice, "tea", purpose=value),
                 lambda: h.guard.list_facts(alice, purpose=value),
                 lambda: h.guard.get(alice, fact.fact_id, purpose=value)):  # fmt: skip
        with pytest.raises(InvalidRequest) as info:
            call()
        assert info.value.code == "invalid_request.purpose"
    with pytest.raises(InvalidRequest) as info:  # every adapter's purpose comes from its context
        CallContext(source=Source(kind=SourceKind.WEB), turn=Turn(session_id="s", turn_index=0),
                    purpose=value)  # fmt: skip
    assert info.value.code == "invalid_request.purpose"
    assert _events(h) == before


def test_the_async_shell_refuses_the_same(h: GuardHarness) -> None:
    alice = h.identity("alice")
    aguard = AsyncMemoryGuard(h.guard)
    with pytest.raises(InvalidRequest) as info:
        asyncio.run(aguard.search(alice, "tea", min_trust="bogus"))  # type: ignore[arg-type]
    assert info.value.code == "invalid_request.min_trust"


def test_level_names_are_accepted_and_narrow_the_scope(h: GuardHarness) -> None:
    alice = h.identity("alice")
    h.write(alice, "alice said she likes tea")  # user_message: user
    h.write(alice, "a web page says alice likes tea", source="web", uri="https://x.example")
    assert len(h.guard.search(alice, "tea", k=10)) == 2
    said = h.guard.search(alice, "tea", k=10, min_trust="user")  # type: ignore[arg-type]
    assert [f.text for f in said] == ["alice said she likes tea"]
    assert h.guard.search(alice, "tea", k=10, min_trust=int(TrustLevel.VERIFIED)) == []  # type: ignore[arg-type]
    page, _ = h.guard.list_facts(alice, min_trust="user", purpose="tool_argument")  # type: ignore[arg-type]
    assert [f.text for f in page] == ["alice said she likes tea"]


def test_the_checks_themselves() -> None:
    assert check_min_trust(None) is None
    assert check_min_trust("untrusted") is TrustLevel.UNTRUSTED
    assert check_min_trust(TrustLevel.SYSTEM) is TrustLevel.SYSTEM
    assert check_purpose("tool_argument") == "tool_argument"
    assert check_purpose("_internal") == "_internal"  # what the gateway's pattern admits
