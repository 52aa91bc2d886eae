"""docs/identity.md's onboarding path runs as written: from ``memguard token`` to a gateway call.

The YAML and shell blocks after ``<!-- onboarding:... -->`` are taken from the page, the port is
replaced by a free one, and the commands run in bash with real processes (``memguard serve``, the
``memguard token`` commands, curl) on 127.0.0.1.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memguard.gateway.server import free_port

DOC = Path(__file__).resolve().parent.parent / "docs" / "identity.md"


def block(marker: str) -> str:
    text = DOC.read_text("utf-8")
    match = re.search(rf"<!-- onboarding:{re.escape(marker)} -->\n```\w+\n(.*?)\n```", text, re.S)
    assert match, f"docs/identity.md has no `{marker}` block"
    return match.group(1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="the documented path uses curl")
def test_onboarding_commands_run_as_written(tmp_path: Path) -> None:
    port = str(free_port())
    (tmp_path / "gateway.yaml").write_text(block("gateway.yaml").replace("8700", port), "utf-8")
    script = block("shell").replace("8700", port)
    venv_bin = Path(sys.executable).parent
    wrapper = (
        "set -euo pipefail\n"
        f'export PATH="{venv_bin}:$PATH" PYTHONWARNINGS=ignore\n'
        "trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT\n" + script + "\n"
    )
    proc = subprocess.run(["bash", "-c", wrapper], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    issuer = f"http://127.0.0.1:{port}"
    assert out.count(f"valid: alice @ {issuer}") == 2, out
    assert f"valid: alice @ {issuer} -> spiffe://memguard.local/agent/planner" in out
    assert out.count('{"facts":[],"next_cursor":null}') == 2, out


def test_the_threat_table_names_tests_that_exist() -> None:
    """Every ``test_x.py::name`` and ``test_x.py`` the page cites is a real test (file)."""
    text = DOC.read_text("utf-8")
    table = text[text.index("## Threats and what refuses them"):]
    tests = Path(__file__).resolve().parent
    cited = re.findall(r"`(test_\w+\.py)((?:::\w+)?)`", table)
    named = re.findall(r"`::(\w+)`", table)
    assert len(cited) >= 15
    for filename, name in cited:
        source = (tests / filename).read_text("utf-8")
        if name:
            assert f"def {name[2:]}(" in source, f"{filename}{name}"
    assert named  # `::name` right after a cited file refers to that file
    for line in table.splitlines():
        files = re.findall(r"`(test_\w+\.py)", line)
        for name in re.findall(r"`::(\w+)`", line):
            assert any(f"def {name}(" in (tests / f).read_text("utf-8") for f in files), name
