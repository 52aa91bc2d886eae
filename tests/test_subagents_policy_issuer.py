"""``policies/subagents.yaml`` names the delegator's facts by (issuer, subject), never ``sub`` alone:
combined with a policy that grants reads across owners (a sharing policy), a sub-agent acting for
alice at one issuer still cannot read a fact owned by an ``alice`` at another issuer."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARE_ALL = """apiVersion: memguard/v1
kind: PolicySet
description: a sharing grant across owners, to test what subagents.yaml takes away on its own
rules:
  - id: share.read-all
    description: every verified principal reads every fact
    effect: permit
    actions: [search, get]
    when: {attr: fact.trust, gte: untrusted}
"""
CASES = """apiVersion: memguard/v1
kind: PolicyTests
policies: [share.yaml, subagents.yaml]
tests:
  - name: the sub-agent reads its own user's fact
    principal:
      subject: alice
      issuer: https://idp.example
      actors: [spiffe://memguard.local/agent/planner, spiffe://memguard.local/agent/browser]
    action: search
    fact: {owner_iss: https://idp.example, owner_sub: alice, writer_sub: alice, trust: user}
    expect: {decision: allow, rules: [share.read-all]}

  - name: the same subject at another issuer is another user, for the sub-agent rule too
    principal:
      subject: alice
      issuer: https://idp.example
      actors: [spiffe://memguard.local/agent/planner, spiffe://memguard.local/agent/browser]
    action: search
    fact: {owner_iss: https://evil.example, owner_sub: alice, writer_sub: alice, trust: user}
    expect: {decision: deny, rules: [subagents.delegator-facts-only]}
"""


def test_subagent_rule_compares_issuer_and_subject(tmp_path: Path) -> None:
    shutil.copy(ROOT / "policies" / "subagents.yaml", tmp_path / "subagents.yaml")
    (tmp_path / "share.yaml").write_text(SHARE_ALL, "utf-8")
    (tmp_path / "cross.tests.yaml").write_text(CASES, "utf-8")
    out = subprocess.run([sys.executable, "-m", "memguard", "policy", "test", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2/2 cases passed" in out.stdout
