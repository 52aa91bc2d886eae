"""Lookalike principals are flagged (UTS #39 skeletons via ICU), never merged and never refused.

``\u0430lice`` (a Cyrillic a) passes the identifier rules (NFKC leaves it alone) and is its own principal;
with the watch on, its first authentication records an ``alarm`` naming the ``alice`` it looks like.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("icu", reason="PyICU is not installed (the `confusables` extra)")

from gateway_helpers import gateway_config
from helpers import PLANNER
from identity_helpers import make_client

from memguard import (
    ConfigurationError,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    Turn,
)
from memguard.gateway.stack import open_stack
from memguard.tokens.confusables import ConfusableWatch


def alarms(guard: MemoryGuard) -> list[tuple[str, list[str]]]:
    return [(e.principal["subject"] if e.principal else "", [x["subject"] for x in e.detail["looks_like"]])
            for e in guard.ledger.events(decision="alarm") if e.reason == "identity.confusable"]


def test_skeletons() -> None:
    watch = ConfusableWatch()
    assert watch.skeleton("\u0430lice") == watch.skeleton("alice") == watch.skeleton("a1ice")
    assert watch.skeleton("m") == watch.skeleton("rn")
    assert watch.skeleton("bob") != watch.skeleton("alice")


def test_a_lookalike_of_an_existing_principal_is_flagged_not_refused(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    guard = make_guard("memory")
    alice = guard.authenticate(tokens.issue("alice"))
    guard.write(alice, "alice's note", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id="s", turn_index=0))
    guard.kernel.confusables = ConfusableWatch(guard.ledger.owners())  # what the ledger knows
    assert guard.authenticate(tokens.issue("alice")).principal.subject.subject == "alice"
    lookalike = guard.authenticate(tokens.issue("\u0430lice"))  # verified, its own principal
    assert lookalike.principal.subject.subject == "\u0430lice"
    assert guard.search(lookalike, "alice note", k=5) == []
    guard.authenticate(tokens.issue("\u0430lice"))  # flagged once
    guard.authenticate(tokens.issue("a1ice"))
    guard.authenticate(tokens.issue("bob"))
    assert alarms(guard) == [("\u0430lice", ["alice"]), ("a1ice", ["alice", "\u0430lice"])]


def test_a_broken_watch_never_refuses(make_guard: Callable[..., MemoryGuard],
                                      tokens: LocalTokenService) -> None:
    guard = make_guard("memory")

    class Broken(ConfusableWatch):
        def observe(self, issuer: str, subject: str) -> list[tuple[str, str]]:
            raise RuntimeError("icu failed")

    guard.kernel.confusables = Broken()
    assert guard.authenticate(tokens.issue("alice")).principal.subject.subject == "alice"
    assert alarms(guard) == []


def test_the_gateway_turns_it_on_by_configuration(tmp_path: Path) -> None:
    cfg = gateway_config(tmp_path, make_client(PLANNER), make_client(PLANNER),
                         identity={"flag_confusables": True})
    stack = open_stack(cfg)
    try:
        assert stack.sts is not None
        stack.guard.authenticate(stack.sts.issue_user_token("alice"))
        stack.guard.authenticate(stack.sts.issue_user_token("\u0430lice"))
        assert alarms(stack.guard) == [("\u0430lice", ["alice"])]
    finally:
        stack.close()


def test_without_icu_asking_for_the_watch_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "icu", None)
    with pytest.raises(ConfigurationError, match="confusables"):
        ConfusableWatch()

