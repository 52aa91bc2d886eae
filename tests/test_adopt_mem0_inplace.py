"""In-place adoption of a mem0 store (``memguard.adopt.adopt_mem0_in_place``): the memories stay
in mem0's own Qdrant collection, are stamped in the mem0 adapter's layout, and the application's
mem0 calls through ``GuardedMemory`` serve each to its owner only. Real parts: mem0 with the
repository's offline embedder and LLM (Qdrant local mode), the testing harness's guard."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("MEM0_TELEMETRY", "False")
pytest.importorskip("mem0", reason="the `mem0` extra")

from memguard.adapters.mem0 import GuardedMemory
from memguard.adapters.mem0.offline import offline_memory
from memguard.adopt import OwnerMapping, adopt_mem0_in_place
from memguard.adopt.mem0 import MEM0_PROMOTED, mem0_fact_id
from memguard.context import CallContext
from memguard.errors import MemguardError
from memguard.ledger.verification import verify_ledger
from memguard.provenance import Source, Turn
from memguard.testing import GuardHarness, guard_harness
from memguard.trust import SourceKind, TrustLevel

ISSUER = "https://memguard.local"  # the harness's local token service
MAPPING = OwnerMapping(issuer=ISSUER, fields=("user_id",))
CTX = CallContext(source=Source(kind=SourceKind.USER_MESSAGE), turn=Turn(session_id="s", turn_index=0))


@pytest.fixture
def h(tmp_path: Path) -> Iterator[GuardHarness]:
    with guard_harness(tmp_path) as harness:
        yield harness


@pytest.fixture
def legacy(tmp_path: Path) -> Any:
    memory = offline_memory(str(tmp_path / "mem0"), dimension=64)
    memory.add("alice likes dark mode", user_id="alice", infer=False)
    memory.add("alice's meeting is at 10", user_id="alice", metadata={"topic": "work"}, infer=False)
    memory.add("bob likes light mode", user_id="bob", infer=False)
    memory.add("an agent note", agent_id="helper", infer=False)  # no user: no owner
    return memory


def texts(result: dict[str, Any]) -> set[str]:
    return {r["memory"] for r in result["results"]}


def test_the_layout_is_the_mem0_adapters() -> None:
    from memguard.adapters.mem0.base import _PROMOTED, memory_fact_id

    assert tuple(_PROMOTED) == MEM0_PROMOTED
    assert memory_fact_id("0b9d5c6e-1111-4f00-9c43-123456789abc") == mem0_fact_id(
        "0b9d5c6e-1111-4f00-9c43-123456789abc"
    )


def test_adopted_memories_are_served_in_place_to_their_owner_only(h: GuardHarness, legacy: Any) -> None:
    kernel = h.guard.kernel
    before = {r.id: dict(r.payload) for r in legacy.vector_store.list(top_k=100)[0]}
    dry = adopt_mem0_in_place(None, legacy, mapping=MAPPING, operator="ops", dry_run=True)
    assert dry.adopted == 3 and dry.skipped == {"owner.missing": 1}
    assert {r.id: dict(r.payload) for r in legacy.vector_store.list(top_k=100)[0]} == before
    report = adopt_mem0_in_place(kernel, legacy, mapping=MAPPING, operator="ops")
    assert (report.adopted, report.skipped) == (3, dry.skipped)
    alice = GuardedMemory(legacy, kernel=kernel, identity=h.identity("alice"), context=CTX)
    bob = GuardedMemory(legacy, kernel=kernel, identity=h.identity("bob"), context=CTX)
    mine = alice.get_all()
    assert texts(mine) == {"alice likes dark mode", "alice's meeting is at 10"}
    assert all(r["provenance"]["trust"] == "untrusted" for r in mine["results"])
    found = texts(alice.search("alice likes dark mode", top_k=10))
    assert "alice likes dark mode" in found and found <= texts(mine)
    assert "alice likes dark mode" not in texts(bob.search("alice likes dark mode", top_k=10))
    assert texts(bob.get_all()) == {"bob likes light mode"}
    alice_ids = [r["id"] for r in mine["results"]]
    assert bob.get(alice_ids[0]) is None  # not bob's
    one = alice.get(alice_ids[0])
    assert one is not None and one["memory"] in texts(mine)
    prov = kernel.ledger.latest([mem0_fact_id(alice_ids[0])])[mem0_fact_id(alice_ids[0])].provenance
    assert prov.source.kind is SourceKind.LEGACY and prov.trust is TrustLevel.UNTRUSTED
    assert prov.owner.subject == "alice" and prov.writer.subject.subject == "ops"
    # resumable: a rerun adopts nothing twice
    again = adopt_mem0_in_place(kernel, legacy, mapping=MAPPING, operator="ops")
    assert (again.adopted, again.already) == (0, 3)
    # the adopted memories keep working through the guard: the owner updates and deletes them
    alice.update(alice_ids[0], "alice likes dark mode a lot")
    assert "alice likes dark mode a lot" in texts(alice.get_all())
    verified = verify_ledger(kernel.ledger)
    assert verified.ok, verified.problems


def test_an_interrupted_adoption_is_aborted_and_resumes(h: GuardHarness, legacy: Any) -> None:
    kernel = h.guard.kernel
    client = legacy.vector_store.client
    real = client.batch_update_points

    def down(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("qdrant down")

    client.batch_update_points = down
    try:
        with pytest.raises(MemguardError):
            adopt_mem0_in_place(kernel, legacy, mapping=MAPPING, operator="ops")
    finally:
        client.batch_update_points = real
    assert kernel.ledger.events(decision="deny")[-1].action == "adopt"
    alice = GuardedMemory(legacy, kernel=kernel, identity=h.identity("alice"), context=CTX)
    assert alice.get_all()["results"] == []  # nothing half-adopted is served
    assert adopt_mem0_in_place(kernel, legacy, mapping=MAPPING, operator="ops").adopted == 3
    assert len(alice.get_all()["results"]) == 2


def test_memguard_adopt_mem0_in_place_on_the_command_line(tmp_path: Path, legacy: Any) -> None:
    import json

    from typer.testing import CliRunner

    from memguard.cli import app
    from memguard.embedded import open_embedded

    legacy.vector_store.client.close()  # the local folder is one process's at a time
    state = tmp_path / "state"
    base = ["adopt", "mem0", "--path", str(tmp_path / "mem0"), "--collection", "memguard",
            "--issuer", ISSUER, "--state-dir", str(state), "--in-place", "--json"]  # fmt: skip
    dry = CliRunner().invoke(app, [*base, "--init", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["adopted"] == 3 and list(state.iterdir()) == []
    real = CliRunner().invoke(app, base)
    assert real.exit_code == 0, real.output
    assert json.loads(real.output)["adopted"] == 3
    memory = offline_memory(str(tmp_path / "mem0"), dimension=64)
    stack = open_embedded(state)
    try:
        kernel = stack.guard.kernel
        alice = stack.guard.authenticate(stack.tokens.issue("alice", scopes=["memory:read"]))
        carol = stack.guard.authenticate(stack.tokens.issue("carol", scopes=["memory:read"]))
        mine = GuardedMemory(memory, kernel=kernel, identity=alice, context=CTX).get_all()
        assert texts(mine) == {"alice likes dark mode", "alice's meeting is at 10"}
        assert GuardedMemory(memory, kernel=kernel, identity=carol, context=CTX).get_all()["results"] == []
    finally:
        stack.close()
        memory.vector_store.client.close()
