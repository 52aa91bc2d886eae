"""The memguard exception tree. Every error carries a stable machine-readable ``code``.

    MemguardError
    ├── ConfigurationError       configuration            bad or missing configuration; nothing runs
    ├── IdentityError            identity.*               no identity, or one that does not verify
    ├── AccessDenied             access_denied.*          identity is fine, the request is not allowed
    │   ├── TrustEscalation      access_denied.trust_escalation
    │   ├── ReservedField        access_denied.reserved_field
    │   ├── UntranslatableCondition access_denied.untranslatable  a scope the store cannot express
    │   └── FactNotFound         not_found                unknown id *or* an id outside the caller's scope
    ├── InvalidRequest           invalid_request          malformed input (bad metadata, bad k, ...)
    ├── IntegrityError           integrity.*              the store no longer matches the ledger
    └── BackendError             backend.*                the store or the ledger failed
        ├── StoreError           backend.store
        │   └── StoreUnavailable backend.unavailable  the store cannot be reached (any adapter)
        └── LedgerError          backend.ledger

Messages are deliberately short and generic: the caller is untrusted. The full reason goes to the
audit log (``reason`` of the audit event) and to the operational log, never into the exception text.
``FactNotFound`` is raised both for ids that do not exist and for ids the caller may not see, so an id
cannot be probed for existence.
"""

from __future__ import annotations

__all__ = [
    "AccessDenied",
    "BackendError",
    "ConfigurationError",
    "FactNotFound",
    "IdentityError",
    "IntegrityError",
    "InvalidRequest",
    "LedgerError",
    "MemguardError",
    "ReservedField",
    "StoreError",
    "StoreUnavailable",
    "TrustEscalation",
    "UntranslatableCondition",
]


class MemguardError(Exception):
    """Base class of every error memguard raises on purpose."""

    code: str = "memguard"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r}, code={self.code!r})"


class ConfigurationError(MemguardError):
    """Configuration is missing or invalid; memguard refuses to run rather than guess."""

    code = "configuration"


class IdentityError(MemguardError):
    """No verified identity, or a credential that failed verification."""

    code = "identity.invalid"


class AccessDenied(MemguardError):
    """The identity is verified but the operation is not permitted."""

    code = "access_denied"


class Fenced(AccessDenied):
    """A derived write read a fact that was deleted or revoked before it could commit (the
    deletion fence): it is aborted, never committed next to the deletion it would undo."""

    code = "access_denied.fenced"


class TrustEscalation(AccessDenied):
    """The caller asked for a trust level above what its channel and chain allow."""

    code = "access_denied.trust_escalation"


class ReservedField(AccessDenied):
    """The payload tried to set a field that only memguard may write."""

    code = "access_denied.reserved_field"


class UntranslatableCondition(AccessDenied):
    """The store cannot express the scope condition; the query is refused, never post-filtered."""

    code = "access_denied.untranslatable"


class FactNotFound(AccessDenied):
    """No fact with that id is visible to the caller (it may not exist, or be out of scope)."""

    code = "not_found"


class InvalidRequest(MemguardError):
    """The request itself is malformed; nothing was read or written."""

    code = "invalid_request"


class IntegrityError(MemguardError):
    """A stored fact no longer matches its ledger record and was withheld."""

    code = "integrity.mismatch"


class BackendError(MemguardError):
    """A store or ledger operation failed; the request was refused."""

    code = "backend"


class StoreError(BackendError):
    """The vector/memory store failed."""

    code = "backend.store"


class StoreUnavailable(StoreError):
    """The store cannot be reached (connection refused, timed out, transport down)."""

    code = "backend.unavailable"


class LedgerError(BackendError):
    """The provenance ledger failed."""

    code = "backend.ledger"
