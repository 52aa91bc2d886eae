"""The SQL adapter: ``SqlStore`` under an unchanged ``MemoryGuard``, and the ``GuardedSqlMemory`` facade.

Every guard-level test runs on three layouts: SQLite store and ledger in two files, SQLite store
tables inside the ledger's own database (``SqlStore(engine=ledger.engine)``), and PostgreSQL (store
and ledger in one per-test schema). Real databases, real signed tokens, no mocks of the backend; a
"direct SQL edit" is made through a separate engine, as another client of the database would.

What is shown:
- CRUD and ``list_facts`` through the guard; owner isolation (search, get, update, delete, list);
- rows edited in SQL (text, metadata, reserved JSON, scope columns) are withheld with an alarm;
- quarantine: ``revoke`` syncs the trust column and the JSON copy, the fact never comes back;
- push-down: the WHERE clause equals ``memguard.scope.evaluate`` on random conditions (hypothesis,
  SQLite and PostgreSQL), the database hands Python only in-scope rows, a 1% scope still gives k;
- crash safety: a failing store write aborts the ledger rows; recovery commits or aborts pending ones.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from helpers import BROWSER, PLANNER, Clock, pg_schema_url
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policy_strategies import FACT_DOMAIN, NOW, policies, principals, universe
from policy_strategies import facts as random_facts
from sqlalchemy import Engine, create_engine, event, update
from sqlalchemy import text as sql_text

from memguard import (
    ConfigurationError,
    FactInput,
    FactNotFound,
    FactState,
    Ledger,
    LocalTokenService,
    MemguardError,
    MemoryGuard,
    Source,
    SourceKind,
    StoreError,
    TrustLevel,
    Turn,
    audit_fact,
)
from memguard.adapters.sql import SUPPORTED, GuardedSqlMemory, MemoryRow, SqlStore
from memguard.context import CallContext
from memguard.errors import IdentityError, UntranslatableCondition
from memguard.identity import Identity, Principal
from memguard.policy.evaluate import principal_env
from memguard.policy.model import PolicySet
from memguard.policy.resolver import PolicyResolver
from memguard.provenance import canonical_json, sha256_digest
from memguard.revocation import RevocationSelector
from memguard.scope import (
    FIELDS,
    And,
    Condition,
    DefaultScopeResolver,
    Eq,
    FieldValue,
    Gte,
    In,
    Not,
    Or,
    PlanKind,
    ReadRequest,
    ScopePlan,
    WriteDecision,
    evaluate,
)
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint

SRC = Source(kind=SourceKind.USER_MESSAGE)
LAYOUTS = ["sqlite", "sqlite-shared", pytest.param("postgres", marks=pytest.mark.postgres)]
DIALECTS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
FACTS_TABLE = "memguard_store_facts"


def turn(i: int = 0) -> Turn:
    return Turn(session_id="s-sql", turn_index=i, trace_id=f"trace-{i}")


# -- layouts --------------------------------------------------------------------------------------


class Layout:
    """Where the store's tables and the ledger live, and how to reach the store's rows directly."""

    def __init__(self, kind: str, tmp_path: Path, pg_url: str | None) -> None:
        self.kind = kind
        if kind == "postgres":
            assert pg_url is not None
            self.ledger_url = self.store_url = pg_url
        else:
            self.ledger_url = f"sqlite:///{tmp_path / 'ledger.db'}"
            shared = kind == "sqlite-shared"
            self.store_url = self.ledger_url if shared else f"sqlite:///{tmp_path / 'store.db'}"
        self._raw: Engine | None = None

    def ledger(self) -> Ledger:
        return Ledger.from_url(self.ledger_url)

    def store(self, ledger: Ledger, **kw: Any) -> SqlStore:
        if self.kind == "sqlite-shared":
            return SqlStore(engine=ledger.engine, **kw)
        return SqlStore(self.store_url, **kw)

    @property
    def raw(self) -> Engine:
        """Another client of the store's database (for direct edits and checks)."""
        if self._raw is None:
            self._raw = create_engine(self.store_url)
        return self._raw

    def row(self, fact_id: str) -> dict[str, Any]:
        with self.raw.connect() as conn:
            got = (
                conn.execute(
                    sql_text(f"SELECT * FROM {FACTS_TABLE} WHERE fact_id = :id"), {"id": fact_id}
                )
                .mappings()
                .one_or_none()
            )
        assert got is not None, f"no row for {fact_id}"
        return dict(got)

    def close(self) -> None:
        if self._raw is not None:
            self._raw.dispose()


@contextmanager
def _pg_or_none(kind: str) -> Iterator[str | None]:
    if kind == "postgres":
        with pg_schema_url() as url:
            yield url
    else:
        yield None


@pytest.fixture(params=LAYOUTS)
def layout(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Layout]:
    with _pg_or_none(request.param) as url:
        lay = Layout(request.param, tmp_path, url)
        yield lay
        lay.close()


@pytest.fixture
def make_guard(
    layout: Layout, tokens: LocalTokenService, clock: Clock
) -> Iterator[Callable[..., MemoryGuard]]:
    made: list[MemoryGuard] = []

    def make(**kw: Any) -> MemoryGuard:
        ledger = layout.ledger()
        store_kw = {k: kw.pop(k) for k in ("dimension",) if k in kw}
        guard = MemoryGuard(
            store=layout.store(ledger, **store_kw),
            ledger=ledger,
            verifier=tokens.verifier(clock=clock),
            clock=clock,
            **kw,
        )
        made.append(guard)
        return guard

    yield make
    for guard in made:
        guard.close()


@pytest.fixture
def guard(make_guard: Callable[..., MemoryGuard]) -> MemoryGuard:
    return make_guard()


def _write(guard: MemoryGuard, who: Identity, text: str, ns: str = "notes", **meta: Any) -> str:
    prov = guard.write(who, text, namespace=ns, source=SRC, turn=turn(), metadata=meta)
    return prov.fact_id


def _alarms(guard: MemoryGuard, fact_id: str) -> list[str]:
    return [e.reason for _, e, _ in guard.ledger.events_for(fact_id) if e.decision.value == "alarm"]


# -- the guard over SqlStore ----------------------------------------------------------------------


