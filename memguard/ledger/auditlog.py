"""The tamper-evident audit log: an RFC 6962 Merkle tree over the canonical audit events.

Storage (in the ledger's own database, next to ``mg_audit_event``):

- ``mg_log_pending``  event seq -> leaf hash, written in the *same transaction* as the event row;
- ``mg_log_leaf``     leaf index -> event seq, leaf hash (``SHA-256(0x00 || canonical event JSON)``);
- ``mg_log_node``     (level, index) -> hash of every perfect subtree of level >= 1;
- ``mg_log_checkpoint`` tree size -> root hash and the signed checkpoint note (c2sp.org/tlog-checkpoint).

Group commit: recording an event only queues its leaf hash. :meth:`AuditLog.integrate` moves queued
events into the tree, one transaction per batch under a lock (SQLite: ``BEGIN IMMEDIATE``;
PostgreSQL: ``pg_advisory_xact_lock``), so concurrent integrators neither skip nor repeat an event,
even when sequence values commit out of order. :meth:`AuditLog.maybe_integrate` is the cheap call to
make after every operation: it decides from in-process counters, without a query, whether a batch
or a checkpoint is due.

Window of exposure: until it is integrated, an event is protected only by the leaf hash stored
beside it in ``mg_log_pending`` (an attacker who can write the database can change both); until a
checkpoint covers it, by the stored tree only (a rewrite of the whole tree after the last checkpoint
is not detectable). See docs/audit-log.md.
"""

from __future__ import annotations

import base64
import enum
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    ClauseElement,
    Column,
    Connection,
    Dialect,
    Engine,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    Select,
    Table,
    Text,
    and_,
    exists,
    func,
    insert,
    inspect,
    or_,
    select,
    text,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.sql.compiler import SQLCompiler

from memguard.errors import ConfigurationError, IntegrityError, InvalidRequest, LedgerError
from memguard.ledger.checkpoint import (
    Checkpoint,
    CheckpointSigner,
    CheckpointVerifier,
    SignedNote,
)
from memguard.ledger.durability import transaction
from memguard.ledger.opening import precheck
from memguard.ledger.rfc6962 import (
    HASH_SIZE,
    append_leaves,
    consistency_proof,
    frontier_keys,
    inclusion_proof,
    leaf_hash,
    needed_subtrees,
    node_hash,
    root_from_frontier,
    tree_root,
    verify_consistency,
    verify_inclusion,
)
from memguard.ledger.tables import AuditEventRow
from memguard.ledger.witness import CheckpointWitness, WitnessedCheckpoint, note_size

__all__ = [
    "AuditLog",
    "CheckpointInfo",
    "ConsistencyProof",
    "InclusionProof",
    "Problem",
    "ProblemKind",
    "VerifyReport",
]

_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]

# SQLite: an INTEGER PRIMARY KEY is the rowid (no second index); PostgreSQL: BIGINT.
_Index = BigInteger().with_variant(Integer, "sqlite")

log_metadata = MetaData()

