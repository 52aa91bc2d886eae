"""What ``memguard endorse`` says it did: per fact, the quarantine or the scanner cap it lifted,
and who lifted it (the command line of :meth:`memguard.guard.MemoryGuard.endorse`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["endorsement_report"]


def endorsement_report(
    asked: list[str], before: Mapping[str, Any], after: Mapping[str, Any], operator: str
) -> tuple[dict[str, Any], str]:
    """What ``memguard endorse`` lifted, fact by fact: a quarantine (a revocation held the fact),
    a scanner's cap (the verdict, the cap it set, the trust the fact has now), and by whom."""
    endorser = operator if operator.startswith("operator:") else f"operator:{operator}"
    facts: list[dict[str, Any]] = []
    lines: list[str] = []
    for fact_id in asked:
        if fact_id not in after:
            continue
        old, new = before[fact_id], after[fact_id]
        entry: dict[str, Any] = {
            "fact_id": fact_id,
            "lifted": [],
            "trust": new.provenance.trust.label,
        }
        what: list[str] = []
        if old.quarantined and not new.quarantined:
            entry["lifted"].append("quarantine")
            what.append("its quarantine")
        scan = old.provenance.scan
        if scan is not None and scan.cap is not None and new.provenance.scan is not None \
                and new.provenance.scan.endorsed_by is not None:  # fmt: skip
            entry["lifted"].append("scan_cap")
            entry["verdict"] = {"label": scan.label, "scanner": scan.scanner,
                                "version": scan.version, "cap": scan.cap.label,
                                "reasons": list(scan.reasons)}  # fmt: skip
            what.append(f"the {scan.cap.label} cap of a {scan.label} verdict by {scan.scanner} "
                        f"v{scan.version}")  # fmt: skip
        facts.append(entry)
        change = " and ".join(what) or "nothing it still held"
        lines.append(f"  {fact_id}: lifted {change}; trust now {entry['trust']}")
    not_held = [f for f in asked if f not in after]
    head = f"{endorser} endorsed {len(facts)} facts (reason in the audit log)"
    if not_held:
        head += f"; {len(not_held)} held nothing to lift: {', '.join(not_held)}"
    data = {"lifted": [f["fact_id"] for f in facts], "endorser": endorser, "facts": facts,
            "not_held": not_held}  # fmt: skip
    return data, "\n".join([head, *lines])