def test_write_search_get_update_delete_list(
    guard: MemoryGuard, tokens: LocalTokenService, layout: Layout
) -> None:
    alice = guard.authenticate(tokens.issue("alice"))
    first = guard.write(
        alice,
        "alice prefers aisle seats",
        namespace="travel",
        source=SRC,
        turn=turn(),
        metadata={"pref": "seat", "weight": 1.5, "nested": {"list": [1, "a", None, True]}},
    )
    second = _write(guard, alice, "alice is vegetarian", "food")

    hits = guard.search(alice, "aisle seats", k=5)
    assert hits[0].fact_id == first.fact_id and hits[0].text == "alice prefers aisle seats"
    assert hits[0].metadata == {
        "pref": "seat",
        "weight": 1.5,
        "nested": {"list": [1, "a", None, True]},
    }
    assert hits[0].provenance.record_digest == first.record_digest
    assert hits[0].score is not None and hits[0].score > 0
    assert {h.fact_id for h in guard.search(alice, "alice", k=10)} == {first.fact_id, second}
    assert [h.fact_id for h in guard.search(alice, "alice", k=10, namespaces=["food"])] == [second]
    assert guard.get(alice, second).text == "alice is vegetarian"

    page, cursor = guard.list_facts(alice, limit=1)
    assert len(page) == 1 and cursor is not None
    rest, end = guard.list_facts(alice, limit=10, cursor=cursor)
    assert end is None
    assert sorted([page[0].fact_id, *(f.fact_id for f in rest)]) == sorted([first.fact_id, second])

    updated = guard.update(
        alice, first.fact_id, "alice now prefers window seats", source=SRC, turn=turn(1)
    )
    assert updated.version == 2
    got = guard.get(alice, first.fact_id)
    assert (got.text, got.metadata, got.provenance.version) == (
        "alice now prefers window seats",
        {},
        2,
    )
    assert layout.row(first.fact_id)["text"] == "alice now prefers window seats"

    guard.delete(alice, second)
    with pytest.raises(FactNotFound):
        guard.get(alice, second)
    assert [h.fact_id for h in guard.search(alice, "alice", k=10)] == [first.fact_id]
    with layout.raw.connect() as conn:
        assert (
            conn.execute(
                sql_text(f"SELECT count(*) FROM {FACTS_TABLE} WHERE fact_id = :id"), {"id": second}
            ).scalar()
            == 0
        )
    assert guard.ledger.versions(second)[-1].state is FactState.DELETED
    assert audit_fact(guard.ledger, guard.store, first.fact_id)["verification"]["verified"]
    assert guard.ledger.events(decision="alarm") == []


def test_store_row_layout(guard: MemoryGuard, tokens: LocalTokenService, layout: Layout) -> None:
    """One row per fact: scope columns, content, the reserved JSON and a float32 unit vector."""
    alice = guard.authenticate(tokens.issue("alice", actors=[PLANNER]))
    vec = [3.0] + [0.0] * 383
    prov = guard.write(
        alice,
        "alice's row",
        namespace="notes",
        source=SRC,
        turn=turn(),
        vector=vec,
        metadata={"a": 1},
    )
    row = layout.row(prov.fact_id)
    assert (row["owner_iss"], row["owner_sub"]) == (prov.owner.issuer, "alice")
    assert (row["namespace"], row["trust"], row["writer_sub"]) == (
        "notes",
        int(prov.trust),
        PLANNER,
    )
    assert row["source_kind"] == "user_message" and row["derived_from_count"] == 0
    assert row["created_at"] == int(prov.created_at.timestamp())
    assert row["text"] == "alice's row"
    meta = (
        row["metadata"]
        if isinstance(row["metadata"], dict)
        else __import__("json").loads(row["metadata"])
    )
    assert meta == {"a": 1}
    blob = bytes(row["vector"])
    assert len(blob) == 4 * 384
    assert np.frombuffer(blob, dtype="<f4")[0] == 1.0  # scaled to unit length


# -- owner isolation ------------------------------------------------------------------------------


class World:
    """Bob's facts, alice's fact, and alice's chain through two agents, on one guard."""

    BOB: ClassVar[list[tuple[str, str]]] = [
        ("bob's passport number is X1234567", "travel"),
        ("bob is allergic to penicillin", "health"),
        ("bob's bank PIN is 4321", "finance"),
    ]
    ALICE = ("alice prefers aisle seats on long flights", "travel")

    def __init__(self, guard: MemoryGuard, tokens: LocalTokenService) -> None:
        self.guard = guard
        self.bob = guard.authenticate(tokens.issue("bob"))
        self.alice = guard.authenticate(tokens.issue("alice"))
        self.chain = guard.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
        self.bob_ids = {_write(guard, self.bob, t, ns) for t, ns in self.BOB}
        self.alice_id = _write(guard, self.alice, *self.ALICE)

    def bob_view(self) -> dict[str, tuple[str, int]]:
        out = {}
        for fid in self.bob_ids:
            fact = self.guard.get(self.bob, fid)
            out[fid] = (fact.text, fact.provenance.version)
        return out


@pytest.fixture
def world(guard: MemoryGuard, tokens: LocalTokenService) -> World:
    return World(guard, tokens)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"k": 1000},
        {"namespaces": ["travel", "health", "finance"], "k": 1000},
        {"min_trust": TrustLevel.QUARANTINED, "k": 1000},
        {"namespaces": ["health"]},
    ],
    ids=["default", "k1000", "all-namespaces", "min-quarantined", "health"],
)
def test_chain_search_never_sees_bobs_facts(world: World, kwargs: dict[str, Any]) -> None:
    g = world.guard
    assert {h.fact_id for h in g.search(world.bob, "bob", k=50)} == world.bob_ids  # control
    for query in [t for t, _ in World.BOB] + ["bob passport PIN penicillin"]:
        hits = g.search(world.chain, query, **kwargs)
        assert world.bob_ids.isdisjoint(h.fact_id for h in hits)
        assert all(h.provenance.owner.subject == "alice" for h in hits)
    wanted = kwargs.get("namespaces")
    expected = [world.alice_id] if wanted is None or "travel" in wanted else []
    assert [h.fact_id for h in g.search(world.chain, World.ALICE[0], **kwargs)] == expected
    # with bob's exact vectors, too
    for text, _ in World.BOB:
        vec = g.embedder.embed([text])[0]
        assert [h.fact_id for h in g.search(world.chain, vector=vec, k=1000)] == [world.alice_id]
    # pushed down: bob's rows never reached the guard's re-check (no alarm)
    assert g.ledger.events(decision="alarm") == []


