"""No import cycles between the project's modules at module level.

A cycle hidden behind an import inside a function (``gateway.auth`` <-> ``gateway.responses`` once)
makes the import order matter and broke a fresh ``memguard policy validate`` before; shared parts go
into a module both sides import (``gateway.challenge``, ``policy.capability``). Imports under
``if TYPE_CHECKING:`` do not count. Imports inside functions (the CLI's lazy loading) are checked
too, apart from ``from memguard import __version__``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in [*ROOT.glob("memguard/**/*.py"), *ROOT.glob("adapters/**/*.py")]:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def _targets(mods: dict[str, Path], module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if mods[module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    out = []
    for name in names:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
    return out


def _imports(tree: ast.Module, lazy: bool) -> list[ast.Import | ast.ImportFrom]:
    out: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            version_only = isinstance(node, ast.ImportFrom) and node.module == "memguard" and [
                a.name for a in node.names] == ["__version__"]
            if not version_only:
                out.append(node)
        elif lazy or isinstance(node, ast.If | ast.Try):
            todo.extend(ast.iter_child_nodes(node))
    return out


def import_graph(lazy: bool = False) -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        for node in _imports(ast.parse(path.read_text("utf-8")), lazy):
            graph[module].update(_targets(mods, module, node))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_checker_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", ["memguard", "adapters"])
def test_no_module_level_import_cycles(package: str) -> None:
    graph = import_graph()
    assert any(m.startswith(package) for m in graph)
    assert [c for c in cycles(graph) if c[0].startswith(package)] == []



def test_no_import_cycles_through_imports_inside_functions() -> None:
    assert cycles(import_graph(lazy=True)) == []
