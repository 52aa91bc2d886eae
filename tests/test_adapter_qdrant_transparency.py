"""Transparency: under a policy that allows everything, a guarded client answers like the raw one.

A seeded random sequence of operations (upserts, queries with and without filters and prefetch,
grouped queries, retrieve, scroll, count, payload changes, deletes by id and by filter) runs on a raw
local client and on a guarded local client; every answer must be equal: ids, order, scores, vectors
and payloads (minus the provenance summary the guard adds). Run for the sync and the async shell,
under an allow-all YAML policy and under the default owner scope with a single user.
``QDRANT_TRANSPARENCY_OPS`` sets the length of each sequence (default 300).
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock
from qdrant_adapter_helpers import ALLOW_ALL_POLICY, GuardView, Side, make_kernel, strip
from qdrant_client import models

from memguard import LocalTokenService, MemguardError, PolicyResolver
from memguard.kernel import Kernel
from memguard.scope import DefaultScopeResolver

C = "transparent"
DIM = 6
OPS = int(os.environ.get("QDRANT_TRANSPARENCY_OPS", "300"))
UUIDS = [str(uuid.UUID(int=random.Random(i).getrandbits(128))) for i in range(8)]
POOL: list[int | str] = [*range(30), *UUIDS]


def canonical(pid: Any) -> Any:
    return str(uuid.UUID(pid)) if isinstance(pid, str) else pid


class Ops:
    """Draws random, valid operations; ``alive`` is read from the raw side before a payload change."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def vector(self) -> list[float]:
        return [round(self.rng.uniform(-1, 1), 3) for _ in range(DIM)]

    def pid(self) -> int | str:
        pid = self.rng.choice(POOL)
        if isinstance(pid, str) and self.rng.random() < 0.3:
            return pid.upper()  # another spelling of the same UUID: Qdrant normalizes it
        return pid

    def payload(self) -> dict[str, Any]:
        r = self.rng
        full = {
            "color": r.choice(["red", "green", "blue"]),
            "n": r.randint(0, 9),
            "tags": r.sample(["a", "b", "c", "d"], r.randint(0, 3)),
            "nested": {"x": r.randint(0, 3), "y": r.choice(["p", "q"])},
            "text": f"note {r.randint(0, 999)}",
            "score": round(r.uniform(0, 1), 2),
        }
        return {k: v for k, v in full.items() if r.random() < 0.8}

    def condition(self) -> models.Condition:
        r = self.rng
        return r.choice(
            [
                lambda: models.FieldCondition(
                    key="color", match=models.MatchValue(value=r.choice(["red", "green", "blue"]))
                ),
                lambda: models.FieldCondition(
                    key="n", range=models.Range(gte=r.randint(0, 5), lt=r.randint(5, 10))
                ),
                lambda: models.FieldCondition(
                    key="tags", match=models.MatchAny(any=r.sample(["a", "b", "c", "d"], 2))
                ),
                lambda: models.FieldCondition(
                    key="nested.x", match=models.MatchValue(value=r.randint(0, 3))
                ),
                lambda: models.IsEmptyCondition(is_empty=models.PayloadField(key="tags")),
                lambda: models.HasIdCondition(has_id=[canonical(self.pid()) for _ in range(5)]),
            ]
        )()

    def filter(self) -> models.Filter | None:
        r = self.rng
        roll = r.random()
        if roll < 0.35:
            return None
        if roll < 0.45:
            return models.Filter()
        clause = r.choice(["must", "should", "must_not"])
        return models.Filter(**{clause: [self.condition() for _ in range(r.randint(1, 2))]})

    def with_payload(self) -> Any:
        return self.rng.choice(
            [
                True,
                True,
                True,
                False,
                ["color", "nested.x"],
                models.PayloadSelectorExclude(exclude=["text"]),
            ]
        )

    def prefetch(self) -> Any:
        r = self.rng
        inner = models.Prefetch(query=self.vector(), filter=self.filter(), limit=r.randint(3, 15))
        if r.random() < 0.3:
            return models.Prefetch(
                prefetch=[inner, models.Prefetch(query=self.vector(), limit=8)],
                query=self.vector(),
                limit=10,
            )
        return (
            [inner, models.Prefetch(query=self.vector(), limit=r.randint(3, 15))]
            if r.random() < 0.5
            else inner
        )

    def next(self, alive: Callable[[], list[Any]]) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        r = self.rng
        kind = r.choices(
            [
                "upsert",
                "batch",
                "query",
                "groups",
                "retrieve",
                "scroll",
                "count",
                "set",
                "overwrite",
                "delete_payload",
                "clear",
                "delete_ids",
                "delete_filter",
            ],
            weights=[14, 4, 24, 5, 9, 9, 7, 9, 3, 3, 2, 6, 3],
        )[0]
        if kind == "upsert":
            ids = r.sample(POOL, r.randint(1, 4))
            pts = [
                models.PointStruct(id=i, vector=self.vector(), payload=self.payload()) for i in ids
            ]
            return "upsert", (C,), {"points": pts}
        if kind == "batch":
            ids = r.sample(POOL, r.randint(1, 4))
            batch = models.Batch(
                ids=ids,
                vectors=[self.vector() for _ in ids],
                payloads=[self.payload() for _ in ids],
            )
            return "upsert", (C,), {"points": batch}
        if kind == "query":
            kw: dict[str, Any] = {"limit": r.randint(1, 12), "with_payload": self.with_payload()}
            roll = r.random()
            live = alive()
            if roll < 0.1 and live:
                kw["query"] = r.choice(live)  # by point id: that point's vector
            elif roll < 0.3:
                kw["prefetch"] = self.prefetch()
                kw["query"] = r.choice(
                    [self.vector(), models.FusionQuery(fusion=models.Fusion.RRF)]
                )
            else:
                kw["query"] = self.vector()
            kw["query_filter"] = self.filter()
            if r.random() < 0.2:
                kw["offset"] = r.randint(0, 5)
            if r.random() < 0.15:
                kw["with_vectors"] = True
            if r.random() < 0.15:
                kw["score_threshold"] = round(r.uniform(-0.5, 0.5), 2)
            return "query_points", (C,), kw
        if kind == "groups":
            return (
                "query_points_groups",
                (C,),
                {
                    "group_by": "color",
                    "query": self.vector(),
                    "limit": r.randint(1, 4),
                    "group_size": r.randint(1, 3),
                    "query_filter": self.filter(),
                },
            )
        if kind == "retrieve":
            return (
                "retrieve",
                (C,),
                {
                    "ids": [self.pid() for _ in range(r.randint(1, 6))],
                    "with_payload": self.with_payload(),
                },
            )
        if kind == "scroll":
            kw = {
                "limit": r.randint(1, 15),
                "scroll_filter": self.filter(),
                "with_payload": self.with_payload(),
            }
            if r.random() < 0.3:
                kw["offset"] = self.pid()
            return "scroll", (C,), kw
        if kind == "count":
            return "count", (C,), {"count_filter": self.filter()}
        live = alive()
        if kind in ("set", "overwrite", "delete_payload", "clear") and not live:
            return "count", (C,), {}
        if kind in ("set", "overwrite", "delete_payload", "clear"):
            by_filter = r.random() < 0.3
            selector: Any = (
                self.filter() or models.Filter()
                if by_filter
                else r.sample(live, min(len(live), r.randint(1, 3)))
            )
            if kind == "set":
                kw = {
                    "payload": {
                        r.choice(["color", "mood", "n"]): r.choice(["red", "calm", 3, None])
                    },
                    "points": selector,
                }
                if r.random() < 0.3:
                    kw["key"] = "nested"
                return "set_payload", (C,), kw
            if kind == "overwrite":
                return "overwrite_payload", (C,), {"payload": self.payload(), "points": selector}
            if kind == "delete_payload":
                keys = r.sample(["color", "nested.x", "tags", "missing", "text"], 2)
                return "delete_payload", (C,), {"keys": keys, "points": selector}
            return "clear_payload", (C,), {"points_selector": selector}
        if kind == "delete_ids":
            return "delete", (C,), {"points_selector": [self.pid() for _ in range(r.randint(1, 3))]}
        return (
            "delete",
            (C,),
            {"points_selector": self.filter() or models.Filter(must=[self.condition()])},
        )


