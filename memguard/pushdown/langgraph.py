"""Scope condition -> LangGraph ``BaseStore`` filters, and the exact merge of their results.

LangGraph's filter language is one dict per search: for each value key, ``$eq $ne $gt $gte $lt $lte``,
all ANDed, one of each operator per key. It has no ``or``, and ``InMemoryStore`` compares ``$gt``-style
operators through ``float()``. So:

- **layout** (the adapter's, see ``docs/adapters/langgraph.md``): each indexed field is a top-level value
  key ``__memguard_<field>``; integers are fixed-width text ``f"{v + 10**14:015d}"`` (text order is
  number order, and ``float()`` of it is exact); ``tags`` is never stored (so every atom on it is
  false); every field but ``workload_id``, ``tags`` and ``lineage_trust`` is present on every item the
  guard writes;
- **one query per conjunction**: the normal form's disjunctive form (:func:`~memguard.pushdown.normal.dnf`),
  with ``In`` fanned out per value and a negated integer split into ranges, at most
  :data:`MAX_QUERIES` queries; results are merged by :class:`Merge` (by score, deduplicated by item,
  offset and limit applied to the merged order);
- **what cannot be expressed** raises :class:`~memguard.errors.UntranslatableCondition`: a negation on a
  string field that may be missing (``workload_id``) or that excludes two values in one conjunction
  (``$ne`` is one value per key), a string range, more than :data:`MAX_QUERIES` queries.
  ``memguard policy validate`` reports it, and a policy set that needs it does not load for a
  LangGraph store (see :mod:`memguard.policy.capability`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Generic, Protocol, TypeVar

from memguard.errors import InvalidRequest, UntranslatableCondition
from memguard.pushdown.normal import Literal, NormalForm, dnf, fold
from memguard.scope import DOMAINS, EXACT_INT, FIELDS, Eq, Exists, FieldValue, Gte, In, Not

__all__ = [
    "ABSENT",
    "ALWAYS_PRESENT",
    "INT_FIELDS",
    "MAX_QUERIES",
    "RESERVED_PREFIX",
    "Merge",
    "decode",
    "encode",
    "to_langgraph_filters",
]

#: Top-level value keys only memguard writes.
RESERVED_PREFIX: Final = "__memguard_"
INT_FIELDS: Final = frozenset(name for name, kind in FIELDS.items() if kind is int)
#: Fields the adapter never stores (an atom on them is false on every guard-written item).
ABSENT: Final = frozenset({"tags"})
#: Fields with a non-null value on every item the guard writes (a ``$ne`` on them needs no guard).
ALWAYS_PRESENT: Final = frozenset(FIELDS) - {"workload_id", "tags", "lineage_trust"}
#: At most this many inner queries for one search.
MAX_QUERIES: Final = 32
_OFFSET: Final = EXACT_INT  # ints are stored as f"{v + offset:015d}": text order == number order


def encode(name: str, value: Any) -> Any:
    """A field's value as the adapter stores it (integers as order-preserving fixed-width text)."""
    if name in INT_FIELDS and type(value) is int:
        return f"{value + _OFFSET:015d}"
    return value


def decode(name: str, value: Any) -> Any:
    """The inverse of :func:`encode` (a malformed stored value is returned as it is)."""
    if name in INT_FIELDS and isinstance(value, str):
        try:
            return int(value) - _OFFSET
        except ValueError:
            return value
    return value


# -- translation -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Key:
    """What one conjunction says about one field."""

    eq: set[Any] = field(default_factory=set)
    ne: set[Any] = field(default_factory=set)
    lo: int | None = None  # integers: inclusive lower bound
    hi: int | None = None  # integers: exclusive upper bound

    def add(self, piece: _Key) -> None:
        self.eq |= piece.eq
        self.ne |= piece.ne
        if piece.lo is not None:
            self.lo = piece.lo if self.lo is None else max(self.lo, piece.lo)
        if piece.hi is not None:
            self.hi = piece.hi if self.hi is None else min(self.hi, piece.hi)


class _Empty(Exception):
    """The conjunction selects nothing."""


