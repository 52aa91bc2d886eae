"""Policy test files: YAML next to the policies, each case a request and the expected decision.

::

    apiVersion: memguard/v1
    kind: PolicyTests
    policies: [isolation.yaml]      # relative to this file; default: the sibling <stem>.yaml
    now: 1800000000                 # the clock for `fact.age` (default 1800000000)
    tests:
      - name: alice reads her own note
        principal: {subject: alice, issuer: https://idp.example, actors: [], scopes: []}
        action: search
        context: {purpose: answer}
        fact: {namespace: notes, owner_iss: https://idp.example, owner_sub: alice, trust: user}
        expect: {decision: allow, rules: [own-facts]}

A read case with ``fact`` is a point decision, and the read plan for the same request must agree with
it on that fact (a mismatch fails the case). A read case without ``fact`` checks ``expect.plan``
(``deny``, ``allow`` or ``residual``). A ``write`` case names ``namespace`` and may expect ``max_trust``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from memguard import yamlsafe
from memguard.errors import ConfigurationError
from memguard.identity import Actor, Principal, PrincipalId
from memguard.policy.loader import TEST_SUFFIXES, load_policy_files
from memguard.policy.model import ACTIONS, PolicyError, Problem
from memguard.policy.resolver import PolicyResolver
from memguard.scope import And, Eq, FieldValue, Gte, In, Not, Or, PlanKind, ReadRequest
from memguard.trust import SourceKind, TrustLevel

__all__ = [
    "CaseResult",
    "PolicyRequest",
    "TestFileReport",
    "parse_request",
    "run_policy_tests",
    "test_files",
]

DEFAULT_NOW = 1_800_000_000
DEFAULT_ISSUER = "https://idp.example"
_CASE_KEYS = {"name", "principal", "action", "context", "fact", "namespace", "expect"}
_PRINCIPAL_KEYS = {"subject", "issuer", "actors", "scopes", "client_id"}
_FACT_KEYS = {
    "id", "namespace", "owner_iss", "owner_sub", "trust", "source_kind", "writer_sub",
    "workload_id", "tags", "age", "created_at", "derived_from_count", "lineage_trust",
}  # fmt: skip
_EXPECT_KEYS = {"decision", "rules", "max_trust", "plan"}


class CaseError(ValueError):
    """A malformed test case or request."""


@dataclass(frozen=True, slots=True)
class PolicyRequest:
    """A request as a test case or ``memguard policy explain`` gives it."""

    principal: Principal
    action: str
    purpose: str | None
    fact: Mapping[str, FieldValue] | None
    namespace: str | None


@dataclass(frozen=True, slots=True)
class CaseResult:
    name: str
    line: int
    passed: bool
    expected: Mapping[str, object]
    actual: Mapping[str, object]
    message: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "line": self.line,
            "passed": self.passed,
            "expected": dict(self.expected),
            "actual": dict(self.actual),
            "message": self.message,
        }


@dataclass(slots=True)
class TestFileReport:
    file: str
    policy_digest: str | None = None
    cases: list[CaseResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    policy_invalid: bool = False

    __test__ = False  # not a pytest class

    @property
    def passed(self) -> bool:
        return not self.problems and all(c.passed for c in self.cases)

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "policy_digest": self.policy_digest,
            "passed": self.passed,
            "cases": [c.as_json() for c in self.cases],
            "problems": [p.as_json() for p in self.problems],
        }


def _keys(value: object, allowed: set[str], what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CaseError(f"{what} must be a mapping")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise CaseError(f"unknown key `{unknown[0]}` in {what}")
    return value


def _principal(raw: object) -> Principal:
    data = _keys(raw, _PRINCIPAL_KEYS, "`principal`")
    if "subject" not in data:
        raise CaseError("`principal` needs `subject`")
    issuer = str(data.get("issuer", DEFAULT_ISSUER))
    actors = data.get("actors", []) or []
    scopes = data.get("scopes", []) or []
    if not isinstance(actors, list) or not isinstance(scopes, list):
        raise CaseError("`actors` and `scopes` must be lists")
    return Principal(
        subject=PrincipalId(issuer=issuer, subject=str(data["subject"])),
        actors=tuple(Actor(issuer=issuer, subject=str(a)) for a in actors),
        client_id=data.get("client_id"),
        token_jti="policy-test",
        scopes=frozenset(str(s) for s in scopes),
    )


def _fact(raw: object, now: int) -> dict[str, FieldValue]:
    data = _keys(raw, _FACT_KEYS, "`fact`")
    out: dict[str, FieldValue] = {}
    for key, value in data.items():
        if key in ("trust", "lineage_trust"):
            out[key] = None if value is None else int(TrustLevel.parse(value))
        elif key == "source_kind":
            out["source_kind"] = None if value is None else SourceKind(value).value
        elif key == "age":
            if isinstance(value, bool) or not isinstance(value, int):
                raise CaseError("`age` must be an integer number of seconds")
            out["created_at"] = now - value
        elif key == "id":
            out["fact_id"] = value
        elif key == "tags":
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise CaseError("`tags` must be a list of strings")
            out["tags"] = list(value)
        elif value is None or (isinstance(value, str | int) and not isinstance(value, bool)):
            out[key] = value
        else:
            raise CaseError(f"`{key}` must be a string or an integer")
    return out


def parse_request(raw: object, now: int = DEFAULT_NOW) -> PolicyRequest:
    """A request mapping (principal, action, context, fact or namespace) -> :class:`PolicyRequest`."""
    data = _keys(raw, _CASE_KEYS, "a request")
    if "principal" not in data or "action" not in data:
        raise CaseError("a request needs `principal` and `action`")
    action = data["action"]
    if action not in ACTIONS:
        raise CaseError(f"unknown action `{action}`")
    context = _keys(data.get("context", {}) or {}, {"purpose"}, "`context`")
    purpose = context.get("purpose", None if action == "write" else "answer")
    namespace = data.get("namespace")
    if action == "write" and not isinstance(namespace, str):
        raise CaseError("a `write` request needs `namespace`")
    fact = _fact(data["fact"], now) if data.get("fact") is not None else None
    return PolicyRequest(_principal(data["principal"]), action, purpose, fact, namespace)


def evaluate_request(resolver: PolicyResolver, req: PolicyRequest) -> dict[str, object]:
    """What the resolver decides for a request, as the JSON ``explain`` and the tests compare."""
    if req.action == "write":
        assert req.namespace is not None
        w = resolver.write_decision(req.principal, req.namespace)
        out: dict[str, object] = {
            "kind": "write",
            "decision": "allow" if w.allowed else "deny",
            "rules": list(w.rule_ids),
            "reason": w.reason,
            "policy_digest": w.policy_digest,
        }
        if w.allowed:
            out["max_trust"] = w.max_trust.label
        if w.extra:
            out["errors"] = [w.extra["errors"]]
        return out
    plan = resolver.read_plan(req.principal, ReadRequest(req.action, purpose=req.purpose or ""))
    plan_json: dict[str, object] = {"kind": plan.kind.value, "rules": list(plan.rule_ids)}
    if plan.condition is not None:
        plan_json["condition"] = condition_json(plan.condition)
    if req.fact is None:
        return {
            "kind": "plan",
            "decision": "deny" if plan.kind is PlanKind.DENY else "allow",
            "plan": plan.kind.value,
            "rules": list(plan.rule_ids),
            "reason": plan.reason,
            "policy_digest": plan.policy_digest,
            "residual": plan_json.get("condition"),
        }
    d = resolver.decide(req.principal, req.action, req.fact, purpose=req.purpose)
    out = {"kind": "point", **d.as_json(), "plan": plan_json}
    out["plan_agrees"] = plan.allows(req.fact) == d.allowed
    return out


def condition_json(cond: object) -> object:
    """A scope condition as JSON (for ``explain`` output)."""
    match cond:
        case Eq(f, v):
            return {"eq": [f, v]}
        case In(f, vs):
            return {"in": [f, list(vs)]}
        case Gte(f, v):
            return {"gte": [f, v]}
        case And(items):
            return {"and": [condition_json(i) for i in items]}
        case Or(items):
            return {"or": [condition_json(i) for i in items]}
        case Not(item):
            return {"not": condition_json(item)}
    return repr(cond)


def _check(expect: dict[str, Any], actual: dict[str, object]) -> str:
    problems = []
    if "decision" in expect and expect["decision"] != actual["decision"]:
        problems.append(f"decision {actual['decision']}, expected {expect['decision']}")
    got_rules = actual["rules"]
    if "rules" in expect and sorted(map(str, expect["rules"] or [])) != sorted(
        map(str, got_rules if isinstance(got_rules, list) else [])
    ):
        problems.append(f"rules {actual['rules']}, expected {expect['rules']}")
    if "max_trust" in expect and expect["max_trust"] != actual.get("max_trust"):
        problems.append(f"max_trust {actual.get('max_trust')}, expected {expect['max_trust']}")
    if "plan" in expect:
        got = actual.get("plan")
        got_kind = got.get("kind") if isinstance(got, dict) else got
        if expect["plan"] != got_kind:
            problems.append(f"plan {got_kind}, expected {expect['plan']}")
    if actual.get("plan_agrees") is False:
        problems.append("the read plan and the point decision disagree on this fact")
    return "; ".join(problems)


def test_files(path: Path) -> list[Path]:
    """Every ``*.tests.yaml`` file of a file or a folder."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"no such file or folder `{path}`")
    return sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(TEST_SUFFIXES))


