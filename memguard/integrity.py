"""Does what a backend returned still match its ledger row? (Content edited outside memguard does not.)

A backend hands the guard a :class:`Candidate`: the fact id it holds, a digest of the content it
returned (computed by the adapter from what it actually read) and, for backends that keep one, its
copy of memguard's reserved block (indexed fields, record digest, full record). The guard serves the
fact only if :func:`candidate_problem` finds nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from memguard.ledger.records import _parse
from memguard.provenance import Provenance, canonical_json, content_digest, sha256_digest
from memguard.scope import (
    Condition,
    FieldValue,
    PlanKind,
    ScopePlan,
    evaluate,
    fields_of,
    index_fields,
)
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
    "plan_admits",
    "record_fields",
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


def payload_candidate(
    fact_id: str, payload: Mapping[str, Any], score: float | None = None
) -> Candidate:
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
        try:
            held = reserved.get("record")
            # the guard's stores keep the record's canonical text (stores/base.py): its bytes
            # must be exactly the digested ones; older payloads and adapters keep the object
            raw = held.encode("utf-8") if type(held) is str else canonical_json(held)
            if sha256_digest(raw) != record.record_digest:
                return "integrity.record_mismatch"
        except (TypeError, ValueError):
            return "integrity.malformed_payload"
    if candidate.content_digest != prov.content_digest:
        return "integrity.content_mismatch"
    if expect_reserved and isinstance(reserved, Mapping):
        expected = fields if fields is not None else index_fields(prov)
        for key, value in expected.items():
            got = reserved.get(key)
            # the type too: 4.0 or True equal 4 in Python but are other values to an engine's
            # filter (a match on an integer field, a range over a boolean), as in canonical JSON
            if type(got) is type(value) and got == value:
                continue
            if (key == "trust" and record.quarantined and type(got) is int
                    and got == int(TrustLevel.QUARANTINED)):  # fmt: skip
                continue
            return "integrity.index_mismatch"
        if reserved.get("record_digest") != record.record_digest:
            return "integrity.record_mismatch"
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
    if logged.record != _text_digest(record.record):
        return "integrity.record_mismatch"
    if logged.quarantined != record.quarantined:
        return "integrity.quarantine_mismatch"
    return None


@functools.lru_cache(maxsize=4096)
def _text_digest(text: str) -> str:
    """``sha256:`` of a record text. A pure function of the text; a read compares each hit's row
    with the log twice (the ledger's wider-links check, then :func:`ledger_problem` in the
    kernel), and the same text object hashes once."""
    return sha256_digest(text.encode("utf-8"))


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


@functools.lru_cache(maxsize=8192)
def record_fields(record: str) -> Mapping[str, FieldValue]:
    """``index_fields`` of the provenance a record text holds, read-only. A pure function of the
    text (as its parse, :func:`memguard.ledger.records._parse`): the read path needs it for every
    hit (the payload compare and the plan check), and a fact read again costs a lookup."""
    return MappingProxyType(index_fields(_parse(record)))


def plan_admits(plan: ScopePlan, fields: Mapping[str, FieldValue]) -> bool:
    """``plan.allows(fields)``, remembered for a residual plan per (condition, the values of the
    fields the condition mentions) (8,192 kept): the evaluation reads nothing else
    (:func:`memguard.scope.evaluate` looks up only the fields named by the condition's atoms), and
    facts read by one caller mostly share those values (owner, namespace, trust, source kind),
    so a search's hits are decided by a lookup even when each fact is read for the first time.

    Both halves of the key keep what Python's ``==`` would blur. The condition is keyed by its
    ``repr``: ``Eq("trust", 4)``, ``Eq("trust", 4.0)`` and ``Eq("trust", True)`` are equal (and
    hash alike) in Python but are different conditions (a literal of the wrong type is unknown,
    so never a match); it is computed once per condition object (a plan's condition is reused for
    every hit of a read). Each field value is keyed with its type (a stored ``4.0`` or ``True`` is
    a mistyped trust, ``4`` is not), a list as a tuple of typed items (``["a"]`` is not ``"a"``),
    an absent field as absent (not ``None``)."""
    condition = plan.condition
    if plan.kind is not PlanKind.RESIDUAL or condition is None:
        return plan.allows(fields)
    held = _CONDITION_KEYS.get(id(condition))
    if held is None or held[0] is not condition:
        if len(_CONDITION_KEYS) >= _MAX_CONDITIONS:
            _CONDITION_KEYS.clear()
        held = (condition, repr(condition), tuple(sorted(set(fields_of(condition)))))
        _CONDITION_KEYS[id(condition)] = held  # holds the object: its id is not reused meanwhile
    key = (held[1], tuple(_typed(fields.get(name, _ABSENT)) for name in held[2]))
    try:
        verdict = _VERDICTS.get(key)
    except TypeError:  # an unhashable value (never in a ledger record's fields): no cache
        return evaluate(condition, fields)
    if verdict is None:
        verdict = evaluate(condition, fields)
        if len(_VERDICTS) >= _MAX_VERDICTS:
            _VERDICTS.clear()
        _VERDICTS[key] = verdict
    return verdict


_ABSENT = object()


def _typed(value: object) -> object:
    """A field value as a key that equals another only for the same value of the same type."""
    if type(value) is list:
        return (list, tuple((type(item), item) for item in value))
    return (type(value), value)


_MAX_CONDITIONS, _MAX_VERDICTS = 1024, 8192
#: condition object id -> (the object, its repr, the fields it mentions); verdicts by (condition
#: repr, the typed values of those fields)
_CONDITION_KEYS: dict[int, tuple[Condition, str, tuple[str, ...]]] = {}
_VERDICTS: dict[tuple[str, tuple[object, ...]], bool] = {}
