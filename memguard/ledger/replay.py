"""Replay the log and compare every projection row with it (``memguard ledger verify``).

The audit log's Merkle tree fixes the event JSON; this pass fixes everything derived from it:

- every change entry (:mod:`memguard.ledger.changelog`) is applied in log order to an expected
  copy of each projection table, which is then compared with the table row by row and column by
  column: a row no entry wrote (``row_unlogged``), a row an entry wrote that is gone
  (``row_deleted``), a column that differs (``row_edited``), each named by table, key, column,
  the logged value and the stored one;
- the columns of ``mg_audit_event`` kept outside the event JSON (action, decision, subject, ...)
  against the JSON (``event_column``), so an event cannot be hidden from ``events(decision=...)``;
- ``mg_audit_fact`` against the ``fact_ids`` of every event.

Events that are neither in the tree nor queued are not replayed: the tree pass reports them.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, Row, Table, bindparam, func, inspect, select
from sqlalchemy import text as sql_text
from sqlalchemy.sql.expression import Executable

from memguard.ledger.auditlog import LEAF, PENDING, ProblemKind, _Problems
from memguard.ledger.changelog import CHANGE_ACTION, PROJECTIONS, encode_row, ops_of
from memguard.ledger.rfc6962 import leaf_hash
from memguard.ledger.tables import AuditEventRow, AuditFactRow
from memguard.provenance import sha256_digest

__all__ = [
    "EntryCache",
    "LoggedHead",
    "check_projections",
    "expected_projection",
    "logged_heads",
    "repair_derived",
]

_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]
_EVENT_FACT = AuditFactRow.__table__  # type: ignore[attr-defined]

Rows = dict[str, dict[tuple[Any, ...], dict[str, Any]]]


def _key(table: Table, key: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(key.get(c.name) for c in table.primary_key)


def _when(value: Any) -> datetime | None:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)


def _event_columns(row: Any, ev: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Column -> (expected from the JSON, stored) for the event columns that differ."""
    principal = ev.get("principal")
    wanted: dict[str, Any] = {
        "event_id": ev.get("event_id"),
        "action": ev.get("action"),
        "decision": ev.get("decision"),
        "reason": str(ev.get("reason", ""))[:128],
        "subject": principal.get("subject") if isinstance(principal, dict) else None,
        "trace_id": ev.get("trace_id"),
        "event_digest": sha256_digest(str(row.event).encode("utf-8")),
    }
    out: dict[str, tuple[Any, Any]] = {}
    for column, value in wanted.items():
        got = getattr(row, column)
        if got != value:
            out[column] = (value, got)
    logged_ts, stored_ts = _when(ev.get("ts")), _when(row.ts)
    if logged_ts is None or logged_ts != stored_ts:
        out["ts"] = (ev.get("ts"), None if stored_ts is None else stored_ts.isoformat())
    return out


def _logged_events(conn: Connection) -> Iterator[tuple[Row[Any], bool, bool]]:
    """Events in seq order with ``logged`` (in the tree or queued) and ``intact`` (the JSON still
    hashes to its leaf: columns are checked against intact JSON only, the tree pass reports an
    edited one)."""
    query = (
        select(
            _EVENT,
            func.coalesce(LEAF.c.leaf_hash, PENDING.c.leaf_hash).label("leaf_hash"),
        )
        .select_from(
            _EVENT.outerjoin(LEAF, LEAF.c.event_seq == _EVENT.c.seq).outerjoin(
                PENDING, PENDING.c.event_seq == _EVENT.c.seq
            )
        )
        .order_by(_EVENT.c.seq)
        .execution_options(yield_per=4096)
    )
    for row in conn.execute(query):
        stored = row.leaf_hash
        intact = stored is not None and bytes(stored) == leaf_hash(str(row.event).encode("utf-8"))
        yield row, stored is not None, intact


def _apply(expected: Rows, ops: Any) -> None:
    for op in ops:
        if not isinstance(op, Mapping):
            continue
        table = PROJECTIONS.get(str(op.get("t")))
        key, row = op.get("key"), op.get("row")
        if table is None or not isinstance(key, Mapping) or not isinstance(row, Mapping):
            continue
        rows, k = expected[table.name], _key(table, key)
        kind = op.get("op")
        if kind == "put":
            rows[k] = dict(row)
        elif kind == "set" and k in rows:
            rows[k].update(row)
        elif kind == "del":
            rows.pop(k, None)


