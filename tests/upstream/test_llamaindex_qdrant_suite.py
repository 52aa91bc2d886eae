"""Transparency: llama-index-vector-stores-qdrant's own tests against the guarded clients (local
mode, allow-all policy), compared case by case with the same suite on the raw clients.

The package's sdist ships no tests, and they cannot be fetched at test time (no network but the
package index), so the suite comes from ``$MEMGUARD_LLAMAINDEX_QDRANT_SUITE`` (a folder holding
``tests/``) or the user cache (``~/.cache/memguard/llama-index-vector-stores-qdrant-<version>/tests``);
nowhere: skipped with how to get it (``MEMGUARD_REQUIRE_UPSTREAM=1`` makes that a failure)::

    git clone --depth 1 --filter=blob:none --sparse https://github.com/run-llama/llama_index /tmp/li
    git -C /tmp/li sparse-checkout set llama-index-integrations/vector_stores/llama-index-vector-stores-qdrant/tests
    mkdir -p ~/.cache/memguard/llama-index-vector-stores-qdrant-0.10.4
    cp -r /tmp/li/llama-index-integrations/vector_stores/llama-index-vector-stores-qdrant/tests \\
        ~/.cache/memguard/llama-index-vector-stores-qdrant-0.10.4/

The suite runs twice in subprocesses through ``suite_harness``: on the raw clients, then with
``llamaindex_qdrant_plugin`` (every ``QdrantClient`` / ``AsyncQdrantClient`` the suite builds is a
guarded one). Every case that passes raw passes guarded, except the ones in :data:`REFUSED`, each
refused by the guard for the reason given there (and docs/adapters/upstream.md); a case that fails
raw too (a version skew between the upstream tests and the installed package, an optional
dependency that would download a model) is not the guard's, and is reported, not counted.

Bounded in CI: ``tests/test_vector_stores_qdrant.py`` (33 cases, about 20 s for both runs). The
whole folder runs with ``MEMGUARD_UPSTREAM_FULL=1``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from suite_harness import run_suite, suite_root

DIST = "llama-index-vector-stores-qdrant"
BOUNDED = "tests/test_vector_stores_qdrant.py"
#: case -> why the guard refuses it (the case must fail guarded with that refusal)
REFUSED = {
    "test_clear": "`clear()` drops the collection (`delete_collection`): a bulk drop of every "
    "owner's facts with no per-fact delete decision, tombstone or audit; refused by the guard",
    "test_aclear": "the async `aclear()`, same `delete_collection`",
}
#: the suite's own skips: cases it runs only against a Qdrant server or cluster
SERVER_ONLY = ("Qdrant cluster not available", "Qdrant server not available")


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


@pytest.mark.slow
def test_llamaindex_qdrant_suite_passes_against_the_guarded_clients(tmp_path: Path) -> None:
    pytest.importorskip("llama_index.vector_stores.qdrant")
    root = suite_root(
        DIST, "MEMGUARD_LLAMAINDEX_QDRANT_SUITE", "tests", sdist_has_tests=False,
        how="see tests/upstream/test_llamaindex_qdrant_suite.py for the two commands that fetch it",
    )  # fmt: skip
    targets = ["tests"] if os.environ.get("MEMGUARD_UPSTREAM_FULL") == "1" else [BOUNDED]
    raw = run_suite(root, targets, tmp_path, plugin=None, label="raw")
    guarded = run_suite(root, targets, tmp_path, plugin="llamaindex_qdrant_plugin", label="guarded")

    raw_passed = {_short(n) for n in raw.passed}
    guarded_passed = {_short(n) for n in guarded.passed}
    guarded_failed = {_short(n): why for n, why in guarded.failed.items()}
    raw_failed = {_short(n) for n in raw.failed}
    # every case the raw clients pass, the guarded ones pass too, but the listed refusals
    lost = raw_passed - guarded_passed - set(REFUSED)
    assert not lost, {n: guarded_failed.get(n) for n in lost}
    # nothing fails guarded that is neither refused on purpose nor failing raw as well
    assert set(guarded_failed) <= set(REFUSED) | raw_failed, guarded_failed
    # each listed refusal really is the guard's (the list cannot go stale silently)
    for name in REFUSED:
        assert name in raw_passed, f"{name} no longer passes raw: update REFUSED"
        assert "not available on a guarded qdrant client" in guarded_failed.get(name, ""), name
    assert all(any(s in why for s in SERVER_ONLY) for why in guarded.skipped.values()), guarded.skipped
    assert len(guarded_passed) >= 16, sorted(guarded_passed)  # 16 with 0.10.4 (33 cases, 14 server-only)
    seen = guarded.guard  # the suite really went through the guard
    assert seen["guarded_clients"] >= 20 and seen["ledger_events"] >= 100, seen
