"""The read arguments every read path takes from its caller, checked before the audited
operation opens: ``min_trust`` and ``purpose``.

A bad value is the caller's mistake, not a decision, so it raises a typed
:class:`~memguard.errors.InvalidRequest` with a stable code (``invalid_request.min_trust``,
``invalid_request.purpose``) before anything is planned or recorded: never a half-audited
operation, a pydantic error leaking out of the audit event, or a filter that silently matches
nothing (``min_trust=99``).
"""

from __future__ import annotations

import re

from memguard.errors import InvalidRequest
from memguard.trust import TrustLevel

__all__ = ["MAX_PURPOSE", "check_min_trust", "check_purpose"]

#: the longest purpose name; the gateway's query parameter (``[a-z_]{1,32}``) is a subset
MAX_PURPOSE = 64
_PURPOSE = re.compile(r"[a-z_][a-z0-9_.:-]*")


def check_min_trust(value: object) -> TrustLevel | None:
    """``None``, a :class:`TrustLevel`, its lowercase name (``"user"``) or its integer value;
    anything else raises ``invalid_request.min_trust``."""
    if value is None:
        return None
    try:
        return TrustLevel.parse(value)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        names = ", ".join(f"`{t.label}`" for t in TrustLevel)
        raise InvalidRequest(
            f"`min_trust` must be a trust level ({names})", code="invalid_request.min_trust"
        ) from None


def check_purpose(value: object) -> str:
    """A purpose name: 1 to 64 characters, lowercase letters, digits and ``_ . : -``, starting
    with a letter or ``_``; anything else raises ``invalid_request.purpose``."""
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= MAX_PURPOSE
        or not _PURPOSE.fullmatch(value)
    ):
        raise InvalidRequest(
            "`purpose` must be a name such as `answer` or `tool_argument` (lowercase letters, "
            f"digits and `_.:-`, at most {MAX_PURPOSE} characters)",
            code="invalid_request.purpose",
        )
    return value
