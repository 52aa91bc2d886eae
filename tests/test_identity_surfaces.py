"""One hostile-token generator, four ways in: the Python API, the CLI, HTTP and MCP decide alike.

Tokens are signed with the gateway's real key and then damaged (tests/test_identity_property.py's
defects: header tricks, algorithm confusion, time claims, audiences, act chains, ``sub_id``,
identifiers, encodings), sometimes not at all, and sometimes presented with a workload
credential. Each goes to ``MemoryGuard.authenticate``, ``memguard token verify --gateway-config``,
``GET /v1/facts`` and the MCP ``recall`` tool of one running gateway; all four must accept or all
must refuse, with the same ``identity.*`` code wherever the verifier decided (the HTTP edge may
refuse a malformed header earlier, as ``bearer.*``). ``MEMGUARD_SURFACE_EXAMPLES`` sets how many
examples run (CI: 40).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from gateway_helpers import gateway_config
from helpers import PLANNER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from identity_helpers import make_client
from test_identity_cli import run as cli
from test_identity_property import build, hostile

from memguard import IdentityError
from memguard.gateway.config import load_gateway_config
from memguard.gateway.server import serve_in_thread
from memguard.gateway.stack import GatewayStack, open_stack

EXAMPLES = int(os.environ.get("MEMGUARD_SURFACE_EXAMPLES", "40"))
Decision = tuple[str, str | None]  # ("accept", None) or ("refuse", code)


@dataclass
class Surfaces:
    config_path: Path
    stack: GatewayStack
    base: str

    @property
    def sts(self) -> Any:
        return self.stack.sts


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Surfaces]:
    tmp = tmp_path_factory.mktemp("surfaces")
    cfg = gateway_config(tmp, make_client(PLANNER), make_client(PLANNER))
    path = tmp / "gateway.yaml"
    path.write_text(json.dumps(cfg.model_dump(mode="json", exclude_none=True)), "utf-8")
    stack = open_stack(load_gateway_config(path))
    try:
        with serve_in_thread(stack) as base:
            yield Surfaces(path, stack, base)
    finally:
        stack.close()


def api(s: Surfaces, token: str, credential: str | None) -> Decision:
    try:
        s.stack.guard.authenticate(token, workload_credential=credential)
    except IdentityError as exc:
        return "refuse", exc.code
    return "accept", None


def command_line(s: Surfaces, token: str, credential: str | None) -> Decision:
    extra = ["--workload-credential", credential] if credential else []
    out = cli("verify", token, "--gateway-config", str(s.config_path), "--json", *extra)
    data = json.loads(out.stdout)
    assert (out.returncode == 0) == data["valid"], out.stderr  # a refusal exits non-zero
    return ("accept", None) if data["valid"] else ("refuse", data["code"])


def _headers(token: str, credential: str | None) -> dict[str, str]:
    headers = {"authorization": f"Bearer {token}"}
    if credential:
        headers["workload-identity-token"] = credential
    return headers


def http(s: Surfaces, token: str, credential: str | None) -> Decision:
    r = httpx.get(f"{s.base}/v1/facts", headers=_headers(token, credential), timeout=10)
    if r.status_code == 200:
        return "accept", None
    code: str = r.json()["error"]["code"]
    if r.status_code == 403:  # identity accepted, then the edge's scope check refused
        assert code == SCOPE_REFUSAL, r.text
        return "refuse", code
    assert r.status_code in (400, 401), r.text
    return "refuse", code


def mcp(s: Surfaces, token: str, credential: str | None) -> Decision:
    before = {e.event_id for e in s.stack.guard.ledger.events(decision="deny")}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "recall", "arguments": {"query": "x"}}}
    headers = {**_headers(token, credential), "accept": "application/json, text/event-stream"}
    r = httpx.post(f"{s.base}/mcp", json=body, headers=headers, timeout=10)
    if r.status_code == 200 and r.json()["result"]["isError"] is False:
        return "accept", None
    new = [e for e in s.stack.guard.ledger.events(decision="deny") if e.event_id not in before]
    assert len(new) == 1, [(e.action, e.reason) for e in new]
    return "refuse", new[0].reason


SCOPE_REFUSAL = "bearer.insufficient_scope"  # the HTTP error code
SCOPE_DENIAL = "access_denied.scope"  # the reason of the MCP tool's deny event
EDGE_SCOPE = {"http": ("refuse", SCOPE_REFUSAL), "mcp": ("refuse", SCOPE_DENIAL)}


def _lacks_read_scope(token: str) -> bool:
    try:
        scope = jwt.decode(token, options={"verify_signature": False}).get("scope")
    except jwt.PyJWTError:
        return False
    return not (isinstance(scope, str) and "memory:read" in scope.split(" "))


def same_decision(decisions: dict[str, Decision], token: str) -> None:
    """The verifier's decision is the same everywhere. Where it accepted, the HTTP and MCP edges
    then authorize by scope: a token whose (junk) ``scope`` claim lacks ``memory:read`` is refused
    there as ``bearer.insufficient_scope``, and only such a token."""
    edges_by_scope = [e for e, refusal in EDGE_SCOPE.items() if decisions[e] == refusal]
    if edges_by_scope:
        assert sorted(edges_by_scope) == ["http", "mcp"], decisions
        assert decisions["api"] == decisions["cli"] == ("accept", None), decisions
        assert _lacks_read_scope(token), decisions
        return
    kinds = {d for d, _ in decisions.values()}
    assert len(kinds) == 1, decisions
    codes = {name: code for name, (_, code) in decisions.items()}
    assert codes["api"] == codes["cli"], decisions
    for edge in ("http", "mcp"):  # an edge may refuse a malformed header before the verifier
        if codes[edge] is not None and codes[edge].startswith("identity."):  # type: ignore[union-attr]
            assert codes[edge] == codes["api"], decisions


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), presented=st.booleans(), damaged=st.integers(min_value=0, max_value=3))
def test_one_generator_same_decision_on_api_cli_http_and_mcp(
    surfaces: Surfaces, data: st.DataObject, presented: bool, damaged: int
) -> None:
    s = surfaces
    now = int(time.time())
    ring = s.sts.access_keys
    defects, junk = data.draw(hostile(s.sts.issuer, s.stack.resource,
                                      min_defects=1 if damaged else 0))
    token = build(ring.active_kid, ring._keys[ring.active_kid], defects, junk, issuer=s.sts.issuer,
                  audience=s.stack.resource, now=now, sub=f"user-{damaged}")
    credential = s.sts.issue_workload_credential(PLANNER) if presented else None
    decisions = {f.__name__.replace("command_line", "cli"): f(s, token, credential)
                 for f in (api, command_line, http, mcp)}
    same_decision(decisions, token)


def test_the_generator_reaches_both_outcomes(surfaces: Surfaces) -> None:
    """Not vacuous: an undamaged token is accepted everywhere, a damaged one refused everywhere."""
    s = surfaces
    ring = s.sts.access_keys
    now = int(time.time())
    good = build(ring.active_kid, ring._keys[ring.active_kid], {}, {}, issuer=s.sts.issuer,
                 audience=s.stack.resource, now=now)
    bad = build(ring.active_kid, ring._keys[ring.active_kid], {"c.aud": "other"}, {},
                issuer=s.sts.issuer, audience=s.stack.resource, now=now)
    for f in (api, command_line, http, mcp):
        assert f(s, good, None) == ("accept", None), f.__name__
        assert f(s, bad, None) == ("refuse", "identity.bad_audience"), f.__name__
        assert f(s, good, s.sts.issue_workload_credential(PLANNER)) == (
            "refuse", "identity.impersonation"), f.__name__


def test_scope_refusal_is_authorization_not_identity(surfaces: Surfaces) -> None:
    """Regression (a CI draw of junk ``{'scope': ''}``): identity accepts, HTTP and MCP refuse."""
    s = surfaces
    ring = s.sts.access_keys
    token = build(ring.active_kid, ring._keys[ring.active_kid], {}, {"scope": ""},
                  issuer=s.sts.issuer, audience=s.stack.resource, now=int(time.time()))
    decisions = {f.__name__.replace("command_line", "cli"): f(s, token, None)
                 for f in (api, command_line, http, mcp)}
    assert decisions == {"api": ("accept", None), "cli": ("accept", None),
                         **EDGE_SCOPE}
    same_decision(decisions, token)
