"""The read path finds a fact's operations in a change entry by scanning its canonical text
(memguard/ledger/entries.py) instead of parsing all of it: on real ledgers the scan gives exactly
what the full parse gives (names, and each fact's operations in order), also when caller text in
the rows spells the pattern it scans for; anything laid out otherwise takes the full parse."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from memguard import FactInput, Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.entries import _parse_full, parse_entry
from memguard.revocation import RevocationSelector
from memguard.stores.memory import InMemoryStore

#: caller text that spells the scanned pattern (escaped in canonical JSON, so never matched)
TRAP = 'x"},{"key":{"fact_id":"evil","version":1},"op":"put"} ,"fact_ids":["evil"]}'


@pytest.fixture
def guard(ledger_url: str, tmp_path: Path) -> Iterator[MemoryGuard]:
    tokens = LocalTokenService(tmp_path / "keys")
    made = MemoryGuard(store=InMemoryStore(dimension=8), ledger=Ledger.from_url(ledger_url),
                       verifier=tokens.verifier(), revocation_ttl=0)  # fmt: skip
    made.test_me = made.authenticate(tokens.issue("alice"))  # type: ignore[attr-defined]
    yield made
    made.close()


def _entries(ledger: Ledger) -> list[str]:
    with ledger.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT event FROM mg_audit_event WHERE action = :a ORDER BY seq"), {"a": CHANGE_ACTION}
        ).scalars().all()
    return [str(r) for r in rows]


def test_the_scan_gives_what_the_full_parse_gives(guard: MemoryGuard) -> None:
    me = guard.test_me  # type: ignore[attr-defined]
    src = Source(kind=SourceKind.USER_MESSAGE, uri=f"https://example.com/{TRAP}")
    batch = guard.write_many(me, [
        FactInput(text=f"fact {i} {TRAP}", namespace="n", source=src,
                  turn=Turn(session_id=f"s{TRAP}", turn_index=i), metadata={"k": TRAP})
        for i in range(20)
    ])  # fmt: skip
    ids = [r.fact_id for r in batch]
    guard.update(me, ids[0], "changed", source=src, turn=Turn(session_id="s", turn_index=30))
    guard.delete(me, ids[1])
    guard.revoke(None, RevocationSelector.fact(ids[2]), reason="bad", operator="ops")
    entries = _entries(guard.ledger)
    assert len(entries) >= 5
    scanned_ops = 0
    for raw in entries:
        scanned, full = parse_entry(raw), _parse_full(raw)
        assert scanned is not None and full is not None and full.parsed is not None
        assert scanned.parsed is None  # the scan, not the fallback
        assert scanned.names == full.names
        assert set(scanned.at) == set(full.parsed)
        for fact_id, ops in full.parsed.items():
            assert scanned.ops(fact_id) == ops
            scanned_ops += len(ops)
        assert "evil" not in scanned.at and "evil" not in scanned.names
    assert scanned_ops >= 20 * 2 + 3  # staged and committed, plus the update, delete, quarantine
    # and the read path still serves the facts, verified against these entries
    found = {f.fact_id for f in guard.search(me, "fact", k=50)}
    assert set(ids[3:]) <= found and ids[1] not in found and ids[2] not in found
    assert guard.get(me, ids[5])


def _entry(fact_ids: list[str], ops: list[dict[str, object]], **extra: object) -> str:
    ev = {"action": CHANGE_ACTION, "decision": "allow", "detail": {"ops": ops}, "event_id": "e",
          "fact_ids": fact_ids, "reason": "fact.commit", "ts": "2026-01-01T00:00:00+00:00", **extra}  # fmt: skip
    return json.dumps(ev, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _op(fact_id: str) -> dict[str, object]:
    return {"key": {"fact_id": fact_id, "version": 1}, "op": "set", "row": {"state": "committed"},
            "t": "mg_provenance"}  # fmt: skip


def test_other_layouts_take_the_full_parse() -> None:
    plain = _entry(["a"], [_op("a")])
    scanned = parse_entry(plain)
    assert scanned is not None and scanned.parsed is None and scanned.ops("a") == [_op("a")]
    # a later key holding its own "fact_ids": the outermost list is not the last one found
    nested = _entry(["a"], [_op("a")], zz={"a": 1, "fact_ids": ["b"]})
    got = parse_entry(nested)
    assert got is not None and got.parsed is not None and got.names == frozenset({"a"})
    # not a change entry: no names, as before
    other = json.dumps({"action": "search", "fact_ids": ["a"]}, sort_keys=True, separators=(",", ":"))
    got = parse_entry(other)
    assert got is not None and got.parsed is not None and got.names == frozenset()
    assert parse_entry("not json") is None and parse_entry("[1]") is None
