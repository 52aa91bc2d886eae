"""``python -m memguard.gateway --config FILE [--host] [--port] [--workers N] [--stdio]``."""

import typer

from memguard.gateway.cli import serve

if __name__ == "__main__":
    typer.run(serve)
