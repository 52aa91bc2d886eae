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

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, exists, func, insert, inspect, select, text
from sqlalchemy.exc import SQLAlchemyError

from memguard.errors import ConfigurationError, IntegrityError, InvalidRequest, LedgerError
from memguard.ledger.checkpoint import Checkpoint, CheckpointSigner, CheckpointVerifier, SignedNote
from memguard.ledger.durability import ANY, DURABILITY_OPTION, transaction
from memguard.ledger.logcheck import (
    _as_size,
    _check_claims,
    _check_consecutive,
    _check_leaves,
    _check_nodes,
    _check_pending,
    _check_unlogged,
    _check_witness_lag,
    _check_witnessed_rows,
    _info,
    _open_checkpoints,
    _oracle,
    _subtrees_sql,
)
from memguard.ledger.logreport import (
    CheckpointInfo,
    ConsistencyProof,
    InclusionProof,
    Problem,
    ProblemKind,
    VerifyReport,
)
from memguard.ledger.logreport import _Problems as _Problems  # imported from here elsewhere
from memguard.ledger.logtables import (
    _CHUNK,
    _EVENT,
    _LOCK_CLASS,
    CHECKPOINT,
    NODE,
    _Compiled,
    log_metadata,
)
from memguard.ledger.logtables import LEAF as LEAF  # (the paths from before the split)
from memguard.ledger.logtables import PENDING as PENDING
from memguard.ledger.opening import precheck
from memguard.ledger.rfc6962 import (
    HASH_SIZE,
    append_leaves,
    consistency_proof,
    frontier_keys,
    inclusion_proof,
    leaf_hash,
    needed_subtrees,
    root_from_frontier,
    tree_root,
    verify_consistency,
)
from memguard.ledger.witness import CheckpointWitness

__all__ = [
    "AuditLog",
    "CheckpointInfo",
    "ConsistencyProof",
    "InclusionProof",
    "Problem",
    "ProblemKind",
    "VerifyReport",
]

#: set in a connection's pool-record ``info`` by a transaction that only moves queued leaves into
#: the tree (each leaf the very hash it was queued with) or signs a checkpoint: no row and no
#: logged head a read computes changes, so the verified-rows cache is kept (readcache.py)
LOG_ONLY = "memguard_log_only"


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
                    # reads only: no synchronous level to set (memguard/ledger/durability.py)
                    conn.execution_options(**{DURABILITY_OPTION: ANY})
                    # pysqlite would run each SELECT on its own. BEGIN on the driver connection
                    # (SQLAlchemy's execution context cost more than the read path's lookup);
                    # statements SQLAlchemy runs in ``conn`` then run inside it, and the driver's
                    # rollback below ends it whether or not SQLAlchemy began anything.
                    dbapi = conn.connection.dbapi_connection
                    assert dbapi is not None
                    dbapi.execute("BEGIN")
                    try:
                        yield conn
                    finally:
                        conn.rollback()
                        if dbapi.in_transaction:
                            dbapi.rollback()
                else:
                    conn = conn.execution_options(isolation_level="REPEATABLE READ")
                    with conn.begin() as tx:
                        yield conn
                        tx.rollback()
        except (LedgerError, IntegrityError, ConfigurationError, InvalidRequest):
            raise
        except (SQLAlchemyError, self._dbapi_error) as exc:
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
        self.queued(len(rows), now)

    def queue_time(self) -> float:
        """The ``queued_at`` of events queued now (the log's clock)."""
        return self._clock()

    def queued(self, count: int, now: float) -> None:
        """Note ``count`` events queued (committed with their leaf hashes) by this process at
        ``now``: what :meth:`maybe_integrate` counts (memguard/ledger/readevent.py queues a
        read's event on the driver connection)."""
        if count <= 0:
            return
        with self._counter_lock:
            self._queued += count
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
        conn.info[LOG_ONLY] = True  # leaves and nodes only (readcache.py)
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
        conn.info[LOG_ONLY] = True  # a checkpoint row only (readcache.py)
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