def expected_projection(conn: Connection) -> Rows:
    """Every projection row as the logged change entries wrote it (replayed in log order)."""
    expected: Rows = {name: {} for name in PROJECTIONS}
    for row, logged, _ in _logged_events(conn):
        if logged and row.action == CHANGE_ACTION:
            try:
                ev = json.loads(row.event)
            except ValueError:
                continue
            if isinstance(ev, dict) and ev.get("action") == CHANGE_ACTION:
                _apply(expected, ops_of(ev.get("detail") or {}))
    return expected


def replay_event(
    row: Row[Any],
    intact: bool,
    problems: _Problems,
    links: set[tuple[int, str]],
    apply: Callable[[Sequence[Mapping[str, Any]]], None],
) -> tuple[int, bool] | None:
    """One event of a replay: its columns held to its logged JSON (when the entry is intact),
    its fact links collected into ``links``, a change entry's operations handed to ``apply``.
    Returns ``(seq, was a change entry)``; None when the text is not a JSON object (the tree pass
    reports it as edited)."""
    try:
        ev = json.loads(row.event)
    except ValueError:
        return None
    if not isinstance(ev, dict):
        return None
    seq = int(row.seq)
    for column, (want, got) in (_event_columns(row, ev) if intact else {}).items():
        problems.add(
            ProblemKind.EVENT_COLUMN,
            f"mg_audit_event seq {seq}: column `{column}` is {got!r}, its logged event says "
            f"{want!r}",
            event_seq=seq,
            table=_EVENT.name,
            key={"seq": seq},
            column=column,
            expected=want,
            found=got,
        )
    fact_ids = ev.get("fact_ids")
    if isinstance(fact_ids, list):
        links.update((seq, str(f)) for f in fact_ids)
    if ev.get("action") != CHANGE_ACTION:
        return seq, False
    apply(ops_of(ev.get("detail") or {}))
    return seq, True


def check_projections(conn: Connection, problems: _Problems) -> int:
    """Replay every change entry and compare the projections; returns the entries replayed."""
    expected: Rows = {name: {} for name in PROJECTIONS}
    links: set[tuple[int, str]] = set()
    replayed = 0
    for row, logged, intact in _logged_events(conn):
        if not logged:
            continue  # reported as unlogged by the tree pass
        done = replay_event(row, intact, problems, links,
                            lambda ops: _apply(expected, ops))  # fmt: skip
        if done is not None and done[1]:
            replayed += 1
    for name, table in PROJECTIONS.items():
        _compare(conn, table, expected[name], problems)
    stored = {(int(s), str(f)) for s, f in conn.execute(select(_EVENT_FACT))}
    for seq, fact_id in sorted(stored - links):
        _row_problem(problems, ProblemKind.ROW_UNLOGGED, _EVENT_FACT.name,
                     {"event_seq": seq, "fact_id": fact_id}, None, None, "present")  # fmt: skip
    for seq, fact_id in sorted(links - stored):
        _row_problem(problems, ProblemKind.ROW_DELETED, _EVENT_FACT.name,
                     {"event_seq": seq, "fact_id": fact_id}, None, "present", None)  # fmt: skip
    return replayed


def _compare(
    conn: Connection, table: Table, expected: dict[tuple[Any, ...], dict[str, Any]], problems: _Problems
) -> None:
    seen: set[tuple[Any, ...]] = set()
    pk = [c.name for c in table.primary_key]
    for raw in conn.execute(select(table).execution_options(yield_per=4096)):
        got = encode_row(table, dict(raw._mapping))
        k = _key(table, got)
        key = {c: got[c] for c in pk}
        want = expected.get(k)
        if want is None or k in seen:
            _row_problem(problems, ProblemKind.ROW_UNLOGGED, table.name, key, None, None, got)
            continue
        seen.add(k)
        for column in got:
            if column in want and want[column] != got[column]:
                _row_problem(problems, ProblemKind.ROW_EDITED, table.name, key, column,
                             want[column], got[column])  # fmt: skip
    for k, want in expected.items():
        if k not in seen:
            key = dict(zip(pk, k, strict=True))
            _row_problem(problems, ProblemKind.ROW_DELETED, table.name, key, None, want, None)


