"""The bounded YAML loader (memguard.yamlsafe) and what it means for every configuration file.

- every file of tests/vectors/policy-bad/ is refused by the policy loader with file:line:column, and
  by `memguard policy validate` with exit 3 and exactly one line on stderr;
- the limits themselves: aliases, depth 64, size (default, argument, environment), tags, duplicate
  keys, int64, finite floats, YAML 1.2 core scalars;
- configuration errors name file, line, column and key and never the value (a database URL with a
  password in the gateway config, a secret in the identity config; issue 12 item 7);
- a hypothesis test over generated and mutated YAML: the policy loader either loads a valid set or
  raises PolicyError, never anything else, and never runs away (a 10 s alarm guards every example:
  a timeout, not a speed assertion; times are measured by benchmarks/bench_yaml_loader.py).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
import structlog
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from policy_strategies import policies, yaml_expr
from typer.testing import CliRunner

from memguard import yamlsafe
from memguard.cli import app
from memguard.errors import ConfigurationError
from memguard.gateway.config import load_gateway_config
from memguard.policy.loader import load_policy_path, load_policy_text
from memguard.policy.model import PolicyError, PolicySet
from memguard.tokens.config import load_identity_config

BAD = Path(__file__).resolve().parent / "vectors" / "policy-bad"
BAD_FILES = sorted(p for p in BAD.iterdir() if p.suffix == ".yaml")
SECRET = "s3cret-Pa55w0rd"


@contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """Fail instead of hanging if the body runs away (the 557-byte alias bomb ran > 60 s)."""

    def expired(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def _keep_logging_config() -> Iterator[None]:
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


# -- the bad-input folder ------------------------------------------------------------------------


def test_the_bad_folder_covers_the_findings() -> None:
    names = {p.name for p in BAD_FILES}
    assert len(names) >= 30
    for required in ("alias-bomb.yaml", "nesting-5000-flow.yaml", "python-object-apply.yaml",
                     "rule-id-trailing-newline.yaml", "int-beyond-int64.yaml"):  # fmt: skip
        assert required in names


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: p.stem)
def test_every_bad_file_is_refused_with_a_position(path: Path) -> None:
    with alarm(10), pytest.raises(PolicyError) as info:
        load_policy_path(path)
    problems = info.value.problems
    assert problems and all(p.file == str(path) for p in problems)
    first = problems[0]
    assert first.line >= 1 and first.column >= 1, first
    assert str(first).startswith(f"{path}:{first.line}:{first.column}:")
    assert "\n" not in str(first)


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: p.stem)
def test_validate_exits_3_with_one_line(path: Path) -> None:
    with alarm(10):
        got = CliRunner().invoke(app, ["policy", "validate", str(path)])
    assert got.exit_code == 3, got.output
    assert got.stdout == ""
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}:"), got.stderr


def test_the_alias_bomb_stops_at_its_first_alias() -> None:
    text = (BAD / "alias-bomb.yaml").read_text()
    first_alias = text.index("*")
    line = text.count("\n", 0, first_alias) + 1
    column = first_alias - text.rfind("\n", 0, first_alias)
    with pytest.raises(yamlsafe.YamlError) as info:
        yamlsafe.compose(text, "bomb.yaml")
    assert (info.value.line, info.value.column) == (line, column)
    assert info.value.problem == "aliases are not allowed"


# -- the limits ----------------------------------------------------------------------------------


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_depth_64_loads_and_65_does_not() -> None:
    assert yamlsafe.load(_nested(64)).data is not None
    block = "".join("  " * i + f"k{i}:\n" for i in range(63)) + "  " * 63 + "k63: 1\n"
    assert yamlsafe.load(block).data is not None  # 64 nested mappings
    for text in (_nested(65), "- " * 65 + "x\n", "a: " + "{b: " * 64 + "1" + "}" * 64):
        with pytest.raises(yamlsafe.YamlError, match="nested deeper than 64 levels"):
            yamlsafe.load(text)
    with pytest.raises(yamlsafe.YamlError):
        yamlsafe.load(_nested(5000))


def test_size_cap_default_argument_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = "# " + "x" * (yamlsafe.MAX_BYTES - 3) + "\n"
    assert len(big.encode()) == yamlsafe.MAX_BYTES
    assert yamlsafe.load(big).data is None  # exactly the cap: fine
    with pytest.raises(yamlsafe.YamlError, match=f"larger than {yamlsafe.MAX_BYTES} bytes"):
        yamlsafe.load(big + "a")
    with pytest.raises(yamlsafe.YamlError, match="larger than 10 bytes"):
        yamlsafe.load("a: 1234567890", max_bytes=10)
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: 1\n" + b"#" * (8 << 20))
    with pytest.raises(yamlsafe.YamlError, match="larger than"):
        yamlsafe.read(path)
    with pytest.raises(yamlsafe.YamlError):
        yamlsafe.read_bytes(path, 100)
    monkeypatch.setenv("MEMGUARD_YAML_MAX_BYTES", "8")
    with pytest.raises(yamlsafe.YamlError, match="larger than 8 bytes"):
        yamlsafe.load("apiVersion: 1")
    with pytest.raises(PolicyError, match="larger than 8 bytes"):
        load_policy_text("apiVersion: memguard/v1\nrules: []\n")
    monkeypatch.setenv("MEMGUARD_YAML_MAX_BYTES", "lots")
    with pytest.raises(ConfigurationError, match="MEMGUARD_YAML_MAX_BYTES"):
        yamlsafe.load("a: 1")


def test_policy_size_cap_is_an_argument(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("apiVersion: memguard/v1\nrules: []\n")
    assert isinstance(load_policy_path(path), PolicySet)
    with pytest.raises(PolicyError, match="larger than 16 bytes"):
        load_policy_path(path, max_bytes=16)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: !!python/object/apply:os.system [ls]", "python tags are not allowed"),
        ("a: !!python/name:os.system", "python tags are not allowed"),
        ("a: !!timestamp 2024-01-01", "this YAML tag is not allowed"),
        ("a: !!binary aGk=", "this YAML tag is not allowed"),
        ("a: !!set {x: null}", "this YAML tag is not allowed"),
        ("a: !!omap [x: 1]", "this YAML tag is not allowed"),
        ("a: !local 1", "unknown YAML tag"),
        ("a: !<tag:example.com,2000:x> 1", "unknown YAML tag"),
        ("a: !!map [1]", "this YAML tag is not allowed"),
        ("a: !!str [1]", "this YAML tag is not allowed"),
        ("a: !!int x", "not an integer"),
        ("a: !!int 1.5", "not an integer"),
        ("a: !!bool yes", "not a boolean"),
        ("a: !!null x", "not a null"),
        ("a: !!float x", "not a float"),
        ("a: 9223372036854775808", "integer out of range (int64)"),
        ("a: -9223372036854775809", "integer out of range (int64)"),
        ("a: 0x8000000000000000", "integer out of range (int64)"),
        ("a: !!int 99999999999999999999999999999", "integer out of range (int64)"),
        ("a: .inf", "floats must be finite"),
        ("a: -.Inf", "floats must be finite"),
        ("a: .NaN", "floats must be finite"),
        ("a: 1e400", "floats must be finite"),
        ("a: 1\na: 2", "duplicate key"),
        ("a: &x 1\nb: *x", "aliases are not allowed"),
        ("a: 1\n---\nb: 2", "only one YAML document is allowed"),
        ("? [a]\n: 1", "a mapping key must be a string"),
        ("1: a", "a mapping key must be a string"),
        ("true: a", "a mapping key must be a string"),
        ("~: a", "a mapping key must be a string"),
    ],
)
def test_refused_constructs(text: str, problem: str) -> None:
    with pytest.raises(yamlsafe.YamlError) as info:
        yamlsafe.load(text, "c.yaml")
    assert problem in info.value.problem
    assert info.value.line >= 1 and info.value.column >= 1
    assert str(info.value).startswith(f"c.yaml:{info.value.line}:{info.value.column}: ")


def test_yaml_1_2_core_scalars() -> None:
    data = yamlsafe.load(
        "a: yes\nb: on\nc: NO\nd: 012\ne: 0o12\nf: 0x1F\ng: 1:30\nh: ~\ni: 2024-01-01\n"
        "j: 1.5\nk: true\nl: False\nm: null\nn: \no: '1'\np: 9223372036854775807\n"
        "q: -9223372036854775808\nr: <<\ns: 1_000\nt: !!str 12\nu: !!int '12'\nv: ! 12\n"
    ).data
    assert data == {
        "a": "yes", "b": "on", "c": "NO", "d": 12, "e": 10, "f": 31, "g": "1:30", "h": None,
        "i": "2024-01-01", "j": 1.5, "k": True, "l": False, "m": None, "n": None, "o": "1",
        "p": 2**63 - 1, "q": -(2**63), "r": "<<", "s": "1_000", "t": "12", "u": 12, "v": "12",
    }  # fmt: skip


def test_document_positions_for_a_key_path() -> None:
    doc = yamlsafe.load("a:\n  b:\n    - x\n    - {c: 1}\n", "p.yaml")
    err = doc.error(["a", "b", 1, "c"], "bad")
    assert (err.line, err.column, err.key) == (4, 11, ("a", "b", 1, "c"))
    assert str(err) == "p.yaml:4:11: key `a.b[1].c`: bad"
    missing = doc.error(["a", "zz"], "required")  # the deepest node the path reaches
    assert (missing.line, missing.column) == (2, 3)


# -- never the value -----------------------------------------------------------------------------

SECRET_DSN = f"postgresql+psycopg://memguard:{SECRET}@db.internal:5432/memguard"


@pytest.mark.parametrize(
    "text",
    [
        f"store:\n  url: {SECRET_DSN}\n  path: /var/lib/memguard\n",  # both: a model error
        f'store:\n  url: "{SECRET_DSN}\n',  # unterminated quote
        f'store:\n  url: "{SECRET_DSN}\\q"\n',  # bad escape
        f"store:\n  url: {SECRET_DSN}\n\tpath: x\n",  # a tab
        f"store:\n  url: !secret {SECRET_DSN}\n",  # unknown tag
        f"store:\n  url: !!python/object:x {SECRET_DSN}\n",
        f"store:\n  url: {SECRET_DSN}\n  url: {SECRET_DSN}\n",  # duplicate key
        f"store: {{url: {SECRET_DSN}, port: 99999999999999999999999}}\n",
        f"store:\n  url: {SECRET_DSN}\n  unknown_key: {SECRET}\n",
        f"store:\n  url: [{SECRET_DSN}]\n",  # wrong type
        f"server: {{port: {SECRET}}}\n",
        f"{SECRET}: 1\n",
        f"store:\n  url: {SECRET_DSN}\x07\n",  # a control character after the secret
        f"store: &a {{url: {SECRET_DSN}}}\nagain: *a\n",
    ],
)
def test_gateway_config_errors_never_echo_the_value(tmp_path: Path, text: str) -> None:
    path = tmp_path / "gateway.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigurationError) as info:
        load_gateway_config(path)
    message = str(info.value)
    assert SECRET not in message and "psycopg://" not in message
    assert message.startswith(f"{path}:") and "\n" not in message
    line, column = message[len(str(path)) + 1 :].split(":")[:2]
    assert int(line) >= 1 and int(column) >= 1


def test_gateway_config_dsn_error_names_the_key(tmp_path: Path) -> None:
    path = tmp_path / "gateway.yaml"
    path.write_text(f"version: 1\nstore:\n  url: {SECRET_DSN}\n  path: /x\n", "utf-8")
    with pytest.raises(ConfigurationError) as info:
        load_gateway_config(path)
    assert str(info.value).startswith(f"{path}:3:3: key `store`:")
    assert "not both" in str(info.value) and SECRET not in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        f"version: 1\naccess_tokens:\n  audience: {SECRET}\n  issuers: [{{issuer: x, jwks_url: {SECRET}, bad: 1}}]\n",
        f'version: 1\naccess_tokens: {{audience: "{SECRET}\n',
        f"version: 1\n{SECRET}: [1]\n",
        f"version: {SECRET}\n",
    ],
)
def test_identity_config_errors_never_echo_the_value(tmp_path: Path, text: str) -> None:
    path = tmp_path / "identity.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigurationError) as info:
        load_identity_config(path)
    assert SECRET not in str(info.value) and str(info.value).startswith(f"{path}:")


def test_config_files_use_the_bounded_loader(tmp_path: Path) -> None:
    bomb = (BAD / "alias-bomb.yaml").read_text().replace("apiVersion: memguard/v1\n", "")
    for loader in (load_gateway_config, load_identity_config):
        path = tmp_path / "c.yaml"
        path.write_text(bomb, "utf-8")
        with alarm(10), pytest.raises(yamlsafe.YamlError, match="aliases are not allowed"):
            loader(path)
        path.write_text("a: " + _nested(5000), "utf-8")
        with alarm(10), pytest.raises(yamlsafe.YamlError):
            loader(path)


# -- generated YAML ------------------------------------------------------------------------------

KEYS = ["apiVersion", "kind", "rules", "id", "effect", "actions", "when", "attr", "eq", "ne", "in",
        "not_in", "lt", "gte", "all", "any", "not", "max_trust", "description", "x"]  # fmt: skip
WORDS = ["memguard/v1", "PolicySet", "permit", "forbid", "search", "get", "write", "read", "*",
         "fact.trust", "fact.namespace", "fact.owner_sub", "principal.subject", "context.purpose",
         "untrusted", "user", "tool_argument", "r1", "r2", "yes", "no", "~", "null", ".inf", ".nan",
         "0x1F", "0o17", "1e400", "9223372036854775807", "9223372036854775808", "-1", "1:30",
         "'quoted'", '"dq\\n"', "!!python/name:os.system", "!!str 1", "!x y", "&a v", "*a", "<<",
         "|", ">", "- ", ": ", "[", "]", "{", "}", ",", "#", "\t", "\x07", "é", "\u202e"]  # fmt: skip


def _scalars() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(WORDS), st.integers(-(2**65), 2**65).map(str),
                     st.text(max_size=6))  # fmt: skip


def _render(value: object, indent: int, flow: bool) -> str:
    if isinstance(value, dict):
        if flow or not value:
            return "{" + ", ".join(f"{k}: {_render(v, 0, True)}" for k, v in value.items()) + "}"
        pad = "  " * indent
        return "\n" + "".join(f"{pad}{k}: {_render(v, indent + 1, False)}\n" for k, v in value.items()).rstrip("\n")
    if isinstance(value, list):
        if flow or not value:
            return "[" + ", ".join(_render(v, 0, True) for v in value) + "]"
        pad = "  " * indent
        return "\n" + "".join(f"{pad}- {_render(v, indent + 1, True)}\n" for v in value).rstrip("\n")
    return str(value)


def _trees() -> st.SearchStrategy[object]:
    return st.recursive(
        _scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
        ),
        max_leaves=20,
    )


@st.composite
def yaml_documents(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["", "apiVersion: memguard/v1\n", "apiVersion: memguard/v1\nrules:\n"]))
    body = _render(draw(_trees()), draw(st.integers(0, 2)), draw(st.booleans()))
    text = head + body
    # mutations: insert, delete or replace a few characters from YAML's significant alphabet
    for _ in range(draw(st.integers(0, 4))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        op = draw(st.sampled_from(["ins", "del", "rep"]))
        piece = draw(st.sampled_from(["*a", "&a ", "!!python/object:x ", "- ", ": ", "\n", "  ",
                                      "[" * 70, "{", "}", "'", '"', "\t", "---\n", "? "]))  # fmt: skip
        if op == "ins":
            text = text[:at] + piece + text[at:]
        elif op == "del":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


VALID_RULE = (
    "apiVersion: memguard/v1\nrules:\n  - id: r1\n    effect: permit\n    actions: [search, get]\n"
    "    when:\n      all:\n        - {attr: fact.owner_sub, eq: {attr: principal.subject}}\n"
    "        - {attr: fact.trust, gte: user}\n  - id: r2\n    effect: forbid\n    actions: [search]\n"
    "    when: {attr: context.purpose, eq: tool_argument}\n"
)


@st.composite
def mutated_policies(draw: st.DrawFn) -> str:
    text = VALID_RULE
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text) - 1))
        piece = draw(st.sampled_from(["*a", "&a ", "!!int ", "!!python/name:os.system ", "-", ":",
                                      "\n", " ", "x", "[", "}", "'", "\t", "9" * 25, "r1\n"]))  # fmt: skip
        text = text[:at] + piece + text[at + draw(st.integers(0, 2)) :]
    return text


@st.composite
def valid_looking_policies(draw: st.DrawFn) -> str:
    """Random rules rendered to YAML (block or flow style), then a comment or blank line added."""
    policy = draw(policies())
    doc = {"apiVersion": "memguard/v1", "rules": [
        {"id": r.id, "effect": r.effect.value, "actions": sorted(r.actions), "when": yaml_expr(r.when)}
        for r in policy.rules]}  # fmt: skip
    text = yaml.safe_dump(doc, default_flow_style=draw(st.sampled_from([None, True, False])))
    lines = text.splitlines(keepends=True)
    at = draw(st.integers(0, len(lines)))
    lines.insert(at, draw(st.sampled_from(["# comment\n", "\n", "   \n"])))
    return "".join(lines)


STATS = {"loaded": 0, "refused": 0}


@settings(max_examples=1200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(text=st.one_of(yaml_documents(), mutated_policies(), valid_looking_policies()))
def test_generated_yaml_loads_or_is_refused_with_a_typed_error(text: str) -> None:
    with alarm(10):
        try:
            policy = load_policy_text(text, "gen.yaml")
        except PolicyError as exc:
            STATS["refused"] += 1
            assert exc.problems
            for problem in exc.problems:
                assert problem.file == "gen.yaml" and problem.line >= 0
                assert "\n" not in str(problem)
            return
    STATS["loaded"] += 1
    assert isinstance(policy, PolicySet)
    assert policy.digest.startswith("sha256:")


def test_the_generated_yaml_is_interesting() -> None:
    """Guards the generator: both outcomes must occur often."""
    if STATS["loaded"] + STATS["refused"] == 0:
        pytest.skip("runs after the property test in the same session")
    assert STATS["loaded"] >= 20 and STATS["refused"] >= 200, STATS


def test_an_unknown_key_is_named_if_it_looks_like_a_key(tmp_path: Path) -> None:
    path = tmp_path / "gateway.yaml"
    path.write_text("version: 1\nlimits:\n  max_concurency: 8\n", "utf-8")
    with pytest.raises(ConfigurationError) as info:
        load_gateway_config(path)
    assert str(info.value) == f"{path}:3:3: key `limits.max_concurency`: unknown key"
    path.write_text(f"version: 1\nlimits:\n  {SECRET}: 8\n", "utf-8")
    with pytest.raises(ConfigurationError) as info:
        load_gateway_config(path)
    assert str(info.value) == f"{path}:3:3: key `limits`: unknown key"  # pointed at, not printed
