"""Shared pieces of the gateway tests: a gateway on 127.0.0.1 with real keys, clients and ledger."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from helpers import BROWSER, PLANNER
from identity_helpers import Client, make_client

from memguard.gateway.config import GatewayConfig
from memguard.gateway.server import free_port, serve_in_thread
from memguard.gateway.stack import GatewayStack, open_stack
from memguard.tokens.client import TokenExchangeClient
from memguard.tokens.sts import SecurityTokenService

SCOPES = ("memory:read", "memory:write")
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"


@dataclass
class Gateway:
    """A running gateway and what a test needs to talk to it."""

    base: str
    stack: GatewayStack
    planner: Client
    browser: Client

    @property
    def sts(self) -> SecurityTokenService:
        assert self.stack.sts is not None
        return self.stack.sts

    @property
    def resource(self) -> str:
        return self.stack.resource

    def user_token(self, subject: str = "alice", **kw: Any) -> str:
        kw.setdefault("scopes", SCOPES)
        return self.sts.issue_user_token(subject, **kw)

    def svid(self, spiffe_id: str, **kw: Any) -> str:
        return self.sts.issue_workload_credential(spiffe_id, **kw)

    def exchange_client(self, client: Client) -> TokenExchangeClient:
        return TokenExchangeClient(f"{self.base}/token", client.client_id, client.pem,
                                   kid=client.kid)

    def chain(self, subject: str = "alice", scope: str = "memory:read memory:write") -> dict[str, str]:
        """user -> planner -> browser through the gateway's token endpoint (authlib client)."""
        user = self.user_token(subject)
        client = self.exchange_client(self.planner)
        try:
            planner = client.exchange(user, audience=self.resource, scope=scope).access_token
            actor = self.svid(BROWSER, use="actor")
            browser = client.exchange(planner, audience=self.resource, scope=scope,
                                      actor_token=actor).access_token
        finally:
            client.close()
        return {"user": user, "planner": planner, "browser": browser}

    def headers(self, token: str, workload: str | None = None) -> dict[str, str]:
        out = {"Authorization": f"Bearer {token}"}
        if workload is not None:
            out["Workload-Identity-Token"] = workload
        return out

    def post(self, path: str, token: str | None, body: object, workload: str | None = None,
             **kw: Any) -> httpx.Response:
        headers = self.headers(token, workload) if token else {}
        return httpx.post(f"{self.base}{path}", json=body, headers=headers, timeout=10, **kw)


def gateway_config(tmp: Path, planner: Client, browser: Client, **over: Any) -> GatewayConfig:
    port = free_port()
    data: dict[str, Any] = {
        "state_dir": str(tmp / "gw"),
        "server": {"host": "127.0.0.1", "port": port},
        "store": {"path": str(tmp / "qdrant")},
        "sts": {
            "clients": [
                {"client_id": c.client_id, "jwks": c.registered().jwks, "algorithms": ["ES256"]}
                for c in (planner, browser)
            ],
            "delegation": [
                {"actor": PLANNER, "on_behalf_of": "user", "scopes": list(SCOPES)},
                {"actor": BROWSER, "on_behalf_of": PLANNER, "scopes": list(SCOPES)},
            ],
        },
        "limits": {"token_rate": {"per_minute": 600, "burst": 100},
                   "memory_rate": {"per_minute": 6000, "burst": 1000}},
    }
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return GatewayConfig.from_mapping(data)


@contextmanager
def running_gateway(tmp: Path, *, mcp: bool | None = None, **over: Any) -> Iterator[Gateway]:
    planner, browser = make_client(PLANNER), make_client(BROWSER)
    config = gateway_config(tmp, planner, browser, **over)
    stack = open_stack(config)
    try:
        with serve_in_thread(stack, mcp=mcp) as base:
            yield Gateway(base, stack, planner, browser)
    finally:
        stack.close()


def fact(text: str, namespace: str = "notes", kind: str = "user_message", **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "text": text, "namespace": namespace,
        "source": {"kind": kind, "uri": kw.pop("uri", None)} if kw.get("uri") else {"kind": kind},
        "turn": {"session_id": "s-1", "turn_index": 0},
    }
    body.update(kw)
    return body
