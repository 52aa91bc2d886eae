"""OpenTelemetry: GenAI memory spans, a read linked to the writes that planted what it returned,
metrics of decisions and memory health, W3C trace context into provenance, opt-in content."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode
from telemetry_helpers import Telemetry, in_memory_telemetry

from memguard import (
    FactNotFound,
    LocalTokenService,
    MemoryGuard,
    RevocationSelector,
    Source,
    SourceKind,
    Turn,
)
from memguard.telemetry import record_scanner_verdict
from memguard.telemetry.tracing import extract, use_context

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture
def otel() -> Iterator[Telemetry]:
    with in_memory_telemetry() as t:
        yield t


@pytest.fixture
def g(make_guard: Callable[..., MemoryGuard]) -> MemoryGuard:
    return make_guard("qdrant-memory")


def _turn(i: int = 0, **kw: str) -> Turn:
    return Turn(session_id="s-otel", turn_index=i, **kw)


def test_a_read_links_to_the_write_that_planted_each_returned_fact(
    g: MemoryGuard, tokens: LocalTokenService, otel: Telemetry
) -> None:
    alice = g.authenticate(tokens.issue("alice"))
    agent = trace.get_tracer("test-agent", tracer_provider=otel.tracer_provider)
    with agent.start_as_current_span("turn 1: read a web page") as turn1:
        planted = g.write(alice, "the ACME API limit is 10 requests", namespace="notes",
                          source=Source(kind=SourceKind.WEB, uri="https://evil.example"),
                          turn=_turn(1))
    other = g.write(alice, "the ACME API needs a key", namespace="notes",
                    source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(2))
    with agent.start_as_current_span("turn 9: answer") as turn9:
        hits = g.search(alice, "ACME API limit", k=5)
    assert {h.fact_id for h in hits} == {planted.fact_id, other.fact_id}

    writes = otel.spans("create_memory")
    assert len(writes) == 2
    by_fact = {s.attributes["gen_ai.memory.record.id"]: s for s in writes}  # type: ignore[index]
    write_span = by_fact[planted.fact_id]
    # the write span is a child of the agent's turn, and the provenance names it
    assert write_span.parent is not None
    assert write_span.parent.span_id == turn1.get_span_context().span_id
    assert planted.turn.trace_id == trace.format_trace_id(write_span.context.trace_id)
    assert planted.turn.span_id == trace.format_span_id(write_span.context.span_id)
    assert write_span.attributes["gen_ai.operation.name"] == "create_memory"  # type: ignore[index]
    assert write_span.attributes["memguard.decision"] == "allow"  # type: ignore[index]
    assert write_span.attributes["memguard.trust"] == "untrusted"  # type: ignore[index]
    assert write_span.attributes["memguard.policy.digest"] == planted.policy_digest  # type: ignore[index]

    read = otel.one("search_memory")
    assert read.parent is not None and read.parent.span_id == turn9.get_span_context().span_id
    assert read.attributes["gen_ai.memory.record.count"] == 2  # type: ignore[index]
    assert read.attributes["memguard.trust"] == "untrusted"  # type: ignore[index]
    links = {link.attributes["memguard.fact_id"]: link for link in read.links}  # type: ignore[index]
    assert set(links) == {planted.fact_id, other.fact_id}
    for fact_id, link in links.items():
        write = by_fact[fact_id]
        assert link.context.trace_id == write.context.trace_id
        assert link.context.span_id == write.context.span_id  # one click: read -> writing span
    assert links[planted.fact_id].attributes["memguard.trust"] == "untrusted"  # type: ignore[index]
    # the audit events name the traces they ran in
    events = {(e.action, e.decision.value): e for e in g.ledger.events()}
    assert events[("search", "allow")].trace_id == trace.format_trace_id(
        turn9.get_span_context().trace_id)


def test_get_and_list_link_too_and_withheld_facts_are_not_linked(
    g: MemoryGuard, tokens: LocalTokenService, otel: Telemetry
) -> None:
    alice = g.authenticate(tokens.issue("alice"))
    bad = g.write(alice, "poison", namespace="notes", source=Source(kind=SourceKind.WEB),
                  turn=_turn(1))
    good = g.write(alice, "fine", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=_turn(2))
    g.revoke(alice, RevocationSelector(kind="fact", value=bad.fact_id), reason="poisoned")
    otel.exporter.clear()
    g.get(alice, good.fact_id)
    facts, _ = g.list_facts(alice)
    assert [f.fact_id for f in facts] == [good.fact_id]
    spans = otel.spans("search_memory")
    assert len(spans) == 2  # get and list are searches of the store
    for span in spans:
        assert [link.attributes["memguard.fact_id"] for link in span.links] == [good.fact_id]  # type: ignore[index]
        assert span.links[0].context.span_id == int(good.turn.span_id or "0", 16)


def test_a_refusal_is_an_error_span_with_the_reason_code(
    g: MemoryGuard, tokens: LocalTokenService, otel: Telemetry
) -> None:
    alice = g.authenticate(tokens.issue("alice"))
    bob = g.authenticate(tokens.issue("bob"))
    fact = g.write(bob, "bob's", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=_turn())
    with pytest.raises(FactNotFound):
        g.get(alice, fact.fact_id)
    span = otel.one("search_memory")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "not_found"  # type: ignore[index]
    assert span.attributes["memguard.decision"] == "deny"  # type: ignore[index]
    assert span.attributes["memguard.reason"] == "not_found"  # type: ignore[index]
    assert not span.links
    assert otel.total("memguard.denies", **{"memguard.action": "get",
                                           "memguard.reason": "not_found"}) == 1


def test_a_caller_trace_is_kept_and_an_incoming_traceparent_fills_provenance_without_a_provider(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    alice = g.authenticate(tokens.issue("alice"))
    given = g.write(alice, "x", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                    turn=_turn(0, trace_id="caller-trace", span_id="caller-span"))
    assert (given.turn.trace_id, given.turn.span_id) == ("caller-trace", "caller-span")
    plain = g.write(alice, "y", namespace="notes", source=Source(kind=SourceKind.USER_MESSAGE),
                    turn=_turn(1))
    assert plain.turn.trace_id is None and plain.turn.span_id is None  # no trace anywhere
    with use_context(extract({"traceparent": TRACEPARENT})):  # e.g. the gateway's request
        remote = g.write(alice, "z", namespace="notes",
                         source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(2))
    assert remote.turn.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert remote.turn.span_id == "00f067aa0ba902b7"
    writes = [e for e in g.ledger.events() if e.action == "write"]
    assert writes[-1].trace_id == "4bf92f3577b34da6a3ce929d0e0e4736"


def test_metrics_count_decisions_trust_mix_quarantine_and_scanner_verdicts(
    g: MemoryGuard, tokens: LocalTokenService, otel: Telemetry
) -> None:
    alice = g.authenticate(tokens.issue("alice"))
    web = g.write(alice, "w", namespace="n", turn=_turn(0),
                  source=Source(kind=SourceKind.WEB, uri="https://evil.example/page"))
    g.write(alice, "u", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE), turn=_turn(1))
    g.write(alice, "u2", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
            turn=_turn(2))
    g.search(alice, "w")
    report = g.revoke(alice, RevocationSelector.domain("evil.example"),
                      reason="bad site")
    record_scanner_verdict("bastion", "suspicious")
    record_scanner_verdict("bastion", "suspicious")
    record_scanner_verdict("bastion", "clean")

    writes = {(a["memguard.source_kind"], a["memguard.trust"]): p.value
              for a, p in otel.points("memguard.writes")}
    assert writes == {("web", "untrusted"): 1, ("user_message", "user"): 2}
    assert otel.total("memguard.decisions", **{"memguard.action": "write",
                                              "memguard.decision": "allow"}) == 3
    assert otel.total("memguard.decisions", **{"memguard.action": "search"}) == 1
    assert otel.total("memguard.revocations") == 1
    assert otel.total("memguard.quarantined") == len(report.quarantined) == 1
    assert web.fact_id in report.quarantined
    assert otel.total("memguard.scanner.verdicts", **{"memguard.verdict": "suspicious"}) == 2
    durations = [p for a, p in otel.points("memguard.operation.duration")
                 if a["memguard.action"] == "write"]
    assert durations and sum(p.count for p in durations) == 3


def test_content_is_captured_only_on_opt_in(g: MemoryGuard, tokens: LocalTokenService) -> None:
    alice = g.authenticate(tokens.issue("alice"))
    with in_memory_telemetry() as t:
        g.write(alice, "secret plan", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                turn=_turn())
        g.search(alice, "plan")
        for span in t.spans():
            assert "gen_ai.memory.records" not in (span.attributes or {})
            assert "secret plan" not in str(dict(span.attributes or {}))
    with in_memory_telemetry(capture_content=True) as t:
        g.search(alice, "plan")
        records = t.one("search_memory").attributes["gen_ai.memory.records"]  # type: ignore[index]
        assert "secret plan" in str(records)


def test_telemetry_failures_never_change_a_decision(
    g: MemoryGuard, tokens: LocalTokenService, otel: Telemetry,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memguard.telemetry import metrics

    def broken(*a: object, **k: object) -> None:
        raise RuntimeError("exporter down")

    monkeypatch.setattr(metrics._Otel, "record", broken)
    monkeypatch.setattr(otel.tracer_provider, "get_tracer", broken)  # and no tracer at all
    from memguard.telemetry import tracing

    monkeypatch.setattr(tracing, "_tracer", None)
    alice = g.authenticate(tokens.issue("alice"))
    prov = g.write(alice, "x", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=_turn())
    assert g.get(alice, prov.fact_id).text == "x"
    bob = g.authenticate(tokens.issue("bob"))
    with pytest.raises(FactNotFound):  # and a refusal stays a refusal
        g.get(bob, prov.fact_id)


def test_creating_a_store_is_a_create_memory_store_span() -> None:
    from memguard import QdrantStore

    with in_memory_telemetry() as t:
        store = QdrantStore(location=":memory:", collection="prefs")
        store.close()
        span = t.one("create_memory_store")
        assert span.attributes["gen_ai.memory.store.id"] == "prefs"  # type: ignore[index]
        assert span.attributes["gen_ai.operation.name"] == "create_memory_store"  # type: ignore[index]


def test_ledger_gauges_through_opentelemetry(g: MemoryGuard, tokens: LocalTokenService) -> None:
    from memguard.telemetry.metrics import LedgerGauges, observe_ledger

    alice = g.authenticate(tokens.issue("alice"))
    fact = g.write(alice, "x", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=_turn())
    g.revoke(alice, RevocationSelector(kind="fact", value=fact.fact_id), reason="test")
    with in_memory_telemetry() as t:
        observe_ledger(LedgerGauges(g.ledger, verify_interval=0))
        (quarantined,) = t.points("memguard.quarantined.current")
        (active,) = t.points("memguard.revocations.active")
        assert quarantined[1].value == 1 and active[1].value == 1
        assert t.points("memguard.ledger.queue_depth")


def test_a_span_that_cannot_end_never_turns_an_allow_into_an_error(
    g: MemoryGuard, tokens: LocalTokenService, otel: Telemetry, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from opentelemetry.sdk.trace import Span

    def broken_end(self: Span, end_time: int | None = None) -> None:
        raise RuntimeError("exporter crashed")

    monkeypatch.setattr(Span, "end", broken_end)
    alice = g.authenticate(tokens.issue("alice"))
    prov = g.write(alice, "kept", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                   turn=_turn())
    assert g.get(alice, prov.fact_id).text == "kept"
    assert [e.decision.value for e in g.ledger.events() if e.action in ("write", "get")] == [
        "allow", "allow"]
