"""The wheel ships every package: pyproject lists packages explicitly (``adapters/`` installs as
``memguard.adapters``), so a new sub-package that is not listed would import in an editable checkout
and be missing from a real install. Package data globs must match files that exist."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]


def _package_name(directory: Path) -> str:
    parts = directory.relative_to(ROOT).parts
    return ".".join(("memguard", "adapters", *parts[1:]) if parts[0] == "adapters" else parts)


def test_every_package_on_disk_is_listed_and_mapped() -> None:
    on_disk = {_package_name(p.parent) for top in ("memguard", "adapters")
               for p in (ROOT / top).rglob("__init__.py")}
    assert set(SETUP["packages"]) == on_disk
    for name, where in SETUP["package-dir"].items():
        assert (ROOT / where / "__init__.py").is_file(), name
        assert _package_name(ROOT / where) == name


def test_package_data_globs_match_files() -> None:
    for package, globs in SETUP["package-data"].items():
        base = ROOT / SETUP["package-dir"].get(package, package.replace(".", "/"))
        for pattern in globs:
            assert list(base.glob(pattern)), f"{package}: {pattern} matches nothing"
