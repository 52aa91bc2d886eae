"""Command-line conventions every ``memguard`` subcommand gets by construction.

- :mod:`.exits`: the exit-code table (no two outcomes share a code) and :func:`classify`, the one
  mapping from an exception to its code;
- :mod:`.output`: results on stdout, errors on stderr, ``{"error": {"code", "message"}}`` on
  stdout under ``--json``;
- :mod:`.group`: :class:`ConventionGroup`, the click group that applies both to every command,
  checks ``--state-dir`` (``--init`` creates it) and imports sub-apps lazily;
- :mod:`.progress`: a progress display for long commands that stays off for ``--json`` and when
  stderr is not a terminal.

A new subcommand raises :class:`~memguard.errors.MemguardError` (or :class:`CliError`) and prints
its result with :func:`emit`; it never picks an exit number itself.
"""

from pathlib import Path

from memguard.clikit.exits import EXIT_TABLE, CliError, ExitCode, classify
from memguard.clikit.output import emit

__all__ = ["DEFAULT_STATE", "EXIT_TABLE", "CliError", "ExitCode", "classify", "emit"]

#: The default of every ``--state-dir``: the demo's folder (``memguard.embedded``'s
#: ``DEFAULT_STATE_DIR`` / ``demo``, not imported from there to keep ``memguard --help`` light).
DEFAULT_STATE = Path(".memguard") / "demo"
