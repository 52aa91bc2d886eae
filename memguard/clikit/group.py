"""The click group behind ``memguard``: what every subcommand gets without asking for it.

- one error path: an exception raised by any command, at any depth, is mapped by
  :func:`~memguard.clikit.exits.classify` to its exit code and printed by
  :func:`~memguard.clikit.output.report` (JSON on stdout under ``--json``);
- usage errors exit 2, as JSON too when the command line has ``--json``;
- ``--state-dir``: a folder given on the command line that does not exist is a usage error,
  unless ``--init`` (added to every command that takes ``--state-dir``) asks to create it;
  commands listed in ``creates_state`` (the demo) create their folder themselves;
- lazy subcommands: a sub-app is imported only when it runs, so ``memguard --help`` imports
  only the command line itself (the help shows each lazy entry's one-line summary);

It is built on Typer's own group class, so Typer's help, completion and parsing stay as they are.
Typer 0.29 vendors click as ``typer._click``; the few names it does not re-export are imported
here and nowhere else.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, NamedTuple

import typer
from typer._click.core import ParameterSource
from typer._click.exceptions import ClickException
from typer.core import HAS_RICH, TyperCommand, TyperGroup

from memguard.clikit.exits import ExitCode, Failure, classify
from memguard.clikit.output import json_in_args, report, wants_json

__all__ = ["ConventionGroup", "LazySubcommand"]

_MARK = "_memguard_conventions"


class LazySubcommand(NamedTuple):
    """``target``: ``module:attribute`` (a :class:`typer.Typer` or a command function);
    ``summary``: the one line ``memguard --help`` shows without importing it."""

    target: str
    summary: str


def _init_option() -> Any:
    """A ``--init`` flag, built by Typer itself so it renders and parses like any other."""
    probe = typer.Typer()

    @probe.command()
    def _probe(
        init: Annotated[
            bool, typer.Option("--init", help="Create the --state-dir folder if it does not exist.")
        ] = False,
    ) -> None:
        """probe"""

    return typer.main.get_command(probe).params[0]


def _load(target: str, name: str) -> Any:
    module, _, attr = target.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    holder = typer.Typer(add_completion=False, rich_markup_mode="markdown")
    if isinstance(obj, typer.Typer):
        holder.add_typer(obj, name=name)
    else:
        holder.command(name)(obj)
    # with a holder the sub-app is built as `add_typer` builds it: no completion options of its own
    group: Any = typer.main.get_command(holder)
    return group.commands[name] if isinstance(group, TyperGroup) else group


def _check_state_dir(ctx: Any, param: Any, may_init: bool) -> None:
    """A ``--state-dir`` given on the command line (or in the environment) must be a folder that
    exists, unless ``--init`` creates it: a mistyped path is an error, never a new empty state
    with new keys. The default folder is left to the command (it says what it needs there)."""
    value = ctx.params.get(param.name)
    source = ctx.get_parameter_source(param.name)
    if value is None or source not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
        return
    path = Path(value)
    if path.is_dir():
        return
    if path.exists():
        raise typer.BadParameter(f"`{path}` is not a folder", ctx=ctx, param=param)
    if may_init and ctx.params.get("init"):
        path.mkdir(parents=True, exist_ok=True)
        return
    raise typer.BadParameter(
        f"`{path}` does not exist (pass --init to create it)", ctx=ctx, param=param
    )


def _conventions(command: Any, path: str, root: type[ConventionGroup]) -> Any:
    """Give ``command`` (and, for a group, everything under it) the conventions. Idempotent."""
    if command is None or getattr(command, _MARK, False):
        return command
    setattr(command, _MARK, True)
    if isinstance(command, TyperGroup):
        inner_get: Callable[[Any, str], Any] = command.get_command

        def get_command(ctx: Any, name: str) -> Any:
            return _conventions(inner_get(ctx, name), f"{path} {name}", root)

        command.get_command = get_command  # type: ignore[method-assign,assignment]
        return command
    state = next((p for p in command.params if "--state-dir" in p.opts), None)
    creates = path in root.creates_state
    may_init = state is not None and not creates
    if may_init and not any(p.name == "init" for p in command.params):
        command.params.append(_init_option())
    inner_invoke: Callable[[Any], Any] = command.invoke

    def invoke(ctx: Any) -> Any:
        as_json = wants_json(ctx)
        try:
            if state is not None and not creates:
                _check_state_dir(ctx, state, may_init)
            if may_init:
                ctx.params.pop("init", None)
            return inner_invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # click's own (usage errors, aborts): printed by the group's main
        except Exception as exc:
            if os.environ.get("MEMGUARD_DEBUG"):
                raise
            failure = classify(exc)
            report(failure, as_json=as_json)
            raise typer.Exit(failure.exit_code) from None

    command.invoke = invoke
    return command


class ConventionGroup(TyperGroup):
    """Typer's group with memguard's command-line conventions (see the module docstring)."""

    #: name -> where to import it from, and its one-line summary
    lazy_subcommands: ClassVar[dict[str, LazySubcommand]] = {}
    #: command paths (``"demo"``) that create their ``--state-dir`` themselves
    creates_state: ClassVar[frozenset[str]] = frozenset()

    def list_commands(self, ctx: Any) -> list[str]:
        eager = super().list_commands(ctx)
        return [*eager, *(n for n in self.lazy_subcommands if n not in eager)]

    def _ensure(self, name: str) -> None:
        spec = self.lazy_subcommands.get(name)
        if spec is not None and name not in self.commands:
            self.commands[name] = _load(spec.target, name)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if command is None:
            spec = self.lazy_subcommands.get(cmd_name)
            if spec is None:
                return None
            # listed in the help, not run: a summary stands in for the real command
            return TyperCommand(cmd_name, help=spec.summary, short_help=spec.summary)
        return _conventions(command, cmd_name, type(self))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args:
            self._ensure(args[0])
        return super().resolve_command(ctx, args)

    def load_all(self) -> None:
        """Import every lazy subcommand (for the generated CLI reference)."""
        for name in self.lazy_subcommands:
            self._ensure(name)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        try:
            rv = super().main(
                argv, prog_name, complete_var, standalone_mode=False,
                windows_expand_args=windows_expand_args, **extra,
            )  # fmt: skip
            code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
        except ClickException as exc:  # a usage error, or a file click could not open
            code = exc.exit_code
            if json_in_args(argv) and code == ExitCode.USAGE:
                report(Failure(ExitCode.USAGE, "usage", exc.format_message()), as_json=True)
            elif HAS_RICH and self.rich_markup_mode is not None:
                from typer import rich_utils

                rich_utils.rich_format_error(exc)
            else:
                exc.show()
        except typer.Abort:
            typer.echo("aborted", err=True)
            code = ExitCode.FAILURE
        if not standalone_mode:
            return code
        sys.exit(code)
