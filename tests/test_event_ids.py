"""Audit event ids are time-ordered (UUID version 7) so the ledger's unique index on
``mg_audit_event.event_id`` takes appends, not random-page inserts; ledgers written when event ids
were random (version 4) keep working. Adapters' fact ids (``external_fact_id``) keep their scheme:
facts already stored under them must still resolve."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from memguard import Ledger
from memguard import provenance as provenance_mod
from memguard.context import external_fact_id
from memguard.errors import LedgerError
from memguard.events import AuditEvent


def _event(**kw: object) -> AuditEvent:
    return AuditEvent.model_validate({"action": "read", "decision": "allow", "reason": "ok", **kw})


def test_event_id_is_uuid_version_7() -> None:
    parsed = uuid.UUID(_event().event_id)
    assert parsed.version == 7
    assert parsed.variant == uuid.RFC_4122


def test_event_ids_sort_in_creation_order(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(range(1_700_000_000_000, 1_700_000_000_050))  # one millisecond apart
    monkeypatch.setattr(provenance_mod.time, "time_ns", lambda: next(clock) * 1_000_000)
    ids = [_event().event_id for _ in range(50)]
    assert ids == sorted(ids)
    assert uuid.UUID(ids[0]).int >> 80 == 1_700_000_000_000  # the millisecond leads the id


def test_event_ids_in_one_millisecond_stay_distinct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provenance_mod.time, "time_ns", lambda: 1_700_000_000_000_000_000)
    ids = {_event().event_id for _ in range(10_000)}
    assert len(ids) == 10_000  # 74 random bits per id, not a counter a caller could guess


def test_ledger_keeps_random_and_time_ordered_event_ids(tmp_path: Path) -> None:
    """A ledger with events recorded under version 4 ids (the old scheme) takes new version 7
    ones beside them, and both read back whole."""
    ledger = Ledger.sqlite(tmp_path / "ledger.db", witness=None)
    try:
        old = _event(event_id=str(uuid.uuid4()))
        new = _event()
        ledger.record([old])
        ledger.record([new])
        got = [e.event_id for e in ledger.events()]
        assert got == [old.event_id, new.event_id]
    finally:
        ledger.engine.dispose()


def test_duplicate_event_id_is_refused(tmp_path: Path) -> None:
    """The unique index still holds: a second event under an id already logged is refused, not
    stored beside the first (a replayed or forged event cannot shadow a logged one)."""
    ledger = Ledger.sqlite(tmp_path / "ledger.db", witness=None)
    try:
        first = _event()
        ledger.record([first])
        with pytest.raises(LedgerError):
            ledger.record([_event(event_id=first.event_id, reason="other")])
        assert [e.reason for e in ledger.events()] == ["ok"]
    finally:
        ledger.engine.dispose()


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("qdrant", "memories", "1"), "df39a2d4-c613-50eb-8f7a-4f82a5a8e31f"),
        (
            ("qdrant", "memories", "9b2e6a4c-7f7e-4a83-9f3e-3a1f2c4d5e6f"),
            "bf6a2ff9-b240-5021-a8f1-78d4ea147644",
        ),
        (("mem0", "m-42"), "c861a136-a403-574f-a541-94b3d4af321a"),
        (
            ("langgraph", "mg-tenant", "users/alice", "prefs"),
            "7d95f857-28fd-5969-848c-169e25b17979",
        ),
        (("adopt", "file:///x.jsonl", "row-7"), "74f1d139-4652-520a-9392-4b134628757f"),
    ],
)
def test_external_fact_ids_keep_their_scheme(parts: tuple[str, ...], expected: str) -> None:
    """Pinned values: facts stored by adapters and adopt are keyed by these ids in existing
    stores and ledgers, so a change of scheme would orphan them."""
    assert external_fact_id(*parts) == expected


def test_adapters_ids_are_the_pinned_scheme() -> None:
    """The adapters' own id functions give the pinned ids (a point written before any change
    resolves to the same fact); an integer point id and its string form are one point."""
    qdrant_base = pytest.importorskip("adapters.qdrant.base", reason="qdrant-client not installed")
    from adapters.mem0.base import memory_fact_id
    from memguard.adopt.mem0 import mem0_fact_id

    assert qdrant_base.fact_id_of("memories", 1) == "df39a2d4-c613-50eb-8f7a-4f82a5a8e31f"
    point = "9B2E6A4C-7F7E-4A83-9F3E-3A1F2C4D5E6F"  # Qdrant's canonical form is lower case
    assert qdrant_base.fact_id_of("memories", point) == "bf6a2ff9-b240-5021-a8f1-78d4ea147644"
    assert memory_fact_id("m-42") == mem0_fact_id("m-42") == "c861a136-a403-574f-a541-94b3d4af321a"
