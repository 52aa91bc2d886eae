"""Acceptance tests of the `memguard` command: the demo, audit formats, and the conventions every
subcommand shares (one exit code per outcome, JSON errors, --state-dir, a light --help, completion,
progress only on a terminal). The demo runs as a real subprocess; most other cases run in process
through Typer's runner (a subprocess costs seconds of imports)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import structlog
from typer.testing import CliRunner

from memguard.cli import app
from memguard.clikit import DEFAULT_STATE, EXIT_TABLE, CliError, ExitCode, classify
from memguard.errors import (
    AccessDenied,
    ConfigurationError,
    FactNotFound,
    IdentityError,
    IntegrityError,
    InvalidRequest,
    LedgerError,
    StoreError,
)


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memguard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, **(env or {})},
    )


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, object]:
        return json.loads(self.stdout)  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def _keep_logging_config() -> Iterator[None]:
    """The CLI callback points structlog at the runner's (soon closed) stderr; put it back after."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def cli(*args: str | Path) -> Result:
    got = CliRunner().invoke(app, [str(a) for a in args])
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        raise got.exception
    return Result(got.exit_code, got.stdout, got.stderr)


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[subprocess.CompletedProcess[str]]]:
    """The demo, run twice in one folder (the second run used to crash on the first one's
    revocation)."""
    work = tmp_path_factory.mktemp("cli")
    runs = [run("demo", "--state-dir", str(work / "state"), cwd=work) for _ in range(2)]
    return work, runs


def _web_fact_id(out: str) -> str:
    match = re.search(r"memguard audit ([0-9a-f-]{36})", out)
    assert match, out
    return match.group(1)


def _summary_fact_id(out: str) -> str:
    match = re.search(r"memguard audit ([0-9a-f-]{36}) --format mermaid", out)
    assert match, out
    return match.group(1)


def _story(out: str) -> str:
    """The demo's output with what differs between runs (ids, digests, times) blanked out."""
    out = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", out)
    out = re.sub(r"demo-[0-9a-f]{8}", "<session>", out)
    out = re.sub(r"jti[= ]'?[A-Za-z0-9_-]{22}'?", "jti <jti>", out)
    out = re.sub(r"sha256:[0-9a-f]{64}", "<digest>", out)
    out = re.sub(r"\b[0-9a-f]{32}\b", "<hex>", out)
    out = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(\+00:00|Z)?", "<time>", out)
    out = re.sub(r"#\d+ <time>", "#<seq> <time>", out)
    return re.sub(r"score=[\d.]+", "score=<s>", out)


def test_demo_exits_zero_and_shows_each_step(demo_runs) -> None:  # type: ignore[no-untyped-def]
    _, (proc, _) = demo_runs
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
    assert "memguard console --state-dir" in out


def test_demo_runs_again_in_the_same_folder_with_the_same_story(demo_runs) -> None:  # type: ignore[no-untyped-def]
    work, (first, second) = demo_runs
    assert second.returncode == 0, second.stderr[-3000:]
    assert "access_denied.revoked" not in second.stdout
    # the same steps in the same order, the same lines (lineage siblings are listed by fact id,
    # which differs between runs, so lines are compared as a multiset)
    story = [_story(p.stdout).splitlines() for p in (first, second)]
    assert [line for line in story[1] if line.startswith("==")] == [
        line for line in story[0] if line.startswith("==")
    ]
    assert sorted(story[1]) == sorted(story[0])
    assert (work / "state" / ".memguard-demo").is_file()
    # the folder holds the second run only: its web fact is known, the first run's is not
    state = str(work / "state")
    assert cli("audit", _web_fact_id(second.stdout), "--state-dir", state, "--no-store").code == 0
    assert cli("audit", _web_fact_id(first.stdout), "--state-dir", state).code == ExitCode.NOT_FOUND


