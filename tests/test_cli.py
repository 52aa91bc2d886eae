"""Acceptance tests of the `memguard` command, run as a real subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memguard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    work = tmp_path_factory.mktemp("cli")
    return work, run("demo", "--state-dir", str(work / "state"), cwd=work)


def test_demo_exits_zero_and_shows_each_step(demo_run) -> None:  # type: ignore[no-untyped-def]
    _, proc = demo_run
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"web page\s+-> trust untrusted", out)
    assert re.search(r"user message\s+-> trust user", out)
    assert "refused: access_denied.trust_escalation" in out
    assert "no identity   -> refused: identity.missing" in out
    assert "forged token  -> refused: identity.bad_signature" in out
    # the `user`-trust recall section lists no untrusted fact
    trusted = out.split("needs `user` trust")[1].split("==")[0]
    assert "trust=untrusted" not in trusted and "trust=user" in trusted
    assert "verification  OK" in out


def _web_fact_id(out: str) -> str:
    match = re.search(r"memguard audit ([0-9a-f-]{36})", out)
    assert match, out
    return match.group(1)


def test_audit_json_of_demo_fact(demo_run) -> None:  # type: ignore[no-untyped-def]
    work, proc = demo_run
    fact_id = _web_fact_id(proc.stdout)
    audit = run("audit", fact_id, "--json", "--state-dir", str(work / "state"), cwd=work)
    assert audit.returncode == 0, audit.stderr
    report = json.loads(audit.stdout)
    assert report["schema"] == "memguard.audit/v1"
    prov = report["provenance"]
    assert prov["source"] == {
        "kind": "web",
        "uri": "https://lisbon-travel-tips.example/may",
        "name": None,
    }
    assert prov["turn"]["turn_index"] == 3
    assert prov["trust"] == "untrusted"
    assert [a["subject"] for a in prov["writer"]["actors"]] == [
        "spiffe://memguard.local/agent/planner",
        "spiffe://memguard.local/agent/browser",
    ]
    assert prov["writer"]["subject"]["subject"] == "alice"
    assert report["verification"]["verified"] is True
    assert report["verification"]["store_payload"] == "ok"
    assert any(r["action"] == "search" and r["decision"] == "allow" for r in report["reads"])


def test_audit_text_and_unknown_id(demo_run) -> None:  # type: ignore[no-untyped-def]
    work, proc = demo_run
    state = str(work / "state")
    text = run("audit", _web_fact_id(proc.stdout), "--state-dir", state, cwd=work)
    assert text.returncode == 0 and "writer chain  alice -> spiffe://" in text.stdout
    unknown = run("audit", "00000000-0000-0000-0000-000000000000", "--state-dir", state, cwd=work)
    assert unknown.returncode == 2
    assert unknown.stdout == "" and "unknown fact" in unknown.stderr


def test_audit_without_ledger_fails(tmp_path: Path) -> None:
    proc = run("audit", "x", "--state-dir", str(tmp_path / "none"), cwd=tmp_path)
    assert proc.returncode == 1 and "no ledger" in proc.stderr


def test_audit_reports_tampering(demo_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from qdrant_client import QdrantClient

    from memguard import QdrantStore

    work, proc = demo_run
    copy = tmp_path / "state"
    shutil.copytree(work / "state", copy)
    fact_id = _web_fact_id(proc.stdout)
    # the embedded store keeps one collection per owner; tamper with the raw client, behind memguard
    store = QdrantStore(path=str(copy / "qdrant"))
    collection = store.partition_name("https://memguard.local", "alice")
    store.close()
    client = QdrantClient(path=str(copy / "qdrant"))
    client.set_payload(collection, payload={"text": "harmless text"}, points=[fact_id])
    client.close()
    audit = run("audit", fact_id, "--json", "--state-dir", str(copy), cwd=tmp_path)
    assert audit.returncode == 4
    report = json.loads(audit.stdout)
    assert report["verification"]["verified"] is False
    assert report["verification"]["store_payload"] == "integrity.content_mismatch"
