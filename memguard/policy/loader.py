"""Parse and validate policy YAML: safe YAML only, every problem named by file, line and rule id.

Parse stage: :func:`memguard.yamlsafe.compose` gives nodes with line marks (bounded size and depth,
no aliases, core tags only, no duplicate keys, int64 integers). Validate stage: known keys, known
attributes, value types, attributes a write rule cannot know, unreachable rules. Both stages
collect problems; any problem is a :class:`~memguard.policy.model.PolicyError` and nothing is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from memguard import yamlsafe
from memguard.errors import ConfigurationError
from memguard.policy.model import (
    ACTIONS,
    API_VERSION,
    ATTRIBUTES,
    TRUE,
    WRITE_FACT_ATTRIBUTES,
    AllOf,
    AnyOf,
    AttrType,
    Cmp,
    Effect,
    Expr,
    NotExpr,
    PolicyError,
    PolicySet,
    Problem,
    Ref,
    Rule,
    Scalar,
    attrs_of,
)
from memguard.policy.types import convert_literal
from memguard.provenance import canonical_json, sha256_digest
from memguard.trust import TrustLevel

__all__ = [
    "compose_yaml",
    "digest_rules",
    "load_policy_files",
    "load_policy_path",
    "load_policy_text",
    "policy_files",
]

_RULE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")  # fullmatch: no `$` newline hole
_TOP_KEYS = {"apiVersion", "kind", "description", "rules"}
_RULE_KEYS = {"id", "description", "effect", "actions", "when", "max_trust"}
_CMP_OPS = {"eq", "ne", "in", "not_in", "gte", "gt", "lte", "lt", "contains"}
_ORDER_OPS = {"gte", "gt", "lte", "lt"}
TEST_SUFFIXES = (".tests.yaml", ".tests.yml")


class _Bad(Exception):
    def __init__(self, node: Node | None, message: str) -> None:
        super().__init__(message)
        self.line, self.column = yamlsafe.mark_of(node) if node is not None else (0, 0)
        self.message = message
        self.rule_id: str | None = None


def compose_yaml(
    text: str | bytes, file: str = "<string>", max_bytes: int | None = None
) -> Node | None:
    """Parse bounded, safe YAML into nodes (see :mod:`memguard.yamlsafe`)."""
    return yamlsafe.compose(text, file, max_bytes=max_bytes)


def _scalar(node: Node) -> object:
    if not isinstance(node, ScalarNode):
        raise _Bad(node, "expected a scalar")
    return yamlsafe.scalar_value(node)


def _mapping(node: Node, what: str) -> dict[str, tuple[Node, Node]]:
    if not isinstance(node, MappingNode):
        raise _Bad(node, f"{what} must be a mapping")
    out: dict[str, tuple[Node, Node]] = {}
    for key_node, value_node in node.value:
        key = _scalar(key_node)
        if not isinstance(key, str):  # pragma: no cover - yamlsafe refuses non-string keys
            raise _Bad(key_node, f"keys of {what} must be strings")
        out[key] = (key_node, value_node)
    return out


def _sequence(node: Node, what: str) -> list[Node]:
    if not isinstance(node, SequenceNode):
        raise _Bad(node, f"{what} must be a list")
    return list(node.value)


def _string(node: Node, what: str) -> str:
    value = _scalar(node)
    if not isinstance(value, str) or not value:
        raise _Bad(node, f"{what} must be a non-empty string")
    return value


def _unknown_keys(
    keys: Iterable[str], allowed: set[str], items: dict[str, tuple[Node, Node]], what: str
) -> None:
    for key in keys:
        if key not in allowed:
            raise _Bad(items[key][0], f"unknown key `{key}` in {what}")


class _RuleParser:
    def __init__(self, actions: frozenset[str]) -> None:
        self.actions = actions

    def attr(self, node: Node) -> str:
        name = _string(node, "`attr`")
        if name not in ATTRIBUTES:
            raise _Bad(node, f"unknown attribute `{name}`")
        if (
            "write" in self.actions
            and name.startswith("fact.")
            and name not in WRITE_FACT_ATTRIBUTES
        ):
            raise _Bad(
                node, f"attribute `{name}` is not known for action `write` (only fact.namespace)"
            )
        return name

    def literal(self, node: Node, attr: str) -> Scalar:
        value, problem = convert_literal(attr, _scalar(node))
        if problem is not None:
            raise _Bad(node, problem)
        return value

    def value(self, node: Node, attr: str, op: str) -> Scalar | tuple[Scalar, ...] | Ref:
        spec = ATTRIBUTES[attr]
        if isinstance(node, MappingNode):
            items = _mapping(node, "a reference")
            _unknown_keys(items, {"attr"}, items, "a reference")
            if "attr" not in items:
                raise _Bad(node, "a reference needs `attr`")
            ref = self.attr(items["attr"][1])
            other = ATTRIBUTES[ref]
            if other.scope == "fact":
                raise _Bad(
                    node, f"a reference must name a principal or context attribute, not `{ref}`"
                )
            if op in _ORDER_OPS:
                raise _Bad(node, f"`{op}` takes a literal, not a reference")
            if other.value_type is not spec.value_type or spec.type is AttrType.TRUST:
                raise _Bad(node, f"`{attr}` and `{ref}` have different types")
            if other.is_list and op not in ("in", "not_in"):
                raise _Bad(node, f"`{ref}` is a list: use `in`/`not_in`")
            return Ref(ref)
        if op in ("in", "not_in"):
            values = tuple(self.literal(n, attr) for n in _sequence(node, f"`{op}`"))
            if not values:
                raise _Bad(node, f"unreachable: `{op}` with an empty list")
            return values
        return self.literal(node, attr)

    def expr(self, node: Node) -> Expr:
        if isinstance(node, SequenceNode):
            return AllOf(tuple(self.expr(n) for n in node.value))
        items = _mapping(node, "a condition")
        if "attr" in items:
            ops = [k for k in items if k != "attr"]
            _unknown_keys(ops, _CMP_OPS, items, "a comparison")
            if len(ops) != 1:
                raise _Bad(
                    node, "a comparison needs exactly one operator: " + ", ".join(sorted(_CMP_OPS))
                )
            return self.comparison(node, self.attr(items["attr"][1]), ops[0], items[ops[0]][1])
        if len(items) != 1:
            raise _Bad(
                node, "a condition is one of `all`, `any`, `not` or a comparison with `attr`"
            )
        key, (key_node, value) = next(iter(items.items()))
        if key == "all":
            return AllOf(tuple(self.expr(n) for n in _sequence(value, "`all`")))
        if key == "any":
            return AnyOf(tuple(self.expr(n) for n in _sequence(value, "`any`")))
        if key == "not":
            return NotExpr(self.expr(value))
        raise _Bad(key_node, f"unknown key `{key}` in a condition")

    def comparison(self, node: Node, attr: str, op: str, value_node: Node) -> Expr:
        spec = ATTRIBUTES[attr]
        line = node.start_mark.line + 1
        if op in _ORDER_OPS and spec.type not in (AttrType.INT, AttrType.TRUST):
            raise _Bad(
                node, f"`{op}` needs an integer or trust attribute, `{attr}` is a {spec.type.value}"
            )
        if attr == "fact.age" and op not in _ORDER_OPS:
            raise _Bad(node, "`fact.age` takes `gte`, `gt`, `lte` or `lt`")
        if op == "contains" and not spec.is_list:
            raise _Bad(node, f"`contains` needs a list attribute, `{attr}` is not one")
        value = self.value(value_node, attr, op)
        if op in ("eq", "contains"):
            return Cmp("eq", attr, value, line)
        if op == "ne":
            return NotExpr(Cmp("eq", attr, value, line))
        if op == "in":
            return Cmp("in", attr, value, line)
        if op == "not_in":
            return NotExpr(Cmp("in", attr, value, line))
        assert isinstance(value, int)
        if op == "gte":
            return Cmp("gte", attr, value, line)
        if op == "gt":
            return Cmp("gte", attr, value + 1, line)
        if op == "lte":
            return NotExpr(Cmp("gte", attr, value + 1, line))
        return NotExpr(Cmp("gte", attr, value, line))  # lt


def _static_false(expr: Expr) -> bool:
    """True if the condition can never hold (a conservative check: no false positives)."""
    match expr:
        case AnyOf(items):
            return all(_static_false(i) for i in items)
        case NotExpr(AllOf(())):
            return True
        case AllOf(items):
            if any(_static_false(i) for i in items):
                return True
            eqs: dict[str, set[Scalar]] = {}
            neqs: set[tuple[str, Scalar]] = set()
            low: dict[str, int] = {}
            high: dict[str, int] = {}  # exclusive upper bound
            for item in items:
                match item:
                    case Cmp("eq", a, v) if isinstance(v, str | int) and not ATTRIBUTES[a].is_list:
                        eqs.setdefault(a, set()).add(v)
                    case Cmp("gte", a, int(v)):
                        low[a] = max(low.get(a, v), v)
                    case NotExpr(Cmp("gte", a, int(v))):
                        high[a] = min(high.get(a, v), v)
                    case NotExpr(Cmp("eq", a, v)) if isinstance(v, str | int):
                        neqs.add((a, v))
            if any(len(vs) > 1 for vs in eqs.values()):
                return True
            if any(a in high and high[a] <= lo for a, lo in low.items()):
                return True
            return any((a, v) in neqs for a, vs in eqs.items() for v in vs)
    return False


def _parse_rule(node: Node, file: str, seen: dict[str, Problem]) -> Rule:
    items = _mapping(node, "a rule")
    rule_id: str | None = None
    if "id" in items:
        rule_id = _string(items["id"][1], "`id`")
        if not _RULE_ID.fullmatch(rule_id):
            raise _Bad(items["id"][1], f"a rule id must match `{_RULE_ID.pattern}`")
    try:
        _unknown_keys(items, _RULE_KEYS, items, "a rule")
        for required in ("id", "effect", "actions"):
            if required not in items:
                raise _Bad(node, f"a rule needs `{required}`")
        assert rule_id is not None
        effect_raw = _string(items["effect"][1], "`effect`")
        if effect_raw not in {e.value for e in Effect}:
            raise _Bad(
                items["effect"][1], f"`effect` must be `permit` or `forbid`, not `{effect_raw}`"
            )
        effect = Effect(effect_raw)
        actions: set[str] = set()
        action_nodes = _sequence(items["actions"][1], "`actions`")
        if not action_nodes:
            raise _Bad(items["actions"][1], "unreachable: `actions` is empty")
        for a_node in action_nodes:
            name = _string(a_node, "an action")
            if name == "read":
                actions |= {"search", "get"}
            elif name == "*":
                actions |= set(ACTIONS)
            elif name in ACTIONS:
                actions.add(name)
            else:
                raise _Bad(a_node, f"unknown action `{name}`")
        parser = _RuleParser(frozenset(actions))
        when = parser.expr(items["when"][1]) if "when" in items else TRUE
        max_trust: TrustLevel | None = None
        if "max_trust" in items:
            mt_node = items["max_trust"][1]
            if effect is not Effect.PERMIT or "write" not in actions:
                raise _Bad(mt_node, "`max_trust` applies only to permit rules for `write`")
            raw = _scalar(mt_node)
            try:
                max_trust = TrustLevel.parse(raw)  # type: ignore[arg-type]
            except (ValueError, TypeError):
                raise _Bad(mt_node, f"unknown trust level `{raw}`") from None
        description = ""
        if "description" in items:
            d = _scalar(items["description"][1])
            if not isinstance(d, str):
                raise _Bad(items["description"][1], "`description` must be a string")
            description = d
        if _static_false(when):
            raise _Bad(
                items.get("when", (node, node))[1], "unreachable: the condition can never hold"
            )
        unknown_attrs = attrs_of(when) - set(ATTRIBUTES)
        if unknown_attrs:  # pragma: no cover - the parser already refuses these
            raise _Bad(node, f"unknown attributes {sorted(unknown_attrs)}")
    except _Bad as bad:
        bad.rule_id = rule_id
        raise
    line = node.start_mark.line + 1
    if rule_id in seen:
        prev = seen[rule_id]
        dup = _Bad(items["id"][1], f"duplicate rule id (first at {prev.file}:{prev.line})")
        dup.rule_id = rule_id
        raise dup
    seen[rule_id] = Problem(file, line, "", rule_id)
    return Rule(rule_id, effect, frozenset(actions), when, max_trust, description, file, line)


def _parse_file(
    text: str | bytes, file: str, seen: dict[str, Problem], max_bytes: int | None = None
) -> tuple[list[Rule], list[Problem]]:
    problems: list[Problem] = []
    rules: list[Rule] = []
    try:
        root = compose_yaml(text, file, max_bytes)
    except yamlsafe.YamlError as exc:
        message = f"key `{yamlsafe.key_path(exc.key)}`: {exc.problem}" if exc.key else exc.problem
        return [], [Problem(file, exc.line, message, column=exc.column)]
    try:
        if root is None:
            raise _Bad(None, "empty policy file")
        items = _mapping(root, "a policy file")
        _unknown_keys(items, _TOP_KEYS, items, "a policy file")
        if "apiVersion" not in items:
            raise _Bad(root, f"a policy file needs `apiVersion: {API_VERSION}`")
        version = _scalar(items["apiVersion"][1])
        if version != API_VERSION:
            raise _Bad(items["apiVersion"][1], f"unsupported apiVersion (expected `{API_VERSION}`)")
        if "kind" in items and _scalar(items["kind"][1]) != "PolicySet":
            raise _Bad(items["kind"][1], "`kind` must be `PolicySet`")
        if "description" in items and not isinstance(_scalar(items["description"][1]), str):
            raise _Bad(items["description"][1], "`description` must be a string")
        rule_nodes = _sequence(items["rules"][1], "`rules`") if "rules" in items else []
    except _Bad as bad:
        return [], [Problem(file, bad.line, bad.message, column=bad.column)]
    for rule_node in rule_nodes:
        try:
            rules.append(_parse_rule(rule_node, file, seen))
        except _Bad as bad:
            problems.append(Problem(file, bad.line, bad.message, bad.rule_id, bad.column))
    return rules, problems


def _shadowed(rules: Sequence[Rule]) -> list[Problem]:
    """Permits that an unconditional forbid always overrides can never take effect."""
    blocked: set[str] = set()
    for rule in rules:
        if rule.effect is Effect.FORBID and rule.when == TRUE:
            blocked |= rule.actions
    return [
        Problem(
            r.file,
            r.line,
            "unreachable: an unconditional forbid covers all of its actions",
            r.id,
        )
        for r in rules
        if r.effect is Effect.PERMIT and r.actions <= blocked
    ]


def digest_rules(rules: Sequence[Rule]) -> str:
    """The policy-set digest: over the normalized rules in id order (formatting does not change it)."""
    body = {
        "apiVersion": API_VERSION,
        "rules": [r.canonical() for r in sorted(rules, key=lambda r: r.id)],
    }
    return sha256_digest(canonical_json(body))


def _build(sources: Sequence[tuple[str, str | bytes]], max_bytes: int | None = None) -> PolicySet:
    seen: dict[str, Problem] = {}
    rules: list[Rule] = []
    problems: list[Problem] = []
    for file, text in sources:
        got, bad = _parse_file(text, file, seen, max_bytes)
        rules.extend(got)
        problems.extend(bad)
    problems.extend(_shadowed(rules))
    if problems:
        raise PolicyError(problems)
    return PolicySet(tuple(rules), digest_rules(rules), tuple(f for f, _ in sources))


def load_policy_text(
    text: str | bytes, file: str = "<string>", *, max_bytes: int | None = None
) -> PolicySet:
    """Parse and validate one policy document."""
    return _build([(file, text)], max_bytes)


def policy_files(path: Path) -> list[Path]:
    """The policy files under ``path`` (a file, or every ``*.yaml`` below a folder except tests)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"no such policy file or folder `{path}`")
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and p.suffix in (".yaml", ".yml") and not p.name.endswith(TEST_SUFFIXES)
    )


def load_policy_path(path: Path | str, *, max_bytes: int | None = None) -> PolicySet:
    """Load every policy file of a file or a folder as one set; any problem refuses the whole set.

    ``max_bytes`` caps each file (default :data:`memguard.yamlsafe.MAX_BYTES`, 1 MiB, or
    ``MEMGUARD_YAML_MAX_BYTES``)."""
    return load_policy_files([Path(path)], max_bytes=max_bytes)


def load_policy_files(paths: Sequence[Path], *, max_bytes: int | None = None) -> PolicySet:
    """Load the policy files of several files or folders as one set."""
    files = [f for p in paths for f in policy_files(p)]
    if not files:
        raise PolicyError([Problem(", ".join(map(str, paths)), 0, "no policy files found")])
    sources: list[tuple[str, str | bytes]] = []
    problems: list[Problem] = []
    for f in files:
        try:
            sources.append((str(f), yamlsafe.read_bytes(f, max_bytes)))
        except yamlsafe.YamlError as exc:
            problems.append(Problem(str(f), exc.line, exc.problem, column=exc.column))
        except ConfigurationError as exc:
            problems.append(Problem(str(f), 0, str(exc)))
    if problems:
        raise PolicyError(problems)
    return _build(sources, max_bytes)
