"""The tamper-evident audit log on SQLite and on the real PostgreSQL: integration, proofs,
checkpoints, and mutation tests (every edit, deletion, reordering, truncation, edited tree row and
forged signature must be detected and located), concurrent integrators, group-commit policy."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock, pg_schema_url
from sqlalchemy import event as sa_event
from sqlalchemy import text

from memguard.errors import IntegrityError, InvalidRequest, LedgerError
from memguard.events import AuditEvent, Decision
from memguard.ledger import Ledger
from memguard.ledger.auditlog import AuditLog, ProblemKind, VerifyReport
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.rfc6962 import append_leaves, leaf_hash

K = ProblemKind


@pytest.fixture
def signer(tmp_path: Path) -> CheckpointSigner:
    return CheckpointSigner.load_or_create(tmp_path / "keys" / "checkpoint.key")


@pytest.fixture
def ledger(ledger_url: str, signer: CheckpointSigner) -> Iterator[Ledger]:
    led = Ledger.from_url(ledger_url, checkpoint_signer=signer)
    yield led
    led.close()


def _event(i: int = 0) -> AuditEvent:
    return AuditEvent(
        action="read",
        decision=Decision.ALLOW if i % 3 else Decision.DENY,
        reason=f"reason {i}",
        fact_ids=(f"fact-{i}",),
        detail={"i": i},
    )


def _grow(ledger: Ledger, checkpoint_sizes: Sequence[int], tail: int = 0) -> None:
    """Record events one or two per transaction; sign a checkpoint at each size; then ``tail``
    more events integrated but not checkpointed. (Leaf 0 is the change entry of the new ledger's
    meta row: memguard/ledger/changelog.py.)"""
    count = int(_one(ledger, "SELECT count(*) FROM mg_audit_event"))
    for target in [*checkpoint_sizes, checkpoint_sizes[-1] + tail if checkpoint_sizes else tail]:
        while count < target:
            batch = [_event(count + k) for k in range(min(1 + count % 2, target - count))]
            ledger.record(batch)
            count += len(batch)
        ledger.log.integrate()
        if target in checkpoint_sizes:
            assert ledger.log.checkpoint().tree_size == target


def _exec(ledger: Ledger, sql: str, **params: Any) -> None:
    with ledger.engine.begin() as conn:
        conn.execute(text(sql), params)


def _one(ledger: Ledger, sql: str, **params: Any) -> Any:
    with ledger.engine.begin() as conn:
        return conn.execute(text(sql), params).scalar()


def _seq(ledger: Ledger, leaf: int) -> int:
    return int(_one(ledger, "SELECT event_seq FROM mg_log_leaf WHERE leaf_index = :i", i=leaf))


def _event_text(ledger: Ledger, seq: int) -> str:
    return str(_one(ledger, "SELECT event FROM mg_audit_event WHERE seq = :s", s=seq))


def _set_event(ledger: Ledger, seq: int, value: str) -> None:
    _exec(ledger, "UPDATE mg_audit_event SET event = :v WHERE seq = :s", v=value, s=seq)


def _flip_byte(value: str, position: int) -> str:
    """A one-byte edit that keeps the text ASCII: change one character."""
    ch = value[position]
    return value[:position] + ("x" if ch != "x" else "y") + value[position + 1 :]


def _verify(ledger: Ledger, **kw: Any) -> VerifyReport:
    return ledger.log.verify(**kw)


def _found(report: VerifyReport) -> set[tuple[str, int | None, int | None]]:
    return {(p.kind.value, p.leaf_index, p.event_seq) for p in report.problems}


def _tampered(report: VerifyReport, kind: ProblemKind, **where: Any) -> None:
    """The report is not ok and has a problem of ``kind`` located at ``where``."""
    assert not report.ok, report
    matches = [
        p
        for p in report.problems
        if p.kind is kind and all(getattr(p, key) == value for key, value in where.items())
    ]
    assert matches, f"no {kind} at {where}: {[p.as_json() for p in report.problems]}"


# -- the honest log ---------------------------------------------------------------------------------


def test_clean_log_verifies(ledger: Ledger) -> None:
    _grow(ledger, [8, 13], tail=3)
    ledger.record([_event(99)])  # one more, still queued
    report = _verify(ledger)
    assert report.ok and report.problems == ()
    assert (report.tree_size, report.events, report.pending) == (16, 17, 1)
    assert report.last_checkpoint is not None and report.last_checkpoint.tree_size == 13
    assert report.checkpoints_checked == 3 and report.leaves_after_checkpoint == 3  # + the new ledger's
    assert report.as_json()["verified"] is True


def test_leaves_follow_events_and_proofs_verify_against_signed_checkpoints(
    ledger: Ledger, signer: CheckpointSigner
) -> None:
    _grow(ledger, [1, 5, 8, 13])
    verifier = signer.verifier()
    checkpoints = ledger.log.checkpoints()
    assert [c.tree_size for c in checkpoints] == [1, 5, 8, 13]
    for cp in checkpoints:
        signed = verifier.verify_checkpoint(cp.note)
        assert signed.root_hash == cp.root_hash == ledger.log.root(cp.tree_size)
        for leaf in range(cp.tree_size):
            seq = _seq(ledger, leaf)
            assert ledger.log.leaf_for_event(seq) == leaf
            proof = ledger.log.inclusion_proof(leaf, cp.tree_size)
            assert proof.leaf_hash == leaf_hash(_event_text(ledger, seq).encode())
            proof.verify(signed.root_hash)
    for old in checkpoints:
        for new in checkpoints:
            if old.tree_size <= new.tree_size:
                ledger.log.consistency_proof(old.tree_size, new.tree_size).verify(
                    old.root_hash, new.root_hash
                )
    assert ledger.log.leaf_for_event(10**9) is None
    with pytest.raises(InvalidRequest):
        ledger.log.inclusion_proof(13, 13)
    with pytest.raises(InvalidRequest):
        ledger.log.consistency_proof(5, 14)


def test_batched_proofs_equal_single_proofs(ledger: Ledger) -> None:
    _grow(ledger, [13], tail=4)
    leaves = [0, 3, 12, 5, 16]
    for size in (13, 17):
        wanted = [i for i in leaves if i < size]
        batch = ledger.log.inclusion_proofs(wanted, size)
        assert batch == [ledger.log.inclusion_proof(i, size) for i in wanted]
    seqs = [_seq(ledger, i) for i in leaves]
    located = ledger.log.leaves_for_events([*seqs, 10**9])
    assert {s: leaf for s, (leaf, _) in located.items()} == dict(zip(seqs, leaves, strict=True))
    assert all(text == _event_text(ledger, s) for s, (_, text) in located.items())
    assert ledger.log.inclusion_proofs([], 13) == []
    with pytest.raises(InvalidRequest):
        ledger.log.inclusion_proofs([0, 13], 13)


def test_event_and_queued_leaf_hash_share_one_transaction(ledger: Ledger) -> None:
    _exec(ledger, "DROP TABLE mg_log_pending")
    before = ledger.count_events()
    with pytest.raises(LedgerError):
        ledger.record([_event()])
    assert ledger.count_events() == before  # the event did not commit without its leaf hash


def test_events_without_log_tables_are_refused_then_adopted_by_repair(
    ledger_url: str, signer: CheckpointSigner
) -> None:
    led = Ledger.from_url(ledger_url)
    led.record([_event(i) for i in range(5)])
    for table in ("mg_log_checkpoint", "mg_log_node", "mg_log_leaf", "mg_log_pending"):
        _exec(led, f"DROP TABLE {table}")
    led.close()
    with pytest.raises(IntegrityError) as refused:  # dropped tables never re-adopt silently
        Ledger.from_url(ledger_url, checkpoint_signer=signer)
    assert refused.value.code == "integrity.unlogged"
    again = Ledger.from_url(ledger_url, checkpoint_signer=signer, adopt_unlogged=True)
    try:
        assert again.log.pending_count() == 6  # 5 events + the meta row's change entry
        counts = again.repair(actor="ops", reason="pre-log ledger")
        assert counts["events_adopted"] == 0  # already queued by adopt_unlogged
        again.log.flush()
        assert _verify(again).ok and again.verify().ok
        repairs = [e for e in again.events() if e.action == "ledger.repair"]
        assert len(repairs) == 1 and repairs[0].decision is Decision.ALARM
    finally:
        again.close()


# -- mutations: every one detected and located --------------------------------------------------------


def test_single_byte_edit_of_any_logged_event_is_located(ledger: Ledger) -> None:
    _grow(ledger, [8, 13])
    for leaf in range(13):
        seq = _seq(ledger, leaf)
        original = _event_text(ledger, seq)
        for position in (0, len(original) // 2, len(original) - 1):
            _set_event(ledger, seq, _flip_byte(original, position))
            report = _verify(ledger)
            _tampered(report, K.EDITED, leaf_index=leaf, event_seq=seq)
            assert len(report.problems) == 1, report.problems  # nothing else is blamed
        _set_event(ledger, seq, original)
    assert _verify(ledger).ok


def test_edit_of_a_queued_event_is_located(ledger: Ledger) -> None:
    _grow(ledger, [4])
    ledger.record([_event(50)])
    seq = int(_one(ledger, "SELECT max(seq) FROM mg_audit_event"))
    _set_event(ledger, seq, _flip_byte(_event_text(ledger, seq), 10))
    _tampered(_verify(ledger), K.EDITED, event_seq=seq, leaf_index=None)
    # integrating it does not launder the edit: the queued hash, not the event, enters the tree
    ledger.log.integrate()
    _tampered(_verify(ledger), K.EDITED, event_seq=seq, leaf_index=4)


@pytest.mark.parametrize("leaf", [0, 5, 9])
def test_deleted_event_is_located(ledger: Ledger, leaf: int) -> None:
    _grow(ledger, [8, 11])
    seq = _seq(ledger, leaf)
    _exec(ledger, "DELETE FROM mg_audit_fact WHERE event_seq = :s", s=seq)
    _exec(ledger, "DELETE FROM mg_audit_event WHERE seq = :s", s=seq)
    report = _verify(ledger)
    _tampered(report, K.DELETED, leaf_index=leaf, event_seq=seq)
    assert {p.kind for p in report.problems} == {K.DELETED}


def test_deleted_queued_event_is_located(ledger: Ledger) -> None:
    _grow(ledger, [3])
    ledger.record([_event(7)])
    seq = int(_one(ledger, "SELECT max(seq) FROM mg_audit_event"))
    _exec(ledger, "DELETE FROM mg_audit_fact WHERE event_seq = :s", s=seq)
    _exec(ledger, "DELETE FROM mg_audit_event WHERE seq = :s", s=seq)
    _tampered(_verify(ledger), K.DELETED, event_seq=seq)


def test_deleted_leaf_row_is_located(ledger: Ledger) -> None:
    _grow(ledger, [8])
    _exec(ledger, "DELETE FROM mg_log_leaf WHERE leaf_index = 3")
    report = _verify(ledger)
    _tampered(report, K.DELETED, leaf_index=3)
    _tampered(report, K.UNLOGGED, event_seq=_seq_or_none(ledger, 3))


def _seq_or_none(ledger: Ledger, leaf: int) -> int:
    # the event of the deleted leaf row: the one seq not in mg_log_leaf
    return int(
        _one(
            ledger,
            "SELECT seq FROM mg_audit_event WHERE seq NOT IN (SELECT event_seq FROM mg_log_leaf)",
        )
    )


@pytest.mark.parametrize(("a", "b"), [(2, 3), (0, 12), (6, 9)])
def test_swapped_events_are_reported_as_reordered(ledger: Ledger, a: int, b: int) -> None:
    _grow(ledger, [8, 13])
    seq_a, seq_b = _seq(ledger, a), _seq(ledger, b)
    text_a, text_b = _event_text(ledger, seq_a), _event_text(ledger, seq_b)
    _set_event(ledger, seq_a, text_b)
    _set_event(ledger, seq_b, text_a)
    report = _verify(ledger)
    _tampered(report, K.REORDERED, leaf_index=a, event_seq=seq_a)
    _tampered(report, K.REORDERED, leaf_index=b, event_seq=seq_b)
    assert str(b) in next(p.message for p in report.problems if p.leaf_index == a)


def test_swapped_leaf_to_event_mapping_is_reordered(ledger: Ledger) -> None:
    _grow(ledger, [8])
    seq_a, seq_b = _seq(ledger, 1), _seq(ledger, 6)
    _exec(ledger, "UPDATE mg_log_leaf SET event_seq = -1 WHERE leaf_index = 1")
    _exec(ledger, "UPDATE mg_log_leaf SET event_seq = :s WHERE leaf_index = 6", s=seq_a)
    _exec(ledger, "UPDATE mg_log_leaf SET event_seq = :s WHERE leaf_index = 1", s=seq_b)
    report = _verify(ledger)
    _tampered(report, K.REORDERED, leaf_index=1, event_seq=seq_b)
    _tampered(report, K.REORDERED, leaf_index=6, event_seq=seq_a)


def test_truncated_event_table_is_located(ledger: Ledger) -> None:
    _grow(ledger, [8, 12])
    first = _seq(ledger, 9)
    _exec(ledger, "DELETE FROM mg_audit_fact WHERE event_seq >= :s", s=first)
    _exec(ledger, "DELETE FROM mg_audit_event WHERE seq >= :s", s=first)
    report = _verify(ledger)
    _tampered(report, K.TRUNCATED, leaf_index=9, event_seq=first)
    assert len(report.problems) == 1  # one finding for the whole tail


def _truncate_everything(ledger: Ledger, keep: int, *, checkpoints: bool) -> None:
    """What a careful attacker does: drop the tail events *and* every log row that mentions them."""
    first = _seq(ledger, keep)
    _exec(ledger, "DELETE FROM mg_audit_fact WHERE event_seq >= :s", s=first)
    _exec(ledger, "DELETE FROM mg_audit_event WHERE seq >= :s", s=first)
    _exec(ledger, "DELETE FROM mg_log_leaf WHERE leaf_index >= :k", k=keep)
    for level in range(1, 8):
        _exec(
            ledger,
            "DELETE FROM mg_log_node WHERE level = :l AND node_index >= :n",
            l=level,
            n=keep >> level,
        )
    if checkpoints:
        _exec(ledger, "DELETE FROM mg_log_checkpoint WHERE tree_size > :k", k=keep)


def test_truncated_tree_is_detected_against_the_last_checkpoint(ledger: Ledger) -> None:
    _grow(ledger, [8, 13])
    _truncate_everything(ledger, 10, checkpoints=False)
    report = _verify(ledger)
    _tampered(report, K.TRUNCATED, leaf_index=10, tree_size=13)
    assert report.tree_size == 10


def test_rollback_with_checkpoints_needs_an_external_checkpoint(ledger: Ledger) -> None:
    ledger.log.witness = None  # the database alone (the default witness: tests/test_ledger_tamper.py)
    _grow(ledger, [8, 13])
    witness = ledger.log.latest_checkpoint()
    assert witness is not None
    _truncate_everything(ledger, 8, checkpoints=True)
    # the database alone is a consistent, shorter log: this is the threat an external copy covers
    assert _verify(ledger).ok
    report = _verify(ledger, external_checkpoints=[witness.note])
    _tampered(report, K.TRUNCATED, leaf_index=8, tree_size=13)
    assert report.external_checked == 1


def test_external_checkpoint_detects_a_rewritten_history(ledger: Ledger) -> None:
    ledger.log.witness = None  # the database alone (the default witness: tests/test_ledger_tamper.py)
    _grow(ledger, [8])
    witness = ledger.log.latest_checkpoint()
    assert witness is not None
    # rewrite the whole log from scratch (same size, one event changed) and re-sign checkpoints
    seq = _seq(ledger, 5)
    _set_event(ledger, seq, _flip_byte(_event_text(ledger, seq), 3))
    _rebuild_tree(ledger)
    _exec(ledger, "DELETE FROM mg_log_checkpoint")
    ledger.log.checkpoint()
    assert _verify(ledger).ok  # internally consistent ...
    report = _verify(ledger, external_checkpoints=[witness.note])
    _tampered(report, K.ROOT_MISMATCH, tree_size=8, leaf_index=0)  # ... but not the witnessed log


def _rebuild_tree(ledger: Ledger) -> None:
    """Recompute leaf hashes and every node from the events as they are now."""
    with ledger.engine.begin() as conn:
        rows = conn.execute(
            text(
                "SELECT l.leaf_index, l.event_seq, e.event FROM mg_log_leaf l "
                "JOIN mg_audit_event e ON e.seq = l.event_seq ORDER BY l.leaf_index"
            )
        ).all()
        hashes = [leaf_hash(r.event.encode()) for r in rows]
        nodes, _ = append_leaves(0, [], hashes)
        conn.execute(text("DELETE FROM mg_log_leaf"))
        conn.execute(text("DELETE FROM mg_log_node"))
        for r, h in zip(rows, hashes, strict=True):
            conn.execute(
                text("INSERT INTO mg_log_leaf (leaf_index, event_seq, leaf_hash) VALUES (:i, :s, :h)"),
                {"i": r.leaf_index, "s": r.event_seq, "h": h},
            )
        for level, index, h in nodes:
            conn.execute(
                text("INSERT INTO mg_log_node (level, node_index, hash) VALUES (:l, :i, :h)"),
                {"l": level, "i": index, "h": h},
            )


def test_consistent_rewrite_is_located_between_checkpoints(ledger: Ledger) -> None:
    _grow(ledger, [4, 8, 13])
    seq = _seq(ledger, 10)
    _set_event(ledger, seq, _flip_byte(_event_text(ledger, seq), 5))
    _rebuild_tree(ledger)  # leaf row and nodes now agree with the edited event
    report = _verify(ledger)
    # the checkpoints at 4 and 8 still hold; the one at 13 does not: the change is in 8..12
    _tampered(report, K.ROOT_MISMATCH, tree_size=13, leaf_index=8)
    assert not any(p.kind is K.ROOT_MISMATCH and p.tree_size in (4, 8) for p in report.problems)


def test_edited_leaf_row_is_told_apart_from_an_edited_event(ledger: Ledger) -> None:
    _grow(ledger, [8, 13])
    seq = _seq(ledger, 4)
    _exec(ledger, "UPDATE mg_log_leaf SET leaf_hash = :h WHERE leaf_index = 4", h=bytes(32))
    report = _verify(ledger)
    _tampered(report, K.LEAF_MISMATCH, leaf_index=4, event_seq=seq)
    assert K.EDITED not in {p.kind for p in report.problems}
    assert K.NODE_MISMATCH not in {p.kind for p in report.problems}  # the tree above is intact


@pytest.mark.parametrize(("level", "index"), [(1, 0), (1, 5), (2, 1), (3, 0)])
def test_edited_node_row_is_located(ledger: Ledger, level: int, index: int) -> None:
    _grow(ledger, [8, 13])
    _exec(
        ledger,
        "UPDATE mg_log_node SET hash = :h WHERE level = :l AND node_index = :i",
        h=bytes(range(32)),
        l=level,
        i=index,
    )
    report = _verify(ledger)
    _tampered(report, K.NODE_MISMATCH, node=(level, index))
    assert sum(p.kind is K.NODE_MISMATCH for p in report.problems) == 1  # not its whole path


def test_deleted_node_row_is_located(ledger: Ledger) -> None:
    _grow(ledger, [8])
    _exec(ledger, "DELETE FROM mg_log_node WHERE level = 2 AND node_index = 1")
    _tampered(_verify(ledger), K.NODE_MISMATCH, node=(2, 1))


def test_forged_checkpoint_signature(ledger: Ledger) -> None:
    _grow(ledger, [8, 13])
    note = str(_one(ledger, "SELECT note FROM mg_log_checkpoint WHERE tree_size = 8"))
    head, sig = note.rsplit(" ", 1)
    forged = head + " " + ("A" if sig[0] != "A" else "B") + sig[1:]
    _exec(ledger, "UPDATE mg_log_checkpoint SET note = :n WHERE tree_size = 8", n=forged)
    _tampered(_verify(ledger), K.BAD_SIGNATURE, tree_size=8)


def test_checkpoint_row_edited_beside_its_note(ledger: Ledger) -> None:
    _grow(ledger, [8])
    _exec(ledger, "UPDATE mg_log_checkpoint SET root_hash = :h", h=bytes(32))
    _tampered(_verify(ledger), K.BAD_SIGNATURE, tree_size=8)


def test_checkpoint_signed_by_another_key(ledger: Ledger) -> None:
    _grow(ledger, [8, 13])
    intruder = CheckpointSigner.generate()  # same origin name, different key
    forged = intruder.sign(13, ledger.log.root(13))
    _exec(ledger, "UPDATE mg_log_checkpoint SET note = :n WHERE tree_size = 13", n=forged)
    _tampered(_verify(ledger), K.BAD_SIGNATURE, tree_size=13)


def test_forged_external_checkpoint(ledger: Ledger) -> None:
    _grow(ledger, [8])
    intruder = CheckpointSigner.generate()
    report = _verify(ledger, external_checkpoints=[intruder.sign(8, ledger.log.root(8)), "junk"])
    assert not report.ok
    assert sum(p.kind is K.BAD_SIGNATURE for p in report.problems) == 2


def test_event_written_around_the_log_is_unlogged(ledger: Ledger) -> None:
    _grow(ledger, [4])
    ev = _event(77)
    _exec(
        ledger,
        "INSERT INTO mg_audit_event (event_id, ts, action, decision, reason, event, event_digest) "
        "VALUES (:id, :ts, 'read', 'allow', 'forged', :e, :d)",
        id=ev.event_id,
        ts=ev.ts,
        e=ev.canonical().decode(),
        d=ev.digest,
    )
    seq = int(_one(ledger, "SELECT max(seq) FROM mg_audit_event"))
    _tampered(_verify(ledger), K.UNLOGGED, event_seq=seq)


def test_event_queued_twice_is_duplicate(ledger: Ledger) -> None:
    _grow(ledger, [4])
    seq = _seq(ledger, 2)
    _exec(
        ledger,
        "INSERT INTO mg_log_pending (event_seq, leaf_hash, queued_at) VALUES (:s, :h, 0)",
        s=seq,
        h=leaf_hash(_event_text(ledger, seq).encode()),
    )
    _tampered(_verify(ledger), K.DUPLICATE, event_seq=seq, leaf_index=2)
    assert ledger.log.integrate() == 0  # integration leaves it alone instead of failing forever


def test_signing_refuses_a_tree_inconsistent_with_the_last_checkpoint(ledger: Ledger) -> None:
    _grow(ledger, [7])
    ledger.record([_event(1)])
    ledger.log.integrate()
    _exec(ledger, "UPDATE mg_log_node SET hash = :h WHERE level = 2 AND node_index = 0", h=bytes(32))
    with pytest.raises(IntegrityError):
        ledger.log.checkpoint()
    assert [c.tree_size for c in ledger.log.checkpoints()] == [1, 7]


def test_every_tamper_path_reports_a_problem(ledger: Ledger) -> None:
    """One log, each mutation in turn on a fresh copy of the state: never a silent pass."""
    _grow(ledger, [8, 13], tail=2)
    seq = _seq(ledger, 6)
    original = _event_text(ledger, seq)
    mutations = {
        "edit": lambda: _set_event(ledger, seq, _flip_byte(original, 20)),
        "leaf": lambda: _exec(ledger, "UPDATE mg_log_leaf SET leaf_hash = :h WHERE leaf_index = 14", h=bytes(32)),
        "node": lambda: _exec(ledger, "UPDATE mg_log_node SET hash = :h WHERE level = 1 AND node_index = 6", h=bytes(32)),
        "sig": lambda: _exec(ledger, "UPDATE mg_log_checkpoint SET note = replace(note, '13', '12') WHERE tree_size = 13"),
    }
    for name, mutate in mutations.items():
        snapshot = _dump_log(ledger)
        mutate()
        assert not _verify(ledger).ok, name
        _restore_log(ledger, snapshot)
        assert _verify(ledger).ok, name


def _dump_log(ledger: Ledger) -> dict[str, list[Any]]:
    with ledger.engine.begin() as conn:
        return {
            t: [dict(r._mapping) for r in conn.execute(text(f"SELECT * FROM {t}"))]
            for t in ("mg_log_leaf", "mg_log_node", "mg_log_checkpoint", "mg_audit_event")
        }


def _restore_log(ledger: Ledger, snapshot: dict[str, list[Any]]) -> None:
    with ledger.engine.begin() as conn:
        for table, rows in snapshot.items():
            if table == "mg_audit_event":
                for r in rows:
                    conn.execute(
                        text("UPDATE mg_audit_event SET event = :e WHERE seq = :s"),
                        {"e": r["event"], "s": r["seq"]},
                    )
                continue
            conn.execute(text(f"DELETE FROM {table}"))
            if rows:
                cols = ", ".join(rows[0])
                params = ", ".join(f":{c}" for c in rows[0])
                conn.execute(text(f"INSERT INTO {table} ({cols}) VALUES ({params})"), rows)


# -- warnings ---------------------------------------------------------------------------------------


def test_old_queued_events_are_a_warning(ledger_url: str, signer: CheckpointSigner) -> None:
    clock = Clock()
    led = Ledger.from_url(ledger_url, checkpoint_signer=signer)
    try:
        led.log = AuditLog(led.engine, signer=signer, clock=clock)
        led.record([_event(1)])
        assert _verify(led).ok and _verify(led).problems == ()
        clock.advance(301)
        report = _verify(led)
        assert report.ok  # a warning, not tampering
        assert [p.kind for p in report.problems] == [K.PENDING_TOO_OLD]
    finally:
        led.close()


def test_no_checkpoint_is_a_warning(ledger_url: str) -> None:
    led = Ledger.from_url(ledger_url)
    try:
        led.record([_event(1)])
        led.log.integrate()
        report = _verify(led)
        assert report.ok and [p.kind for p in report.problems] == [K.NO_CHECKPOINT]
    finally:
        led.close()


# -- ordering and concurrency -------------------------------------------------------------------------


def test_sequence_values_committing_out_of_order(tmp_path: Path) -> None:
    """PostgreSQL hands out seq values at insert time; a lower one may commit last."""
    with pg_schema_url() as pg:
        slow, fast = Ledger.from_url(pg), Ledger.from_url(pg)
        try:
            with slow._tx() as conn:
                slow._insert_events(conn, [_event(1)])  # takes seq n, commits later
                fast.record([_event(2)])  # takes seq n + 1, commits now
                assert fast.log.integrate() == 1
            assert fast.log.integrate() == 1  # the late one is not skipped
            rows = [_seq(fast, 1), _seq(fast, 2)]  # leaf 0: the new ledger's meta row
            assert rows[0] == rows[1] + 1
            assert fast.log.pending_count() == 0
            report = fast.log.verify()
            assert report.ok and report.tree_size == 3
        finally:
            slow.close()
            fast.close()


def test_concurrent_integrators_lose_and_duplicate_nothing(
    ledger_url: str, signer: CheckpointSigner
) -> None:
    writers, per_writer = 3, 40
    ledgers = [Ledger.from_url(ledger_url, checkpoint_signer=signer) for _ in range(writers + 2)]
    done = threading.Event()
    errors: list[BaseException] = []

    def write(led: Ledger, w: int) -> None:
        try:
            for i in range(per_writer):
                led.record([_event(w * 1000 + i)])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def integrate(led: Ledger) -> None:
        try:
            rounds = 0
            while not done.is_set():
                led.log.integrate(max_batch=5)
                rounds += 1
                if rounds % 4 == 0:
                    led.log.checkpoint()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(ledgers[w], w)) for w in range(writers)]
    threads += [threading.Thread(target=integrate, args=(led,)) for led in ledgers[writers:]]
    for t in threads:
        t.start()
    for t in threads[:writers]:
        t.join()
    done.set()
    for t in threads[writers:]:
        t.join()
    try:
        assert errors == []
        ledgers[0].log.flush()
        total = writers * per_writer + 1  # + the new ledger's meta row change entry
        with ledgers[0].engine.begin() as conn:
            count, distinct, low, high = conn.execute(
                text(
                    "SELECT count(*), count(DISTINCT event_seq), min(leaf_index), max(leaf_index) "
                    "FROM mg_log_leaf"
                )
            ).one()
            missing = conn.execute(
                text(
                    "SELECT count(*) FROM mg_audit_event WHERE seq NOT IN "
                    "(SELECT event_seq FROM mg_log_leaf)"
                )
            ).scalar()
        assert (count, distinct, low, high, missing) == (total, total, 0, total - 1, 0)
        report = ledgers[0].log.verify()
        assert report.ok, report.problems
        assert report.checkpoints_checked >= 1
    finally:
        for led in ledgers:
            led.close()


# -- group commit policy ------------------------------------------------------------------------------


def test_maybe_integrate_is_free_until_due(tmp_path: Path, signer: CheckpointSigner) -> None:
    clock = Clock()
    led = Ledger.sqlite(tmp_path / "l.db")
    try:
        led.log = AuditLog(
            led.engine,
            signer=signer,
            batch_size=4,
            max_delay=1.0,
            checkpoint_every=8,
            checkpoint_interval=30.0,
            clock=clock,
        )
        queries: list[str] = []
        sa_event.listen(led.engine, "before_cursor_execute", lambda *a: queries.append(a[2]))
        for i in range(3):
            led.record([_event(i)])
            queries.clear()
            assert led.log.maybe_integrate() == 0
            assert queries == []  # no database round trip while nothing is due
        led.record([_event(3)])
        assert led.log.maybe_integrate() == 4  # batch size reached
        assert led.log.size() == 5 and led.log.checkpoints() == []  # + leaf 0: the meta row
        led.record([_event(4)])
        assert led.log.maybe_integrate() == 0
        clock.advance(1.5)
        assert led.log.maybe_integrate() == 1  # max delay reached
        for i in range(3):
            led.record([_event(10 + i)])
        assert led.log.maybe_integrate() == 0
        clock.advance(1.0)
        assert led.log.maybe_integrate() == 3
        assert [c.tree_size for c in led.log.checkpoints()] == [9]  # every 8 leaves
        led.record([_event(20)])
        clock.advance(1.0)
        assert led.log.maybe_integrate() == 1
        assert [c.tree_size for c in led.log.checkpoints()] == [9]
        clock.advance(30.0)
        queries.clear()
        assert led.log.maybe_integrate() == 0  # nothing queued, but a checkpoint is due
        assert [c.tree_size for c in led.log.checkpoints()] == [9, 10]
        assert led.log.maybe_integrate() == 0
        info = led.log.flush()
        assert info is not None and info.tree_size == 10
        assert _verify(led).ok
    finally:
        led.close()


def test_other_processes_queued_events_are_integrated_too(tmp_path: Path) -> None:
    a, b = Ledger.sqlite(tmp_path / "l.db"), Ledger.sqlite(tmp_path / "l.db")
    try:
        a.record([_event(1), _event(2)])  # a process that then dies without integrating
        b.record([_event(3)])
        assert b.log.integrate() == 3
    finally:
        a.close()
        b.close()
