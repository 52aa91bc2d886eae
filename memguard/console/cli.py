"""``memguard console``: the audit console on a local state folder, served on 127.0.0.1 only."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from memguard.clikit import DEFAULT_STATE, CliError, ExitCode

__all__ = ["console"]


def console(
    state_dir: Annotated[
        Path, typer.Option("--state-dir", help="The state folder to look into (must exist).")
    ] = DEFAULT_STATE,
    ledger_url: Annotated[
        str | None,
        typer.Option("--ledger-url", help="A PostgreSQL ledger instead of STATE_DIR/ledger.db."),
    ] = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one).")
    ] = 0,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the sign-in link in the default browser.")
    ] = False,
) -> None:
    """Open the audit console (web pages on 127.0.0.1) on a state folder.

    Prints a one-time sign-in link; opening it lets you pick whose view to take (a principal of
    the state's local token service). Every page is scoped, policy-checked and audited as that
    principal. Stop with Ctrl-C. The console holds the embedded store while it runs."""
    import uvicorn

    from memguard.console.app import create_console_app
    from memguard.console.signin import LocalSignIn
    from memguard.embedded import open_embedded

    if ledger_url is None and not (state_dir / "ledger.db").exists():
        raise CliError(
            ExitCode.USAGE, "state.no_ledger", f"no ledger in `{state_dir}` (run `memguard demo`?)"
        )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))  # loopback only, whatever the port
    bound = int(sock.getsockname()[1])
    stack = open_embedded(state_dir, ledger_url=ledger_url)
    try:
        signin = LocalSignIn(stack.guard, stack.tokens, cookie_name=f"memguard_console_{bound}")
        app = create_console_app(stack.guard, signin, allowed_hosts=["127.0.0.1", "localhost"])
        url = f"http://127.0.0.1:{bound}{signin.sign_in_path()}"
        typer.echo(f"memguard console on {state_dir}\n  sign in (once): {url}\n  stop: Ctrl-C")
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        stack.close()
        sock.close()