def test_demo_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    res = cli("demo", "--state-dir", tmp_path)
    assert res.code == ExitCode.USAGE and "was not made by `memguard demo`" in res.stderr
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_audit_json_of_demo_fact(demo_runs) -> None:  # type: ignore[no-untyped-def]
    work, (_, proc) = demo_runs
    fact_id = _web_fact_id(proc.stdout)
    for args in (("--json",), ("--format", "json")):
        audit = cli("audit", fact_id, *args, "--state-dir", work / "state")
        assert audit.code == 0, audit.stderr
        report = audit.json()
        assert report["schema"] == "memguard.audit/v1"
    prov = report["provenance"]
    assert isinstance(prov, dict)
    assert prov["source"] == {"kind": "web", "uri": "https://lisbon-travel-tips.example/may", "name": None}
    assert prov["turn"]["turn_index"] == 3
    assert prov["trust"] == "untrusted"
    assert [a["subject"] for a in prov["writer"]["actors"]] == [
        "spiffe://memguard.local/agent/planner",
        "spiffe://memguard.local/agent/browser",
    ]
    assert prov["writer"]["subject"]["subject"] == "alice"
    verification = report["verification"]
    assert isinstance(verification, dict)
    assert verification["verified"] is True and verification["store_payload"] == "ok"
    reads = report["reads"]
    assert isinstance(reads, list)
    assert any(r["action"] == "search" and r["decision"] == "allow" for r in reads)


def test_audit_text_and_unknown_id(demo_runs) -> None:  # type: ignore[no-untyped-def]
    work, (_, proc) = demo_runs
    state = work / "state"
    text = cli("audit", _web_fact_id(proc.stdout), "--state-dir", state)
    assert text.code == 0 and "writer chain  alice -> spiffe://" in text.stdout
    unknown = cli("audit", "00000000-0000-0000-0000-000000000000", "--state-dir", state)
    assert unknown.code == ExitCode.NOT_FOUND
    assert unknown.stdout == "" and "unknown fact" in unknown.stderr
    as_json = cli("audit", "00000000-0000-0000-0000-000000000000", "--state-dir", state, "--json")
    assert as_json.code == ExitCode.NOT_FOUND and as_json.stderr == ""
    assert as_json.json()["error"]["code"] == "not_found"  # type: ignore[index]


def test_audit_lineage_as_dot_and_mermaid(demo_runs) -> None:  # type: ignore[no-untyped-def]
    work, (_, proc) = demo_runs
    web, summary = _web_fact_id(proc.stdout), _summary_fact_id(proc.stdout)
    dot = cli("audit", summary, "--format", "dot", "--state-dir", work / "state")
    assert dot.code == 0, dot.stderr
    assert dot.stdout.startswith("digraph lineage {") and dot.stdout.rstrip().endswith("}")
    assert f'"{web}" -> "{summary}" [label="derived"]' in dot.stdout
    nodes = set(re.findall(r'^  "([0-9a-f-]{36})" \[', dot.stdout, re.M))
    assert {web, summary} <= nodes
    assert dot.stdout.count("QUARANTINED") >= 2  # the page and its summary were revoked
    mermaid = cli("audit", summary, "--format", "mermaid", "--state-dir", work / "state")
    assert mermaid.code == 0 and mermaid.stdout.startswith("flowchart LR")
    assert re.search(r"n\d+ -->\|derived\| n\d+", mermaid.stdout)
    assert "classDef untrusted" in mermaid.stdout and "stroke-dasharray" in mermaid.stdout
    prov = cli("audit", summary, "--format", "prov", "--state-dir", work / "state")
    assert prov.code == 0 and "wasDerivedFrom" in prov.json()
    clash = cli("audit", summary, "--format", "dot", "--json", "--state-dir", work / "state")
    assert clash.code == ExitCode.USAGE and clash.json()["error"]["code"] == "usage"  # type: ignore[index]


