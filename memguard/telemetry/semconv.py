"""The attribute names memguard's telemetry uses, in one place.

GenAI memory spans follow the OpenTelemetry semantic conventions for generative AI (v1.41, status
*development*): span name = ``gen_ai.operation.name``; ``gen_ai.memory.store.id``,
``gen_ai.memory.record.id`` (one record), ``gen_ai.memory.record.count``, ``error.type``; query
text and records only on opt-in. memguard's own attributes are under ``memguard.``.

What memguard's ``gen_ai.memory.store.id`` maps to (the conventions ask each implementation to say):
the store's collection (the gateway's ``store.collection``), set with
:func:`memguard.telemetry.configure`.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MEMORY_OPERATIONS", "operation_name"]

# -- OpenTelemetry GenAI semantic conventions ------------------------------------------------------
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_MEMORY_STORE_ID: Final = "gen_ai.memory.store.id"
GEN_AI_MEMORY_RECORD_ID: Final = "gen_ai.memory.record.id"
GEN_AI_MEMORY_RECORD_COUNT: Final = "gen_ai.memory.record.count"
GEN_AI_MEMORY_QUERY_TEXT: Final = "gen_ai.memory.query.text"  # opt-in
GEN_AI_MEMORY_RECORDS: Final = "gen_ai.memory.records"  # opt-in
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
#: the agent that acted (the last actor of the delegation chain; a workload id, not a person)
GEN_AI_AGENT_ID: Final = "gen_ai.agent.id"
ERROR_TYPE: Final = "error.type"

# -- HTTP (stable conventions) -------------------------------------------------------------------
HTTP_REQUEST_METHOD: Final = "http.request.method"
HTTP_ROUTE: Final = "http.route"
HTTP_RESPONSE_STATUS_CODE: Final = "http.response.status_code"
URL_PATH: Final = "url.path"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"

# -- memguard --------------------------------------------------------------------------------------
MG_ACTION: Final = "memguard.action"
MG_DECISION: Final = "memguard.decision"
MG_REASON: Final = "memguard.reason"
MG_POLICY_DIGEST: Final = "memguard.policy.digest"
#: the lowest trust among the records the operation wrote or returned
MG_TRUST: Final = "memguard.trust"
MG_PURPOSE: Final = "memguard.purpose"
#: sha256 of the issuer-qualified delegated subject: correlates a user's calls without naming them
MG_PRINCIPAL_DIGEST: Final = "memguard.principal.digest"
MG_DELEGATION_DEPTH: Final = "memguard.delegation.depth"
MG_TRANSACTION_ID: Final = "memguard.transaction.id"
MG_REQUEST_ID: Final = "memguard.request_id"
MG_FACT_ID: Final = "memguard.fact_id"
MG_LINK: Final = "memguard.link"
MG_ALARM: Final = "memguard.alarm"

#: memguard operation (the kernel's action) -> ``gen_ai.operation.name``. Reads by id and listings
#: are searches of the store; actions without a GenAI memory operation (audit, revoke, endorse,
#: authenticate, recover, ...) get spans named ``memguard.<action>``.
MEMORY_OPERATIONS: Final[dict[str, str]] = {
    "write": "create_memory",
    "update": "update_memory",
    "delete": "delete_memory",
    "search": "search_memory",
    "get": "search_memory",
    "list": "search_memory",
    "history": "search_memory",
    "create_store": "create_memory_store",
    "delete_store": "delete_memory_store",
}

#: Reads whose spans link to the writes that planted what they returned.
READ_ACTIONS: Final = frozenset({"search", "get", "list", "history"})
WRITE_ACTIONS: Final = frozenset({"write", "update"})


def operation_name(action: str) -> str | None:
    """The GenAI ``gen_ai.operation.name`` of a memguard action, or ``None`` if it has none."""
    return MEMORY_OPERATIONS.get(action)


def span_name(action: str) -> str:
    """Span name: the GenAI operation name, else ``memguard.<action>``."""
    return MEMORY_OPERATIONS.get(action) or f"memguard.{action}"