def _alternatives(lit: Literal) -> list[tuple[str, _Key]]:
    """One literal as alternatives (any of which may hold) of a constraint on one field."""
    match lit:
        case Eq(f, v):
            return [(f, _Key(eq={v}))]
        case In(f, vs):
            return [(f, _Key(eq={v})) for v in vs]
        case Gte(f, v):
            return [(f, _Key(lo=v))]
        case Exists(f):
            return [(f, _Key())]
        case Not(Gte(f, v)):
            return [(f, _Key(hi=v))]
        case Not(Eq(f, v)):
            return _excluded(f, [v])
        case Not(In(f, vs)):
            return _excluded(f, list(vs))
    raise UntranslatableCondition("not a normalized literal")  # pragma: no cover


def _excluded(f: str, values: list[Any]) -> list[tuple[str, _Key]]:
    if f not in INT_FIELDS:
        return [(f, _Key(ne=set(values)))]
    # an integer outside a set of values: the ranges between them (each with a presence test)
    out: list[tuple[str, _Key]] = []
    lo: int | None = None
    for v in sorted(set(values)):
        out.append((f, _Key(lo=lo, hi=v)))
        lo = v + 1
    out.append((f, _Key(lo=lo)))
    return out


def _filter(term: Sequence[tuple[str, _Key]]) -> dict[str, dict[str, Any]]:
    keys: dict[str, _Key] = {}
    for name, piece in term:
        keys.setdefault(name, _Key()).add(piece)
    out: dict[str, dict[str, Any]] = {}
    for name, k in keys.items():
        if len(k.eq) > 1 or (k.eq & k.ne):
            raise _Empty
        ops: dict[str, Any] = {}
        if name in INT_FIELDS:
            domain = DOMAINS[name]
            lo = max(k.lo if k.lo is not None else domain.low, domain.low)
            hi = min(k.hi if k.hi is not None else domain.high + 1, domain.high + 1)
            if k.eq:
                (v,) = k.eq
                lo, hi = max(lo, v), min(hi, v + 1)
            if lo >= hi:
                raise _Empty
            if hi == lo + 1:
                ops["$eq"] = encode(name, lo)
            else:
                # `$ne: None` first: a missing key fails here, before InMemoryStore's float(None)
                ops["$ne"] = None
                if lo > domain.low:
                    ops["$gte"] = encode(name, lo)
                if hi <= domain.high:
                    ops["$lt"] = encode(name, hi)
        elif k.eq:
            ops["$eq"] = next(iter(k.eq))
        elif k.ne:
            if len(k.ne) > 1:
                raise UntranslatableCondition(
                    f"`{name}` excludes several values at once: LangGraph filters take one `$ne` per key"
                )
            if name not in ALWAYS_PRESENT:
                raise UntranslatableCondition(
                    f"a negation on `{name}`, which may be missing, has no LangGraph filter"
                )
            ops["$ne"] = next(iter(k.ne))
        else:
            ops["$ne"] = None  # present
        out[RESERVED_PREFIX + name] = ops
    return out


def to_langgraph_filters(
    cond: NormalForm, known: Mapping[str, FieldValue] | None = None
) -> list[dict[str, dict[str, Any]]]:
    """The filters whose results' union is exactly what ``cond`` admits in the adapter's layout.

    ``known``: fields fixed for every item searched (the owner, by the tenant partition). ``[]``
    admits nothing, ``[{}]`` everything.
    """
    folded = fold(cond, {**{f: None for f in ABSENT}, **(known or {})})
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for term in dnf(folded, MAX_QUERIES):
        choices = [_alternatives(lit) for lit in term]
        count = 1
        for c in choices:
            count *= len(c)
        if count > MAX_QUERIES:
            raise UntranslatableCondition(f"the scope needs more than {MAX_QUERIES} queries")
        for combo in itertools.product(*choices):
            try:
                flt = _filter(combo)
            except _Empty:
                continue
            out.setdefault(repr(sorted((k, sorted(v.items())) for k, v in flt.items())), flt)
            if len(out) > MAX_QUERIES:
                raise UntranslatableCondition(f"the scope needs more than {MAX_QUERIES} queries")
    return list(out.values())


# -- merging the results of several queries ----------------------------------------------------------


