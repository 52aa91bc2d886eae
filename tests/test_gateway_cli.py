"""``memguard serve`` (the typer command in memguard.gateway.cli): configuration refusals and a real
two-worker gateway on a shared PostgreSQL ledger, started as ``python -m memguard.gateway``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import typer
from helpers import pg_schema_url
from typer.testing import CliRunner

from memguard.gateway.cli import serve
from memguard.gateway.server import free_port
from memguard.tokens.sts import SecurityTokenService

app = typer.Typer()
app.command()(serve)


def test_invalid_configuration_exits_3(tmp_path: Path) -> None:
    bad = tmp_path / "gw.yaml"
    bad.write_text("version: 1\nlimits: {max_concurency: 3}\n", "utf-8")
    result = CliRunner().invoke(app, ["--config", str(bad)])
    assert result.exit_code == 3
    assert "`limits.max_concurency`: unknown key" in result.output
    good = tmp_path / "ok.yaml"
    good.write_text(f"state_dir: {tmp_path / 's'}\n", "utf-8")
    result = CliRunner().invoke(app, ["--config", str(good), "--workers", "2"])
    assert result.exit_code == 3 and "embedded store (qdrant-edge, or Qdrant local mode) cannot be shared" in " ".join(result.output.split())


@pytest.mark.slow
@pytest.mark.postgres
def test_two_workers_share_one_postgres_ledger(tmp_path: Path) -> None:
    with pg_schema_url() as url:
        port = free_port()
        resource = f"http://127.0.0.1:{port}"
        cfg = tmp_path / "gateway.yaml"
        cfg.write_text(json.dumps({
            "state_dir": "state", "ledger": {"url": url},
            "store": {"path": "qdrant", "per_worker_local": True},
            "server": {"port": port}, "mcp": {"enabled": False},
        }), "utf-8")
        sts = SecurityTokenService(tmp_path / "state" / "sts", issuer=resource,
                                   audiences=(resource,))
        token = sts.issue_user_token("alice", scopes=("memory:read", "memory:write"))
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        proc = subprocess.Popen([sys.executable, "-m", "memguard.gateway", "--config", str(cfg),
                                 "--workers", "2"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 180
            while True:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
                try:
                    if httpx.get(f"{resource}/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline
                time.sleep(0.2)
            h = {"Authorization": f"Bearer {token}"}
            ids = []
            with httpx.Client(base_url=resource, timeout=10) as client:
                for i in range(20):
                    r = client.post("/v1/facts", headers=h, json={
                        "text": f"fact {i}", "namespace": "n", "source": {"kind": "user_message"},
                        "turn": {"session_id": "s", "turn_index": i}})
                    assert r.status_code == 201, r.text
                    ids.append(r.json()["fact_id"])
            from memguard.ledger import FactState, Ledger

            ledger = Ledger.from_url(url)
            try:
                committed = {r.fact_id for r in ledger.in_state(FactState.COMMITTED)}
                assert committed == set(ids)
                seqs = [seq for f in ids for seq, _, _ in ledger.events_for(f)]
                assert len(seqs) == len(set(seqs))  # one order, assigned by the ledger
            finally:
                ledger.close()
        finally:
            proc.terminate()
            proc.wait(90)
