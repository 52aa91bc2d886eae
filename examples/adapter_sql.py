"""Agent memories in a SQL database: memguard's SqlStore under MemoryGuard, and the row facade.

The store's tables live in the ledger's own SQLite file here (one database to back up); a separate
file or PostgreSQL works the same way (see docs/adapters/sql.md). The read scope is the WHERE clause.

Run: python examples/adapter_sql.py   (offline; state goes to a temporary folder)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sqlalchemy import text as sql

from memguard import (
    FactNotFound,
    Ledger,
    LocalTokenService,
    MemoryGuard,
    Source,
    SourceKind,
    TrustLevel,
    Turn,
    audit_fact,
)
from memguard.adapters.sql import GuardedSqlMemory, SqlStore
from memguard.context import CallContext

PLANNER = "spiffe://example.org/agent/planner"


def main() -> None:
    with tempfile.TemporaryDirectory() as state:
        ledger = Ledger.sqlite(Path(state) / "memguard.db")
        store = SqlStore(engine=ledger.engine)  # same database as the ledger, its own tables
        tokens = LocalTokenService(Path(state) / "keys")
        guard = MemoryGuard(store=store, ledger=ledger, verifier=tokens.verifier())
        try:
            me = guard.authenticate(tokens.issue("carol", actors=[PLANNER]))
            chat = CallContext(
                source=Source(kind=SourceKind.USER_MESSAGE),
                turn=Turn(session_id="session-7", turn_index=1, trace_id="4bf92f3577b34da6"),
            )
            memory = GuardedSqlMemory(guard, identity=me, context=chat)
            seat = memory.add("Carol prefers aisle seats on long flights", namespace="travel")
            web = memory.with_context(
                source=Source(kind=SourceKind.WEB, uri="https://deals.example/lounges"),
                turn=Turn(session_id="session-7", turn_index=2),
            )
            web.add("Lounge passes are free with any booking this week", namespace="travel")

            for row in memory.search("long flight seats", k=3):
                print(row.summary(), row.text)
            # keyword search: substrings pushed into the WHERE clause next to the scope
            for row in memory.search(contains=["lounge"], k=3):
                print("keyword:", row.summary(), row.text)
            assert memory.search(contains=["lounge"], min_trust=TrustLevel.USER, k=3) == []

            # what the database holds: one row per fact, scope columns beside the content
            with ledger.engine.connect() as conn:
                owner, ns, trust = conn.execute(
                    sql(
                        "SELECT owner_sub, namespace, trust FROM memguard_store_facts "
                        "WHERE fact_id = :id"
                    ),
                    {"id": seat.id},
                ).one()
            print(f"row: owner_sub={owner} namespace={ns} trust={TrustLevel(trust).label}")

            dave = GuardedSqlMemory(
                guard, identity=guard.authenticate(tokens.issue("dave")), context=chat
            )
            try:
                dave.get(seat.id)
                raise SystemExit("isolation broken")
            except FactNotFound:
                print("dave cannot read carol's memory")
            assert dave.search(contains=["aisle"], k=5) == []

            # an edit behind memguard's back is withheld and alarmed
            with ledger.engine.begin() as conn:
                conn.execute(
                    sql("UPDATE memguard_store_facts SET text = :t WHERE fact_id = :id"),
                    {"t": "Carol prefers middle seats", "id": seat.id},
                )
            assert seat.id not in {r.id for r in memory.search("seats", k=5)}
            print("alarms:", [e.reason for e in ledger.events(decision="alarm")])

            p = seat.provenance
            print(
                f"provenance of {p.fact_id}: trust={p.trust.label} source={p.source.kind.value} "
                f"writer={p.writer.subject.subject} -> {[a.subject for a in p.writer.actors]} "
                f"turn={p.turn.session_id}#{p.turn.turn_index} digest={p.record_digest[:19]}..."
            )
            report = audit_fact(ledger, store, seat.id)
            print("audit verified:", report["verification"]["verified"])
            assert not report["verification"]["verified"]  # the store copy was edited
        finally:
            guard.close()


if __name__ == "__main__":
    main()