def _row_problem(
    problems: _Problems,
    kind: ProblemKind,
    table: str,
    key: dict[str, Any],
    column: str | None,
    expected: Any,
    found: Any,
) -> None:
    where = f"{table} {json.dumps(key, sort_keys=True, default=str)}"
    if kind is ProblemKind.ROW_EDITED:
        message = f"{where}: column `{column}` is {found!r}, the log says {expected!r}"
    elif kind is ProblemKind.ROW_DELETED:
        message = f"{where}: the row the log wrote is gone"
    else:
        message = f"{where}: no log entry wrote this row"
    problems.add(kind, message, table=table, key=key, column=column, expected=expected, found=found)


def repair_derived(conn: Connection) -> dict[str, int]:
    """Rewrite event columns and fact links from the logged event JSON (``memguard ledger
    repair``); returns how many event rows and links changed."""
    fixed, links = 0, set[tuple[int, str]]()
    for row, logged, _ in list(_logged_events(conn)):
        try:
            ev = json.loads(row.event)
        except ValueError:
            continue
        if not logged or not isinstance(ev, dict):
            continue
        wrong = _event_columns(row, ev)
        if wrong:
            values = {c: want for c, (want, _) in wrong.items()}
            if "ts" in values:
                values["ts"] = _when(values["ts"])
            conn.execute(_EVENT.update().where(_EVENT.c.seq == row.seq).values(**values))
            fixed += 1
        fact_ids = ev.get("fact_ids")
        if isinstance(fact_ids, list):
            links.update((int(row.seq), str(f)) for f in fact_ids)
    stored = {(int(s), str(f)) for s, f in conn.execute(select(_EVENT_FACT))}
    for seq, fact_id in stored - links:
        conn.execute(
            _EVENT_FACT.delete().where(
                (_EVENT_FACT.c.event_seq == seq) & (_EVENT_FACT.c.fact_id == fact_id)
            )
        )
    missing = sorted(links - stored)
    if missing:
        conn.execute(_EVENT_FACT.insert(), [{"event_seq": s, "fact_id": f} for s, f in missing])
    return {"event_columns": fixed, "fact_links": len(stored - links) + len(missing)}


# -- the read path: one fact's entries, compared (memguard/integrity.py) -------------------------


@dataclass(frozen=True, slots=True)
class LoggedHead:
    """What the log says about a fact's newest non-aborted version (from its change entries)."""

    version: int | None
    state: str | None
    record: str | None  # "sha256:..." of the record text
    quarantined: bool
    intact: bool  # every entry still hashes to its leaf (or queued leaf)


_PROV_NAME, _QUAR_NAME = "mg_provenance", "mg_quarantine"


#: (fact id, ((log seq, leaf hash), ...)): the entries a fact's logged head was computed from
HeadKey = tuple[str, tuple[tuple[int, bytes], ...]]


class EntryCache:
    """Change entries already parsed by the read path, per ledger: (log seq, leaf hash) -> the
    entry's operations grouped by fact id.

    An entry's text was hashed against that leaf when it was cached, and log entries are append-only,
    so a hit skips fetching and parsing the text: a batch of 500 facts is one entry, and without this
    every hit among them parsed all 500 records again. A changed leaf hash is a different key (a
    miss, checked afresh). What a hit does not notice is an edit of the entry text alone after it was
    cached; ``memguard ledger verify`` does (and the read path still serves what was signed).
    """

    def __init__(self, size: int = 512, heads: int = 65536) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[int, bytes], dict[str, list[Any]]] = OrderedDict()
        self._heads_size = heads
        self._heads: OrderedDict[HeadKey, LoggedHead] = OrderedDict()
        self._lock = threading.Lock()

    def head(self, key: HeadKey) -> LoggedHead | None:
        """A fact's logged head computed before from exactly these entries (fact id, then each
        linked entry's (seq, leaf hash) in log order). A new entry about the fact (a new version,
        a state change, a quarantine) adds a link, so the key changes and the head is computed
        afresh; the same holds for a changed leaf hash."""
        with self._lock:
            found = self._heads.get(key)
            if found is not None:
                self._heads.move_to_end(key)
            return found

    def put_head(self, key: HeadKey, head: LoggedHead) -> None:
        with self._lock:
            self._heads[key] = head
            while len(self._heads) > self._heads_size:
                self._heads.popitem(last=False)

    def get(self, key: tuple[int, bytes]) -> dict[str, list[Any]] | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[int, bytes], ops: dict[str, list[Any]]) -> None:
        with self._lock:
            self._entries[key] = ops
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


