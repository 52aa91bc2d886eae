"""Store backends behind the :class:`~memguard.stores.base.MemoryStore` seam."""

from memguard.stores.base import Hit, MemoryStore, StoredPoint
from memguard.stores.memory import InMemoryStore
from memguard.stores.qdrant import QdrantStore

__all__ = ["Hit", "InMemoryStore", "MemoryStore", "QdrantStore", "StoredPoint"]
