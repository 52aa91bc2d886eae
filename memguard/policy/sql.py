"""Translate a scope :data:`~memguard.scope.Condition` into a SQLAlchemy WHERE clause.

Layout (see :func:`fact_tables`): one row per fact in ``<prefix>_facts`` with a nullable column per
scalar field, and list-valued fields (:data:`~memguard.scope.LIST_FIELDS`, e.g. ``tags``) as rows of a
side table ``<prefix>_fact_values(fact_id, field, value_str, value_int)``: an atom on a list field is an
``EXISTS`` over its rows (any element matches), and a missing list is one with no rows. A side table,
not a JSON column, because it is portable (SQLite and PostgreSQL) and indexable.

SQL's NULL logic would let ``NOT (col = 'x')`` drop or keep rows differently from the reference
semantics, so every ``Not`` carries an existence guard (``IS NOT NULL`` / ``EXISTS``) for each field it
mentions; inside a guard every comparison is two-valued. Anything without an exact translation raises
:class:`~memguard.errors.UntranslatableCondition`.
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
)

from memguard.errors import UntranslatableCondition
from memguard.scope import (
    FIELDS,
    LIST_FIELDS,
    And,
    Condition,
    Eq,
    FieldValue,
    Gte,
    In,
    Not,
    Or,
    fields_of,
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


def _scalar(value: object) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise UntranslatableCondition("scope values must be strings or integers")
    return value


def _field(name: str) -> str:
    if name not in FIELDS:
        raise UntranslatableCondition(f"unknown scope field `{name}`")
    return name


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
        """Any element of field ``name`` equals one of ``values`` (compared with the field's type)."""
        kind = FIELDS[name]
        typed = [v for v in values if type(v) is kind]
        if not typed:
            return false()
        if name in LIST_FIELDS:
            col = self.t.values.c.value_int if kind is int else self.t.values.c.value_str
            return self._rows(name, col == typed[0] if len(typed) == 1 else col.in_(typed))
        c = self.t.facts.c[name]
        return c == typed[0] if len(typed) == 1 else c.in_(typed)

    def gte(self, name: str, value: int) -> ColumnElement[bool]:
        if FIELDS[name] is not int:
            return false()
        if name in LIST_FIELDS:
            return self._rows(name, self.t.values.c.value_int >= value)
        return self.t.facts.c[name] >= value

    def __call__(self, cond: Condition) -> ColumnElement[bool]:
        match cond:
            case Eq(name, value):
                return self.match(_field(name), [_scalar(value)])
            case In(name, values):
                if not values:
                    raise UntranslatableCondition("empty `in` list")
                return self.match(_field(name), [_scalar(v) for v in values])
            case Gte(name, value):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise UntranslatableCondition("`gte` needs an integer")
                return self.gte(_field(name), value)
            case And(items):
                if not items:
                    raise UntranslatableCondition("empty `and`")
                return and_(*(self(i) for i in items))
            case Or(items):
                if not items:
                    raise UntranslatableCondition("empty `or`")
                return or_(*(self(i) for i in items))
            case Not(item):
                guards = [self.present(_field(n)) for n in sorted(set(fields_of(item)))]
                return and_(*guards, not_(self(item)))
        raise UntranslatableCondition(f"unsupported condition `{type(cond).__name__}`")


def to_sql_where(cond: Condition, tables: SqlFactTables) -> ColumnElement[bool]:
    """The WHERE clause over ``tables.facts`` that selects exactly the facts ``cond`` admits."""
    return _Translator(tables)(cond)


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
        if name in LIST_FIELDS:
            items = value if isinstance(value, list) else ([] if value is None else [value])
            for item in items:
                if type(item) is not kind:
                    raise ValueError(f"field `{name}` holds a {type(item).__name__}")
                col = "value_int" if kind is int else "value_str"
                values.append({"fact_id": fact_id, "field": name, col: item})
            continue
        if value is not None and (isinstance(value, list) or type(value) is not kind):
            raise ValueError(f"field `{name}` must be a single {kind.__name__}")
        row[name] = value
    return row, values
