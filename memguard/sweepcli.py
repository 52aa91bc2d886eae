"""``memguard sweep``: delete the expired facts of an embedded state folder through the kernel's
``expire`` operation (:mod:`memguard.sweep`), as the local operator.

Exit codes (the table of every ``memguard`` command): 0 done (also when nothing was due, and for
``--dry-run``), 2 usage (no ledger in ``--state-dir``), 1 any other failure (the store or ledger
failed: what was tombstoned before it is never served again, and the next ``memguard sweep`` or
recovery finishes it). Results on stdout, errors on stderr (JSON on stdout under ``--json``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memguard.clikit import DEFAULT_STATE
from memguard.clikit.exits import CliError, ExitCode
from memguard.clikit.output import emit

__all__ = ["sweep_command"]


def sweep_command(
    state_dir: Annotated[
        Path, typer.Option("--state-dir", help="The state folder whose expired facts to delete.")
    ] = DEFAULT_STATE,
    ledger_url: Annotated[
        str | None,
        typer.Option("--ledger-url", help="A PostgreSQL ledger instead of STATE_DIR/ledger.db."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List the facts that would go; change nothing.")
    ] = False,
    batch: Annotated[
        int, typer.Option("--batch", min=1, max=10_000, help="Facts per expire operation.")
    ] = 256,
    as_json: Annotated[
        bool, typer.Option("--json", help="Machine-readable JSON on stdout.")
    ] = False,
) -> None:
    """Delete the facts whose latest ledger version has expired (a time-to-live set at write
    time): each batch is one audited `expire` operation (a tombstone, then the purge from the
    store). Facts another backend keeps on the same ledger are listed under `elsewhere` and left
    to that backend's sweep."""
    from memguard.cli import _operator
    from memguard.clikit.progress import progress
    from memguard.embedded import open_embedded

    if not (state_dir / "ledger.db").exists() and ledger_url is None:
        raise CliError(
            ExitCode.USAGE, "state.no_ledger", f"no ledger in `{state_dir}` (wrong --state-dir?)"
        )
    stack = open_embedded(state_dir, ledger_url=ledger_url, scan=False)
    try:
        with progress("sweeping expired facts", total=None) as bar:
            report = stack.guard.sweep_expired(
                operator=_operator(), dry_run=dry_run, batch=batch,
                on_batch=lambda n: bar.advance(n),
            )  # fmt: skip
    finally:
        stack.close()
    data = {"format": "memguard.sweep/v1", **report.as_json()}
    if dry_run:
        text = f"{len(report.due)} expired facts would be deleted (dry run)"
    else:
        text = f"deleted {len(report.deleted)} expired facts"
    lines = [text, *(f"  {f}" for f in (report.due if dry_run else report.deleted))]
    if report.elsewhere:
        lines.append(
            f"{len(report.elsewhere)} expired facts are kept by another backend (not touched)"
        )
    emit(data, as_json, "\n".join(lines))
