"""The read path compares a store's copy of a provenance record with the ledger's row by a strict,
type-aware comparison (memguard/integrity.py: ``same_json`` and its fast path) instead of
serialising and hashing the copy on every hit. It must be exactly as strict as comparing canonical
JSON texts: these tests hold it to that definition on generated values and on the tampering
variants that plain ``==`` cannot see (``1`` / ``1.0`` / ``True``, ``0.0`` / ``-0.0``, Unicode
normalisation forms, extra and missing keys), then through a real guard on qdrant-edge."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memguard import FactNotFound, MemoryGuard, Source, SourceKind, Turn, open_embedded
from memguard.embedded import EmbeddedStack
from memguard.integrity import (
    _EXPECTED,
    _MATCHED_ONCE,
    _expected_record,
    _same_record,
    candidate_problem,
    payload_candidate,
    same_json,
)
from memguard.ledger import LedgerRecord
from memguard.provenance import canonical_json
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint
from memguard.stores.edge import QdrantEdgeStore

SRC = Source(kind=SourceKind.USER_MESSAGE)


def _canonical_verdict(got: object, expected: object) -> bool | None:
    """The definition: equal canonical texts (``None``: ``got`` does not serialise)."""
    try:
        text = canonical_json(got)
    except (TypeError, ValueError):
        return None
    return text == canonical_json(expected)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 0.0, -0.0, 1.0, True, False, "1", "", "é", "e\u0301"]),
    st.text(max_size=6),
)
_json_like = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "c", "é", "e\u0301"]), inner, max_size=4),
    ),
    max_leaves=12,
)


def _strict_json(value: object) -> bool:
    """Serialisable, finite, with string keys only (the one corner where the comparison is
    stricter than the texts: serialising turns a key ``1`` into ``"1"``)."""
    try:
        canonical_json(value)
    except (TypeError, ValueError):
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _strict_json(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_strict_json(v) for v in value)
    return True


@settings(max_examples=400, deadline=None)
@given(expected=_json_like, got=_json_like)
def test_same_json_is_the_equality_of_canonical_texts(expected: object, got: object) -> None:
    if not _strict_json(expected):
        return
    expected = json.loads(canonical_json(expected))  # what a ledger row's text parses to
    assert same_json(got, expected) == _canonical_verdict(got, expected)
    # and a value is always the same as itself, and as its own parsed text
    if _strict_json(got):
        assert same_json(got, json.loads(canonical_json(got))) is True


@settings(max_examples=300, deadline=None)
@given(value=_json_like, tweak=_json_like)
def test_the_fast_path_agrees_with_the_walk(value: object, tweak: object) -> None:
    """``_same_record`` (``==`` then a type check per node) against ``same_json`` on records
    that differ from the row in one generated place."""
    if not _strict_json(value) or not _strict_json(tweak):
        return
    row = {"x": json.loads(canonical_json(value)), "y": [1, 0.5, True, None, "s"]}
    expected = _expected_record(canonical_json(row).decode())
    assert expected is not None
    for got in (
        copy.deepcopy(row),
        {**row, "x": tweak},
        {**row, "z": tweak},
        {"x": value, "y": row["y"]},
        {"x": row["x"], "y": [1, 0.5, True, None, tweak]},
    ):
        assert _same_record(got, expected) == same_json(got, expected.value)
        assert _same_record(got, expected) == _canonical_verdict(got, expected.value)


ROW: dict[str, Any] = {
    "version": 1,
    "score": 0.0,
    "ratio": 0.5,
    "refused": False,
    "name": "caf\u00e9",
    "items": ["a", 2],
    "nested": {"n": 1, "none": None},
}

# (what is changed, the tampered copy): each one must be a difference
VARIANTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "int as float": lambda r: r.update(version=1.0),
    "int as bool": lambda r: r.update(version=True),
    "bool as int": lambda r: r.update(refused=0),
    "bool as float": lambda r: r.update(refused=0.0),
    "float as int": lambda r: r.update(score=0),
    "float as bool": lambda r: r.update(score=False),
    "zero as negative zero": lambda r: r.update(score=-0.0),
    "float nearby": lambda r: r.update(ratio=math.nextafter(0.5, 1.0)),
    "nested int as float": lambda r: r["nested"].update(n=1.0),
    "list int as bool": lambda r: r["items"].__setitem__(1, 2.0),
    "NFD": lambda r: r.update(name=unicodedata.normalize("NFD", r["name"])),
    "NFKC of a ligature": lambda r: r.update(name="\ufb01"),
    "extra key": lambda r: r.update(extra=None),
    "extra nested key": lambda r: r["nested"].update(more=1),
    "missing key": lambda r: r.pop("refused"),
    "missing null": lambda r: r["nested"].pop("none"),
    "null as empty string": lambda r: r["nested"].update(none=""),
    "string as number": lambda r: r["items"].__setitem__(1, "2"),
    "list as object": lambda r: r.update(items={"0": "a", "1": 2}),
    "shorter list": lambda r: r["items"].pop(),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_is_a_difference(variant: str) -> None:
    expected = _expected_record(canonical_json(ROW).decode())
    assert expected is not None
    assert _same_record(copy.deepcopy(ROW), expected) is True
    got = copy.deepcopy(ROW)
    VARIANTS[variant](got)
    assert _same_record(got, expected) is False
    assert same_json(got, expected.value) is False


@pytest.mark.parametrize(
    "bad", [float("nan"), float("inf"), b"bytes", {1, 2}, object(), {1: "int key"}]
)
def test_what_does_not_serialise_is_malformed(bad: object) -> None:
    expected = _expected_record(canonical_json(ROW).decode())
    assert expected is not None
    for place in ("score", "extra"):
        got = {**copy.deepcopy(ROW), place: bad}
        assert _same_record(got, expected) is None
    assert _same_record({**copy.deepcopy(ROW), "items": ["a", bad]}, expected) is None


def test_a_tuple_is_an_array_as_it_serialises() -> None:
    expected = _expected_record(canonical_json(ROW).decode())
    assert expected is not None
    assert _same_record({**copy.deepcopy(ROW), "items": ("a", 2)}, expected) is True


def test_a_row_whose_text_is_not_canonical_or_not_its_digest_never_matches() -> None:
    """The compare trusts the row's text only when it is canonical and its digest is the row's:
    a row re-serialised with spaces, or with a digest column that disagrees, is a mismatch even
    when the store's copy equals it."""
    assert _expected_record(json.dumps(ROW)) is None  # spaces after separators
    assert _expected_record(canonical_json(ROW).decode() + " ") is None
    assert _expected_record("[1]") is None


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
    else:  # pragma: no cover
        raise AssertionError(change)


