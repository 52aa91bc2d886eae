from memguard import MemoryGuard, Source, SourceKind, TrustLevel, Turn


def test_write_then_search_returns_provenance(guard: MemoryGuard, tokens) -> None:  # type: ignore[no-untyped-def]
    ident = guard.authenticate(tokens.issue("alice"))
    prov = guard.write(
        ident,
        "alice likes aisle seats",
        namespace="travel",
        source=Source(kind=SourceKind.USER_MESSAGE),
        turn=Turn(session_id="s1", turn_index=0),
    )
    assert prov.trust is TrustLevel.USER
    hits = guard.search(ident, "aisle seats", k=3)
    assert [h.fact_id for h in hits] == [prov.fact_id]
    assert hits[0].provenance == prov
