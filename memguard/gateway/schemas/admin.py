"""Health, readiness and protected-resource metadata."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from .common import (
    _examples,
    _Out,
)


class HealthOut(_Out):
    """The process is serving requests."""

    model_config = ConfigDict(frozen=True, json_schema_extra=_examples({"status": "ok"}))

    status: Literal["ok"] = Field(description="Always `ok`.")


class ReadyOut(_Out):
    """Whether the gateway can serve: each dependency checked for real."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({"status": "ready", "checks": {
            "policy": "ok", "keys": "ok", "ledger": "ok", "store": "ok"}}),
    )  # fmt: skip

    status: Literal["ready", "not_ready"] = Field(description="`ready` when every check is ok.")
    checks: dict[str, str] = Field(description="Each check and its result (`ok` or a reason).")


class ProtectedResourceOut(_Out):
    """OAuth 2.0 Protected Resource Metadata (RFC 9728) of this gateway."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra=_examples({
            "resource": "https://gateway.example", "authorization_servers":
            ["https://gateway.example"], "bearer_methods_supported": ["header"],
            "scopes_supported": ["memory:endorse", "memory:read", "memory:revoke", "memory:write"],
            "resource_name": "memguard gateway",
        }),
    )  # fmt: skip

    resource: str = Field(description="This resource's identifier (the token audience).")
    authorization_servers: list[str] = Field(description="Issuers whose tokens are accepted.")
    bearer_methods_supported: list[str] = Field(description="`header` only (RFC 6750 2.1).")
    scopes_supported: list[str] = Field(description="The scopes operations need.")
    resource_name: str = Field(description="A human-readable name.")