def _ops_by_fact(text: str) -> dict[str, list[Any]] | None:
    """The entry's operations grouped by the fact id they touch (None: not a JSON object)."""
    try:
        ev = json.loads(text)
    except ValueError:
        return None
    if not isinstance(ev, dict):
        return None
    grouped: dict[str, list[Any]] = {}
    for op in ops_of(ev.get("detail") or {}):
        key = op.get("key") if isinstance(op, Mapping) else None
        if isinstance(key, Mapping) and isinstance(key.get("fact_id"), str):
            grouped.setdefault(key["fact_id"], []).append(op)
    return grouped


#: each fact's change entries with their leaf hash (or queued leaf hash), in log order; built
#: once (the read path runs it for every search)
_LINKS = (
    select(
        _EVENT_FACT.c.fact_id,
        _EVENT.c.seq,
        func.coalesce(LEAF.c.leaf_hash, PENDING.c.leaf_hash).label("leaf_hash"),
    )
    .select_from(
        _EVENT_FACT.join(_EVENT, _EVENT.c.seq == _EVENT_FACT.c.event_seq)
        .outerjoin(LEAF, LEAF.c.event_seq == _EVENT.c.seq)
        .outerjoin(PENDING, PENDING.c.event_seq == _EVENT.c.seq)
    )
    .where(
        _EVENT_FACT.c.fact_id.in_(bindparam("ids", expanding=True)),
        # the action as an expression, not the bare column: with an index on `action`, SQLite
        # otherwise walks every change entry of the log and probes each for the ids (15 ms per
        # search at 10^5 facts, linear in the log); this way it starts from the ids' links
        # (0.07 ms). The same rows either way: `action` is never NULL.
        func.coalesce(_EVENT.c.action, "") == CHANGE_ACTION,
    )
    .order_by(_EVENT.c.seq)
)


#: the same links on SQLite, the action checked in the covering index ``(action, seq)`` instead
#: of the event row: every read of a fact links it too (``mg_audit_fact``), so a fact read often
#: has many links that are not change entries, and probing the (large) event row of each one cost
#: more than the index entry (docs/benchmarks.md, "readcost"). SQLite's planner prefers the rowid,
#: hence ``INDEXED BY``; used only where that index exists (:func:`_links_query`, checked once per
#: engine: an index dropped later makes the query fail, a denial, never a skipped check).
_ACTION_INDEX = "ix_mg_audit_event_action"
_LINKS_SQLITE = sql_text(
    "SELECT f.fact_id, f.event_seq AS seq, coalesce(l.leaf_hash, p.leaf_hash) AS leaf_hash"
    f" FROM {_EVENT_FACT.name} AS f"
    f" LEFT OUTER JOIN {LEAF.name} AS l ON l.event_seq = f.event_seq"
    f" LEFT OUTER JOIN {PENDING.name} AS p ON p.event_seq = f.event_seq"
    " WHERE f.fact_id IN :ids AND EXISTS (SELECT 1"
    f" FROM {_EVENT.name} AS e INDEXED BY {_ACTION_INDEX}"
    " WHERE e.action = :change AND e.seq = f.event_seq)"
    " ORDER BY f.event_seq"
).bindparams(bindparam("ids", expanding=True), bindparam("change", CHANGE_ACTION))
_HINTED: weakref.WeakKeyDictionary[Engine, bool] = weakref.WeakKeyDictionary()


def _links_query(conn: Connection) -> Executable:
    """:data:`_LINKS_SQLITE` on a SQLite ledger that has the action index, else :data:`_LINKS`."""
    engine = conn.engine
    hinted = _HINTED.get(engine)
    if hinted is None:
        hinted = engine.dialect.name == "sqlite" and any(
            ix.get("name") == _ACTION_INDEX for ix in inspect(conn).get_indexes(_EVENT.name)
        )
        _HINTED[engine] = hinted
    return _LINKS_SQLITE if hinted else _LINKS


