"""Progress for long commands (verify, revoke, and later rebuild, rescan, adopt, eval).

``with progress("verifying the audit log", total=n) as bar: ... bar.advance()`` draws a rich
progress bar on stderr (a spinner with the elapsed time when ``total`` is unknown) and removes it
when done. It stays off when stderr is not a terminal and when the command was asked for JSON, so
pipes, scripts and CI logs get only the results; ``MEMGUARD_PROGRESS=1`` (or ``0``) forces it on
(or off).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ProgressBar", "progress", "progress_enabled"]


def progress_enabled() -> bool:
    """Whether a progress display would be drawn for the command running now."""
    forced = os.environ.get("MEMGUARD_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    from typer._click.globals import get_current_context

    from memguard.clikit.output import wants_json

    ctx = get_current_context(silent=True)
    if ctx is not None and wants_json(ctx):
        return False
    return sys.stderr.isatty()


class ProgressBar:
    """One task's progress; every method is a no-op when the display is off."""

    def __init__(self, bar: Any = None, task: Any = None) -> None:
        self._bar = bar
        self._task = task

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def advance(self, amount: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, amount)

    def update(self, *, description: str | None = None, total: int | None = None,
               completed: int | None = None) -> None:  # fmt: skip
        if self._bar is not None:
            self._bar.update(self._task, description=description, total=total,
                             completed=completed)  # fmt: skip


@contextmanager
def progress(
    description: str, *, total: int | None = None, enabled: bool | None = None
) -> Iterator[ProgressBar]:
    """A transient progress display on stderr for the duration of the ``with`` block."""
    if not (progress_enabled() if enabled is None else enabled):
        yield ProgressBar()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    forced = os.environ.get("MEMGUARD_PROGRESS") == "1"
    console = Console(stderr=True, force_terminal=True if forced else None)
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        bar.refresh()  # drawn at once, even if the work ends before the first timed refresh
        yield ProgressBar(bar, task)
