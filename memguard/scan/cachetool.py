"""``python -m memguard.scan.cachetool DIR``: write the built-in rules' table cache file to ``DIR``.

For a file shipped with the package (:mod:`memguard.scan.rulecache` reads the package's directory
first and never writes it at run time): run it, as the owner of the installed package, with the
package's directory once memguard is installed (the Dockerfile does), so that every process
started from that installation skips the rule analysis.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memguard.scan import rulecache
from memguard.scan.builtin import PATTERNS
from memguard.scan.match import cacheable
from memguard.scan.prefilter import PrefilteredRuleSet

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m memguard.scan.cachetool DIR", file=sys.stderr)
        return 2
    patterns_key = rulecache.key(PATTERNS)
    if patterns_key is None:
        print("the scanner's source cannot be read: no cache", file=sys.stderr)
        return 1
    tables = cacheable(PATTERNS)
    PrefilteredRuleSet(PATTERNS, tables=tables)  # adds the prefilter's compiled databases (hsmatch)
    written = rulecache.write(Path(args[0]), patterns_key, tables)
    print(written if written is not None else "not written")
    return 0 if written is not None else 1


if __name__ == "__main__":
    raise SystemExit(main())
