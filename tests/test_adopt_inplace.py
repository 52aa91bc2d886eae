"""In-place adoption of a LangGraph store (``memguard.adopt.adopt_langgraph_in_place``): the
items stay in the application's store, move into their owner's partition in the guard's layout,
and the application's own call sites (the store wrapped in ``GuardedStore``) keep reading them by
the same namespace and key, each for its owner only. Real parts: LangGraph's ``InMemoryStore``,
the testing harness's guard (SQLite ledger, signed tokens)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="the `langgraph` extra")

from langgraph.store.base import PutOp, Result
from langgraph.store.memory import InMemoryStore

from memguard.adapters.langgraph import GuardedStore
from memguard.adapters.langgraph import adopt_in_place as adopt_langgraph_in_place
from memguard.adopt import OwnerMapping
from memguard.context import CallContext
from memguard.errors import MemguardError
from memguard.ledger import FactState
from memguard.ledger.verification import verify_ledger
from memguard.provenance import Source, Turn
from memguard.testing import GuardHarness, guard_harness
from memguard.trust import SourceKind, TrustLevel

ISSUER = "https://memguard.local"  # the harness's local token service
BY_NS = OwnerMapping(issuer=ISSUER, namespace_index=1)
CTX = CallContext(source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="s", turn_index=0))


class Flaky(InMemoryStore):
    fail = False

    def batch(self, ops: Any) -> list[Result]:
        ops = list(ops)
        if self.fail and any(isinstance(o, PutOp) for o in ops):
            raise RuntimeError("store down")
        return super().batch(ops)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[GuardHarness]:
    with guard_harness(tmp_path) as harness:
        yield harness


def legacy_store() -> Flaky:
    store = Flaky()
    store.put(("users", "alice", "prefs"), "theme", {"text": "likes dark mode"})
    store.put(("users", "alice", "notes"), "n1", {"text": "meeting at 10", "tags": ["work"]})
    store.put(("users", "bob", "prefs"), "theme", {"text": "likes light mode"})
    store.put(("orphans",), "x", {"text": "no owner in the namespace"})
    store.put(("users", "carol", "prefs"), "evil", {"text": "x", "__memguard_trust": 7})
    return store


def raw_keys(store: InMemoryStore) -> set[tuple[tuple[str, ...], str]]:
    return {(tuple(i.namespace), i.key) for i in store.search((), limit=1000)}


def test_adopted_items_are_read_where_they_were_by_their_owner_only(h: GuardHarness) -> None:
    store = legacy_store()
    before = raw_keys(store)
    dry = adopt_langgraph_in_place(None, store, mapping=BY_NS, operator="ops", dry_run=True)
    assert dry.adopted == 3 and raw_keys(store) == before  # a dry run writes nothing
    assert dry.skipped == {"owner.missing": 1, "payload.reserved": 1}
    kernel = h.guard.kernel
    report = adopt_langgraph_in_place(kernel, store, mapping=BY_NS, operator="ops")
    assert (report.adopted, report.skipped) == (3, dry.skipped)
    # the legacy copies of adopted items are gone; the skipped ones stay as they were
    left = {k for k in raw_keys(store) if not k[0][0].startswith("mg-")}
    assert left == {(("orphans",), "x"), (("users", "carol", "prefs"), "evil")}
    alice = GuardedStore(store, kernel=kernel, identity=h.identity("alice"), context=CTX)
    bob = GuardedStore(store, kernel=kernel, identity=h.identity("bob"), context=CTX)
    item = alice.get(("users", "alice", "prefs"), "theme")  # the same call site as before
    assert item is not None and item.value == {"text": "likes dark mode"}
    prov = alice.provenance(("users", "alice", "prefs"), "theme")
    assert prov.source.kind is SourceKind.LEGACY and prov.trust is TrustLevel.UNTRUSTED
    assert prov.writer.subject.subject == "ops" and prov.owner.subject == "alice"
    assert {i.key for i in alice.search(("users",))} == {"theme", "n1"}
    assert bob.get(("users", "alice", "prefs"), "theme") is None  # not bob's
    assert [i.value["text"] for i in bob.search(("users",))] == ["likes light mode"]
    events = [e for e in kernel.ledger.events(decision="allow") if e.action == "adopt"]
    assert any(e.reason == "legacy copies removed" and e.detail["removed"] == 3 for e in events)
    # resumable: a rerun adopts nothing twice
    again = adopt_langgraph_in_place(kernel, store, mapping=BY_NS, operator="ops")
    assert (again.adopted, again.already) == (0, 0)  # the adopted items are no longer legacy
    report = verify_ledger(kernel.ledger)
    assert report.ok, report.problems


def test_an_interrupted_adoption_keeps_the_legacy_copy_and_resumes(h: GuardHarness) -> None:
    store = legacy_store()
    kernel = h.guard.kernel
    store.fail = True
    with pytest.raises(MemguardError):
        adopt_langgraph_in_place(kernel, store, mapping=BY_NS, operator="ops")
    store.fail = False
    assert (("users", "alice", "prefs"), "theme") in raw_keys(store)  # nothing lost
    assert kernel.ledger.events(decision="deny")[-1].action == "adopt"
    alice = GuardedStore(store, kernel=kernel, identity=h.identity("alice"), context=CTX)
    assert alice.get(("users", "alice", "prefs"), "theme") is None  # the aborted batch: not served
    report = adopt_langgraph_in_place(kernel, store, mapping=BY_NS, operator="ops")
    assert report.adopted == 3
    assert alice.get(("users", "alice", "prefs"), "theme") is not None
    # a legacy copy whose fact the ledger already holds (a cleanup that did not run) is removed
    store.put(("users", "alice", "prefs"), "theme", {"text": "likes dark mode"})
    rerun = adopt_langgraph_in_place(kernel, store, mapping=BY_NS, operator="ops")
    assert (rerun.adopted, rerun.already) == (0, 1)
    assert (("users", "alice", "prefs"), "theme") not in raw_keys(store)
    fact_id = alice.fact_id(("users", "alice", "prefs"), "theme")
    assert kernel.ledger.latest([fact_id])[fact_id].state is FactState.COMMITTED


def test_semantic_search_finds_adopted_items(h: GuardHarness) -> None:
    from langgraph.store.base import IndexConfig

    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0, float(len(t) % 7), float("dark" in t)] for t in texts]

    index: IndexConfig = {"dims": 3, "embed": embed, "fields": ["$"]}
    store = InMemoryStore(index=index)
    store.put(("users", "alice", "prefs"), "theme", {"text": "likes dark mode"})
    kernel = h.guard.kernel
    assert adopt_langgraph_in_place(kernel, store, mapping=BY_NS, operator="ops").adopted == 1
    alice = GuardedStore(store, kernel=kernel, identity=h.identity("alice"), context=CTX)
    hits = alice.search(("users",), query="dark")
    assert [i.key for i in hits] == ["theme"] and hits[0].score is not None
