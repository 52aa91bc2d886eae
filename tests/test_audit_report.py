"""`memguard audit` (issue 5, part 4): lineage, reads, quarantine, inclusion proofs, PROV-JSON, selectors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import BROWSER, PLANNER
from sqlalchemy import text, update

from memguard import Ledger, LocalTokenService, MemoryGuard, Source, SourceKind, Turn
from memguard.audit import audit_fact, audit_selector
from memguard.ledger.checkpoint import CheckpointSigner
from memguard.ledger.tables import AuditEventRow
from memguard.prov import lineage_prov_json
from memguard.revocation import RevocationSelector

URL = "https://blog.evil.example/post"


@pytest.fixture
def g(make_guard: Callable[..., MemoryGuard], tmp_path: Path) -> MemoryGuard:
    signer = CheckpointSigner.load_or_create(tmp_path / "keys" / "checkpoint.key")
    ledger = Ledger.sqlite(tmp_path / "audited.db", checkpoint_signer=signer)
    return make_guard("qdrant-memory", ledger=ledger, revocation_ttl=0)


def chain(g: MemoryGuard, tokens: LocalTokenService) -> dict[str, Any]:
    user = g.authenticate(tokens.issue("alice"))
    planner = g.authenticate(tokens.issue("alice", actors=[PLANNER]))
    browser = g.authenticate(tokens.issue("alice", actors=[PLANNER, BROWSER]))
    page = g.write(browser, "post text", namespace="r", source=Source(kind=SourceKind.WEB, uri=URL),
                   turn=Turn(session_id="s", turn_index=1))  # fmt: skip
    note = g.write(planner, "summary of the post", namespace="r",
                   source=Source(kind=SourceKind.AGENT_INFERENCE, name="planner"),
                   turn=Turn(session_id="s", turn_index=2), derived_from=[page.fact_id])  # fmt: skip
    g.get(planner, note.fact_id, purpose="planning")
    g.search(user, "summary of the post", k=3, purpose="answer")
    return {"user": user, "planner": planner, "page": page, "note": note}


def test_report_has_lineage_reads_and_signed_inclusion(
    g: MemoryGuard, tokens: LocalTokenService
) -> None:
    c = chain(g, tokens)
    g.ledger.log.flush()  # integrate and sign a checkpoint
    report = audit_fact(g.ledger, g.store, c["note"].fact_id)
    v = report["verification"]
    assert v == {
        "ledger_record_digest": "ok", "store_payload": "ok", "event_digests": "ok",
        "event_inclusion": "ok", "checkpoint": "ok", "verified": True,
    }  # fmt: skip
    assert all(e["inclusion"] == "ok" and e["leaf_index"] is not None for e in report["events"])
    reads = [(r["action"], r["decision"], r["subject"], r["actors"], r["purpose"])
             for r in report["reads"]]  # fmt: skip
    assert ("get", "allow", "alice", [PLANNER], "planning") in reads
    assert ("search", "allow", "alice", [], "answer") in reads
    assert report["lineage"]["up"]["parents"][0]["fact_id"] == c["page"].fact_id
    page_report = audit_fact(g.ledger, g.store, c["page"].fact_id)
    assert [d["fact_id"] for d in page_report["lineage"]["descendants"]] == [c["note"].fact_id]
    assert page_report["lineage"]["descendant_count"] == 1
    # events after the last checkpoint are proved against the current tree, unsigned
    g.get(c["user"], c["note"].fact_id)
    g.ledger.log.integrate()
    later = audit_fact(g.ledger, g.store, c["note"].fact_id)
    assert later["events"][-1]["inclusion"] == "ok_unsigned"
    assert later["verification"]["verified"] is True


def test_an_edited_event_fails_the_audit(g: MemoryGuard, tokens: LocalTokenService) -> None:
    c = chain(g, tokens)
    g.ledger.log.flush()
    g.ledger.project_reads()  # the reads' links (memguard/ledger/readlinks.py), for the query below
    table = AuditEventRow.__table__  # type: ignore[attr-defined]
    with g.ledger.engine.begin() as conn:
        seq, event = conn.execute(
            text("SELECT e.seq, e.event FROM mg_audit_event e JOIN mg_audit_fact f"
                 " ON f.event_seq = e.seq WHERE f.fact_id = :f AND e.action = 'get'"),
            {"f": c["note"].fact_id},
        ).one()  # fmt: skip
        conn.execute(
            update(table).where(table.c.seq == seq)
            .values(event=event.replace('"planning"', '"answer__"'))
        )  # fmt: skip
    report = audit_fact(g.ledger, g.store, c["note"].fact_id)
    row = next(e for e in report["events"] if e["seq"] == seq)
    assert row["digest_ok"] is False and row["inclusion"] == "leaf_mismatch"
    assert report["verification"]["verified"] is False


def test_quarantine_shows_in_the_report(g: MemoryGuard, tokens: LocalTokenService) -> None:
    c = chain(g, tokens)
    g.revoke(c["user"], RevocationSelector.domain("evil.example"), reason="bad blog")
    report = audit_fact(g.ledger, g.store, c["note"].fact_id)
    assert report["revocation"]["quarantined"] is True
    (entry,) = report["revocation"]["entries"]
    assert entry["selector"] == {"kind": "domain", "value": "evil.example"}
    assert entry["reason"] == "bad blog" and entry["lifted"] is False
    # the store copy carries trust=quarantined, which is the expected state for a quarantined fact
    assert report["verification"]["store_payload"] == "ok"
    g.endorse(c["user"], [c["note"].fact_id], reason="checked")
    lifted = audit_fact(g.ledger, g.store, c["note"].fact_id)
    assert lifted["revocation"]["quarantined"] is False
    assert lifted["revocation"]["entries"][0]["lifted"] is True
    assert lifted["verification"]["store_payload"] == "ok"


def test_selector_listing(g: MemoryGuard, tokens: LocalTokenService) -> None:
    c = chain(g, tokens)
    by_domain = audit_selector(g.ledger, RevocationSelector.domain("evil.example"))
    assert [m["fact_id"] for m in by_domain["matched"]] == [c["page"].fact_id]
    assert [d["fact_id"] for d in by_domain["descendants"]] == [c["note"].fact_id]
    by_turn = audit_selector(g.ledger, RevocationSelector.turn("s", 2))
    assert [m["fact_id"] for m in by_turn["matched"]] == [c["note"].fact_id]
    by_agent = audit_selector(g.ledger, RevocationSelector.workload(PLANNER))
    assert {m["fact_id"] for m in by_agent["matched"]} == {c["page"].fact_id, c["note"].fact_id}
    by_browser = audit_selector(g.ledger, RevocationSelector.workload(BROWSER))
    assert [m["fact_id"] for m in by_browser["matched"]] == [c["page"].fact_id]
    nothing = audit_selector(g.ledger, RevocationSelector.domain("good.example"))
    assert nothing["matched"] == [] and nothing["descendant_count"] == 0


def test_prov_json_is_valid_w3c_prov(g: MemoryGuard, tokens: LocalTokenService) -> None:
    from prov.model import ProvDocument

    c = chain(g, tokens)
    doc = lineage_prov_json(g.ledger, c["note"].fact_id)
    parsed = ProvDocument.deserialize(content=json.dumps(doc), format="json")
    records = {type(r).__name__ for r in parsed.get_records()}
    assert {"ProvEntity", "ProvActivity", "ProvAgent", "ProvDerivation", "ProvGeneration",
            "ProvDelegation", "ProvAttribution", "ProvUsage"} <= records  # fmt: skip
    labels = {str(v) for r in parsed.get_records() for k, v in r.attributes if str(k) == "prov:label"}
    assert {"alice @ https://memguard.local", PLANNER, BROWSER, URL} <= labels


# -- the command line ---------------------------------------------------------------------------


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memguard", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=180, check=False)  # fmt: skip


@pytest.mark.slow
def test_cli_revoke_audit_endorse(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    demo = run("demo", "--state-dir", state, cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    listing = run("audit", "--domain", "lisbon-travel-tips.example", "--json",
                  "--state-dir", state, cwd=tmp_path)  # fmt: skip
    assert listing.returncode == 0, listing.stderr
    matched = json.loads(listing.stdout)["matched"]
    # the demo's site: the poisoned page (untrusted) and the injection the scanner quarantined
    (web,) = [m for m in matched if m["source"]["uri"].endswith("/may")]
    (injected,) = [m for m in matched if m["source"]["uri"].endswith("/contact")]
    assert (web["trust"], injected["trust"]) == ("untrusted", "quarantined")
    revoked = run("revoke", "--domain", "lisbon-travel-tips.example", "--reason", "injected page",
                  "--json", "--state-dir", state, cwd=tmp_path)  # fmt: skip
    assert revoked.returncode == 0, revoked.stderr
    out = json.loads(revoked.stdout)
    assert web["fact_id"] in out["roots"] and out["store_synced"] is True
    audit = run("audit", web["fact_id"], "--json", "--state-dir", state, cwd=tmp_path)
    assert audit.returncode == 0, audit.stderr
    report = json.loads(audit.stdout)
    assert report["revocation"]["quarantined"] is True
    assert any(e["actor"].startswith("operator:") for e in report["revocation"]["entries"])
    assert report["verification"]["checkpoint"] == "ok"
    prov = run("audit", web["fact_id"], "--prov", "--state-dir", state, cwd=tmp_path)
    assert prov.returncode == 0 and "wasGeneratedBy" in json.loads(prov.stdout)
    endorsed = run("endorse", web["fact_id"], "--reason", "false alarm", "--json",
                   "--state-dir", state, cwd=tmp_path)  # fmt: skip
    assert endorsed.returncode == 0, endorsed.stderr
    lifted = json.loads(endorsed.stdout)
    assert lifted["lifted"] == [web["fact_id"]] and lifted["facts"][0]["lifted"] == ["quarantine"]
    assert lifted["endorser"].startswith("operator:")
    bad = run("audit", "--domain", "x.example", "--turn", "s#1", "--state-dir", state, cwd=tmp_path)
    assert bad.returncode == 2 and "one selector" in bad.stderr  # a usage error
    no_sel = run("revoke", "--reason", "r", "--state-dir", state, cwd=tmp_path)
    assert no_sel.returncode == 2
