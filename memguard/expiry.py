"""Expiry: a time-to-live recorded in a fact's provenance, enforced by the kernel.

A write may give a time-to-live (:attr:`memguard.kernel.StampRequest.ttl_seconds`); the stamp
step records ``expires_at`` and ``ttl_seconds`` in the provenance record (absent otherwise, so
records without one keep their digests). From then on:

- **never served**: :meth:`memguard.kernel.Operation.verify` and ``visible_records`` withhold a
  fact whose ``expires_at`` has passed on the kernel's clock (adapters also push the cut-off into
  the store's query where they can; the kernel's check is the one that counts);
- **refresh on read** (:func:`refresh_flow`): a read may renew the facts it just verified; each
  renewal is a new version of the fact (same content, owner, trust and lineage; ``expires_at`` =
  now + ``ttl_seconds``) written through the kernel's write protocol, so the ledger logs it and
  the store's copy carries the new expiry. A renewal that would move the expiry by less than
  :data:`REFRESH_STEP` of the time-to-live is skipped (a hot fact does not grow a version per read);
- **sweep** (:func:`due`): the facts whose latest committed version has expired are deleted
  through the kernel's delete path (tombstone with an audit event, then purge), in an operation of
  its own with action ``expire`` and no caller identity (the operator's, like ``adopt``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from memguard.errors import AccessDenied, InvalidRequest
from memguard.ledger import FactState
from memguard.ports import Flow, WritePort
from memguard.provenance import Provenance
from memguard.recovery import claim

if TYPE_CHECKING:
    from memguard.kernel import Operation, VerifiedFact

__all__ = [
    "MAX_TTL_SECONDS",
    "REFRESH_STEP",
    "due",
    "expiry_fields",
    "refresh_flow",
    "renewable",
    "ttl_seconds_of",
    "ttl_seconds_of_minutes",
]

T = TypeVar("T")

#: a renewal must move the expiry by at least this share of the time-to-live (and 1 second)
REFRESH_STEP = 0.01
#: the longest time-to-live a write may set (100 years)
MAX_TTL_SECONDS = 100 * 365 * 24 * 3600


def ttl_seconds_of_minutes(minutes: object) -> int | None:
    """A LangGraph-style ``ttl`` in minutes as whole seconds (rounded up, at least 1)."""
    if minutes is None:
        return None
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise InvalidRequest("`ttl` must be a number of minutes")
    if not math.isfinite(minutes) or minutes <= 0:
        raise InvalidRequest("`ttl` must be a positive number of minutes")
    seconds = math.ceil(minutes * 60)
    if seconds > MAX_TTL_SECONDS:
        raise InvalidRequest("`ttl` is too long")
    return max(seconds, 1)


def ttl_seconds_of(ttl: object) -> int | None:
    """A write's ``ttl`` (seconds as an ``int`` or ``float``, or a :class:`~datetime.timedelta`)
    as whole seconds, rounded up (at least 1); ``None`` is no time-to-live. A bool, a value that
    is not finite, not positive or longer than :data:`MAX_TTL_SECONDS` is an
    :class:`~memguard.errors.InvalidRequest` (raised inside the write's operation: audited)."""
    if ttl is None:
        return None
    if isinstance(ttl, timedelta):
        seconds: float = ttl.total_seconds()
    elif isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise InvalidRequest("`ttl` must be a number of seconds or a timedelta")
    else:
        seconds = ttl
    if not seconds > 0:  # NaN fails this too
        raise InvalidRequest("`ttl` must be a positive number of seconds")
    if seconds > MAX_TTL_SECONDS:  # inf and huge ints too (no float conversion)
        raise InvalidRequest("`ttl` is too long (at most 100 years)")
    return max(math.ceil(seconds), 1)


def expiry_fields(now: float, ttl_seconds: int | None) -> dict[str, Any]:
    """The provenance fields of a write made at ``now`` (epoch seconds) with ``ttl_seconds``."""
    if ttl_seconds is None:
        return {}
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int):
        raise InvalidRequest("a time-to-live must be whole seconds")
    if not 1 <= ttl_seconds <= MAX_TTL_SECONDS:
        raise InvalidRequest("a time-to-live must be between 1 second and 100 years")
    return {
        "expires_at": datetime.fromtimestamp(now, UTC) + timedelta(seconds=ttl_seconds),
        "ttl_seconds": ttl_seconds,
    }


