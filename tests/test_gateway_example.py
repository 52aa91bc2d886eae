"""examples/gateway_agent.py: the agent-to-gateway story runs offline and says what it should."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import gateway_agent as example  # noqa: E402


def test_gateway_agent_story(tmp_path: Path) -> None:
    result = example.run(tmp_path)
    assert result["writer_chain"] == ["alice", example.PLANNER, example.BROWSER]
    assert str(result["browser_write"]).startswith("[trust=untrusted source=web:")
    assert str(result["planner_write"]).startswith("[trust=user source=user_message:chat")
    assert result["audit_verified"] is True
    assert result["bob_sees"] == 0 and result["bob_get"] == "not_found"
    assert result["stolen_token"] == "identity.presenter_mismatch"


def test_gateway_example_runs_as_a_script() -> None:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "gateway_agent.py")],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "identity.presenter_mismatch" in proc.stdout
