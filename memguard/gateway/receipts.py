"""Read receipts issued by the gateway (the format and the offline check: memguard/receipts.py).

A search (``"receipt": true``) or a get (``?receipt=true``) returns a receipt for what it returned:
the receipt names the principal, purpose and the returned facts with their ledger record and content
digests, and carries the read's own audit event (found in the ledger by the returned fact ids, the
action and the caller's token ``jti``) with its log position and, when a signed checkpoint already
covers it, its RFC 6962 inclusion proof. The ledger is read through its public API only.

An empty read returns a receipt without a log member (there is no fact to find its event by). If
the read's event cannot be found, the request fails (fail closed: no receipt that proves nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

from memguard.errors import LedgerError
from memguard.guard import MemoryGuard, RecalledFact
from memguard.identity import Identity
from memguard.receipts import ReceiptFact, ReceiptKey, log_claims, receipt_claims

__all__ = ["RECEIPT_JWKS_PATH", "ReceiptIssuer"]

#: Where the gateway publishes the receipt key set.
RECEIPT_JWKS_PATH = "/.well-known/receipt-jwks.json"


class ReceiptIssuer:
    """Signs receipts for reads that already happened through ``guard``."""

    def __init__(self, guard: MemoryGuard, key: ReceiptKey, *, issuer: str) -> None:
        self.guard, self.key, self.issuer = guard, key, issuer

    def issue(
        self, identity: Identity, action: str, purpose: str, facts: Sequence[RecalledFact]
    ) -> str:
        ledger = self.guard.ledger
        principal = identity.principal.summary()
        ids = [f.fact_id for f in facts]
        records = ledger.latest(ids)
        out = []
        for f in facts:
            rec = records.get(f.fact_id)
            if rec is None:
                raise LedgerError("a returned fact is not in the ledger", code="backend.ledger")
            out.append(ReceiptFact(f.fact_id, rec.version, rec.record_digest, rec.content_digest))
        log = None
        policy_digest = None
        if ids:
            found = None
            for seq, event, _digest in reversed(ledger.events_for(ids[0])):
                p = event.principal or {}
                if (
                    event.action == action
                    and event.decision.value == "allow"
                    and p.get("jti") == principal["jti"]
                    and event.purpose == purpose
                    and sorted(event.fact_ids) == sorted(ids)
                ):
                    found = (seq, event)
                    break
            if found is None:
                raise LedgerError("the read's audit event was not found", code="backend.ledger")
            seq, event = found
            policy_digest = event.policy_digest
            text = ledger.log.event_text(seq)
            if text is None:
                raise LedgerError("the read's audit event was not found", code="backend.ledger")
            leaf = ledger.log.leaf_for_event(seq)
            log = log_claims(seq=seq, event_text=text, leaf_index=leaf)
            checkpoint = ledger.log.latest_checkpoint()
            if leaf is not None and checkpoint is not None and checkpoint.tree_size > leaf:
                proof = ledger.log.inclusion_proof(leaf, checkpoint.tree_size)
                log = log_claims(
                    seq=seq,
                    event_text=text,
                    leaf_index=leaf,
                    tree_size=proof.tree_size,
                    root_hash=proof.root_hash,
                    path=proof.path,
                    checkpoint=checkpoint.note,
                )
        return self.key.sign(
            receipt_claims(
                issuer=self.issuer,
                principal=principal,
                action=action,
                purpose=purpose,
                policy_digest=policy_digest,
                facts=out,
                log=log,
            )
        )