def renewable(prov: Provenance, now: float) -> bool:
    """Would a read at ``now`` renew ``prov``: it has an expiry, has not expired, and the renewal
    moves the expiry by at least the refresh step? (Callers skip the ``refresh`` operation, and
    its event, when nothing they read is renewable; :func:`refresh_flow` decides again.)"""
    if prov.expires_at is None or prov.ttl_seconds is None or prov.expired(now):
        return False
    step = max(1.0, prov.ttl_seconds * REFRESH_STEP)
    return now + prov.ttl_seconds - prov.expires_at.timestamp() >= step


def _renewed(prov: Provenance, now: float, version: int) -> Provenance | None:
    """The next version of ``prov`` with its expiry moved to ``now + ttl``; ``None`` if it has
    no expiry or the move is below the refresh step."""
    if prov.ttl_seconds is None or not renewable(prov, now):
        return None
    fields = expiry_fields(now, prov.ttl_seconds)
    return Provenance.model_validate(
        {**prov.model_dump(), "version": version, "expires_at": fields["expires_at"]}
    )


def refresh_flow(
    op: Operation, facts: Sequence[VerifiedFact], port: WritePort[T]
) -> Flow[list[Provenance]]:
    """Renew the expiry of ``facts`` (what a read of this principal just verified): a new
    version of each through the write protocol (pending -> ``port.put`` -> committed with the
    allow event). A fact written or deleted since the read is left alone. Returns the renewals."""
    if op.action != "refresh":
        raise AccessDenied("a renewal is its own operation", code="access_denied.not_allowed")
    kernel = op.kernel
    wanted = {f.fact_id: f.provenance for f in facts if f.provenance.ttl_seconds is not None}
    if not wanted:
        op.note(why="nothing to renew")
        return []
    claim(kernel, op, list(wanted))  # one writer per fact id, as for any write
    heads = kernel.ledger.latest(list(wanted))
    versions = kernel.ledger.next_versions(list(wanted))
    now = kernel.clock()
    records: list[Provenance] = []
    for fact_id, prov in wanted.items():
        head = heads.get(fact_id)
        if head is None or head.state is not FactState.COMMITTED or head.version != prov.version:
            continue  # changed since the read: not ours to renew
        if head.quarantined or prov.expired(now):
            continue  # never renew what may not be served
        renewed = _renewed(prov, now, versions.get(fact_id, prov.version + 1))
        if renewed is not None:
            records.append(renewed)
    if not records:
        op.note(why="nothing to renew")
        return []
    op.note(expires_at={p.fact_id: p.expires_at.isoformat() for p in records if p.expires_at})
    yield from op.persist_flow(records, port)
    return records


def due(op: Operation, fact_ids: Sequence[str]) -> list[str]:
    """Of ``fact_ids``, those whose latest version is committed and expired on the kernel's
    clock: what a sweep may delete (the caller then runs ``op.delete_flow`` on them)."""
    if op.action != "expire":
        raise AccessDenied("a sweep is its own operation", code="access_denied.not_allowed")
    ids = list(dict.fromkeys(fact_ids))
    heads = op.kernel.ledger.latest(ids)
    now = op.kernel.clock()
    out: list[str] = []
    for fact_id in ids:
        head = heads.get(fact_id)
        if head is None or head.state is not FactState.COMMITTED:
            continue
        if head.provenance.expired(now):
            out.append(fact_id)
    return out
