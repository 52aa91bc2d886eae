"""Acceptance tests of `memguard policy validate|test|explain`: exit codes, --json, errors on stderr.

Most run in-process through Typer's runner (stdout and stderr kept apart); two run the real command
as a subprocess, so the installed entry point and the exit codes are covered end to end.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import structlog
from typer.testing import CliRunner

from memguard.cli import app


@pytest.fixture(autouse=True)
def _keep_logging_config() -> Iterator[None]:
    """The CLI callback points structlog at the runner's (soon closed) stderr; put it back after."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)

POLICIES = Path(__file__).resolve().parent.parent / "policies"
FACT = '{"owner_iss": "https://idp.example", "owner_sub": "alice", "trust": "untrusted", "writer_sub": "alice", "source_kind": "web"}'


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, stdin: str | None = None) -> Result:
    got = CliRunner().invoke(app, ["policy", *args], input=stdin)
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        raise got.exception
    return Result(got.exit_code, got.stdout, got.stderr)


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memguard", "policy", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_real_command_exit_codes(tmp_path: Path) -> None:
    ok = run_process("validate", str(POLICIES))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: ") and ok.stderr == ""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: memguard/v1\nrules: [{id: x}]\n")
    invalid = run_process("validate", str(bad))
    assert invalid.returncode == 3 and invalid.stdout == "" and "rule `x`" in invalid.stderr


def test_the_real_command_explain_deny() -> None:
    proc = run_process("explain", str(POLICIES), "--subject", "ops", "--scope", "memguard:auditor",
                       "--action", "search")  # fmt: skip
    assert proc.returncode == 5 and "auditor.no-content" in proc.stdout


def test_validate_ok_and_json() -> None:
    proc = run("validate", str(POLICIES))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: ") and "sha256:" in proc.stdout
    data = json.loads(run("validate", str(POLICIES), "--json").stdout)
    assert data["valid"] is True and "isolation.read-own" in data["rules"]


