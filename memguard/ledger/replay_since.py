"""Incremental replay (``memguard ledger verify --incremental``): the change entries after a tree
size that a full verify recorded as verified (:mod:`memguard.ledger.verified`), and only the rows
they touched.

For each row a later entry wrote, the row is compared with what those entries say: a ``put`` fixes
every column, a ``set`` the columns it set, a ``del`` that the row is gone. The event columns and
fact links (``mg_audit_fact``, ``mg_change_fact``) of the later events are checked as in the full
replay. Not checked (the full replay
does): rows and columns that no later entry touched (an edit of an older row, a row inserted
around the log), and fact links of older events.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Row, Table, func, or_, select

from memguard.ledger.auditlog import LEAF, PENDING, ProblemKind, _Problems
from memguard.ledger.changelinks import CHANGE_FACT, stored_links
from memguard.ledger.changelog import PROJECTIONS, encode_row
from memguard.ledger.readlinks import projected_links
from memguard.ledger.replay import (
    _EVENT,
    _EVENT_FACT,
    _key,
    _row_problem,
    compare_links,
    read_mark,
    replay_event,
)
from memguard.ledger.rfc6962 import leaf_hash

__all__ = ["check_projections_since"]

_CHUNK = 500


@dataclass
class _Touched:
    """What the entries after the marker say about one row."""

    columns: dict[str, Any] = field(default_factory=dict)
    deleted: bool = False
    known: bool = False  # a put or set after the marker: the row exists


def _events_after(conn: Connection, tree_size: int) -> Iterator[tuple[Row[Any], bool]]:
    """Events integrated at a leaf >= ``tree_size`` or queued, in seq order, with ``intact``."""
    query = (
        select(_EVENT, func.coalesce(LEAF.c.leaf_hash, PENDING.c.leaf_hash).label("leaf_hash"))
        .select_from(
            _EVENT.outerjoin(LEAF, LEAF.c.event_seq == _EVENT.c.seq).outerjoin(
                PENDING, PENDING.c.event_seq == _EVENT.c.seq
            )
        )
        .where(or_(LEAF.c.leaf_index >= tree_size, PENDING.c.event_seq.is_not(None)))
        .order_by(_EVENT.c.seq)
        .execution_options(yield_per=4096)
    )
    for row in conn.execute(query):
        stored = row.leaf_hash
        yield row, stored is not None and bytes(stored) == leaf_hash(str(row.event).encode("utf-8"))


def _apply(touched: dict[str, dict[tuple[Any, ...], _Touched]], ops: Any) -> None:
    for op in ops:
        if not isinstance(op, Mapping):
            continue
        table = PROJECTIONS.get(str(op.get("t")))
        key, row = op.get("key"), op.get("row")
        if table is None or not isinstance(key, Mapping) or not isinstance(row, Mapping):
            continue
        rows, k = touched[table.name], _key(table, key)
        if not all(isinstance(v, str | int | None) for v in k):
            continue  # an edited entry (a list or an object as a key): verify names it
        kind = op.get("op")
        if kind == "put":
            rows[k] = _Touched(columns=dict(row), known=True)
        elif kind == "set":
            entry = rows.setdefault(k, _Touched())
            if not entry.deleted:  # the full replay ignores a set of a row that is gone
                entry.columns.update(row)
                entry.known = True
        elif kind == "del":
            rows[k] = _Touched(deleted=True)


def check_projections_since(conn: Connection, problems: _Problems, tree_size: int) -> int:
    """Replay the change entries after leaf ``tree_size``; returns how many were replayed."""
    touched: dict[str, dict[tuple[Any, ...], _Touched]] = {name: {} for name in PROJECTIONS}
    links: set[tuple[int, str]] = set()
    change_links: set[tuple[int, str]] = set()
    seqs: list[int] = []
    replayed = 0
    for row, intact in _events_after(conn, tree_size):
        done = replay_event(row, intact, problems, links, lambda ops: _apply(touched, ops),
                            change_links)  # fmt: skip
        if done is None:
            continue  # reported as edited by the tree pass
        seqs.append(done[0])
        if done[1]:
            replayed += 1
    for name, table in PROJECTIONS.items():
        if touched[name]:
            _compare_touched(conn, table, touched[name], problems)
    stored: set[tuple[int, str]] = set()
    for start in range(0, len(seqs), _CHUNK):
        chunk = seqs[start : start + _CHUNK]
        stored.update(
            (int(s), str(f))
            for s, f in conn.execute(select(_EVENT_FACT).where(_EVENT_FACT.c.event_seq.in_(chunk)))
        )
    upto = read_mark(conn, problems)  # above the reads' links mark: the backlog (readlinks.py)
    compare_links(problems, _EVENT_FACT.name, stored, projected_links(conn, links, stored, upto))
    compare_links(problems, CHANGE_FACT.name, stored_links(conn, seqs), change_links)
    return replayed


def _compare_touched(
    conn: Connection, table: Table, touched: dict[tuple[Any, ...], _Touched], problems: _Problems
) -> None:
    """The touched rows, fetched by their first key column (then matched on the whole key)."""
    pk = [c.name for c in table.primary_key]
    first = table.c[pk[0]]
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    firsts = sorted({k[0] for k in touched}, key=str)
    for start in range(0, len(firsts), _CHUNK):
        query = select(table).where(first.in_(firsts[start : start + _CHUNK]))
        for raw in conn.execute(query):
            row = encode_row(table, dict(raw._mapping))
            k = _key(table, row)
            if k in touched:
                found[k] = row
    for k, want in touched.items():
        key = dict(zip(pk, k, strict=True))
        got = found.get(k)
        if want.deleted:
            if got is not None:
                _row_problem(problems, ProblemKind.ROW_UNLOGGED, table.name, key, None, None, got)
            continue
        if not want.known:
            continue
        if got is None:
            _row_problem(
                problems, ProblemKind.ROW_DELETED, table.name, key, None, want.columns, None
            )
            continue
        for column, value in want.columns.items():
            if column in got and got[column] != value:
                _row_problem(problems, ProblemKind.ROW_EDITED, table.name, key, column,
                             value, got[column])  # fmt: skip
