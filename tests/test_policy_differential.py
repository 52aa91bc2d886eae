"""The differential test: every push-down translator, on its real backend, against the point evaluator.

Random policies (conditions over principal, context and fact attributes, permits and forbids,
integer literals at +-2^53 .. +-2^63), random principals and requests, over one universe of facts
with absent, null, empty and list-valued fields, integers at the edges of their domain, and
mistyped values (a tampered payload: out-of-range integers, text in an integer field, booleans,
lists in a scalar field). For every case the read plan is compiled by partial evaluation, brought
into the normal form and translated for each backend (tests/pushdown_backends.py):

    qdrant     qdrant-client local mode (the QdrantStore's and the qdrant adapter's filter)
    sqlite     SQLite (the SQL adapter's WHERE clause, list fields in the side table)
    postgres   PostgreSQL on 127.0.0.1:5432 (required in CI: MEMGUARD_REQUIRE_POSTGRES=1)
    mem0       a real mem0 ``Memory`` on Qdrant local mode, by ``get_all`` and by ``search``
    langgraph  LangGraph's ``InMemoryStore``, the principal's own partition (owner folded, as in the
               adapter), one query per disjunct, the union of the results

and must agree with the point evaluator (Kleene closures over the full request, a separate
implementation): on every fact memguard could have written (well-typed; for LangGraph also in its
layout) the store selects exactly what the point evaluator allows; on every fact it holds it
selects at least that (never less); and the plan's own check (``ScopePlan.allows``, which the guard
re-checks every hit with) equals the point evaluator on every fact, so the guard serves exactly
what the point evaluator allows.

Cases: ``POLICY_DIFFERENTIAL_CASES`` (default 10,000 in CI; ``HYPOTHESIS_PROFILE=long``: 1,000,000,
about four hours on a 2-core machine). Mutants of each translator and of the partial evaluator
are caught by the same property (the mutation tests at the end).
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from typing import Any

import pytest
from helpers import pg_available, pg_schema_url, require_pg
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from policy_strategies import NOW, ir_fact, policies, principals, universe
from pushdown_backends import Backends, langgraph_layout, well_typed

from memguard import Principal, TrustLevel
from memguard.errors import UntranslatableCondition
from memguard.policy import capability
from memguard.policy.evaluate import principal_env
from memguard.policy.model import PolicySet
from memguard.policy.resolver import PolicyResolver
from memguard.scope import FieldValue, PlanKind, ReadRequest, ScopePlan

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
CASES = int(os.environ.get("POLICY_DIFFERENTIAL_CASES", "1000000" if LONG else "10000"))
PER_EXAMPLE = 3
EXAMPLES = math.ceil(CASES / PER_EXAMPLE)


def _universe() -> dict[str, dict[str, FieldValue]]:
    facts = {fid: dict(f) for fid, f in universe(100).items()}
    rng = random.Random(13)
    for i in range(40):  # edges and tampered values
        fid = f"{i:08x}-eeee-4000-8000-000000000000"
        facts[fid] = {"fact_id": fid, **ir_fact(rng, mistyped=0.25)}
    edges = [10**14, -(10**14), 10**14 - 1, 0, 2**53, 2**53 + 1, 2**63 - 1, -(2**63)]
    for i, value in enumerate(edges):
        fid = f"{i:08x}-dddd-4000-8000-000000000000"
        facts[fid] = {"fact_id": fid, "owner_iss": "i1", "owner_sub": "alice", "trust": 4,
                      "namespace": "a", "writer_sub": "alice", "source_kind": "web",
                      "created_at": value, "derived_from_count": abs(value) if value else 0}  # fmt: skip
    return facts


UNIVERSE = _universe()
STATS: dict[str, int] = {"cases": 0, "nonempty": 0, "partial": 0, "mistyped_hits": 0, "refused": 0}


@pytest.fixture(scope="module")
def backends() -> Iterator[Backends]:
    if not pg_available() and os.environ.get("MEMGUARD_REQUIRE_POSTGRES") == "1":
        require_pg()  # fails: CI requires PostgreSQL; elsewhere only PostgreSQL is left out
    with pg_schema_url() if pg_available() else nullcontext(None) as url:
        b = Backends(postgres_url=url)
        try:
            b.load(UNIVERSE)
            yield b
        finally:
            b.clear()
            b.close()


def _narrowed(fields: Mapping[str, FieldValue], request: ReadRequest) -> bool:
    """The request's own narrowing, decided directly (not through the IR)."""
    if request.namespaces is not None and fields.get("namespace") not in request.namespaces:
        return False
    if request.min_trust is not None:
        trust = fields.get("trust")
        if type(trust) is not int or not 0 <= trust <= 6 or trust < request.min_trust:
            return False
    return True


def point_and_plan(
    policy: PolicySet, principal: Principal, request: ReadRequest
) -> tuple[set[str], ScopePlan]:
    resolver = PolicyResolver(policy, clock=lambda: float(NOW))
    penv = principal_env(principal, request.purpose)
    point = {
        fid
        for fid, f in UNIVERSE.items()
        if resolver.engine.decide_env(penv, request.action, f, NOW).allowed and _narrowed(f, request)
    }
    return point, resolver.read_plan(principal, request)


