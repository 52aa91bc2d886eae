"""The store is a projection of the ledger: check it against the ledger, and rebuild it from the ledger.

:func:`check_store` reads every committed fact's point and compares it with its ledger row
(:func:`~memguard.integrity.candidate_problem`): a missing point, an unreadable payload, content or
a reserved block that disagrees with the ledger, and points the ledger does not know are each named.

:func:`rebuild_store` writes a fresh store from the ledger: every committed fact's reserved block
(indexed fields, record digest, full provenance record) is rebuilt from its ledger record, and its
content (text, metadata) and vector are taken from the old store *only if* that content's digest
equals the ledger's content digest. The ledger holds digests, not content, so a fact whose content
is lost or altered cannot be restored; it is reported (``lost``) and stays withheld, which is what
the guard does for it anyway. Quarantined facts keep ``trust = quarantined`` in the new store.

A rebuild is resumable: it walks the committed facts in id order and, after each batch, hands a
:class:`RebuildProgress` (the last id written, the report so far, and a fingerprint of the committed
ids) to ``checkpoint``; given back as ``resume``, it continues after that id. Re-writing the points
of a batch that was written but not checkpointed is harmless (an upsert of the same point).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from memguard.integrity import candidate_problem, payload_candidate
from memguard.ledger import FactState, Ledger, LedgerRecord
from memguard.stores.base import MemoryStore, StoredPoint, build_payload
from memguard.trust import TrustLevel

__all__ = [
    "RebuildProgress",
    "StoreCheckReport",
    "StoreRebuildReport",
    "check_store",
    "committed_ids",
    "fingerprint",
    "rebuild_store",
]

BATCH = 256


class _Vectors(Protocol):
    def vectors(self, fact_ids: Sequence[str]) -> dict[str, list[float]]: ...


class _Ids(Protocol):
    def ids(self, batch: int = ...) -> Iterator[str]: ...


@dataclass
class StoreCheckReport:
    """What :func:`check_store` found; ``ok`` when every committed fact's point matches."""

    checked: int = 0
    matching: int = 0
    #: fact id -> problem (``integrity.missing_point``, ``integrity.malformed_payload``, ...)
    problems: dict[str, str] = field(default_factory=dict)
    #: points the ledger has no committed fact for (``None``: the store cannot list its ids)
    unknown_points: list[str] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unknown_points

    def as_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "matching": self.matching,
            "problems": dict(sorted(self.problems.items())),
            "unknown_points": self.unknown_points,
            "hint": None
            if self.ok
            else "`memguard store rebuild` recreates the store from the ledger",
        }


@dataclass
class StoreRebuildReport:
    """What :func:`rebuild_store` wrote and what it could not restore."""

    committed: int = 0
    restored: int = 0
    #: fact id -> why its content could not be restored (it stays withheld)
    lost: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {
            "committed": self.committed,
            "restored": self.restored,
            "lost": dict(sorted(self.lost.items())),
        }


