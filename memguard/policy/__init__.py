"""The YAML policy engine: load (parse -> validate), decide points, compile read plans, push down.

Public entry points are re-exported from :mod:`memguard`: :class:`PolicyResolver` (the
:class:`~memguard.scope.ScopeResolver` implementation), :class:`PolicyDecision`, :class:`PolicyError`,
:class:`PolicySet`, :func:`load_policy_path`, :func:`to_sql_where` and :func:`run_policy_tests`.
"""

from memguard.policy.loader import load_policy_path, load_policy_text
from memguard.policy.model import PolicyDecision, PolicyError, PolicySet, Problem
from memguard.policy.resolver import PolicyResolver
from memguard.policy.testing import run_policy_tests
from memguard.pushdown.sql import fact_tables, to_sql_where

__all__ = [
    "PolicyDecision",
    "PolicyError",
    "PolicyResolver",
    "PolicySet",
    "Problem",
    "fact_tables",
    "load_policy_path",
    "load_policy_text",
    "run_policy_tests",
    "to_sql_where",
]
