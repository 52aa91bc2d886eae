"""Push-down through the QdrantStore: the Qdrant filter, the in-memory store and ``evaluate`` agree.

A differential property test (hypothesis) generates random conditions over the indexed fields, with
``Not``/``Or``/``And`` nesting, and random point payloads under the reserved key (missing fields,
nulls, empty lists, list-valued fields, wrong-typed values, a missing or non-object reserved key), and
compares three selections:

- ``evaluate`` (the reference semantics) on each point's indexed fields;
- Qdrant local mode: a raw ``scroll`` with the translated filter, and ``QdrantStore.search`` with a
  limit larger than the collection;
- ``InMemoryStore.search`` with the same condition.

On points whose fields are well-typed (what memguard writes) the three are the same set. On a point
with a mistyped field (edited outside memguard) Qdrant has no type test, so it may select more than
the reference, never less; the guard's re-check (``ScopePlan.allows``, ``evaluate``) withholds it.
The policy-level differential test over every backend is ``tests/test_policy_differential.py``.

Profiles: ``ci`` (default, a few hundred examples, well under 40 s) and ``long`` (thousands of
examples, for a soak run): ``HYPOTHESIS_PROFILE=long /work/venv/bin/pytest -q tests/test_pushdown.py``.

Then a deterministic test through the guard: at 1% selectivity a ``k=10`` search returns exactly 10
allowed facts from one pushed-down store query (a post-filtered top-k would return ~0).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qdrant_client import QdrantClient

from memguard import InMemoryStore, LocalTokenService, MemoryGuard, QdrantStore, TrustLevel
from memguard.errors import StoreError, UntranslatableCondition
from memguard.guard import FactInput
from memguard.provenance import Source, Turn
from memguard.pushdown.qdrant import to_qdrant_filter
from memguard.scope import FIELDS, And, Condition, Eq, Gte, In, Not, Or, evaluate, typed_values
from memguard.stores.base import RESERVED_PAYLOAD_KEY, StoredPoint
from memguard.trust import SourceKind

settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

DIM = 4
FIELD_NAMES = sorted(FIELDS)
STRS = ["a", "b", "c", ""]
OWNERS_POOL = ["a", "b"]
INTS = [-1, 0, 1, 2, 5]

# -- strategies ---------------------------------------------------------------------------------

scalars = st.one_of(st.sampled_from(STRS), st.sampled_from(INTS))


def _field_value(name: str) -> st.SearchStrategy[Any]:
    """A payload value for one field: right type, wrong type, null, lists (possibly empty or mixed).

    No floats: memguard never writes one, and a float is the one known divergence of local mode
    (Qdrant's range matches any JSON number, ``evaluate`` only integers, and Qdrant has no type test
    to guard it with). A tampered float would surface as a withheld hit plus an alarm, since every
    hit is re-checked against its ledger record.
    """
    wrong: list[st.SearchStrategy[Any]] = [st.booleans(), st.just({"nested": "a"})]
    element = st.one_of(scalars, st.none(), *wrong)
    return st.one_of(
        scalars,
        st.none(),
        *wrong,
        st.lists(element, max_size=3),
        st.just([[1, "a"]]),  # a nested list: neither side unwraps more than one level
    )


@st.composite
def reserved_payload(draw: st.DrawFn) -> Any:
    fields = {}
    for name in draw(st.lists(st.sampled_from(FIELD_NAMES), unique=True, max_size=6)):
        fields[name] = draw(_field_value(name))
    if draw(st.booleans()):  # a plain owner, as memguard writes it: lands in an owner partition
        fields["owner_iss"] = draw(st.sampled_from(OWNERS_POOL))
        fields["owner_sub"] = draw(st.sampled_from(OWNERS_POOL))
    return fields


@st.composite
def point_payload(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["fields"] * 8 + ["missing", "not-an-object"]))
    payload: dict[str, Any] = {"text": "t", "metadata": {}}
    if kind == "fields":
        payload[RESERVED_PAYLOAD_KEY] = draw(reserved_payload())
    elif kind == "not-an-object":
        payload[RESERVED_PAYLOAD_KEY] = draw(st.sampled_from(["x", 3, [{"trust": 1}], None]))
    # caller metadata that looks like indexed fields must never be selected on
    payload["metadata"] = {"trust": 5, "owner_sub": "a"}
    return payload


field_names = st.sampled_from(FIELD_NAMES)
atoms: st.SearchStrategy[Condition] = st.one_of(
    st.builds(Eq, field_names, scalars),
    st.builds(
        In, field_names, st.lists(scalars, min_size=1, max_size=3).map(tuple)
    ),
    st.builds(Gte, field_names, st.sampled_from(INTS)),
)
conditions: st.SearchStrategy[Condition] = st.recursive(
    atoms,
    lambda children: st.one_of(
        st.builds(And, st.lists(children, min_size=1, max_size=3).map(tuple)),
        st.builds(Or, st.lists(children, min_size=1, max_size=3).map(tuple)),
        st.builds(Not, children),
    ),
    max_leaves=8,
)

# conditions shaped like a read scope: top-level owner equalities and a random residual, so that the
# partitioned local store takes its owner-partition route (other shapes search every partition)
scoped: st.SearchStrategy[Condition] = st.tuples(
    st.sampled_from(OWNERS_POOL), st.sampled_from(OWNERS_POOL), st.lists(conditions, max_size=2)
).flatmap(
    lambda t: st.permutations([Eq("owner_iss", t[0]), Eq("owner_sub", t[1]), *t[2]]).map(
        lambda items: And(tuple(items))
    )
)
any_condition = st.one_of(conditions, scoped)

# -- fixtures -----------------------------------------------------------------------------------


class Backends:
    """One Qdrant local client (fresh collections per example) and a fresh in-memory store.

    ``qstore`` partitions by owner (the local-mode default), ``flat`` keeps one collection.
    """

    def __init__(self) -> None:
        self.client = QdrantClient(location=":memory:")
        self.n = 0

    def load(
        self, payloads: list[dict[str, Any]]
    ) -> tuple[QdrantStore, QdrantStore, InMemoryStore, list[str]]:
        self.n += 1
        qstore = QdrantStore(
            client=self.client, collection=f"part_{self.n}", dimension=DIM, partition_by_owner=True
        )
        flat = QdrantStore(
            client=self.client, collection=f"flat_{self.n}", dimension=DIM, partition_by_owner=False
        )
        mstore = InMemoryStore(dimension=DIM)
        rng = np.random.default_rng(self.n)
        ids = [str(uuid.UUID(int=i + 1)) for i in range(len(payloads))]
        points = [
            StoredPoint(i, p, [float(x) + 0.01 for x in rng.random(DIM)])
            for i, p in zip(ids, payloads, strict=True)
        ]
        if points:
            # two batches, so routing works across calls too
            for store in (qstore, flat, mstore):
                store.upsert(points[: len(points) // 2])
                store.upsert(points[len(points) // 2 :])
        return qstore, flat, mstore, ids

    def drop(self) -> None:
        for desc in self.client.get_collections().collections:
            self.client.delete_collection(desc.name)


@pytest.fixture(scope="module")
def backends() -> Iterator[Backends]:
    b = Backends()
    yield b
    b.client.close()


# -- the differential property ------------------------------------------------------------------


@given(
    cond=any_condition,
    payloads=st.lists(point_payload(), min_size=0, max_size=12),
)
def test_qdrant_filter_equals_reference(
    backends: Backends, cond: Condition, payloads: list[dict[str, Any]]
) -> None:
    qstore, flat, mstore, ids = backends.load(payloads)
    try:
        points = {i: StoredPoint(i, p) for i, p in zip(ids, payloads, strict=True)}
        expected = {i for i, p in points.items() if evaluate(cond, p.index)}
        typed = {i for i, p in points.items() if _well_typed(p.index)}

        records, _ = backends.client.scroll(
            flat.collection, scroll_filter=to_qdrant_filter(cond), limit=1000
        )
        raw = {str(r.id) for r in records}
        probe = [1.0] * DIM
        partitioned = qstore.search(probe, condition=cond, limit=1000)
        via_flat = {h.fact_id for h in flat.search(probe, condition=cond, limit=1000)}
        in_memory = mstore.search(probe, condition=cond, limit=1000)

        # exact on well-typed points; at most more (never less) on mistyped ones
        assert raw & typed == expected & typed, (cond, [points[i].index for i in raw ^ expected])
        assert raw >= expected, (cond, [points[i].index for i in expected - raw])
        assert via_flat == raw
        assert {h.fact_id for h in partitioned} == raw
        assert len(partitioned) == len(raw)  # no id twice across partitions
        assert {h.fact_id for h in in_memory} == expected
        # the re-check closes the gap: what the store returned and the reference admits
        assert {i for i in raw if evaluate(cond, points[i].index)} == expected
        # ranking and paging agree with the exact in-memory ranking
        assert [h.fact_id for h in partitioned if h.fact_id in expected] == [
            h.fact_id for h in in_memory
        ]
        if raw == expected:
            page = qstore.search(probe, condition=cond, limit=2, offset=1)
            assert [h.fact_id for h in page] == [h.fact_id for h in in_memory][1:3]
        # retrieve and delete by id find a point whatever partition holds it
        assert {p.fact_id for p in qstore.retrieve(ids)} == set(ids)
        if ids:
            qstore.delete(ids[:1])
            assert {p.fact_id for p in qstore.retrieve(ids)} == set(ids[1:])
            left = {h.fact_id for h in qstore.search(probe, condition=None, limit=1000)}
            assert left == set(ids[1:])
    finally:
        backends.drop()


def _well_typed(index: Any) -> bool:
    """Every indexed field is missing or holds a value of its type and domain."""
    return all(
        index.get(name) in (None, []) or typed_values(name, index.get(name)) is not None
        for name in FIELDS
    )


@given(cond=conditions)
@settings(max_examples=100)
def test_translation_is_total_on_valid_conditions(cond: Condition) -> None:
    """Every well-formed condition over known fields translates (no spurious refusals)."""
    to_qdrant_filter(cond)


UNTRANSLATABLE: list[Condition] = [
    In("namespace", ()),
    And(()),
    Or(()),
    Eq("no_such_field", "a"),
    In("no_such_field", ("a",)),
    Gte("no_such_field", 1),
    Eq("trust", True),
    Eq("namespace", False),
    In("trust", (1, True)),
    Gte("trust", True),
    Gte("trust", 1.5),  # type: ignore[arg-type]
    Eq("trust", 1.5),  # type: ignore[arg-type]
    Eq("namespace", None),  # type: ignore[arg-type]
    # nested anywhere
    And((Eq("owner_sub", "a"), Or((Eq("trust", 1), In("namespace", ()))))),
    Not(And(())),
    Or((Eq("namespace", "a"), Not(Eq("bogus", "x")))),
]


@pytest.mark.parametrize("cond", UNTRANSLATABLE, ids=repr)
def test_untranslatable_conditions_are_refused(cond: Condition) -> None:
    with pytest.raises(UntranslatableCondition):
        to_qdrant_filter(cond)
    store = QdrantStore(location=":memory:", dimension=DIM)
    try:
        with pytest.raises(UntranslatableCondition):
            store.search([1.0] * DIM, condition=cond, limit=10)
    finally:
        store.close()


@given(cond=conditions, data=st.data())
@settings(max_examples=50)
def test_untranslatable_anywhere_in_a_tree_is_refused(cond: Condition, data: st.DataObject) -> None:
    bad = data.draw(st.sampled_from(UNTRANSLATABLE))
    wrapped = data.draw(
        st.sampled_from([And((cond, bad)), Or((bad, cond)), Not(And((cond, Not(bad))))])
    )
    with pytest.raises(UntranslatableCondition):
        to_qdrant_filter(wrapped)


def _point(fact_id: str, iss: Any, sub: Any, trust: int) -> StoredPoint:
    reserved = {"owner_iss": iss, "owner_sub": sub, "trust": trust}
    return StoredPoint(fact_id, {"text": "t", "metadata": {}, RESERVED_PAYLOAD_KEY: reserved}, [1.0] * DIM)


def test_partitions_survive_reopen_and_legacy_points(tmp_path: Any) -> None:
    """A ``path=`` store: a one-collection (legacy) point, partitioned points, reopen, move, delete."""
    ids = [str(uuid.UUID(int=i + 1)) for i in range(4)]
    path = str(tmp_path / "q")
    legacy = QdrantStore(path=path, dimension=DIM, partition_by_owner=False)
    legacy.upsert([_point(ids[0], "iss", "alice", 4)])
    legacy.close()

    store = QdrantStore(path=path, dimension=DIM, partition_by_owner=True)
    store.upsert([_point(ids[1], "iss", "alice", 4), _point(ids[2], "iss", "bob", 4)])
    store.upsert([_point(ids[3], ["iss"], "alice", 4)])  # not a plain owner: stays in base
    alice = And((Eq("owner_iss", "iss"), Eq("owner_sub", "alice"), Gte("trust", 1)))
    probe = [1.0] * DIM
    assert {h.fact_id for h in store.search(probe, condition=alice, limit=10)} == {
        ids[0], ids[1], ids[3]
    }
    store.close()

    with pytest.raises(StoreError):  # opening it as one collection would miss the partitions
        QdrantStore(path=path, dimension=DIM, partition_by_owner=False)
    store = QdrantStore(path=path, dimension=DIM)  # follows the disk; the id map is rebuilt
    assert {p.fact_id for p in store.retrieve(ids)} == set(ids)
    assert store.retrieve([str(uuid.UUID(int=99))]) == []
    # the legacy point is re-written: it moves into alice's partition, no duplicate remains
    store.upsert([_point(ids[0], "iss", "alice", 5)])
    hits = store.search(probe, condition=None, limit=10)
    assert sorted(h.fact_id for h in hits) == sorted(ids)
    # an owner change moves a point between partitions
    store.upsert([_point(ids[2], "iss", "alice", 4)])
    assert {h.fact_id for h in store.search(probe, condition=alice, limit=10)} == set(ids)
    store.delete(ids[:3])
    assert [p.fact_id for p in store.retrieve(ids)] == [ids[3]]
    assert [h.fact_id for h in store.search(probe, condition=alice, limit=10)] == [ids[3]]
    store.close()


# -- through the guard: 1% selectivity, k=10 ----------------------------------------------------

N_FACTS = 2000
OWNERS = 50  # 40 facts each
DIM_GUARD = 384


def _unit(rng: np.random.Generator) -> list[float]:
    v = rng.standard_normal(DIM_GUARD)
    return [float(x) for x in v / np.linalg.norm(v)]


@pytest.mark.parametrize("store_name", ["memory", "qdrant-memory"])
def test_guard_search_at_one_percent_returns_k_allowed(
    make_guard: Callable[..., MemoryGuard], tokens: LocalTokenService, store_name: str
) -> None:
    """2,000 facts, 50 owners; the caller owns 40, of which 20 are ``user`` and 20 ``untrusted``.

    ``min_trust=user`` keeps 20 facts (1%). The query vector sits next to *other* owners' facts, so
    a post-filtered top-k would return (almost) nothing; the guard must answer from one store
    query with the full condition pushed down.
    """
    guard = make_guard(store_name)
    rng = np.random.default_rng(7)
    idents = [guard.authenticate(tokens.issue(f"owner-{i}")) for i in range(OWNERS)]
    src = Source(kind=SourceKind.USER_MESSAGE)
    hub = _unit(rng)  # other owners' facts cluster around `hub`, the query
    mine_high: set[str] = set()
    mine_low: set[str] = set()
    my_vectors: dict[str, list[float]] = {}
    for o, ident in enumerate(idents):
        facts = []
        for j in range(N_FACTS // OWNERS):
            if o == 0:
                vec = _unit(rng)
            else:
                noisy = np.asarray(hub) + 0.05 * rng.standard_normal(DIM_GUARD)
                vec = [float(x) for x in noisy / np.linalg.norm(noisy)]
            low = o == 0 and j % 2 == 1
            facts.append(
                FactInput(
                    text=f"fact {o}/{j}",
                    namespace="notes",
                    source=src,
                    turn=Turn(session_id=f"s{o}", turn_index=j),
                    trust=TrustLevel.UNTRUSTED if low else None,
                    vector=tuple(vec),
                )
            )
        provs = guard.write_many(ident, facts)
        if o == 0:
            for prov, fact in zip(provs, facts, strict=True):
                assert fact.vector is not None
                my_vectors[prov.fact_id] = list(fact.vector)
                (mine_low if prov.trust < TrustLevel.USER else mine_high).add(prov.fact_id)
    assert len(mine_high) == 20 and len(mine_low) == 20
    latest = guard.ledger.latest(list(mine_high))
    assert all(latest[i].provenance.trust == TrustLevel.USER for i in mine_high)

    calls: list[dict[str, Any]] = []
    real_search = guard.store.search

    def spy(vector: Any, **kw: Any) -> Any:
        calls.append(kw)
        return real_search(vector, **kw)

    guard.store.search = spy  # type: ignore[method-assign]

    results = guard.search(idents[0], vector=hub, k=10, min_trust=TrustLevel.USER)
    assert len(results) == 10
    assert {r.fact_id for r in results} <= mine_high
    assert all(r.provenance.owner.subject == "owner-0" for r in results)
    # one pushed-down query of exactly k: no over-fetch, no post-filter, no paging
    assert len(calls) == 1
    assert calls[0]["condition"] is not None and calls[0]["limit"] == 10
    assert calls[0].get("offset", 0) == 0
    # the 10 returned are the 10 nearest of the caller's admissible facts (exact ranking)
    hubv = np.asarray(hub)
    by_score = sorted(mine_high, key=lambda i: -float(np.dot(hubv, my_vectors[i])))
    assert [r.fact_id for r in results] == by_score[:10]

    # without min_trust the caller sees its 40 facts; k=10 still full, never another owner's
    everything = guard.search(idents[0], vector=hub, k=10)
    assert len(everything) == 10
    assert {r.fact_id for r in everything} <= mine_high | mine_low
    # a different owner sees none of owner-0's facts
    other = guard.search(idents[1], vector=hub, k=10, min_trust=TrustLevel.USER)
    assert len(other) == 10 and not ({r.fact_id for r in other} & (mine_high | mine_low))
