"""Embedders. :class:`HashEmbedder` is deterministic and offline: tests and the demo use it."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

__all__ = ["Embedder", "HashEmbedder"]

_WORD = re.compile(r"[\w']+", re.UNICODE)


class Embedder(Protocol):
    dimension: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class HashEmbedder:
    """Feature hashing of words and word pairs into a unit vector: similar wording, similar vectors.

    Not semantic; deterministic across processes and platforms (BLAKE2b, no Python ``hash``).
    """

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 8:
            raise ValueError("dimension must be at least 8")
        self.dimension = dimension

    def _vector(self, text: str) -> list[float]:
        words = _WORD.findall(text.lower())
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
        vec = np.zeros(self.dimension, dtype=np.float64)
        for feature in features or [""]:
            h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
            vec[h % self.dimension] += 1.0 if (h >> 63) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            norm = 1.0
        return [float(x) for x in vec / norm]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]
