"""The ``memguard`` command. Results go to stdout, operational errors to stderr.

Exit codes: 0 ok (audit: verified), 1 failure, 2 unknown fact id, 4 audit verification failed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from memguard.embedded import DEFAULT_STATE_DIR

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)

StateDir = Annotated[
    Path, typer.Option("--state-dir", help="Folder of the embedded ledger, store and keys.")
]


@app.callback()
def _setup() -> None:
    """memguard: provenance and scoped, fail-closed reads for agent memory."""
    import logging

    from memguard.logging import configure_json_logging

    configure_json_logging(logging.WARNING)


@app.command()
def demo(state_dir: StateDir = Path(DEFAULT_STATE_DIR) / "demo") -> None:
    """Run the end-to-end demo on the embedded defaults."""
    import logging

    from memguard.demo import run_demo
    from memguard.logging import configure_json_logging

    state_dir.mkdir(parents=True, exist_ok=True)
    with (state_dir / "operations.jsonl").open("a", encoding="utf-8") as log:
        configure_json_logging(logging.INFO, stream=log)
        code = run_demo(state_dir)
    typer.echo(f"operational log (structlog JSON lines): {state_dir / 'operations.jsonl'}")
    raise typer.Exit(code)


@app.command()
def audit(
    fact_id: Annotated[str, typer.Argument(help="The fact to audit.")],
    state_dir: StateDir = Path(DEFAULT_STATE_DIR) / "demo",
    as_json: Annotated[
        bool, typer.Option("--json", help="Stable JSON (memguard.audit/v1).")
    ] = False,
) -> None:
    """Show a fact's provenance, readers and verification result."""
    from memguard.audit import audit_fact, render_text
    from memguard.errors import FactNotFound, MemguardError
    from memguard.ledger import Ledger
    from memguard.stores.qdrant import QdrantStore

    if not (state_dir / "ledger.db").exists():
        typer.echo(f"error: no ledger in `{state_dir}`", err=True)
        raise typer.Exit(1)
    try:
        ledger = Ledger.sqlite(state_dir / "ledger.db")
        store = QdrantStore(path=str(state_dir / "qdrant"))
        try:
            report = audit_fact(ledger, store, fact_id)
        finally:
            store.close()
            ledger.close()
    except FactNotFound:
        typer.echo(f"error: unknown fact `{fact_id}`", err=True)
        raise typer.Exit(2) from None
    except MemguardError as exc:
        typer.echo(f"error: {exc} ({exc.code})", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        typer.echo(render_text(report))
    raise typer.Exit(0 if report["verification"]["verified"] else 4)


def main() -> None:
    app(prog_name="memguard")


if __name__ == "__main__":  # pragma: no cover
    main()
