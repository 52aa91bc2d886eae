"""The guarded qdrant-client: isolation, escape hatches, integrity, quarantine, reserved key, versions.

Every test runs through the ``side`` fixture: the sync shell and the async shell over ``":memory:"``
and the sync shell over ``path=``, with a real SQLite ledger and real signed tokens. Each refusal is
asserted next to a positive control (the owner still sees the point), so an empty answer cannot pass
for isolation.
"""

from __future__ import annotations

import copy
import gc
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, PLANNER, Clock
from qdrant_adapter_helpers import ALLOW_ALL_POLICY, GuardView, Side, context, make_kernel, strip
from qdrant_client import models

from memguard import (
    ConfigurationError,
    Decision,
    FactNotFound,
    FactState,
    IdentityError,
    InvalidRequest,
    LocalTokenService,
    PolicyResolver,
    ReservedField,
    TrustLevel,
)
from memguard.adapters.qdrant import (
    _STATE,
    ALLOWED_METHODS,
    AsyncGuardedQdrantClient,
    GuardedAttributeError,
    GuardedQdrantClient,
    fact_id_of,
)
from memguard.errors import AccessDenied
from memguard.kernel import Kernel
from memguard.revocation import RevocationSelector

C = "memories"
DIM = 4
BOB = {
    101: ([1.0, 0.0, 0.0, 0.0], "bob's passport is X1234567", "travel"),
    102: ([0.9, 0.1, 0.0, 0.0], "bob is allergic to penicillin", "health"),
    103: ([0.0, 1.0, 0.0, 0.0], "bob's PIN is 4321", "finance"),
}
ALICE = {
    1: ([0.95, 0.05, 0.0, 0.0], "alice prefers aisle seats", "travel"),
    2: ([0.0, 0.0, 1.0, 0.0], "alice likes green tea", "food"),
}


def point(pid: int, spec: tuple[list[float], str, str]) -> models.PointStruct:
    vec, text, topic = spec
    return models.PointStruct(id=pid, vector=vec, payload={"text": text, "topic": topic})


class World:
    """Bob's points, alice's points, and a chain acting for alice, in one collection."""

    def __init__(self, side: Side, tokens: LocalTokenService) -> None:
        self.side = side
        kernel = side.kernel
        self.bob_id = kernel.authenticate(tokens.issue("bob"))
        self.alice_id = kernel.authenticate(tokens.issue("alice"))
        self.chain_id = kernel.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
        self.bob = side.guard(self.bob_id)
        self.alice = side.guard(self.alice_id)
        self.chain = side.guard(self.chain_id, context(1))
        assert self.alice.create_collection(
            C, vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
        )
        self.bob.upsert(C, points=[point(i, s) for i, s in BOB.items()])
        self.alice.upsert(C, points=[point(i, s) for i, s in ALICE.items()])

    def raw_payload(self, pid: int) -> dict[str, Any]:
        records = self.side.call_raw("retrieve", C, ids=[pid], with_payload=True)
        return dict(records[0].payload)

    def bob_intact(self) -> None:
        """Bob's points are all still there, unchanged, and bob still sees them."""
        for pid, (_, text, topic) in BOB.items():
            payload = self.raw_payload(pid)
            assert (payload["text"], payload["topic"]) == (text, topic)
            assert payload["memguard"]["version"] == 1
        assert {p.id for p in self.bob.scroll(C, limit=100)[0]} == set(BOB)
        assert self.bob.count(C).count == len(BOB)


@pytest.fixture(params=["sync-memory", "async-memory", "sync-path"])
def side(
    request: pytest.FixtureRequest, tmp_path: Path, tokens: LocalTokenService, clock: Clock
) -> Iterator[Side]:
    s = Side(str(request.param), tmp_path, make_kernel(tmp_path, tokens, clock))
    yield s
    s.close()
    s.kernel.ledger.close()


@pytest.fixture
def world(side: Side, tokens: LocalTokenService) -> World:
    return World(side, tokens)


def ids(points: Any) -> set[Any]:
    return {p.id for p in points}


# -- positive controls -------------------------------------------------------------------------------


