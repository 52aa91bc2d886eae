"""What :meth:`memguard.ledger.auditlog.AuditLog.verify` reports: problems, checkpoints, proofs."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from memguard.ledger.logtables import _b64
from memguard.ledger.rfc6962 import verify_consistency, verify_inclusion

# -- values ------------------------------------------------------------------------------------------


class ProblemKind(enum.StrEnum):
    """What :meth:`AuditLog.verify` found. All but the warnings mean the log was tampered with."""

    EDITED = "edited"  # an event no longer hashes to its leaf
    DELETED = "deleted"  # an event row (or a leaf row) is gone
    REORDERED = "reordered"  # an event now sits where another logged event was
    TRUNCATED = "truncated"  # the tree or the event table is shorter than a checkpoint says
    UNLOGGED = "unlogged"  # an event row that is neither in the tree nor queued
    DUPLICATE = "duplicate"  # one event logged twice
    LEAF_MISMATCH = "leaf_mismatch"  # a stored leaf hash was edited (the event still matches)
    NODE_MISMATCH = "node_mismatch"  # a stored subtree hash is wrong, missing or out of place
    ROOT_MISMATCH = "root_mismatch"  # the tree no longer has a checkpoint's root
    BAD_SIGNATURE = "bad_signature"  # a checkpoint does not verify
    INCONSISTENT = "inconsistent"  # two checkpoints are not consistent
    PENDING_TOO_OLD = "pending_too_old"  # warning: events wait too long for integration
    NO_CHECKPOINT = "no_checkpoint"  # warning: nothing signed, so truncation is undetectable
    WITNESS_LAGS = "witness_lags"  # warning: the witness misses the latest stored checkpoint
    ROW_EDITED = "row_edited"  # a projection row's column differs from the log's value
    ROW_DELETED = "row_deleted"  # a row the log wrote is gone
    ROW_UNLOGGED = "row_unlogged"  # a row no log entry wrote (inserted around the log)
    EVENT_COLUMN = "event_column"  # an event row's column differs from its logged event JSON


WARNING_KINDS = frozenset(
    {ProblemKind.PENDING_TOO_OLD, ProblemKind.NO_CHECKPOINT, ProblemKind.WITNESS_LAGS}
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding of :meth:`AuditLog.verify`, located as precisely as the evidence allows."""

    kind: ProblemKind
    message: str
    leaf_index: int | None = None
    event_seq: int | None = None
    node: tuple[int, int] | None = None
    tree_size: int | None = None
    #: projection findings: which row (table, key) and column, the logged and the stored value
    table: str | None = None
    key: dict[str, Any] | None = None
    column: str | None = None
    expected: Any = None
    found: Any = None

    @property
    def severity(self) -> str:
        return "warning" if self.kind in WARNING_KINDS else "tamper"

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "severity": self.severity,
            "message": self.message,
            "leaf_index": self.leaf_index,
            "event_seq": self.event_seq,
            "node": list(self.node) if self.node is not None else None,
            "tree_size": self.tree_size,
            "table": self.table,
            "key": self.key,
            "column": self.column,
            "expected": self.expected,
            "found": self.found,
        }


@dataclass(frozen=True, slots=True)
class CheckpointInfo:
    """A stored signed checkpoint."""

    tree_size: int
    root_hash: bytes
    note: str
    created_at: float

    def as_json(self) -> dict[str, object]:
        return {
            "tree_size": self.tree_size,
            "root_hash": _b64(self.root_hash),
            "note": self.note,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class InclusionProof:
    """RFC 6962 audit path of one leaf in the tree of ``tree_size`` leaves."""

    leaf_index: int
    tree_size: int
    leaf_hash: bytes
    path: tuple[bytes, ...]
    root_hash: bytes

    def verify(self, root_hash: bytes | None = None) -> None:
        """Raise :class:`IntegrityError` unless the path leads to ``root_hash`` (default: its own)."""
        root = self.root_hash if root_hash is None else root_hash
        verify_inclusion(self.leaf_index, self.tree_size, self.leaf_hash, self.path, root)

    def as_json(self) -> dict[str, object]:
        return {
            "leaf_index": self.leaf_index,
            "tree_size": self.tree_size,
            "leaf_hash": _b64(self.leaf_hash),
            "inclusion_path": [_b64(p) for p in self.path],
            "root_hash": _b64(self.root_hash),
        }


@dataclass(frozen=True, slots=True)
class ConsistencyProof:
    """RFC 6962 consistency proof between the trees of ``old_size`` and ``new_size`` leaves."""

    old_size: int
    new_size: int
    old_root: bytes
    new_root: bytes
    path: tuple[bytes, ...]

    def verify(self, old_root: bytes | None = None, new_root: bytes | None = None) -> None:
        """Raise :class:`IntegrityError` unless the proof links the two roots (default: its own)."""
        verify_consistency(
            self.old_size,
            self.new_size,
            self.old_root if old_root is None else old_root,
            self.new_root if new_root is None else new_root,
            self.path,
        )

    def as_json(self) -> dict[str, object]:
        return {
            "old_size": self.old_size,
            "new_size": self.new_size,
            "old_root": _b64(self.old_root),
            "new_root": _b64(self.new_root),
            "consistency_path": [_b64(p) for p in self.path],
        }


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The result of :meth:`AuditLog.verify`; ``ok`` is false if any problem is not a warning."""

    ok: bool
    tree_size: int
    events: int
    pending: int
    last_checkpoint: CheckpointInfo | None
    checkpoints_checked: int
    external_checked: int
    leaves_after_checkpoint: int
    problems: tuple[Problem, ...]
    problems_omitted: int
    #: the projections were replayed from this leaf on (0: the whole log; more: incremental,
    #: from a verified marker, memguard/ledger/verified.py); ``None``: no replay (tree only)
    replay_from: int | None = None
    #: the tree size this verify recorded as verified (a full verify that found nothing)
    marked_verified: int | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "format": "memguard.ledger-verify/v1",
            "verified": self.ok,
            "tree_size": self.tree_size,
            "events": self.events,
            "pending": self.pending,
            "last_checkpoint": (
                self.last_checkpoint.as_json() if self.last_checkpoint is not None else None
            ),
            "checkpoints_checked": self.checkpoints_checked,
            "external_checkpoints_checked": self.external_checked,
            "leaves_after_checkpoint": self.leaves_after_checkpoint,
            "problems": [p.as_json() for p in self.problems],
            "problems_omitted": self.problems_omitted,
            "replay_from": self.replay_from,
            "marked_verified": self.marked_verified,
        }


class _Problems:
    def __init__(self, limit: int) -> None:
        self.items: list[Problem] = []
        self.omitted = 0
        self._limit = limit

    def add(self, kind: ProblemKind, message: str, **where: Any) -> None:
        if len(self.items) < self._limit:
            self.items.append(Problem(kind, message, **where))
        else:
            self.omitted += 1
