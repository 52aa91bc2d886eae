"""Acceptance tests of `memguard ledger ...` through Typer's runner: exit codes (0 verified,
4 tampered, 6 not found, 2 usage, 3 invalid input, 1 failure), JSON shapes, results on stdout and
errors on stderr."""

from __future__ import annotations

import base64
import json
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import pg_schema_url
from typer.testing import CliRunner

from memguard.events import AuditEvent, Decision
from memguard.ledger import Ledger
from memguard.ledger.checkpoint import CheckpointVerifier
from memguard.ledger.cli import ledger_app
from memguard.ledger.rfc6962 import leaf_hash, verify_consistency, verify_inclusion


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, object]:
        return json.loads(self.stdout)  # type: ignore[no-any-return]


def run(*args: str | Path) -> Result:
    out = CliRunner().invoke(ledger_app, [str(a) for a in args])
    return Result(out.exit_code, out.stdout, out.stderr)


def _events(n: int, start: int = 0) -> list[AuditEvent]:
    return [
        AuditEvent(action="search", decision=Decision.ALLOW, reason=f"r{start + i}")
        for i in range(n)
    ]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A state folder with 10 events recorded (queued, not yet integrated) after the new ledger's
    first entry (seq 1, leaf 0: the change entry of its meta row, integrated at once)."""
    folder = tmp_path / "state"
    ledger = Ledger.sqlite(folder / "ledger.db")
    for i in range(10):
        ledger.record(_events(1, i))
    ledger.close()
    return folder


def _sql(state: Path, query: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(state / "ledger.db") as db:
        rows = db.execute(query, params).fetchall()
    db.close()
    return rows


def test_checkpoint_creates_the_key_and_prints_a_signed_note(state: Path, tmp_path: Path) -> None:
    out = tmp_path / "witness.note"
    res = run("checkpoint", "--state-dir", state, "--out", out)
    assert res.code == 0, res.stderr
    key = state / "keys" / "checkpoint.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert out.read_text() == res.stdout
    origin, size, root, blank, sig = res.stdout.split("\n")[:5]
    assert (origin, size, blank) == ("memguard.local/audit-log", "11", "")
    assert len(base64.b64decode(root)) == 32 and sig.startswith("\u2014 memguard.local/audit-log ")
    vkey = run("public-key", "--state-dir", state).stdout.strip()
    cp = CheckpointVerifier.from_verifier_keys([vkey]).verify_checkpoint(res.stdout)
    assert cp.tree_size == 11


def test_verify_clean_text_and_json(state: Path) -> None:
    assert run("checkpoint", "--state-dir", state).code == 0
    res = run("verify", "--state-dir", state)
    assert res.code == 0 and res.stdout.startswith("verified: 11 leaves, 11 events, 0 queued")
    assert res.stderr == ""
    data = run("verify", "--state-dir", state, "--json").json()
    assert data["format"] == "memguard.ledger-verify/v1"
    assert data["verified"] is True and data["problems"] == [] and data["problems_omitted"] == 0
    assert data["tree_size"] == 11 and data["pending"] == 0
    last = data["last_checkpoint"]
    assert isinstance(last, dict) and last["tree_size"] == 11 and "note" in last


def test_verify_reports_an_edited_event_with_exit_4(state: Path) -> None:
    assert run("checkpoint", "--state-dir", state).code == 0
    ((seq, event),) = _sql(state, "SELECT seq, event FROM mg_audit_event WHERE seq = 5")
    _sql(state, "UPDATE mg_audit_event SET event = ? WHERE seq = 5", str(event).replace("r3", "r9"))
    res = run("verify", "--state-dir", state)
    assert res.code == 4
    assert res.stdout.startswith("TAMPERED")
    assert "problem: edited [leaf 4, event seq 5]" in res.stdout
    data = run("verify", "--state-dir", state, "--json").json()
    assert data["verified"] is False
    (problem,) = data["problems"]  # type: ignore[misc]  # nothing else is blamed
    assert problem == {
        "kind": "edited",
        "severity": "tamper",
        "message": "event seq 5 (leaf 4) no longer matches its leaf hash",
        "leaf_index": 4,
        "event_seq": seq,
        "node": None,
        "tree_size": None,
        "table": None,
        "key": None,
        "column": None,
        "expected": None,
        "found": None,
    }


def test_rollback_is_caught_with_an_external_checkpoint(state: Path, tmp_path: Path) -> None:
    witness = tmp_path / "witness.note"
    assert run("checkpoint", "--state-dir", state, "--out", witness).code == 0
    led = Ledger.sqlite(state / "ledger.db")
    led.record(_events(4, 100))
    led.close()
    assert run("checkpoint", "--state-dir", state, "--out", witness).code == 0  # now at 15
    # roll the whole database back to the 11-leaf state, checkpoint rows included
    for query in (
        "DELETE FROM mg_audit_fact WHERE event_seq > 11",
        "DELETE FROM mg_audit_event WHERE seq > 11",
        "DELETE FROM mg_log_leaf WHERE leaf_index >= 11",
        "DELETE FROM mg_log_node WHERE (level = 1 AND node_index >= 5) "
        "OR (level = 2 AND node_index >= 2) OR (level = 3 AND node_index >= 1)",
        "DELETE FROM mg_log_checkpoint WHERE tree_size > 11",
        # the read-link mark as it was then (closing the ledger above moved it to the newest event)
        "UPDATE mg_read_projection SET upto = 11 WHERE upto > 11",
    ):
        _sql(state, query)
    # the default witness (STATE_DIR/witness) holds checkpoint 15, and its row
    res = run("verify", "--state-dir", state, "--json")
    assert res.code == 4
    kinds = [(p["kind"], p["leaf_index"], p["tree_size"]) for p in res.json()["problems"]]  # type: ignore[attr-defined, index]
    assert kinds == [("truncated", 11, 15), ("row_deleted", None, 15)]
    # without a witness the database alone is a consistent shorter log ...
    nowhere = tmp_path / "no-witness"
    assert run("verify", "--state-dir", state, "--witness", nowhere).code == 0
    # ... which a checkpoint kept elsewhere catches as well
    res = run("verify", "--state-dir", state, "--witness", nowhere, "--checkpoint", witness, "--json")
    assert res.code == 4
    kinds = [(p["kind"], p["leaf_index"], p["tree_size"]) for p in res.json()["problems"]]  # type: ignore[attr-defined, index]
    assert kinds == [("truncated", 11, 15), ("witness_lags", None, 11)]  # a warning


def test_verify_failures(state: Path, tmp_path: Path) -> None:
    res = run("verify", "--state-dir", tmp_path / "nowhere")
    assert res.code == 2 and res.stdout == "" and "Usage:" in res.stderr  # a usage error
    res = run("verify", "--state-dir", tmp_path / "nowhere", "--json")
    assert res.code == 2 and "does not exist" in res.json()["error"]["message"]  # type: ignore[index]
    (tmp_path / "empty").mkdir()
    res = run("verify", "--state-dir", tmp_path / "empty")
    assert res.code == 2 and res.stdout == "" and "no ledger" in res.stderr
    res = run("verify", "--state-dir", tmp_path / "empty", "--json")
    assert res.code == 2 and res.json()["error"]["code"] == "state.no_ledger"
    assert run("checkpoint", "--state-dir", state).code == 0
    (state / "keys" / "checkpoint.key").rename(tmp_path / "moved.key")
    res = run("verify", "--state-dir", state)
    assert res.code == 3 and "verifier key" in res.stderr  # signatures cannot be checked
    res = run("verify", "--state-dir", state, "--checkpoint", tmp_path / "missing.note")
    assert res.code == 1 and "missing.note" in res.stderr  # a file that cannot be read
    res = run("verify", "--state-dir", state, "--verifier-key", "not-a-key")
    assert res.code == 3 and "malformed" in res.stderr


def test_verify_with_an_explicit_verifier_key(state: Path, tmp_path: Path) -> None:
    assert run("checkpoint", "--state-dir", state).code == 0
    vkey = run("public-key", "--state-dir", state).stdout.strip()
    (state / "keys" / "checkpoint.key").rename(tmp_path / "moved.key")
    assert run("verify", "--state-dir", state, "--verifier-key", vkey).code == 0
    (tmp_path / "v.pub").write_text(vkey + "\n")
    assert run("verify", "--state-dir", state, "--verifier-key", f"@{tmp_path / 'v.pub'}").code == 0


def test_integrate(state: Path) -> None:
    res = run("integrate", "--state-dir", state, "--json", "--max-batch", "3")
    assert res.code == 0 and res.json() == {"integrated": 10, "tree_size": 11}
    assert run("integrate", "--state-dir", state).stdout.strip() == "integrated 0; tree size 11"


def test_prove_json_verifies_on_its_own(state: Path) -> None:
    assert run("checkpoint", "--state-dir", state).code == 0
    vkey = run("public-key", "--state-dir", state).stdout.strip()
    res = run("prove", "7", "--state-dir", state)
    assert res.code == 0, res.stderr
    data = res.json()
    assert data["format"] == "memguard.inclusion-proof/v1" and data["verified"] is True
    assert (data["event_seq"], data["leaf_index"], data["tree_size"]) == (7, 6, 11)
    # a third party needs only the JSON and the public key
    cp = CheckpointVerifier.from_verifier_keys([vkey]).verify_checkpoint(str(data["checkpoint"]))
    leaf = leaf_hash(str(data["event"]).encode())
    assert base64.b64encode(leaf).decode() == data["leaf_hash"]
    path = [base64.b64decode(p) for p in data["inclusion_path"]]  # type: ignore[attr-defined]
    verify_inclusion(6, cp.tree_size, leaf, path, cp.root_hash)


def test_prove_not_found_and_tampered(state: Path) -> None:
    res = run("prove", "3", "--state-dir", state)
    assert res.code == 6 and "not integrated" in res.stderr  # queued only
    run("integrate", "--state-dir", state)
    res = run("prove", "3", "--state-dir", state)
    assert res.code == 6 and "not covered by a checkpoint" in res.stderr
    assert run("prove", "3", "--state-dir", state, "--tree-size", "10").code == 0
    assert run("prove", "999", "--state-dir", state).code == 6
    assert run("checkpoint", "--state-dir", state).code == 0
    ((event,),) = _sql(state, "SELECT event FROM mg_audit_event WHERE seq = 3")
    _sql(state, "UPDATE mg_audit_event SET event = ? WHERE seq = 3", str(event).replace("r1", "r8"))
    res = run("prove", "3", "--state-dir", state)
    assert res.code == 4 and res.json()["verified"] is False


def test_consistency(state: Path) -> None:
    assert run("checkpoint", "--state-dir", state).code == 0
    led = Ledger.sqlite(state / "ledger.db")
    led.record(_events(5, 50))
    led.close()
    assert run("checkpoint", "--state-dir", state).code == 0
    res = run("consistency", "11", "16", "--state-dir", state)
    assert res.code == 0, res.stderr
    data = res.json()
    assert data["format"] == "memguard.consistency-proof/v1" and data["verified"] is True
    assert data["old_checkpoint"] and data["new_checkpoint"]
    path = [base64.b64decode(p) for p in data["consistency_path"]]  # type: ignore[attr-defined]
    old_root, new_root = (base64.b64decode(str(data[k])) for k in ("old_root", "new_root"))
    verify_consistency(11, 16, old_root, new_root, path)
    res = run("consistency", "12", "99", "--state-dir", state)
    assert res.code == 3 and "tree size" in res.stderr


def test_public_key_without_a_key(state: Path) -> None:
    res = run("public-key", "--state-dir", state)
    assert res.code == 6 and "no checkpoint key" in res.stderr


def test_postgres_ledger_url(tmp_path: Path) -> None:
    with pg_schema_url() as url:
        led = Ledger.from_url(url)
        led.record(_events(6))
        led.close()
        args = ("--state-dir", tmp_path, "--ledger-url", url)
        assert run("checkpoint", *args).code == 0
        res = run("verify", *args, "--json")
        assert res.code == 0 and res.json()["tree_size"] == 7
        assert run("prove", "2", *args).json()["verified"] is True
