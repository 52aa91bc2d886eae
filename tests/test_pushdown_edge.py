"""The differential test, edge target: the QdrantEdgeStore's pushed-down filter vs the point evaluator,
and vs qdrant-client local mode (a third oracle: same Filter, another engine).

The same random policies, principals and requests as ``tests/test_policy_differential.py``, over its
universe of facts (absent, null, empty and list-valued fields, integers at the edges of their domain,
tampered values), loaded into a real qdrant-edge shard with memguard's payload indexes. For every case:

- on well-typed facts, the edge store selects exactly what the point evaluator allows (``scroll``,
  and ``search`` with a limit above the universe size, which runs the engine's query planner);
- on every fact it never loses one the point evaluator allows, and store + the plan's re-check
  equals the point evaluator;
- it selects exactly what qdrant-client local mode selects for the same translated filter on
  well-typed facts (the two engines agree on the Filter model).

Cases: ``EDGE_DIFFERENTIAL_CASES`` (default 600 in CI, about 10 s on a 2-core machine; the long
profile runs 100,000).
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from policy_strategies import policies, principals
from pushdown_backends import COLLECTION, well_typed
from qdrant_client import QdrantClient, models
from test_policy_differential import UNIVERSE, point_and_plan, requests

from memguard import Principal
from memguard.errors import UntranslatableCondition
from memguard.policy.model import PolicySet
from memguard.pushdown.qdrant import to_qdrant_filter
from memguard.scope import PlanKind, ReadRequest, ScopePlan
from memguard.stores.base import StoredPoint
from memguard.stores.edge import QdrantEdgeStore

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
CASES = int(os.environ.get("EDGE_DIFFERENTIAL_CASES", "100000" if LONG else "600"))
PER_EXAMPLE = 3
EXAMPLES = math.ceil(CASES / PER_EXAMPLE)
STATS: dict[str, int] = {"cases": 0, "nonempty": 0, "partial": 0, "searched": 0, "mistyped_diff": 0}


class EdgeTarget:
    """The universe in a real edge store and in qdrant-client local mode."""

    def __init__(self, path: Path) -> None:
        self.edge = QdrantEdgeStore(path / "edge", dimension=2)
        self.edge.upsert(
            [StoredPoint(fid, {"memguard": dict(f)}, [1.0, 0.5]) for fid, f in UNIVERSE.items()]
        )
        self.local = QdrantClient(location=":memory:")
        self.local.create_collection(
            COLLECTION, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE)
        )
        self.local.upsert(
            COLLECTION,
            points=[
                models.PointStruct(id=fid, vector=[1.0, 0.5], payload={"memguard": dict(f)})
                for fid, f in UNIVERSE.items()
            ],
            wait=True,
        )

    def close(self) -> None:
        self.edge.close()
        self.local.close()

    def select(self, plan: ScopePlan, *, search: bool) -> tuple[set[str], set[str]]:
        """(edge ids, qdrant-client local ids) for the plan's condition."""
        if plan.kind is PlanKind.DENY:
            return set(), set()
        cond = None if plan.kind is PlanKind.ALLOW else plan.condition
        limit = len(UNIVERSE) + 10
        if search:
            edge = {h.fact_id for h in self.edge.search([1.0, 0.5], condition=cond, limit=limit)}
        else:
            points, cursor = self.edge.scroll(condition=cond, limit=limit)
            assert cursor is None
            edge = {p.fact_id for p in points}
        flt = None if cond is None else to_qdrant_filter(cond)
        got, _ = self.local.scroll(COLLECTION, scroll_filter=flt, limit=limit)
        return edge, {str(p.id) for p in got}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeTarget]:
    t = EdgeTarget(tmp_path_factory.mktemp("edge-differential"))
    try:
        yield t
    finally:
        t.close()


TYPED = {fid for fid, f in UNIVERSE.items() if well_typed(f)}