def test_chain_cannot_get_update_delete_bobs_facts(world: World) -> None:
    g = world.guard
    before = world.bob_view()
    calls: dict[str, Callable[[str], object]] = {
        "get": lambda fid: g.get(world.chain, fid),
        "update": lambda fid: g.update(world.chain, fid, "EVIL", source=SRC, turn=turn(2)),
        "delete": lambda fid: g.delete(world.chain, fid),
    }
    for action, call in calls.items():
        for fid in world.bob_ids:
            with pytest.raises(FactNotFound) as info:
                call(fid)
            assert info.value.code == "not_found"
            denies = [
                e
                for e in g.ledger.events(decision="deny")
                if fid in e.fact_ids and e.action == action
            ]
            assert len(denies) == 1 and denies[0].principal is not None
            assert denies[0].principal["actors"] == [PLANNER, BROWSER]
    # unknown ids look the same as foreign ones
    errors = []
    for fid in (next(iter(world.bob_ids)), str(uuid.uuid4())):
        with pytest.raises(FactNotFound) as info:
            g.get(world.chain, fid)
        errors.append((type(info.value), info.value.code, str(info.value)))
    assert errors[0] == errors[1]
    assert world.bob_view() == before
    for fid in world.bob_ids:
        assert [(r.version, r.state) for r in g.ledger.versions(fid)] == [(1, FactState.COMMITTED)]
    assert g.get(world.chain, world.alice_id).text == World.ALICE[0]  # control


@pytest.mark.parametrize("namespaces", [None, ["travel"], ["travel", "health", "finance"]])
def test_list_facts_is_owner_scoped(world: World, namespaces: list[str] | None) -> None:
    g = world.guard
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page, cursor = g.list_facts(world.chain, namespaces=namespaces, limit=1, cursor=cursor)
        seen.extend(f.fact_id for f in page)
        if cursor is None:
            break
    assert seen == [world.alice_id]
    bob_all, _ = g.list_facts(world.bob, namespaces=namespaces, limit=100)
    expected = {
        fid
        for fid in world.bob_ids
        if namespaces is None or g.get(world.bob, fid).provenance.namespace in namespaces
    }
    assert {f.fact_id for f in bob_all} == expected
    assert g.ledger.events(decision="alarm") == []


# -- rows edited in SQL ---------------------------------------------------------------------------


def _json(value: Any) -> dict[str, Any]:
    import json

    return dict(value) if isinstance(value, dict) else dict(json.loads(value))


def _edit(layout: Layout, fact_id: str, **values: Any) -> None:
    from sqlalchemy import JSON, Column, MetaData, String, Table

    cols = [Column("fact_id", String, primary_key=True)]
    for name in values:
        cols.append(
            Column(name, JSON) if name in ("metadata", RESERVED_PAYLOAD_KEY) else Column(name)
        )
    table = Table(FACTS_TABLE, MetaData(), *cols)
    with layout.raw.begin() as conn:
        assert (
            conn.execute(update(table).where(table.c.fact_id == fact_id).values(**values)).rowcount
            == 1
        )


def _reserved(layout: Layout, fact_id: str) -> dict[str, Any]:
    return _json(layout.row(fact_id)[RESERVED_PAYLOAD_KEY])


def _forged_record(layout: Layout, fact_id: str) -> dict[str, Any]:
    """A self-consistent forgery of the JSON: record, its own digest and the trust copy."""
    r = _reserved(layout, fact_id)
    held = r["record"]
    # the guard's layout keeps the record's canonical text, adapters' layouts the object
    record = json.loads(held) if isinstance(held, str) else held
    record["trust"] = "system"
    r["record"] = canonical_json(record).decode() if isinstance(held, str) else record
    r["record_digest"] = sha256_digest(canonical_json(record))
    r["trust"] = int(TrustLevel.SYSTEM)
    return r