def test_owners_see_their_own_points(world: World) -> None:
    assert ids(world.bob.query_points(C, query=[1.0, 0, 0, 0], limit=10).points) == set(BOB)
    assert ids(world.chain.query_points(C, query=[1.0, 0, 0, 0], limit=10).points) == set(ALICE)
    assert ids(world.bob.retrieve(C, list(BOB))) == set(BOB)
    assert world.chain.count(C).count == len(ALICE)
    hit = world.chain.query_points(C, query=[1.0, 0, 0, 0], limit=1).points[0]
    assert hit.id == 1 and strip(hit.payload) == {"text": ALICE[1][1], "topic": "travel"}
    summary = hit.payload["memguard"]
    assert summary["fact_id"] == fact_id_of(C, 1) and summary["trust"] == "user"
    assert "record" not in summary and "owner_sub" not in summary  # never the stored block


# -- reads -------------------------------------------------------------------------------------------

FILTERS = {
    "none": None,
    "empty": models.Filter(),
    "empty-lists": models.Filter(must=[], should=[], must_not=[]),
    "bob-topic": models.Filter(
        must=[models.FieldCondition(key="topic", match=models.MatchValue(value="health"))]
    ),
    "should-owner-bob": models.Filter(
        should=[
            models.FieldCondition(key="memguard.owner_sub", match=models.MatchValue(value="bob"))
        ]
    ),
    "must-owner-bob": models.Filter(
        must=[models.FieldCondition(key="memguard.owner_sub", match=models.MatchValue(value="bob"))]
    ),
    "bob-ids": models.Filter(must=[models.HasIdCondition(has_id=list(BOB))]),
    "not-alice": models.Filter(
        must_not=[
            models.FieldCondition(key="memguard.owner_sub", match=models.MatchValue(value="alice"))
        ]
    ),
}


@pytest.mark.parametrize("name", list(FILTERS))
def test_chain_never_sees_bob_through_any_filter(world: World, name: str) -> None:
    flt = FILTERS[name]
    q = world.chain.query_points(C, query=[1.0, 0, 0, 0], query_filter=flt, limit=100).points
    assert not ids(q) & set(BOB)
    page, _ = world.chain.scroll(C, scroll_filter=flt, limit=100)
    assert not ids(page) & set(BOB)
    expected = len(ids(world.alice.scroll(C, scroll_filter=flt, limit=100)[0]))
    assert world.chain.count(C, count_filter=flt).count == expected
    groups = world.chain.query_points_groups(
        C, group_by="topic", query=[1.0, 0, 0, 0], query_filter=flt, limit=10
    )
    assert not {h.id for g in groups.groups for h in g.hits} & set(BOB)
    # the store applied the scope itself: nothing out of scope reached the re-check
    assert not [r for r, _ in alarms(world.side.kernel) if r.startswith("scope.")]
    # the same filter on bob's own client does find his points (the filter is not simply empty)
    if name in ("none", "empty", "bob-topic", "must-owner-bob", "bob-ids"):
        assert ids(
            world.bob.query_points(C, query=[1.0, 0, 0, 0], query_filter=flt, limit=100).points
        ) & set(BOB)


def test_prefetch_is_scoped_at_every_level(world: World) -> None:
    inner = models.Prefetch(query=[1.0, 0, 0, 0], limit=50, filter=FILTERS["must-owner-bob"])
    nested = models.Prefetch(
        prefetch=[inner, models.Prefetch(query=[1.0, 0, 0, 0], limit=50)],
        query=[1.0, 0, 0, 0],
        limit=50,
    )
    for prefetch in (inner, [inner], nested, [models.Prefetch(query=[0, 1.0, 0, 0], limit=50)]):
        got = world.chain.query_points(C, prefetch=prefetch, query=[1.0, 0, 0, 0], limit=50).points
        assert not ids(got) & set(BOB)
        fused = world.chain.query_points(
            C, prefetch=prefetch, query=models.FusionQuery(fusion=models.Fusion.RRF), limit=50
        ).points
        assert not ids(fused) & set(BOB)
    assert not [r for r, _ in alarms(world.side.kernel) if r.startswith("scope.")]
    # positive control: the same nested prefetch finds bob's points for bob
    assert ids(
        world.bob.query_points(C, prefetch=nested, query=[1.0, 0, 0, 0], limit=50).points
    ) == set(BOB)


def _scopes(flt: Any) -> int:
    """How many copies of the owner scope a filter holds (at any depth)."""
    text = flt.model_dump_json() if flt is not None else ""
    return text.count('"memguard.owner_sub"')


