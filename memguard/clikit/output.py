"""Where a command's output goes: results on stdout, errors on stderr, JSON when asked for.

Under ``--json`` (or ``--format json``/``prov``) an error is a JSON document on stdout,
``{"error": {"code": CODE, "message": MESSAGE}}``, so a script reading stdout always gets JSON;
otherwise it is ``error: MESSAGE (CODE)`` on stderr.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import typer

from memguard.clikit.exits import Failure

__all__ = ["JSON_FORMATS", "emit", "json_in_args", "report", "wants_json"]

#: ``--format`` values whose output is JSON (their errors are JSON too)
JSON_FORMATS = frozenset({"json", "prov"})


def wants_json(ctx: Any) -> bool:
    """Did the command line of ``ctx`` (a click context) ask for JSON output?"""
    for param in getattr(ctx.command, "params", ()):
        value = ctx.params.get(param.name) if param.name else None
        if "--json" in param.opts and value:
            return True
        if "--format" in param.opts and str(getattr(value, "value", value)) in JSON_FORMATS:
            return True
    return False


def json_in_args(args: Sequence[str]) -> bool:
    """The same question from raw arguments, for errors raised before they are parsed."""
    items = list(args)
    if "--json" in items:
        return True
    for i, item in enumerate(items):
        if item == "--format" and i + 1 < len(items) and items[i + 1] in JSON_FORMATS:
            return True
        if item.startswith("--format=") and item.partition("=")[2] in JSON_FORMATS:
            return True
    return False


def emit(data: object, as_json: bool, text: str) -> None:
    """A result: ``data`` as indented, key-sorted JSON, or ``text``; on stdout."""
    typer.echo(json.dumps(data, indent=2, sort_keys=True) if as_json else text)


def report(failure: Failure, *, as_json: bool) -> None:
    """Tell the user about a failure, as JSON on stdout or as a line on stderr."""
    if as_json:
        error = {"code": failure.code, "message": failure.message}
        typer.echo(json.dumps({"error": error}, indent=2, sort_keys=True))
    else:
        typer.echo(f"error: {failure.message} ({failure.code})", err=True)
