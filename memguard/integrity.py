"""Does what a backend returned still match its ledger row? (Content edited outside memguard does not.)

A backend hands the guard a :class:`Candidate`: the fact id it holds, a digest of the content it
returned (computed by the adapter from what it actually read) and, for backends that keep one, its
copy of memguard's reserved block (indexed fields, record digest, full record). The guard serves the
fact only if :func:`candidate_problem` finds nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memguard.provenance import Provenance, canonical_json, content_digest, sha256_digest
from memguard.scope import index_fields
from memguard.stores.base import RESERVED_PAYLOAD_KEY
from memguard.trust import TrustLevel

if TYPE_CHECKING:  # the ledger checks store points with this module: types only, no import cycle
    from memguard.ledger import LedgerRecord
    from memguard.ledger.replay import LoggedHead

__all__ = [
    "Candidate",
    "candidate_problem",
    "ledger_problem",
    "payload_candidate",
    "payload_problem",
    "staged_problem",
]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One fact as a backend returned it.

    ``content_digest`` is ``None`` when the returned content could not be digested (malformed);
    ``reserved`` is the backend's copy of the reserved block, or ``None`` for backends that keep
    provenance only in the ledger. ``payload`` is what the adapter returns to its caller.
    """

    fact_id: str
    content_digest: str | None
    reserved: Mapping[str, Any] | None = None
    score: float | None = None
    payload: Mapping[str, Any] | None = None


def payload_candidate(fact_id: str, payload: Mapping[str, Any], score: float | None = None) -> Candidate:
    """A :class:`Candidate` from a guard-layout payload (``text``, ``metadata``, ``memguard``)."""
    text, metadata = payload.get("text"), payload.get("metadata")
    digest: str | None = None
    if isinstance(text, str) and isinstance(metadata, dict):
        try:
            digest = content_digest(text, metadata)
        except (TypeError, ValueError):
            digest = None
    reserved = payload.get(RESERVED_PAYLOAD_KEY)
    return Candidate(
        fact_id,
        digest,
        reserved if isinstance(reserved, Mapping) else {},
        score,
        payload,
    )


def candidate_problem(
    candidate: Candidate,
    record: LedgerRecord,
    prov: Provenance,
    *,
    expect_reserved: bool = True,
    fields: Mapping[str, Any] | None = None,
) -> str | None:
    """Why ``candidate`` does not match its ledger row, or ``None`` if it does.

    ``fields``: ``index_fields(prov)`` when the caller has computed it already (the read path
    needs it again for the plan check).

    A quarantined fact's store copy may carry ``trust = quarantined`` in its indexed fields (the
    revocation lowered it there so pushed-down queries skip it); any other index difference is a
    mismatch.
    """
    if candidate.content_digest is None:
        return "integrity.malformed_payload"
    reserved = candidate.reserved
    if expect_reserved:
        if not isinstance(reserved, Mapping) or not reserved:
            return "integrity.malformed_payload"
        problem = _record_problem(reserved.get("record"), record)
        if problem is not None:
            return problem
    if candidate.content_digest != prov.content_digest:
        return "integrity.content_mismatch"
    if expect_reserved and isinstance(reserved, Mapping):
        indexed = fields if fields is not None else index_fields(prov)
        for key, value in indexed.items():
            got = reserved.get(key)
            if got == value:
                continue
            if key == "trust" and record.quarantined and got == int(TrustLevel.QUARANTINED):
                continue
            return "integrity.index_mismatch"
        if reserved.get("record_digest") != record.record_digest:
            return "integrity.record_mismatch"
    return None


@dataclass(frozen=True, slots=True)
class _Expected:
    """A ledger row's record text, parsed, with the digest of the text and every node below the
    top (path, value) for :func:`_same_record`'s type check."""

    value: dict[str, Any]
    digest: str
    nodes: tuple[tuple[tuple[str | int, ...], Any], ...]


