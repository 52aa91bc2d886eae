"""The secondary indexes of ``mg_provenance``, and their migration at open.

Every write inserts one entry into each index of ``mg_provenance`` (a batch of 64 dirtied 4-5
pages of each; issue 16). Ledgers written before this module had nine; the indexes kept are
those a lookup needs:

- ``state``: the pending rows (recovery at each open, the state change of every commit: the
  planner finds the few pending rows through it) and the deleted, unpurged ones;
- ``owner_sub``: revocation and erasure by subject (:meth:`Lineage.match` ``subject``), the
  console's fact list of one owner;
- ``session_id``: revocation by session and by turn, the console's session filter;
- ``token_jti``: revocation of a token's writes;
- ``source_uri``, only where it is set (``ix_mg_provenance_source_uri_set``, a partial index):
  revocation by source; a write without a source URI (a user message) adds no entry.

Dropped: ``namespace`` and ``source_kind`` (no ledger query filters on them but the console's
list, which pages in fact-id order and is narrowed by the owner first) and ``workload_id`` (the
workload selector also matches the record text, so it scans the table either way).

A ledger from before gets the new set at open (:func:`migrate`): the old indexes dropped and the
partial one created in one transaction with a logged meta row ``provenance_indexes = 2`` (a
change entry, so ``memguard ledger verify`` holds it like every projection row); idempotent, and
safe with several processes opening at once (SQLite ``BEGIN IMMEDIATE``, PostgreSQL a
transaction-scoped advisory lock), like :func:`memguard.ledger.changelinks.migrate`. If the
marker row is deleted around the log, the open makes the index set whole again but does not put
the row back (a warning, ``ledger.provenance_indexes_marker_missing``): ``memguard ledger verify``
names the deleted row.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlalchemy import Connection, select, text

from memguard.ledger.changelog import CHANGE_ACTION, ChangeSet, ops_of
from memguard.ledger.tables import AuditEventRow, LedgerMetaRow
from memguard.logging import get_logger

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = ["DROPPED", "MARKER", "VERSION", "created_rows", "marker_row", "migrate"]

_META = LedgerMetaRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]

#: the meta row saying the ledger has this module's index set
MARKER = "provenance_indexes"
VERSION = "2"
#: the indexes of ledgers from before (the ``source_uri`` one indexed every row)
DROPPED = (
    "ix_mg_provenance_namespace",
    "ix_mg_provenance_source_kind",
    "ix_mg_provenance_workload_id",
    "ix_mg_provenance_source_uri",
)
_PARTIAL = (
    "CREATE INDEX IF NOT EXISTS ix_mg_provenance_source_uri_set ON mg_provenance (source_uri) "
    "WHERE source_uri IS NOT NULL"
)


def marker_row() -> dict[str, str]:
    return {"key": MARKER, "value": VERSION}


def created_rows() -> list[dict[str, str]]:
    """The meta rows a new ledger is created with (its tables have the index set already)."""
    return [marker_row()]


def _marked(conn: Connection) -> bool:
    value = conn.execute(select(_META.c.value).where(_META.c.key == MARKER)).scalar_one_or_none()
    return value is not None


def _logged_marker(conn: Connection) -> bool:
    """Whether the log says the marker row exists: the change entries that mention it (a text
    match narrows, each is then read as JSON), their ops on it in log order."""
    rows = conn.execute(
        select(_EVENT.c.event)
        .where(_EVENT.c.action == CHANGE_ACTION, _EVENT.c.event.like(f'%"{MARKER}"%'))
        .order_by(_EVENT.c.seq)
    ).scalars()
    marked = False
    for raw in rows:
        try:
            ev = json.loads(raw)
        except ValueError:
            continue  # the tree pass of `ledger verify` reports an entry that is not JSON
        for op in ops_of(ev.get("detail") or {}) if isinstance(ev, dict) else []:
            key = op.get("key") if isinstance(op, dict) else None
            if op.get("t") == _META.name and isinstance(key, dict) and key.get("key") == MARKER:
                marked = op.get("op") in ("put", "set") or (op.get("op") != "del" and marked)
    return marked


def migrate(ledger: Ledger) -> bool:
    """Give a ledger from before this module its index set, once; whether it did. One
    transaction under the ledger's write lock: a second process opening at once waits, then finds
    the marker and does nothing. A failure raises (:class:`~memguard.errors.LedgerError`) and
    changes nothing: the open fails rather than run on a half-migrated schema."""
    with ledger._tx() as conn:
        if _marked(conn):
            return False
    changes = ChangeSet("ledger.migrate.provenance_indexes")
    with ledger._tx() as conn:
        if ledger.dialect == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.execute(
                text(
                    "SELECT pg_advisory_xact_lock(hashtext('memguard.provenance_indexes:' ||"
                    " current_schema()))"
                )
            )
        if _marked(conn):
            return False
        for name in DROPPED:
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
        conn.exec_driver_sql(_PARTIAL)
        if _logged_marker(conn):
            # the log put the marker and its row is gone: edited around the log. Not put again
            # silently (`memguard ledger verify` names the row); the index set is made whole.
            get_logger().warning("ledger.provenance_indexes_marker_missing",
                                 hint="memguard ledger verify")  # fmt: skip
            return False
        ledger._insert_ignore(conn, _META, [marker_row()], changes)
        ledger._log_changes(conn, changes)
    get_logger().info("ledger.migrated", migration=MARKER, dropped=list(DROPPED))
    return True
