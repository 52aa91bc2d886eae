"""End to end over real HTTP on 127.0.0.1: user -> planner (exchange) -> browser (second exchange),
with authlib's OAuth2 client against the local STS, and the guard verifying through JWKS URLs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import delegation_chain as example  # noqa: E402

from memguard import IdentityError, Source, SourceKind, Turn  # noqa: E402
from memguard.tokens import TokenExchangeError  # noqa: E402


def test_delegation_chain_end_to_end(tmp_path: Path) -> None:
    result = example.run(tmp_path)
    assert result["writer_chain"] == ["alice", example.PLANNER, example.BROWSER]
    assert result["browser_reads"] == ["web"]  # scoped: not alice's notes
    assert result["alice_reads"] == ["notes", "web"]
    assert result["parent_token_refused"] == "identity.presenter_mismatch"


def test_chain_recorded_in_ledger_and_scope_enforced(tmp_path: Path) -> None:
    with example.world(tmp_path) as w:
        endpoint = f"{w.base_url}/token"
        user = w.sts.issue_user_token("alice", scopes=example.USER_SCOPES)
        client = w.planner.client(endpoint)
        planner_token = client.exchange(user, audience="memguard",
                                        scope="read:web write:web").access_token
        # widening at the second hop is refused by the STS, not narrowed
        actor = w.sts.issue_workload_credential(example.BROWSER, use="actor")
        with pytest.raises(TokenExchangeError) as info:
            client.exchange(planner_token, audience="memguard", scope="read:notes", actor_token=actor)
        assert info.value.error == "invalid_scope"
        browser_token = client.exchange(planner_token, audience="memguard", scope="write:web",
                                        actor_token=actor).access_token
        client.close()
        # the browser itself cannot re-delegate a token whose current actor is the planner
        browser_client = w.browser.client(endpoint)
        with pytest.raises(TokenExchangeError) as info:
            browser_client.exchange(planner_token, audience="memguard", scope="write:web")
        assert info.value.error == "invalid_grant"
        browser_client.close()

        svid = w.sts.issue_workload_credential(example.BROWSER)
        browser = w.guard.authenticate(browser_token, workload_credential=svid)
        prov = w.guard.write(browser, "fetched page", namespace="web",
                             source=Source(kind=SourceKind.WEB, uri="https://example.org"),
                             turn=Turn(session_id="s", turn_index=0))
        record = w.guard.ledger.latest([prov.fact_id])[prov.fact_id]
        writer = record.provenance.writer
        assert [a.subject for a in writer.actors] == [example.PLANNER, example.BROWSER]
        assert writer.subject.subject == "alice"
        # write-only token: reading is denied by the token scope
        with pytest.raises(Exception) as denied:
            w.guard.search(browser, "page", k=5)
        assert getattr(denied.value, "code", "").startswith("access_denied")
        # the bare planner token presented by the browser, and no credential at all
        for presented, cred, code in [
            (planner_token, svid, "identity.presenter_mismatch"),
            (browser_token, None, "identity.unbound"),
            (user, svid, "identity.impersonation"),
        ]:
            with pytest.raises(IdentityError) as err:
                w.guard.authenticate(presented, workload_credential=cred)
            assert err.value.code == code
        reasons = [e.reason for e in w.guard.ledger.events(decision="deny")]
        assert reasons[-3:] == ["identity.presenter_mismatch", "identity.unbound",
                                "identity.impersonation"]
        serialized = "".join(e.canonical().decode() for e in w.guard.ledger.events())
        assert browser_token not in serialized and planner_token not in serialized


def test_example_runs_as_a_script() -> None:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "delegation_chain.py")],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "identity.presenter_mismatch" in proc.stdout