def test_core_puts_the_scope_in_the_filter_and_every_prefetch(world: World) -> None:
    """The I/O-free core, driven by hand: the backend call it asks for carries the scope at every
    level (the store's own top-level filter would hide a missing prefetch scope from results)."""
    planner = _STATE[world.chain.guarded].planner
    leaf = models.Prefetch(query=[1.0, 0, 0, 0], limit=5, filter=FILTERS["bob-topic"])
    flow = planner.query_points(
        C,
        False,
        query=[1.0, 0, 0, 0],
        prefetch=[models.Prefetch(prefetch=[leaf, models.Prefetch(query=[0, 1.0, 0, 0])]), leaf],
        query_filter=FILTERS["should-owner-bob"],
        with_payload=True,
        limit=3,
    )
    call = next(flow)
    assert call.method == "query_points"
    kw = call.kwargs
    top, outer_leaf = kw["prefetch"]
    levels = [
        kw["query_filter"],
        top.filter,
        top.prefetch[0].filter,
        top.prefetch[1].filter,
        outer_leaf.filter,
    ]
    assert all(_scopes(f) >= 1 for f in levels)
    # the scope is a `must` of the caller's own filter, whose `should` stays as the caller gave it
    assert kw["query_filter"].should == FILTERS["should-owner-bob"].should
    assert _scopes(models.Filter(must=kw["query_filter"].must)) == 1
    assert kw.get("search_params") is None  # a dense query: IDF does not apply, nothing is sent
    flow.close()


@pytest.mark.parametrize(
    "query",
    [
        models.SparseVector(indices=[1, 7], values=[0.5, 0.5]),
        models.NearestQuery(nearest=models.SparseVector(indices=[1], values=[1.0])),
    ],
    ids=["sparse", "nearest-sparse"],
)
def test_core_scopes_idf_statistics_of_term_queries(world: World, query: Any) -> None:
    """IDF statistics over the whole collection would count other tenants' documents."""
    planner = _STATE[world.chain.guarded].planner
    bob_corpus = FILTERS["must-owner-bob"]
    for params in (None, models.SearchParams(idf=models.IdfCorpusParams(corpus=bob_corpus))):
        flow = planner.query_points(
            C,
            False,
            query=query,
            using="sparse",
            search_params=params,
            prefetch=models.Prefetch(query=query, using="sparse"),
            with_payload=True,
        )
        kw = next(flow).kwargs
        top, inner = kw["search_params"].idf, kw["prefetch"].params.idf
        assert isinstance(top, models.IdfCorpusParams) and isinstance(inner, models.IdfCorpusParams)
        # the scope, ANDed with the caller's own corpus when there is one (it can only narrow)
        assert _scopes(top.corpus) == (2 if params else 1)
        assert _scopes(inner.corpus) == 1
        flow.close()


def test_chain_cannot_fetch_bob_by_id(world: World) -> None:
    assert world.chain.retrieve(C, list(BOB)) == []
    assert ids(world.chain.retrieve(C, [101, 1, 102, 2])) == {1, 2}
    assert ids(world.bob.retrieve(C, [101, 1])) == {101}


@pytest.mark.parametrize(
    "query",
    [
        101,
        models.NearestQuery(nearest=101),
        models.RecommendQuery(recommend=models.RecommendInput(positive=[1], negative=[101])),
        models.DiscoverQuery(
            discover=models.DiscoverInput(
                target=1, context=[models.ContextPair(positive=101, negative=2)]
            )
        ),
        models.ContextQuery(context=[models.ContextPair(positive=1, negative=102)]),
    ],
    ids=["id", "nearest", "recommend", "discover", "context"],
)
def test_query_by_point_id_needs_that_point_in_scope(world: World, query: Any) -> None:
    with pytest.raises(FactNotFound):
        world.chain.query_points(C, query=query, limit=10)
    with pytest.raises(FactNotFound):
        world.chain.query_points(
            C, prefetch=models.Prefetch(query=query, limit=10), query=[1.0, 0, 0, 0]
        )
    # own ids are fine
    assert ids(world.chain.query_points(C, query=1, limit=10).points) <= set(ALICE)


def test_with_lookup_and_unknown_query_types_are_refused(world: World) -> None:
    with pytest.raises(AccessDenied):
        world.chain.query_points_groups(
            C, group_by="topic", query=[1.0, 0, 0, 0], with_lookup="other"
        )
    with pytest.raises(AccessDenied):
        world.chain.query_points(C, query=object())


