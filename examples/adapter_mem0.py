"""mem0 memory for an agent, guarded by memguard: same calls, provenance on every memory.

A browsing sub-agent (alice -> planner -> browser) stores what it read on a web page through mem0's own
``add``; a recall shows that memory marked ``untrusted`` with its source; bob never sees it; a memory
edited behind the guard's back is withheld; a revoked (quarantined) memory is never recalled; a delete
leaves no text in mem0's history table.

Run: python examples/adapter_mem0.py   (offline: Qdrant local mode, hash embedder, no LLM, no telemetry)
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
from pathlib import Path

os.environ["MEM0_TELEMETRY"] = "False"  # before mem0 is imported (the guard refuses telemetry)
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="memguard-example-mem0-"))

from memguard import Ledger, LocalTokenService, Source, SourceKind, Turn
from memguard.adapters.mem0 import GuardedMemory, offline_memory
from memguard.context import CallContext
from memguard.errors import Fenced
from memguard.kernel import Kernel
from memguard.revocation import RevocationSelector

PLANNER = "spiffe://example.org/agent/planner"
BROWSER = "spiffe://example.org/agent/browser"


def main() -> None:
    logging.disable(logging.WARNING)  # mem0 warns that optional spaCy/fastembed are missing
    with tempfile.TemporaryDirectory() as state:
        tmp = Path(state)
        tokens = LocalTokenService(tmp / "keys")
        kernel = Kernel(ledger=Ledger.sqlite(tmp / "ledger.db"), verifier=tokens.verifier())
        memory = offline_memory(str(tmp / "qdrant"), dimension=64, history_db_path=str(tmp / "history.db"))
        quiet = contextlib.redirect_stdout(io.StringIO())  # the guard's JSON decision log
        try:
            with quiet:
                browser = kernel.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
                alice = kernel.authenticate(tokens.issue("alice"))
                bob = kernel.authenticate(tokens.issue("bob"))
            page = CallContext(
                source=Source(kind=SourceKind.WEB, uri="https://docs.acme.example/limits"),
                turn=Turn(session_id="session-42", turn_index=7, trace_id="4bf92f3577b34da6"),
            )
            chat = CallContext(
                source=Source(kind=SourceKind.USER_MESSAGE, name="chat"),
                turn=Turn(session_id="session-42", turn_index=8),
            )
            agent = GuardedMemory(memory, kernel=kernel, identity=browser, context=page)
            mine = GuardedMemory(memory, kernel=kernel, identity=alice, context=chat)
            bobs = GuardedMemory(memory, kernel=kernel, identity=bob, context=chat)

            with quiet:
                # the agent's code is mem0's: add(...), search(...); scope keys come from the identity
                web = agent.add("ACME's API allows 100 requests per minute.", infer=False)["results"][0]
                told = mine.add("I prefer answers in metric units.", infer=False)["results"][0]
                hits = mine.search("ACME API requests per minute", top_k=3)["results"]
                listed = mine.get_all()["results"]
            print("search:")
            for hit in hits:
                p = hit["memguard"]
                print(f"  [trust={p['trust']} source={p['source']} writer={p['writer']}] {hit['memory']}")
            print("all of alice's memories:")
            for item in listed:
                p = item["memguard"]
                print(f"  [trust={p['trust']} source={p['source']} fact={p['fact_id']}] {item['memory']}")
            assert web["memguard"]["trust"] == "untrusted" and told["memguard"]["trust"] == "user"

            with quiet:
                assert bobs.search("ACME API", top_k=3)["results"] == []
                assert bobs.get(web["id"]) is None
            print("bob sees none of alice's memories")

            # someone edits the vector store directly: the memory is withheld and an alarm recorded
            memory.vector_store.update(vector_id=told["id"], payload={"data": "I prefer imperial units."})
            with quiet:
                assert mine.get(told["id"]) is None
            alarm = kernel.ledger.events(decision="alarm")[-1]
            print("edited behind the guard ->", alarm.reason)

            # the web page turns out to be malicious: revoke it; its memory is never recalled again
            with quiet:
                kernel.revoke(alice, RevocationSelector.fact(web["memguard"]["fact_id"]), reason="bad page")
                assert mine.search("ACME API requests per minute", top_k=3)["results"] == []
            print("revoked memory is no longer recalled")

            # turn 8 read that page: anything it writes now may come from it (the deletion fence)
            with quiet:
                try:
                    mine.add("so the limit is 100 per minute", infer=False)
                    raise AssertionError("a write of a turn that read a revoked fact committed")
                except Fenced:
                    pass
            print("a later write in the turn that read it is refused: deletion fence")

            later = mine.with_context(turn=Turn(session_id="session-42", turn_index=9))
            with quiet:
                extra = later.add("my locker code is 8812", infer=False)["results"][0]
                later.delete(extra["id"])
                trail = later.history(extra["id"])
            print("history after delete:", [(r["event"], r["new_memory"]) for r in trail])
            assert all(r["old_memory"] is None and r["new_memory"] is None for r in trail)
        finally:
            memory.vector_store.client.close()
            memory.db.close()
            kernel.ledger.close()


if __name__ == "__main__":
    main()