test_files.__test__ = False  # type: ignore[attr-defined]


def _policy_source(test_file: Path, data: dict[str, Any]) -> list[Path]:
    listed = data.get("policies")
    if listed is None:
        stem = test_file.name
        for suffix in TEST_SUFFIXES:
            stem = stem.removesuffix(suffix)
        return [test_file.with_name(stem + ".yaml")]
    if not isinstance(listed, list) or not listed:
        raise CaseError("`policies` must be a non-empty list of paths")
    return [test_file.parent / str(p) for p in listed]


def _load_policies(paths: list[Path], clock_now: int) -> PolicyResolver:
    return PolicyResolver(load_policy_files(paths), clock=lambda: clock_now)


def run_test_file(path: Path) -> TestFileReport:
    report = TestFileReport(str(path))
    try:
        doc = yamlsafe.read(path)
        root = doc.root
        data = _keys(
            doc.data,
            {"apiVersion", "kind", "description", "policies", "now", "tests"},
            "a test file",
        )
        if data.get("apiVersion") != "memguard/v1" or data.get("kind") != "PolicyTests":
            raise CaseError("a test file needs `apiVersion: memguard/v1` and `kind: PolicyTests`")
        now = data.get("now", DEFAULT_NOW)
        if isinstance(now, bool) or not isinstance(now, int):
            raise CaseError("`now` must be epoch seconds")
        cases = data.get("tests") or []
        if not isinstance(cases, list) or not cases:
            raise CaseError("`tests` must be a non-empty list")
        nodes: list[Node] = []
        if isinstance(root, MappingNode):
            for k, v in root.value:
                if getattr(k, "value", None) == "tests" and isinstance(v, SequenceNode):
                    nodes = list(v.value)
        try:
            resolver = _load_policies(_policy_source(path, data), now)
        except PolicyError as exc:
            report.problems.extend(exc.problems)
            report.policy_invalid = True
            return report
        report.policy_digest = resolver.digest
    except (OSError, ConfigurationError, CaseError, FileNotFoundError) as exc:
        report.problems.append(Problem(str(path), 0, f"{type(exc).__name__}: {exc}"))
        return report
    for i, case in enumerate(cases):
        line = nodes[i].start_mark.line + 1 if i < len(nodes) else 0
        name = str(case.get("name", f"case {i + 1}")) if isinstance(case, dict) else f"case {i + 1}"
        try:
            expect = _keys(
                case.get("expect") if isinstance(case, dict) else None, _EXPECT_KEYS, "`expect`"
            )
            if not expect:
                raise CaseError("`expect` is empty")
            req = parse_request({k: v for k, v in case.items() if k not in ("name", "expect")}, now)
            actual = evaluate_request(resolver, req)
        except (CaseError, ValueError, TypeError) as exc:
            report.cases.append(CaseResult(name, line, False, {}, {}, f"invalid case: {exc}"))
            continue
        message = _check(expect, actual)
        report.cases.append(CaseResult(name, line, not message, expect, actual, message))
    return report


def run_policy_tests(path: Path | str) -> list[TestFileReport]:
    """Run every policy test file of a file or a folder."""
    return [run_test_file(f) for f in test_files(Path(path))]
