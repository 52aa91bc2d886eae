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

A ledger from before gets the new set at open (:func:`migrate`, by
:func:`memguard.ledger.indexset.migrate`): the old indexes dropped and the partial one created in
one transaction with a logged meta row ``provenance_indexes = 2``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memguard.ledger import indexset

if TYPE_CHECKING:
    from memguard.ledger.ledger import Ledger

__all__ = ["DROPPED", "MARKER", "VERSION", "created_rows", "migrate"]

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


def _spec() -> indexset.IndexSet:
    return indexset.IndexSet(MARKER, VERSION, DROPPED, (_PARTIAL,))


def created_rows() -> list[dict[str, str]]:
    """The meta rows a new ledger is created with (its tables have the index set already)."""
    return _spec().rows()


def migrate(ledger: Ledger) -> bool:
    """Give a ledger from before this module its index set, once; whether it did."""
    return indexset.migrate(ledger, _spec())
