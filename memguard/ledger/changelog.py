"""Change entries: every change to a projection table is logged, in the same transaction.

The tables the guard reads (``mg_provenance``, ``mg_lineage``, ``mg_revocation``,
``mg_quarantine``, ``mg_turn_read``, ``mg_ledger_meta``) are projections of the audit log: each
transaction that inserts or updates their rows also appends one audit event with action
:data:`CHANGE_ACTION` whose ``detail["ops"]`` lists the rows it wrote, column by column (long text
columns by SHA-256). The event is a leaf of the Merkle tree like any other, so the signed log
fixes the projection: :mod:`memguard.ledger.replay` rebuilds every row from these entries and
compares it with the table.

An op is ``{"t": table, "op": "put" | "set" | "del", "key": {pk column: value}, "row": {column:
value}}``: ``put`` is a whole new row, ``set`` the columns an update changed, ``del`` a row removed
(only ``memguard ledger repair`` removes rows).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Table, update
from sqlalchemy.sql.elements import ColumnElement

from memguard.events import AuditEvent, Decision
from memguard.ledger.tables import (
    LedgerMetaRow,
    LineageRow,
    ProvenanceRow,
    QuarantineRow,
    RevocationRow,
    TurnReadRow,
)

__all__ = [
    "CHANGE_ACTION",
    "PROJECTIONS",
    "ChangeSet",
    "encode_row",
    "encode_value",
    "key_of",
]

#: the action of change entries; :meth:`Ledger.events` and friends leave them out
CHANGE_ACTION = "ledger.change"

#: table name -> table, for every projection table the change log fixes
PROJECTIONS: dict[str, Table] = {
    t.name: t
    for t in (
        ProvenanceRow.__table__,  # type: ignore[attr-defined]
        LineageRow.__table__,  # type: ignore[attr-defined]
        RevocationRow.__table__,  # type: ignore[attr-defined]
        QuarantineRow.__table__,  # type: ignore[attr-defined]
        TurnReadRow.__table__,  # type: ignore[attr-defined]
        LedgerMetaRow.__table__,  # type: ignore[attr-defined]
    )
}

#: the column naming the fact a row belongs to, for the tables the read path checks
_FACT_COLUMN = {"mg_provenance": "fact_id", "mg_quarantine": "fact_id", "mg_lineage": "child_id"}

#: columns logged by digest (their value is long and already fixed by another digest column)
DIGESTED = frozenset({("mg_provenance", "record")})


def encode_value(table: str, column: str, value: Any) -> Any:
    """A column value as JSON, the same whether it was just written or read back from SQLite or
    PostgreSQL (datetimes in UTC ISO form, long text by ``sha256:`` digest)."""
    if value is None:
        return None
    if (table, column) in DIGESTED:
        return "sha256:" + hashlib.sha256(str(value).encode("utf-8")).hexdigest()
    if isinstance(value, datetime):
        if value.tzinfo is None:  # SQLite hands back naive datetimes; they were written in UTC
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat()
    if isinstance(value, bool | int | float | str):
        return value
    return str(value)


#: values :func:`encode_value` hands back as they are (exact types: an enum or other subclass
#: takes the full path)
_PLAIN = frozenset({str, int, float, bool})
_layouts: dict[Table, tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]] = {}


def _layout(table: Table) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    """A table's column names, primary key names and digested columns (computed once)."""
    got = _layouts.get(table)
    if got is None:
        got = _layouts[table] = (
            tuple(c.name for c in table.columns),
            tuple(c.name for c in table.primary_key),
            frozenset(c for t, c in DIGESTED if t == table.name),
        )
    return got


def _encode(table: Table, names: Sequence[str], row: Mapping[str, Any]) -> dict[str, Any]:
    """``{name: encode_value(...)}`` over ``names``, with the common cases (null, and plain
    scalars of a column not logged by digest) inline: a batch encodes thousands of values."""
    digested = _layout(table)[2]
    out: dict[str, Any] = {}
    for name in names:
        value = row.get(name)
        if value is None or (type(value) in _PLAIN and name not in digested):
            out[name] = value
        else:
            out[name] = encode_value(table.name, name, value)
    return out


def encode_row(table: Table, row: Mapping[str, Any]) -> dict[str, Any]:
    return _encode(table, _layout(table)[0], row)


def key_of(table: Table, row: Mapping[str, Any]) -> dict[str, Any]:
    return _encode(table, _layout(table)[1], row)


class ChangeSet:
    """The ops of one transaction; :meth:`flush` writes them as one change entry."""

    def __init__(self, reason: str = "projection") -> None:
        self.reason = reason
        self.ops: list[dict[str, Any]] = []
        self.fact_ids: dict[str, None] = {}

    def _facts(self, table: Table, row: Mapping[str, Any]) -> None:
        """Link the entry to the facts whose rows it writes (``mg_audit_fact`` and
        ``mg_change_fact``), so the read path finds a fact's entries by index. Not turn reads:
        every read would add one."""
        column = _FACT_COLUMN.get(table.name)
        value = row.get(column) if column is not None else None
        if isinstance(value, str):
            self.fact_ids[value] = None

    def put(self, table: Table, rows: Iterable[Mapping[str, Any]]) -> None:
        names, pk, _ = _layout(table)
        for row in rows:
            encoded = _encode(table, names, row)
            key = {name: encoded[name] for name in pk}  # the same values key_of gives
            self.ops.append({"t": table.name, "op": "put", "key": key, "row": encoded})
            self._facts(table, row)

    def put_encoded(self, table: Table, rows: Iterable[dict[str, Any]]) -> None:
        """:meth:`put` of rows that are encoded already: every column, with the values
        :func:`encode_row` gives (the ledger's ``begin`` builds them from values it has: the
        record's ``record_digest`` is the digest of its text, tests/test_writeforms.py)."""
        pk = _layout(table)[1]
        for row in rows:
            self.ops.append({"t": table.name, "op": "put", "key": {n: row[n] for n in pk}, "row": row})
            self._facts(table, row)

    def set(
        self, table: Table, keys: Iterable[Mapping[str, Any]], values: Mapping[str, Any]
    ) -> None:
        encoded = {k: encode_value(table.name, k, v) for k, v in values.items()}
        for key in keys:
            self.ops.append(
                {"t": table.name, "op": "set", "key": key_of(table, key), "row": dict(encoded)}
            )
            self._facts(table, key)

    def delete(self, table: Table, keys: Iterable[Mapping[str, Any]]) -> None:
        for key in keys:
            self.ops.append({"t": table.name, "op": "del", "key": key_of(table, key), "row": {}})
            self._facts(table, key)

    def update(
        self, conn: Connection, table: Table, where: ColumnElement[bool], values: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        """Run ``UPDATE table SET values WHERE where`` and log exactly the rows it changed
        (``RETURNING`` their keys); returns those keys."""
        pk = list(table.primary_key)
        result = conn.execute(update(table).where(where).values(**values).returning(*pk))
        keys = [dict(r._mapping) for r in result]
        self.set(table, keys, values)
        return keys

    def event(self) -> AuditEvent | None:
        if not self.ops:
            return None
        return AuditEvent(
            action=CHANGE_ACTION,
            decision=Decision.ALLOW,
            reason=self.reason,
            fact_ids=tuple(self.fact_ids),
            detail={"ops": self.ops},
        )


def ops_of(detail: Any) -> Sequence[Mapping[str, Any]]:
    if not isinstance(detail, Mapping):  # an entry edited around the log: verify names it
        return []
    ops = detail.get("ops")
    return ops if isinstance(ops, list) else []
