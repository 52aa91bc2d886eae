"""What a guarded client stamps on the writes and records on the reads it makes on an agent's behalf.

Adapters keep their client's own method signatures, which have no place for provenance, so the
channel, the turn and the purpose travel with the guarded client instead::

    guarded = GuardedQdrantClient(raw, kernel=kernel, identity=me, context=CallContext(
        source=Source(kind=SourceKind.WEB, uri=url), turn=Turn(session_id="s-1", turn_index=3)))
    guarded.with_context(turn=Turn(session_id="s-1", turn_index=4)).upsert(...)

Where one client serves many users (a compiled LangGraph graph and its store), the identity and the
context travel with the call instead: :func:`acting_as` binds them to everything run inside the
block (this thread or task, and the tasks it starts), and :func:`current_binding` reads them::

    with acting_as(me, CallContext(source=..., turn=Turn(session_id="s-1", turn_index=4))):
        graph.invoke(inputs)
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from memguard.errors import IdentityError, InvalidRequest
from memguard.identity import Identity
from memguard.provenance import Source, Turn, canonical_json
from memguard.readargs import check_purpose
from memguard.trust import TrustLevel

__all__ = [
    "Binding",
    "CallContext",
    "acting_as",
    "current_binding",
    "external_fact_id",
    "principal_label",
]

#: UUID namespace of fact ids derived from a backend's own ids (``external_fact_id``).
_FACT_NAMESPACE = uuid.UUID("6f1b7c1e-3a55-5a8e-9d0c-6d656d677561")


@dataclass(frozen=True, slots=True)
class CallContext:
    """The channel (``source``), the injecting ``turn`` and the read ``purpose`` of an agent's calls.

    ``trust`` may only lower what the channel gives; ``derived_from`` names the facts the next
    writes are derived from (a summary, a merge).
    """

    source: Source
    turn: Turn
    purpose: str = "answer"
    trust: TrustLevel | None = None
    derived_from: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # checked when the context is made, so no adapter opens an operation with a bad one
        check_purpose(self.purpose)

    def replace(
        self,
        *,
        source: Source | None = None,
        turn: Turn | None = None,
        purpose: str | None = None,
        trust: TrustLevel | None = None,
        derived_from: tuple[str, ...] | None = None,
    ) -> CallContext:
        return CallContext(
            source=self.source if source is None else source,
            turn=self.turn if turn is None else turn,
            purpose=self.purpose if purpose is None else purpose,
            trust=self.trust if trust is None else trust,
            derived_from=self.derived_from if derived_from is None else tuple(derived_from),
        )


def external_fact_id(system: str, *parts: str) -> str:
    """A stable fact id (a UUID, 36 characters) for an object a backend names by its own ids,
    e.g. ``external_fact_id("qdrant", collection, str(point_id))``; distinct inputs, distinct ids.

    Deterministic on purpose: any process finds the ledger record of a store's object from the
    store's id alone, without trusting the payload. Stored facts are keyed by these ids, so the
    scheme must not change (pinned in tests/test_event_ids.py). Unlike the guard's own UUIDv7
    fact ids they scatter the ledger's fact-id indexes (measured in docs/ledger-indexes.md)."""
    key = "\x1f".join((system, *(f"{len(p)}:{p}" for p in parts)))
    return str(uuid.uuid5(_FACT_NAMESPACE, key))


def principal_label(issuer: str, subject: str) -> str:
    """A backend-safe label for the principal (issuer, subject): ``mg-`` + 40 hex of SHA-256 over
    canonical JSON ``[issuer, subject]``. Adapters use it as a tenant segment or a scope key, so
    the same subject at two issuers never shares one."""
    return "mg-" + hashlib.sha256(canonical_json([issuer, subject])).hexdigest()[:40]


@dataclass(frozen=True, slots=True)
class Binding:
    """A verified identity and the context of the calls made on its behalf."""

    identity: Identity
    context: CallContext

    def __post_init__(self) -> None:
        if not isinstance(self.identity, Identity):
            raise IdentityError("a verified identity is required", code="identity.missing")
        if not isinstance(self.context, CallContext):
            raise InvalidRequest("`context` must be a CallContext")


_binding: ContextVar[Binding | None] = ContextVar("memguard_binding", default=None)


@contextmanager
def acting_as(identity: Identity, context: CallContext) -> Iterator[Binding]:
    """Bind ``identity`` and ``context`` to the calls made inside the block; adapters that take
    their identity per call (the LangGraph store) use it before their own default."""
    binding = Binding(identity, context)
    token = _binding.set(binding)
    try:
        yield binding
    finally:
        _binding.reset(token)


def current_binding() -> Binding | None:
    """The binding of the innermost :func:`acting_as` block around this call, if any."""
    return _binding.get()