@dataclass
class RebuildProgress:
    """Where a rebuild stands: resumable when the ledger's committed facts are still ``fingerprint``."""

    fingerprint: str
    after: str | None = None  # the last fact id written (ids are walked in order)
    report: StoreRebuildReport = field(default_factory=StoreRebuildReport)

    def as_json(self) -> dict[str, object]:
        return {"fingerprint": self.fingerprint, "after": self.after, **self.report.as_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RebuildProgress:
        """Raises ``ValueError`` for anything but what :meth:`as_json` wrote."""
        fp, after, lost = data.get("fingerprint"), data.get("after"), data.get("lost")
        committed, restored = data.get("committed"), data.get("restored")
        if not isinstance(fp, str) or not (after is None or isinstance(after, str)):
            raise ValueError("malformed rebuild progress")
        if not isinstance(committed, int) or not isinstance(restored, int):
            raise ValueError("malformed rebuild progress")
        if not isinstance(lost, dict) or not all(isinstance(v, str) for v in lost.values()):
            raise ValueError("malformed rebuild progress")
        report = StoreRebuildReport(committed, restored, {str(k): v for k, v in lost.items()})
        return cls(fp, after, report)


def committed_ids(ledger: Ledger) -> list[str]:
    """The committed fact ids, in the order a rebuild walks them."""
    return sorted({r.fact_id for r in ledger.in_state(FactState.COMMITTED)})


def fingerprint(ids: Sequence[str]) -> str:
    """A digest of the committed ids a rebuild walks (a resumed rebuild must walk the same)."""
    return "sha256:" + hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()


_committed = committed_ids


def _batches(ids: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(ids), BATCH):
        yield ids[i : i + BATCH]


def check_store(
    ledger: Ledger, store: MemoryStore, *, advance: Callable[[int], None] | None = None
) -> StoreCheckReport:
    """Compare every committed fact's point with its ledger row; ``advance(n)`` reports progress."""
    report = StoreCheckReport()
    committed = _committed(ledger)
    for ids in _batches(committed):
        records = ledger.latest(ids)
        points = {p.fact_id: p for p in store.retrieve(ids)}
        for fact_id in ids:
            report.checked += 1
            problem = _problem(records.get(fact_id), points.get(fact_id))
            if problem is None:
                report.matching += 1
            else:
                report.problems[fact_id] = problem
        if advance is not None:
            advance(len(ids))
    lister = getattr(store, "ids", None)
    if callable(lister):
        known = set(committed)
        listed: _Ids = store  # type: ignore[assignment]
        report.unknown_points = [i for i in listed.ids() if i not in known]
    return report


def _problem(record: LedgerRecord | None, point: StoredPoint | None) -> str | None:
    if record is None or record.state is not FactState.COMMITTED:
        return "integrity.ledger_changed"  # committed a moment ago, changed since
    if point is None:
        return "integrity.missing_point"
    return candidate_problem(
        payload_candidate(point.fact_id, point.payload), record, record.provenance
    )


def rebuild_store(
    ledger: Ledger,
    source: MemoryStore | None,
    target: MemoryStore,
    *,
    advance: Callable[[int], None] | None = None,
    resume: RebuildProgress | None = None,
    checkpoint: Callable[[RebuildProgress], None] | None = None,
) -> StoreRebuildReport:
    """Write every committed fact whose content survives in ``source`` into the empty ``target``,
    with its reserved block rebuilt from the ledger. ``source`` ``None``: nothing survives (the old
    store would not open); every fact is reported lost.

    ``resume``: continue a rebuild into the same ``target`` after the last id it checkpointed
    (``ValueError`` if the committed facts changed since: start over with an empty target).
    ``checkpoint`` gets the progress after each batch."""
    committed = _committed(ledger)
    state = RebuildProgress(fingerprint(committed))
    state.report.committed = len(committed)
    todo: Sequence[str] = committed
    if resume is not None:
        if resume.fingerprint != state.fingerprint:
            raise ValueError("the committed facts changed since the rebuild started")
        state = RebuildProgress(resume.fingerprint, resume.after, resume.report)
        if resume.after is not None:
            todo = [i for i in committed if i > resume.after]
        if advance is not None:
            advance(len(committed) - len(todo))
    report = state.report
    fetch = getattr(source, "vectors", None)
    for ids in _batches(todo):
        records = ledger.latest(ids)
        points = {p.fact_id: p for p in source.retrieve(ids)} if source is not None else {}
        vectors: dict[str, list[float]] = {}
        if callable(fetch):
            holder: _Vectors = source  # type: ignore[assignment]
            vectors = holder.vectors([i for i in ids if i in points])
        out: list[StoredPoint] = []
        quarantined: dict[str, int] = {}
        for fact_id in ids:
            record = records.get(fact_id)
            point = points.get(fact_id)
            if record is None or record.state is not FactState.COMMITTED:
                continue  # changed while rebuilding: the ledger's newer state wins
            why = _content_problem(record, point, vectors.get(fact_id))
            if why is not None:
                report.lost[fact_id] = why
                continue
            assert point is not None
            prov = record.provenance
            payload = build_payload(point.payload["text"], point.payload["metadata"], prov)
            out.append(StoredPoint(fact_id, payload, vectors[fact_id]))
            if record.quarantined:
                quarantined[fact_id] = int(TrustLevel.QUARANTINED)
        if out:
            target.upsert(out)
            report.restored += len(out)
        if quarantined:
            target.set_trust(quarantined)
        state.after = ids[-1]
        if checkpoint is not None:
            checkpoint(state)
        if advance is not None:
            advance(len(ids))
    return report


def _content_problem(
    record: LedgerRecord, point: StoredPoint | None, vector: list[float] | None
) -> str | None:
    if point is None:
        return "integrity.missing_point"
    candidate = payload_candidate(point.fact_id, point.payload)
    if candidate.content_digest is None:
        return "integrity.malformed_payload"
    if candidate.content_digest != record.content_digest:
        return "integrity.content_mismatch"
    if vector is None:
        return "integrity.missing_vector"
    return None  # the reserved block is rebuilt from the ledger, whatever the old one says
