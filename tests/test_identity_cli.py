"""Acceptance tests of `memguard token ...`, run as real subprocesses (exchange over real HTTP)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from helpers import BROWSER, PLANNER
from identity_helpers import make_client

from memguard.tokens import SecurityTokenService
from memguard.tokens.config import DelegationGrant
from memguard.tokens.rfc7523 import RegisteredClient
from memguard.tokens.server import create_app, serve_local


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str) -> Result:
    """In process through Typer's runner (a subprocess costs ~5 s of imports); see the smoke test."""
    import structlog
    from typer.testing import CliRunner

    from memguard.cli import app

    # the CLI configures structlog onto the runner's (temporary) stderr; restore it afterwards so
    # later tests do not log into a closed stream
    saved = structlog.get_config()
    try:
        out = CliRunner().invoke(app, ["token", *args])
    finally:
        structlog.configure(**saved)
    return Result(out.exit_code, out.stdout, out.stderr)


def test_token_subcommand_as_a_real_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "memguard", "token", "mint-user", "alice",
         "--state-dir", str(tmp_path)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0 and proc.stdout.count(".") == 2


def test_mint_verify_decode(tmp_path: Path) -> None:
    state = str(tmp_path)
    token = run("mint-user", "alice", "--scope", "memory:read", "--state-dir", state).stdout.strip()
    ok = run("verify", token, "--state-dir", state)
    assert ok.returncode == 0 and ok.stdout.startswith("valid: alice @ https://sts.memguard.local")
    data = json.loads(run("verify", token, "--state-dir", state, "--json").stdout)
    assert data["valid"] is True and data["scopes"] == ["memory:read"] and data["subject"] == "alice"
    svid = run("mint-workload", PLANNER, "--state-dir", state).stdout.strip()
    refused = run("verify", svid, "--state-dir", state, "--json")
    assert refused.returncode == 5 and json.loads(refused.stdout)["code"] == "identity.bad_type"
    tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    assert run("verify", tampered, "--state-dir", state).stdout.startswith("refused: identity.bad_signature")
    decoded = json.loads(run("decode", token, "--json").stdout)
    assert decoded["verified"] is False and decoded["claims"]["sub"] == "alice"
    assert run("decode", "not-a-token").returncode == 3  # invalid input: nothing to decode
    assert run("mint-workload", "spiffe://Other/x", "--state-dir", state).returncode == 5


def test_verify_with_bad_config_exits_3(tmp_path: Path) -> None:
    cfg = tmp_path / "identity.yaml"
    cfg.write_text("version: 1\nlimits: {leeway: 300}\n", "utf-8")
    out = run("verify", "x.y.z", "--config", str(cfg))
    assert out.returncode == 3 and "access_tokens" in out.stderr


def test_exchange_and_presenter_binding(tmp_path: Path) -> None:
    state = tmp_path / "state"
    planner = make_client(PLANNER)
    key = tmp_path / "planner.pem"
    key.write_bytes(planner.pem)
    user = run("mint-user", "alice", "--scope", "memory:read", "--state-dir", str(state),
               "--init").stdout.strip()  # a --state-dir that does not exist needs --init
    sts = SecurityTokenService(state / "sts", clients=[planner.registered()], delegation=[
        DelegationGrant(actor=PLANNER, on_behalf_of="user", scopes=("memory:read",))])
    with serve_local(create_app(sts)) as base:
        sts.set_token_endpoint(f"{base}/token")
        common = ["--token-endpoint", f"{base}/token", "--client-id", PLANNER,
                  "--client-key", str(key), "--kid", planner.kid, "--audience", "memguard"]
        out = run("exchange", user, *common, "--scope", "memory:read")
        assert out.returncode == 0, out.stderr
        delegated = out.stdout.strip()
        wide = run("exchange", user, *common, "--scope", "memory:read memory:write")
        assert wide.returncode == 5 and "invalid_scope" in wide.stderr
    svid = run("mint-workload", PLANNER, "--state-dir", str(state)).stdout.strip()
    other = run("mint-workload", BROWSER, "--state-dir", str(state)).stdout.strip()
    # without a config only the local STS is trusted and no delegation grant exists
    ungranted = run("verify", delegated, "--workload-credential", svid, "--state-dir", str(state))
    assert ungranted.returncode == 5 and "identity.bad_delegation" in ungranted.stdout
    cfg = tmp_path / "identity.yaml"
    cfg.write_text(json.dumps({
        "version": 1,
        "access_tokens": {"audience": "memguard", "issuers": [{
            "issuer": sts.issuer, "jwks": json.loads(run("jwks", "--state-dir", str(state)).stdout)}]},
        "workload_credentials": {"audience": sts.presenter_audience, "trust_domains": [{
            "trust_domain": "memguard.local",
            "jwks": json.loads(run("jwks", "--workload", "--state-dir", str(state)).stdout)}]},
        "delegation": [{"actor": PLANNER, "on_behalf_of": "user", "scopes": ["memory:read"]}],
    }), "utf-8")
    bound = run("verify", delegated, "--workload-credential", svid, "--config", str(cfg))
    assert bound.returncode == 0 and PLANNER in bound.stdout
    unbound = run("verify", delegated, "--config", str(cfg))
    assert unbound.returncode == 5 and "identity.unbound" in unbound.stdout
    wrong = run("verify", delegated, "--workload-credential", other, "--config", str(cfg))
    assert wrong.returncode == 5 and "identity.presenter_mismatch" in wrong.stdout


def test_cli_refuses_unsafe_identifiers(tmp_path: Path) -> None:
    for subject in ("\uff41lice", "ali\u200bce", "al\u202eice"):
        out = run("mint-user", subject, "--state-dir", str(tmp_path))
        assert out.returncode != 0 and not out.stdout  # refused: no token printed
        assert "forbidden character" in out.stderr or "NFKC" in out.stderr
    bad = run("verify", "x.y.z", "--state-dir", str(tmp_path), "--json")
    assert bad.returncode != 0 and json.loads(bad.stdout)["code"] == "identity.malformed"


def test_keygen_and_exchange_derive_the_kid(tmp_path: Path) -> None:
    key = tmp_path / "planner.pem"
    jwks = json.loads(run("keygen", str(key)).stdout)
    assert oct(key.stat().st_mode)[-3:] == "600"
    assert run("keygen", str(key)).returncode != 0  # never overwrites a key
    sts = SecurityTokenService(tmp_path / "sts", clients=[RegisteredClient(PLANNER, jwks)],
                               delegation=[DelegationGrant(actor=PLANNER, on_behalf_of="user",
                                                           scopes=("memory:read",))])
    user = sts.issue_user_token("alice", scopes=("memory:read",))
    with serve_local(create_app(sts)) as base:
        sts.set_token_endpoint(f"{base}/token")
        out = run("exchange", user, "--token-endpoint", f"{base}/token", "--client-id", PLANNER,
                  "--client-key", str(key), "--audience", "memguard", "--scope", "memory:read")
        assert out.returncode == 0, out.stderr