def selections(
    backends: Backends,
    plan: ScopePlan,
    owner: tuple[str, str],
    *,
    mem0_search: bool = False,
    only: tuple[str, ...] | None = None,
) -> dict[str, set[str] | None]:
    """Each backend's selection; ``None`` where its translator refused the condition. LangGraph
    searches the principal's own partition (``owner``), as the adapter does."""
    names = only or backends.names
    if plan.kind is PlanKind.DENY:
        return {n: set() for n in names}
    cond = True if plan.kind is PlanKind.ALLOW else plan.condition
    assert cond is not None
    out: dict[str, set[str] | None] = {}
    for name in names:
        try:
            out.update(backends.select(cond, mem0_search=mem0_search, only=(name,), owner=owner))
        except UntranslatableCondition:
            out[name] = None
    return out


def _owner(principal: Principal) -> tuple[str, str]:
    return principal.subject.issuer, principal.subject.subject


def check(
    backends: Backends,
    policy: PolicySet,
    request: ReadRequest,
    owner: tuple[str, str],
    point: set[str],
    plan: ScopePlan,
    got: Mapping[str, set[str] | None],
) -> None:
    plan_ids = {fid for fid, f in UNIVERSE.items() if plan.allows(f)}
    assert plan_ids == point, "plan check vs point evaluator"
    typed = {fid for fid, f in UNIVERSE.items() if well_typed(f)}
    for name, sel in got.items():
        if sel is None:
            # refused at run time (the read is denied). For what the LangGraph adapter pushes down
            # (a search without namespace or trust narrowing) the load-time check must say so too,
            # so a resolver serving LangGraph never loads the set.
            STATS["refused"] += 1
            assert name == "langgraph", f"{name} refused a condition"
            if request.action == "search" and request.namespaces is None and request.min_trust is None:
                assert capability.check(policy, name), "refused at run time, not reported at load"
            continue
        held = backends.held[name]
        if name == "langgraph":  # the principal's partition: the facts owned by it
            held = {fid for fid in held if (UNIVERSE[fid].get("owner_iss"), UNIVERSE[fid].get("owner_sub")) == owner}
        exact = held & typed
        if name == "langgraph":
            exact = {fid for fid in exact if langgraph_layout(UNIVERSE[fid])}
        assert sel <= held, f"{name}: returned a fact it does not hold"
        assert sel & exact == point & exact, f"{name} vs point evaluator (well-typed facts)"
        assert sel >= point & held, f"{name} lost a fact the point evaluator allows"
        assert {fid for fid in sel if plan.allows(UNIVERSE[fid])} == point & held, (
            f"{name}: store + re-check vs point evaluator"
        )
        STATS["mistyped_hits"] += len(sel - exact)


requests = st.builds(
    ReadRequest,
    action=st.sampled_from(["search", "get"]),
    namespaces=st.one_of(st.none(), st.lists(st.sampled_from("abc"), min_size=1, max_size=2).map(tuple)),
    min_trust=st.one_of(st.none(), st.sampled_from(list(TrustLevel))),
    purpose=st.sampled_from(["answer", "tool_argument", "planning", ""]),
)


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
def test_every_translator_equals_the_point_evaluator(
    backends: Backends, policy: PolicySet, cases: list[tuple[Principal, ReadRequest]]
) -> None:
    for principal, request in cases:
        point, plan = point_and_plan(policy, principal, request)
        mem0_search = STATS["cases"] % 4 == 0  # mem0's search path (its filter preprocessing) too
        got = selections(backends, plan, _owner(principal), mem0_search=mem0_search)
        STATS["cases"] += 1
        STATS["nonempty"] += bool(point)
        STATS["partial"] += 0 < len(point) < len(UNIVERSE)
        check(backends, policy, request, _owner(principal), point, plan, got)


def test_the_random_cases_are_interesting(backends: Backends) -> None:
    """Guards the generator and the harness: cases select proper subsets, every backend ran (with
    PostgreSQL), integers at the edges and tampered values are in the universe."""
    if STATS["cases"] == 0:
        pytest.skip("runs after the property test in the same session")
    print(f"differential: {STATS}")
    assert STATS["cases"] >= min(CASES, 1000)
    assert STATS["partial"] >= STATS["cases"] // 10, STATS
    expected = {"qdrant", "sqlite", "postgres", "mem0", "langgraph"}
    if not pg_available():  # outside CI (MEMGUARD_REQUIRE_POSTGRES unset) only
        expected.discard("postgres")
    assert set(backends.names) == expected
    values = [f.get("created_at") for f in UNIVERSE.values()]
    assert 2**53 + 1 in values and 2**63 - 1 in values and -(2**63) in values and 10**14 in values
    assert sum(not well_typed(f) for f in UNIVERSE.values()) >= 10


# -- mutation checks: a broken translator must be caught by the same differential property -----------

CASE = st.tuples(policies(), principals(), requests)


