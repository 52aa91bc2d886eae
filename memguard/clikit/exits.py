"""The ``memguard`` command's exit codes, and the one mapping from an error to its code.

Every outcome has its own code, whatever the subcommand::

    code  name            outcome
    0     OK              done; allow; valid; verified; every policy test passed
    1     FAILURE         operational failure: the store or ledger failed, a file could not be
                          read or written, an unexpected error
    2     USAGE           the command line is wrong: unknown option, missing or bad argument,
                          a --state-dir that does not exist (without --init) or holds no ledger
    3     INVALID         invalid input, policy or configuration: a policy that does not load, a
                          malformed request, an identity or gateway configuration error
    4     VERIFY_FAILED   verification failed: tampered audit log, a digest or store copy that no
                          longer matches, a proof that does not verify
    5     DENIED          a deny: the policy denied, a token or identity was refused, access denied
    6     NOT_FOUND       the fact or event named does not exist (or is not visible to the caller)
    7     TESTS_FAILED    policy tests ran and at least one case did not pass
    130   INTERRUPTED     interrupted (Ctrl-C)

Commands raise; they do not pick numbers. :func:`classify` maps any exception to its code, its
stable machine-readable ``code`` (the ``.code`` of a :class:`~memguard.errors.MemguardError`) and
its message; :mod:`memguard.clikit.group` prints it (``{"error": {"code", "message"}}`` on stdout
under ``--json``, ``error: MESSAGE (CODE)`` on stderr otherwise) and exits with it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["EXIT_TABLE", "CliError", "ExitCode", "Failure", "classify"]


class ExitCode(enum.IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2
    INVALID = 3
    VERIFY_FAILED = 4
    DENIED = 5
    NOT_FOUND = 6
    TESTS_FAILED = 7
    INTERRUPTED = 130


#: ``(code, outcome)`` for every exit code: the documented table (``memguard --help``, the docs).
EXIT_TABLE: tuple[tuple[ExitCode, str], ...] = (
    (ExitCode.OK, "done; allow; valid; verified; every policy test passed"),
    (ExitCode.FAILURE, "operational failure (store, ledger, file system, unexpected error)"),
    (ExitCode.USAGE, "usage error (bad option or argument, a missing --state-dir without --init)"),
    (ExitCode.INVALID, "invalid input, policy or configuration"),
    (ExitCode.VERIFY_FAILED, "verification failed (tampering, digest or proof mismatch)"),
    (ExitCode.DENIED, "denied (policy deny, refused token or identity, access denied)"),
    (ExitCode.NOT_FOUND, "not found (unknown fact or event id, or not visible)"),
    (ExitCode.TESTS_FAILED, "policy tests ran and a case failed"),
    (ExitCode.INTERRUPTED, "interrupted"),
)


class CliError(Exception):
    """An outcome a command reports itself: an exit code, a stable ``code`` and a message."""

    def __init__(self, exit_code: ExitCode, code: str, message: str) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Failure:
    """What the user is told about an exception, and the process's exit code."""

    exit_code: ExitCode
    code: str
    message: str


def classify(exc: BaseException) -> Failure:
    """The one mapping from an exception to an exit code, a stable code and a message."""
    from memguard.errors import (
        AccessDenied,
        ConfigurationError,
        FactNotFound,
        IdentityError,
        IntegrityError,
        InvalidRequest,
        MemguardError,
    )

    if isinstance(exc, CliError):
        return Failure(exc.exit_code, exc.code, exc.message)
    if isinstance(exc, KeyboardInterrupt):
        return Failure(ExitCode.INTERRUPTED, "interrupted", "interrupted")
    if isinstance(exc, MemguardError):
        exit_code = (
            ExitCode.NOT_FOUND if isinstance(exc, FactNotFound)
            else ExitCode.DENIED if isinstance(exc, IdentityError | AccessDenied)
            else ExitCode.INVALID if isinstance(exc, ConfigurationError | InvalidRequest)
            else ExitCode.VERIFY_FAILED if isinstance(exc, IntegrityError)
            else ExitCode.FAILURE
        )  # fmt: skip
        return Failure(exit_code, exc.code, str(exc))
    if isinstance(exc, OSError):
        where = f" `{exc.filename}`" if exc.filename else ""
        return Failure(ExitCode.FAILURE, "os_error", f"{exc.strerror or type(exc).__name__}{where}")
    return Failure(ExitCode.FAILURE, "unexpected", f"unexpected {type(exc).__name__}: {exc}")