class Item(Protocol):
    """What :class:`Merge` needs of a search result (LangGraph's ``SearchItem`` has it)."""

    @property
    def namespace(self) -> tuple[str, ...]: ...

    @property
    def key(self) -> str: ...

    @property
    def score(self) -> float | None: ...

    @property
    def updated_at(self) -> datetime: ...


T = TypeVar("T", bound=Item)


@dataclass(slots=True)
class _Stream(Generic[T]):
    items: list[T] = field(default_factory=list)  # fetched, not yet merged
    position: int = 0  # how many the store has returned so far
    exhausted: bool = False


class Merge(Generic[T]):
    """The results of one query per filter, merged into the order one query would have given.

    With a ranked query (scores): a k-way merge by score (descending; unscored last), then by
    filter and position, each item once. The merged prefix is final as soon as every stream that
    is not exhausted has an item waiting, so pages are fetched lazily. Without scores, the order
    across streams is not recoverable from the results: every stream is read to the end (at most
    ``cap`` items each, else :class:`~memguard.errors.InvalidRequest`) and the union is ordered by
    most recently updated, then namespace and key. One stream is passed through in store order.

    Sans-I/O: :meth:`wanted` says which pages to fetch, :meth:`feed` takes them, :meth:`ready` hands
    out the items whose place in the merged order is final.
    """

    def __init__(self, streams: int, *, ranked: bool, page: int, cap: int = 10_000) -> None:
        if streams < 1:
            raise ValueError("at least one stream")
        self._streams: list[_Stream[T]] = [_Stream() for _ in range(streams)]
        self._ranked = ranked or streams == 1
        self._page = max(page, 1)
        self._cap = cap
        self._seen: set[tuple[tuple[str, ...], str]] = set()
        self._rank: dict[tuple[tuple[str, ...], str], tuple[int, int]] = {}
        self._sorted = False

    @property
    def done(self) -> bool:
        return all(s.exhausted and not s.items for s in self._streams)

    def wanted(self, more: int) -> list[tuple[int, int, int]]:
        """``(stream, offset, limit)`` of each page to fetch now (``more``: items still needed)."""
        size = max(self._page, more)
        out = []
        for i, s in enumerate(self._streams):
            if s.exhausted:
                continue
            if self._ranked and s.items:
                continue
            if not self._ranked:
                size = max(size, 1000)
            out.append((i, s.position, size))
        self._page = max(more, 1) * 2  # later pages: twice what is still missing
        return out

    def feed(self, stream: int, items: Sequence[T], asked: int) -> None:
        s = self._streams[stream]
        for pos, item in enumerate(items, start=s.position):
            self._rank.setdefault((tuple(item.namespace), item.key), (stream, pos))
        s.items.extend(items)
        s.position += len(items)
        if len(items) < asked:
            s.exhausted = True
        if not self._ranked and s.position > self._cap:
            raise InvalidRequest(
                f"a search without a query that needs several store queries reads at most "
                f"{self._cap} items of each; give a query or narrow the namespace"
            )

    def _key(self, stream: int, item: T) -> tuple[float, int, int]:
        where = self._rank[(tuple(item.namespace), item.key)]
        score = item.score
        return (-score if score is not None else float("inf"), where[0], where[1])

    def ready(self) -> list[T]:
        """The next items in merged order whose place is final (``[]``: fetch more, or done)."""
        out: list[T] = []
        if not self._ranked:
            if not all(s.exhausted for s in self._streams):
                return out
            everything = [i for s in self._streams for i in s.items]
            for s in self._streams:
                s.items = []
            everything.sort(key=lambda i: (-i.updated_at.timestamp(), tuple(i.namespace), i.key))
            return self._unique(everything)
        while True:
            if any(not s.exhausted and not s.items for s in self._streams):
                return out  # a stream must be read further before the next place is final
            heads = [(self._key(i, s.items[0]), i) for i, s in enumerate(self._streams) if s.items]
            if not heads:
                return out
            _, best = min(heads)
            out.extend(self._unique([self._streams[best].items.pop(0)]))

    def _unique(self, items: Iterable[T]) -> list[T]:
        out = []
        for item in items:
            ident = (tuple(item.namespace), item.key)
            if ident in self._seen:
                continue
            self._seen.add(ident)
            out.append(item)
        return out