def check(target: EdgeTarget, request: ReadRequest, point: set[str], plan: ScopePlan, *, search: bool) -> None:
    edge, local = target.select(plan, search=search)
    assert edge <= set(UNIVERSE)
    assert edge & TYPED == point & TYPED, "edge vs point evaluator (well-typed facts)"
    assert edge >= point, "edge lost a fact the point evaluator allows"
    assert {fid for fid in edge if plan.allows(UNIVERSE[fid])} == point, "edge + re-check"
    assert edge & TYPED == local & TYPED, "edge vs qdrant-client local (well-typed facts)"
    STATS["mistyped_diff"] += len((edge ^ local) - TYPED)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)
@given(
    policy=policies(),
    cases=st.lists(st.tuples(principals(), requests), min_size=PER_EXAMPLE, max_size=PER_EXAMPLE),
)
def test_edge_store_equals_the_point_evaluator(
    target: EdgeTarget, policy: PolicySet, cases: list[tuple[Principal, ReadRequest]]
) -> None:
    for principal, request in cases:
        point, plan = point_and_plan(policy, principal, request)
        search = STATS["cases"] % 3 == 0
        check(target, request, point, plan, search=search)
        STATS["cases"] += 1
        STATS["searched"] += search
        STATS["nonempty"] += bool(point)
        STATS["partial"] += 0 < len(point) < len(UNIVERSE)


def test_the_edge_cases_are_interesting(target: EdgeTarget) -> None:
    if STATS["cases"] == 0:
        pytest.skip("runs after the property test in the same session")
    print(f"edge differential: {STATS}")
    assert STATS["cases"] >= min(CASES, 1000)
    assert STATS["partial"] >= STATS["cases"] // 10, STATS
    assert STATS["searched"] >= STATS["cases"] // 4
    assert len(UNIVERSE) - len(TYPED) >= 10


def test_edge_store_holds_every_universe_fact(target: EdgeTarget) -> None:
    assert target.edge.count() == len(UNIVERSE)
    assert {p.fact_id for p in target.edge.retrieve(list(UNIVERSE))} == set(UNIVERSE)


# -- mutation checks: a broken edge mapping is caught by the same property ----------------------------

CASE = st.tuples(policies(), principals(), requests)


def _mismatch(target: EdgeTarget, monkeypatch: pytest.MonkeyPatch) -> Any:
    from memguard.stores import edge as store_module

    # a fresh translation cache for the mutated run (restored after it): translations cached before
    # the mutation would hide it, and mutated ones must not outlive the test
    monkeypatch.setattr(store_module, "_cache", {})
    def differs(case: tuple[PolicySet, Principal, ReadRequest]) -> bool:
        policy, principal, request = case
        try:
            point, plan = point_and_plan(policy, principal, request)
            check(target, request, point, plan, search=False)
        except UntranslatableCondition:
            return False
        except Exception:
            return True
        return False

    return find(
        CASE,
        differs,
        settings=settings(max_examples=3000, database=None, phases=[Phase.generate]),
        random=random.Random(20261203),
    )


def test_mutation_edge_dropped_existence_guard(target: EdgeTarget, monkeypatch: pytest.MonkeyPatch) -> None:
    import qdrant_edge as qe

    from memguard.pushdown import edge

    monkeypatch.setattr(edge, "_exists", lambda name: qe.Filter())  # the guard matches everything
    assert _mismatch(target, monkeypatch) is not None


def test_mutation_edge_must_not_as_must(target: EdgeTarget, monkeypatch: pytest.MonkeyPatch) -> None:
    import qdrant_edge as qe

    from memguard.pushdown import edge
    from memguard.scope import Condition

    def flipped(item: Condition) -> qe.Filter:
        return qe.Filter(must=[edge._exists(item.field), edge._atom(item)])  # type: ignore[union-attr]

    monkeypatch.setattr(edge, "_negated", flipped)
    assert _mismatch(target, monkeypatch) is not None
