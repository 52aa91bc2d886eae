"""Find an upstream test suite and run it in a subprocess, with or without a guard plugin.

One harness for every framework suite (langchain-qdrant, llama-index-vector-stores-qdrant):
:func:`suite_root` finds the suite in ``$<ENV>`` (a folder holding the suite's ``tests/``), in the
user cache (``$XDG_CACHE_HOME/memguard/<dist>-<version>``), or downloads the sdist of the installed
version with pip into that cache (for distributions whose sdist ships its tests). A suite that is
nowhere is a skip with the reason, or a failure with ``MEMGUARD_REQUIRE_UPSTREAM=1``.
:func:`run_suite` runs pytest over it and reads the JUnit report and the guard's own report.
Nothing of an upstream suite is copied into this repository.
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
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memguard"


def _download(dist: str, version: str, dest: Path) -> str | None:
    """Fetch the sdist with pip and unpack its ``tests/``; returns why not, or ``None``."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", f"{dist}=={version}", "-d", tmp],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        archives = list(Path(tmp).glob("*.tar.gz"))
        if done.returncode != 0 or not archives:
            return f"pip could not download the {dist} {version} sdist: {done.stderr.strip()[-300:]}"
        staging = Path(tempfile.mkdtemp(dir=dest.parent))
        try:
            with tarfile.open(archives[0]) as tar:
                members = [m for m in tar.getmembers() if "/tests/" in m.name and m.isfile()]
                tar.extractall(staging, members=members, filter="data")
            found = list(staging.glob("*/tests"))
            if not found:
                return f"the {dist} {version} sdist ships no tests"
            dest.mkdir(exist_ok=True)
            if not (dest / "tests").exists():
                found[0].rename(dest / "tests")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return None


def suite_root(dist: str, env: str, suite: str, *, sdist_has_tests: bool, how: str = "") -> Path:
    """The folder holding ``suite`` for the installed version of ``dist`` (see the module doc)."""
    given = os.environ.get(env)
    if given:
        path = Path(given)
        assert (path / suite).exists(), f"no {suite} in {path}"
        return path
    version = metadata.version(dist)
    dest = cache_root() / f"{dist}-{version}"
    if (dest / suite).exists():
        return dest
    if sdist_has_tests:
        dest.parent.mkdir(parents=True, exist_ok=True)
        why = _download(dist, version, dest)
    else:
        why = f"the {dist} {version} sdist ships no tests and {dest / suite} is missing; {how}"
    if why is not None:
        if os.environ.get("MEMGUARD_REQUIRE_UPSTREAM") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return dest


@dataclass
class Outcome:
    """One pytest run over a suite: case name -> message, per result."""

    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    guard: dict[str, int] = field(default_factory=dict)
    returncode: int = 0
    output: str = ""


def run_suite(
    root: Path,
    targets: list[str],
    tmp_path: Path,
    *,
    plugin: str | None,
    label: str,
    extra: tuple[str, ...] = (),
) -> Outcome:
    """pytest over ``targets`` of ``root`` in a subprocess; with ``plugin`` the guard's plugin
    (from this folder) is loaded, without it the suite runs against the raw clients."""
    work = tmp_path / label
    work.mkdir()
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    junit, report = work / "suite.xml", work / "guard.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), str(root), os.environ.get("PYTHONPATH", "")]),
        "MEMGUARD_SUITE_REPORT": str(report),
    }
    for server in ("QDRANT_URL", "QDRANT_CLUSTER_URL"):
        env.pop(server, None)  # local mode only: the guard is what is under test
    plugins = ["-p", plugin] if plugin else []
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *targets, *plugins, "-q", "-p", "no:cacheprovider",
         "-p", "no:randomly", "-c", str(ini), "--rootdir", str(root), f"--junitxml={junit}",
         *extra],
        cwd=root, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    out = Outcome(returncode=done.returncode, output=done.stdout[-3000:] + done.stderr[-3000:])
    assert junit.exists(), out.output
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            out.failed[name] = (bad.get("message") or "")[:300]
        elif skip is not None:
            out.skipped[name] = skip.get("message") or ""
        else:
            out.passed.append(name)
    if report.exists():
        out.guard = json.loads(report.read_text())
    return out