PENDING = Table(
    "mg_log_pending",
    log_metadata,
    Column("event_seq", _Index, primary_key=True, autoincrement=False),
    Column("leaf_hash", LargeBinary(HASH_SIZE), nullable=False),
    Column("queued_at", Float, nullable=False),
)
LEAF = Table(
    "mg_log_leaf",
    log_metadata,
    Column("leaf_index", _Index, primary_key=True, autoincrement=False),
    Column("event_seq", BigInteger, nullable=False, unique=True),
    Column("leaf_hash", LargeBinary(HASH_SIZE), nullable=False),
)
NODE = Table(
    "mg_log_node",
    log_metadata,
    Column("level", Integer, primary_key=True, autoincrement=False),
    Column("node_index", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", LargeBinary(HASH_SIZE), nullable=False),
)
CHECKPOINT = Table(
    "mg_log_checkpoint",
    log_metadata,
    Column("tree_size", _Index, primary_key=True, autoincrement=False),
    Column("root_hash", LargeBinary(HASH_SIZE), nullable=False),
    Column("note", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

_LOCK_CLASS = 0x6D67_6C67  # "mglg": pg_advisory_xact_lock(class, hashtext(current_schema()))
_CHUNK = 500


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


class _Compiled:
    """A statement compiled once for the engine's dialect, run with ``exec_driver_sql``.

    The hot paths (one queued row per event, thousands of leaf and node rows per batch) spent most
    of their time in SQLAlchemy's per-row parameter processing; the driver takes plain tuples or
    dicts. Errors are still wrapped by SQLAlchemy (and become :class:`LedgerError`).
    """

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self._names: tuple[str, ...] | None = (
            tuple(compiled.positiontup or ()) if compiled.positional else None
        )

    def _params(self, rows: Sequence[dict[str, object]]) -> list[Any]:
        names = self._names
        return list(rows) if names is None else [tuple(row[n] for n in names) for row in rows]

    def run(self, conn: Connection, rows: Sequence[dict[str, object]]) -> None:
        if rows:
            conn.exec_driver_sql(self.sql, self._params(rows))

    def run_raw(
        self, conn: Connection, rows: Sequence[dict[str, object]], errors: type[Exception]
    ) -> None:
        """On the driver's own cursor, in the same transaction: the once-per-event path, where
        SQLAlchemy's execution context cost three times the insert itself. Driver errors (PEP 249
        ``errors``) become :class:`LedgerError` here, since SQLAlchemy does not see them."""
        params = self._params(rows)
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        cursor = dbapi.cursor()
        try:
            if len(params) == 1:
                cursor.execute(self.sql, params[0])
            else:
                cursor.executemany(self.sql, params)
        except errors as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        finally:
            cursor.close()


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


# -- the log -----------------------------------------------------------------------------------------


class AuditLog:
    """The Merkle tree over the ledger's audit events, with group commit and signed checkpoints.

    ``batch_size`` / ``max_delay``: :meth:`maybe_integrate` integrates when this process queued that
    many events, or its oldest queued event is that many seconds old. ``checkpoint_every`` /
    ``checkpoint_interval``: it signs a checkpoint once that many leaves, or seconds, have passed
    since its last one (only with a ``signer``). ``verifier``: keys trusted for stored checkpoints
    (default: the signer's own key; add old keys after a rotation).
    """

    def __init__(
        self,
        engine: Engine,
        *,
        signer: CheckpointSigner | None = None,
        verifier: CheckpointVerifier | None = None,
        witness: CheckpointWitness | None = None,
        adopt_unlogged: bool = False,
        batch_size: int = 256,
        max_delay: float = 1.0,
        max_batch: int = 4096,
        checkpoint_every: int = 1024,
        checkpoint_interval: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        if self.dialect not in ("sqlite", "postgresql"):
            raise ConfigurationError(f"unsupported audit log backend `{self.dialect}`")
        if batch_size < 1 or max_batch < 1 or checkpoint_every < 1:
            raise ConfigurationError("audit log batch sizes must be positive")
        self.signer = signer
        #: receives every checkpoint signed here; ``verify`` holds the tree to its latest
        self.witness = witness
        self.verifier = (
            verifier
            if verifier is not None
            else (signer.verifier() if signer is not None else None)
        )
        self.batch_size = batch_size
        self.max_delay = max_delay
        self.max_batch = max_batch
        self.checkpoint_every = checkpoint_every
        self.checkpoint_interval = checkpoint_interval
        self._clock = clock
        self._counter_lock = threading.Lock()
        self._integrate_lock = threading.Lock()
        self._queued = 0  # events this process queued and has not integrated yet
        self._oldest_queued: float | None = None
        self._since_checkpoint = 0  # leaves this process integrated since its last checkpoint
        self._last_checkpoint_at = clock()
        dialect = engine.dialect
        self._dbapi_error: type[Exception] = dialect.loaded_dbapi.Error
        self._insert_pending = _Compiled(insert(PENDING), dialect)
        self._insert_leaf = _Compiled(insert(LEAF), dialect)
        self._insert_node = _Compiled(insert(NODE), dialect)
        self._create_tables(adopt_unlogged)

    def _create_tables(self, adopt: bool) -> None:
        try:
            existed = inspect(self.engine).has_table(LEAF.name)
        except SQLAlchemyError as exc:
            raise LedgerError(f"cannot inspect the audit log tables: {type(exc).__name__}") from exc
        if not existed and not adopt and self._has_events():
            # Events without a tree: a ledger from before the audit log, or the log tables were
            # dropped to re-adopt an edited history. Never adopted silently (and nothing created
            # here): `memguard ledger repair` adopts them explicitly and logs that it did.
            raise IntegrityError(
                "the ledger has audit events but no audit log tables (dropped, or a ledger from "
                "before the log): run `memguard ledger verify`, then `memguard ledger repair`",
                code="integrity.unlogged",
            )
        try:
            log_metadata.create_all(self.engine, checkfirst=True)
        except SQLAlchemyError as exc:
            raise LedgerError(f"cannot create audit log tables: {type(exc).__name__}") from exc
        if not existed and adopt:
            self.adopt_unlogged()

    def _has_events(self) -> bool:
        try:
            precheck(self.engine)
            with self.engine.connect() as conn:
                return conn.execute(select(_EVENT.c.seq).limit(1)).first() is not None
        except SQLAlchemyError as exc:
            raise LedgerError(f"cannot read the audit events: {type(exc).__name__}") from exc

    @contextmanager
    def _tx(self, *, durable: bool = True) -> Iterator[Connection]:
        try:
            with transaction(self.engine, durable=durable) as conn:
                yield conn
        except (LedgerError, IntegrityError, ConfigurationError, InvalidRequest):
            raise
        except SQLAlchemyError as exc:
            raise LedgerError(f"audit log operation failed: {type(exc).__name__}") from exc

    @contextmanager
    def _locked(self, *, durable: bool = True) -> Iterator[Connection]:
        """A write transaction that holds the log's lock from its first statement on;
        ``durable=False``: committed without an fsync (memguard/ledger/durability.py)."""
        with self._tx(durable=durable) as conn:
            if self.dialect == "sqlite":
                # Take the write lock now, not at the first write: reads below must not be stale.
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.execute(
                    text("SELECT pg_advisory_xact_lock(:cls, hashtext(current_schema()))"),
                    {"cls": _LOCK_CLASS},
                )
            yield conn

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A read-only transaction whose statements all see one snapshot."""
        try:
            precheck(self.engine)
            with self.engine.connect() as conn:
                if self.dialect == "sqlite":
                    conn.exec_driver_sql("BEGIN")  # pysqlite would run each SELECT on its own
                    try:
                        yield conn
                    finally:
                        conn.rollback()
                else:
                    conn = conn.execution_options(isolation_level="REPEATABLE READ")
                    with conn.begin() as tx:
                        yield conn
                        tx.rollback()
        except (LedgerError, IntegrityError, ConfigurationError, InvalidRequest):
            raise
        except SQLAlchemyError as exc:
            raise LedgerError(f"audit log operation failed: {type(exc).__name__}") from exc

    # -- queueing (called by the ledger, inside the event's transaction) --------------------------

    def enqueue(self, conn: Connection, events: Iterable[tuple[int, str]]) -> None:
        """Queue ``(seq, canonical event JSON)`` pairs in the caller's transaction."""
        now = self._clock()
        rows = [
            {"event_seq": seq, "leaf_hash": leaf_hash(event.encode("utf-8")), "queued_at": now}
            for seq, event in events
        ]
        if not rows:
            return
        self._insert_pending.run_raw(conn, rows, self._dbapi_error)
        with self._counter_lock:
            self._queued += len(rows)
            if self._oldest_queued is None:
                self._oldest_queued = now

    def adopt_unlogged(self) -> int:
        """Queue every event that is neither in the tree nor queued (events from before the log)."""
        with self._locked() as conn:
            rows = conn.execute(
                select(_EVENT.c.seq, _EVENT.c.event)
                .where(~exists().where(LEAF.c.event_seq == _EVENT.c.seq))
                .where(~exists().where(PENDING.c.event_seq == _EVENT.c.seq))
                .order_by(_EVENT.c.seq)
            ).all()
            if rows:
                now = self._clock()
                conn.execute(
                    insert(PENDING),
                    [
                        {
                            "event_seq": r.seq,
                            "leaf_hash": leaf_hash(r.event.encode("utf-8")),
                            "queued_at": now,
                        }
                        for r in rows
                    ],
                )
        return len(rows)

    # -- integration and checkpoints --------------------------------------------------------------

    def maybe_integrate(self) -> int:
        """Integrate and/or checkpoint if due (see the class docstring); returns leaves integrated.

        Cheap when nothing is due: it reads in-process counters only, no query.
        """
        now = self._clock()
        with self._counter_lock:
            taken = self._queued
            due = taken >= self.batch_size or (
                taken > 0
                and self._oldest_queued is not None
                and now - self._oldest_queued >= self.max_delay
            )
            if due:
                self._queued, self._oldest_queued = 0, None
        if not due and not self._checkpoint_due(now):
            return 0
        try:
            return self._integrate_all(checkpoint_if_due=True)
        except BaseException:
            with self._counter_lock:
                self._queued += taken
                if self._oldest_queued is None and self._queued:
                    self._oldest_queued = now
            raise

    def _checkpoint_due(self, now: float) -> bool:
        return (
            self.signer is not None
            and self._since_checkpoint > 0
            and (
                self._since_checkpoint >= self.checkpoint_every
                or now - self._last_checkpoint_at >= self.checkpoint_interval
            )
        )

    def integrate(self, max_batch: int | None = None) -> int:
        """Move up to ``max_batch`` queued events into the tree in one transaction; returns how many."""
        with self._integrate_lock, self._locked(durable=False) as conn:  # no checkpoint: relaxed
            return self._integrate_tx(conn, max_batch or self.max_batch)

    def flush(self) -> CheckpointInfo | None:
        """Integrate everything queued, then sign a checkpoint if there is a signer."""
        with self._counter_lock:
            self._queued, self._oldest_queued = 0, None
        self._integrate_all(checkpoint_if_due=False)
        return self.checkpoint() if self.signer is not None else None

    def _integrate_all(self, *, checkpoint_if_due: bool) -> int:
        total = 0
        with self._integrate_lock:
            while True:
                # no fsync: lost to a power failure, the leaves stay queued (integrated again);
                # the next durable commit (the next write's, or the checkpoint's) covers it
                with self._locked(durable=False) as conn:
                    n = self._integrate_tx(conn, self.max_batch)
                    total += n
                    last = n < self.max_batch
                if last and checkpoint_if_due and self._checkpoint_due(self._clock()):
                    with self._locked() as conn:  # durable: the witness is told of it
                        signed = self._checkpoint_tx(conn)
                    self._publish(signed)
                if last:
                    return total

    def _publish(self, info: CheckpointInfo) -> None:
        """Hand a committed checkpoint to the witness (a rollback found there raises)."""
        if self.witness is not None:
            self.witness.publish(info.note, info.created_at)

    def _integrate_tx(self, conn: Connection, max_batch: int) -> int:
        # a queued event already in the tree (never written by memguard) is left for verify
        rows = self._raw(
            conn,
            f"SELECT p.event_seq, p.leaf_hash FROM {PENDING.name} p WHERE NOT EXISTS "
            f"(SELECT 1 FROM {LEAF.name} l WHERE l.event_seq = p.event_seq) "
            f"ORDER BY p.event_seq LIMIT {int(max_batch)}",
        )
        if not rows:
            return 0
        size = self._size(conn)
        keys = frontier_keys(size)
        stored = self._fetch(conn, keys)
        seqs = [int(seq) for seq, _ in rows]
        hashes = [bytes(h) for _, h in rows]
        if any(len(h) != HASH_SIZE for h in hashes):
            raise IntegrityError("a queued leaf hash is malformed", code="integrity.audit_log")
        nodes, _ = append_leaves(size, [stored[k] for k in keys], hashes)
        self._insert_leaf.run(
            conn,
            [
                {"leaf_index": size + i, "event_seq": seq, "leaf_hash": h}
                for i, (seq, h) in enumerate(zip(seqs, hashes, strict=True))
            ],
        )
        self._insert_node.run(
            conn, [{"level": lv, "node_index": ix, "hash": h} for lv, ix, h in nodes]
        )
        # Delete exactly the rows taken: a queued event with a lower seq may commit meanwhile.
        for start in range(0, len(seqs), _CHUNK):
            listed = ",".join(str(seq) for seq in seqs[start : start + _CHUNK])
            self._raw(conn, f"DELETE FROM {PENDING.name} WHERE event_seq IN ({listed})", rows=False)
        with self._counter_lock:
            self._since_checkpoint += len(rows)
        return len(rows)

    def checkpoint(self) -> CheckpointInfo:
        """Sign (tree size, root) now, unless the latest checkpoint already has this size.

        Before signing, the new tree must be consistent with the latest stored checkpoint, whose
        signature must verify: a log never signs a tree that contradicts what it signed before.
        """
        if self.signer is None:
            raise ConfigurationError("the audit log has no checkpoint signer")
        with self._integrate_lock:
            with self._locked() as conn:
                info = self._checkpoint_tx(conn)
            self._publish(info)
            return info

    def _checkpoint_tx(self, conn: Connection) -> CheckpointInfo:
        signer = self.signer
        assert signer is not None
        size = self._size(conn)
        last = conn.execute(
            select(CHECKPOINT).order_by(CHECKPOINT.c.tree_size.desc()).limit(1)
        ).first()
        now = self._clock()
        if last is not None and last.tree_size == size:
            info = _info(last)
        else:
            if last is not None and last.tree_size > size:
                raise IntegrityError(
                    f"the audit log has {size} leaves but a checkpoint signed {last.tree_size}",
                    code="integrity.audit_log",
                )
            root_keys = frontier_keys(size)
            proof_keys: list[tuple[int, int]] = []
            if last is not None:
                old = int(last.tree_size)
                proof_keys = needed_subtrees(lambda o: consistency_proof(old, size, o))
            stored = self._fetch(conn, [*root_keys, *proof_keys])
            root = root_from_frontier([stored[k] for k in root_keys])
            if last is not None:
                self._check_previous(last, size, root, stored)
            self._check_witness(conn, size)
            note = signer.sign(size, root)
            conn.execute(
                insert(CHECKPOINT),
                {"tree_size": size, "root_hash": root, "note": note, "created_at": now},
            )
            info = CheckpointInfo(size, root, note, now)
        with self._counter_lock:
            self._since_checkpoint = 0
            self._last_checkpoint_at = now
        return info

    def _check_witness(self, conn: Connection, size: int) -> None:
        """Never sign a tree the witness contradicts: smaller than, or not extending, its
        latest checkpoint (the database was rolled back, truncated or rewritten)."""
        held = self.witness.latest() if self.witness is not None else None
        if held is None:
            return
        # the witness is trusted as far as its directory is; its signature is not needed here
        # (and may be by a rotated-out key): a forged witness can only stop signing, not pass it
        cp = Checkpoint.parse(SignedNote.parse(held).text)
        if cp.tree_size > size:
            raise IntegrityError(
                f"the witness holds a checkpoint of {cp.tree_size} leaves but the log has {size}: "
                "the ledger was rolled back or truncated",
                code="integrity.rollback",
            )
        keys = frontier_keys(cp.tree_size)
        stored = self._fetch(conn, keys)
        if root_from_frontier([stored[k] for k in keys]) != cp.root_hash:
            raise IntegrityError(
                f"the log no longer has the tree of the witness's checkpoint {cp.tree_size}: "
                "it was rewritten",
                code="integrity.rollback",
            )

    def _check_previous(
        self, last: Any, size: int, root: bytes, stored: dict[tuple[int, int], bytes]
    ) -> None:
        verifier = self.verifier
        assert verifier is not None
        old_size, old_root = int(last.tree_size), bytes(last.root_hash)
        cp = verifier.verify_checkpoint(last.note)
        if cp.tree_size != old_size or cp.root_hash != old_root:
            raise IntegrityError(
                "the latest checkpoint row does not match its signed note",
                code="integrity.audit_log",
            )
        proof = consistency_proof(old_size, size, _oracle(stored))
        try:
            verify_consistency(old_size, size, old_root, root, proof)
        except IntegrityError:
            raise IntegrityError(
                f"refusing to sign: the tree is not consistent with checkpoint {old_size}",
                code="integrity.audit_log",
            ) from None

    # -- reads ------------------------------------------------------------------------------------

    def _raw(self, conn: Connection, sql: str, *, rows: bool = True) -> list[tuple[Any, ...]]:
        """Run ``sql`` on the driver's cursor of ``conn`` (same transaction).

        For the statements on the hot paths (integration, proofs): building and caching a
        SQLAlchemy statement cost more than the query. ``sql`` holds only table names and ints
        that this module computed, never caller text. Driver errors become :class:`LedgerError`.
        """
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        cursor = dbapi.cursor()
        try:
            cursor.execute(sql)
            return list(cursor.fetchall()) if rows else []
        except self._dbapi_error as exc:
            raise LedgerError(f"audit log operation failed: {type(exc).__name__}") from exc
        finally:
            cursor.close()

    def _size(self, conn: Connection) -> int:
        ((top,),) = self._raw(conn, f"SELECT max(leaf_index) FROM {LEAF.name}")
        return 0 if top is None else int(top) + 1

    def _fetch(
        self, conn: Connection, keys: Sequence[tuple[int, int]]
    ) -> dict[tuple[int, int], bytes]:
        """Stored hashes of perfect subtrees (level 0: leaf rows) in one query; a missing one is
        an error."""
        out = self._fetch_some(conn, keys)
        for key in keys:
            if key not in out:
                raise IntegrityError(
                    f"the audit log tree is damaged at subtree {key}", code="integrity.audit_log"
                )
        return out

    def _fetch_some(
        self, conn: Connection, keys: Sequence[tuple[int, int]]
    ) -> dict[tuple[int, int], bytes]:
        out: dict[tuple[int, int], bytes] = {}
        wanted = sorted(set(keys))
        for start in range(0, len(wanted), _CHUNK):
            sql = _subtrees_sql(wanted[start : start + _CHUNK])
            for level, index, value in self._raw(conn, sql):
                if value is not None and len(value) == HASH_SIZE:
                    out[(int(level), int(index))] = bytes(value)
        return out

    def _proof_subtrees(
        self, conn: Connection, keys: Sequence[tuple[int, int]], tree_size: int
    ) -> dict[tuple[int, int], bytes]:
        """The subtrees a proof in the tree of ``tree_size`` needs; a tree size beyond the log is
        the caller's error, a missing subtree within it is damage."""
        out = self._fetch_some(conn, keys)
        if any(key not in out for key in keys):
            self._check_size(tree_size, self._size(conn))
            self._fetch(conn, keys)  # raises: which subtree is damaged
        return out

    def size(self) -> int:
        """Number of leaves in the tree."""
        with self._tx() as conn:
            return self._size(conn)

    def pending_count(self) -> int:
        with self._tx() as conn:
            return int(conn.execute(select(func.count()).select_from(PENDING)).scalar_one())

    def root(self, tree_size: int | None = None) -> bytes:
        """The root hash of the tree at ``tree_size`` (default: now), from stored subtrees."""
        with self._tx() as conn:
            size = self._size(conn)
            tree_size = size if tree_size is None else tree_size
            self._check_size(tree_size, size)
            keys = frontier_keys(tree_size)
            stored = self._fetch(conn, keys)
        return root_from_frontier([stored[k] for k in keys])

    def leaf_for_event(self, seq: int) -> int | None:
        """The leaf index of event ``seq``, or ``None`` if it is not integrated (yet)."""
        with self._tx() as conn:
            index = conn.execute(select(LEAF.c.leaf_index).where(LEAF.c.event_seq == seq)).scalar()
        return None if index is None else int(index)

    def event_text(self, seq: int) -> str | None:
        """The stored canonical JSON of event ``seq`` (the leaf's data)."""
        with self._tx() as conn:
            value = conn.execute(select(_EVENT.c.event).where(_EVENT.c.seq == seq)).scalar()
        return None if value is None else str(value)

    def checkpoints(self) -> list[CheckpointInfo]:
        """Stored checkpoints, smallest tree first (not verified: see :meth:`verify`)."""
        with self._tx() as conn:
            rows = conn.execute(select(CHECKPOINT).order_by(CHECKPOINT.c.tree_size)).all()
        return [_info(r) for r in rows]

    def latest_checkpoint(self) -> CheckpointInfo | None:
        with self._tx() as conn:
            row = conn.execute(
                select(CHECKPOINT).order_by(CHECKPOINT.c.tree_size.desc()).limit(1)
            ).first()
        return None if row is None else _info(row)

    @staticmethod
    def _check_size(tree_size: int, size: int) -> None:
        if isinstance(tree_size, bool) or not 0 <= tree_size <= size:
            raise InvalidRequest(f"tree size must be in 0..{size}")

    def inclusion_proof(self, leaf_index: int, tree_size: int | None = None) -> InclusionProof:
        """The audit path of leaf ``leaf_index`` in the tree of ``tree_size`` leaves (default: now).

        O(log n): one query fetches the leaf hash, the path's subtrees and the root's.
        """
        with self._tx() as conn:
            ts = self._size(conn) if tree_size is None else _as_size(tree_size, "tree size")
            if isinstance(leaf_index, bool) or not 0 <= leaf_index < ts:
                raise InvalidRequest(f"leaf index must be in 0..{ts - 1}")

            def compute(o: Callable[[int, int], bytes]) -> tuple[list[bytes], bytes]:
                return inclusion_proof(leaf_index, ts, o), tree_root(ts, o)

            keys = [(0, leaf_index), *needed_subtrees(compute)]
            stored = self._proof_subtrees(conn, keys, ts)
        path, root = compute(_oracle(stored))
        return InclusionProof(leaf_index, ts, stored[(0, leaf_index)], tuple(path), root)

    def inclusion_proofs(
        self, leaf_indices: Sequence[int], tree_size: int | None = None
    ) -> list[InclusionProof]:
        """Audit paths of several leaves in one tree, from one query for all their subtrees
        (``memguard audit`` proves every event of a fact this way)."""
        with self._tx() as conn:
            ts = self._size(conn) if tree_size is None else _as_size(tree_size, "tree size")
            for leaf in leaf_indices:
                if isinstance(leaf, bool) or not 0 <= leaf < ts:
                    raise InvalidRequest(f"leaf index must be in 0..{ts - 1}")

            def compute(o: Callable[[int, int], bytes]) -> list[tuple[list[bytes], bytes]]:
                return [(inclusion_proof(i, ts, o), tree_root(ts, o)) for i in leaf_indices]

            keys = [*((0, i) for i in leaf_indices), *needed_subtrees(compute)]
            stored = self._proof_subtrees(conn, keys, ts) if leaf_indices else {}
        out = []
        for leaf, (path, root) in zip(leaf_indices, compute(_oracle(stored)), strict=True):
            out.append(InclusionProof(leaf, ts, stored[(0, leaf)], tuple(path), root))
        return out

    def leaves_for_events(self, seqs: Sequence[int]) -> dict[int, tuple[int, str]]:
        """``seq -> (leaf index, stored event JSON)`` for the integrated events among ``seqs``."""
        out: dict[int, tuple[int, str]] = {}
        wanted = sorted(set(seqs))
        with self._tx() as conn:
            for start in range(0, len(wanted), _CHUNK):
                rows = conn.execute(
                    select(LEAF.c.event_seq, LEAF.c.leaf_index, _EVENT.c.event)
                    .join(_EVENT, _EVENT.c.seq == LEAF.c.event_seq, isouter=True)
                    .where(LEAF.c.event_seq.in_(wanted[start : start + _CHUNK]))
                ).all()
                for seq, leaf, event in rows:
                    out[int(seq)] = (int(leaf), "" if event is None else str(event))
        return out

    def consistency_proof(self, old_size: int, new_size: int | None = None) -> ConsistencyProof:
        """The consistency proof from the tree of ``old_size`` leaves to ``new_size`` (default: now).

        O(log n): one query fetches the proof's subtrees and both roots'.
        """
        with self._tx() as conn:
            new = self._size(conn) if new_size is None else _as_size(new_size, "new size")
            if isinstance(old_size, bool) or not 0 <= old_size <= new:
                raise InvalidRequest(f"old size must be in 0..{new}")

            def compute(o: Callable[[int, int], bytes]) -> tuple[list[bytes], bytes, bytes]:
                return (
                    consistency_proof(old_size, new, o),
                    tree_root(old_size, o),
                    tree_root(new, o),
                )

            keys = needed_subtrees(compute)
            stored = self._proof_subtrees(conn, keys, new)
        path, old_root, new_root = compute(_oracle(stored))
        return ConsistencyProof(old_size, new, old_root, new_root, tuple(path))

    # -- verification -----------------------------------------------------------------------------

    def verify(
        self,
        *,
        verifier: CheckpointVerifier | None = None,
        external_checkpoints: Sequence[str] = (),
        max_pending_age: float = 300.0,
        max_problems: int = 1000,
    ) -> VerifyReport:
        """Recompute the whole log and report every discrepancy, located.

        Checks: every event against its leaf hash (edited / deleted / reordered, a deleted tail is
        truncated); every stored node against its children (node_mismatch, leaf_mismatch when a
        leaf row was edited instead of its event); every checkpoint's signature, its root against
        the recomputed tree (root_mismatch, between the last matching checkpoint and it) and its
        size against the tree (truncated); consecutive checkpoints' consistency proofs served from
        stored nodes (inconsistent); ``external_checkpoints`` (signed notes kept elsewhere, e.g. by
        a witness) likewise, which detects a rollback of the whole database; queued events (edited,
        deleted, duplicate, pending_too_old); events neither logged nor queued (unlogged).
        """
        verifier = verifier if verifier is not None else self.verifier
        problems = _Problems(max_problems)
        held = self.witness.latest() if self.witness is not None else None
        witnessed = self.witness.history() if self.witness is not None else []
        if held is not None:
            external_checkpoints = [*external_checkpoints, held]
        with self._snapshot() as conn:
            size = self._size(conn)
            cp_rows = conn.execute(select(CHECKPOINT).order_by(CHECKPOINT.c.tree_size)).all()
            if (cp_rows or external_checkpoints) and verifier is None:
                raise ConfigurationError("no checkpoint verifier key to check signatures with")
            claims = _open_checkpoints(cp_rows, external_checkpoints, verifier, problems)
            stored = _check_leaves(conn, size, problems)
            needed = {
                k for claim in claims if claim.size <= size for k in frontier_keys(claim.size)
            }
            subtrees = _check_nodes(conn, size, stored, needed, problems)
            good = _check_claims(claims, size, subtrees, problems)
            _check_consecutive(conn, self._fetch, good, problems)
            _check_pending(conn, self._clock(), max_pending_age, problems)
            _check_unlogged(conn, problems)
            events = int(conn.execute(select(func.count()).select_from(_EVENT)).scalar_one())
            pending = int(conn.execute(select(func.count()).select_from(PENDING)).scalar_one())
        last = _info(cp_rows[-1]) if cp_rows else None
        _check_witness_lag(self.witness, held, last, problems)
        _check_witnessed_rows(witnessed, cp_rows, problems)
        if last is None and size > 0 and not external_checkpoints:
            problems.add(
                ProblemKind.NO_CHECKPOINT,
                "no signed checkpoint: a truncated or rewritten log cannot be detected",
                tree_size=size,
            )
        # omitted problems are not known to be warnings only
        ok = not any(p.severity == "tamper" for p in problems.items) and not problems.omitted
        return VerifyReport(
            ok=ok,
            tree_size=size,
            events=events,
            pending=pending,
            last_checkpoint=last,
            checkpoints_checked=len(cp_rows),
            external_checked=len(external_checkpoints),
            leaves_after_checkpoint=max(0, size - (last.tree_size if last else 0)),
            problems=tuple(problems.items),
            problems_omitted=problems.omitted,
        )


def _check_witness_lag(
    witness: CheckpointWitness | None,
    held: str | None,
    last: CheckpointInfo | None,
    problems: _Problems,
) -> None:
    """The witness should hold the latest stored checkpoint; if the database holds fewer
    leaves than the witness, ``_check_claims`` reports the truncation already."""
    if witness is None or last is None:
        return
    try:
        held_size = note_size(held) if held is not None else -1
    except IntegrityError:
        problems.add(ProblemKind.BAD_SIGNATURE, "the witness's checkpoint does not parse")
        return
    if held_size < last.tree_size:
        problems.add(
            ProblemKind.WITNESS_LAGS,
            f"the witness holds {'no checkpoint' if held is None else f'tree size {held_size}'}"
            f", the database's latest checkpoint is {last.tree_size}: republish it "
            "(`memguard ledger checkpoint`)",
            tree_size=last.tree_size,
        )


def _check_witnessed_rows(
    witnessed: Sequence[WitnessedCheckpoint], rows: Sequence[Any], problems: _Problems
) -> None:
    """Every checkpoint the witness received must still be a row, as it was published."""
    stored = {int(r.tree_size): r for r in rows}
    for w in witnessed:
        row = stored.get(w.tree_size)
        key = {"tree_size": w.tree_size}
        if row is None:
            problems.add(
                ProblemKind.ROW_DELETED,
                f"mg_log_checkpoint {w.tree_size}: the witness received this checkpoint, the "
                "database no longer has it",
                tree_size=w.tree_size,
                table=CHECKPOINT.name,
                key=key,
            )
            continue
        for column, want, got in (
            ("note", w.note, str(row.note)),
            ("created_at", w.created_at, float(row.created_at)),
        ):
            if want != got:
                problems.add(
                    ProblemKind.ROW_EDITED,
                    f"mg_log_checkpoint {w.tree_size}: column `{column}` differs from the "
                    "witness's copy",
                    tree_size=w.tree_size,
                    table=CHECKPOINT.name,
                    key=key,
                    column=column,
                    expected=want,
                    found=got,
                )


def _as_size(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRequest(f"{what} must be a non-negative int")
    return value


def _subtrees_sql(keys: Sequence[tuple[int, int]]) -> str:
    """One query for perfect-subtree hashes: leaf rows for level 0, nodes above.

    Per level ``level = L AND node_index IN (...)``, not a row-value ``(level, node_index) IN``,
    which SQLite answers with a full table scan. Only ints computed here go into the text.
    """
    leaves = sorted({int(i) for lv, i in keys if lv == 0})
    by_level: dict[int, list[int]] = {}
    for level, index in keys:
        if level > 0:
            by_level.setdefault(int(level), []).append(int(index))
    parts = []
    if leaves:
        listed = ",".join(map(str, leaves))
        parts.append(
            f"SELECT 0, leaf_index, leaf_hash FROM {LEAF.name} WHERE leaf_index IN ({listed})"
        )
    if by_level:
        terms = " OR ".join(
            f"(level = {lv} AND node_index IN ({','.join(map(str, sorted(set(ix))))}))"
            for lv, ix in sorted(by_level.items())
        )
        parts.append(f"SELECT level, node_index, hash FROM {NODE.name} WHERE {terms}")
    return " UNION ALL ".join(parts) if parts else f"SELECT 0, 0, NULL FROM {LEAF.name} WHERE 1 = 0"


def _select_nodes(keys: Sequence[tuple[int, int]]) -> Select[Any]:
    """Stored nodes by key, one ``level = ? AND node_index IN (...)`` term per level.

    Not a row-value ``(level, node_index) IN (...)``: SQLite answers that with a full table scan.
    """
    by_level: dict[int, list[int]] = {}
    for level, index in keys:
        by_level.setdefault(level, []).append(index)
    return select(NODE.c.level, NODE.c.node_index, NODE.c.hash).where(
        or_(*(and_(NODE.c.level == lv, NODE.c.node_index.in_(ix)) for lv, ix in by_level.items()))
    )


def _oracle(stored: dict[tuple[int, int], bytes]) -> Callable[[int, int], bytes]:
    return lambda level, index: stored[(level, index)]


def _info(row: Any) -> CheckpointInfo:
    return CheckpointInfo(
        int(row.tree_size), bytes(row.root_hash), str(row.note), float(row.created_at)
    )


# -- verification passes -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Claim:
    """A signed (size, root) to hold the tree to; ``stored`` for rows of mg_log_checkpoint."""

    label: str
    size: int
    root: bytes
    stored: bool


def _open_checkpoints(
    rows: Sequence[Any],
    external: Sequence[str],
    verifier: CheckpointVerifier | None,
    problems: _Problems,
) -> list[_Claim]:
    claims: list[_Claim] = []
    for row in rows:
        size = int(row.tree_size)
        assert verifier is not None
        try:
            cp = verifier.verify_checkpoint(row.note)
        except IntegrityError as exc:
            problems.add(
                ProblemKind.BAD_SIGNATURE,
                f"checkpoint at tree size {size} does not verify: {exc}",
                tree_size=size,
            )
            continue
        if cp.tree_size != size or cp.root_hash != bytes(row.root_hash):
            problems.add(
                ProblemKind.BAD_SIGNATURE,
                f"checkpoint row at tree size {size} does not match its signed note "
                f"(which says size {cp.tree_size})",
                tree_size=size,
            )
        claims.append(_Claim(f"checkpoint {cp.tree_size}", cp.tree_size, cp.root_hash, True))
    for number, note in enumerate(external, 1):
        assert verifier is not None
        try:
            cp = verifier.verify_checkpoint(note)
        except IntegrityError as exc:
            problems.add(
                ProblemKind.BAD_SIGNATURE, f"external checkpoint #{number} does not verify: {exc}"
            )
            continue
        claims.append(
            _Claim(f"external checkpoint {cp.tree_size}", cp.tree_size, cp.root_hash, False)
        )
    return claims


class _Leaves:
    """Stored leaf hashes, packed (32 bytes each), with presence flags."""

    def __init__(self, size: int) -> None:
        self.hashes = bytearray(size * HASH_SIZE)
        self.present = bytearray(size)

    def get(self, i: int) -> bytes:
        return bytes(self.hashes[i * HASH_SIZE : (i + 1) * HASH_SIZE])

    def set(self, i: int, value: bytes) -> None:
        self.hashes[i * HASH_SIZE : (i + 1) * HASH_SIZE] = value
        self.present[i] = 1


def _check_leaves(conn: Connection, size: int, problems: _Problems) -> _Leaves:
    """Every event against its stored leaf hash; returns the trusted level-0 hashes."""
    leaves = _Leaves(size)
    # leaf -> (hash of the event as stored now, or None if the event row is gone; event seq)
    mismatched: dict[int, tuple[bytes | None, int]] = {}
    expected = 0
    query = (
        select(LEAF.c.leaf_index, LEAF.c.event_seq, LEAF.c.leaf_hash, _EVENT.c.event)
        .select_from(LEAF.outerjoin(_EVENT, _EVENT.c.seq == LEAF.c.event_seq))
        .order_by(LEAF.c.leaf_index)
    )
    for row in conn.execute(query.execution_options(yield_per=4096)):
        i, seq, stored = int(row.leaf_index), int(row.event_seq), bytes(row.leaf_hash)
        if i < expected or i >= size:
            problems.add(ProblemKind.LEAF_MISMATCH, f"leaf row {i} is out of place", leaf_index=i)
            continue
        if i > expected:
            _missing_leaves(expected, i, problems)
        expected = i + 1
        if len(stored) != HASH_SIZE:
            problems.add(
                ProblemKind.LEAF_MISMATCH,
                f"leaf {i} (event seq {seq}) has a malformed hash",
                leaf_index=i,
                event_seq=seq,
            )
            continue
        leaves.set(i, stored)
        if row.event is None:
            mismatched[i] = (None, seq)
        else:
            actual = leaf_hash(str(row.event).encode("utf-8"))
            if actual != stored:
                mismatched[i] = (actual, seq)
    if mismatched:
        _classify(conn, size, leaves, mismatched, problems)
    return leaves


def _missing_leaves(start: int, end: int, problems: _Problems) -> None:
    span = f"leaf {start}" if end - start == 1 else f"leaves {start}..{end - 1}"
    problems.add(
        ProblemKind.DELETED,
        f"{span} of the tree {'is' if end - start == 1 else 'are'} missing (leaf rows deleted)",
        leaf_index=start,
    )


def _classify(
    conn: Connection,
    size: int,
    leaves: _Leaves,
    mismatched: dict[int, tuple[bytes | None, int]],
    problems: _Problems,
) -> None:
    """Tell an edited event from an edited leaf row, find moved events, collapse deletions."""
    gone = sorted(i for i, (h, _) in mismatched.items() if h is None)
    changed = {i: h for i, (h, _) in mismatched.items() if h is not None}
    # The level-1 node above a leaf was computed from the original leaf hash: it tells which of
    # the two stored copies (event, leaf row) changed.
    pairs = sorted({i >> 1 for i in changed if (i | 1) < size})
    parents: dict[tuple[int, int], bytes] = {}
    for start in range(0, len(pairs), _CHUNK):
        keys = [(1, j) for j in pairs[start : start + _CHUNK]]
        for r in conn.execute(_select_nodes(keys)):
            parents[(int(r.level), int(r.node_index))] = bytes(r.hash)
    leaf_rows_edited: set[int] = set()
    for j in pairs:
        left, right = 2 * j, 2 * j + 1
        parent = parents.get((1, j))
        if parent is None or not (leaves.present[left] and leaves.present[right]):
            continue
        as_stored = node_hash(leaves.get(left), leaves.get(right))
        from_events = node_hash(
            changed[left] if left in changed else leaves.get(left),
            changed[right] if right in changed else leaves.get(right),
        )
        if parent != as_stored and parent == from_events:
            leaf_rows_edited.update(i for i in (left, right) if i in changed)
    for i in sorted(changed):
        actual, seq = changed[i], mismatched[i][1]
        if i in leaf_rows_edited:
            problems.add(
                ProblemKind.LEAF_MISMATCH,
                f"the stored hash of leaf {i} was edited (event seq {seq} still matches the tree)",
                leaf_index=i,
                event_seq=seq,
            )
            leaves.set(i, actual)  # the tree above is checked with the event's true hash
            continue
        other = _find_leaf(leaves, actual, size)
        if other is not None and other != i:
            problems.add(
                ProblemKind.REORDERED,
                f"leaf {i} (event seq {seq}) now holds the event logged at leaf {other}",
                leaf_index=i,
                event_seq=seq,
            )
        else:
            problems.add(
                ProblemKind.EDITED,
                f"event seq {seq} (leaf {i}) no longer matches its leaf hash",
                leaf_index=i,
                event_seq=seq,
            )
    # Deleted events: runs; a run that ends the tree is a truncated event table.
    runs: list[list[int]] = []
    for i in gone:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run in runs:
        first, last = run[0], run[-1]
        seqs = f"seq {mismatched[first][1]}" + (f"..{mismatched[last][1]}" if last != first else "")
        span = f"leaf {first}" if last == first else f"leaves {first}..{last}"
        if last == size - 1:
            problems.add(
                ProblemKind.TRUNCATED,
                f"the events of {span} ({seqs}) are missing: the event table was truncated",
                leaf_index=first,
                event_seq=mismatched[first][1],
            )
        else:
            problems.add(
                ProblemKind.DELETED,
                f"the event{'s' if len(run) > 1 else ''} of {span} ({seqs}) "
                f"{'were' if len(run) > 1 else 'was'} deleted",
                leaf_index=first,
                event_seq=mismatched[first][1],
            )


def _find_leaf(leaves: _Leaves, value: bytes, size: int) -> int | None:
    pos = leaves.hashes.find(value)
    while pos >= 0:
        if pos % HASH_SIZE == 0 and leaves.present[pos // HASH_SIZE]:
            return pos // HASH_SIZE
        pos = leaves.hashes.find(value, pos + 1)
    return None


def _check_nodes(
    conn: Connection,
    size: int,
    leaves: _Leaves,
    needed: set[tuple[int, int]],
    problems: _Problems,
) -> dict[tuple[int, int], bytes | None]:
    """Recompute every perfect subtree bottom-up and compare it with the stored node.

    A mismatching node is reported and the recomputed value carried upwards, so one edited node
    is reported once and not along its whole path. Where leaves are missing, the stored node is
    taken as is (the gap itself is already reported). Returns the values of ``needed`` subtrees
    (``None``: cannot be recomputed).
    """
    out: dict[tuple[int, int], bytes | None] = {}
    hashes, present, count, level = leaves.hashes, leaves.present, size, 0
    for key in needed:
        if key[0] == 0:
            out[key] = bytes(hashes[key[1] * 32 : key[1] * 32 + 32]) if present[key[1]] else None
    while count > 1:
        level += 1
        half = count >> 1
        upper, upper_present = bytearray(half * HASH_SIZE), bytearray(half)
        rows = iter(
            conn.execute(
                select(NODE.c.node_index, NODE.c.hash)
                .where(NODE.c.level == level)
                .order_by(NODE.c.node_index)
                .execution_options(yield_per=4096)
            )
        )
        row = next(rows, None)
        for j in range(half):
            while row is not None and int(row.node_index) < j:
                _stray_node(level, int(row.node_index), size, problems)
                row = next(rows, None)
            stored: bytes | None = None
            if row is not None and int(row.node_index) == j:
                stored = bytes(row.hash)
                row = next(rows, None)
                if len(stored) != HASH_SIZE:
                    problems.add(
                        ProblemKind.NODE_MISMATCH,
                        f"node {(level, j)} is malformed",
                        node=(level, j),
                    )
                    stored = None
            a = 2 * j * HASH_SIZE
            value: bytes | None
            if present[2 * j] and present[2 * j + 1]:
                value = node_hash(
                    bytes(hashes[a : a + HASH_SIZE]),
                    bytes(hashes[a + HASH_SIZE : a + 2 * HASH_SIZE]),
                )
                if stored is None:
                    problems.add(
                        ProblemKind.NODE_MISMATCH,
                        f"node {(level, j)} is missing",
                        node=(level, j),
                        leaf_index=j << level,
                    )
                elif stored != value:
                    problems.add(
                        ProblemKind.NODE_MISMATCH,
                        f"node {(level, j)} (leaves {j << level}..{((j + 1) << level) - 1}) "
                        "does not match its children",
                        node=(level, j),
                        leaf_index=j << level,
                    )
            else:
                value = stored
            if value is not None:
                upper[j * HASH_SIZE : (j + 1) * HASH_SIZE] = value
                upper_present[j] = 1
            if (level, j) in needed:
                out[(level, j)] = value
        while row is not None:
            _stray_node(level, int(row.node_index), size, problems)
            row = next(rows, None)
        hashes, present, count = upper, upper_present, half
    for r in conn.execute(
        select(NODE.c.level, NODE.c.node_index).where(NODE.c.level > level).limit(100)
    ):
        _stray_node(int(r.level), int(r.node_index), size, problems)
    for r in conn.execute(
        select(NODE.c.level, NODE.c.node_index).where(NODE.c.level < 1).limit(100)
    ):
        _stray_node(int(r.level), int(r.node_index), size, problems)
    return out


def _stray_node(level: int, index: int, size: int, problems: _Problems) -> None:
    problems.add(
        ProblemKind.NODE_MISMATCH,
        f"node {(level, index)} lies outside the tree of {size} leaves "
        "(leaf rows deleted after it was computed?)",
        node=(level, index),
    )


def _check_claims(
    claims: Sequence[_Claim],
    size: int,
    subtrees: dict[tuple[int, int], bytes | None],
    problems: _Problems,
) -> list[_Claim]:
    """Each signed (size, root) against the recomputed tree; returns the stored ones that hold."""
    good: list[_Claim] = []
    matched = sorted(
        {0} | {c.size for c in claims if c.size <= size and _root_of(c.size, subtrees) == c.root}
    )
    for claim in claims:
        if claim.size > size:
            problems.add(
                ProblemKind.TRUNCATED,
                f"{claim.label} covers {claim.size} leaves but the tree has {size}: "
                f"leaves {size}..{claim.size - 1} are missing",
                leaf_index=size,
                tree_size=claim.size,
            )
            continue
        root = _root_of(claim.size, subtrees)
        if root is None:
            problems.add(
                ProblemKind.NODE_MISMATCH,
                f"cannot recompute the root at tree size {claim.size}: leaves and nodes are missing",
                tree_size=claim.size,
            )
        elif root != claim.root:
            since = max(s for s in matched if s < claim.size)
            problems.add(
                ProblemKind.ROOT_MISMATCH,
                f"the tree no longer has the root of {claim.label}: "
                f"leaves {since}..{claim.size - 1} were rewritten",
                leaf_index=since,
                tree_size=claim.size,
            )
        elif claim.stored:
            good.append(claim)
    return good


def _root_of(size: int, subtrees: dict[tuple[int, int], bytes | None]) -> bytes | None:
    values = [subtrees.get(k) for k in frontier_keys(size)]
    if any(v is None for v in values):
        return None
    return root_from_frontier([v for v in values if v is not None])


def _check_consecutive(
    conn: Connection,
    fetch: Callable[[Connection, Sequence[tuple[int, int]]], dict[tuple[int, int], bytes]],
    claims: Sequence[_Claim],
    problems: _Problems,
) -> None:
    """Consecutive stored checkpoints must be linked by a consistency proof from stored nodes."""
    # by signed size: a row's tree_size column may have been edited to reorder them
    for old, new in itertools.pairwise(sorted(claims, key=lambda c: c.size)):
        if old.size == new.size:
            continue

        def prove(
            o: Callable[[int, int], bytes], a: int = old.size, b: int = new.size
        ) -> list[bytes]:
            return consistency_proof(a, b, o)

        try:
            stored = fetch(conn, needed_subtrees(prove))
            proof = prove(_oracle(stored))
            verify_consistency(old.size, new.size, old.root, new.root, proof)
        except IntegrityError as exc:
            problems.add(
                ProblemKind.INCONSISTENT,
                f"checkpoints {old.size} and {new.size} are not linked by a consistency proof "
                f"from the stored tree: {exc}",
                tree_size=new.size,
            )


def _check_pending(conn: Connection, now: float, max_age: float, problems: _Problems) -> None:
    query = (
        select(
            PENDING.c.event_seq,
            PENDING.c.leaf_hash,
            PENDING.c.queued_at,
            _EVENT.c.event,
            LEAF.c.leaf_index,
        )
        .select_from(
            PENDING.outerjoin(_EVENT, _EVENT.c.seq == PENDING.c.event_seq).outerjoin(
                LEAF, LEAF.c.event_seq == PENDING.c.event_seq
            )
        )
        .order_by(PENDING.c.event_seq)
    )
    old, oldest = 0, None
    for row in conn.execute(query.execution_options(yield_per=4096)):
        seq = int(row.event_seq)
        if row.leaf_index is not None:
            problems.add(
                ProblemKind.DUPLICATE,
                f"event seq {seq} is queued but already logged at leaf {row.leaf_index}",
                event_seq=seq,
                leaf_index=int(row.leaf_index),
            )
        elif row.event is None:
            problems.add(ProblemKind.DELETED, f"queued event seq {seq} was deleted", event_seq=seq)
        elif leaf_hash(str(row.event).encode("utf-8")) != bytes(row.leaf_hash):
            problems.add(
                ProblemKind.EDITED,
                f"queued event seq {seq} no longer matches its queued leaf hash",
                event_seq=seq,
            )
        if now - float(row.queued_at) > max_age:
            old += 1
            oldest = seq if oldest is None else oldest
    if old:
        problems.add(
            ProblemKind.PENDING_TOO_OLD,
            f"{old} queued events are older than {max_age:g} s (first: seq {oldest}); "
            "run `memguard ledger integrate`",
            event_seq=oldest,
        )


def _check_unlogged(conn: Connection, problems: _Problems) -> None:
    rows = conn.execute(
        select(_EVENT.c.seq)
        .where(~exists().where(LEAF.c.event_seq == _EVENT.c.seq))
        .where(~exists().where(PENDING.c.event_seq == _EVENT.c.seq))
        .order_by(_EVENT.c.seq)
        .limit(1000)
    ).scalars()
    for seq in rows:
        problems.add(
            ProblemKind.UNLOGGED,
            f"event seq {seq} is neither in the tree nor queued (written around the log)",
            event_seq=int(seq),
        )
    dupes = conn.execute(
        select(LEAF.c.event_seq, func.count())
        .group_by(LEAF.c.event_seq)
        .having(func.count() > 1)
        .limit(1000)
    ).all()
    for seq, count in dupes:
        problems.add(
            ProblemKind.DUPLICATE, f"event seq {seq} is logged {count} times", event_seq=int(seq)
        )
