"""Replay the log and compare every projection row with it (``memguard ledger verify``).

The audit log's Merkle tree fixes the event JSON; this pass fixes everything derived from it:

- every change entry (:mod:`memguard.ledger.changelog`) is applied in log order to an expected
  copy of each projection table, which is then compared with the table row by row and column by
  column: a row no entry wrote (``row_unlogged``), a row an entry wrote that is gone
  (``row_deleted``), a column that differs (``row_edited``), each named by table, key, column,
  the logged value and the stored one;
- the columns of ``mg_audit_event`` kept outside the event JSON (action, decision, subject, ...)
  against the JSON (``event_column``), so an event cannot be hidden from ``events(decision=...)``;
- ``mg_audit_fact`` against the ``fact_ids`` of every event, and ``mg_change_fact`` against those
  of every change entry (memguard/ledger/changelinks.py).

Events that are neither in the tree nor queued are not replayed: the tree pass reports them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Row, Table, bindparam, func, select, union
from sqlalchemy.sql.expression import Executable

from memguard.ledger import readlinks
from memguard.ledger.auditlog import LEAF, PENDING, ProblemKind, _Problems
from memguard.ledger.changelinks import CHANGE_FACT, links_of, stored_links
from memguard.ledger.changelinks import rewrite as rewrite_links
from memguard.ledger.changelog import CHANGE_ACTION, PROJECTIONS, encode_row, ops_of
from memguard.ledger.entries import Entry as _Entry
from memguard.ledger.entries import parse_entry as _parse_entry
from memguard.ledger.rfc6962 import leaf_hash
from memguard.ledger.tables import AuditEventRow, AuditFactRow
from memguard.logging import get_logger
from memguard.provenance import sha256_digest

__all__ = [
    "ENTRY_BYTES",
    "EntryCache",
    "LoggedHead",
    "check_projections",
    "compare_links",
    "expected_projection",
    "logged_heads",
    "read_mark",
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
        if not all(isinstance(v, str | int | None) for v in k):
            continue  # an edited entry (a list or an object as a key): verify names it
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
    change_links: set[tuple[int, str]] | None = None,
) -> tuple[int, bool] | None:
    """One event of a replay: its columns held to its logged JSON (when the entry is intact),
    its fact links collected into ``links`` (a change entry's also into ``change_links``), a
    change entry's operations handed to ``apply``.
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
    if change_links is not None:
        change_links.update((seq, f) for f in links_of(ev))
    apply(ops_of(ev.get("detail") or {}))
    return seq, True


def check_projections(conn: Connection, problems: _Problems) -> int:
    """Replay every change entry and compare the projections; returns the entries replayed."""
    expected: Rows = {name: {} for name in PROJECTIONS}
    links: set[tuple[int, str]] = set()
    change_links: set[tuple[int, str]] = set()
    replayed = 0
    for row, logged, intact in _logged_events(conn):
        if not logged:
            continue  # reported as unlogged by the tree pass
        done = replay_event(row, intact, problems, links,
                            lambda ops: _apply(expected, ops), change_links)  # fmt: skip
        if done is not None and done[1]:
            replayed += 1
    for name, table in PROJECTIONS.items():
        _compare(conn, table, expected[name], problems)
    stored = {(int(s), str(f)) for s, f in conn.execute(select(_EVENT_FACT))}
    compare_links(problems, _EVENT_FACT.name, stored,
                  readlinks.projected_links(conn, links, stored, read_mark(conn, problems)))  # fmt: skip
    compare_links(problems, CHANGE_FACT.name, stored_links(conn), change_links)
    return replayed


def read_mark(conn: Connection, problems: _Problems) -> int | None:
    """The reads' links mark (memguard/ledger/readlinks.py) to compare ``mg_audit_fact`` up to:
    ``None`` (every link compared) on a ledger that writes them all at once, or when the mark's
    row is gone (reported, ``row_deleted``); a mark past the newest event is reported
    (``row_edited``: the reads above the real point would have no links and be excused), and so
    is a row other than the mark (``row_unlogged``)."""
    if not readlinks.deferred(conn):
        return None
    key = {"name": "mg_audit_fact"}
    for (name,) in conn.execute(select(readlinks.MARK.c.name).where(
            readlinks.MARK.c.name != key["name"])):  # fmt: skip
        _row_problem(problems, ProblemKind.ROW_UNLOGGED, readlinks.MARK.name, {"name": name},
                     None, None, "present")  # fmt: skip
    upto = readlinks.mark_row(conn)
    if upto is None:
        stored = conn.execute(select(readlinks.MARK.c.upto).where(
            readlinks.MARK.c.name == key["name"])).first()  # fmt: skip
        if stored is None:
            _row_problem(problems, ProblemKind.ROW_DELETED, readlinks.MARK.name, key, None,
                         "present", None)  # fmt: skip
        else:  # text, a blob or a real edited in: answers take it as gone (readlinks.mark_value)
            _row_problem(problems, ProblemKind.ROW_EDITED, readlinks.MARK.name, key, "upto",
                         "a seq", stored[0][:64] if isinstance(stored[0], str | bytes)
                         else stored[0])  # fmt: skip
        return None
    newest = readlinks.newest_seq(conn)
    if upto > newest:
        _row_problem(problems, ProblemKind.ROW_EDITED, readlinks.MARK.name, key, "upto",
                     f"<= {newest}", upto)  # fmt: skip
        return None
    return upto


def compare_links(
    problems: _Problems, table: str, stored: set[tuple[int, str]], logged: set[tuple[int, str]]
) -> None:
    """A link row no logged event names (``row_unlogged``), and one it names that is gone
    (``row_deleted``), in ``mg_audit_fact`` or ``mg_change_fact``."""
    for seq, fact_id in sorted(stored - logged):
        _row_problem(problems, ProblemKind.ROW_UNLOGGED, table,
                     {"event_seq": seq, "fact_id": fact_id}, None, None, "present")  # fmt: skip
    for seq, fact_id in sorted(logged - stored):
        _row_problem(problems, ProblemKind.ROW_DELETED, table,
                     {"event_seq": seq, "fact_id": fact_id}, None, "present", None)  # fmt: skip


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
    """Rewrite event columns and fact links (``mg_audit_fact``, ``mg_change_fact``) from the
    logged event JSON (``memguard ledger repair``); returns how many event rows and links
    changed."""
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
    if readlinks.deferred(conn):  # every event's links are written now
        conn.execute(readlinks.MARK.delete())
        conn.execute(readlinks.MARK.insert().values(name="mg_audit_fact",
                                                    upto=readlinks.newest_seq(conn)))  # fmt: skip
    return {"event_columns": fixed, "fact_links": len(stored - links) + len(missing),
            "change_links": rewrite_links(conn)}  # fmt: skip


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


#: the default byte bound of :class:`EntryCache`'s parsed entries (their estimated memory): with
#: facts written in batches of 512 an entry is ~1.1 MB parsed, so the count bound alone let the
#: cache grow to hundreds of MiB (docs/storage.md, "Memory")
ENTRY_BYTES = 32 * 2**20


class EntryCache:
    """Change entries already parsed by the read path, per ledger: (log seq, leaf hash) -> the
    entry's operations grouped by fact id and the facts it names (:class:`_Entry`).

    An entry's text was hashed against that leaf when it was cached, and log entries are append-only,
    so a hit skips fetching and parsing the text: a batch of 500 facts is one entry, and without this
    every hit among them parsed all 500 records again. A changed leaf hash is a different key (a
    miss, checked afresh). What a hit does not notice is an edit of the entry text alone after it was
    cached; ``memguard ledger verify`` does (and the read path still serves what was signed).

    Bounded twice, least recently used first out: by ``size`` entries and by ``max_bytes`` of their
    estimated memory (:func:`entry_cost`; an entry larger than ``max_bytes`` is not kept). One
    entry holds every fact of one write call, so a count alone does not bound the memory.
    """

    def __init__(self, size: int = 512, heads: int = 65536, max_bytes: int = ENTRY_BYTES) -> None:
        self._size = size
        self._max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[tuple[int, bytes], _Entry] = OrderedDict()
        self._heads_size = heads
        self._heads: OrderedDict[HeadKey, LoggedHead] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def entry_bytes(self) -> int:
        """The estimated memory of the entries held (what ``max_bytes`` bounds)."""
        return self._bytes

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

    def get(self, key: tuple[int, bytes]) -> _Entry | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[int, bytes], ops: _Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.cost
            if ops.cost > self._max_bytes or self._size < 1:
                return  # larger than the whole bound: parsed again when next needed
            self._entries[key] = ops
            self._bytes += ops.cost
            while len(self._entries) > self._size or self._bytes > self._max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.cost


def _links_select(links: Any) -> Any:
    """Each fact's links in ``links`` (a table or subquery of ``fact_id``, ``event_seq``) with the
    entry's leaf hash (or queued leaf hash), in log order."""
    return (
        select(
            links.c.fact_id,
            links.c.event_seq.label("seq"),
            func.coalesce(LEAF.c.leaf_hash, PENDING.c.leaf_hash).label("leaf_hash"),
        )
        .select_from(
            links.outerjoin(LEAF, LEAF.c.event_seq == links.c.event_seq).outerjoin(
                PENDING, PENDING.c.event_seq == links.c.event_seq
            )
        )
        .where(links.c.fact_id.in_(bindparam("ids", expanding=True)))
        .order_by(links.c.event_seq)
    )


#: the read path's links: each fact's change entries (``mg_change_fact``, by its key; a read
#: adds no row there, so a fact read often costs what one never read does). Built once.
_LINKS = _links_select(CHANGE_FACT)

#: the wider links, for a fact whose row disagrees with the head :data:`_LINKS` gives: those and
#: the change entries among ``mg_audit_fact`` (an entry a process of the previous release logged
#: has no ``mg_change_fact`` row; memguard/ledger/changelinks.py)
_WIDE = _links_select(
    union(
        select(CHANGE_FACT.c.fact_id, CHANGE_FACT.c.event_seq).where(
            CHANGE_FACT.c.fact_id.in_(bindparam("ids", expanding=True))
        ),
        select(_EVENT_FACT.c.fact_id, _EVENT_FACT.c.event_seq)
        .join(_EVENT, _EVENT.c.seq == _EVENT_FACT.c.event_seq)
        .where(
            _EVENT_FACT.c.fact_id.in_(bindparam("ids", expanding=True)),
            func.coalesce(_EVENT.c.action, "") == CHANGE_ACTION,
        ),
    ).subquery("links")
)


def logged_heads(
    conn: Connection,
    fact_ids: Sequence[str],
    cache: EntryCache | None = None,
    *,
    agrees: Callable[[str, LoggedHead | None], bool] | None = None,
    wide: bool = False,
    links: Sequence[tuple[str, int, bytes | None]] | None = None,
) -> dict[str, LoggedHead]:
    """The logged head of each fact among ``fact_ids`` that has change entries: one indexed query
    for the (fact, entry) links, then each distinct entry hashed against its leaf and parsed once
    (or taken from ``cache``). A fact whose links are exactly those its cached head was computed
    from gets that head without touching its entries (:meth:`EntryCache.head`); only intact heads
    are cached, so a broken entry is found again on every read.

    ``agrees(fact id, head)``: whether the caller's row matches the head; for each fact where it
    does not, the head is computed again over the wider links (:data:`_WIDE`) and that one is
    returned. ``wide``: every fact over the wider links. ``links``: what :data:`_LINKS` gives
    for ``fact_ids`` (or more ids), read by the caller in ``conn``'s transaction
    (memguard/ledger/readpath.py); not with ``wide``."""
    cache = cache if cache is not None else EntryCache(0, 0)
    wanted = list(dict.fromkeys(fact_ids))
    if links is not None and not wide:
        keep = set(wanted)
        out = _heads_of_links(conn, [r for r in links if r[0] in keep], cache)
    else:
        out = _logged_heads(conn, wanted, cache, _WIDE if wide else _LINKS)
    doubtful = [] if agrees is None or wide else [f for f in wanted if not agrees(f, out.get(f))]
    if doubtful:
        wider = _logged_heads(conn, doubtful, cache, _WIDE)
        missed = [f for f in doubtful if wider.get(f) != out.get(f)]
        for fid in missed:
            out[fid] = wider[fid]  # the wider links are a superset: never an empty head
        if missed:
            get_logger().warning("ledger.change_links_missing", fact_ids=missed[:20],
                                 count=len(missed), hint="memguard ledger repair")  # fmt: skip
    return out


def _logged_heads(
    conn: Connection, wanted: Sequence[str], cache: EntryCache, query: Executable
) -> dict[str, LoggedHead]:
    out: dict[str, LoggedHead] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        out.update(_heads_of_links(conn, conn.execute(query, {"ids": chunk}).all(), cache))
    return out


def _heads_of_links(
    conn: Connection, links: Sequence[Any], cache: EntryCache
) -> dict[str, LoggedHead]:
    """The logged heads of the facts in ``links`` ((fact id, seq, leaf hash) rows in log order)."""
    out: dict[str, LoggedHead] = {}
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
    distinct entry hashed against its leaf and parsed once (or taken from ``cache``). A link
    whose entry is gone, no longer hashes to its leaf, is not a change entry or does not name
    the fact in its signed ``fact_ids`` makes the fact's head not intact (a bogus link row)."""
    provs: dict[str, dict[int, dict[str, Any]]] = {}
    held: dict[str, dict[str, bool]] = {}
    intact: dict[str, bool] = {}
    entries: dict[int, _Entry | None] = {}
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
            entry = _parse_entry(raw)
            if stored is None or stored != leaf_hash(raw.encode("utf-8")) or entry is None:
                entries[seq] = None  # the entry no longer hashes to its leaf, or is not JSON
                continue
            entries[seq] = entry
            cache.put((seq, stored), entry)
    for fact_id, seq, _stored in links:
        fid = str(fact_id)
        entry = entries.get(int(seq))  # None: gone, edited, or not JSON
        ok = entry is not None and fid in entry.names
        intact[fid] = intact.get(fid, True) and ok
        for op in entry.ops(fid) if entry is not None and ok else []:
            _apply_fact_op(fid, op, provs.setdefault(fid, {}), held.setdefault(fid, {}))
    out: dict[str, LoggedHead] = {}
    for fid, good in intact.items():
        versions = {v: r for v, r in provs.get(fid, {}).items() if r.get("state") != "aborted"}
        head = versions[max(versions)] if versions else None
        out[fid] = LoggedHead(
            int(head["version"]) if head else None,
            head.get("state") if head else None,
            head.get("record") if head else None,
            any(not lifted for lifted in held.get(fid, {}).values()),
            good,
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
