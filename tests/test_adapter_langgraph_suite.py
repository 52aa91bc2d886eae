"""Transparency: LangGraph's own store test suite passes against ``GuardedStore`` (allow-all policy).

The suite is ``tests/test_store.py`` of the ``langgraph-checkpoint`` source distribution of the
installed version (the wheel does not ship tests). It is not copied into this repository: this test
finds it in ``$MEMGUARD_LANGGRAPH_SUITE`` (a folder holding ``tests/test_store.py``) or in the user
cache, or downloads the sdist with pip into the cache, then runs it in a subprocess with the
``langgraph_suite_plugin`` plugin, which hands the suite guarded stores instead of raw ones.
No network and no cached copy: skipped with the reason (``MEMGUARD_REQUIRE_LANGGRAPH_SUITE=1``
makes that a failure).
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
DIST = "langgraph-checkpoint"

#: Suite cases that never build a store (helpers: path extraction, op de-duplication, op validation,
#: the batching base class over a stub). They run and pass too; they just say nothing about the guard.
NOT_ABOUT_THE_STORE = frozenset(
    {
        "test_dedupe_ops_maps_repeated_reads_and_puts_to_one_op",
        "test_get_text_at_path",
        "test_get_text_at_path_with_non_dict_mapping",
        "test_async_batch_store",
        "test_async_batch_store_handles_cancellation",
        "test_validate_op_namespace_rejects_invalid_labels",
        "test_validate_op_namespace_allows_empty_prefix_and_wildcards",
    }
)
#: Cases expected to be skipped, with the reason. None today: every case passes.
EXPECTED_SKIPS: dict[str, str] = {}


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memguard"


def _download(version: str, dest: Path) -> str | None:
    """Fetch the sdist with pip and unpack its ``tests/``; returns why not, or ``None``."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
                *("--no-binary", ":all:", f"{DIST}=={version}", "-d", tmp),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        archives = list(Path(tmp).glob("*.tar.gz"))
        if done.returncode != 0 or not archives:
            return (
                f"pip could not download the {DIST} {version} sdist: {done.stderr.strip()[-300:]}"
            )
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
    given = os.environ.get("MEMGUARD_LANGGRAPH_SUITE")
    if given:
        path = Path(given)
        assert (path / "tests" / "test_store.py").is_file(), f"no tests/test_store.py in {path}"
        return path
    version = metadata.version(DIST)
    dest = _cache_root() / f"{DIST}-{version}"
    if not (dest / "tests" / "test_store.py").is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        why = _download(version, dest)
        if why is not None:
            if os.environ.get("MEMGUARD_REQUIRE_LANGGRAPH_SUITE") == "1":
                pytest.fail(why)
            pytest.skip(why)
    return dest


@pytest.mark.slow
def test_langgraph_store_suite_passes_against_the_guarded_store(tmp_path: Path) -> None:
    suite = _suite()
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    junit = tmp_path / "suite.xml"
    report = tmp_path / "guard.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        "MEMGUARD_SUITE_REPORT": str(report),
    }
    done = subprocess.run(
        [
            *(
                sys.executable,
                "-m",
                "pytest",
                "tests/test_store.py",
                "-p",
                "langgraph_suite_plugin",
            ),
            *("-q", "-p", "no:cacheprovider", "-c", str(ini), "--rootdir", str(suite)),
            f"--junitxml={junit}",
        ],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert junit.exists(), done.stdout[-3000:] + done.stderr[-3000:]

    passed, failed, skipped = [], [], {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "")
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            failed.append(f"{name}: {bad.get('message', '')[:300]}")
        elif skip is not None:
            skipped[name] = skip.get("message", "")
        else:
            passed.append(name)
    assert not failed, "\n".join(failed)
    assert skipped == EXPECTED_SKIPS
    store_cases = [n for n in passed if n.split("[")[0] not in NOT_ABOUT_THE_STORE]
    assert len(store_cases) >= 80, store_cases  # the suite's store cases all ran (86 in 4.3.2)
    assert done.returncode == 0, done.stdout[-3000:]

    # the suite really went through the guard: guarded stores were built and audited
    seen = json.loads(report.read_text())
    assert seen["guarded_stores"] >= 40, seen
    assert seen["ledger_events"] >= 200, seen
