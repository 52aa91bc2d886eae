"""The audit log's verification steps (leaves, nodes, checkpoints, the witness, the queue), used
by :meth:`memguard.ledger.auditlog.AuditLog.verify`."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Select, and_, exists, func, or_, select

from memguard.errors import IntegrityError, InvalidRequest
from memguard.ledger.checkpoint import CheckpointVerifier
from memguard.ledger.logreport import CheckpointInfo, ProblemKind, _Problems
from memguard.ledger.logtables import _CHUNK, _EVENT, CHECKPOINT, LEAF, NODE, PENDING
from memguard.ledger.rfc6962 import (
    HASH_SIZE,
    consistency_proof,
    frontier_keys,
    leaf_hash,
    needed_subtrees,
    node_hash,
    root_from_frontier,
    verify_consistency,
)
from memguard.ledger.witness import CheckpointWitness, WitnessedCheckpoint, note_size


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
