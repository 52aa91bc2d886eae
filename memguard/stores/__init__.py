"""Store backends behind the :class:`~memguard.stores.base.MemoryStore` seam.

``QdrantStore`` and ``QdrantEdgeStore`` are imported on first use: qdrant-client takes about a second to import, which every
command that never touches Qdrant (``memguard policy``, ``memguard token``, ``memguard ledger``)
would otherwise pay.
"""

from typing import TYPE_CHECKING

from memguard.stores.base import Hit, MemoryStore, StoredPoint
from memguard.stores.memory import InMemoryStore

if TYPE_CHECKING:
    from memguard.stores.edge import QdrantEdgeStore
    from memguard.stores.qdrant import QdrantStore

__all__ = ["Hit", "InMemoryStore", "MemoryStore", "QdrantEdgeStore", "QdrantStore", "StoredPoint"]


def __getattr__(name: str) -> object:
    if name == "QdrantStore":
        from memguard.stores.qdrant import QdrantStore

        return QdrantStore
    if name == "QdrantEdgeStore":
        from memguard.stores.edge import QdrantEdgeStore

        return QdrantEdgeStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