def _mismatch(backends: Backends, name: str) -> Any:
    """The first random case on which the `name` path breaks the property (an exception counts:
    it fails the property test too). No shrinking: one counterexample shows the test catches it."""

    def differs(case: tuple[PolicySet, Principal, ReadRequest]) -> bool:
        policy, principal, request = case
        try:
            point, plan = point_and_plan(policy, principal, request)
            if name == "plan":
                return {fid for fid, f in UNIVERSE.items() if plan.allows(f)} != point
            owner = _owner(principal)
            got = selections(backends, plan, owner, only=(name,))
            check(backends, policy, request, owner, point, plan, got)
        except Exception:
            return True
        return False

    # a fixed seed: the search is the same on every run, so a found mutant stays found
    return find(
        CASE,
        differs,
        settings=settings(max_examples=3000, database=None, phases=[Phase.generate]),
        random=random.Random(20261202),
    )


def test_mutation_qdrant_dropped_existence_guard(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    from qdrant_client import models

    from memguard.pushdown import qdrant

    monkeypatch.setattr(qdrant, "_exists", lambda name: models.Filter())
    assert _mismatch(backends, "qdrant") is not None


def test_mutation_qdrant_flipped_negation(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    from qdrant_client import models

    from memguard.pushdown import qdrant

    original = qdrant._translate

    def flipped(cond: Any) -> Any:
        if isinstance(cond, qdrant.Not):
            return models.Filter(must=[qdrant._exists(cond.item.field), qdrant._atom(cond.item)])
        return original(cond)

    monkeypatch.setattr(qdrant, "_translate", flipped)
    assert _mismatch(backends, "qdrant") is not None


def test_mutation_sql_dropped_existence_guard(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import true

    from memguard.pushdown import sql

    monkeypatch.setattr(sql._Translator, "present", lambda self, name: true())
    assert _mismatch(backends, "sqlite") is not None


def test_mutation_sql_flipped_negation(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import and_

    from memguard.pushdown import sql

    original = sql._Translator.__call__

    def flipped(self: Any, cond: Any) -> Any:
        if isinstance(cond, sql.Not):
            return and_(self.present(cond.item.field), self.atom(cond.item))
        return original(self, cond)

    monkeypatch.setattr(sql._Translator, "__call__", flipped)
    assert _mismatch(backends, "postgres" if "postgres" in backends.names else "sqlite") is not None


def test_mutation_mem0_dropped_existence_guard(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    from memguard.pushdown import mem0

    original = mem0._translate

    def unguarded(cond: Any) -> Any:
        if isinstance(cond, mem0.Not):
            return {"NOT": [mem0._atom(cond.item)]}
        return original(cond)

    monkeypatch.setattr(mem0, "_translate", unguarded)
    assert _mismatch(backends, "mem0") is not None


def test_mutation_langgraph_dropped_an_alternative(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fanning out `in` to its first value only (a lost disjunct) is caught."""
    from memguard.pushdown import langgraph

    original = langgraph._alternatives
    monkeypatch.setattr(langgraph, "_alternatives", lambda lit: original(lit)[:1])
    assert _mismatch(backends, "langgraph") is not None


def test_mutation_langgraph_ne_without_presence(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    """Treating every field as always present (a `$ne` that lets a missing value through) is caught."""
    from memguard.pushdown import langgraph

    monkeypatch.setattr(langgraph, "ALWAYS_PRESENT", frozenset(langgraph.FIELDS))
    original = langgraph._filter

    def no_presence(term: Any) -> Any:
        out = original(term)
        for ops in out.values():
            if ops.get("$ne", 0) is None and len(ops) > 1:
                del ops["$ne"]
        return out

    monkeypatch.setattr(langgraph, "_filter", no_presence)
    assert _mismatch(backends, "langgraph") is not None


def test_mutation_integers_beyond_2_53_would_round_in_qdrant(
    backends: Backends, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why integer fields have a domain: with int64 domains, a literal beyond 2^53 reaches Qdrant's
    float range bound and rounds (2^53 + 1 -> 2^53), and stored values at 2^53 disagree with the
    point evaluator. The same property catches it."""
    from memguard import scope

    wide = scope.FieldDomain(int, low=-(2**63), high=2**63 - 1)
    monkeypatch.setitem(scope.DOMAINS, "created_at", wide)  # type: ignore[index]
    monkeypatch.setitem(scope.DOMAINS, "derived_from_count", wide)  # type: ignore[index]
    assert _mismatch(backends, "qdrant") is not None


def test_mutation_compile_flipped_negation(monkeypatch: pytest.MonkeyPatch, backends: Backends) -> None:
    """Partial evaluation itself is checked too: flipping polarity under `not` is found."""
    from memguard.policy import compile as comp

    original = comp.residual

    def flipped(expr: Any, penv: Any, now: int, positive: bool = True) -> Any:
        if isinstance(expr, comp.NotExpr):
            return original(expr.item, penv, now, positive)
        return original(expr, penv, now, positive)

    monkeypatch.setattr(comp, "residual", flipped)
    assert _mismatch(backends, "plan") is not None
