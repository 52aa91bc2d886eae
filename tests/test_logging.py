"""The operational log (structlog) names decisions, never tokens or fact content.

Also checked: the ledger's stored audit events keep the same rule (digests, never raw tokens).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import structlog
from helpers import BROWSER, PLANNER

from memguard import (
    FactNotFound,
    IdentityError,
    LocalTokenService,
    MemoryGuard,
    ReservedField,
    Source,
    SourceKind,
    TrustEscalation,
    TrustLevel,
    Turn,
)

SECRET_TEXT = "alice's locker combination is 31-07-1977"
QUERY = "what is the locker combination"
REQUIRED = ("op", "decision", "fact_ids", "trace_id")


@pytest.fixture
def g(make_guard: Callable[..., MemoryGuard]) -> MemoryGuard:
    return make_guard("qdrant-memory")


def blob(entry: dict[str, Any]) -> str:
    return json.dumps(entry, default=repr, ensure_ascii=False)


def assert_clean(entries: list[dict[str, Any]], *secrets: str) -> None:
    assert entries, "nothing was logged"
    for entry in entries:
        text = blob(entry)
        for secret in secrets:
            assert secret not in text, f"{secret[:20]}... leaked into {entry}"
        for key in REQUIRED:
            assert key in entry, f"log entry lacks `{key}`: {entry}"
        assert isinstance(entry["fact_ids"], list)


def decisions(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["op"], e["decision"]) for e in entries if e.get("event") == "memguard.decision"]


def _write(guard: MemoryGuard, who: Any, text: str = SECRET_TEXT, **kw: Any) -> Any:
    kw.setdefault("source", Source(kind=SourceKind.USER_MESSAGE))
    return guard.write(
        who,
        text,
        namespace="personal",
        turn=Turn(session_id="s-log", turn_index=0, trace_id="trace-abc"),
        **kw,
    )


def test_allowed_operations_log_without_token_or_text(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    token = tokens.issue("alice", actors=[PLANNER, BROWSER])
    with structlog.testing.capture_logs() as logs:
        who = g.authenticate(token)
        prov = _write(g, who)
        hits = g.search(who, QUERY, k=5, trace_id="trace-search")
        got = g.get(who, prov.fact_id)
        g.update(
            who,
            prov.fact_id,
            SECRET_TEXT + " (updated)",
            source=Source(kind=SourceKind.USER_MESSAGE),
            turn=Turn(session_id="s-log", turn_index=1, trace_id="trace-upd"),
        )
        g.delete(who, prov.fact_id)
    assert [h.fact_id for h in hits] == [prov.fact_id] and got.text == SECRET_TEXT
    assert_clean(logs, token, token.split(".")[1], token.split(".")[2], SECRET_TEXT, QUERY)
    assert decisions(logs) == [
        ("write", "allow"),
        ("search", "allow"),
        ("get", "allow"),
        ("update", "allow"),
        ("delete", "allow"),
    ]
    by_op = {e["op"]: e for e in logs}
    assert by_op["write"]["fact_ids"] == [prov.fact_id]
    assert by_op["write"]["trace_id"] == "trace-abc"
    assert by_op["search"]["fact_ids"] == [prov.fact_id]
    assert by_op["search"]["trace_id"] == "trace-search"
    assert by_op["update"]["trace_id"] == "trace-upd"
    assert by_op["write"]["subject"] == "alice"
    assert by_op["write"]["actors"] == [PLANNER, BROWSER]


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-4] + "AAAA",
        lambda t: t.replace(".", ".x", 1),
        lambda t: t + ".extra",
        lambda t: t + "A" * 9000,
    ],
    ids=["bad-signature", "bad-header", "four-segments", "oversized"],
)
def test_failed_authentication_logs_no_token(
    g: MemoryGuard, tokens: LocalTokenService, mangle: Callable[[str], str]
) -> None:
    token = mangle(tokens.issue("alice"))
    with structlog.testing.capture_logs() as logs:
        with pytest.raises(IdentityError) as info:
            g.authenticate(token)
    assert_clean(logs, token, token.split(".")[1], token.split(".")[2][:40])
    assert decisions(logs) == [("authenticate", "deny")]
    assert logs[0]["reason"] == info.value.code
    assert logs[0]["fact_ids"] == [] and logs[0]["trace_id"] is None


def test_denied_operations_log_reason_without_text(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    token = tokens.issue("alice")
    bob_token = tokens.issue("bob")
    alice = g.authenticate(token)
    bob = g.authenticate(bob_token)
    bobs = _write(g, bob, "bob's locker combination is 12-12-2000")
    with structlog.testing.capture_logs() as logs:
        with pytest.raises(FactNotFound):
            g.get(alice, bobs.fact_id)
        with pytest.raises(TrustEscalation):
            _write(g, alice, source=Source(kind=SourceKind.WEB), trust=TrustLevel.USER)
        with pytest.raises(ReservedField):
            _write(g, alice, metadata={"trust": "system"})
        with pytest.raises(IdentityError):
            _write(g, token)  # type: ignore[arg-type]  # a raw token is not an identity
        with pytest.raises(IdentityError):
            g.search(bob_token, QUERY)  # type: ignore[arg-type]
    assert_clean(
        logs,
        token,
        token.split(".")[2],
        bob_token,
        bob_token.split(".")[2],
        SECRET_TEXT,
        "12-12-2000",
        QUERY,
    )
    assert decisions(logs) == [
        ("get", "deny"),
        ("write", "deny"),
        ("write", "deny"),
        ("write", "deny"),
        ("search", "deny"),
    ]
    assert [e["reason"] for e in logs] == [
        "not_found",
        "access_denied.trust_escalation",
        "access_denied.reserved_field",
        "identity.missing",
        "identity.missing",
    ]
    assert logs[0]["fact_ids"] == [bobs.fact_id]
    assert logs[1]["trace_id"] == "trace-abc"


def test_stored_audit_events_hold_no_token_or_text(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    token = tokens.issue("alice", actors=[PLANNER])
    who = g.authenticate(token)
    prov = _write(g, who)
    g.search(who, QUERY, k=3)
    g.get(who, prov.fact_id)
    with pytest.raises(IdentityError):
        g.authenticate(token[:-6] + "AAAAAA")
    events = g.ledger.events()
    assert {e.decision.value for e in events} == {"allow", "deny"}
    for event in events:
        stored = event.canonical().decode("utf-8")
        for secret in (token, token.split(".")[1], token.split(".")[2], SECRET_TEXT, QUERY):
            assert secret not in stored
    # what the events do hold: identifiers and digests
    writes = [e for e in events if e.action == "write"]
    assert writes and writes[0].principal is not None
    assert writes[0].principal["jti"] == who.principal.token_jti
    assert writes[0].fact_ids == (prov.fact_id,)


_LIBRARY_CALLS = """
import sys, tempfile, pathlib
{setup}
from memguard import (FactNotFound, InMemoryStore, Ledger, LocalTokenService, MemoryGuard, Source,
                      SourceKind, Turn)
