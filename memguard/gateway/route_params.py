"""The parameters and error responses the memory routes share (their OpenAPI text included)."""

from typing import Annotated, Any

from fastapi import Path, Query

from memguard.errors import InvalidRequest
from memguard.gateway.schemas import FACT_ID, PLAIN
from memguard.provenance import Turn

__all__ = [
    "ERRORS",
    "NOT_FOUND",
    "FactIdPath",
    "PurposeQuery",
    "SessionQuery",
    "TurnIndexQuery",
    "query_turn",
]

#: The error statuses a memory route documents.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "invalid request"},
    401: {"description": "no, invalid or expired credentials (WWW-Authenticate: Bearer)"},
    403: {"description": "not permitted by policy or token scope"},
    404: {"description": "no such fact, or not visible to the caller (also `derived_from` ids)"},
    413: {"description": "request body too large"},
    415: {"description": "the body is not JSON"},
    429: {"description": "rate limit exceeded (Retry-After)"},
    503: {"description": "store or ledger unavailable, or overloaded (Retry-After)"},
    504: {"description": "timed out; the outcome is unknown"},
}
#: ... and those of a route on one fact.
NOT_FOUND = {**ERRORS, 404: {"description": "no such fact, or not visible to the caller"}}

SessionQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=256,
        pattern=PLAIN,
        examples=["s-42"],
        description="The agent turn this read belongs to (with `turn_index`): what it returns taints "
        "the writes made later in that turn.",
    ),
]
TurnIndexQuery = Annotated[
    int | None, Query(ge=0, le=2**31 - 1, examples=[6], description="With `session_id`.")
]
PurposeQuery = Annotated[
    str,
    Query(
        pattern=r"^[a-z_]{1,32}$",
        examples=["answer"],
        description="Why the agent reads (`answer`, `planning`, `tool_argument`, ...); policies can "
        "decide by purpose.",
    ),
]
FactIdPath = Annotated[
    str,
    Path(
        pattern=FACT_ID,
        description="A fact id (UUID).",
        examples=["3f1c2a9e-8b7d-4c6e-9a51-2d4b7e0c1f88"],
    ),
]


def query_turn(session_id: str | None, turn_index: int | None) -> Turn | None:
    """A read's turn from its query: both parameters or neither."""
    if session_id is None and turn_index is None:
        return None
    if session_id is None or turn_index is None:
        raise InvalidRequest("give both `session_id` and `turn_index`, or neither")
    return Turn(session_id=session_id, turn_index=turn_index)
