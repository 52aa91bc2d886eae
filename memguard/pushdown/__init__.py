"""Push-down: one normal form of a read scope, and one translator per backend.

:mod:`~memguard.pushdown.normal` brings a :data:`~memguard.scope.Condition` into the normal form
(typed, range-folded, negation normal form over literals) and holds the one fold; then
:mod:`~memguard.pushdown.qdrant` (a qdrant-client ``Filter``: the QdrantStore, the qdrant adapter),
:mod:`~memguard.pushdown.edge` (the same Filter in qdrant-edge's classes, without qdrant-client: the
embedded default),
:mod:`~memguard.pushdown.sql` (SQLite and PostgreSQL ``WHERE``), :mod:`~memguard.pushdown.mem0` (mem0
filters) and :mod:`~memguard.pushdown.langgraph` (LangGraph filters, one query per disjunct, merged
exactly) translate it. Each covers the whole language; what a backend truly cannot express raises
:class:`~memguard.errors.UntranslatableCondition` (the read is refused, never post-filtered), and
:mod:`~memguard.policy.capability` reports it for a policy set before it loads. All of them are
checked against the point evaluator by one differential test (``tests/test_policy_differential.py``).
"""

from memguard.pushdown.normal import NormalForm, dnf, fold, normalize

__all__ = ["NormalForm", "dnf", "fold", "normalize"]
