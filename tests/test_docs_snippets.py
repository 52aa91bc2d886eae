"""Docs that run: every ```python block of README.md and docs/ runs, and every `memguard ...`
command line in a shell block names a command and options that exist.

A page's Python blocks run in order in one namespace (a page may set something up and use it in
a later block, as a reader would), in a fresh interpreter with a temporary working directory, so
a block can only use names the page itself defines. The working directory holds `policies/` and
`examples/` as a checkout does (links to the repository's), since the docs use the reference
policies. A failure names the page and the line of
the block. The generated reference pages (docs/hooks/reference.py) are checked too.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<info>[^\n`]*)$")

RUNNER = r"""
import json, sys, traceback
blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for label, code in blocks:
    try:
        exec(compile(code, label, "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        print(f"snippet failed: {label}", file=sys.stderr)
        sys.exit(1)
"""


def blocks(page: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(line, code)`` of each fenced block whose info string starts with one of ``languages``."""
    out: list[tuple[int, str]] = []
    lines = page.read_text("utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"].strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        language = info.split()[0].lower() if info else ""
        if language in languages:
            out.append((i + 2, "\n".join(body) + "\n"))
        i = j + 1
    return out


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


PYTHON_PAGES = [p for p in PAGES if blocks(p, ("python", "py"))]


def test_the_collector_finds_the_pages() -> None:
    names = {_rel(p) for p in PYTHON_PAGES}
    assert {"README.md", "docs/getting-started.md", "docs/lineage.md",
            "docs/adapters/qdrant.md"} <= names  # fmt: skip


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=_rel)
def test_python_blocks_run(page: Path, tmp_path: Path) -> None:
    code = [(f"{_rel(page)}:{line}", text) for line, text in blocks(page, ("python", "py"))]
    for name in ("policies", "examples"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "MEM0_TELEMETRY": "False",
           "MEM0_DIR": str(tmp_path / "mem0")}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER], input=json.dumps(code), cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]


# -- command lines in shell blocks --------------------------------------------------------------------


def _command_lines(page: Path) -> list[tuple[int, list[str]]]:
    out = []
    for line, text in blocks(page, ("bash", "sh", "shell", "console")):
        joined = text.replace("\\\n", " ")
        for offset, raw in enumerate(joined.splitlines()):
            raw = raw.strip().removeprefix("$ ")
            for part in re.split(r"&&|\|\||;|\|", raw.split(" #")[0]):
                words = shlex.split(part, comments=True)
                while words and "=" in words[0] and not words[0].startswith("-"):
                    words = words[1:]  # VAR=value before the command
                if words and words[0].rsplit("/", 1)[-1] == "memguard":
                    out.append((line + offset, words[1:]))
    return out


def _resolve(args: list[str]) -> tuple[Any, list[str], list[str]]:
    """The command an argument list runs, its path, and the options given to it."""
    import typer

    from memguard.cli import app

    command: Any = typer.main.get_command(app)
    command.load_all()
    ctx = command.make_context("memguard", [], resilient_parsing=True)
    path: list[str] = []
    rest = list(args)
    while rest and hasattr(command, "get_command") and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest[0])
        if sub is None:
            break
        path.append(rest.pop(0))
        command = sub
        ctx = command.make_context(path[-1], [], parent=ctx, resilient_parsing=True)
    return command, path, [a.split("=")[0] for a in rest if a.startswith("--")]


COMMAND_LINES = [(p, n, w) for p in PAGES for n, w in _command_lines(p)]


def test_the_docs_show_command_lines() -> None:
    assert len(COMMAND_LINES) > 20


@pytest.mark.parametrize(("page", "line", "words"), COMMAND_LINES,
                         ids=[f"{_rel(p)}:{n}" for p, n, _ in COMMAND_LINES])  # fmt: skip
def test_command_lines_name_real_commands_and_options(page: Path, line: int, words: list[str]) -> None:
    command, path, options = _resolve(words)
    assert path, f"{_rel(page)}:{line}: `memguard {' '.join(words)}` names no command"
    assert not hasattr(command, "list_commands") or words[len(path):] == [] or options == [], (
        f"{_rel(page)}:{line}: `memguard {' '.join(path)}` needs a subcommand")  # fmt: skip
    known = {opt for p in command.params for opt in (*p.opts, *getattr(p, "secondary_opts", ()))}
    known |= {"--help"}
    unknown = [o for o in options if o not in known]
    assert not unknown, f"{_rel(page)}:{line}: `memguard {' '.join(path)}` has no {unknown}"


# -- what the docs promise ------------------------------------------------------------------------


def test_every_test_the_docs_name_exists() -> None:
    named = {(page, m[0], m[1]) for page in PAGES
             for m in re.findall(r"(tests/test_[a-z0-9_]+\.py)::(test_[a-z0-9_]+)", page.read_text())}
    assert len(named) > 40
    for page, path, name in named:
        source = (ROOT / path).read_text() if (ROOT / path).exists() else ""
        assert re.search(rf"^(async )?def {name}\b", source, re.M), f"{_rel(page)}: {path}::{name}"


# -- the generated reference pages ----------------------------------------------------------------------


def _hooks() -> Any:
    return load_script(ROOT / "docs" / "hooks" / "reference.py", "docs_hooks")


def test_cli_reference_covers_every_command_and_the_exit_codes() -> None:
    from memguard.clikit import EXIT_TABLE

    text = _hooks().cli_reference()
    for code, _ in EXIT_TABLE:
        assert f"| `{int(code)}` |" in text
    for path in ("memguard demo", "memguard audit", "memguard revoke", "memguard endorse",
                 "memguard console", "memguard policy explain", "memguard ledger verify",
                 "memguard token verify", "memguard serve"):  # fmt: skip
        assert f"`{path}`" in text, path
    assert "<code>--format &lt;text&#124;json&#124;dot&#124;mermaid&#124;prov&gt;</code>" in text
    assert "<code>--init</code>" in text


def test_policy_reference_covers_the_schema() -> None:
    schema = json.loads((ROOT / "policies" / "schema" / "memguard-policy-v1.json").read_text())
    text = _hooks().policy_reference()
    for name in schema["$defs"]:
        assert f"## {name} {{ #{name} }}" in text
    for key in schema["properties"]:
        assert f"| `{key}` |" in text
