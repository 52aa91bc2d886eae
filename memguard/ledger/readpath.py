"""The read path's ledger lookup as one statement, compiled once per id count (issue 16).

Every verified read asks the ledger for the rows of its hits and for the change-entry links the
signed log's head of each is computed from (:meth:`~memguard.ledger.Ledger.latest_checked`). Run
as two SQLAlchemy statements with an expanding ``IN``, most of that cost was SQLAlchemy's own:
rendering the ``IN`` list, the compiled-cache key and the execution context of each statement.

Here both lookups are one ``UNION ALL`` (one round trip on PostgreSQL), compiled for the engine's
dialect once per number of ids (a read has at most a few hundred hits) and run on the driver's
cursor in the caller's snapshot transaction. The rows and links are exactly those the two
statements return (the same tables, conditions and order); the tests compare them with
:meth:`Ledger.latest` and the links query on the same ledger.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Dialect,
    and_,
    bindparam,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.sql.compiler import SQLCompiler

from memguard.errors import LedgerError
from memguard.ledger.auditlog import LEAF, PENDING
from memguard.ledger.changelinks import CHANGE_FACT
from memguard.ledger.records import FactState, LedgerRecord
from memguard.ledger.tables import ProvenanceRow, QuarantineRow

__all__ = ["LATEST", "MAX_IDS", "LinkRow", "ReadLookup"]

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_QUARANTINE = QuarantineRow.__table__  # type: ignore[attr-defined]

#: the most ids one compiled statement takes (more: the caller's own statements, in chunks)
MAX_IDS = 256

#: (fact id, log seq of a change entry, its leaf hash or queued leaf hash) in log order
LinkRow = tuple[str, int, bytes | None]


def _row_columns() -> list[Any]:
    """A fact's row as the read path wants it: its columns and whether an active quarantine holds
    it (one subquery, so the flag is read in the same snapshot as the row)."""
    quarantined = (
        select(_QUARANTINE.c.fact_id)
        .where(and_(_QUARANTINE.c.fact_id == _PROV.c.fact_id, _QUARANTINE.c.lifted.is_(False)))
        .exists()
    )
    names = ("fact_id", "version", "state", "record_digest", "content_digest", "record", "purged")
    return [*(_PROV.c[name].label(name) for name in names), quarantined.label("quarantined")]


def _not_aborted(ids: Any) -> Any:
    return and_(_PROV.c.fact_id.in_(ids), _PROV.c.state != FactState.ABORTED.value)


#: ``Ledger.latest``: the rows of some facts with their quarantine flag (built once: the read path
#: runs it for every search, and building the statement cost more than running it); the lookup
#: below falls back to it past :data:`MAX_IDS` ids
LATEST = select(*_row_columns()).where(_not_aborted(bindparam("ids", expanding=True)))


def _statement(n: int) -> Any:
    """Rows (kind 0) of ``n`` fact ids, as ``Ledger._latest`` selects them, then the change-entry
    links (kind 1) of the same ids, as ``replay._LINKS`` selects them, in log order."""
    ids: list[Any] = [bindparam(f"r{i}") for i in range(n)]
    links: list[Any] = [bindparam(f"l{i}") for i in range(n)]
    rows = select(
        literal(0).label("kind"), *_row_columns(), null().label("seq"), null().label("leaf_hash")
    ).where(_not_aborted(ids))
    linked = (
        select(
            literal(1).label("kind"),
            CHANGE_FACT.c.fact_id,
            null(),
            null(),
            null(),
            null(),
            null(),
            null(),
            null(),
            CHANGE_FACT.c.event_seq,
            func.coalesce(LEAF.c.leaf_hash, PENDING.c.leaf_hash),
        )
        .select_from(
            CHANGE_FACT.outerjoin(LEAF, LEAF.c.event_seq == CHANGE_FACT.c.event_seq).outerjoin(
                PENDING, PENDING.c.event_seq == CHANGE_FACT.c.event_seq
            )
        )
        .where(CHANGE_FACT.c.fact_id.in_(links))
    )
    both = union_all(rows, linked).subquery("found")
    return select(both).order_by(both.c.kind, both.c.seq)


class _Compiled:
    def __init__(self, n: int, dialect: Dialect) -> None:
        compiled = _statement(n).compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        self.positional = bool(compiled.positional)
        self.names: tuple[str, ...] = (
            tuple(compiled.positiontup or ()) if compiled.positional else ()
        )
        #: the statement's own literals ('aborted', false, the kinds), bound as parameters
        self.fixed = {k: v for k, v in compiled.params.items() if k[:1] not in ("r", "l")}

    def params(self, ids: Sequence[str]) -> Any:
        values = dict(self.fixed)
        values.update({f"r{i}": f for i, f in enumerate(ids)})
        values.update({f"l{i}": f for i, f in enumerate(ids)})
        return tuple(values[n] for n in self.names) if self.positional else values


class ReadLookup:
    """The compiled lookups of one engine's dialect, by id count."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._compiled: dict[int, _Compiled] = {}
        self._lock = threading.Lock()
        self._errors: type[Exception] = dialect.loaded_dbapi.Error

    def _get(self, n: int) -> _Compiled:
        found = self._compiled.get(n)
        if found is None:
            found = _Compiled(n, self._dialect)
            with self._lock:
                self._compiled[n] = found
        return found

    def run(
        self, conn: Connection, fact_ids: Sequence[str]
    ) -> tuple[dict[str, LedgerRecord], list[LinkRow]]:
        """The newest non-aborted row of each of ``fact_ids`` (with its active-quarantine flag)
        and the change-entry links of the same ids in log order, read in ``conn``'s transaction.
        At most :data:`MAX_IDS` distinct ids."""
        wanted = list(dict.fromkeys(fact_ids))
        if not wanted:
            return {}, []
        if len(wanted) > MAX_IDS:
            raise ValueError("too many ids for one lookup")
        compiled = self._get(len(wanted))
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        cursor = dbapi.cursor()
        try:
            cursor.execute(compiled.sql, compiled.params(wanted))
            fetched = cursor.fetchall()
        except self._errors as exc:
            raise LedgerError(f"ledger operation failed: {type(exc).__name__}") from exc
        finally:
            cursor.close()
        records: dict[str, LedgerRecord] = {}
        links: list[LinkRow] = []
        for kind, fid, version, state, rdigest, cdigest, record, purged, quar, seq, leaf in fetched:
            if kind == 0:
                current = records.get(fid)
                if current is None or version > current.version:
                    records[str(fid)] = LedgerRecord(
                        str(fid), int(version), FactState(state), rdigest, cdigest, record,
                        bool(purged), bool(quar),
                    )  # fmt: skip
            else:
                links.append((str(fid), int(seq), bytes(leaf) if leaf is not None else None))
        return records, links
