"""Scope condition -> a SQLAlchemy WHERE clause (SQLite and PostgreSQL).

Layout (see :func:`fact_tables`): one row per fact in ``<prefix>_facts`` with a nullable column per
scalar field, and list-valued fields (:data:`~memguard.scope.LIST_FIELDS`, e.g. ``tags``) as rows of a
side table ``<prefix>_fact_values(fact_id, field, value_str, value_int)``: an atom on a list field is an
``EXISTS`` over its rows (any element matches), and a missing list is one with no rows. A side table,
not a JSON column, because it is portable (SQLite and PostgreSQL) and indexable.

Over the normal form (:mod:`memguard.pushdown.normal`). SQL's NULL logic would let
``NOT (col = 'x')`` drop or keep rows differently from the reference semantics, so every ``Not``
carries an existence guard (``IS NOT NULL`` / ``EXISTS``) for its field and ``Exists`` is that guard;
inside a guard every comparison is two-valued. Columns are typed (``BIGINT``, ``VARCHAR``) and
:func:`fact_rows` refuses a value outside its field's domain, so no stored value is mistyped and
the translation is exact on every row; integers are compared as ``BIGINT``, exactly.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import (
    BigInteger,
    Column,
    ColumnElement,
    ForeignKey,
    Index,
    MetaData,
    String,
    Table,
    and_,
    exists,
    false,
    not_,
    or_,
    select,
    true,
)

from memguard.errors import UntranslatableCondition
from memguard.pushdown.normal import NormalForm, normalize
from memguard.scope import (
    FIELDS,
    LIST_FIELDS,
    And,
    Condition,
    Eq,
    Exists,
    FieldValue,
    Gte,
    In,
    Not,
    Or,
    typed_values,
)

__all__ = ["SqlFactTables", "fact_rows", "fact_tables", "to_sql_where"]


class SqlFactTables:
    """The two tables a SQL fact store keeps the indexed fields in."""

    def __init__(self, facts: Table, values: Table) -> None:
        self.facts = facts
        self.values = values


def fact_tables(metadata: MetaData, prefix: str = "memguard") -> SqlFactTables:
    """Define the facts table and the list-values side table on ``metadata``."""
    cols: list[Column[object]] = [Column("fact_id", String(255), primary_key=True)]
    for name, kind in FIELDS.items():
        if name == "fact_id" or name in LIST_FIELDS:
            continue
        cols.append(Column(name, BigInteger if kind is int else String(1024), nullable=True))
    facts = Table(f"{prefix}_facts", metadata, *cols)
    values = Table(
        f"{prefix}_fact_values",
        metadata,
        Column("fact_id", String(255), ForeignKey(f"{prefix}_facts.fact_id"), nullable=False),
        Column("field", String(64), nullable=False),
        Column("value_str", String(1024), nullable=True),
        Column("value_int", BigInteger, nullable=True),
        Index(f"ix_{prefix}_fact_values_str", "field", "value_str"),
        Index(f"ix_{prefix}_fact_values_int", "field", "value_int"),
    )
    return SqlFactTables(facts, values)


class _Translator:
    def __init__(self, tables: SqlFactTables) -> None:
        self.t = tables

    def _rows(self, name: str, *where: ColumnElement[bool]) -> ColumnElement[bool]:
        v = self.t.values.c
        return exists(
            select(v.fact_id).where(v.fact_id == self.t.facts.c.fact_id, v.field == name, *where)
        )

    def present(self, name: str) -> ColumnElement[bool]:
        if name in LIST_FIELDS:
            return self._rows(name)
        return self.t.facts.c[name].is_not(None)

    def match(self, name: str, values: list[str | int]) -> ColumnElement[bool]:
        """Any element of field ``name`` equals one of ``values`` (normalized: of the field's type)."""
        if name in LIST_FIELDS:
            col = self.t.values.c.value_int if FIELDS[name] is int else self.t.values.c.value_str
            return self._rows(name, col == values[0] if len(values) == 1 else col.in_(values))
        c = self.t.facts.c[name]
        return c == values[0] if len(values) == 1 else c.in_(values)

    def gte(self, name: str, value: int) -> ColumnElement[bool]:
        if name in LIST_FIELDS:
            return self._rows(name, self.t.values.c.value_int >= value)
        return self.t.facts.c[name] >= value

    def atom(self, cond: Condition) -> ColumnElement[bool]:
        match cond:
            case Eq(name, value):
                return self.match(name, [value])
            case In(name, values):
                return self.match(name, list(values))
            case Gte(name, value):
                return self.gte(name, value)
        raise UntranslatableCondition("not a normalized atom")  # pragma: no cover

    def __call__(self, cond: Condition) -> ColumnElement[bool]:
        match cond:
            case Eq() | In() | Gte():
                return self.atom(cond)
            case Exists(name):
                return self.present(name)
            case Not(item):
                return and_(self.present(item.field), not_(self.atom(item)))  # type: ignore[union-attr]
            case And(items):
                return and_(*(self(i) for i in items))
            case Or(items):
                return or_(*(self(i) for i in items))
        raise UntranslatableCondition("not a normalized condition")  # pragma: no cover


def to_sql_where(cond: NormalForm, tables: SqlFactTables) -> ColumnElement[bool]:
    """The WHERE clause over ``tables.facts`` that selects exactly the facts ``cond`` admits."""
    normal = normalize(cond)
    if normal is True:
        return true()
    if normal is False:
        return false()
    return _Translator(tables)(normal)


def fact_rows(
    fact_id: str, fields: Mapping[str, FieldValue]
) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The facts-table row and the side-table rows that store one fact's indexed fields."""
    row: dict[str, object] = {"fact_id": fact_id}
    values: list[dict[str, object]] = []
    for name, kind in FIELDS.items():
        if name == "fact_id":
            continue
        value = fields.get(name)
        items = typed_values(name, value)
        if items is None and value is not None and value != []:
            # stored values stay in their domain (a type, a range, a set of values): a
            # comparison in the WHERE clause then means exactly what the reference says
            raise ValueError(f"field `{name}` holds a value outside its domain")
        if name in LIST_FIELDS:
            col = "value_int" if kind is int else "value_str"
            values.extend({"fact_id": fact_id, "field": name, col: item} for item in items or ())
            continue
        row[name] = items[0] if items else None
    return row, values
