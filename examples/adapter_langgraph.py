"""A LangGraph graph whose long-term memory store is guarded by memguard.

The graph's node reads and writes memories through ``runtime.store`` exactly as with a raw
``InMemoryStore``; the store is a ``GuardedStore``: items live in the user's own partition, every read
is scoped and verified against the ledger, and every item has provenance.

Run: python examples/adapter_langgraph.py   (offline: deterministic embedder, temporary ledger)
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from memguard import HashEmbedder, Ledger, LocalTokenService, Source, SourceKind, Turn
from memguard.adapters.langgraph import GuardedStore
from memguard.context import CallContext
from memguard.kernel import Kernel
from memguard.revocation import RevocationSelector

PLANNER = "spiffe://example.org/agent/planner"


class State(TypedDict):
    question: str
    answer: str


def recall(state: State, runtime: Runtime[None]) -> dict[str, str]:
    """A node: search the user's memories (the store decides whose and which)."""
    assert runtime.store is not None
    hits = runtime.store.search(("memories",), query=state["question"], limit=2)
    return {"answer": "; ".join(h.value["text"] for h in hits) or "(nothing remembered)"}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()) as logs:
        tokens = LocalTokenService(Path(tmp) / "keys")
        kernel = Kernel(ledger=Ledger.sqlite(Path(tmp) / "ledger.db"), verifier=tokens.verifier())
        inner = InMemoryStore(index={"dims": 128, "embed": HashEmbedder(128).embed})
        chat = CallContext(
            source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
            turn=Turn(session_id="s-1", turn_index=0, trace_id="4bf92f35"),
        )

        # The planner agent acting for alice, and one acting for bob, share one physical store.
        alice = GuardedStore(
            inner,
            kernel=kernel,
            identity=kernel.authenticate(tokens.issue("alice", actors=[PLANNER])),
            context=chat,
        )
        bob = GuardedStore(
            inner, kernel=kernel, identity=kernel.authenticate(tokens.issue("bob")), context=chat
        )
        alice.put(("memories", "prefs"), "theme", {"text": "alice prefers dark mode"})
        bob.put(("memories", "prefs"), "theme", {"text": "bob prefers light mode"})
        web = alice.with_context(
            source=Source(kind=SourceKind.WEB, uri="https://blog.example/themes"),
            turn=Turn(session_id="s-1", turn_index=1),
        )
        web.put(("memories", "web"), "tip", {"text": "dark mode saves battery on OLED screens"})

        graph = StateGraph(State).add_node("recall", recall)
        graph = graph.add_edge(START, "recall").add_edge("recall", END)
        app_alice = graph.compile(store=alice)
        app_bob = graph.compile(store=bob)
        question = {"question": "which mode do I prefer?", "answer": ""}
        answer_alice = app_alice.invoke(question)["answer"]
        answer_bob = app_bob.invoke(question)["answer"]

        provenance = [
            (ns, key, alice.provenance(ns, key))
            for ns, key in [(("memories", "prefs"), "theme"), (("memories", "web"), "tip")]
        ]
        # The web tip turns out to be poisoned: revoke it; it is never returned again.
        tip_id = alice.fact_id(("memories", "web"), "tip")
        kernel.revoke(
            kernel.authenticate(tokens.issue("alice")),
            RevocationSelector.fact(tip_id),
            reason="injected content",
        )
        after_revoke = app_alice.invoke(question)["answer"]
        namespaces = alice.list_namespaces()
        kernel.ledger.close()

    del logs  # the guard's decision log lines; the audit ledger is the record
    print("alice's agent recalls:", answer_alice)
    print("bob's agent recalls:  ", answer_bob)
    for ns, key, prov in provenance:
        where = prov.source.uri or prov.source.name
        writer = " -> ".join(
            [prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)]
        )
        print(
            f"provenance {'/'.join(ns)}/{key}: trust={prov.trust.label} "
            f"source={prov.source.kind.value}:{where} writer={writer} "
            f"turn={prov.turn.session_id}#{prov.turn.turn_index} fact={prov.fact_id}"
        )
    print("after revoking the web tip:", after_revoke)
    print("alice's namespaces:", namespaces)
    assert "bob" not in answer_alice and "alice" not in answer_bob
    assert "battery" not in after_revoke


if __name__ == "__main__":
    main()