CHANGES = ["turn_index as float", "version as bool", "score as negative zero", "trust_reason NFKC variant",
           "extra key"]  # fmt: skip


def _write(guard: MemoryGuard, who: Any, text: str) -> Any:
    return guard.write(who, text, namespace="notes", source=SRC,
                       turn=Turn(session_id="s", turn_index=1))  # fmt: skip


@pytest.mark.parametrize("change", CHANGES)
def test_candidate_problem_sees_each_change(stack: EmbeddedStack, change: str) -> None:
    guard = stack.guard
    me = guard.authenticate(stack.tokens.issue("alice"))
    prov = _write(guard, me, "alice's café order")
    record: LedgerRecord = guard.ledger.latest([prov.fact_id])[prov.fact_id]
    payload = _payload(stack, prov.fact_id)
    tampered = copy.deepcopy(payload)
    _tamper(tampered[RESERVED_PAYLOAD_KEY]["record"], change)
    # the first sighting of a row text (serialise and compare), then the kept parse (the fast
    # path and the walk): the same verdicts
    _EXPECTED.pop(record.record, None)
    _MATCHED_ONCE.pop(record.record, None)
    for sighting in range(3):
        assert (record.record in _EXPECTED) == (sighting == 2)
        problem = candidate_problem(payload_candidate(prov.fact_id, tampered), record, prov)
        assert problem == "integrity.record_mismatch"
        assert candidate_problem(payload_candidate(prov.fact_id, payload), record, prov) is None
    assert record.record in _EXPECTED
    forged_digest = dataclasses.replace(record, record_digest="sha256:" + "0" * 64)
    assert candidate_problem(payload_candidate(prov.fact_id, payload), forged_digest, prov) == (
        "integrity.record_mismatch"
    )


@pytest.mark.parametrize("change", CHANGES)
def test_a_tampered_copy_is_withheld_and_alarmed_on_search(stack: EmbeddedStack, change: str) -> None:
    guard = stack.guard
    me = guard.authenticate(stack.tokens.issue("alice"))
    victim = _write(guard, me, "alice's café order is a flat white")
    for _ in range(3):  # the row text is parsed and kept: the read path's fast compare
        assert [h.fact_id for h in guard.search(me, "café order", k=5)] == [victim.fact_id]
    payload = _payload(stack, victim.fact_id)
    _tamper(payload[RESERVED_PAYLOAD_KEY]["record"], change)
    assert isinstance(guard.store, QdrantEdgeStore)
    vector = guard.store.vectors([victim.fact_id])[victim.fact_id]
    guard.store.upsert([StoredPoint(victim.fact_id, payload, vector)])  # behind the guard
    assert guard.search(me, "café order", k=5) == []
    alarms = [ev.reason for _, ev, _ in guard.ledger.events_for(victim.fact_id)
              if ev.decision.value == "alarm"]  # fmt: skip
    assert "integrity.record_mismatch" in alarms
    with pytest.raises(FactNotFound):
        guard.get(me, victim.fact_id)
