"""Wrap the qdrant-client you already use: same calls, every point provenance-stamped and scoped.

Run: python examples/adapter_qdrant.py   (offline: Qdrant local mode, a deterministic hash embedder,
a SQLite ledger and a local token service, all in a temporary folder)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from qdrant_client import QdrantClient, models

from memguard import HashEmbedder, Ledger, LocalTokenService, Source, SourceKind, Turn
from memguard.adapters.qdrant import GuardedQdrantClient, fact_id_of
from memguard.context import CallContext
from memguard.kernel import Kernel
from memguard.revocation import RevocationSelector

RESEARCHER = "spiffe://example.org/agent/researcher"
NOTES = "notes"


def main() -> None:
    embed = HashEmbedder(64)
    with tempfile.TemporaryDirectory() as state:
        root = Path(state)
        tokens = LocalTokenService(root / "keys")
        kernel = Kernel(ledger=Ledger.sqlite(root / "ledger.db"), verifier=tokens.verifier())
        raw = QdrantClient(
            path=str(root / "qdrant")
        )  # or QdrantClient(url=...): the same code path

        # carol's research agent, reading a web page in turn 7 of her session
        carol = kernel.authenticate(tokens.issue("carol", actors=[RESEARCHER]))
        web = CallContext(
            source=Source(kind=SourceKind.WEB, uri="https://docs.acme.example/limits"),
            turn=Turn(session_id="session-42", turn_index=7, trace_id="4bf92f3577b34da6"),
        )
        agent = GuardedQdrantClient(raw, kernel=kernel, identity=carol, context=web)
        agent.create_collection(
            NOTES, vectors_config=models.VectorParams(size=64, distance=models.Distance.COSINE)
        )
        texts = {
            1: "The ACME API rate limit is 100 requests per minute.",
            2: "ACME support answers within two business days.",
        }
        agent.upsert(
            NOTES,
            points=[
                models.PointStruct(id=i, vector=embed.embed([t])[0], payload={"text": t})
                for i, t in texts.items()
            ],
        )

        # the same client API for the next turn, now on carol's own message
        said = agent.with_context(
            source=Source(kind=SourceKind.USER_MESSAGE),
            turn=Turn(session_id="session-42", turn_index=8),
        )
        note = "Our ACME plan is the enterprise tier."
        said.upsert(
            NOTES,
            points=[
                models.PointStruct(id=3, vector=embed.embed([note])[0], payload={"text": note})
            ],
        )

        query = embed.embed(["ACME rate limit"])[0]
        print("carol's agent asks about the ACME rate limit:")
        for hit in agent.query_points(NOTES, query=query, limit=3).points:
            summary = hit.payload["memguard"]
            print(
                f"  {hit.score:.3f} [trust={summary['trust']} {summary['source']}] {hit.payload['text']}"
            )

        # full provenance of the top hit, from the ledger
        prov = kernel.ledger.latest([fact_id_of(NOTES, 1)])[fact_id_of(NOTES, 1)].provenance
        chain = " -> ".join([prov.owner.subject, *(a.subject for a in prov.writer.actors)])
        print(
            f"provenance of point 1: fact {prov.fact_id} v{prov.version}, trust {prov.trust.label}"
        )
        print(f"  written by {chain}, turn {prov.turn.turn_index} of {prov.turn.session_id}")
        print(f"  source {prov.source.uri}, content {prov.content_digest[:23]}...")

        # another user sees none of it, however the filter is written
        dave = GuardedQdrantClient(
            raw, kernel=kernel, identity=kernel.authenticate(tokens.issue("dave")), context=web
        )
        assert (
            dave.query_points(NOTES, query=query, query_filter=models.Filter(), limit=10).points
            == []
        )
        assert dave.retrieve(NOTES, [1, 2, 3]) == [] and dave.count(NOTES).count == 0
        dave.delete(NOTES, points_selector=models.Filter())  # deletes only dave's own points: none
        print(
            "dave sees 0 of carol's points; his match-all delete removed nothing:",
            agent.count(NOTES).count,
            "left",
        )

        # an edit made behind memguard's back is withheld, with an integrity alarm in the ledger
        raw.set_payload(NOTES, {"text": "The ACME API has no rate limit."}, points=[1])
        assert 1 not in {p.id for p in agent.query_points(NOTES, query=query, limit=3).points}
        alarm = kernel.ledger.events(decision="alarm")[-1]
        print("tampered point 1 withheld:", alarm.reason)

        # the web page turns out to be poisoned: revoke it, everything from it is quarantined
        kernel.revoke(
            carol, RevocationSelector.source(web.source.uri or ""), reason="page was poisoned"
        )
        left = [p.payload["text"] for p in agent.scroll(NOTES, limit=10)[0]]
        assert left == [note]
        print("after revoking the web page, carol's agent recalls only:", left)

        # the raw transports are not reachable through the guarded client
        try:
            agent.http  # noqa: B018
            raise SystemExit("escape hatch reachable")
        except AttributeError as exc:
            print("agent.http ->", type(exc).__name__)
        kernel.ledger.close()
        raw.close()


if __name__ == "__main__":
    main()
