"""The provenance ledger and audit log (SQLModel on SQLite or PostgreSQL)."""

from memguard.ledger.ledger import FactState, Ledger, LedgerRecord

__all__ = ["FactState", "Ledger", "LedgerRecord"]