def normal(value: Any) -> Any:
    """An answer as comparable data: ids, scores, vectors, payloads without the summary."""
    if isinstance(value, models.CountResult):
        return ("count", value.count)
    if isinstance(value, models.UpdateResult):
        return ("update", value.status)
    if isinstance(value, models.GroupsResult):
        return [(g.id, normal(g.hits)) for g in value.groups]
    if hasattr(value, "points") and isinstance(value.points, list):
        return normal(value.points)
    if isinstance(value, tuple):
        return tuple(normal(v) for v in value)
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, models.ScoredPoint):
        return (value.id, value.score, strip(value.payload), value.vector, value.order_value)
    if isinstance(value, models.Record):
        return (value.id, strip(value.payload), value.vector, value.order_value)
    return value


def run(side: Side, api: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return normal(getattr(api, method)(*args, **kwargs))
    except (MemguardError, ValueError, KeyError, TypeError, AssertionError) as exc:
        return ("error", type(exc).__name__ if not isinstance(exc, MemguardError) else "guarded")


SCOPES: dict[str, Callable[[], Any]] = {
    "allow-all-policy": lambda: PolicyResolver.from_text(ALLOW_ALL_POLICY),
    "default-scope-one-user": DefaultScopeResolver,
}


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def pair(
    kind: str,
    tmp_path: Path,
    tokens: LocalTokenService,
    clock: Clock,
    request: pytest.FixtureRequest,
) -> Iterator[tuple[Side, Side, Kernel]]:
    scope = SCOPES[request.param]()
    kernel = make_kernel(tmp_path, tokens, clock, scope)
    raw, guarded = (
        Side(f"{kind}-memory", tmp_path, kernel),
        Side(f"{kind}-memory", tmp_path, kernel),
    )
    yield raw, guarded, kernel
    raw.close()
    guarded.close()
    kernel.ledger.close()


@pytest.mark.parametrize("pair", list(SCOPES), indirect=True)
@pytest.mark.parametrize("seed", [11, 2024])
def test_guarded_answers_like_raw(
    pair: tuple[Side, Side, Kernel], tokens: LocalTokenService, seed: int
) -> None:
    raw_side, guarded_side, kernel = pair
    me = kernel.authenticate(tokens.issue("alice"))
    guarded: GuardView = guarded_side.guard(me)
    raw_side.create(C, DIM)
    assert guarded.create_collection(
        C, vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
    )

    def alive() -> list[Any]:
        records, _ = raw_side.call_raw("scroll", C, limit=1000, with_payload=False)
        return sorted((r.id for r in records), key=str)

    ops = Ops(seed)
    kinds: dict[str, int] = {}
    for step in range(OPS):
        method, args, kwargs = ops.next(alive)
        expected = run(
            raw_side,
            raw_side.raw if not raw_side.is_async else _SyncRaw(raw_side),
            method,
            args,
            kwargs,
        )
        got = run(guarded_side, guarded, method, args, kwargs)
        assert got == expected or (expected[0] == "error" and got[0] == "error"), (
            step,
            method,
            kwargs,
        )
        if isinstance(expected, tuple) and expected and expected[0] == "error":
            kinds["error"] = kinds.get("error", 0) + 1
        kinds[method] = kinds.get(method, 0) + 1
    # the sequence exercised every operation and left a non-trivial collection behind
    assert {
        "upsert",
        "query_points",
        "retrieve",
        "scroll",
        "count",
        "set_payload",
        "delete",
    } <= set(kinds)
    assert len(alive()) >= 5
    assert guarded.count(C).count == raw_side.call_raw("count", C).count


class _SyncRaw:
    def __init__(self, side: Side) -> None:
        self.side = side

    def __getattr__(self, name: str) -> Any:
        return lambda *a, **kw: self.side.call_raw(name, *a, **kw)
