"""Transparency: langchain-qdrant's own vector store tests pass against ``GuardedQdrantClient``
(local mode, allow-all policy).

The suite is ``tests/integration_tests/qdrant_vector_store/`` of the ``langchain-qdrant`` source
distribution of the installed version (the wheel ships no tests). It is not copied into this
repository: ``suite_harness`` finds it in ``$MEMGUARD_LANGCHAIN_QDRANT_SUITE`` (a folder holding
``tests/integration_tests``) or in the user cache, or downloads the sdist with pip into the cache,
then runs it in a subprocess with ``langchain_qdrant_plugin``, which hands ``QdrantVectorStore``
guarded clients instead of raw ones. No network and no cached copy: skipped with the reason
(``MEMGUARD_REQUIRE_UPSTREAM=1`` makes that a failure).

Bounded in CI: ``test_add_texts.py`` and ``test_mmr.py`` (86 cases, about 30 s). The whole folder
(5 files, 251 cases, about 80 s on a loaded 2-core machine) runs with ``MEMGUARD_UPSTREAM_FULL=1``::

    MEMGUARD_UPSTREAM_FULL=1 .venv/bin/python -m pytest -q tests/upstream/test_langchain_qdrant_suite.py

Cases the suite itself parametrizes only for a Qdrant server (``QDRANT_URL`` or one on
localhost:6333) are skipped by the suite ("got empty parameter set"); no case is refused by the
guard (docs/adapters/upstream.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from suite_harness import run_suite, suite_root

SUITE = "tests/integration_tests/qdrant_vector_store"
BOUNDED = ("test_add_texts.py", "test_mmr.py")
#: the only skip reason allowed: the suite's own server-only parametrizations
SERVER_ONLY = "got empty parameter set"


@pytest.mark.slow
def test_langchain_qdrant_vector_store_suite_passes_against_the_guarded_client(
    tmp_path: Path,
) -> None:
    pytest.importorskip("langchain_qdrant")
    root = suite_root(
        "langchain-qdrant", "MEMGUARD_LANGCHAIN_QDRANT_SUITE", SUITE, sdist_has_tests=True
    )
    full = os.environ.get("MEMGUARD_UPSTREAM_FULL") == "1"
    targets = [SUITE] if full else [f"{SUITE}/{name}" for name in BOUNDED]
    run = run_suite(root, targets, tmp_path, plugin="langchain_qdrant_plugin", label="guarded")
    assert not run.failed, "\n".join(f"{k}: {v}" for k, v in run.failed.items())
    assert all(SERVER_ONLY in why for why in run.skipped.values()), run.skipped
    assert len(run.passed) >= (250 if full else 85), len(run.passed)  # 251 / 86 with 1.1.0
    assert run.returncode == 0, run.output
    seen = run.guard  # the suite really went through the guard
    assert seen["guarded_clients"] >= (200 if full else 60), seen
    assert seen["ledger_events"] >= (1000 if full else 300), seen
