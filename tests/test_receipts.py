"""Signed read receipts: issued by a gateway on loopback for real reads, verified offline
(signature, the read's audit event, its RFC 6962 inclusion under a signed checkpoint) by the
library and by `memguard receipt verify`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from gateway_helpers import Gateway, fact, running_gateway
from typer.testing import CliRunner

from memguard.cli import app
from memguard.errors import IntegrityError, MemguardError
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.receipts import ReceiptKey, verify_receipt

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    tmp = tmp_path_factory.mktemp("receipts")
    with running_gateway(tmp, ledger={"checkpoint_key": str(tmp / "checkpoint.key")}) as g:
        yield g


def keys(gw: Gateway) -> dict[str, Any]:
    r = httpx.get(f"{gw.base}/.well-known/receipt-jwks.json", timeout=10)
    assert r.status_code == 200
    return dict(r.json())


def checkpoint_key(gw: Gateway) -> str:
    signer = gw.stack.guard.ledger.log.signer
    assert isinstance(signer, CheckpointSigner)
    return signer.verifier_key()


def search(gw: Gateway, token: str, query: str, **kw: Any) -> dict[str, Any]:
    r = gw.post("/v1/search", token, {"query": query, "receipt": True, **kw})
    assert r.status_code == 200, r.text
    return dict(r.json())


def claims_of(receipt: str) -> dict[str, Any]:
    return dict(jwt.decode(receipt, options={"verify_signature": False}))


def resign(gw: Gateway, claims: dict[str, Any]) -> str:
    assert gw.stack.receipts is not None
    return gw.stack.receipts.key.sign(claims)


def test_a_search_receipt_proves_what_was_returned_and_its_log_entry(gw: Gateway) -> None:
    alice = gw.user_token("alice")
    ids = [gw.post("/v1/facts", alice, fact(f"alice likes tea {i}")).json()["fact_id"]
           for i in range(3)]
    out = search(gw, alice, "tea", k=3, purpose="planning")
    receipt = out["receipt"]
    pending = verify_receipt(receipt, keys(gw), issuer=gw.resource)
    assert sorted(pending.fact_ids) == sorted(ids) == sorted(f["fact_id"] for f in out["facts"])
    assert pending.claims["purpose"] == "planning" and pending.claims["action"] == "search"
    assert pending.claims["principal"]["subject"] == "alice"
    assert pending.claims["policy_digest"]
    records = gw.stack.guard.ledger.latest(ids)
    assert {f["id"]: f["record_digest"] for f in pending.claims["facts"]} == {
        i: records[i].record_digest for i in ids}


def test_inclusion_is_proven_under_the_signed_checkpoint(gw: Gateway) -> None:
    bob = gw.user_token("bob")
    fid = gw.post("/v1/facts", bob, fact("bob's flight is on friday")).json()["fact_id"]
    gw.stack.guard.ledger.log.flush()
    first = search(gw, bob, "flight")["receipt"]  # its event is queued, not yet integrated
    assert verify_receipt(first, keys(gw)).inclusion == "pending"
    r = httpx.get(f"{gw.base}/v1/facts/{fid}", params={"receipt": "true"},
                  headers=gw.headers(bob), timeout=10)
    assert r.status_code == 200
    get_receipt = r.headers["memguard-receipt"]
    assert verify_receipt(get_receipt, keys(gw)).fact_ids == [fid]
    # a receipt issued once a signed checkpoint covers the read's event carries its proof
    assert gw.stack.receipts is not None
    identity = gw.stack.guard.authenticate(bob)
    recalled = gw.stack.guard.get(identity, fid)
    gw.stack.guard.ledger.log.flush()
    receipt = gw.stack.receipts.issue(identity, "get", "answer", [recalled])
    result = verify_receipt(receipt, keys(gw), checkpoint_keys=[checkpoint_key(gw)])
    assert result.inclusion == "proven" and result.checkpoint_size
    # without the checkpoint key the proof cannot be checked: refused, not passed
    with pytest.raises(IntegrityError) as info:
        verify_receipt(receipt, keys(gw))
    assert info.value.code == "receipt.no_checkpoint_key"
    other = CheckpointSigner.generate(checkpoint_key(gw).split("+")[0]).verifier_key()
    with pytest.raises(MemguardError):  # a checkpoint signed by another key
        verify_receipt(receipt, keys(gw), checkpoint_keys=[other])
    # tampering: each edit below is signed with the real receipt key, so only the event,
    # the proof and the checkpoint can catch it
    claims = claims_of(receipt)
    bad_root = json.loads(json.dumps(claims))
    bad_root["log"]["inclusion"]["root_hash"] = "A" * 43
    dropped = json.loads(json.dumps(claims))
    dropped["facts"] = []
    other_fact = json.loads(json.dumps(claims))
    other_fact["facts"][0]["id"] = "00000000-0000-0000-0000-000000000001"
    other_reader = json.loads(json.dumps(claims))
    other_reader["principal"]["subject"] = "mallory"
    for bad in (bad_root, dropped, other_fact, other_reader):
        with pytest.raises(IntegrityError):
            verify_receipt(resign(gw, bad), keys(gw), checkpoint_keys=[checkpoint_key(gw)])


def test_a_receipt_signed_by_another_key_or_of_another_type_is_refused(gw: Gateway) -> None:
    carol = gw.user_token("carol")
    gw.post("/v1/facts", carol, fact("carol's note"))
    receipt = search(gw, carol, "note")["receipt"]
    forged = ReceiptKey.generate()
    with pytest.raises(IntegrityError) as info:
        verify_receipt(forged.sign(claims_of(receipt)), keys(gw))
    assert info.value.code == "receipt.bad_signature"
    with pytest.raises(IntegrityError):  # an access token is not a receipt
        verify_receipt(carol, keys(gw))
    with pytest.raises(IntegrityError) as info:
        verify_receipt(receipt, keys(gw), issuer="https://another.example")
    assert info.value.code == "receipt.bad_issuer"


def test_an_empty_read_has_a_receipt_without_a_log_entry(gw: Gateway) -> None:
    nobody = gw.user_token("dora")
    out = search(gw, nobody, "anything")
    assert out["facts"] == []
    assert verify_receipt(out["receipt"], keys(gw)).inclusion == "absent"


def test_receipt_verify_command(gw: Gateway, tmp_path: Path) -> None:
    erin = gw.user_token("erin")
    gw.post("/v1/facts", erin, fact("erin's key is blue"))
    receipt = search(gw, erin, "key")["receipt"]
    (tmp_path / "r.jwt").write_text(receipt)
    (tmp_path / "jwks.json").write_text(json.dumps(keys(gw)))
    runner = CliRunner()
    ok = runner.invoke(app, ["receipt", "verify", str(tmp_path / "r.jwt"), "--jwks",
                             str(tmp_path / "jwks.json"), "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["principal"]["subject"] == "erin"
    bad = claims_of(receipt)
    bad["facts"] = []
    (tmp_path / "bad.jwt").write_text(resign(gw, bad))
    refused = runner.invoke(app, ["receipt", "verify", str(tmp_path / "bad.jwt"), "--jwks",
                                  str(tmp_path / "jwks.json"), "--json"])
    assert refused.exit_code == 4, refused.output
    assert json.loads(refused.output)["error"]["code"] == "receipt.mismatch"
