"""The write path computes each per-fact form once and reuses it (issue 16, writecost3); what it
stores and logs must not change by one byte. Golden values, computed with the code before that
round (main at 7f14192), pin on a fixed batch of records (every optional part of a record present
in one of them):

- each record's canonical JSON, ``record_digest``, ``json_dict()``, ``model_dump`` in JSON and in
  Python mode, the guard store's payload and the adapters' reserved block;
- the ledger row values, the ``mg_provenance`` rows a ``begin`` + ``commit`` (and a second version)
  leave, and the change entries those transactions log (their ops, links and reasons).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from memguard import Ledger, Source, SourceKind, Turn
from memguard.events import AuditEvent, Decision
from memguard.identity import Actor, PrincipalId
from memguard.ledger.changelog import CHANGE_ACTION
from memguard.ledger.records import _row_values
from memguard.ledger.tables import AuditEventRow, ProvenanceRow
from memguard.provenance import Provenance, ScanRecord, WriterChain, canonical_json, sha256_digest
from memguard.stores.base import build_payload, reserved_block
from memguard.trust import TrustLevel

_PROV = ProvenanceRow.__table__  # type: ignore[attr-defined]
_EVENT = AuditEventRow.__table__  # type: ignore[attr-defined]


def _records() -> list[Provenance]:
    me = PrincipalId(issuer="https://issuer.example", subject="alice")
    t0 = datetime(2026, 12, 7, 11, 0, 0, 654321, tzinfo=UTC)
    base = Provenance(
        fact_id="018f0000-0000-7000-8000-000000000001", version=1, namespace="notes", owner=me,
        source=Source(kind=SourceKind.TOOL_OUTPUT, uri="https://example.com/x"),
        turn=Turn(session_id="s", turn_index=3), trust=TrustLevel.TOOL, trust_reason="test",
        writer=WriterChain(subject=me, token_jti="jti"), created_at=t0,
        content_digest=sha256_digest(b"c"), policy_digest=sha256_digest(b"p"),
    )  # fmt: skip
    bob = PrincipalId(issuer="https://issuer.example", subject="bob")
    return [
        base,
        base.model_copy(
            update={
                "fact_id": "018f0000-0000-7000-8000-000000000002",
                "lineage_trust": TrustLevel.UNTRUSTED,
                "derived_from": ("a", "b"),
            }
        ),
        base.model_copy(
            update={
                "fact_id": "018f0000-0000-7000-8000-000000000003",
                "trust": TrustLevel.USER,
                "scan": ScanRecord(
                    label="suspicious",
                    score=0.2286,
                    reasons=("r1", "ré2"),
                    scanner="memguard.rules+memguard.model",
                    version="6+3",
                    cap=TrustLevel.UNTRUSTED,
                    uncapped=TrustLevel.USER,
                ),
                "trust_reason": 'ünïcode \u2028 "quoted" \\ tab\t',
                "source": Source(kind=SourceKind.WEB, name="n", uri=None),
            }
        ),
        base.model_copy(
            update={
                "fact_id": "018f0000-0000-7000-8000-000000000004",
                "scan": ScanRecord(label="clean", score=1e-05, scanner="s", version="v"),
                "expires_at": t0 + timedelta(days=1),
                "ttl_seconds": 86400,
                "turn": Turn(session_id="sess", turn_index=0, trace_id="t" * 32, span_id="s" * 16),
            }
        ),
        base.model_copy(
            update={
                "fact_id": "018f0000-0000-7000-8000-000000000005",
                "writer": WriterChain(
                    subject=me,
                    actors=(Actor(issuer=bob.issuer, subject=bob.subject, profile=("ai_agent",)),),
                    workload_id="wl",
                    client_id="cli",
                    token_jti="j2",
                    txn="txn-1",
                    txn_context={"tctx": {"b": 1, "a": [1.5, None]}},
                ),
                "lineage_trust": TrustLevel.USER,
            }
        ),
    ]


def _forms(tmp_path: Path) -> dict[str, str]:
    """sha256 of each form a write produces from the fixed records."""
    out: dict[str, str] = {}
    recs = _records()
    for i, p in enumerate(recs):
        out[f"canonical{i}"] = sha256_digest(p.canonical())
        out[f"record_digest{i}"] = p.record_digest
        out[f"json_dict{i}"] = sha256_digest(canonical_json(p.json_dict()))
        out[f"dump_json{i}"] = sha256_digest(canonical_json(p.model_dump(mode="json")))
        out[f"dump_py{i}"] = sha256_digest(repr(sorted(p.model_dump().items())).encode())
        out[f"payload{i}"] = sha256_digest(
            canonical_json(build_payload("t\u00e9xt", {"k": [1, "v"]}, p))
        )
        out[f"reserved{i}"] = sha256_digest(canonical_json(reserved_block(p)))
        out[f"row{i}"] = sha256_digest(repr(sorted(_row_values(p).items())).encode())
    ledger = Ledger.sqlite(tmp_path / "ledger.db", witness=None)
    try:
        ev = AuditEvent(action="write", decision=Decision.ALLOW, reason="ok",
                        fact_ids=tuple(p.fact_id for p in recs))  # fmt: skip
        ledger.begin(recs)
        ledger.commit(recs, [ev])
        newer = [_records()[0].model_copy(update={"version": 2})]  # a fresh record: see below
        ledger.begin(newer)
        ledger.commit(newer, [ev.model_copy(update={"event_id": "e2"})])
        with ledger.engine.connect() as conn:
            rows = conn.execute(select(_PROV).order_by(_PROV.c.fact_id, _PROV.c.version)).all()
            events = conn.execute(
                select(_EVENT.c.action, _EVENT.c.event).order_by(_EVENT.c.seq)
            ).all()
    finally:
        ledger.engine.dispose()
    out["rows"] = sha256_digest(repr([tuple(r) for r in rows]).encode())
    entries = []
    for action, text in events:
        if action != CHANGE_ACTION:
            continue
        data: dict[str, Any] = json.loads(text)
        data.pop("event_id"), data.pop("ts")
        entries.append(data)
        # the stored text is canonical (re-serialising it gives the same bytes)
        assert canonical_json(json.loads(text)).decode() == text
    out["entries"] = sha256_digest(canonical_json(entries))
    out["n_entries"] = str(len(entries))
    return out


#: sha256 of each form, from the code before the round (tools: the same ``_forms`` run there)
GOLDEN = {
    "canonical0": "sha256:0919e18e98427822ea042c3bbee9c314eeaa2d98d70df5345e0a15879a89a910",
    "record_digest0": "sha256:0919e18e98427822ea042c3bbee9c314eeaa2d98d70df5345e0a15879a89a910",
    "json_dict0": "sha256:0919e18e98427822ea042c3bbee9c314eeaa2d98d70df5345e0a15879a89a910",
    "dump_json0": "sha256:0919e18e98427822ea042c3bbee9c314eeaa2d98d70df5345e0a15879a89a910",
    "dump_py0": "sha256:4a4c283bbd2b35e3148037ccf6cab1d2aac7898ba9dc3657ca87a15403f941d0",
    "payload0": "sha256:9b02d4c26df8760fae153d79a7e8de610cc846702792bbc11e62a472e98365f8",
    "reserved0": "sha256:b1f9f4bfe5b13a8972524de9c0b78e5513f28f1117bc46207c3136d01998a65d",
    "row0": "sha256:c30b6cd7fac2ab6bd0fffa5fb27b95398d1d6146383d3dfd7f40156f90ac2a4e",
    "canonical1": "sha256:a04cb5f5ff33c3406490e17c481c46f4901bc44309f296757c4722143ee1998b",
    "record_digest1": "sha256:a04cb5f5ff33c3406490e17c481c46f4901bc44309f296757c4722143ee1998b",
    "json_dict1": "sha256:a04cb5f5ff33c3406490e17c481c46f4901bc44309f296757c4722143ee1998b",
    "dump_json1": "sha256:a04cb5f5ff33c3406490e17c481c46f4901bc44309f296757c4722143ee1998b",
    "dump_py1": "sha256:e3cbd9ed627384b49865b964c6f00779cb4c3625c7f8ebfcd23b84c526a7dfba",
    "payload1": "sha256:dbf5552f7c51d445d52aeced840b84c2cb6399f9b97b0918e1352d9f21ed0252",
    "reserved1": "sha256:fdad8bb06f526def69d2ac64bac4bfe614a20e7927a89d46358d2563e6fd6716",
    "row1": "sha256:f0deae6f660dc02bea317f6e661c03bfa65495cd4302c3734498213a014cadaa",
    "canonical2": "sha256:00ea7903c8311765008c744d3922ea89b5b6240264fed897fcf10265f6e03865",
    "record_digest2": "sha256:00ea7903c8311765008c744d3922ea89b5b6240264fed897fcf10265f6e03865",
    "json_dict2": "sha256:00ea7903c8311765008c744d3922ea89b5b6240264fed897fcf10265f6e03865",
    "dump_json2": "sha256:00ea7903c8311765008c744d3922ea89b5b6240264fed897fcf10265f6e03865",
    "dump_py2": "sha256:ed11945440cbad184c69f8ebf545138877ebf3a8e818b733fe51dcaf81ccff5f",
    "payload2": "sha256:a56b1d2780ee216c67472ce866fb526ff671c7d6c1dccf503426fc753e07f2ce",
    "reserved2": "sha256:2dbaadb1f90cb3572d34c8d2490f544862d9a6be7f24572120e9ec1d118a39cc",
    "row2": "sha256:e15a322ea56dee0c8c3d2f7f2c66e8482a301e629b93e4e20680d47f5ce0b271",
    "canonical3": "sha256:112f7c333c86da420e35da7c5288b0814a3daf40a05ebebf1a26d9540e36eaac",
    "record_digest3": "sha256:112f7c333c86da420e35da7c5288b0814a3daf40a05ebebf1a26d9540e36eaac",
    "json_dict3": "sha256:112f7c333c86da420e35da7c5288b0814a3daf40a05ebebf1a26d9540e36eaac",
    "dump_json3": "sha256:112f7c333c86da420e35da7c5288b0814a3daf40a05ebebf1a26d9540e36eaac",
    "dump_py3": "sha256:771c8ecbe5cfacdd3edbea4eec2453410f73320bf18f20a6d4a5ead827b1592e",
    "payload3": "sha256:6fb3aa5c8b8ec6d49675d9d36c0e00242c97862010a86c7eb20dd63ef3e23cb2",
    "reserved3": "sha256:c684f0c72c7b20fd4dd09411673eb066ae9045c3657a06efc33b1d006e4869c3",
    "row3": "sha256:14c77f9e083d6d47b15903ee2312b9d058fa65a2f48ddfde13244ce09d00dd93",
    "canonical4": "sha256:423fba2559fa24c795b7648564fd628e5ed9ad41b1147c939e297d61b530a0e7",
    "record_digest4": "sha256:423fba2559fa24c795b7648564fd628e5ed9ad41b1147c939e297d61b530a0e7",
    "json_dict4": "sha256:423fba2559fa24c795b7648564fd628e5ed9ad41b1147c939e297d61b530a0e7",
    "dump_json4": "sha256:423fba2559fa24c795b7648564fd628e5ed9ad41b1147c939e297d61b530a0e7",
    "dump_py4": "sha256:340ac1643c4ac0dd3052adc58550c48d42acae11d096c02ccdf8bb794b3c2dea",
    "payload4": "sha256:aa25a2430f1e779f5fe3052f6755829c22606812e5e3142c6afa8998a779af6d",
    "reserved4": "sha256:ec01ec6797293e7e65b2b0a54edc799d3bcc0936854f392bf2bbf86754a918c7",
    "row4": "sha256:b69382342b5869a1507a6a5e51b46c51f6c571d1358164be6abfc99dee1935b8",
    "rows": "sha256:e3eaa3405c0261888c1e17b794c596443721a1b0c59ffbd93deee4d70e515b6c",
    "entries": "sha256:c24e4fd70ed7dbac002ab7f45036e3e537b5afb254fc01c6b50c5156aeec8fc5",  # ledger.create: provenance_indexes, audit_schema
    "n_entries": "5",
}


def test_every_form_of_a_write_is_byte_identical_to_before(tmp_path: Path) -> None:
    assert _forms(tmp_path) == GOLDEN


def test_the_golden_values_catch_a_changed_byte(tmp_path: Path) -> None:
    """The comparison is not vacuous: one changed record field changes its canonical digest."""
    recs = _records()
    changed = recs[0].model_copy(update={"trust_reason": "test!"})
    assert sha256_digest(changed.canonical()) != GOLDEN["canonical0"]
    assert sha256_digest(recs[0].canonical()) == GOLDEN["canonical0"]


def test_a_copy_of_a_record_is_serialised_afresh() -> None:
    """The canonical form and digest are cached on the record: a copy with other values (an
    owner migration's next version, ``model_copy(update=...)``) must not carry them. Fails if a
    copy serialises as the record it was copied from."""
    import copy

    first = _records()[0]
    digest = first.record_digest  # cached now
    changed = first.model_copy(update={"version": 2, "trust_reason": "moved"})
    assert changed.record_digest != digest
    assert json.loads(changed.canonical())["trust_reason"] == "moved"
    assert changed.record_digest == sha256_digest(canonical_json(changed.model_dump(mode="json")))
    deep = first.model_copy(update={"trust_reason": "deep"}, deep=True)
    assert json.loads(deep.canonical())["trust_reason"] == "deep"
    assert copy.copy(first).record_digest == digest == copy.deepcopy(first).record_digest
    assert first.record_digest == digest  # the original keeps its own


def test_the_begin_entry_rows_are_the_general_encoding() -> None:
    """``begin`` logs its rows from the values it has (``_row_encoded``: the record's digest,
    not a second hash of its text); they are what ``encode_row`` gives, value and type, also
    for a record whose ``created_at`` is not in UTC (a copy skips the validator)."""
    from memguard.ledger.changelog import ChangeSet, encode_row
    from memguard.ledger.records import _row_encoded

    east = timezone(timedelta(hours=5))
    recs = [*_records(), _records()[1].model_copy(update={"created_at": datetime.now(east)})]
    for p in recs:
        row = _row_values(p)
        want, got = encode_row(_PROV, row), _row_encoded(p, row)
        assert got == want
        assert [type(got[k]) for k in want] == [type(v) for v in want.values()]
        general, fast = ChangeSet(), ChangeSet()
        general.put(_PROV, [row])
        fast.put_encoded(_PROV, [_row_encoded(p, row)])
        assert fast.ops == general.ops and fast.fact_ids == general.fact_ids


def test_canonical_json_is_json_dumps_with_the_canonical_options() -> None:
    """``canonical_json`` runs the C encoder built once; it gives ``json.dumps``'s bytes with
    the canonical options, and still refuses what is not JSON (fail closed)."""
    import math

    values: list[Any] = [
        None, True, 0, -1, 2**70, 0.1, 1e-05, 1e16, -0.0, 1.5e300, "", "é\u2028\x00\"\\\t", "\U0001f600",
        [1, [2, {"b": 1, "a": None}]], {"z": {"y": [], "x": {}}, "é": 1, "E": 2, "1": "one"},
        _records()[4].model_dump(mode="json"),
    ]  # fmt: skip
    for value in values:
        want = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8")  # fmt: skip
        assert canonical_json(value) == want
    for bad in (math.nan, {"a": [math.inf]}, {"a": object()}, b"bytes"):
        with pytest.raises((ValueError, TypeError)):
            canonical_json(bad)
    with pytest.raises(UnicodeEncodeError):
        canonical_json("\ud800")  # a lone surrogate is not UTF-8
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(RecursionError):
        canonical_json(circular)