def test_count_and_collection_info_are_scoped(world: World) -> None:
    assert world.side.call_raw("count", C).count == len(BOB) + len(ALICE)
    assert world.chain.count(C).count == len(ALICE)
    assert world.chain.count(C, count_filter=FILTERS["must-owner-bob"]).count == 0
    info = world.chain.get_collection(C)
    assert info.points_count == len(ALICE) and info.indexed_vectors_count is None
    assert world.bob.get_collection(C).points_count == len(BOB)
    assert world.chain.collection_exists(C) and not world.chain.collection_exists("nope")
    assert C in {c.name for c in world.chain.get_collections().collections}


# -- writes ------------------------------------------------------------------------------------------


def test_chain_cannot_overwrite_bob_by_upsert(world: World) -> None:
    with pytest.raises(FactNotFound):
        world.chain.upsert(
            C, points=[models.PointStruct(id=101, vector=[1.0, 0, 0, 0], payload={"text": "pwned"})]
        )
    with pytest.raises(FactNotFound):  # one foreign id refuses the whole batch
        world.chain.upsert(
            C,
            points=[
                point(1, ALICE[1]),
                models.PointStruct(id=102, vector=[1.0, 0, 0, 0], payload={}),
            ],
        )
    with pytest.raises(FactNotFound):
        world.chain.upsert(
            C, points=models.Batch(ids=[103], vectors=[[1.0, 0, 0, 0]], payloads=[{"x": 1}])
        )
    world.bob_intact()
    # positive control: alice updates her own point, a new version
    world.chain.upsert(
        C, points=[models.PointStruct(id=1, vector=[1.0, 0, 0, 0], payload={"text": "v2"})]
    )
    assert world.raw_payload(1)["memguard"]["version"] == 2


@pytest.mark.parametrize("op", ["set", "set-key", "overwrite", "delete-keys", "clear"])
def test_chain_cannot_change_bob_payloads(world: World, op: str) -> None:
    calls = {
        "set": lambda g, sel: g.set_payload(C, {"text": "pwned"}, sel),
        "set-key": lambda g, sel: g.set_payload(C, {"x": 1}, sel, key="nested"),
        "overwrite": lambda g, sel: g.overwrite_payload(C, {"text": "pwned"}, sel),
        "delete-keys": lambda g, sel: g.delete_payload(C, ["text"], sel),
        "clear": lambda g, sel: g.clear_payload(C, sel),
    }
    call = calls[op]
    with pytest.raises(FactNotFound):
        call(world.chain, [101])
    with pytest.raises(FactNotFound):
        call(world.chain, models.PointIdsList(points=[1, 102]))
    for selector in (
        FILTERS["empty"],
        FILTERS["must-owner-bob"],
        models.FilterSelector(filter=FILTERS["bob-topic"]),
    ):
        call(world.chain, selector)  # resolved inside the scope: bob's points are not in it
    world.bob_intact()
    # positive control: the filter form does change alice's own points
    call(world.chain, models.Filter(must=[models.HasIdCondition(has_id=[2])]))
    assert world.raw_payload(2)["memguard"]["version"] >= 2


@pytest.mark.parametrize(
    "selector",
    [
        [101, 102, 103],
        models.PointIdsList(points=[101]),
        models.Filter(),
        models.FilterSelector(filter=models.Filter()),
        models.Filter(
            must=[
                models.FieldCondition(
                    key="topic", match=models.MatchAny(any=["travel", "health", "finance"])
                )
            ]
        ),
        models.Filter(
            must=[
                models.FieldCondition(
                    key="memguard.owner_sub", match=models.MatchValue(value="bob")
                )
            ]
        ),
    ],
    ids=["ids", "ids-list", "empty-filter", "filter-selector", "topic-filter", "owner-filter"],
)
def test_chain_cannot_delete_bob(world: World, selector: Any) -> None:
    world.chain.delete(C, points_selector=selector)
    world.bob_intact()


def test_filter_delete_removes_only_the_callers_matches(world: World) -> None:
    travel = models.Filter(
        must=[models.FieldCondition(key="topic", match=models.MatchValue(value="travel"))]
    )
    world.chain.delete(C, points_selector=travel)
    assert ids(world.alice.scroll(C, limit=10)[0]) == {2}
    world.bob_intact()  # bob's travel point 101 is still there
    ledger = world.side.kernel.ledger
    assert ledger.latest([fact_id_of(C, 1)])[fact_id_of(C, 1)].state is FactState.DELETED
    world.chain.delete(C, points_selector=models.Filter())
    assert world.alice.count(C).count == 0
    world.bob_intact()


