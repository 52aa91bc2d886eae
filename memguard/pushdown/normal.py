"""The one normal form of a scope condition, and the one fold every translator starts from.

:func:`normalize` turns any :data:`~memguard.scope.Condition` into an equivalent one (under
:func:`memguard.scope.evaluate`, on every fact) in negation normal form over *literals*:

- ``Eq``/``In``/``Gte`` whose literals have the field's type and lie in its domain;
- ``Not`` around one such atom (present, well-typed, and the atom is false);
- ``Exists`` (present and well-typed);
- ``And``/``Or`` of those, flattened, without duplicates, or the constants ``True``/``False``.

On the way every comparison the store cannot decide exactly is folded to a constant:

- a literal of the wrong type (a string compared with a number) makes the atom *unknown*: the atom
  and its negation are both ``False``;
- an integer outside the field's domain (:data:`~memguard.scope.EXACT_INT`, trust ``0..6``) is
  folded: ``Gte(f, v)`` with ``v`` below the domain is ``Exists(f)``, above it ``False``; ``Eq`` with
  it is ``False``, its negation ``Exists(f)``. No translator ever sees an integer it would round;
- a negation excluding several values of a field with a closed set of values (``source_kind``)
  becomes the positive ``In`` of the other values;
- ``Not`` around a compound becomes existence guards plus the negation pushed down to the atoms.

Malformed conditions (an unknown field, an empty ``In``/``And``/``Or``, a literal that is not a
string or an integer) raise :class:`~memguard.errors.UntranslatableCondition`: refused, never
guessed.

In the normal form every literal is two-valued (definitely true or not), so :func:`fold`, which
partially evaluates it with the fields a store fixes for every point it holds (the tenant's owner,
a collection's namespace), is exact; :func:`dnf` lists the conjunctions for stores without ``or``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from memguard.errors import UntranslatableCondition
from memguard.scope import (
    DOMAINS,
    And,
    Atom,
    Condition,
    Eq,
    Exists,
    FieldValue,
    Gte,
    In,
    Not,
    Or,
    evaluate,
    fields_of,
)

__all__ = ["Literal", "NormalForm", "conj", "disj", "dnf", "fold", "literal_field", "normalize"]

#: A normalized condition: a condition in the normal form above, or a constant.
NormalForm = Condition | bool
#: One literal of the normal form.
Literal = Eq | In | Gte | Exists | Not


def _flat(
    items: Iterable[NormalForm], kind: type[And] | type[Or], unit: bool
) -> list[Condition] | bool:
    """The parts of an ``And`` (``unit`` ``True``) or ``Or`` (``unit`` ``False``) of normal forms,
    flattened and without duplicates; the absorbing constant if one occurs, ``unit`` if empty."""
    out: dict[Condition, None] = {}
    for item in items:
        if item is (not unit):
            return not unit
        if item is unit:
            continue
        assert not isinstance(item, bool)
        if type(item) is kind:
            out.update(dict.fromkeys(item.items))
        else:
            out[item] = None
    return list(out) if out else unit


def conj(items: Iterable[NormalForm]) -> NormalForm:
    """``And`` of normal forms: flattened, constants folded, duplicates and implied literals dropped
    (``Exists(f)`` beside another literal on ``f``; of several lower bounds on one field the
    highest, of several upper bounds the lowest)."""
    kept = _flat(items, And, True)
    if isinstance(kept, bool):
        return kept
    if len(kept) > 1:
        bounds, exists = 0, False
        for p in kept:
            t = type(p)
            if t is Exists:
                exists = True
                break
            if t is Gte or (t is Not and type(p.item) is Gte):  # type: ignore[union-attr]
                bounds += 1
        if exists or bounds > 1:
            kept = _tighten(kept)
    return kept[0] if len(kept) == 1 else And(tuple(kept))


def _tighten(parts: list[Condition]) -> list[Condition]:
    lows: dict[str, int] = {}
    highs: dict[str, int] = {}
    named: set[str | None] = set()
    for p in parts:
        if type(p) is Gte:
            lows[p.field] = max(lows.get(p.field, p.value), p.value)
        elif type(p) is Not and type(p.item) is Gte:
            highs[p.item.field] = min(highs.get(p.item.field, p.item.value), p.item.value)
        if type(p) is not Exists:
            named.add(literal_field(p))
    out: list[Condition] = []
    for p in parts:
        if type(p) is Exists and p.field in named:
            continue  # implied by another literal on the field
        if type(p) is Gte and p.value != lows[p.field]:
            continue  # a lower bound below the highest one
        if type(p) is Not and type(p.item) is Gte and p.item.value != highs[p.item.field]:
            continue  # an upper bound above the lowest one
        out.append(p)
    return out


def disj(items: Iterable[NormalForm]) -> NormalForm:
    """``Or`` of normal forms: flattened, constants folded, duplicates dropped."""
    kept = _flat(items, Or, False)
    if isinstance(kept, bool):
        return kept
    return kept[0] if len(kept) == 1 else Or(tuple(kept))


def literal_field(literal: Condition) -> str | None:
    """The field of a literal (``None`` for a compound)."""
    match literal:
        case Eq(f, _) | In(f, _) | Gte(f, _) | Exists(f):
            return f
        case Not(item):
            return literal_field(item)
    return None


def _domain(name: object) -> None:
    if not isinstance(name, str) or name not in DOMAINS:
        raise UntranslatableCondition("the scope names a field the store does not index")


def _literal(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise UntranslatableCondition("scope values must be strings or integers")


def _values(f: str, values: Sequence[object]) -> tuple[list[str | int], bool]:
    """(the literals of the field's type inside its domain, whether any literal had another type)."""
    domain = DOMAINS[f]
    if not values:
        raise UntranslatableCondition("empty `in` list")
    good: dict[str | int, None] = {}
    mistyped = False
    for v in values:
        _literal(v)
        if not domain.literal_ok(v):
            mistyped = True
        elif domain.accepts(v):
            good[v] = None  # type: ignore[index]
    return list(good), mistyped


def _members(f: str, values: list[str | int]) -> NormalForm:
    if not values:
        return False
    return Eq(f, values[0]) if len(values) == 1 else In(f, tuple(values))


def _positive(cond: Condition) -> NormalForm:
    """The normal form of "``cond`` is definitely true"."""
    match cond:
        case Eq(f, v):
            _domain(f)
            domain = DOMAINS[f]
            if type(v) is domain.kind and domain.accepts(v):
                return cond  # already normal
            good, _ = _values(f, [v])
            return _members(f, good)
        case In(f, vs):
            _domain(f)
            good, _ = _values(f, vs)
            if len(good) == len(vs) > 1:
                return cond  # already normal
            return _members(f, good)  # a mistyped value can only be unknown: never true
        case Gte(f, v):
            _domain(f)
            _literal(v)
            domain = DOMAINS[f]
            if type(v) is not int or domain.kind is not int:
                return False  # a type mismatch: unknown
            if v <= domain.low:
                return Exists(f)
            if v > domain.high:
                return False
            return cond
        case Exists(f):
            _domain(f)
            return Exists(f)
        case And(items):
            if not items:
                raise UntranslatableCondition("empty `and`")
            return conj(
                [_positive(i) for i in items]
            )  # all of it: a malformed part anywhere is refused
        case Or(items):
            if not items:
                raise UntranslatableCondition("empty `or`")
            return disj([_positive(i) for i in items])
        case Not(item):
            names = sorted(set(fields_of(item)))
            for name in names:
                _domain(name)
            return conj([*(Exists(n) for n in names), _negative(item)])
    raise UntranslatableCondition(f"unsupported condition `{type(cond).__name__}`")


def _negative(cond: Condition) -> NormalForm:
    """The normal form of "``cond`` is definitely false", given its fields present and well-typed."""
    match cond:
        case Eq(f, v):
            return _negative(In(f, (v,)))
        case In(f, vs):
            _domain(f)
            good, mistyped = _values(f, vs)
            if mistyped:
                return False  # "not (x or unknown)" is never definitely true
            domain = DOMAINS[f]
            if domain.values is not None and not domain.is_list and len(good) > 1:
                # a closed set of values excluding several: the positive rest (a store with one
                # `!=` per field, LangGraph, can then take it)
                return _members(f, sorted(domain.values - set(map(str, good))))
            if not good:
                return True  # no stored value can equal a literal outside the domain
            atom: Atom = Eq(f, good[0]) if len(good) == 1 else In(f, tuple(good))
            return Not(atom)
        case Gte(f, v):
            _domain(f)
            _literal(v)
            domain = DOMAINS[f]
            if type(v) is not int or domain.kind is not int:
                return False
            if v <= domain.low:
                return False
            if v > domain.high:
                return True
            return Not(Gte(f, v))
        case Exists(f):
            _domain(f)
            return False
        case And(items):
            if not items:
                raise UntranslatableCondition("empty `and`")
            return disj([_negative(i) for i in items])
        case Or(items):
            if not items:
                raise UntranslatableCondition("empty `or`")
            return conj([_negative(i) for i in items])
        case Not(item):
            return _positive(item)  # its fields are present: "not not x" is "x"
    raise UntranslatableCondition(f"unsupported condition `{type(cond).__name__}`")


def normalize(cond: NormalForm) -> NormalForm:
    """The normal form of ``cond`` (constants pass through)."""
    if isinstance(cond, bool):
        return cond
    return _positive(cond)


def fold(
    cond: NormalForm,
    known: Mapping[str, FieldValue] | None = None,
    *,
    present: Iterable[str] = (),
) -> NormalForm:
    """Normalize ``cond``, then decide what a store fixes for every point it holds.

    ``known``: fields with one value on every point (``None``: absent on every point), e.g. the
    owner fields in a tenant partition. ``present``: fields present and well-typed on every point
    the guard wrote (``Exists`` on them is ``True``). Exact for those points; a point that breaks
    the assumption was not written by the guard and fails verification anyway.
    """
    normal = normalize(cond)
    if isinstance(normal, bool):
        return normal
    return _fold(normal, dict(known or {}), frozenset(present))


def _fold(cond: Condition, known: dict[str, FieldValue], present: frozenset[str]) -> NormalForm:
    match cond:
        case And(items):
            return conj(_fold(i, known, present) for i in items)
        case Or(items):
            return disj(_fold(i, known, present) for i in items)
        case Exists(f) if f in present and f not in known:
            return True
    name = literal_field(cond)
    if name is not None and name in known:
        return evaluate(cond, {name: known[name]})
    return cond


def dnf(cond: NormalForm, limit: int) -> list[tuple[Literal, ...]]:
    """The conjunctions (of literals) whose disjunction is ``cond``; ``[]`` for ``False``, ``[()]``
    for ``True``. More than ``limit`` conjunctions raise :class:`UntranslatableCondition`."""
    normal = normalize(cond)
    terms = _dnf(normal, limit)
    out: list[tuple[Literal, ...]] = []
    seen: set[frozenset[Literal]] = set()
    for term in terms:
        key = frozenset(term)
        if key not in seen:
            seen.add(key)
            out.append(tuple(dict.fromkeys(term)))
    return out


def _dnf(cond: NormalForm, limit: int) -> list[list[Literal]]:
    if cond is True:
        return [[]]
    if cond is False:
        return []
    match cond:
        case Or(items):
            out: list[list[Literal]] = []
            for item in items:
                out.extend(_dnf(item, limit))
                if len(out) > limit:
                    raise UntranslatableCondition(f"the scope needs more than {limit} queries")
            return out
        case And(items):
            acc: list[list[Literal]] = [[]]
            for item in items:
                parts = _dnf(item, limit)
                if len(acc) * len(parts) > limit:
                    raise UntranslatableCondition(f"the scope needs more than {limit} queries")
                acc = [a + p for a in acc for p in parts]
            return acc
        case Eq() | In() | Gte() | Exists() | Not():
            return [[cond]]
    raise UntranslatableCondition(
        f"unsupported condition `{type(cond).__name__}`"
    )  # pragma: no cover