def _nodes(value: Any, path: tuple[str | int, ...], out: list[tuple[tuple[str | int, ...], Any]]) -> None:
    """Every node below ``value`` as (path, value), parents before children."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(path, value)]
    while stack:
        where, node = stack.pop()
        if type(node) is dict:
            items: Any = node.items()
        elif type(node) is list:
            items = enumerate(node)
        else:
            continue
        for step, item in items:
            entry = ((*where, step), item)
            out.append(entry)
            stack.append(entry)


def _same_record(got: object, expected: _Expected) -> bool | None:
    """:func:`same_json` of a store's record copy and the row's record, fast when they agree.

    Python's ``==`` (in C) first: it decides every value but not its JSON type (``1 == 1.0 ==
    True``, ``0.0 == -0.0``, a tuple is never equal to a list). When it holds, every node is then
    held to its expected type (and a float to its JSON text), which makes the two canonical texts
    equal; anything else (a difference, a tuple, a malformed value) takes the exact walk."""
    if isinstance(got, dict) and got == expected.value:
        for path, want in expected.nodes:
            node: Any = got
            for step in path:
                node = node[step]
            t = type(want)
            if t is str:
                ok = type(node) is str
            elif t is dict or t is list or t is bool:
                ok = type(node) is t
            elif t is int:
                ok = type(node) is int
            elif t is float:
                ok = type(node) is float and float.__repr__(node) == float.__repr__(want)
            else:
                ok = node is None
            if not ok:
                break
        else:
            return True
    return same_json(got, expected.value)


#: parsed row texts (bounded, oldest out first) and the texts a store copy has matched once
_EXPECTED: dict[str, _Expected] = {}
_MATCHED_ONCE: dict[str, None] = {}
_CACHED = 8192


def _record_problem(got: object, record: LedgerRecord) -> str | None:
    """Why the store's copy of the record (``got``) is not the row's record, or ``None``.

    The definition (what the read path always compared): the canonical serialisation of the
    copy is the row's record text, and that text's digest is the row's ``record_digest``. A
    text seen for the first time is checked so, by serialising the copy. A text whose copy has
    matched twice is parsed once and kept (:func:`_expected_record`); later reads compare the
    copy with it by :func:`_same_record`, which is exactly as strict without serialising or
    hashing anything. (The second sighting, not the first: at 10^5 facts most reads of a
    partition's cold facts would otherwise pay for a parse that is never used again.)"""
    text = record.record
    expected = _EXPECTED.get(text)
    if expected is not None:
        if expected.digest != record.record_digest:
            return "integrity.record_mismatch"
        same = _same_record(got, expected)
        if same is None:
            return "integrity.malformed_payload"
        return None if same else "integrity.record_mismatch"
    try:
        data = canonical_json(got)
    except (TypeError, ValueError):
        return "integrity.malformed_payload"
    raw = text.encode("utf-8")
    if data != raw or sha256_digest(raw) != record.record_digest:
        return "integrity.record_mismatch"
    _remember(text)
    return None


def _remember(text: str) -> None:
    """Count a match of ``text`` (a row text now proven canonical: a serialisation equals it);
    parse and keep it at the second. Bounded: the oldest entry goes first."""
    if text not in _MATCHED_ONCE:
        if len(_MATCHED_ONCE) >= 4 * _CACHED:
            _MATCHED_ONCE.clear()
        _MATCHED_ONCE[text] = None
        return
    expected = _expected_record(text, proven=True)
    if expected is None:  # pragma: no cover - a proven canonical text always parses
        return
    _MATCHED_ONCE.pop(text, None)
    while len(_EXPECTED) >= _CACHED:
        _EXPECTED.pop(next(iter(_EXPECTED)), None)
    _EXPECTED[text] = expected


def _expected_record(text: str, *, proven: bool = False) -> _Expected | None:
    """The record a row's text holds, if the text is in canonical form (``None`` otherwise),
    with the digest of the text and its nodes for :func:`_same_record`. ``proven``: the caller
    has just seen a canonical serialisation equal to ``text`` (it is canonical)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    data = text.encode("utf-8")
    try:
        if not proven and canonical_json(value) != data:
            return None
    except (TypeError, ValueError):  # pragma: no cover - parsed JSON always serializes
        return None
    nodes: list[tuple[tuple[str | int, ...], Any]] = []
    _nodes(value, (), nodes)
    return _Expected(value, sha256_digest(data), tuple(nodes))


def same_json(got: object, expected: object) -> bool | None:
    """Is ``got`` (what a store returned) the very JSON value ``expected`` (parsed from canonical
    text)? ``None``: ``got`` holds something canonical JSON cannot serialise (malformed).

    Exactly the equality of the canonical serialisations, which the read path compared before by
    serialising and hashing the payload on every hit: ``True``, ``1`` and ``1.0`` are three
    different values (a bool is never an int, an int never a float; floats compare by their JSON
    text, so ``-0.0`` is not ``0.0``); strings compare by code points (no Unicode normalisation);
    objects need the same key set; a tuple is an array, as it serialises. Stricter in one corner:
    a non-string object key is malformed (serialising turns ``1`` into ``"1"``). The whole of
    ``got`` is walked even after a difference, so a malformed payload is always reported so.
    """
    t = type(expected)
    if t is dict:
        if not isinstance(got, dict):
            return _differs(got)
        exp: dict[str, Any] = expected  # type: ignore[assignment]
        result = len(got) == len(exp)  # with no key of ``got`` unknown: the same key set
        for key, item in got.items():
            if not isinstance(key, str):
                return None
            want = exp.get(key, _ABSENT)
            same = _differs(item) if want is _ABSENT else same_json(item, want)
            if same is None:
                return None
            result = result and same
        return result
    if t is list:
        if not isinstance(got, list | tuple):
            return _differs(got)
        items: list[Any] = expected  # type: ignore[assignment]
        result = len(got) == len(items)
        for i, item in enumerate(got):
            same = same_json(item, items[i]) if i < len(items) else _differs(item)
            if same is None:
                return None
            result = result and same
        return result
    if t is str:
        return got == expected if isinstance(got, str) else _differs(got)
    if expected is None:
        return True if got is None else _differs(got)
    if t is bool:
        return got is expected if isinstance(got, bool) else _differs(got)
    if t is int:
        if isinstance(got, int) and not isinstance(got, bool):
            if type(got) is int:
                return got == expected
            return int.__repr__(got) == repr(expected)  # how the encoder writes a subclass
        return _differs(got)
    if t is float:
        if isinstance(got, float):
            if not math.isfinite(got):
                return None
            return float.__repr__(got) == float.__repr__(expected)
        return _differs(got)
    return None  # pragma: no cover - ``expected`` came from json.loads


_ABSENT = object()


def _differs(got: object) -> bool | None:
    """``False`` (a different value) if ``got`` is JSON all the way down, else ``None``."""
    if got is None or isinstance(got, str | int):  # bool is an int
        return False
    if isinstance(got, float):
        return False if math.isfinite(got) else None
    if isinstance(got, dict):
        for key, item in got.items():
            if not isinstance(key, str) or _differs(item) is None:
                return None
        return False
    if isinstance(got, list | tuple):
        for item in got:
            if _differs(item) is None:
                return None
        return False
    return None


def payload_problem(
    payload: Mapping[str, Any], record: LedgerRecord, prov: Provenance
) -> str | None:
    """Why a guard-layout store payload does not match its ledger row, or ``None`` if it does."""
    return candidate_problem(payload_candidate(record.fact_id, payload), record, prov)


def ledger_problem(record: LedgerRecord, logged: LoggedHead | None) -> str | None:
    """Why a fact's ledger row does not match what the signed log says its head is, or ``None``.

    A digest compare on every read (no replay): the row's record text against the logged
    ``sha256:`` of it, its version, state and quarantine against the log's; the log entries
    themselves against their leaf hashes. A row written around the log, or edited after it (the
    state, the record with its trust, a lifted quarantine), is an alarm, never served.
    """
    if logged is None or logged.version is None:
        return "integrity.unlogged_row"
    if not logged.intact:
        return "integrity.log_mismatch"
    if (logged.version, logged.state) != (record.version, record.state.value):
        return "integrity.state_mismatch"
    if logged.record != sha256_digest(record.record.encode("utf-8")):
        return "integrity.record_mismatch"
    if logged.quarantined != record.quarantined:
        return "integrity.quarantine_mismatch"
    return None


def staged_problem(record: LedgerRecord, logged: LoggedHead | None) -> str | None:
    """Why a ``pending`` row is not the one the log staged (recovery commits only logged ones)."""
    if logged is None or logged.version is None:
        return "integrity.unlogged_row"
    if not logged.intact:
        return "integrity.log_mismatch"
    if (logged.version, logged.state) != (record.version, "pending"):
        return "integrity.state_mismatch"
    if logged.record != sha256_digest(record.record.encode("utf-8")):
        return "integrity.record_mismatch"
    return None