# -- escape hatches ----------------------------------------------------------------------------------

ESCAPES = [
    "http",
    "grpc_points",
    "grpc_collections",
    "rest",
    "_client",
    "client",
    "raw",
    "_raw",
    "_inner",
    "init_options",
    "migrate",
    "search",
    "recommend",
    "facet",
    "update_vectors",
    "delete_vectors",
    "create_shard_key",
    "search_matrix_pairs",
    "delete_collection",
    "recreate_collection",
    "update_collection",
    "delete_payload_index",
    "create_snapshot",
    "_GuardedQdrantClient__client",
    "_AsyncGuardedQdrantClient__client",
    "_bound",
    "_state",
    "_planner",
    "planner",
    "kernel",
    "ledger",
    "__dict__",
    "__wrapped__",
]


def _reaches(value: Any, raw: Any, depth: int = 0) -> bool:
    if value is raw:
        return True
    if depth >= 2:
        return False
    return any(
        _reaches(r, raw, depth + 1) for r in gc.get_referents(value) if not isinstance(r, type)
    )


def test_no_raw_escape_hatch(world: World) -> None:
    raw = world.side.raw
    for guarded in (world.chain.guarded, world.chain.with_context(turn=context(5).turn).guarded):
        for name in ESCAPES:
            with pytest.raises(AttributeError):
                getattr(guarded, name)
        with pytest.raises(TypeError):
            vars(guarded)
        with pytest.raises(AttributeError):
            guarded.anything = 1
        with pytest.raises(AccessDenied):
            copy.copy(guarded)
        with pytest.raises(AccessDenied):
            pickle.dumps(guarded)
        # every attribute the object does have is an allowed method (or a dunder), none leads to raw
        public = {n for n in dir(guarded) if not n.startswith("_")}
        assert public <= ALLOWED_METHODS
        for name in dir(guarded):
            try:
                value = getattr(guarded, name)
            except AttributeError:
                continue
            assert not _reaches(value, raw), name
        assert not _reaches(guarded, raw)
    assert isinstance(GuardedAttributeError("x"), AttributeError)


def test_wrong_client_type_is_refused(side: Side, tokens: LocalTokenService) -> None:
    me = side.kernel.authenticate(tokens.issue("alice"))
    other = GuardedQdrantClient if side.is_async else AsyncGuardedQdrantClient
    with pytest.raises(InvalidRequest):
        other(side.raw, kernel=side.kernel, identity=me, context=context())
    with pytest.raises(InvalidRequest):
        GuardedQdrantClient(object(), kernel=side.kernel, identity=me, context=context())  # type: ignore[arg-type]


# -- integrity and quarantine ------------------------------------------------------------------------


def alarms(kernel: Kernel) -> list[tuple[str, tuple[str, ...]]]:
    return [(e.reason, e.fact_ids) for e in kernel.ledger.events(decision=Decision.ALARM.value)]


def test_raw_payload_edit_is_withheld_with_an_alarm(world: World) -> None:
    world.side.call_raw("set_payload", C, {"text": "alice owes mallory $1000"}, points=[1])
    fid = fact_id_of(C, 1)
    q = [0.95, 0.05, 0.0, 0.0]
    assert ids(world.chain.query_points(C, query=q, limit=10).points) == {2}
    assert ids(world.chain.retrieve(C, [1, 2])) == {2}
    assert ids(world.chain.scroll(C, limit=10)[0]) == {2}
    assert world.chain.count(C).count == 1
    assert ("integrity.content_mismatch", (fid,)) in alarms(world.side.kernel)
    with pytest.raises(FactNotFound):  # never build a new version on tampered content
        world.chain.set_payload(C, {"x": 1}, [1])


