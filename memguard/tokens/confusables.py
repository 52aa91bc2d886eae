"""Flag principals whose subject looks like an existing principal's (UTS #39 skeletons). Optional.

:func:`memguard.identity.check_identifier` refuses what NFKC changes (fullwidth letters,
ligatures); confusables that NFKC leaves alone -- Cyrillic ``a`` (U+0430) for Latin ``a``, ``1`` for ``l``,
``rn`` for ``m`` -- are different subjects, isolated from each other like any two principals. This
watch tells an operator when one appears: it computes the UTS #39 skeleton (Unicode Technical
Standard #39, section 4: "two strings X and Y are confusable if skeleton(X) = skeleton(Y)") of each
new subject with ICU's spoof checker, and when the skeleton equals that of an existing principal
with another subject, the guard records an ``alarm`` event ``identity.confusable`` naming both. It
flags and never refuses: the lookalike is verified by its issuer, and owns nothing of the other.

ICU comes from PyICU (``pip install 'memguard-provenance[confusables]'``, which installs the
``pyicu-wheels`` build with ICU bundled); without it, asking for the watch is a
:class:`~memguard.errors.ConfigurationError`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from memguard.errors import ConfigurationError

__all__ = ["ConfusableWatch"]

Name = tuple[str, str]  # (issuer, subject)


def _spoof_checker() -> Any:
    try:
        import icu  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        raise ConfigurationError(
            "confusable flagging needs PyICU: install `memguard-provenance[confusables]`"
        ) from None
    return icu.SpoofChecker()


class ConfusableWatch:
    """The skeletons of the principals seen so far; :meth:`observe` returns a new one's lookalikes."""

    def __init__(self, known: Iterable[Name] = ()) -> None:
        self._checker = _spoof_checker()
        self._lock = threading.Lock()
        self._seen: set[Name] = set()
        self._by_skeleton: dict[str, set[Name]] = {}
        for name in known:
            self._add(name, self.skeleton(name[1]))

    def skeleton(self, subject: str) -> str:
        """UTS #39 ``skeleton(subject)`` (ICU's spoof checker)."""
        return str(self._checker.getSkeleton(0, subject))

    def _add(self, name: Name, skeleton: str) -> None:
        self._seen.add(name)
        self._by_skeleton.setdefault(skeleton, set()).add(name)

    def observe(self, issuer: str, subject: str) -> list[Name]:
        """Record a principal; the existing principals with its skeleton and another subject."""
        name = (issuer, subject)
        with self._lock:
            if name in self._seen:
                return []
        skeleton = self.skeleton(subject)
        with self._lock:
            lookalikes = sorted(n for n in self._by_skeleton.get(skeleton, ()) if n[1] != subject)
            self._add(name, skeleton)
        return lookalikes