def logged_heads(
    conn: Connection, fact_ids: Sequence[str], cache: EntryCache | None = None
) -> dict[str, LoggedHead]:
    """The logged head of each fact among ``fact_ids`` that has change entries: one indexed query
    for the (fact, entry) links, then each distinct entry hashed against its leaf and parsed once
    (or taken from ``cache``). A fact whose links are exactly those its cached head was computed
    from gets that head without touching its entries (:meth:`EntryCache.head`); only intact heads
    are cached, so a broken entry is found again on every read."""
    cache = cache if cache is not None else EntryCache(0, 0)
    out: dict[str, LoggedHead] = {}
    wanted = list(dict.fromkeys(fact_ids))
    query = _links_query(conn)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        links = conn.execute(query, {"ids": chunk}).all()
        by_fact: dict[str, list[tuple[int, bytes | None]]] = {}
        for fid, seq, stored in links:
            by_fact.setdefault(str(fid), []).append(
                (int(seq), bytes(stored) if stored is not None else None)
            )
        keys: dict[str, HeadKey] = {}
        for fid, entry_links in by_fact.items():
            if all(stored is not None for _seq, stored in entry_links):
                keys[fid] = (fid, tuple((seq, stored) for seq, stored in entry_links if stored))
                found = cache.head(keys[fid])
                if found is not None:
                    out[fid] = found
        todo = [(fid, seq, stored) for fid, seq, stored in links if str(fid) not in out]
        for fid, head in _heads_from(conn, todo, cache).items():
            out[fid] = head
            if head.intact and fid in keys:
                cache.put_head(keys[fid], head)
    return out


def _heads_from(conn: Connection, links: Sequence[Any], cache: EntryCache) -> dict[str, LoggedHead]:
    """The logged heads of the facts in ``links`` ((fact id, seq, leaf hash) in log order): each
    distinct entry hashed against its leaf and parsed once (or taken from ``cache``)."""
    provs: dict[str, dict[int, dict[str, Any]]] = {}
    held: dict[str, dict[str, bool]] = {}
    intact: dict[str, bool] = {}
    entries: dict[int, dict[str, list[Any]] | None] = {}
    missing: dict[int, bytes | None] = {}
    for _fid, seq, stored in links:
        seq = int(seq)
        if seq in entries or seq in missing:
            continue
        found = cache.get((seq, bytes(stored))) if stored is not None else None
        if found is not None:
            entries[seq] = found
        else:
            missing[seq] = bytes(stored) if stored is not None else None
    for seq_chunk in _chunks(sorted(missing), 500):
        for seq, text in conn.execute(
            select(_EVENT.c.seq, _EVENT.c.event).where(_EVENT.c.seq.in_(seq_chunk))
        ).all():
            seq, raw = int(seq), str(text)
            stored = missing[seq]
            grouped = _ops_by_fact(raw)
            if stored is None or stored != leaf_hash(raw.encode("utf-8")) or grouped is None:
                entries[seq] = None  # the entry no longer hashes to its leaf, or is not JSON
                continue
            entries[seq] = grouped
            cache.put((seq, stored), grouped)
    for fact_id, seq, _stored in links:
        fid = str(fact_id)
        grouped = entries.get(int(seq))
        intact[fid] = intact.get(fid, True) and grouped is not None
        for op in grouped.get(fid, []) if grouped is not None else []:
            _apply_fact_op(fid, op, provs.setdefault(fid, {}), held.setdefault(fid, {}))
    out: dict[str, LoggedHead] = {}
    for fid, ok in intact.items():
        versions = {v: r for v, r in provs.get(fid, {}).items() if r.get("state") != "aborted"}
        head = versions[max(versions)] if versions else None
        out[fid] = LoggedHead(
            int(head["version"]) if head else None,
            head.get("state") if head else None,
            head.get("record") if head else None,
            any(not lifted for lifted in held.get(fid, {}).values()),
            ok,
        )
    return out


def _chunks(items: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _apply_fact_op(
    fid: str, op: Any, provs: dict[int, dict[str, Any]], held: dict[str, bool]
) -> None:
    if not isinstance(op, Mapping):
        return
    key, row, kind = op.get("key"), op.get("row"), op.get("op")
    if not isinstance(key, Mapping) or not isinstance(row, Mapping) or key.get("fact_id") != fid:
        return
    if op.get("t") == _PROV_NAME and isinstance(key.get("version"), int):
        version = int(key["version"])
        if kind == "put":
            provs[version] = dict(row)
        elif kind == "set" and version in provs:
            provs[version].update(row)
        elif kind == "del":
            provs.pop(version, None)
    elif op.get("t") == _QUAR_NAME:
        rid = str(key.get("revocation_id"))
        if kind == "put" or (kind == "set" and rid in held):
            held[rid] = bool(row.get("lifted", held.get(rid, False)))
        elif kind == "del":
            held.pop(rid, None)