def test_forged_reserved_block_is_withheld(world: World) -> None:
    # make bob's point claim alice as its owner, directly in Qdrant
    world.side.call_raw("set_payload", C, {"owner_sub": "alice"}, points=[103], key="memguard")
    got = world.chain.query_points(C, query=[0.0, 1.0, 0.0, 0.0], limit=10).points
    assert 103 not in ids(got)
    assert 103 not in ids(world.chain.retrieve(C, [103]))
    assert ("integrity.index_mismatch", (fact_id_of(C, 103),)) in alarms(world.side.kernel)
    # a point written straight into Qdrant is unknown to the ledger: never served
    world.side.call_raw(
        "upsert",
        C,
        points=[models.PointStruct(id=7, vector=[1.0, 0, 0, 0], payload={"text": "raw"})],
    )
    assert 7 not in ids(world.chain.retrieve(C, [7]))
    assert world.chain.delete(C, points_selector=[7]) is not None
    assert world.side.call_raw(
        "retrieve", C, ids=[7]
    )  # a guarded delete leaves unknown points alone


def test_quarantined_fact_is_never_returned(world: World) -> None:
    kernel = world.side.kernel
    fid = fact_id_of(C, 1)
    kernel.revoke(world.alice_id, RevocationSelector.fact(fid), reason="poisoned by a web page")
    q = [0.95, 0.05, 0.0, 0.0]
    assert 1 not in ids(world.chain.query_points(C, query=q, limit=10).points)
    assert 1 not in ids(
        world.chain.query_points(C, prefetch=models.Prefetch(query=q, limit=10), query=q).points
    )
    assert world.chain.retrieve(C, [1]) == []
    assert 1 not in ids(world.chain.scroll(C, limit=10)[0])
    assert world.chain.count(C).count == len(ALICE) - 1
    assert ids(world.chain.retrieve(C, [2])) == {2}  # the rest still reads
    with pytest.raises(FactNotFound):
        world.chain.set_payload(C, {"x": 1}, [1])
    world.chain.delete(C, points_selector=[1])  # but it can be deleted
    assert not world.side.call_raw("retrieve", C, ids=[1])


# -- reserved key ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key", ["memguard", "MemGuard", "MEMGUARD", "\uff4d\uff45\uff4d\uff47\uff55\uff41\uff52\uff44"]
)
def test_reserved_key_can_never_be_written(world: World, key: str) -> None:
    g = world.chain
    with pytest.raises(ReservedField):
        g.upsert(
            C, points=[models.PointStruct(id=9, vector=[1.0, 0, 0, 0], payload={key: {"trust": 6}})]
        )
    with pytest.raises(ReservedField):
        g.upsert(C, points=models.Batch(ids=[9], vectors=[[1.0, 0, 0, 0]], payloads=[{key: 1}]))
    with pytest.raises(ReservedField):
        g.set_payload(C, {key: {"owner_sub": "bob"}}, [1])
    with pytest.raises(ReservedField):
        g.set_payload(C, {"trust": 6}, [1], key=key)
    with pytest.raises(ReservedField):
        g.set_payload(C, {"x": 6}, [1], key=f"{key}.trust")
    with pytest.raises(ReservedField):
        g.overwrite_payload(C, {key: 1}, [1])
    with pytest.raises(ReservedField):
        g.delete_payload(C, [key], [1])
    with pytest.raises(ReservedField):
        g.delete_payload(C, [f"{key}.record"], models.Filter())
    block = world.raw_payload(1)["memguard"]
    assert block["version"] == 1 and block["owner_sub"] == "alice"
    assert world.side.call_raw("retrieve", C, ids=[9]) == []


def test_payload_changes_are_new_versions(world: World) -> None:
    g = world.chain
    g.set_payload(C, {"mood": "happy", "nested": {"a": 1}}, [1])
    g.set_payload(C, {"b": 2}, [1], key="nested")
    g.delete_payload(C, ["topic"], [1])
    rec = g.retrieve(C, [1])[0]
    assert strip(rec.payload) == {"text": ALICE[1][1], "mood": "happy", "nested": {"a": 1, "b": 2}}
    assert rec.payload["memguard"]["version"] == 4
    g.overwrite_payload(C, {"only": True}, [1])
    g.clear_payload(C, [2])
    assert strip(g.retrieve(C, [1])[0].payload) == {"only": True}
    assert strip(g.retrieve(C, [2])[0].payload) == {}
    versions = world.side.kernel.ledger.versions(fact_id_of(C, 1))
    assert [v.version for v in versions] == [1, 2, 3, 4, 5]
    assert versions[-1].provenance.writer.actors[-1].subject == BROWSER


