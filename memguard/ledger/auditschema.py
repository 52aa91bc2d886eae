"""The audit tables' indexes, brought to what the read path can afford (issue 16), once per ledger.

A read ends with one allow event and one ``mg_audit_fact`` link per returned fact
(memguard/ledger/readevent.py). Most of that transaction's cost was SQLite's own B-tree work: the
event row went into seven B-trees (the rowid table, ``event_id``'s unique index and an index on
each of ``ts``, ``action``, ``decision``, ``subject``, ``trace_id``) and each link into three (a
rowid table, its ``(event_seq, fact_id)`` key and an index on ``fact_id``, the last inserted into
at a random place). Ledgers written by this code instead have (memguard/ledger/tables.py):

- on ``mg_audit_event``: the primary key, ``event_id``'s unique index, and two partial indexes
  that hold only what the queries look for (decisions other than ``allow``; change entries);
  nothing queries ``ts``, ``subject`` or ``trace_id``, and ``action`` only for change entries;
- ``mg_audit_fact`` keyed ``(fact_id, event_seq)`` (SQLite: ``WITHOUT ROWID``, the key is the
  table) with an index on ``event_seq`` (which only appends): a fact's events by the key's prefix,
  an event's links (``ledger verify`` since a checkpoint, ``repair``) by the index.

The rows themselves do not change: the same columns, the same links, the same events, so
``memguard ledger verify`` compares them against the log as before and a ledger opened by the
previous release's code keeps working (it names the columns it inserts).

A ledger from before gets the new shape at open (:func:`migrate`): the old indexes dropped, the
new ones created and, on SQLite, the link table rebuilt (its rows copied, then compared by count
before the old table is dropped), in one transaction under the write lock, with a logged meta row
``audit_schema = 2`` (a change entry, so ``verify`` names the row if it is edited or removed
around the log). Idempotent, and a second process opening at once waits for the lock, then finds
the marker and does nothing. A ledger this code creates gets the marker in its ``ledger.create``
entry (:data:`FRESH`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import Connection, select, text

from memguard.errors import IntegrityError
from memguard.ledger.changelog import ChangeSet
from memguard.ledger.tables import CHANGES, FLAGGED, LedgerMetaRow
from memguard.logging import get_logger

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = ["FRESH", "MARKER", "VERSION", "migrate"]

_META = LedgerMetaRow.__table__  # type: ignore[attr-defined]

#: the meta row that says the audit tables have this module's indexes
MARKER = "audit_schema"
VERSION = "2"
#: the meta rows a new ledger is created with (its tables are made in the new shape)
FRESH: list[dict[str, str]] = [{"key": MARKER, "value": VERSION}]

#: the indexes of the previous shape (SQLModel's names for ``index=True`` columns)
_OLD_EVENT_INDEXES = tuple(
    f"ix_mg_audit_event_{c}" for c in ("ts", "action", "decision", "subject", "trace_id")
)
_NEW_EVENT_INDEXES = (
    f"CREATE INDEX IF NOT EXISTS ix_mg_audit_event_flagged ON mg_audit_event (decision) "
    f"WHERE {FLAGGED}",
    f"CREATE INDEX IF NOT EXISTS ix_mg_audit_event_changes ON mg_audit_event (action) "
    f"WHERE {CHANGES}",
)
_LINK_INDEX = "CREATE INDEX IF NOT EXISTS ix_mg_audit_fact_event_seq ON mg_audit_fact (event_seq)"

_SQLITE_LINKS = (
    "CREATE TABLE mg_audit_fact_new (event_seq INTEGER NOT NULL, fact_id VARCHAR(64) NOT NULL, "
    "PRIMARY KEY (fact_id, event_seq), FOREIGN KEY(event_seq) REFERENCES mg_audit_event (seq)) "
    "WITHOUT ROWID"
)
_PG_LINKS = (
    "ALTER TABLE mg_audit_fact DROP CONSTRAINT IF EXISTS mg_audit_fact_pkey",
    "ALTER TABLE mg_audit_fact ADD CONSTRAINT mg_audit_fact_pkey PRIMARY KEY (fact_id, event_seq)",
    "DROP INDEX IF EXISTS ix_mg_audit_fact_fact_id",
)


def _marked(conn: Connection) -> bool:
    value = conn.execute(select(_META.c.value).where(_META.c.key == MARKER)).scalar_one_or_none()
    return value is not None


def _lock(conn: Connection, dialect: str) -> None:
    if dialect == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtext('memguard.audit_schema:' || current_schema()))")
        )


def _sqlite_links(conn: Connection) -> int:
    """Rebuild ``mg_audit_fact`` keyed by fact (``WITHOUT ROWID``); the links copied."""
    (before,) = conn.exec_driver_sql("SELECT count(*) FROM mg_audit_fact").one()
    conn.exec_driver_sql("DROP TABLE IF EXISTS mg_audit_fact_new")
    conn.exec_driver_sql(_SQLITE_LINKS)
    conn.exec_driver_sql(
        "INSERT INTO mg_audit_fact_new (event_seq, fact_id) "
        "SELECT event_seq, fact_id FROM mg_audit_fact"
    )
    (after,) = conn.exec_driver_sql("SELECT count(*) FROM mg_audit_fact_new").one()
    if int(after) != int(before):  # the old key made (event_seq, fact_id) unique: never differs
        raise IntegrityError(
            f"the audit links did not copy ({before} -> {after}); nothing was changed",
            code="integrity.migration",
        )
    conn.exec_driver_sql("DROP TABLE mg_audit_fact")  # its index on fact_id goes with it
    conn.exec_driver_sql("ALTER TABLE mg_audit_fact_new RENAME TO mg_audit_fact")
    return int(after)


def _reshape(conn: Connection, dialect: str) -> int:
    """The indexes of the new shape, the old ones dropped; the links kept (their count)."""
    for name in _OLD_EVENT_INDEXES:
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
    for sql in _NEW_EVENT_INDEXES:
        conn.exec_driver_sql(sql)
    if dialect == "sqlite":
        links = _sqlite_links(conn)
    else:
        for sql in _PG_LINKS:
            conn.exec_driver_sql(sql)
        (links,) = conn.exec_driver_sql("SELECT count(*) FROM mg_audit_fact").one()
    conn.exec_driver_sql(_LINK_INDEX)
    return int(links)


def migrate(ledger: Ledger) -> int | None:
    """Give a ledger from before this module's indexes, once: None when the marker is already
    there, else how many links the link table holds (kept). One transaction under the ledger's
    write lock (any error rolls all of it back and is raised: the ledger does not open)."""
    with ledger._tx() as conn:
        if _marked(conn):
            return None
    changes = ChangeSet("ledger.migrate.audit_schema")
    with ledger._tx() as conn:
        _lock(conn, ledger.dialect)
        if _marked(conn):
            return None
        links = _reshape(conn, ledger.dialect)
        ledger._insert_ignore(conn, _META, FRESH, changes)
        ledger._log_changes(conn, changes)
    get_logger().info("ledger.audit_schema_migrated", version=VERSION, links=links)
    return links
