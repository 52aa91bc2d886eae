"""Replacing a ledger's index set at open, once, with a logged marker.

Indexes are not rows: the log does not hold them and ``memguard ledger verify`` does not compare
them. A change of a table's index set (``provindexes``: ``mg_provenance``; ``auditschema``:
``mg_audit_event``) is recorded instead by a meta row, ``marker = version``, written as a change
entry like every projection row. A new ledger is created with its tables in the new shape and the
marker in its ``ledger.create`` entry; a ledger from before gets, at its first open, in one
transaction under the ledger's write lock (SQLite ``BEGIN IMMEDIATE``, PostgreSQL a
transaction-scoped advisory lock per marker), the old indexes dropped, the new ones created and the
marker logged. Several processes opening at once: the second waits, then finds the marker. Any
error rolls the whole transaction back and is raised: the ledger does not open on a half-changed
schema.

If the marker row is deleted around the log, the open makes the index set whole again but does not
put the row back (a warning, ``ledger.index_marker_missing``): ``memguard ledger verify`` names the
deleted row.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Connection, select, text

from memguard.ledger.changelog import CHANGE_ACTION, ChangeSet, ops_of
from memguard.ledger.tables import AuditEventRow, LedgerMetaRow
from memguard.logging import get_logger

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = ["IndexSet", "migrate"]

_META = LedgerMetaRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class IndexSet:
    """One change of a table's index set."""

    #: the meta row's key and value that say the ledger has the new set
    marker: str
    version: str
    #: the old indexes' names (dropped if present)
    dropped: Sequence[str]
    #: the new indexes (``CREATE INDEX IF NOT EXISTS ...`` statements)
    created: Sequence[str]

    def rows(self) -> list[dict[str, str]]:
        """The meta rows a new ledger is created with (its tables have the new set already)."""
        return [{"key": self.marker, "value": self.version}]


def _marked(conn: Connection, marker: str) -> bool:
    value = conn.execute(select(_META.c.value).where(_META.c.key == marker)).scalar_one_or_none()
    return value is not None


def _logged(conn: Connection, marker: str) -> bool:
    """Whether the log says the marker row exists: the change entries that mention it (a text
    match narrows, each is then read as JSON), their ops on it in log order."""
    rows = conn.execute(
        select(_EVENT.c.event)
        .where(_EVENT.c.action == CHANGE_ACTION, _EVENT.c.event.like(f'%"{marker}"%'))
        .order_by(_EVENT.c.seq)
    ).scalars()
    marked = False
    for raw in rows:
        try:
            ev = json.loads(raw)
        except ValueError:
            continue  # the tree pass of `ledger verify` reports an entry that is not JSON
        for op in ops_of(ev.get("detail") or {}) if isinstance(ev, dict) else []:
            if not isinstance(op, dict):
                continue  # an edited entry: `ledger verify` names it (the open must not fail on it)
            key = op.get("key")
            if op.get("t") == _META.name and isinstance(key, dict) and key.get("key") == marker:
                marked = op.get("op") in ("put", "set") or (op.get("op") != "del" and marked)
    return marked


def _lock(conn: Connection, dialect: str, marker: str) -> None:
    if dialect == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtext(:name || ':' || current_schema()))"),
            {"name": f"memguard.{marker}"},
        )


def migrate(ledger: Ledger, spec: IndexSet) -> bool:
    """Give a ledger from before ``spec`` its index set, once; whether it did (False when the
    marker is there, or was deleted around the log: see the module's docstring)."""
    with ledger._tx() as conn:
        if _marked(conn, spec.marker):
            return False
    changes = ChangeSet(f"ledger.migrate.{spec.marker}")
    with ledger._tx() as conn:
        _lock(conn, ledger.dialect, spec.marker)
        if _marked(conn, spec.marker):
            return False
        for name in spec.dropped:
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
        for sql in spec.created:
            conn.exec_driver_sql(sql)
        if _logged(conn, spec.marker):
            # the log put the marker and its row is gone: edited around the log. Not put again
            # silently (`memguard ledger verify` names the row); the index set is made whole.
            get_logger().warning("ledger.index_marker_missing", marker=spec.marker,
                                 hint="memguard ledger verify")  # fmt: skip
            return False
        ledger._insert_ignore(conn, _META, spec.rows(), changes)
        ledger._log_changes(conn, changes)
    get_logger().info("ledger.migrated", migration=spec.marker, dropped=list(spec.dropped))
    return True