def test_caller_filters_on_memguard_fields_only_narrow(world: World) -> None:
    low = models.Filter(
        must=[
            models.FieldCondition(
                key="memguard.trust", range=models.Range(gte=int(TrustLevel.USER))
            )
        ]
    )
    assert ids(world.chain.scroll(C, scroll_filter=low, limit=10)[0]) == set(ALICE)
    high = models.Filter(
        must=[
            models.FieldCondition(
                key="memguard.trust", range=models.Range(gte=int(TrustLevel.SYSTEM))
            )
        ]
    )
    assert world.chain.scroll(C, scroll_filter=high, limit=10)[0] == []


def test_with_payload_selectors_never_reveal_the_reserved_block(world: World) -> None:
    for sel in (
        ["memguard"],
        ["memguard.record"],
        models.PayloadSelectorInclude(include=["memguard.owner_sub", "text"]),
    ):
        rec = world.chain.retrieve(C, [1], with_payload=sel)[0]
        assert "record" not in rec.payload.get("memguard", {})
        assert "owner_sub" not in rec.payload.get("memguard", {})
    assert world.chain.retrieve(C, [1], with_payload=False)[0].payload is None
    plain = world.side.guard(world.chain_id, provenance_summary=False)
    assert plain.retrieve(C, [1])[0].payload == {"text": ALICE[1][1], "topic": "travel"}


# -- refusals are audited; identity; policy; version -------------------------------------------------


def test_refusals_are_deny_events(world: World) -> None:
    kernel = world.side.kernel
    before = len(kernel.ledger.events(decision=Decision.DENY.value))
    with pytest.raises(FactNotFound):
        world.chain.set_payload(C, {"x": 1}, [101])
    denies = kernel.ledger.events(decision=Decision.DENY.value)
    assert len(denies) == before + 1 and denies[-1].reason == "not_found"


def test_expired_identity_is_refused(side: Side, tokens: LocalTokenService, clock: Clock) -> None:
    me = side.kernel.authenticate(tokens.issue("alice", ttl=60))
    g = side.guard(me)
    side.create(C, DIM)
    g.upsert(C, points=[point(1, ALICE[1])])
    clock.advance(3600)
    with pytest.raises(IdentityError):
        g.retrieve(C, [1])


def test_policy_denies_a_collection(
    side: Side, tokens: LocalTokenService, tmp_path: Path, clock: Clock
) -> None:
    from memguard.scope import DefaultScopeResolver

    kernel = make_kernel(tmp_path, tokens, clock, DefaultScopeResolver(namespaces=("notes-*",)))
    side.kernel = kernel
    me = kernel.authenticate(tokens.issue("alice"))
    g = side.guard(me)
    side.create(C, DIM)
    side.create("notes-1", DIM)
    with pytest.raises(AccessDenied):
        g.upsert(C, points=[point(1, ALICE[1])])
    with pytest.raises(AccessDenied):
        g.query_points(C, query=[1.0, 0, 0, 0])
    with pytest.raises(AccessDenied):
        g.create_collection(
            "other", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
        )
    g.upsert("notes-1", points=[point(1, ALICE[1])])
    assert ids(g.query_points("notes-1", query=[1.0, 0, 0, 0]).points) == {1}
    kernel.ledger.close()


def test_allow_all_policy_still_verifies(
    side: Side, tokens: LocalTokenService, tmp_path: Path, clock: Clock
) -> None:
    kernel = make_kernel(tmp_path, tokens, clock, PolicyResolver.from_text(ALLOW_ALL_POLICY))
    side.kernel = kernel
    g = side.guard(kernel.authenticate(tokens.issue("alice")))
    side.create(C, DIM)
    g.upsert(C, points=[point(1, ALICE[1])])
    side.call_raw(
        "upsert", C, points=[models.PointStruct(id=5, vector=[1.0, 0, 0, 0], payload={"t": 1})]
    )
    assert ids(g.query_points(C, query=[1.0, 0, 0, 0]).points) == {1}  # the raw point is unknown
    assert g.count(C).count == 1
    assert ("integrity.unknown_point", (fact_id_of(C, 5),)) in alarms(kernel)
    kernel.ledger.close()