tmp = pathlib.Path(tempfile.mkdtemp())
tokens = LocalTokenService(tmp / "keys")
guard = MemoryGuard(store=InMemoryStore(dimension=384), ledger=Ledger.sqlite(tmp / "l.db"),
                    verifier=tokens.verifier())
alice = guard.authenticate(tokens.issue("alice"))
bob = guard.authenticate(tokens.issue("bob"))
fact = guard.write(alice, "x", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=Turn(session_id="s", turn_index=0))
guard.search(alice, "x")
try:
    guard.get(bob, fact.fact_id)
except FactNotFound:
    pass
try:
    guard.authenticate("not-a-token")
except Exception:
    pass
guard.close()
"""


def _run_library(setup: str = "") -> tuple[str, str]:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _LIBRARY_CALLS.format(setup=setup)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


@pytest.mark.slow
def test_the_library_prints_nothing_unless_the_host_configures_logging() -> None:
    out, err = _run_library()
    assert out == "" and err == ""  # allows, denies and a refused token: not one character
    # a host that configures the standard library's logging gets the records, on its handler
    out, err = _run_library(
        "import logging; logging.basicConfig(level=logging.INFO, stream=sys.stderr, "
        "format='%(name)s %(levelname)s %(message)s')")
    assert out == ""
    lines = [line for line in err.splitlines() if line.startswith("memguard INFO memguard.decision")]
    assert len(lines) == 4 and 'decision="deny"' in lines[2] and 'decision="allow"' in lines[0]
    assert all('"x"' not in line for line in lines)  # never the text
    # a host that configures structlog gets them through its pipeline
    out, err = _run_library(
        "import structlog; structlog.configure(processors=[structlog.processors.JSONRenderer()], "
        "logger_factory=structlog.PrintLoggerFactory(sys.stderr))")
    assert out == "" and err.count('"event": "memguard.decision"') == 4
