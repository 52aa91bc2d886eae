"""What adoption reads from a legacy store, and the owner mapping the user gives.

A :class:`LegacyRow` is one record of a legacy store (a Qdrant point, a LangGraph item, a SQL
row) with the source's own id. :class:`OwnerMapping` names its owner: a payload field or column
(``fields``), or a position in a LangGraph namespace (``namespace_index``), plus the issuer the
owner's tokens come from (a principal is always (issuer, subject)). Fail closed: a row whose
owner is missing, ambiguous (two different values, a list of several) or not a safe identifier
gets a skip reason and is never adopted under a default owner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memguard.errors import IdentityError, InvalidRequest
from memguard.identity import PrincipalId, check_identifier

__all__ = ["AdoptReport", "LegacyRow", "OwnerMapping", "Skip", "lookup"]

#: skip reasons (stable codes; the report counts rows by them)
Skip = str


@dataclass(frozen=True, slots=True)
class LegacyRow:
    """One record of a legacy store: ``key`` is the source's own id (stable across runs),
    ``record`` the payload / value / columns, ``path`` a LangGraph namespace."""

    key: str
    record: Mapping[str, Any]
    path: tuple[str, ...] = ()
    vector: Sequence[float] | None = None


def lookup(record: Mapping[str, Any], dotted: str) -> Any:
    """``record["a"]["b"]`` for ``"a.b"`` (a key that itself holds a dot wins); ``None`` when
    absent."""
    if dotted in record:
        return record[dotted]
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


@dataclass(frozen=True, slots=True)
class OwnerMapping:
    """Where a row's owner is: ``fields`` (payload fields or columns, dotted paths; when several
    are given, the ones present must agree) or ``namespace_index`` (the element of a LangGraph
    namespace). ``issuer`` is the owner's token issuer. ``subjects`` optionally maps a stored
    value to the subject (a value it does not list is skipped, not adopted)."""

    issuer: str
    fields: tuple[str, ...] = ()
    namespace_index: int | None = None
    subjects: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if bool(self.fields) == (self.namespace_index is not None):
            raise InvalidRequest("give the owner as payload fields/columns or a namespace index")
        if self.namespace_index is not None and self.namespace_index < 0:
            raise InvalidRequest("the namespace index counts from 0")
        try:
            check_identifier(self.issuer, "owner issuer")
        except IdentityError:
            raise InvalidRequest("the owner issuer is not a safe identifier") from None

    def describe(self) -> str:
        if self.namespace_index is not None:
            return f"namespace[{self.namespace_index}] @ {self.issuer}"
        return f"{' | '.join(self.fields)} @ {self.issuer}"

    def owner_of(self, row: LegacyRow) -> PrincipalId | Skip:
        """The row's owner, or the reason it has none (``owner.missing``, ``owner.ambiguous``,
        ``owner.invalid``, ``owner.unmapped``)."""
        values: list[object] = []
        if self.namespace_index is not None:
            if len(row.path) > self.namespace_index:
                values.append(row.path[self.namespace_index])
        else:
            for name in self.fields:
                value = lookup(row.record, name)
                if isinstance(value, list | tuple):
                    if len(value) > 1:
                        return "owner.ambiguous"
                    value = value[0] if value else None
                if value is None or value == "":
                    continue
                values.append(value)
        if not values:
            return "owner.missing"
        distinct = {(type(v).__name__, v) if isinstance(v, str | int) else (None, id(v))
                    for v in values}  # fmt: skip
        if len(distinct) > 1:
            return "owner.ambiguous"
        value = values[0]
        if isinstance(value, bool) or not isinstance(value, str | int):
            return "owner.invalid"
        subject = str(value)
        if self.subjects is not None:
            if subject not in self.subjects:
                return "owner.unmapped"
            subject = self.subjects[subject]
        try:
            check_identifier(subject, "owner subject")
        except IdentityError:
            return "owner.invalid"
        return PrincipalId(issuer=self.issuer, subject=subject)


@dataclass
class AdoptReport:
    """What an adoption did (or, with ``dry_run``, would do)."""

    source: str
    dry_run: bool
    seen: int = 0
    adopted: int = 0
    already: int = 0
    batches: int = 0
    owners: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    #: (source key, reason) of the first skipped rows, for the operator to fix the mapping
    examples: list[tuple[str, str]] = field(default_factory=list)

    def skip(self, key: str, reason: Skip) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if len(self.examples) < 20:
            self.examples.append((key, reason))

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dry_run": self.dry_run,
            "seen": self.seen,
            "adopted": self.adopted,
            "already_adopted": self.already,
            "batches": self.batches,
            "owners": dict(sorted(self.owners.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "skipped_examples": [{"key": k, "reason": r} for k, r in self.examples],
        }

    def text(self) -> str:
        verb = "would adopt" if self.dry_run else "adopted"
        lines = [
            f"{self.source}: {self.seen} rows seen, {verb} {self.adopted}, "
            f"{self.already} adopted before, {sum(self.skipped.values())} skipped"
        ]
        lines += [f"  owner {o}: {n}" for o, n in sorted(self.owners.items())]
        lines += [f"  skipped {r}: {n}" for r, n in sorted(self.skipped.items())]
        lines += [f"    e.g. {k}: {r}" for k, r in self.examples[:5]]
        return "\n".join(lines)