# name -> (edit, does alice's scoped search still select the row)
EDITS: dict[str, tuple[Callable[[Layout, str], dict[str, Any]], bool]] = {
    "text": (lambda lay, fid: {"text": "alice's PIN is 0000, tell everyone"}, True),
    "metadata": (lambda lay, fid: {"metadata": {"role": "admin"}}, True),
    "json-record": (
        lambda lay, fid: {RESERVED_PAYLOAD_KEY: {**_reserved(lay, fid), "record": {"x": 1}}},
        True,
    ),
    "json-trust": (
        lambda lay, fid: {RESERVED_PAYLOAD_KEY: {**_reserved(lay, fid), "trust": 7}},
        True,
    ),
    "json-forged-record": (lambda lay, fid: {RESERVED_PAYLOAD_KEY: _forged_record(lay, fid)}, True),
    "json-removed": (lambda lay, fid: {RESERVED_PAYLOAD_KEY: None}, True),
    "column-trust": (lambda lay, fid: {"trust": int(TrustLevel.SYSTEM)}, True),
    "column-namespace": (lambda lay, fid: {"namespace": "elsewhere"}, True),
    "column-writer": (lambda lay, fid: {"writer_sub": "root"}, True),
    "column-created-at": (lambda lay, fid: {"created_at": 1}, True),
    "column-owner": (lambda lay, fid: {"owner_sub": "bob"}, False),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_row_edited_in_sql_is_withheld_and_alarmed(
    guard: MemoryGuard, tokens: LocalTokenService, layout: Layout, edit: str
) -> None:
    alice = guard.authenticate(tokens.issue("alice"))
    bob = guard.authenticate(tokens.issue("bob"))
    victim = _write(guard, alice, "alice prefers the window seat", pref="seat")
    bystander = _write(guard, alice, "alice prefers the aisle in trains")
    fn, selected = EDITS[edit]
    _edit(layout, victim, **fn(layout, victim))

    hits = guard.search(alice, "alice prefers", k=10)
    assert [h.fact_id for h in hits] == [bystander]  # the bystander is still served
    with pytest.raises(FactNotFound):
        guard.get(alice, victim)
    page, _ = guard.list_facts(alice)
    assert [f.fact_id for f in page] == [bystander]
    alarms = _alarms(guard, victim)
    assert alarms and all(a.startswith("integrity.") for a in alarms), alarms
    if (
        not selected
    ):  # the owner column now says bob: bob's query selects it, the guard withholds it
        assert guard.search(bob, "alice prefers", k=10) == []
        assert "integrity.index_mismatch" in _alarms(guard, victim)
    assert not audit_fact(guard.ledger, guard.store, victim)["verification"]["verified"]
    assert audit_fact(guard.ledger, guard.store, bystander)["verification"]["verified"]


def test_forged_row_without_ledger_row_is_withheld(
    guard: MemoryGuard, tokens: LocalTokenService
) -> None:
    """A row inserted behind memguard's back (a copy of a real one under a new id) is never served."""
    alice = guard.authenticate(tokens.issue("alice"))
    real = _write(guard, alice, "alice's real fact")
    point = guard.store.retrieve([real])[0]
    forged = str(uuid.uuid4())
    reserved = {**point.payload[RESERVED_PAYLOAD_KEY], "fact_id": forged}
    guard.store.upsert(
        [StoredPoint(forged, {**point.payload, RESERVED_PAYLOAD_KEY: reserved}, [1.0] * 384)]
    )
    assert [h.fact_id for h in guard.search(alice, "alice's real fact", k=10)] == [real]
    assert "integrity.unknown_point" in _alarms(guard, forged)


# -- quarantine -----------------------------------------------------------------------------------


def test_quarantined_fact_is_never_returned(
    guard: MemoryGuard, tokens: LocalTokenService, layout: Layout
) -> None:
    alice = guard.authenticate(tokens.issue("alice"))
    bad = _write(guard, alice, "alice's bank moved to evil.example", "finance")
    good = _write(guard, alice, "alice's bank is the local credit union", "finance")
    report = guard.revoke(alice, RevocationSelector.fact(bad), reason="prompt injection")
    assert report.quarantined == (bad,) and report.store_synced
    # the trust column and the JSON copy were synced: the WHERE clause skips the row
    assert layout.row(bad)["trust"] == int(TrustLevel.QUARANTINED)
    assert _reserved(layout, bad)["trust"] == int(TrustLevel.QUARANTINED)
    plan = guard.scope.read_plan(alice.principal, ReadRequest("search"))
    selected, _ = guard.store.scroll(condition=plan.condition, limit=100)
    assert [p.fact_id for p in selected] == [good]

    for kwargs in (
        {},
        {"min_trust": TrustLevel.QUARANTINED, "k": 1000},
        {"namespaces": ["finance"]},
    ):
        hits = guard.search(alice, "alice's bank", **kwargs)
        assert [h.fact_id for h in hits] == [good]
    with pytest.raises(FactNotFound):
        guard.get(alice, bad)
    page, _ = guard.list_facts(alice, min_trust=TrustLevel.QUARANTINED)
    assert [f.fact_id for f in page] == [good]
    assert guard.ledger.events(decision="alarm") == []  # withheld quietly, not a tamper alarm

    # an explicit endorsement lifts it and restores the stored trust
    assert guard.endorse(alice, [bad], reason="checked by hand") == [bad]
    assert layout.row(bad)["trust"] == int(TrustLevel.USER)
    assert {h.fact_id for h in guard.search(alice, "alice's bank", k=10)} == {bad, good}


def test_quarantine_holds_when_the_store_sync_fails(
    make_guard: Callable[..., MemoryGuard],
    tokens: LocalTokenService,
    layout: Layout,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ledger is the authority: with the trust column still high, the fact is withheld anyway;
    recovery redoes the sync."""
    guard = make_guard()
    alice = guard.authenticate(tokens.issue("alice"))
    bad = _write(guard, alice, "alice's doctor is dr evil")

    def down(trust_by_id: Any) -> None:
        raise StoreError("database unavailable")

    monkeypatch.setattr(guard.store, "set_trust", down)
    assert not guard.revoke(alice, RevocationSelector.fact(bad), reason="injected").store_synced
    assert layout.row(bad)["trust"] == int(TrustLevel.USER)  # not synced
    assert guard.search(alice, "alice's doctor", k=10, min_trust=TrustLevel.QUARANTINED) == []
    with pytest.raises(FactNotFound):
        guard.get(alice, bad)
    monkeypatch.undo()
    assert guard.recover().resynced == (bad,)
    assert layout.row(bad)["trust"] == int(TrustLevel.QUARANTINED)


# -- push-down --------------------------------------------------------------------------------------


class Statements:
    """Records the SQL an engine sends, to check what the database was asked."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seen: list[tuple[str, Any]] = []
        event.listen(engine, "before_cursor_execute", self._record)

    def _record(self, conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        self.seen.append((statement, params))

    def selects(self, needle: str) -> list[tuple[str, Any]]:
        return [
            (s, p) for s, p in self.seen if s.lstrip().upper().startswith("SELECT") and needle in s
        ]

    def rows_returned(self, statement: str, params: Any) -> int:
        """Run a recorded SELECT again: how many rows the database handed to Python."""
        with self.engine.connect() as conn:
            return len(conn.exec_driver_sql(statement, params).all())

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._record)


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


@pytest.mark.parametrize("kind", DIALECTS)
def test_one_percent_scope_is_pushed_down_and_returns_k(
    kind: str, tmp_path: Path, tokens: LocalTokenService, clock: Clock
) -> None:
    """2,000 facts, 100 owners: alice's scope is 1%. The first query returns only her 20 rows to
    Python, and k=10 gives the exact top 10 of her facts; an unscoped top-10 post-filtered would
    give almost none."""
    dim, owners, per_owner = 32, 100, 20
    with _pg_or_none(kind) as url:
        lay = Layout(kind, tmp_path, url)
        engine = create_engine(lay.store_url)
        store = SqlStore(engine=engine, dimension=dim)
        guard = MemoryGuard(
            store=store, ledger=lay.ledger(), verifier=tokens.verifier(clock=clock), clock=clock
        )
        try:
            rng = np.random.default_rng(7)
            vectors = _unit(rng, owners * per_owner, dim)
            idents = [guard.authenticate(tokens.issue(f"user-{i}")) for i in range(owners)]
            own: dict[str, np.ndarray[Any, Any]] = {}
            for o in range(owners):
                batch = [
                    FactInput(
                        text=f"fact {o}-{j}",
                        namespace="notes",
                        source=SRC,
                        turn=turn(j),
                        vector=tuple(float(x) for x in vectors[o * per_owner + j]),
                    )
                    for j in range(per_owner)
                ]
                for prov, fact in zip(guard.write_many(idents[o], batch), batch, strict=True):
                    if o == 0:
                        own[prov.fact_id] = np.asarray(fact.vector, dtype=np.float32)
            alice = idents[0]
            query = _unit(rng, 1, dim)[0]
            ids = list(own)
            exact = [ids[i] for i in np.argsort(-(np.stack([own[i] for i in ids]) @ query))[:10]]

            stmts = Statements(engine)
            hits = guard.search(alice, vector=[float(x) for x in query], k=10)
            stmts.close()
            assert [h.fact_id for h in hits] == exact
            candidates = stmts.selects("vector")
            assert len(candidates) == 1  # one candidate query, no widening retry
            statement, params = candidates[0]
            assert "owner_sub" in statement and "owner_iss" in statement and "WHERE" in statement
            assert stmts.rows_returned(statement, params) == per_owner  # only alice's rows
            # what a post-filter of an unscoped top-10 would have returned
            unscoped = store.search(list(query), condition=None, limit=10)
            assert sum(h.fact_id in own for h in unscoped) < 10
            assert guard.ledger.events(decision="alarm") == []
        finally:
            guard.close()
            engine.dispose()


def test_untranslatable_condition_is_refused_before_any_sql(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 's.db'}")
    store = SqlStore(engine=engine, dimension=4)
    stmts = Statements(engine)
    bad: list[Condition] = [
        In("namespace", ()),
        And(()),
        Or(()),
        Eq("no_such_field", "x"),
        Eq("trust", True),
        Not(Eq("namespace", 1.5)),  # type: ignore[arg-type]
    ]
    # translated clauses are cached; a condition equal as a dataclass but of another type is not
    # served the cached clause (Eq("trust", True) == Eq("trust", 1) in Python)
    store.scroll(condition=Eq("trust", 1), limit=5)
    store.scroll(condition=In("trust", (1,)), limit=5)
    stmts.seen.clear()
    bad += [Eq("trust", True), In("trust", (1.0,))]  # type: ignore[arg-type]
    for cond in bad:
        with pytest.raises(UntranslatableCondition):
            store.search([1.0, 0, 0, 0], condition=And((Eq("owner_sub", "a"), cond)), limit=5)
        with pytest.raises(UntranslatableCondition):
            store.scroll(condition=cond, limit=5)
    assert stmts.seen == []
    stmts.close()
    store.close()
    engine.dispose()


class _UntranslatableScope:
    """A resolver whose read plan the SQL translator cannot express."""

    def __init__(self) -> None:
        self.inner = DefaultScopeResolver()

    @property
    def digest(self) -> str:
        return "sha256:untranslatable"

    def read_plan(self, principal: Principal, request: ReadRequest) -> ScopePlan:
        if request.action == "search":
            return ScopePlan(PlanKind.RESIDUAL, self.digest, condition=In("namespace", ()))
        return self.inner.read_plan(principal, request)

    def write_decision(self, principal: Principal, namespace: str) -> WriteDecision:
        return self.inner.write_decision(principal, namespace)


def test_untranslatable_scope_denies_the_search(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService
) -> None:
    guard = make_guard(scope=_UntranslatableScope())
    alice = guard.authenticate(tokens.issue("alice"))
    _write(guard, alice, "alice's fact")
    with pytest.raises(UntranslatableCondition):
        guard.search(alice, "alice", k=5)
    with pytest.raises(UntranslatableCondition):
        guard.list_facts(alice)
    denies = guard.ledger.events(decision="deny")
    assert [e.reason for e in denies[-2:]] == ["access_denied.untranslatable"] * 2


# -- differential: the WHERE clause == the point evaluator -----------------------------------------

NOW_FACTS = universe(80, seed=11)
EXTRA_IDS = [f"{i:08x}-eeee-4000-8000-000000000000" for i in range(4)]
ALL_VALUES = [*sorted({v for vs in FACT_DOMAIN.values() for v in vs}, key=repr), "", -1, "zzz"]


@st.composite
def _atom(draw: st.DrawFn) -> Condition:
    name = draw(st.sampled_from(sorted(FIELDS)))
    domain = list(FACT_DOMAIN[name])
    # mostly values of the field's own domain (so conditions match), sometimes any value/type
    value = st.one_of(st.sampled_from(domain), st.sampled_from(ALL_VALUES))
    kind = draw(st.sampled_from(["eq", "in", "gte"]))
    if kind == "eq":
        return Eq(name, draw(value))
    if kind == "in":
        return In(name, tuple(draw(st.lists(value, min_size=1, max_size=3))))
    ints = [v for v in domain if isinstance(v, int)] or [0, 1]
    return Gte(name, draw(st.one_of(st.sampled_from(ints), st.integers(-2, 8))))


CONDITIONS: st.SearchStrategy[Condition] = st.recursive(
    _atom(),
    lambda inner: st.one_of(
        st.builds(And, st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.builds(Or, st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.builds(Not, inner),
    ),
    max_leaves=8,
)


def _point(fid: str, fields: dict[str, FieldValue]) -> StoredPoint:
    reserved = {k: v for k, v in {**fields, "fact_id": fid}.items()}
    return StoredPoint(
        fid, {"text": f"t {fid}", "metadata": {}, RESERVED_PAYLOAD_KEY: reserved}, [1.0, 0.0]
    )


@pytest.fixture(scope="module", params=DIALECTS)
def diff_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SqlStore]:
    with _pg_or_none(request.param) as url:
        path = tmp_path_factory.mktemp("diff") / "store.db"
        store = SqlStore(url or f"sqlite:///{path}", dimension=2)
        store.upsert([_point(fid, f) for fid, f in NOW_FACTS.items()])
        yield store
        store.close()


STATS = {"cases": 0, "partial": 0}


@settings(
    max_examples=int(os.environ.get("SQL_EXAMPLES", "250")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(cond=CONDITIONS, extra=st.lists(random_facts(), max_size=len(EXTRA_IDS)))
def test_where_clause_equals_point_evaluator(
    diff_store: SqlStore, cond: Condition, extra: list[dict[str, FieldValue]]
) -> None:
    added = {fid: {**f, "fact_id": fid} for fid, f in zip(EXTRA_IDS, extra, strict=False)}
    items: dict[str, dict[str, FieldValue]] = {**NOW_FACTS, **added}
    diff_store.upsert([_point(fid, f) for fid, f in added.items()])
    try:
        expected = {fid for fid, f in items.items() if evaluate(cond, f)}
        scrolled, cursor = diff_store.scroll(condition=cond, limit=len(items) + 1)
        assert cursor is None
        assert {p.fact_id for p in scrolled} == expected, "scroll vs evaluate"
        searched = diff_store.search([1.0, 0.0], condition=cond, limit=len(items) + 1)
        assert {h.fact_id for h in searched} == expected, "search vs evaluate"
        if expected:  # a page in the middle is the same slice of the ranking
            ranked = [h.fact_id for h in searched]
            page = diff_store.search([1.0, 0.0], condition=cond, limit=2, offset=1)
            assert [h.fact_id for h in page] == ranked[1:3]
        STATS["cases"] += 1
        STATS["partial"] += 0 < len(expected) < len(items)
    finally:
        diff_store.delete(list(added))


@settings(
    max_examples=int(os.environ.get("SQL_POLICY_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(
    policy=policies(),
    principal=principals(),
    action=st.sampled_from(["search", "get"]),
    purpose=st.sampled_from(["answer", "tool_argument", "planning"]),
)
def test_policy_read_plans_select_what_the_point_evaluator_allows(
    diff_store: SqlStore, policy: PolicySet, principal: Principal, action: str, purpose: str
) -> None:
    """Random YAML-language policies compiled to read plans: the store's selection equals the
    policy engine's own point decision on every fact."""
    resolver = PolicyResolver(policy, clock=lambda: float(NOW))
    request = ReadRequest(action, purpose=purpose)
    plan = resolver.read_plan(principal, request)
    penv = principal_env(principal, purpose)
    allowed = {
        fid
        for fid, f in NOW_FACTS.items()
        if resolver.engine.decide_env(penv, action, f, NOW).allowed
    }
    if plan.kind is PlanKind.DENY:
        selected: set[str] = set()
    else:
        condition = None if plan.kind is PlanKind.ALLOW else plan.condition
        points, _ = diff_store.scroll(condition=condition, limit=len(NOW_FACTS) + 1)
        selected = {p.fact_id for p in points}
    assert selected == allowed


def test_the_random_conditions_are_interesting() -> None:
    if STATS["cases"] == 0:
        pytest.skip("runs after the property test in the same session")
    assert STATS["partial"] >= STATS["cases"] // 5, STATS


def test_list_values_and_missing_fields_in_the_side_table(tmp_path: Path) -> None:
    """Hand-picked cases of the reference semantics: any tag matches, an empty list is missing,
    and a negation needs the field to be present."""
    store = SqlStore(f"sqlite:///{tmp_path / 's.db'}", dimension=2)
    store.upsert(
        [
            _point("a", {"tags": ["x", "y"], "namespace": "n"}),
            _point("b", {"tags": [], "namespace": "n"}),
            _point("c", {"namespace": None}),
            _point("d", {"tags": ["z"], "trust": 3}),
        ]
    )

    def ids(cond: Condition) -> list[str]:
        return [p.fact_id for p in store.scroll(condition=cond, limit=10)[0]]

    assert ids(Eq("tags", "y")) == ["a"]
    assert ids(Not(Eq("tags", "x"))) == ["d"]  # b (empty) and c (absent) have no tags
    assert ids(Not(Eq("namespace", "n"))) == []  # c's namespace is null, d has none
    assert ids(Not(Gte("trust", 4))) == ["d"]
    assert ids(In("tags", ("z", 1))) == ["d"]
    assert ids(Or((Eq("namespace", "n"), Gte("trust", 3)))) == ["a", "b", "d"]
    store.delete(["a"])
    assert ids(Eq("tags", "y")) == []
    store.close()


# -- crash safety -----------------------------------------------------------------------------------


def _poison(layout: Layout) -> None:
    """A trigger that makes the database refuse a row mid-batch (a real backend failure)."""
    with layout.raw.begin() as conn:
        if layout.raw.dialect.name == "postgresql":
            conn.exec_driver_sql(
                "CREATE FUNCTION mg_poison() RETURNS trigger AS $$ BEGIN "
                "IF strpos(NEW.text, 'poison') > 0 THEN RAISE EXCEPTION 'poisoned row'; END IF; "
                "RETURN NEW; END $$ LANGUAGE plpgsql"
            )
            conn.exec_driver_sql(
                f"CREATE TRIGGER mg_poison BEFORE INSERT ON {FACTS_TABLE} "
                "FOR EACH ROW EXECUTE FUNCTION mg_poison()"
            )
        else:
            conn.exec_driver_sql(
                f"CREATE TRIGGER mg_poison BEFORE INSERT ON {FACTS_TABLE} "
                "WHEN NEW.text LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END"
            )


def _batch(tag: str, n: int, poison_at: int | None = None) -> list[FactInput]:
    return [
        FactInput(
            text=f"alice {tag} fact {i}" + (" poison" if i == poison_at else ""),
            namespace="notes",
            source=SRC,
            turn=turn(i),
        )
        for i in range(n)
    ]


def test_store_failure_aborts_the_ledger_rows(
    guard: MemoryGuard, tokens: LocalTokenService, layout: Layout
) -> None:
    alice = guard.authenticate(tokens.issue("alice"))
    kept = _write(guard, alice, "alice's committed fact")
    _poison(layout)
    with pytest.raises(StoreError):
        guard.write_many(alice, _batch("torn", 4, poison_at=2))
    deny = guard.ledger.events(decision="deny")[-1]
    assert (deny.action, deny.reason, len(deny.fact_ids)) == ("write", "backend.store", 4)
    with layout.raw.connect() as conn:
        stored = conn.execute(
            sql_text(f"SELECT count(*) FROM {FACTS_TABLE} WHERE text LIKE '%torn%'")
        ).scalar()
    assert stored == 0  # one transaction: none of the batch reached the table
    for fact_id in deny.fact_ids:
        assert [v.state for v in guard.ledger.versions(fact_id)] == [FactState.ABORTED]
        with pytest.raises(FactNotFound):
            guard.get(alice, fact_id)
    assert guard.ledger.in_state(FactState.PENDING) == []
    assert [h.fact_id for h in guard.search(alice, "alice fact", k=10)] == [kept]
    # an update refused by the database leaves the old version in force
    with pytest.raises(StoreError):
        guard.update(alice, kept, "poison", source=SRC, turn=turn(5))
    assert guard.get(alice, kept).text == "alice's committed fact"
    assert [v.state for v in guard.ledger.versions(kept)] == [
        FactState.COMMITTED,
        FactState.ABORTED,
    ]
    # after the fault, writes work again
    written = guard.write_many(alice, _batch("retried", 2))
    hits = {h.fact_id for h in guard.search(alice, "alice retried fact", k=10)}
    assert hits == {p.fact_id for p in written} | {kept}


def test_a_crash_between_store_and_ledger_commit_is_recovered(
    make_guard: Callable[..., MemoryGuard],
    tokens: LocalTokenService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The row reached the store but the process died before the ledger commit: the pending row
    is not served; recovery finds the store row with the same record digest and commits it. (A
    commit that *fails* while the process lives is resolved in-process: tests/test_kernel.py.)"""
    guard = make_guard()
    alice = guard.authenticate(tokens.issue("alice"))

    class Crash(BaseException):
        pass

    def lost(*args: Any, **kwargs: Any) -> None:
        raise Crash  # the process dies: nothing in the guard gets to resolve the rows

    monkeypatch.setattr(guard.ledger, "commit", lost)
    with pytest.raises(Crash):
        guard.write(alice, "alice's half-written fact", namespace="notes", source=SRC, turn=turn())
    monkeypatch.undo()
    (pending,) = guard.ledger.in_state(FactState.PENDING)
    assert guard.store.retrieve([pending.fact_id])  # the store has it
    assert guard.search(alice, "alice's half-written fact", k=5) == []  # but it is not served
    with pytest.raises(FactNotFound):
        guard.get(alice, pending.fact_id)

    fresh = make_guard()  # a restarted process: recovery runs on start
    assert [v.state for v in fresh.ledger.versions(pending.fact_id)][-1] is FactState.COMMITTED
    alice = fresh.authenticate(tokens.issue("alice"))
    assert [h.fact_id for h in fresh.search(alice, "alice's half-written fact", k=5)] == [
        pending.fact_id
    ]


def test_a_crash_before_the_store_write_is_aborted_on_recovery(
    make_guard: Callable[..., MemoryGuard],
    tokens: LocalTokenService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    guard = make_guard()
    alice = guard.authenticate(tokens.issue("alice"))

    def interrupted(points: Any) -> None:
        raise KeyboardInterrupt  # the process dies: nothing in the guard gets to abort the rows

    monkeypatch.setattr(guard.store, "upsert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        guard.write(alice, "alice's lost fact", namespace="notes", source=SRC, turn=turn())
    monkeypatch.undo()
    (pending,) = guard.ledger.in_state(FactState.PENDING)
    assert guard.store.retrieve([pending.fact_id]) == []
    report = guard.recover()
    assert report.aborted == (pending.fact_id,)
    assert [v.state for v in guard.ledger.versions(pending.fact_id)] == [FactState.ABORTED]


def test_closed_store_fails_closed(guard: MemoryGuard, tokens: LocalTokenService) -> None:
    alice = guard.authenticate(tokens.issue("alice"))
    kept = _write(guard, alice, "alice's fact")
    guard.store.close()
    with pytest.raises(StoreError):
        guard.write(alice, "more", namespace="notes", source=SRC, turn=turn())
    with pytest.raises(StoreError):
        guard.search(alice, "alice", k=5)
    with pytest.raises(StoreError):
        guard.get(alice, kept)
    assert [e.reason for e in guard.ledger.events(decision="deny")[-3:]] == ["backend.store"] * 3
    assert guard.ledger.in_state(FactState.PENDING) == []


# -- the row facade -----------------------------------------------------------------------------------


def _memory(guard: MemoryGuard, ident: Identity, **ctx: Any) -> GuardedSqlMemory:
    context = CallContext(source=ctx.pop("source", SRC), turn=ctx.pop("turn", turn()), **ctx)
    return GuardedSqlMemory(guard, identity=ident, context=context)


def test_facade_add_get_list_search_update_delete(
    guard: MemoryGuard, tokens: LocalTokenService
) -> None:
    alice = guard.authenticate(tokens.issue("alice", actors=[PLANNER]))
    mem = _memory(guard, alice)
    row = mem.add("alice prefers aisle seats", namespace="travel", metadata={"pref": "seat"})
    assert isinstance(row, MemoryRow) and row.trust is TrustLevel.USER and row.version == 1
    web = mem.with_context(
        source=Source(kind=SourceKind.WEB, uri="https://evil.example/page"), turn=turn(1)
    )
    tip = web.add("the best seats are always in row 13", namespace="travel")
    assert tip.trust is TrustLevel.UNTRUSTED and tip.source == "web:https://evil.example/page"
    assert tip.provenance.turn.turn_index == 1

    assert mem.get(row.id).text == "alice prefers aisle seats"
    assert mem.get(row.id).metadata == {"pref": "seat"}
    hits = mem.search("aisle seats", k=1)
    assert [h.id for h in hits] == [row.id] and hits[0].score is not None
    assert "trust=user" in hits[0].summary()
    assert {h.id for h in mem.search("seats", min_trust=TrustLevel.USER, k=10)} == {row.id}
    rows, cursor = mem.list(limit=10)
    assert {r.id for r in rows} == {row.id, tip.id} and cursor is None

    changed = mem.update(row.id, "alice now prefers window seats", metadata={"pref": "window"})
    assert changed.version == 2 and mem.get(row.id).text == "alice now prefers window seats"
    mem.delete(tip.id)
    with pytest.raises(FactNotFound):
        mem.get(tip.id)


def test_facade_keyword_search_is_in_the_where_clause(
    guard: MemoryGuard, tokens: LocalTokenService
) -> None:
    alice = guard.authenticate(tokens.issue("alice"))
    bob = guard.authenticate(tokens.issue("bob"))
    mem, bobs = _memory(guard, alice), _memory(guard, bob)
    a1 = mem.add("Alice's PASSPORT expires in May", namespace="travel").id
    a2 = mem.add("alice's passport photo is in the drawer", namespace="home").id
    mem.add("alice likes tea", namespace="food")
    bobs.add("bob's passport number is X1234567", namespace="travel")
    bobs.add("bob keeps 100%_of his savings in bonds", namespace="finance")

    stmts = Statements(guard.store._engine)  # type: ignore[attr-defined]
    assert {r.id for r in mem.search(contains=["passport"], k=10)} == {a1, a2}
    stmts.close()
    ((statement, params),) = stmts.selects("vector")
    assert "LIKE" in statement.upper() and "owner_sub" in statement
    assert (
        stmts.rows_returned(statement, params) == 2
    )  # only alice's passport rows left the database
    assert mem.search("expires", contains=["passport"], k=10)[0].id == a1
    assert [r.id for r in mem.search(contains=["passport", "drawer"], k=10)] == [a2]
    assert [r.id for r in mem.search(contains=["passport"], namespaces=["travel"], k=10)] == [a1]
    assert mem.search(contains=["X1234567"], k=10) == []  # bob's text is outside alice's WHERE
    assert mem.search(contains=["100%_of"], k=10) == []
    assert len(bobs.search(contains=["100%_of"], k=10)) == 1  # LIKE wildcards are escaped
    assert bobs.search(contains=["%"], k=10)[0].text.startswith("bob keeps")
    with pytest.raises(Exception) as info:
        mem.search(contains=[], k=10)
    assert getattr(info.value, "code", None) == "invalid_request"
    with pytest.raises(Exception) as info:
        mem.search(contains=["passport"], k=0)
    assert getattr(info.value, "code", None) == "invalid_request"
    events = [
        e for e in guard.ledger.events() if e.action == "search" and e.decision.value == "allow"
    ]
    assert events and all(e.principal is not None for e in events)


def test_facade_isolation_and_no_escape_hatch(
    guard: MemoryGuard, tokens: LocalTokenService
) -> None:
    alice = guard.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    bob = guard.authenticate(tokens.issue("bob"))
    mem, bobs = _memory(guard, alice), _memory(guard, bob)
    secret = bobs.add("bob's bank PIN is 4321", namespace="finance")
    for call in (
        lambda: mem.get(secret.id),
        lambda: mem.update(secret.id, "EVIL"),
        lambda: mem.delete(secret.id),
    ):
        with pytest.raises(FactNotFound):
            call()
    assert mem.search("bob's bank PIN", k=100) == []
    assert mem.list(limit=100) == ([], None)
    assert bobs.get(secret.id).text == "bob's bank PIN is 4321"

    for name in ("guard", "store", "engine", "_engine", "kernel", "_client", "execute", "session"):
        with pytest.raises(AttributeError):
            getattr(mem, name)
    public = [n for n in dir(mem) if not n.startswith("_")]
    assert set(public) == {
        "add",
        "context",
        "delete",
        "get",
        "list",
        "search",
        "update",
        "with_context",
    }
    for name in public:
        value = getattr(mem, name)
        assert not isinstance(value, (MemoryGuard, SqlStore, Engine))
    with pytest.raises(AttributeError):
        mem.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(IdentityError) as refused:  # the same refusal as in every adapter
        GuardedSqlMemory(guard, identity="alice", context=mem.context)  # type: ignore[arg-type]
    assert refused.value.code == "identity.missing"


# -- configuration ------------------------------------------------------------------------------------


def test_sqlite_store_is_in_wal_mode(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'wal.db'}", dimension=4)
    with store._engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    store.close()


def test_configuration_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    SqlStore(url, dimension=8).close()
    with pytest.raises(StoreError, match="dimension"):
        SqlStore(url, dimension=16)
    other = SqlStore(url, table_prefix="other", dimension=16)  # another prefix, other tables
    other.close()
    for bad in ("", "Bad", "1abc", "a-b", "x" * 40, "drop table;"):
        with pytest.raises(ConfigurationError):
            SqlStore(url, table_prefix=bad)
    with pytest.raises(ConfigurationError):
        SqlStore("mysql://localhost/db")
    with pytest.raises(ConfigurationError):
        SqlStore()
    with pytest.raises(ConfigurationError):
        SqlStore(url, dimension=0)
    store = SqlStore(url, dimension=8)
    for vec in ([1.0] * 7, [float("nan")] * 8):
        with pytest.raises(StoreError):
            store.upsert([StoredPoint("x", {"text": "t", "metadata": {}}, vec)])
    store.close()

    from importlib import metadata

    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda d: "1.4.54" if d == "sqlalchemy" else real(d))
    with pytest.raises(ConfigurationError, match="sqlalchemy"):
        SqlStore(url, dimension=8)
    assert SUPPORTED == (">=", "2.0", "<", "3")


def test_in_memory_sqlite_store(tokens: LocalTokenService, tmp_path: Path, clock: Clock) -> None:
    """``sqlite://`` keeps one shared connection (an in-memory database per connection is empty)."""
    guard = MemoryGuard(
        store=SqlStore("sqlite://"),
        ledger=Ledger.sqlite(tmp_path / "l.db"),
        verifier=tokens.verifier(clock=clock),
        clock=clock,
    )
    alice = guard.authenticate(tokens.issue("alice"))
    fid = _write(guard, alice, "alice in memory")
    assert [h.fact_id for h in guard.search(alice, "alice", k=3)] == [fid]
    guard.close()


def test_ranking_ties_page_consistently(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 't.db'}", dimension=2)
    ids = [str(uuid.UUID(int=random.Random(3).getrandbits(128) + i)) for i in range(9)]
    store.upsert([_point(fid, {"namespace": "n"}) for fid in ids])
    full = [h.fact_id for h in store.search([1.0, 0.0], condition=Eq("namespace", "n"), limit=20)]
    assert full == sorted(ids)
    paged = [
        h.fact_id
        for off in range(0, 9, 2)
        for h in store.search([1.0, 0.0], condition=Eq("namespace", "n"), limit=2, offset=off)
    ]
    assert paged == full
    store.close()


def test_errors_are_store_errors(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'e.db'}", dimension=2)
    with store._engine.begin() as conn:
        conn.exec_driver_sql(f"DROP TABLE {FACTS_TABLE.replace('facts', 'fact_values')}")
    with pytest.raises(StoreError) as info:
        store.upsert([_point("a", {"tags": ["x"]})])
    assert isinstance(info.value, MemguardError) and info.value.code == "backend.store"
    store.close()
    with pytest.raises(StoreError):
        store.retrieve(["a"])
