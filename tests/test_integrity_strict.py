"""The read path's compare of a store's copy of a provenance record with the ledger's row
(memguard/integrity.py, ``candidate_problem``) must see every difference of the JSON value,
including those plain ``==`` cannot see: ``1`` / ``1.0`` / ``True``, ``0.0`` / ``-0.0``, Unicode
normalisation variants, extra and missing keys, null vs empty. Pinned on real records (qdrant-edge,
SQLite), by the function and through a search (withheld, alarmed). Any faster compare must keep
these passing (a type-aware compare was tried and measured slower: docs/benchmarks.md)."""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memguard import FactNotFound, MemoryGuard, Source, SourceKind, Turn, open_embedded
from memguard.embedded import EmbeddedStack
from memguard.integrity import candidate_problem, payload_candidate
from memguard.ledger import LedgerRecord
from memguard.provenance import canonical_json
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint
from memguard.stores.edge import QdrantEdgeStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


# -- through a real guard (qdrant-edge, SQLite) ----------------------------------------------


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[EmbeddedStack]:
    s = open_embedded(tmp_path / "state")  # with the scanner: the record holds a float score
    yield s
    s.close()


def _payload(stack: EmbeddedStack, fact_id: str) -> dict[str, Any]:
    (point,) = stack.guard.store.retrieve([fact_id])
    return copy.deepcopy(dict(point.payload))


def _tamper(record: dict[str, Any], change: str) -> None:
    if change in ("pretty printed", "keys reordered"):
        return  # the same JSON value: only its text changes (_layout)
    if change == "turn_index as float":
        record["turn"]["turn_index"] = float(record["turn"]["turn_index"])
    elif change == "version as bool":
        record["version"] = True
    elif change == "score as negative zero":
        record["scan"]["score"] = -0.0
    elif change == "trust_reason NFKC variant":  # a fullwidth letter: the same text under NFKC
        reason = record["trust_reason"]
        record["trust_reason"] = reason.replace("u", "\uff55", 1)
        assert unicodedata.normalize("NFKC", record["trust_reason"]) == reason
    elif change == "extra key":
        record["endorsed"] = True
    elif change == "missing key":
        del record["trust_reason"]
    elif change == "null as empty string":
        record["source"]["uri"] = ""
    elif change == "bool as int":
        record["scan"]["refused"] = 0
    elif change == "float as int":
        record["scan"]["score"] = 0
    elif change == "int as bool":
        record["turn"]["turn_index"] = True
    else:  # pragma: no cover
        raise AssertionError(change)


CHANGES = ["turn_index as float", "version as bool", "score as negative zero", "trust_reason NFKC variant",
           "extra key", "missing key", "null as empty string", "bool as int", "float as int",
           "int as bool"]  # fmt: skip
#: changes only a record kept as text can have: the same JSON value in other bytes
TEXT_ONLY = ["pretty printed", "keys reordered"]
#: the record as the guard's stores keep it now (its canonical text), and as stores written
#: before kept it (a nested object); both are read and checked
LAYOUTS = ["text", "object"]
CASES = [(layout, change) for layout in LAYOUTS for change in CHANGES] + [
    ("text", change) for change in TEXT_ONLY
]


def _layout(payload: dict[str, Any], layout: str, change: str | None = None) -> dict[str, Any]:
    """A copy of a store payload with its record in ``layout``, changed by ``change``."""
    out = copy.deepcopy(payload)
    reserved = out[RESERVED_PAYLOAD_KEY]
    held = reserved["record"]
    assert isinstance(held, str)  # what build_payload writes now
    assert canonical_json(json.loads(held)).decode("utf-8") == held
    record = json.loads(held)
    if change is not None:
        _tamper(record, change)
    if layout == "object":
        reserved["record"] = record
    elif change == "pretty printed":
        reserved["record"] = json.dumps(record, sort_keys=True, indent=1, ensure_ascii=False)
    elif change == "keys reordered":
        reserved["record"] = json.dumps(dict(reversed(record.items())), separators=(",", ":"),
                                        ensure_ascii=False)  # fmt: skip
    else:  # the change, canonically serialized: the forger's best effort
        reserved["record"] = canonical_json(record).decode("utf-8")
    return out


def _write(guard: MemoryGuard, who: Any, text: str) -> Any:
    return guard.write(who, text, namespace="notes", source=SRC,
                       turn=Turn(session_id="s", turn_index=1))  # fmt: skip


@pytest.mark.parametrize(("layout", "change"), CASES)
def test_candidate_problem_sees_each_change(stack: EmbeddedStack, layout: str, change: str) -> None:
    guard = stack.guard
    me = guard.authenticate(stack.tokens.issue("alice"))
    prov = _write(guard, me, "alice's café order")
    record: LedgerRecord = guard.ledger.latest([prov.fact_id])[prov.fact_id]
    payload = _layout(_payload(stack, prov.fact_id), layout)
    tampered = _layout(payload if layout == "text" else _payload(stack, prov.fact_id), layout, change)
    assert repr(tampered) != repr(payload)  # (`==` cannot tell 1 from True)
    for _ in range(3):  # the same verdicts each time (no cache answers for the copy)
        problem = candidate_problem(payload_candidate(prov.fact_id, tampered), record, prov)
        assert problem == "integrity.record_mismatch"
        assert candidate_problem(payload_candidate(prov.fact_id, payload), record, prov) is None


@pytest.mark.parametrize(("layout", "change"), CASES)
def test_a_tampered_copy_is_withheld_and_alarmed_on_search(
    stack: EmbeddedStack, layout: str, change: str
) -> None:
    guard = stack.guard
    me = guard.authenticate(stack.tokens.issue("alice"))
    victim = _write(guard, me, "alice's café order is a flat white")
    for _ in range(3):  # the row text is parsed and kept: the read path's fast compare
        assert [h.fact_id for h in guard.search(me, "café order", k=5)] == [victim.fact_id]
    assert isinstance(guard.store, QdrantEdgeStore)
    vector = guard.store.vectors([victim.fact_id])[victim.fact_id]
    written = _payload(stack, victim.fact_id)
    if layout == "object":  # a store written before: its untampered copy is served
        older = _layout(written, layout)
        guard.store.upsert([StoredPoint(victim.fact_id, older, vector)])
        assert [h.fact_id for h in guard.search(me, "café order", k=5)] == [victim.fact_id]
    payload = _layout(written, layout, change)
    guard.store.upsert([StoredPoint(victim.fact_id, payload, vector)])  # behind the guard
    assert guard.search(me, "café order", k=5) == []
    alarms = [ev.reason for _, ev, _ in guard.ledger.events_for(victim.fact_id)
              if ev.decision.value == "alarm"]  # fmt: skip
    assert "integrity.record_mismatch" in alarms
    with pytest.raises(FactNotFound):
        guard.get(me, victim.fact_id)
