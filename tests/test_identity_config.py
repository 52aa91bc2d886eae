"""The YAML identity configuration: valid files load; anything missing or invalid refuses everything
and says why (ConfigurationError), and a guard built on it audits each refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock
from identity_helpers import AUDIENCE, ISSUER, Env, make_env

from memguard import ConfigurationError
from memguard.tokens import IdentityVerifier, RefusingVerifier, load_identity_config


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return make_env(tmp_path, Clock())


def base(env: Env) -> dict[str, Any]:
    return {
        "version": 1,
        "access_tokens": {"audience": AUDIENCE, "issuers": [
            {"issuer": ISSUER, "algorithms": ["EdDSA"], "jwks": env.sts.jwks()}]},
        "limits": {"max_depth": 3, "max_ttl": 3600, "max_age": 86400, "leeway": 30},
    }


def write(tmp_path: Path, data: Any, name: str = "identity.yaml") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def test_valid_yaml_loads_with_defaults(env: Env, tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(env.sts.jwks()), "utf-8")
    path = write(tmp_path, f"""
version: 1
access_tokens:
  audience: memguard
  issuers:
    - issuer: {ISSUER}
      jwks_file: {jwks}
delegation:
  - actor: spiffe://memguard.local/agent/planner
    on_behalf_of: user
    scopes: [memory:read]
""")
    config = load_identity_config(path)
    assert config.limits.max_depth == 3 and config.limits.leeway == 30
    verifier = IdentityVerifier(config, clock=env.clock)
    assert env.guard(verifier).authenticate(env.user_token())


def mutate(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    node: Any = data
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    if value is KeyError:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return data


BAD: list[tuple[str, Any, str]] = [
    ("limits.leeway", 61, "leeway"),
    ("limits.leeway", "30", "leeway"),
    ("limits.max_depth", -1, "max_depth"),
    ("version", 2, "version"),
    ("version", KeyError, "version"),
    ("access_tokens.issuers", [], "issuers"),
    ("access_tokens.issuers.0.algorithms", ["HS256"], "algorithms"),
    ("access_tokens.issuers.0.algorithms", ["none"], "algorithms"),
    ("access_tokens.issuers.0.jwks_url", "https://idp.example/jwks", "exactly one"),
    ("access_tokens.issuers.0.jwks", {"keys": []}, "no usable"),
    ("access_tokens.surprise", True, "surprise"),
    ("delegation", [{"actor": "planner", "on_behalf_of": "user", "scopes": ["a"]}], "actor"),
    ("delegation", [{"actor": "spiffe://d/a", "on_behalf_of": "admins", "scopes": ["a"]}], "on_behalf_of"),
    ("workload_credentials", {"audience": "m", "trust_domains": [
        {"trust_domain": "Bad Domain", "jwks": {"keys": []}}]}, "trust_domain"),
]


@pytest.mark.parametrize(("where", "value", "says"), BAD, ids=[f"{w}={v!r}"[:40] for w, v, _ in BAD])
def test_invalid_config_refuses_and_says_why(
    env: Env, tmp_path: Path, where: str, value: Any, says: str
) -> None:
    path = write(tmp_path, mutate(base(env), where, value))
    with pytest.raises(ConfigurationError) as info:
        IdentityVerifier.from_yaml(path)
    assert says in str(info.value)
    refusing = RefusingVerifier.or_verifier(path)
    assert isinstance(refusing, RefusingVerifier)
    guard = env.guard(refusing)
    with pytest.raises(ConfigurationError) as again:
        guard.authenticate(env.user_token())
    assert str(again.value) == str(info.value)
    event = guard.ledger.events(decision="deny")[-1]
    assert event.reason == "configuration" and event.action == "authenticate"


@pytest.mark.parametrize("content", [None, "", "- a\n- b\n", "version: [1\n", "\x00"])
def test_missing_or_unparsable_config(env: Env, tmp_path: Path, content: str | None) -> None:
    path = None if content is None else write(tmp_path, content)
    with pytest.raises(ConfigurationError):
        load_identity_config(path)
    guard = env.guard(RefusingVerifier.or_verifier(path))
    for credential in (env.user_token(), env.browser_token()):
        with pytest.raises(ConfigurationError):
            guard.authenticate(credential, workload_credential=env.svid("spiffe://memguard.local/agent/browser"))
    assert len(guard.ledger.events(decision="deny")) == 2


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as info:
        load_identity_config(tmp_path / "absent.yaml")
    assert "cannot be read" in str(info.value)


def test_leeway_cap_in_code() -> None:
    from memguard.tokens.rfc7519 import check_leeway

    with pytest.raises(ConfigurationError):
        check_leeway(61)
    assert check_leeway(60) == 60