def test_audit_reports_tampering(demo_runs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import qdrant_edge as qe

    work, (_, proc) = demo_runs
    copy = tmp_path / "state"
    shutil.copytree(work / "state", copy)
    fact_id = _web_fact_id(proc.stdout)
    # the embedded store is one qdrant-edge shard; tamper with the raw engine, behind memguard
    shard = qe.EdgeShard.load(str(copy / "edge" / "shard"))
    shard.update(qe.UpdateOperation.set_payload([fact_id], {"text": "harmless text"}))
    shard.close()
    audit = cli("audit", fact_id, "--json", "--state-dir", copy)
    assert audit.code == ExitCode.VERIFY_FAILED
    report = audit.json()
    assert report["verification"]["verified"] is False  # type: ignore[index]
    assert report["verification"]["store_payload"] == "integrity.content_mismatch"  # type: ignore[index]


def test_revoke_dry_run_changes_nothing_and_is_audited(demo_runs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    work, (_, proc) = demo_runs
    copy = tmp_path / "state"
    shutil.copytree(work / "state", copy)
    session = re.search(r"turn\s+session (demo-[0-9a-f]{8})", proc.stdout)
    assert session
    db = copy / "ledger.db"
    before = sqlite3.connect(db).execute("select count(*) from mg_revocation").fetchone()
    res = cli("revoke", "--session", session.group(1), "--reason", "what if", "--dry-run", "--json",
              "--state-dir", copy)  # fmt: skip
    assert res.code == 0, res.stderr
    data = res.json()
    assert data["dry_run"] is True and data["count"] == len(data["roots"]) >= 4  # type: ignore[arg-type]
    assert set(data["already_quarantined"]) >= {_web_fact_id(proc.stdout)}  # type: ignore[arg-type]
    conn = sqlite3.connect(db)
    assert conn.execute("select count(*) from mg_revocation").fetchone() == before
    actions = [r[0] for r in conn.execute("select action from mg_audit_event order by seq")]
    conn.close()
    assert actions[-1] == "revoke_preview"


def test_unknown_ids_exit_not_found(demo_runs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    work, _ = demo_runs
    copy = tmp_path / "state"
    shutil.copytree(work / "state", copy)
    nobody = "00000000-0000-0000-0000-000000000000"
    res = cli("endorse", nobody, "--reason", "r", "--state-dir", copy)
    assert res.code == ExitCode.NOT_FOUND and f"unknown fact `{nobody}`" in res.stderr
    res = cli("revoke", "--fact", nobody, "--reason", "r", "--state-dir", copy, "--json")
    assert res.code == ExitCode.NOT_FOUND and res.json()["error"]["code"] == "not_found"  # type: ignore[index]
    assert sqlite3.connect(copy / "ledger.db").execute(
        "select count(*) from mg_revocation where kind = 'fact'").fetchone() == (0,)  # fmt: skip


# -- the conventions ---------------------------------------------------------------------------------


def test_no_two_outcomes_share_an_exit_code() -> None:
    codes = [int(c) for c, _ in EXIT_TABLE]
    assert len(codes) == len(set(codes)) == len(ExitCode)
    assert set(codes) == {int(c) for c in ExitCode}


@pytest.mark.parametrize(
    ("exc", "exit_code", "code"),
    [
        (FactNotFound("fact not found"), ExitCode.NOT_FOUND, "not_found"),
        (AccessDenied("no", code="access_denied.policy"), ExitCode.DENIED, "access_denied.policy"),
        (IdentityError("bad", code="identity.expired"), ExitCode.DENIED, "identity.expired"),
        (ConfigurationError("bad config"), ExitCode.INVALID, "configuration"),
        (InvalidRequest("bad input"), ExitCode.INVALID, "invalid_request"),
        (IntegrityError("tampered"), ExitCode.VERIFY_FAILED, "integrity.mismatch"),
        (LedgerError("down"), ExitCode.FAILURE, "backend.ledger"),
        (StoreError("down"), ExitCode.FAILURE, "backend.store"),
        (FileNotFoundError(2, "No such file or directory", "x.yaml"), ExitCode.FAILURE, "os_error"),
        (RuntimeError("boom"), ExitCode.FAILURE, "unexpected"),
        (KeyboardInterrupt(), ExitCode.INTERRUPTED, "interrupted"),
        (CliError(ExitCode.USAGE, "usage", "give one"), ExitCode.USAGE, "usage"),
    ],
)
def test_one_mapping_from_errors_to_exit_codes(exc: BaseException, exit_code: ExitCode, code: str) -> None:
    failure = classify(exc)
    assert (failure.exit_code, failure.code) == (exit_code, code)


def test_usage_errors_exit_2_and_are_json_under_json(tmp_path: Path) -> None:
    res = cli("audit", "--no-such-option")
    assert res.code == ExitCode.USAGE and res.stdout == "" and "No such option" in res.stderr
    res = cli("audit", "--no-such-option", "--json")
    assert res.code == ExitCode.USAGE and res.stderr == ""
    assert res.json()["error"]["code"] == "usage"  # type: ignore[index]
    assert cli("no-such-command").code == ExitCode.USAGE
    res = cli("audit", "--state-dir", tmp_path / "missing", "--domain", "x.example", "--json")
    assert res.code == ExitCode.USAGE and "does not exist" in res.json()["error"]["message"]  # type: ignore[index]
    assert not (tmp_path / "missing").exists()


def test_a_state_dir_that_does_not_exist_needs_init(tmp_path: Path) -> None:
    typo = tmp_path / "stat"
    # a subcommand from another module gets the rule too: `token` is registered lazily
    res = cli("token", "mint-user", "alice", "--state-dir", typo)
    assert res.code == ExitCode.USAGE and "Usage:" in res.stderr and not typo.exists()
    res = cli("ledger", "verify", "--state-dir", typo, "--json")
    assert "pass --init" in res.json()["error"]["message"] and not typo.exists()  # type: ignore[index]
    res = cli("token", "mint-user", "alice", "--state-dir", typo, "--init")
    assert res.code == 0 and res.stdout.count(".") == 2 and typo.is_dir()
    res = cli("ledger", "verify", "--state-dir", typo, "--json")  # exists now, but holds no ledger
    assert res.code == ExitCode.USAGE and res.json()["error"]["code"] == "state.no_ledger"  # type: ignore[index]
    (tmp_path / "file").write_text("x")
    assert cli("audit", "--domain", "x.example", "--state-dir", tmp_path / "file").code == 2


def test_token_commands_follow_the_table_and_report_errors_as_json(tmp_path: Path) -> None:
    res = cli("token", "decode", "not-a-token", "--json")
    assert res.code == ExitCode.INVALID
    assert res.json()["error"]["code"] == "identity.malformed"  # type: ignore[index]
    refused = cli("token", "verify", "x.y.z", "--state-dir", tmp_path, "--json")
    assert refused.code == ExitCode.DENIED and refused.json()["valid"] is False  # type: ignore[index]
    cfg = tmp_path / "identity.yaml"
    cfg.write_text("version: 1\n", "utf-8")
    bad = cli("token", "verify", "x.y.z", "--config", cfg, "--json")
    assert bad.code == ExitCode.INVALID and "error" in bad.json()  # type: ignore[operator]
    key = tmp_path / "k.pem"
    assert cli("token", "keygen", key).code == ExitCode.OK
    again = cli("token", "keygen", key)
    assert again.code == ExitCode.FAILURE and "(file_exists)" in again.stderr
    assert cli("token", "keygen", tmp_path / "k2.pem", "--alg", "RS256").code == ExitCode.USAGE


def test_operational_failure_exits_1_as_json(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "ledger.db").write_bytes(b"this is not a database" * 100)
    res = cli("audit", "--domain", "x.example", "--state-dir", state, "--json")
    assert res.code == ExitCode.FAILURE and res.stderr == ""
    assert res.json()["error"]["code"] == "backend.ledger"  # type: ignore[index]
    res = cli("audit", "--domain", "x.example", "--state-dir", state)
    assert res.code == ExitCode.FAILURE and res.stdout == ""
    assert res.stderr.startswith("error: ") and "(backend.ledger)" in res.stderr


def test_default_state_dir_matches_the_embedded_default() -> None:
    from memguard.embedded import DEFAULT_STATE_DIR

    assert Path(DEFAULT_STATE_DIR) / "demo" == DEFAULT_STATE


def test_help_imports_only_the_command_line(tmp_path: Path) -> None:
    """`memguard --help` must not import the store, ledger, policy, identity or HTTP code."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memguard", "--help"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0 and "Exit codes" in proc.stdout
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    ours = sorted(m for m in imported if m == "memguard" or m.startswith("memguard."))
    assert ours == [
        "memguard", "memguard.cli", "memguard.clikit", "memguard.clikit.exits",
        "memguard.clikit.group", "memguard.clikit.output", "memguard.clikit.progress",
    ]  # fmt: skip
    heavy = {"sqlalchemy", "sqlmodel", "qdrant_client", "numpy", "fastapi", "starlette", "jwt",
             "cryptography", "authlib", "structlog", "yaml", "httpx", "jinja2"}  # fmt: skip
    assert not heavy & {m.split(".")[0] for m in imported}
    assert len(imported) < 450, len(imported)  # Python, typer and rich; measured 335


def test_shell_completion(tmp_path: Path) -> None:
    env = {"_MEMGUARD_COMPLETE": "complete_bash", "COMP_WORDS": "memguard le", "COMP_CWORD": "1"}
    proc = run(cwd=tmp_path, env=env)
    assert proc.returncode == 0 and "ledger" in proc.stdout.split()
    env = {"_MEMGUARD_COMPLETE": "complete_bash", "COMP_WORDS": "memguard audit --for",
           "COMP_CWORD": "2"}  # fmt: skip
    assert "--format" in run(cwd=tmp_path, env=env).stdout.split()
    env = {"_MEMGUARD_COMPLETE": "complete_bash", "COMP_WORDS": "memguard audit --format m",
           "COMP_CWORD": "3"}  # fmt: skip
    assert run(cwd=tmp_path, env=env).stdout.split() == ["mermaid"]
    # `--show-completion` detects the shell from the parent processes (shellingham): run it under
    # bash (`; exit` keeps bash from exec'ing the command, so bash stays its parent)
    shown = subprocess.run(["bash", "-c", f'"{sys.executable}" -m memguard --show-completion; exit $?'],
                           cwd=tmp_path, capture_output=True, text=True, timeout=180, check=False)
    assert shown.returncode == 0 and "_MEMGUARD_COMPLETE" in shown.stdout, shown.stderr


def _on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run the command with stderr on a pseudo-terminal; returns (exit, stdout, terminal text)."""
    import pty
    import select

    primary, secondary = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "MEMGUARD_PROGRESS"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memguard", *args], cwd=cwd, stdout=subprocess.PIPE,
        stderr=secondary, env={**env, "TERM": "xterm", "COLUMNS": "100"},
    )  # fmt: skip
    os.close(secondary)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([primary], [], [], 0.2)
        if ready:
            try:
                data = os.read(primary, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=120)
    os.close(primary)
    return code, out, b"".join(chunks).decode("utf-8", "replace")


def test_progress_on_a_terminal_only(demo_runs) -> None:  # type: ignore[no-untyped-def]
    work, _ = demo_runs
    args = ["ledger", "verify", "--state-dir", str(work / "state")]
    code, out, terminal = _on_a_terminal(args, work)
    assert code == 0 and out.startswith("verified:")
    assert "verifying the audit log" in terminal
    code, out, terminal = _on_a_terminal([*args, "--json"], work)
    assert code == 0 and json.loads(out)["verified"] is True
    assert "verifying" not in terminal
    piped = run(*args, cwd=work)
    assert piped.returncode == 0 and "verifying" not in piped.stderr
