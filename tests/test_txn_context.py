"""``tctx`` / ``rctx`` of Transaction Tokens (draft-ietf-oauth-transaction-tokens) in provenance:
canonical, bounded, in the record (and its digest) only when present, visible in ``audit``."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import jwt
import pytest
from helpers import PLANNER
from identity_helpers import Env, make_env
from test_txn_tokens import TRUST_DOMAIN, TxnTokenServiceForTests, exchange, resource_verifier

from memguard.audit import render_text
from memguard.errors import IdentityError
from memguard.identity import Actor, PrincipalId
from memguard.provenance import Provenance, Source, Turn, WriterChain
from memguard.tokens import TokenExchangeError
from memguard.tokens.txn_token import MAX_CONTEXT_BYTES, transaction_context
from memguard.trust import SourceKind, TrustLevel

#: the digest of the record below as memguard computed it before ``txn_context`` existed
#: (commit d914662, memguard/provenance.py): a record without a context keeps it
PINNED_DIGEST = "sha256:ad7b02c707b78b083ee3a2854ca6e26c33581da9b340bf1f39d4c51898c606db"


def _record(**writer: Any) -> Provenance:
    alice = PrincipalId(issuer=TRUST_DOMAIN, subject="alice")
    return Provenance(
        fact_id="f-1", version=1, namespace="notes", owner=alice,
        source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="s", turn_index=0),
        trust=TrustLevel.USER, trust_reason="user",
        writer=WriterChain(subject=alice, actors=(Actor(issuer="spiffe://memguard.local",
                                                        subject=PLANNER),),
                           workload_id=PLANNER, client_id=PLANNER, token_jti="j-1", txn="txn-42",
                           **writer),
        created_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
        content_digest="sha256:" + "0" * 64, policy_digest="sha256:" + "1" * 64)


def test_old_records_keep_their_digest_and_a_context_is_part_of_it() -> None:
    old = _record()
    assert old.record_digest == PINNED_DIGEST
    assert b"txn_context" not in old.canonical()
    with_context = _record(txn_context={"tctx": {"action": "summarize"}})
    assert with_context.record_digest != PINNED_DIGEST
    assert b'"txn_context":{"tctx":{"action":"summarize"}}' in with_context.canonical()
    other = _record(txn_context={"tctx": {"action": "delete"}})
    assert other.record_digest != with_context.record_digest


@pytest.fixture
def tts() -> TxnTokenServiceForTests:
    from helpers import Clock

    return TxnTokenServiceForTests(Clock())


@pytest.fixture
def env(tmp_path: Path, tts: TxnTokenServiceForTests) -> Env:
    return make_env(tmp_path, tts.clock, txn_tokens=[tts.service()])


def test_context_reaches_provenance_and_audit_canonically(
        env: Env, tts: TxnTokenServiceForTests) -> None:
    # the same context with its members in another order: one canonical form
    tctx = {"action": "summarize", "ticket": 4711, "parts": ["q3", {"b": 1, "a": True}]}
    rctx = {"req_wl": "apigateway.corp.example", "req_ip": "10.0.0.7"}
    first = exchange(env, tts.token(txn="txn-7", tctx=tctx, rctx=rctx))
    reordered = {"parts": ["q3", {"a": True, "b": 1}], "ticket": 4711, "action": "summarize"}
    second = exchange(env, tts.token(txn="txn-8", tctx=reordered, rctx=dict(reversed(
        list(rctx.items())))))
    issued = jwt.decode(first["access_token"], options={"verify_signature": False})
    assert issued["tctx"] == tctx and issued["rctx"] == rctx  # the exchange keeps them

    guard = env.guard(verifier=resource_verifier(env))
    written = []
    for out in (first, second):
        identity = guard.authenticate(out["access_token"], workload_credential=env.svid(PLANNER))
        written.append(guard.write(identity, "numbers for q3", namespace="notes",
                                   source=Source(kind=SourceKind.USER_MESSAGE),
                                   turn=Turn(session_id="s", turn_index=0)))
    a, b = written
    assert a.writer.txn_context == {"rctx": rctx, "tctx": tctx}
    assert json.dumps(a.json_dict()["writer"]["txn_context"], separators=(",", ":")) == (
        json.dumps(b.json_dict()["writer"]["txn_context"], separators=(",", ":")))
    stored = guard.ledger.latest([a.fact_id])[a.fact_id].provenance
    assert stored.record_digest == a.record_digest and stored.writer.txn_context == a.writer.txn_context

    writes = [e for e in guard.ledger.events(decision="allow") if e.action == "write"]
    assert writes and all(e.principal is not None for e in writes)
    assert [e.principal["txn_context"] for e in writes if e.principal] == [
        {"rctx": rctx, "tctx": tctx}] * 2
    report = guard.audit(identity, a.fact_id)
    assert report["provenance"]["writer"]["txn_context"]["tctx"]["ticket"] == 4711
    text = render_text(report)
    assert "transaction   txn-7" in text and '"action": "summarize"' in text


@pytest.mark.parametrize(("over", "why"), [
    ({"tctx": {"blob": "x" * 500, "more": ["y" * 500] * 4}}, "too large"),
    ({"tctx": {"ratio": 0.5}}, "float"),
    ({"tctx": {"a": {"b": {"c": {"d": {"e": 1}}}}}}, "too deep"),
    ({"tctx": {"note": "line\nbreak"}}, "control character"),
    ({"rctx": ["not", "an", "object"]}, "not an object"),
])
def test_bad_contexts_are_refused_never_cut(env: Env, tts: TxnTokenServiceForTests,
                                             over: dict[str, Any], why: str) -> None:
    before = len(env.events)
    with pytest.raises(TokenExchangeError) as info:
        exchange(env, tts.token(**over))
    assert (info.value.error, info.value.reason) == ("invalid_grant",
                                                     "subject_token identity.bad_claims"), why
    assert env.events[before:][-1].reason == "invalid_grant:subject_token identity.bad_claims"


def test_the_bound_is_on_the_canonical_form() -> None:
    """Counted in UTF-8 bytes of the canonical form: the largest context that fits is taken
    whole, one member more is refused."""
    tctx: dict[str, Any] = {}
    while True:
        candidate = {**tctx, f"k{len(tctx):03}": "\u00e9" * 50}  # two bytes each in UTF-8
        raw = json.dumps({"tctx": candidate}, sort_keys=True, separators=(",", ":"),
                         ensure_ascii=False).encode()
        if len(raw) > MAX_CONTEXT_BYTES:
            break
        tctx = candidate
    fits = transaction_context({"tctx": tctx})
    assert fits is not None and len(fits.encode()) <= MAX_CONTEXT_BYTES
    assert json.loads(fits) == {"tctx": tctx}
    with pytest.raises(IdentityError, match="too large"):
        transaction_context({"tctx": candidate})
    assert transaction_context({"txn": "t"}) is None
