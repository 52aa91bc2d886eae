"""The lineage graph as server-rendered SVG: a layered drawing, no JavaScript needed to see it.

Layout (a small Sugiyama-style drawing, enough for lineage graphs of a few hundred nodes): each
node's column is its longest path from a root, so every link points right; within a column,
nodes are ordered by the mean position of their neighbours, a few sweeps each way, which keeps
crossings low. Every visible fact is an ``<a>`` to its page (keyboard-focusable, with an accessible
name); the audited fact has a thick outline, quarantined facts a red dashed frame and the word
QUARANTINED, withheld facts are grey and not links. Colours are presentation attributes (no inline
styles, so the page's Content-Security-Policy needs no ``unsafe-inline``).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from memguard.console.graph import (
    QUARANTINE_STROKE,
    TRUST_STYLE,
    WITHHELD_STYLE,
    LineageGraph,
    Node,
)

__all__ = ["render_svg"]

NODE_W, NODE_H = 240, 62
GAP_X, GAP_Y = 72, 22
PAD = 16
_SWEEPS = 4


def _columns(graph: LineageGraph) -> dict[str, int]:
    """Longest path from a root, for every node (links always point to a later column)."""
    parents: dict[str, list[str]] = {n.key: [] for n in graph.nodes}
    for link in graph.links:
        if link.child in parents and link.parent in parents:
            parents[link.child].append(link.parent)
    column: dict[str, int] = {}

    def depth(key: str, path: frozenset[str]) -> int:
        if key in column:
            return column[key]
        found = [depth(p, path | {key}) + 1 for p in parents[key] if p not in path]
        column[key] = max(found, default=0)
        return column[key]

    for node in graph.nodes:
        depth(node.key, frozenset())
    return column


def _order(graph: LineageGraph, column: dict[str, int]) -> list[list[str]]:
    """Nodes per column, ordered by the barycentre of their neighbours (down and up sweeps)."""
    width = max(column.values(), default=0) + 1
    layers: list[list[str]] = [[] for _ in range(width)]
    for node in graph.nodes:  # graph order: focus, ancestors, descendants (breadth first)
        layers[column[node.key]].append(node.key)
    up: dict[str, list[str]] = {}
    down: dict[str, list[str]] = {}
    for link in graph.links:
        up.setdefault(link.child, []).append(link.parent)
        down.setdefault(link.parent, []).append(link.child)

    def sweep(index: int, neighbours: dict[str, list[str]], ref: list[str]) -> None:
        pos = {key: i for i, key in enumerate(ref)}
        current = {key: i for i, key in enumerate(layers[index])}

        def centre(key: str) -> float:
            seen = [pos[n] for n in neighbours.get(key, []) if n in pos]
            return sum(seen) / len(seen) if seen else float(current[key])

        layers[index].sort(key=lambda k: (centre(k), current[k]))

    for _ in range(_SWEEPS):
        for i in range(1, width):
            sweep(i, up, layers[i - 1])
        for i in range(width - 2, -1, -1):
            sweep(i, down, layers[i + 1])
    return layers


def _node_svg(node: Node, x: int, y: int, href: Callable[[str], str]) -> str:
    fill, ink = TRUST_STYLE.get(node.trust or "", WITHHELD_STYLE)
    if node.withheld:
        fill, ink = WITHHELD_STYLE
    classes = ["node", node.role]
    if node.quarantined:
        classes.append("quarantined")
    if node.withheld:
        classes.append("withheld")
    stroke, width = ("#111827", 4) if node.role == "focus" else (ink if node.withheld else fill, 1)
    parts = [
        f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="8" fill="{fill}"'
        f' stroke="{stroke}" stroke-width="{width}"/>'
    ]
    if node.quarantined:
        parts.append(
            f'<rect x="{x - 5}" y="{y - 5}" width="{NODE_W + 10}" height="{NODE_H + 10}" rx="11"'
            f' fill="none" stroke="{QUARANTINE_STROKE}" stroke-width="3" stroke-dasharray="7 4"/>'
        )
    for i, line in enumerate(node.lines()):
        weight = ' font-weight="700"' if i == 0 or line == "QUARANTINED" else ""
        parts.append(
            f'<text x="{x + 12}" y="{y + 19 + 17 * i}" fill="{ink}" font-size="13"{weight}>'
            f"{escape(line)}</text>"
        )
    title = escape(node.title())
    body = "".join(parts)
    attrs = (
        f'class="{" ".join(classes)}" data-key="{escape(node.key)}" data-role="{node.role}"'
        f' data-trust="{escape(node.trust or "withheld")}"'
        f' data-quarantined="{"true" if node.quarantined else "false"}"'
    )
    if node.fact_id is None:
        return f'<g {attrs} aria-label="{title}"><title>{title}</title>{body}</g>'
    current = ' aria-current="page"' if node.role == "focus" else ""
    return (
        f'<a {attrs} data-fact-id="{escape(node.fact_id)}" href="{escape(href(node.fact_id))}"'
        f' aria-label="{title}"{current}><title>{title}</title>{body}</a>'
    )


def render_svg(graph: LineageGraph, href: Callable[[str], str]) -> str:
    """The ``<svg>`` element of ``graph``; ``href(fact_id)`` is the link of a fact's page."""
    column = _columns(graph)
    layers = _order(graph, column)
    tallest = max((len(layer) for layer in layers), default=1)
    height = PAD * 2 + tallest * NODE_H + (tallest - 1) * GAP_Y
    width = PAD * 2 + len(layers) * NODE_W + (len(layers) - 1) * GAP_X
    at: dict[str, tuple[int, int]] = {}
    for i, layer in enumerate(layers):
        top = PAD + (height - 2 * PAD - (len(layer) * NODE_H + (len(layer) - 1) * GAP_Y)) // 2
        for j, key in enumerate(layer):
            at[key] = (PAD + i * (NODE_W + GAP_X), top + j * (NODE_H + GAP_Y))
    edges = []
    for link in graph.links:
        if link.parent not in at or link.child not in at:
            continue
        (px, py), (cx, cy) = at[link.parent], at[link.child]
        x1, y1 = px + NODE_W, py + NODE_H // 2
        x2, y2 = cx - 7, cy + NODE_H // 2
        bend = max((x2 - x1) // 2, 24)
        dash = ' stroke-dasharray="6 4"' if link.kind == "context" else ""
        edges.append(
            f'<path class="edge {escape(link.kind)}" data-from="{escape(link.parent)}"'
            f' data-to="{escape(link.child)}" data-kind="{escape(link.kind)}"'
            f' d="M{x1},{y1} C{x1 + bend},{y1} {x2 - bend},{y2} {x2},{y2}" fill="none"'
            f' stroke="#374151" stroke-width="2"{dash} marker-end="url(#arrow)">'
            f"<title>{escape(link.kind)}</title></path>"
        )
    nodes = [_node_svg(graph.node(key), *at[key], href) for layer in layers for key in layer]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" id="lineage-graph" class="lineage"'
        f' viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
        f' data-width="{width}" data-height="{height}" role="group"'
        f' aria-label="lineage graph: {len(graph.nodes)} facts, {len(graph.links)} links"'
        f' font-family="system-ui, sans-serif">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"'
        ' markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"'
        ' fill="#374151"/></marker></defs>'
        f'<g class="edges">{"".join(edges)}</g><g class="nodes">{"".join(nodes)}</g></svg>'
    )
