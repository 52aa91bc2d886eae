"""What every schema module shares: field types, the document's examples, the model bases."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FACT_ID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
#: No C0/C1 control characters: the ledger stores these in SQL text columns.
_PLAIN = r"^[^\x00-\x1f\x7f-\x9f]*$"
PLAIN = _PLAIN
#: A host name for a ``domain`` selector: no scheme, port or path, not only dots.
_HOST = r"^[^/:.\s\x00-\x1f\x7f-\x9f][^/:\s\x00-\x1f\x7f-\x9f]*$"
TrustName = Literal["system", "verified", "user", "derived", "tool", "untrusted", "quarantined"]
Plain = Annotated[str, Field(pattern=_PLAIN)]
FactId = Annotated[str, Field(pattern=FACT_ID)]
Namespace = Annotated[str, Field(min_length=1, max_length=256, pattern=_PLAIN)]

# examples used across the document (one consistent story: alice's agent stores a web page)
_FACT = "3f1c2a9e-8b7d-4c6e-9a51-2d4b7e0c1f88"
_PARENT = "9b2e4d6f-1a3c-4e5f-8a7b-6c5d4e3f2a1b"
_DIGEST = "sha256:5120aa7c9802aaec57dc3a3516aec2c22d95a09d7692f515bb0aadc6dab62db9"
_POLICY = "sha256:45737103be30a6788622a65fb9c2119de04ba78bdde3b10792655507c8d2d43f"
_SOURCE = {"kind": "web", "uri": "https://lisbon-travel-tips.example/may"}
_TURN = {"session_id": "s-42", "turn_index": 3, "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"}
_PROVENANCE: dict[str, Any] = {
    "fact_id": _FACT, "version": 1, "namespace": "travel", "trust": "untrusted",
    "trust_reason": "source web default untrusted; writer depth 2 ceiling derived",
    "source": {**_SOURCE, "name": None},
    "turn": {**_TURN, "span_id": None},
    "writer": {
        "subject": {"issuer": "https://gateway.example", "subject": "alice"},
        "actors": [{"issuer": "https://gateway.example",
                    "subject": "spiffe://example.org/agent/planner"},
                   {"issuer": "https://gateway.example",
                    "subject": "spiffe://example.org/agent/browser"}],
        "chain": ["alice", "spiffe://example.org/agent/planner",
                  "spiffe://example.org/agent/browser"],
        "workload_id": "spiffe://example.org/agent/browser", "client_id": None,
        "token_jti": "pfuaqbylbP03Flj6cHJAOg",
    },
    "owner": {"issuer": "https://gateway.example", "subject": "alice"},
    "derived_from": [], "created_at": "2026-05-02T09:14:36.955401Z",
    "content_digest": _DIGEST, "policy_digest": _POLICY,
}  # fmt: skip
_SUMMARY = f"[trust=untrusted source=web:https://lisbon-travel-tips.example/may fact={_FACT}]"


def _examples(*items: dict[str, Any]) -> dict[str, Any]:
    return {"examples": list(items)}


class _In(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)