def test_validate_invalid_exits_3_with_file_line_rule_on_stderr(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: memguard/v1\nrules:\n  - {id: r1, effect: permit, actions: [get], when: {attr: fact.nope, eq: 1}}\n")
    proc = run("validate", str(bad))
    assert proc.returncode == 3
    assert f"{bad}:3:59: rule `r1`: unknown attribute `fact.nope`" in proc.stderr
    assert proc.stdout == ""
    data = json.loads(run("validate", str(bad), "--json").stdout)
    assert data == {"valid": False, "problems": [
        {"file": str(bad), "line": 3, "column": 59, "rule_id": "r1",
         "message": "unknown attribute `fact.nope`"}]}  # fmt: skip


def test_validate_missing_path_exits_1(tmp_path: Path) -> None:
    proc = run("validate", str(tmp_path / "nope"))
    assert proc.returncode == 1 and "error:" in proc.stderr


def test_test_passes_and_json() -> None:
    proc = run("test", str(POLICIES))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cases passed" in proc.stdout and "FAIL" not in proc.stdout
    data = json.loads(run("test", str(POLICIES), "--json").stdout)
    assert data["passed"] == data["total"] > 20


def test_test_failure_exits_7_invalid_policy_exits_3(tmp_path: Path) -> None:
    shutil.copy(POLICIES / "isolation.yaml", tmp_path / "isolation.yaml")
    text = (POLICIES / "isolation.tests.yaml").read_text().replace("decision: allow", "decision: deny", 1)
    (tmp_path / "isolation.tests.yaml").write_text(text)
    proc = run("test", str(tmp_path))
    assert proc.returncode == 7 and "FAIL" in proc.stdout
    (tmp_path / "isolation.yaml").write_text("apiVersion: memguard/v1\nrules: [{id: x}]\n")
    proc = run("test", str(tmp_path))
    assert proc.returncode == 3 and "rule `x`" in proc.stderr


def test_explain_deny_exits_5_with_the_determining_rule() -> None:
    proc = run("explain", str(POLICIES), "--subject", "alice", "--action", "search",
               "--purpose", "tool_argument", "--fact", FACT)  # fmt: skip
    assert proc.returncode == 5, proc.stderr
    assert "decision: deny" in proc.stdout and "purpose.actions-need-user-trust" in proc.stdout
    assert "purpose.yaml:" in proc.stdout


def test_explain_allow_exits_0_and_json() -> None:
    proc = run("explain", str(POLICIES), "--subject", "alice", "--action", "search", "--fact", FACT, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["decision"] == "allow" and data["rules"] == ["isolation.read-own"]
    assert data["plan_agrees"] is True and data["policy_digest"].startswith("sha256:")


def test_explain_a_plan_and_a_write_from_a_request_document() -> None:
    proc = run("explain", str(POLICIES), "--request", "-", "--json",
               stdin="principal: {subject: ops, scopes: ['memguard:auditor']}\naction: get\n")  # fmt: skip
    assert proc.returncode == 5
    assert json.loads(proc.stdout)["plan"] == "deny"
    proc = run("explain", str(POLICIES), "--request",
               '{"principal": {"subject": "alice", "actors": ["spiffe://memguard.local/agent/research"]},'
               ' "action": "write", "namespace": "research"}')  # fmt: skip
    assert proc.returncode == 0 and "max_trust: untrusted" in proc.stdout


def test_explain_bad_request_and_bad_policy_exit_3(tmp_path: Path) -> None:
    proc = run("explain", str(POLICIES), "--subject", "alice", "--action", "fly")
    assert proc.returncode == 3 and "unknown action `fly`" in proc.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: memguard/v1\nrules: [{id: x}]\n")
    assert run("explain", str(bad), "--subject", "a", "--action", "get").returncode == 3


def test_explain_reads_a_request_file_and_long_inline_json(tmp_path: Path) -> None:
    req = tmp_path / "req.yaml"
    req.write_text("principal: {subject: alice}\naction: get\nfact: {owner_iss: https://idp.example, owner_sub: bob, trust: user}\n")
    proc = run("explain", str(POLICIES), "--request", str(req), "--json")
    assert proc.returncode == 5 and json.loads(proc.stdout)["reason"].startswith("default deny")
    long_json = json.dumps({"principal": {"subject": "alice", "scopes": ["s" * 400]}, "action": "audit"})
    assert run("explain", str(POLICIES), "--request", long_json).returncode == 5


UNTRANSLATABLE = """\
apiVersion: memguard/v1
rules:
  - id: not-that-agent
    effect: permit
    actions: [search, get]
    when:
      all:
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
        - {attr: fact.workload_id, ne: "spiffe://memguard.local/agent/browser"}
"""


def test_validate_reports_push_down_per_backend(tmp_path: Path) -> None:
    ok = run("validate", str(POLICIES))
    assert ok.returncode == 0
    for backend in ("qdrant", "sql", "mem0", "langgraph"):
        assert f"pushdown {backend}: ok" in ok.stdout
    bad = tmp_path / "p.yaml"
    bad.write_text(UNTRANSLATABLE)
    report = run("validate", str(bad))  # valid, but LangGraph cannot push the negation down
    assert report.returncode == 0, report.stderr
    assert "pushdown langgraph: NOT translatable" in report.stdout and "pushdown sql: ok" in report.stdout
    assert "workload_id" in report.stdout and "not-that-agent" in report.stdout
    refused = run("validate", str(bad), "--backend", "langgraph")
    assert refused.returncode == 3 and refused.stdout == ""
    assert refused.stderr.startswith(f"error: {bad}:") and "langgraph" in refused.stderr
    assert run("validate", str(bad), "--backend", "sql").returncode == 0
    data = json.loads(run("validate", str(bad), "--json").stdout)
    assert data["pushdown"]["sql"] == [] and data["pushdown"]["langgraph"][0]["rule_id"] == "not-that-agent"
    assert run("validate", str(bad), "--backend", "nosuch").returncode == 2
