"""Build tests/scan/holdout9.jsonl, the ninth blind scanner corpus (issue 17).

(Family list and isolation statement: see the FAMILIES section below.)
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
OUT = HERE / "holdout9.jsonl"
ATTACK_MODULES = (
    "holdout9_attacks_a",
    "holdout9_attacks_b",
    "holdout9_attacks_c",
    "holdout9_attacks_d",
)
BENIGN_MODULES = ("holdout9_benign_a", "holdout9_benign_b", "holdout9_benign_c")
KEYS = ("id", "label", "family", "technique", "language", "text")

Row = tuple[str, str, str, str]


def _load(name: str) -> ModuleType:
    path = HERE / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_holdout9_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(names: tuple[str, ...]) -> list[Row]:
    rows: list[Row] = []
    for name in names:
        rows.extend(_load(name).ROWS)
    return rows


def records() -> list[dict[str, str]]:
    """Every row in file order: attacks h9-a001.., then benign h9-b001.."""
    out: list[dict[str, str]] = []
    for label, prefix, rows in (
        ("attack", "a", _rows(ATTACK_MODULES)),
        ("benign", "b", _rows(BENIGN_MODULES)),
    ):
        for n, (family, technique, language, text) in enumerate(rows, start=1):
            out.append(
                {
                    "id": f"h9-{prefix}{n:03d}",
                    "label": label,
                    "family": family,
                    "technique": technique,
                    "language": language,
                    "text": text,
                }
            )
    return out


def render() -> bytes:
    """The corpus as JSONL bytes; the same bytes on every run."""
    recs = records()
    texts = [r["text"] for r in recs]
    if len(set(texts)) != len(texts):
        raise ValueError("duplicate text in holdout9 rows")
    lines = [json.dumps({k: r[k] for k in KEYS}, ensure_ascii=False) for r in recs]
    return ("\n".join(lines) + "\n").encode("utf-8")


def main() -> int:
    OUT.write_bytes(render())
    print(f"wrote {OUT.name}: {len(records())} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
