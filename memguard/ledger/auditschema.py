"""The audit events' indexes, brought to what the read path can afford (issue 16), once per ledger.

A read ends with one allow event (memguard/ledger/readevent.py). Much of that transaction's cost
was SQLite's own B-tree work: the event row went into seven B-trees, the rowid table,
``event_id``'s unique index and an index on each of ``ts``, ``action``, ``decision``,
``subject`` and ``trace_id`` (two of them, ``event_id`` and ``trace_id``, inserted into at a
random place). No query filters on ``ts``, ``subject`` or ``trace_id``; ``decision`` only for
the rare decisions (``events(decision="alarm")``); ``action`` only for the change entries. Ledgers
written by this code instead have (memguard/ledger/tables.py) the primary key, ``event_id``'s
unique index and two partial indexes that hold only the rows those queries look for (decisions
other than ``allow``; change entries), so a read's event goes into three B-trees.

The rows do not change (the same columns, the same events), so ``memguard ledger verify``
compares them against the log as before, and a process of the previous release on the same
ledger keeps working (an index is not part of what it inserts).

A ledger from before gets the new indexes at open (:func:`migrate`): the old ones dropped, the
new ones created, in one transaction under the write lock (any error rolls all of it back and
the ledger does not open), with a logged meta row ``audit_schema = 2`` (a change entry, so
``verify`` names the row if it is edited or removed around the log). Idempotent, and a second
process opening at once waits for the lock, then finds the marker and does nothing. A ledger this
code creates gets the marker in its ``ledger.create`` entry (:data:`FRESH`).

The per-fact links (``mg_audit_fact``, one per returned fact: most of what is left of the event's
cost) keep their shape. Keyed ``(fact_id, event_seq)`` and ``WITHOUT ROWID`` (two B-trees a link
instead of three) they measured 0-15% of the event transaction cheaper in a bare SQLite test,
within the noise of this machine: not worth a table rebuild at open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memguard.ledger import indexset
from memguard.ledger.tables import CHANGES, FLAGGED

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = ["FRESH", "MARKER", "VERSION", "migrate"]

#: the meta row that says the audit tables have this module's indexes
MARKER = "audit_schema"
VERSION = "2"
#: the meta rows a new ledger is created with (its tables are made in the new shape)
FRESH: list[dict[str, str]] = [{"key": MARKER, "value": VERSION}]

#: the indexes of the previous shape (SQLModel's names for ``index=True`` columns)
_OLD_INDEXES = tuple(
    f"ix_mg_audit_event_{c}" for c in ("ts", "action", "decision", "subject", "trace_id")
)
_NEW_INDEXES = (
    f"CREATE INDEX IF NOT EXISTS ix_mg_audit_event_flagged ON mg_audit_event (decision) "
    f"WHERE {FLAGGED}",
    f"CREATE INDEX IF NOT EXISTS ix_mg_audit_event_changes ON mg_audit_event (action) "
    f"WHERE {CHANGES}",
)


def migrate(ledger: Ledger) -> bool:
    """Give a ledger from before this module's indexes, once: whether it did (False when the
    marker is already there). One transaction under the ledger's write lock (any error rolls all
    of it back and is raised: the ledger does not open); :func:`memguard.ledger.indexset.migrate`."""
    return indexset.migrate(ledger, indexset.IndexSet(MARKER, VERSION, _OLD_INDEXES, _NEW_INDEXES))
