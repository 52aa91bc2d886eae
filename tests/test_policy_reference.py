"""Every file in policies/ validates (engine and JSON Schema) and its tests pass; the runner can fail."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from memguard import load_policy_path, run_policy_tests
from memguard.policy.loader import policy_files
from memguard.policy.model import ACTIONS, ATTRIBUTES
from memguard.policy.testing import test_files as find_test_files

POLICIES = Path(__file__).resolve().parent.parent / "policies"
SCHEMA = json.loads((POLICIES / "schema" / "memguard-policy-v1.json").read_text())
FILES = policy_files(POLICIES)
TESTS = find_test_files(POLICIES)


def test_the_reference_set_is_there() -> None:
    names = {f.name for f in FILES}
    assert {"isolation.yaml", "subagents.yaml", "purpose.yaml", "research.yaml", "auditor.yaml"} <= names
    for f in FILES:  # each policy file has its tests next to it
        assert f.with_name(f.name.removesuffix(".yaml") + ".tests.yaml").exists(), f


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_policy_file_validates(path: Path) -> None:
    policy = load_policy_path(path)
    assert policy.rules
    jsonschema.validate(yaml.safe_load(path.read_text()), SCHEMA)


def test_the_whole_folder_loads_as_one_set() -> None:
    policy = load_policy_path(POLICIES)
    assert len(policy.files) == len(FILES)
    assert len({r.id for r in policy.rules}) == len(policy.rules)


@pytest.mark.parametrize("path", TESTS, ids=lambda p: p.name)
def test_each_policy_test_file_passes(path: Path) -> None:
    (report,) = run_policy_tests(path)
    assert not report.problems, report.problems
    failed = [(c.name, c.message) for c in report.cases if not c.passed]
    assert not failed
    assert len(report.cases) >= 4


def test_the_schema_knows_exactly_the_engine_vocabulary() -> None:
    assert set(SCHEMA["$defs"]["attribute"]["enum"]) == set(ATTRIBUTES)
    assert set(SCHEMA["$defs"]["rule"]["properties"]["actions"]["items"]["enum"]) == {*ACTIONS, "read", "*"}


def test_the_schema_refuses_what_the_engine_refuses() -> None:
    bad = {"apiVersion": "memguard/v1", "rules": [{"id": "r", "effect": "permit", "actions": ["get"], "colour": 1}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
    bad_attr = {"apiVersion": "memguard/v1", "rules": [
        {"id": "r", "effect": "permit", "actions": ["get"], "when": {"attr": "fact.nope", "eq": 1}}]}  # fmt: skip
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad_attr, SCHEMA)


def test_a_wrong_expectation_fails_the_runner(tmp_path: Path) -> None:
    """The runner is able to fail: flip one expected decision and the file no longer passes."""
    shutil.copy(POLICIES / "isolation.yaml", tmp_path / "isolation.yaml")
    text = (POLICIES / "isolation.tests.yaml").read_text()
    flipped = text.replace("expect: {decision: allow, rules: [isolation.read-own]}",
                           "expect: {decision: deny, rules: [isolation.read-own]}", 1)  # fmt: skip
    assert flipped != text
    (tmp_path / "isolation.tests.yaml").write_text(flipped)
    (report,) = run_policy_tests(tmp_path / "isolation.tests.yaml")
    failed = [c for c in report.cases if not c.passed]
    assert len(failed) == 1 and "decision allow, expected deny" in failed[0].message


def test_a_wrong_rule_id_fails_the_runner(tmp_path: Path) -> None:
    shutil.copy(POLICIES / "isolation.yaml", tmp_path / "isolation.yaml")
    text = (POLICIES / "isolation.tests.yaml").read_text().replace(
        "rules: [isolation.no-quarantined]", "rules: [isolation.read-own]", 1
    )
    (tmp_path / "isolation.tests.yaml").write_text(text)
    (report,) = run_policy_tests(tmp_path / "isolation.tests.yaml")
    assert [c.name for c in report.cases if not c.passed] == ["quarantined facts never show, even to their owner"]


def test_an_invalid_policy_is_reported_by_the_runner(tmp_path: Path) -> None:
    (tmp_path / "isolation.yaml").write_text("apiVersion: memguard/v1\nrules: [{id: x, effect: permit}]\n")
    shutil.copy(POLICIES / "isolation.tests.yaml", tmp_path / "isolation.tests.yaml")
    (report,) = run_policy_tests(tmp_path / "isolation.tests.yaml")
    assert report.policy_invalid and not report.passed
    assert report.problems[0].rule_id == "x" and "needs `actions`" in report.problems[0].message
