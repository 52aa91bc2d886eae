"""Checks that an optional backend library is a version memguard supports."""

from __future__ import annotations

import re
from importlib import metadata

from memguard.errors import ConfigurationError

__all__ = ["require_version"]


def _release(version: str) -> tuple[int, ...]:
    match = re.match(r"(\d+(?:\.\d+)*)", version)
    if match is None:
        raise ConfigurationError(f"cannot parse version `{version}`")
    return tuple(int(part) for part in match.group(1).split("."))


def require_version(distribution: str, minimum: str, below: str) -> str:
    """Return the installed version of ``distribution``; raise if it is not in ``[minimum, below)``."""
    try:
        installed = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        raise ConfigurationError(
            f"`{distribution}` is not installed; memguard supports >={minimum},<{below}"
        ) from None
    if not _release(minimum) <= _release(installed) < _release(below):
        raise ConfigurationError(
            f"`{distribution}` {installed} is not supported; memguard supports >={minimum},<{below}"
        )
    return installed
