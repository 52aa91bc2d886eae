"""docs/deploy.md and the Dockerfile say what is true: the example configuration loads, the image
installs extras that exist and starts a command with options that exist, its health check asks a
path the gateway serves. (The image itself is not built here: no container engine.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from memguard.gateway.config import GatewayConfig

ROOT = Path(__file__).resolve().parent.parent


def _yaml_blocks(page: Path) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", page.read_text("utf-8"), flags=re.S)


def test_the_deployment_configuration_loads() -> None:
    (block,) = [b for b in _yaml_blocks(ROOT / "docs" / "deploy.md") if "version: 1" in b]
    config = GatewayConfig.from_mapping(yaml.safe_load(block), where="docs/deploy.md")
    assert config.limits.storage.startswith("redis://")
    assert config.server.tls is not None and config.server.tls.client_cert == "required"
    assert config.resource == "https://memory.example.com"
    assert config.metrics.listen == "0.0.0.0:9464"


def test_the_dockerfile_installs_what_exists_and_runs_memguard_serve() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    extras = re.search(r"\.whl\)\[([a-z,]+)\]", dockerfile)
    assert extras is not None
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert set(extras.group(1).split(",")) <= set(project["optional-dependencies"])
    assert re.search(r'ENTRYPOINT \["memguard", "serve"\]', dockerfile)
    assert project["scripts"]["memguard"] == "memguard.cli:main"
    assert '"--config"' in dockerfile
    assert "EXPOSE 8700 9464" in dockerfile and GatewayConfig().server.port == 8700
    assert "/healthz" in dockerfile

    import inspect

    from memguard.gateway.cli import serve

    assert "config" in inspect.signature(serve).parameters
