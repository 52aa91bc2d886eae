"""Quickstart: wrap memory with memguard on the embedded defaults, write as a sub-agent, recall, audit.

Run: python examples/quickstart.py   (offline; state goes to a temporary folder)
"""

from __future__ import annotations

import tempfile

from memguard import (
    FactNotFound,
    IdentityError,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
    audit_fact,
    open_embedded,
)

RESEARCHER = "spiffe://example.org/agent/researcher"


def main() -> None:
    with tempfile.TemporaryDirectory() as state:
        stack = open_embedded(state)
        guard, tokens = stack.guard, stack.tokens
        try:
            # In production the token comes from your authorization server; here from the local STS.
            me = guard.authenticate(tokens.issue("carol", actors=[RESEARCHER]))
            fact = guard.write(
                me,
                "The ACME API rate limit is 100 requests per minute.",
                namespace="research",
                source=Source(kind=SourceKind.WEB, uri="https://docs.acme.example/limits"),
                turn=Turn(session_id="session-42", turn_index=7, trace_id="4bf92f3577b34da6"),
            )
            assert fact.trust is TrustLevel.UNTRUSTED  # web content, whatever the agent claims

            for hit in guard.search(me, "ACME rate limit", k=3):
                print(hit.summary(), hit.text)

            # A tool argument should not come from web text: ask for `user` trust or better.
            assert guard.search(me, "ACME rate limit", k=3, min_trust=TrustLevel.USER) == []

            dave = guard.authenticate(tokens.issue("dave"))
            try:
                guard.get(dave, fact.fact_id)
                raise SystemExit("isolation broken")
            except FactNotFound:
                print("dave cannot see carol's fact")

            try:
                guard.search(None, "ACME", k=1)  # type: ignore[arg-type]
            except IdentityError as exc:
                print("no identity ->", exc.code)

            report = audit_fact(guard.ledger, guard.store, fact.fact_id)
            print("audit verified:", report["verification"]["verified"])
            assert report["verification"]["verified"]
        finally:
            stack.close()


if __name__ == "__main__":
    main()
