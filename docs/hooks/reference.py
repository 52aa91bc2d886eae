"""MkDocs hook: the generated reference pages.

- ``reference/cli.md`` from the ``memguard`` typer app itself (every command, argument and option,
  and the exit-code table), so the page cannot drift from the command line;
- ``reference/policy.md`` from ``policies/schema/memguard-policy-v1.json``.

Both functions are plain and importable: tests/test_docs_snippets.py checks what they produce.
"""

from __future__ import annotations

import html
import inspect
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "policies" / "schema" / "memguard-policy-v1.json"

__all__ = ["cli_reference", "on_files", "policy_reference"]


# -- the command line ----------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _param_row(param: Any, ctx: Any) -> str:
    record = param.get_help_record(ctx)
    decl, help_text = record if record else (param.name, "")
    required = " (required)" if param.required else ""
    # raw <code>: a `|` inside a Markdown code span in a table cell would show its backslash
    code = html.escape(" ".join(decl.split())).replace("|", "&#124;")
    return f"| <code>{code}</code>{required} | {_cell(help_text)} |"


def _command(cmd: Any, ctx: Any, path: list[str], out: list[str]) -> None:
    level = "#" * min(len(path) + 1, 4)
    out.append(f"{level} `{' '.join(path)}`\n")
    help_text = inspect.cleandoc(cmd.help or "").partition("\f")[0]
    if help_text:
        out.append(help_text + "\n")
    if getattr(cmd, "epilog", None) and len(path) > 1:
        out.append(inspect.cleandoc(cmd.epilog) + "\n")
    usage = " ".join([*path, *cmd.collect_usage_pieces(ctx)])
    out.append(f"```text\n{usage}\n```\n")
    params = [p for p in cmd.params if p.name not in ("help",) and not getattr(p, "hidden", False)]
    if params:
        out.append("| parameter | description |")
        out.append("|---|---|")
        out.extend(_param_row(p, ctx) for p in params)
        out.append("")
    names = cmd.list_commands(ctx) if hasattr(cmd, "list_commands") else []
    for name in names:
        sub = cmd.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        sub_ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
        _command(sub, sub_ctx, [*path, name], out)


def cli_reference() -> str:
    """The CLI reference page, from the typer app."""
    import typer

    from memguard.cli import app
    from memguard.clikit.exits import EXIT_TABLE

    root: Any = typer.main.get_command(app)
    root.load_all()
    ctx = root.make_context("memguard", [], resilient_parsing=True)
    out = [
        "# Command line\n",
        "Generated from the `memguard` typer app when the site is built. Results go to stdout, "
        "operational errors to stderr; under `--json` an error is a JSON document on stdout, "
        '`{"error": {"code": ..., "message": ...}}`. A `--state-dir` given on the command line '
        "must exist unless `--init` is given (the demo creates its own). Progress bars appear "
        "on stderr only when it is a terminal and `--json` was not asked for "
        "(`MEMGUARD_PROGRESS=0|1` forces them). Shell completion: "
        "`memguard --install-completion`.\n",
        "## Exit codes\n",
        "Every subcommand uses the same table; no two outcomes share a code.\n",
        "| code | outcome |",
        "|---:|---|",
        *(f"| `{int(code)}` | {what} |" for code, what in EXIT_TABLE),
        "",
    ]
    _command(root, ctx, ["memguard"], out)
    return "\n".join(out) + "\n"


# -- the policy schema ------------------------------------------------------------------------------


def _summary(schema: dict[str, Any]) -> str:
    """A short description of a JSON Schema's shape, with links to the definitions."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name})"
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " or ".join(_summary(s) for s in schema[key])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array":
        text = f"array of {_summary(schema.get('items', {}))}"
        if "minItems" in schema:
            text += f" (at least {schema['minItems']})"
        return text
    if kind == "object" and "properties" in schema:
        return "object (" + ", ".join(f"`{k}`" for k in schema["properties"]) + ")"
    text = str(kind)
    if "pattern" in schema:
        text += f" matching `{schema['pattern']}`"
    if "minimum" in schema or "maximum" in schema:
        text += f" in {schema.get('minimum', '')}..{schema.get('maximum', '')}"
    return text


def _properties(schema: dict[str, Any], out: list[str]) -> None:
    required = set(schema.get("required", []))
    out.append("| key | required | value | description |")
    out.append("|---|---|---|---|")
    for key, sub in schema["properties"].items():
        out.append(f"| `{key}` | {'yes' if key in required else ''} | {_cell(_summary(sub))} | "
                   f"{_cell(sub.get('description', ''))} |")  # fmt: skip
    extra = schema.get("additionalProperties", True)
    out.append("")
    if extra is False:
        out.append("Any other key is a load error (with its file and line).\n")


def policy_reference(path: Path = SCHEMA) -> str:
    """The policy reference page, from the JSON Schema."""
    schema = json.loads(path.read_text("utf-8"))
    out = [
        "# Policy schema\n",
        f"Generated from `policies/schema/{path.name}` when the site is built. "
        f"{schema.get('description', '')}\n",
        "Explanations and examples: [Policies](../policy.md).\n",
        "## The file\n",
    ]
    _properties(schema, out)
    for name, sub in schema.get("$defs", {}).items():
        out.append(f'## {name} {{ #{name} }}\n')
        if sub.get("description"):
            out.append(sub["description"] + "\n")
        if "properties" in sub:
            _properties(sub, out)
        for key in ("oneOf", "anyOf"):
            if key in sub:
                out.append("One of:\n")
                for alt in sub[key]:
                    note = f" ({alt['description']})" if alt.get("description") else ""
                    out.append(f"- {_summary(alt)}{note}")
                    if "properties" in alt:
                        required = set(alt.get("required", []))
                        for k, v in alt["properties"].items():
                            req = " (required)" if k in required else ""
                            out.append(f"    - `{k}`{req}: {_summary(v)}")
                out.append("")
        if "enum" in sub:
            out.append(_summary(sub) + "\n")
    out.append("## The schema itself\n")
    out.append("??? note \"memguard-policy-v1.json\"\n")
    out.append("    ```json")
    out.extend(f"    {line}" for line in json.dumps(schema, indent=2).splitlines())
    out.append("    ```\n")
    return "\n".join(out) + "\n"


# -- the hook -----------------------------------------------------------------------------------------


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site (they exist in memory only)."""
    from mkdocs.structure.files import File

    for uri, content in (("reference/cli.md", cli_reference()),
                         ("reference/policy.md", policy_reference())):  # fmt: skip
        files.append(File.generated(config, uri, content=content))
    return files
