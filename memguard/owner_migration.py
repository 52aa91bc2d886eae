"""Re-own the facts that exchanged tokens wrote before memguard kept the subject's issuer.

Before RFC 9493 ``sub_id`` (ledger ``owner_scheme`` 1), a token the token service issued in an
exchange named ``(token service, sub)``: the facts a user's agents wrote were owned by the token
service's issuer, not by the issuer of the user's own token. Now (scheme 2) they name
``(subject issuer, sub)``, so those old facts would be out of their user's reach, and the same
``sub`` at two issuers shared them. :func:`migrate_exchanged_owners` fixes an old ledger once, when
the gateway opens it:

- the candidates are the committed facts owned by ``(token service, sub)`` whose writer chain has
  actors (written through an exchanged token); facts a user wrote with the token service's own
  user tokens (development logins) have no actors and keep their owner;
- with exactly one issuer whose users the token service exchanged (``subject_issuers``), the
  candidates are re-owned to ``(that issuer, sub)``; with none, the token service was the users'
  issuer and nothing changes; with several, only an explicit ``legacy_subject_issuer`` says which,
  else :class:`~memguard.errors.ConfigurationError` (nothing starts);
- each re-owned fact gets a new version (the write protocol: ledger ``pending`` -> the store point
  moved to the new owner, same text, metadata and vector -> ``committed``), its provenance
  otherwise unchanged (writer, trust, lineage, creation time), with ``owner re-keyed`` in its
  trust reason; every batch is an allow event ``owner_migration`` naming its facts, and the last
  one, with the counts, marks the ledger scheme 2 in the same transaction. Nothing is rewritten in
  place, and ``memguard ledger verify`` checks the new versions like any other.

A crash in between leaves re-owned batches committed and the rest owned as before; the next open
continues. The facts of adapters' own backends (LangGraph, mem0, the Qdrant adapter) are not moved
by this function: it works on a :class:`~memguard.guard.MemoryGuard`'s store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memguard.errors import ConfigurationError
from memguard.identity import PrincipalId
from memguard.ledger import LedgerRecord
from memguard.ledger.ledger import OWNER_SCHEME
from memguard.ports import StorePort
from memguard.provenance import Provenance
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint, store_reserved_block
from memguard.trust import TrustLevel

if TYPE_CHECKING:
    from memguard.guard import MemoryGuard

__all__ = ["MigrationReport", "legacy_candidates", "migrate_exchanged_owners"]

BATCH = 256


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """What :func:`migrate_exchanged_owners` did (``ran`` is False on an up-to-date ledger)."""

    ran: bool
    token_service: str
    subject_issuer: str | None
    reowned: tuple[str, ...] = ()


def legacy_candidates(guard: MemoryGuard, token_service: str) -> list[LedgerRecord]:
    """The committed facts owned by ``(token_service, *)`` that an exchanged token wrote."""
    return [r for r in guard.ledger.committed_owned_by(token_service) if r.provenance.writer.actors]


def migrate_exchanged_owners(
    guard: MemoryGuard,
    *,
    token_service: str,
    subject_issuers: Sequence[str],
    legacy_subject_issuer: str | None = None,
) -> MigrationReport:
    """Re-own an old ledger's exchanged-token facts (module docstring); a no-op once done."""
    ledger = guard.ledger
    if ledger.owner_scheme() >= OWNER_SCHEME:
        return MigrationReport(False, token_service, None)
    candidates = legacy_candidates(guard, token_service)
    issuers = sorted(set(subject_issuers) - {token_service})
    if legacy_subject_issuer is not None:
        if legacy_subject_issuer not in (*issuers, token_service):
            raise ConfigurationError(
                f"`legacy_subject_issuer` `{legacy_subject_issuer}` is not an issuer whose users "
                f"the token service exchanges ({', '.join(f'`{i}`' for i in issuers) or 'none'})"
            )
        target: str | None = legacy_subject_issuer
    elif not issuers:
        target = token_service  # the token service was the users' own issuer: owners are right
    elif len(issuers) == 1:
        target = issuers[0]
    else:
        target = None
    if candidates and target is None:
        raise ConfigurationError(
            f"the ledger holds {len(candidates)} facts that exchanged tokens wrote before memguard "
            f"kept the subject's issuer; they are owned by (`{token_service}`, sub), and the token "
            f"service exchanges tokens of several issuers ({', '.join(f'`{i}`' for i in issuers)}): "
            "set `sts.legacy_subject_issuer` to the issuer whose users they belong to"
        )
    reowned: list[str] = []
    todo = candidates if target not in (None, token_service) else []
    for start in range(0, len(todo), BATCH):
        reowned.extend(_reown(guard, todo[start : start + BATCH], str(target), token_service))
    with guard.kernel.operation("owner_migration", None, require_identity=False) as op:
        event = guard.kernel._allow_event(
            op,
            "migrated",
            token_service=token_service,
            subject_issuer=target,
            candidates=len(candidates),
            reowned=len(reowned),
            owner_scheme=OWNER_SCHEME,
        )
        ledger.reown([], [event])
        op.finished = True
    guard.kernel.events_committed()
    return MigrationReport(True, token_service, target, tuple(reowned))


def _reown(
    guard: MemoryGuard, batch: Sequence[LedgerRecord], issuer: str, token_service: str
) -> list[str]:
    ids = [r.fact_id for r in batch]
    latest = guard.ledger.latest(ids)
    points = {p.fact_id: p for p in guard.store.retrieve(ids)}
    missing = [i for i in ids if i in points and points[i].vector is None]
    fetch = getattr(guard.store, "vectors", None)
    vectors: dict[str, list[float]] = dict(fetch(missing)) if callable(fetch) and missing else {}
    next_versions = guard.ledger.next_versions(ids)
    records: list[Provenance] = []
    moved: list[StoredPoint] = []
    for rec in batch:
        point = points.get(rec.fact_id)
        if point is None:
            continue  # the store lost it: left for `memguard store rebuild` / an operator
        old = rec.provenance
        prov = old.model_copy(
            update={
                "version": next_versions[rec.fact_id],
                "owner": PrincipalId(issuer=issuer, subject=old.owner.subject),
                "trust_reason": f"{old.trust_reason}; owner re-keyed from {token_service} to {issuer} "
                "(RFC 9493 sub_id migration)",
            }
        )
        reserved = store_reserved_block(prov)
        old_reserved = point.payload.get(RESERVED_PAYLOAD_KEY)
        if latest[rec.fact_id].quarantined and isinstance(old_reserved, dict):
            reserved["trust"] = old_reserved.get("trust", int(TrustLevel.QUARANTINED))
        vector = point.vector if point.vector is not None else vectors.get(rec.fact_id)
        if vector is None:
            text = point.payload.get("text")
            vector = guard.embedder.embed([text if isinstance(text, str) else ""])[0]
        records.append(prov)
        moved.append(
            StoredPoint(
                rec.fact_id, {**point.payload, RESERVED_PAYLOAD_KEY: reserved}, list(vector)
            )
        )
    if not records:
        return []
    with guard.kernel.operation(
        "owner_migration", None, require_identity=False, fact_ids=[p.fact_id for p in records]
    ) as op:
        op.persist(
            records,
            StorePort(guard.store, lambda _: moved),
            token_service=token_service,
            subject_issuer=issuer,
            count=len(records),
        )
    return [p.fact_id for p in records]
