"""``memguard eval --gateway URL --token-file F``: the corpus through a real gateway on 127.0.0.1
(real signed tokens, exchanged to an agent and a sub-agent), the same report as embedded mode,
and exit 7 when a deployment breaks a guarantee (a policy set without the purpose rules)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import Gateway, running_gateway
from helpers import BROWSER, PLANNER

from memguard.evaluate import load_corpus
from memguard.evaluate_gateway import TokenFileError, load_tokens, run_gateway_eval

HERE = Path(__file__).resolve().parent
OWN = HERE / "scan" / "holdout.jsonl"
POLICIES = HERE.parent / "policies"
ALL = ("memory:read", "memory:write", "memory:revoke")
GRANTS = {"delegation": [
    {"actor": PLANNER, "on_behalf_of": "user", "scopes": list(ALL)},
    {"actor": BROWSER, "on_behalf_of": PLANNER, "scopes": list(ALL)},
]}  # fmt: skip
# malicious verdicts cap to untrusted (quarantined by default): the scanner catches every attack
# row used here, so with quarantine no attack fact would be left for the render check to render,
# or for a broken policy set to expose
VISIBLE = {"policy": {"malicious": "untrusted"}}
LIMITS = {"token_rate": {"per_minute": 6000, "burst": 1000},
          "memory_rate": {"per_minute": 60000, "burst": 10000}}  # fmt: skip


def rows(n: int = 12) -> list[dict[str, Any]]:
    corpus = load_corpus(OWN)
    return corpus[: n // 2] + corpus[-n // 2 :]  # attacks first, benign last


def token_file(gw: Gateway, path: Path, revoker: bool = True) -> Path:
    user = gw.user_token("alice", scopes=ALL)
    client = gw.exchange_client(gw.planner)
    try:
        scope = " ".join(ALL)
        planner = client.exchange(user, audience=gw.resource, scope=scope).access_token
        browser = client.exchange(planner, audience=gw.resource, scope=scope,
                                  actor_token=gw.svid(BROWSER, use="actor")).access_token
    finally:
        client.close()
    tokens: dict[str, Any] = {
        "user": gw.user_token("alice", scopes=("memory:read", "memory:write")),
        "agent": {"token": planner, "workload": gw.svid(PLANNER)},
        "sub-agent": {"token": browser, "workload": gw.svid(BROWSER)},
    }
    if revoker:
        tokens["revoker"] = user
    path.write_text(json.dumps(tokens), "utf-8")
    return path


def test_the_reference_gateway_passes(tmp_path: Path) -> None:
    with running_gateway(tmp_path, mcp=False, sts=GRANTS, limits=LIMITS, scan=VISIBLE,
                         policy={"path": str(POLICIES)}) as gw:  # fmt: skip
        tokens = load_tokens(token_file(gw, tmp_path / "tokens.json"))
        report = run_gateway_eval(rows(), gw.base, tokens, searches=4)
    data = report.as_json()
    assert data["failures"] == [] and data["passed"] is True
    assert data["reachable_for_action"] == {"tool_argument": 0, "planning": 0}
    assert data["benign_reachable_for_action"]["tool_argument"] == 6  # the control can find facts
    assert set(data["trust_by_channel"]) >= {"tool_output", "web", "document", "subagent_report",
                                             "user_message"}  # fmt: skip
    # every channel through every chain: 6 attacks x (4 channels x 3 chains + user message x 2)
    assert data["writes"]["written"] + data["writes"]["refused"] == 6 * 14 + 6
    assert data["scanner"]["detection"] == 1.0 and data["scanner"]["false_positive_rate"] == 0
    assert data["render"]["breakouts"] == 0 and data["render"]["facts_rendered"] > 0
    assert data["revocation"] == {"expected": 60, "written": 60, "roots": 20, "descendants": 40,
                                  "still_readable": 0}  # fmt: skip


def test_a_broken_deployment_exits_7_over_the_cli(tmp_path: Path) -> None:
    loose = tmp_path / "loose-policies"
    shutil.copytree(POLICIES, loose)
    for name in ("purpose.yaml", "purpose.tests.yaml", "reference.tests.yaml"):
        (loose / name).unlink(missing_ok=True)  # untrusted facts may now feed tool arguments
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows(8)), "utf-8")
    with running_gateway(tmp_path / "gw", mcp=False, sts=GRANTS, limits=LIMITS, scan=VISIBLE,
                         policy={"path": str(loose)}) as gw:  # fmt: skip
        tokens = token_file(gw, tmp_path / "tokens.json", revoker=False)
        proc = subprocess.run(
            [sys.executable, "-m", "memguard", "eval", str(corpus), "--gateway", gw.base,
             "--token-file", str(tokens), "--searches", "2", "--json"],
            capture_output=True, text=True, cwd=tmp_path, check=False, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 7, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["reachable_for_action"]["tool_argument"] > 0
    assert any("reachable for `tool_argument`" in f for f in data["failures"])
    assert data["revocation"] is None  # no revoker token: not measured, and said so


def test_an_unreachable_gateway_and_bad_token_files(tmp_path: Path) -> None:
    bad = tmp_path / "t.json"
    for content, message in [("[]", "JSON object"), ('{"agent": "x"}', "`user`"),
                             ('{"user": "x", "root": "y"}', "unknown"),
                             ('{"user": {"token": 1}}', "`user`"), ("nope", "JSON")]:  # fmt: skip
        bad.write_text(content, "utf-8")
        with pytest.raises(TokenFileError, match=message):
            load_tokens(bad)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows(2)), "utf-8")
    bad.write_text('{"user": "x"}', "utf-8")

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "memguard", "eval", str(corpus), *extra],
                              capture_output=True, text=True, cwd=tmp_path, check=False,
                              timeout=120)  # fmt: skip

    assert run("--gateway", "http://127.0.0.1:9", "--token-file", str(bad)).returncode == 1
    assert run("--gateway", "http://127.0.0.1:9").returncode == 2
    bad.write_text("[]", "utf-8")
    assert run("--gateway", "http://127.0.0.1:9", "--token-file", str(bad)).returncode == 3
