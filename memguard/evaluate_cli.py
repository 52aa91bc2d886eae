"""``memguard eval``: the command line of :mod:`memguard.evaluate` (registered lazily in cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.output import emit

__all__ = ["eval_command"]


def eval_command(
    corpus: Annotated[
        Path, typer.Argument(help="A JSONL corpus: one {id, label, text[, family]} per line.")
    ],
    policies: Annotated[
        Path,
        typer.Option("--policies", help="The policy folder or file to deploy (the reference "
                     "policies are the repository's policies/ folder)."),
    ] = Path("policies"),
    scan: Annotated[
        bool, typer.Option("--scan/--no-scan", help="Deploy the built-in content scanner.")
    ] = True,
    min_detection: Annotated[
        float, typer.Option("--min-detection", min=0.0, max=1.0, help="Required detection.")
    ] = 0.9,
    max_false_positives: Annotated[
        float,
        typer.Option("--max-false-positives", min=0.0, max=1.0, help="Allowed false positives."),
    ] = 0.02,
    searches: Annotated[
        int, typer.Option("--searches", min=0, max=10_000, help="Attack-shaped searches per purpose.")
    ] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")] = False,
) -> None:
    """Write a corpus of memory attacks through every untrusted channel and writer chain of a
    fresh embedded deployment and report trust per channel, scanner detection and false
    positives, attack facts reachable for tool_argument and planning, and render breakouts.

    Exits 7 when a guarantee fails (an attack reachable for an action, a breakout, detection or
    false positives past the thresholds), 3 on a bad corpus or policy."""
    from memguard.evaluate import CorpusError, load_corpus, render_table, run_eval
    from memguard.policy.resolver import PolicyResolver

    try:
        rows = load_corpus(corpus)
    except CorpusError as exc:
        raise CliError(ExitCode.INVALID, "invalid_input", str(exc)) from None
    if not policies.exists():
        raise CliError(ExitCode.USAGE, "usage", f"no policies at `{policies}` (see --policies)")
    resolver = PolicyResolver.from_path(policies)
    report = run_eval(
        rows, scope=resolver, scan=scan, min_detection=min_detection,
        max_false_positives=max_false_positives, searches=searches,
    )  # fmt: skip
    emit(report.as_json(), as_json, render_table(report))
    if report.failures():
        raise typer.Exit(ExitCode.TESTS_FAILED)
