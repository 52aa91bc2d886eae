"""Transparency: langchain-qdrant's own vector store tests pass against ``GuardedQdrantClient``
(local mode, allow-all policy).

The suite is ``tests/integration_tests/qdrant_vector_store/`` of the ``langchain-qdrant`` source
distribution of the installed version (the wheel ships no tests). It is not copied into this
repository: this test finds it in ``$MEMGUARD_LANGCHAIN_QDRANT_SUITE`` (a folder holding
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

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DIST = "langchain-qdrant"
SUITE = "tests/integration_tests/qdrant_vector_store"
BOUNDED = ("test_add_texts.py", "test_mmr.py")
#: the only skip reason allowed: the suite's own server-only parametrizations
SERVER_ONLY = "got empty parameter set"


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memguard"


def _download(version: str, dest: Path) -> str | None:
    """Fetch the sdist with pip and unpack its ``tests/``; returns why not, or ``None``."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", f"{DIST}=={version}", "-d", tmp],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        archives = list(Path(tmp).glob("*.tar.gz"))
        if done.returncode != 0 or not archives:
            return f"pip could not download the {DIST} {version} sdist: {done.stderr.strip()[-300:]}"
        staging = Path(tempfile.mkdtemp(dir=dest.parent))
        try:
            with tarfile.open(archives[0]) as tar:
                members = [m for m in tar.getmembers() if "/tests/" in m.name and m.isfile()]
                tar.extractall(staging, members=members, filter="data")
            (tests,) = staging.glob("*/tests")
            dest.mkdir(exist_ok=True)
            if not (dest / "tests").exists():
                tests.rename(dest / "tests")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return None


def _suite() -> Path:
    given = os.environ.get("MEMGUARD_LANGCHAIN_QDRANT_SUITE")
    if given:
        path = Path(given)
        assert (path / SUITE).is_dir(), f"no {SUITE} in {path}"
        return path
    version = metadata.version(DIST)
    dest = _cache_root() / f"{DIST}-{version}"
    if not (dest / SUITE).is_dir():
        dest.parent.mkdir(parents=True, exist_ok=True)
        why = _download(version, dest)
        if why is not None:
            if os.environ.get("MEMGUARD_REQUIRE_UPSTREAM") == "1":
                pytest.fail(why)
            pytest.skip(why)
    return dest


@pytest.mark.slow
def test_langchain_qdrant_vector_store_suite_passes_against_the_guarded_client(
    tmp_path: Path,
) -> None:
    pytest.importorskip("langchain_qdrant")
    suite = _suite()
    full = os.environ.get("MEMGUARD_UPSTREAM_FULL") == "1"
    targets = [SUITE] if full else [f"{SUITE}/{name}" for name in BOUNDED]
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    junit, report = tmp_path / "suite.xml", tmp_path / "guard.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), str(suite), os.environ.get("PYTHONPATH", "")]),
        "MEMGUARD_SUITE_REPORT": str(report),
    }
    env.pop("QDRANT_URL", None)  # local mode only: the guard is what is under test
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *targets, "-p", "langchain_qdrant_plugin", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", "-c", str(ini), "--rootdir", str(suite),
         f"--junitxml={junit}"],
        cwd=suite, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert junit.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    passed, failed, skipped = [], [], {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            failed.append(f"{name}: {bad.get('message', '')[:300]}")
        elif skip is not None:
            skipped[name] = skip.get("message", "")
        else:
            passed.append(name)
    assert not failed, "\n".join(failed)
    assert all(SERVER_ONLY in why for why in skipped.values()), skipped
    assert len(passed) >= (250 if full else 85), len(passed)  # 251 / 86 with langchain-qdrant 1.1.0
    assert done.returncode == 0, done.stdout[-3000:]
    seen = json.loads(report.read_text())  # the suite really went through the guard
    assert seen["guarded_clients"] >= (200 if full else 60), seen
    assert seen["ledger_events"] >= (1000 if full else 300), seen
