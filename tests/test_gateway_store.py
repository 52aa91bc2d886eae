"""The gateway's store selection: the embedded default is qdrant-edge where ``open_embedded`` keeps
it, a folder holding an older qdrant-client local store stays local mode, ``url`` is a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from memguard.errors import ConfigurationError
from memguard.gateway.config import GatewayConfig
from memguard.gateway.stack import _store_factory, embedded_location
from memguard.stores.edge import QdrantEdgeStore
from memguard.stores.qdrant import QdrantStore


def _config(tmp_path: Path, **store: object) -> GatewayConfig:
    return GatewayConfig.from_mapping({"state_dir": str(tmp_path / "state"), "store": store})


def test_the_default_is_the_edge_store_open_embedded_uses(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert embedded_location(config) == ("edge", tmp_path / "state" / "edge")
    store = _store_factory(config)()
    try:
        assert isinstance(store, QdrantEdgeStore)
        assert (tmp_path / "state" / "edge" / "shard" / "edge_config.json").exists()
    finally:
        store.close()


def test_a_path_is_an_edge_store_folder(tmp_path: Path) -> None:
    config = _config(tmp_path, path=str(tmp_path / "facts"))
    store = _store_factory(config)()
    try:
        assert isinstance(store, QdrantEdgeStore) and store.path == tmp_path / "facts"
    finally:
        store.close()


def test_a_folder_with_a_local_mode_store_keeps_it_unless_told(tmp_path: Path) -> None:
    old = QdrantStore(path=str(tmp_path / "facts"), collection="memguard_facts", dimension=384,
                      partition_by_owner=True)  # fmt: skip
    old.close()
    config = _config(tmp_path, path=str(tmp_path / "facts"))
    assert embedded_location(config)[0] == "local"
    store = _store_factory(config)()
    try:
        assert isinstance(store, QdrantStore)
    finally:
        store.close()
    told = _config(tmp_path, path=str(tmp_path / "other"), engine="local")
    assert embedded_location(told) == ("local", tmp_path / "other")
    # a state folder made before qdrant-edge was the default keeps its local store too
    (tmp_path / "state" / "qdrant").mkdir(parents=True)
    assert embedded_location(_config(tmp_path))[0] == "local"


def test_engine_is_for_an_embedded_store_only(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        _config(tmp_path, url="http://127.0.0.1:6333", engine="edge")
    with pytest.raises(ConfigurationError):
        _config(tmp_path, engine="sqlite")