@pytest.mark.parametrize("version", ["1.9.0", "1.19.1", "2.0.0", "0.11.9"])
def test_unsupported_qdrant_client_version_is_refused(
    side: Side, tokens: LocalTokenService, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    me = side.kernel.authenticate(tokens.issue("alice"))
    monkeypatch.setattr("memguard.compat.metadata.version", lambda name: version)
    with pytest.raises(ConfigurationError, match="not supported"):
        side.guarded(me)
    monkeypatch.setattr("memguard.compat.metadata.version", lambda name: "1.20.0")
    assert isinstance(side.guard(me), GuardView)


PUBLIC_POLICY = """\
apiVersion: memguard/v1
rules:
  - id: read-own
    effect: permit
    actions: [search, get, update, delete]
    when:
      all:
        - {attr: fact.owner_iss, eq: {attr: principal.issuer}}
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
  - id: read-public
    effect: permit
    actions: [search, get]
    when: {attr: fact.namespace, eq: public}
  - id: write
    effect: permit
    actions: [write]
"""


@pytest.mark.parametrize("own_rule", [True, False], ids=["own-or-public", "public-only"])
def test_namespace_rules_are_decided_per_collection(
    side: Side, tokens: LocalTokenService, tmp_path: Path, clock: Clock, own_rule: bool
) -> None:
    """A policy rule on `fact.namespace` folds to true in one collection and false in another:
    the public collection is readable by everyone, the private one only by its owners (or, with
    the public rule alone, by nobody, without a query reaching Qdrant)."""
    text = (
        PUBLIC_POLICY
        if own_rule
        else PUBLIC_POLICY.replace(
            "actions: [search, get, update, delete]", "actions: [update, delete]"
        )
    )
    kernel = make_kernel(tmp_path, tokens, clock, PolicyResolver.from_text(text))
    side.kernel = kernel
    bob = side.guard(kernel.authenticate(tokens.issue("bob")))
    chain = side.guard(kernel.authenticate(tokens.issue("alice", actors=[PLANNER])))
    for name in ("public", "private"):
        side.create(name, DIM)
        bob.upsert(name, points=[point(i, s) for i, s in BOB.items()])
    q = [1.0, 0.0, 0.0, 0.0]
    assert ids(chain.query_points("public", query=q, limit=10).points) == set(BOB)
    assert chain.count("public").count == len(BOB)
    assert ids(chain.query_points("private", query=q, limit=10).points) == set()
    assert chain.scroll("private", limit=10)[0] == [] and chain.count("private").count == 0
    assert chain.retrieve("private", list(BOB)) == []
    assert not [r for r, _ in alarms(kernel) if r.startswith("scope.")]
    chain.delete("public", points_selector=models.Filter())  # read access is not delete access
    assert side.call_raw("count", "public").count == len(BOB)
    expected = set(BOB) if own_rule else set()
    assert ids(bob.query_points("private", query=q, limit=10).points) == expected
    kernel.ledger.close()


def test_sparse_idf_scores_ignore_other_tenants(world: World) -> None:
    """With the IDF modifier, a term's weight depends on how many documents hold it: bob's
    documents must not change alice's scores (they would reveal what bob wrote)."""
    sparse = {"s": models.SparseVectorParams(modifier=models.Modifier.IDF)}
    for name in ("idf-shared", "idf-alone"):
        world.side.call_raw(
            "create_collection", name, vectors_config={}, sparse_vectors_config=sparse
        )

    def doc(pid: int, terms: list[int]) -> models.PointStruct:
        vec = models.SparseVector(indices=terms, values=[1.0] * len(terms))
        return models.PointStruct(id=pid, vector={"s": vec}, payload={"terms": terms})

    alice_docs = [doc(1, [1, 2]), doc(2, [2, 3]), doc(3, [3])]
    for name in ("idf-shared", "idf-alone"):
        world.chain.upsert(name, points=alice_docs)
    world.bob.upsert("idf-shared", points=[doc(100 + i, [1, 3]) for i in range(6)])
    query = models.SparseVector(indices=[1, 3], values=[1.0, 1.0])

    def scores(name: str) -> list[tuple[Any, float]]:
        got = world.chain.query_points(name, query=query, using="s", limit=10).points
        return [(p.id, round(p.score, 6)) for p in got]

    assert scores("idf-shared") == scores("idf-alone")
    assert {pid for pid, _ in scores("idf-shared")} == {1, 2, 3}
    # control: the raw client's collection-wide statistics do differ
    raw = world.side.call_raw("query_points", "idf-shared", query=query, using="s", limit=20)
    raw_alice = [(p.id, round(p.score, 6)) for p in raw.points if p.id in (1, 2, 3)]
    assert sorted(raw_alice) != sorted(scores("idf-alone"))
