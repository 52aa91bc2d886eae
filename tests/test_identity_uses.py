"""One audience and one ``typ`` per token use (issue 12, item 2).

The attack that was found: with the defaults, the token service's issuer was the gateway's resource,
so the workload credential an agent sends on every memory call was accepted at ``/token`` as client
authentication and as an ``actor_token``, and the actor token a parent agent holds for its
sub-agent passed as that sub-agent's ``Workload-Identity-Token``. Now each use has its own audience
and ``typ``, defaults all differ, and a configuration that makes two audiences equal is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_helpers import Gateway, gateway_config, running_gateway
from helpers import BROWSER, PLANNER, Clock
from identity_helpers import AUDIENCE, ISSUER, make_client, make_env

from memguard import ConfigurationError, IdentityError
from memguard.gateway.stack import open_stack
from memguard.tokens import IdentityConfig, SecurityTokenService

SPIFFE = "urn:ietf:params:oauth:client-assertion-type:jwt-spiffe"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"
JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt"


def _config(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": 1,
        "access_tokens": {"audience": "memguard", "issuers": [
            {"issuer": ISSUER, "jwks": {"keys": []}}]},
        "workload_credentials": {"audience": "memguard/workload", "trust_domains": [
            {"trust_domain": "memguard.local", "jwks": {"keys": []}}]},
    }
    for key, value in over.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    return data


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"workload_credentials": {"audience": "memguard"}}, "each token use needs its own audience"),
        ({"workload_credentials": {"typ": "at+jwt"}}, "must differ"),
        ({"workload_credentials": {"typ": "JWT"}}, "must differ"),
        ({"workload_credentials": {"typ": "actor+jwt"}}, "must differ"),
        ({"workload_credentials": {"typ": "application/at+jwt"}}, "must differ"),
    ],
)
def test_identity_config_with_two_equal_uses_is_refused(over: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        IdentityConfig.from_mapping(_config(**over))


def test_token_service_with_two_equal_uses_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="each token use"):
        SecurityTokenService(tmp_path / "a", audiences=("memguard",), presenter_audience="memguard")
    with pytest.raises(ConfigurationError, match="each token use"):
        SecurityTokenService(tmp_path / "b", audiences=("memguard",), token_endpoint="memguard")
    with pytest.raises(ConfigurationError, match="each token use"):
        SecurityTokenService(tmp_path / "c", audiences=("memguard",),
                             presenter_audience="https://sts/token", token_endpoint="https://sts/token")
    sts = SecurityTokenService(tmp_path / "d", issuer="memguard", audiences=("memguard",))
    assert "memguard" not in sts.token_audiences  # the issuer's name is the resource's: not reused


def test_defaults_are_all_different(tmp_path: Path) -> None:
    cfg = gateway_config(tmp_path, make_client(PLANNER), make_client(BROWSER))
    stack = open_stack(cfg)
    try:
        sts = stack.sts
        assert sts is not None and sts.issuer == cfg.resource  # the default issuer: the resource
        uses = [{cfg.resource}, {cfg.presenter_audience}, set(sts.token_audiences)]
        assert all(not (a & b) for i, a in enumerate(uses) for b in uses[i + 1:])
        assert sts.token_audiences == {f"{cfg.resource}/token"}
        wc = stack.identity.workload_credentials
        assert wc is not None and wc.audience == cfg.presenter_audience
    finally:
        stack.close()


@pytest.mark.parametrize("presenter", ["resource", "token"])
def test_gateway_refuses_a_presenter_audience_of_another_use(tmp_path: Path, presenter: str) -> None:
    cfg = gateway_config(tmp_path, make_client(PLANNER), make_client(BROWSER))
    value = cfg.resource if presenter == "resource" else cfg.token_endpoint
    cfg = gateway_config(tmp_path, make_client(PLANNER), make_client(BROWSER),
                         server={"host": "127.0.0.1", "port": cfg.server.port},
                         identity={"presenter_audience": value})
    with pytest.raises(ConfigurationError, match="each token use"):
        open_stack(cfg)


def test_identity_config_audiences_must_be_the_gateways_own(tmp_path: Path) -> None:
    cfg = gateway_config(tmp_path, make_client(PLANNER), make_client(BROWSER))
    path = tmp_path / "identity.yaml"
    path.write_text(json.dumps(_config(access_tokens={"audience": cfg.resource}, workload_credentials={
        "audience": cfg.resource + "/elsewhere"})), "utf-8")
    cfg = gateway_config(tmp_path, make_client(PLANNER), make_client(BROWSER),
                         server={"host": "127.0.0.1", "port": cfg.server.port},
                         identity={"config": str(path)})
    with pytest.raises(ConfigurationError, match="presenter audience"):
        open_stack(cfg)


# -- the attack, over HTTP against the default gateway --------------------------------------------------


def _form(gw: Gateway, **fields: str) -> bytes:
    from urllib.parse import urlencode

    base = {"grant_type": EXCHANGE, "subject_token": gw.user_token(), "subject_token_type": ACCESS,
            "audience": gw.resource, "scope": "memory:read"}
    return urlencode({**base, **fields}).encode()


def _token(gw: Gateway, body: bytes) -> httpx.Response:
    return httpx.post(f"{gw.base}/token", content=body, timeout=10,
                      headers={"content-type": "application/x-www-form-urlencoded"})


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with running_gateway(tmp_path_factory.mktemp("uses"), mcp=False) as gateway:
        yield gateway


def test_presenter_credential_is_no_client_authentication(gw: Gateway) -> None:
    presenter = gw.svid(PLANNER)  # what the planner sends with every memory call
    r = _token(gw, _form(gw, client_assertion_type=SPIFFE, client_assertion=presenter))
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"
    good = gw.svid(PLANNER, use="client")  # the one made for the token endpoint
    assert _token(gw, _form(gw, client_assertion_type=SPIFFE, client_assertion=good)).status_code == 200


def test_presenter_credential_is_no_actor_token(gw: Gateway) -> None:
    planner = gw.exchange_client(gw.planner)
    try:
        planner_token = planner.exchange(gw.user_token(), audience=gw.resource,
                                         scope="memory:read").access_token
    finally:
        planner.close()
    client = gw.svid(PLANNER, use="client")
    r = _token(gw, _form(gw, client_assertion_type=SPIFFE, client_assertion=client,
                         subject_token=planner_token, actor_token=gw.svid(BROWSER),
                         actor_token_type=JWT_TYPE))
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
    reasons = [e.reason for e in gw.stack.guard.ledger.events(decision="deny")]
    assert reasons[-1] == "invalid_grant:actor_token identity.bad_type"


def test_actor_token_is_no_presenter_credential(gw: Gateway) -> None:
    tokens = gw.chain()
    actor = gw.svid(BROWSER, use="actor")  # what the planner held for its sub-agent
    r = httpx.get(f"{gw.base}/v1/facts", headers=gw.headers(tokens["browser"], actor), timeout=10)
    assert r.status_code == 401 and r.json()["error"]["code"] == "identity.bad_type"
    r = httpx.get(f"{gw.base}/v1/facts", headers=gw.headers(tokens["browser"], gw.svid(BROWSER)),
                  timeout=10)
    assert r.status_code == 200


def test_access_token_is_no_client_assertion(gw: Gateway) -> None:
    r = _token(gw, _form(gw, client_assertion_type=SPIFFE, client_assertion=gw.user_token()))
    assert r.status_code == 401
    r = _token(gw, _form(gw, client_assertion_type="urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                         client_assertion=gw.user_token(), client_id=PLANNER))
    assert r.status_code == 401


def test_client_assertions_name_the_token_endpoint_not_the_resource(gw: Gateway) -> None:
    now = int(Clock(__import__("time").time())())
    for audience, status in ((gw.resource, 401), (gw.sts.token_audience, 200)):
        assertion = gw.planner.assertion(audience, now)
        body = _form(gw, client_assertion_type="urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                     client_assertion=assertion)
        assert _token(gw, body).status_code == status, audience


def test_minting_a_credential_for_another_uses_audience_is_refused(tmp_path: Path) -> None:
    env = make_env(tmp_path, Clock())
    with pytest.raises(ConfigurationError, match="another token use"):
        env.sts.issue_workload_credential(PLANNER, audience=f"{ISSUER}/token")  # presenter
    with pytest.raises(ConfigurationError, match="another token use"):
        env.sts.issue_workload_credential(PLANNER, use="actor", audience=env.sts.presenter_audience)
    with pytest.raises(ConfigurationError, match="another token use"):
        env.sts.issue_workload_credential(PLANNER, use="client", audience=AUDIENCE)
    with pytest.raises(IdentityError):  # and the verifier refuses the one a test forges anyway
        env.guard().authenticate(env.browser_token(),
                                 workload_credential=env.svid(BROWSER, audience="https://x"))
