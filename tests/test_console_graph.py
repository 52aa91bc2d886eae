"""The lineage graph: nodes and links both ways, other owners' facts withheld (fail closed), its
DOT, Mermaid and SVG renderings, the layout's direction, and the trust colours' contrast."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from console_helpers import World, world

from memguard.console.graph import (
    TRUST_STYLE,
    WITHHELD_STYLE,
    LineageGraph,
    Link,
    Node,
    lineage_graph,
    to_dot,
    to_mermaid,
)
from memguard.console.svg import NODE_W, render_svg
from memguard.ledger import LedgerRecord


def _owner(name: str) -> Any:
    return lambda record: record.provenance.owner.subject == name


@pytest.fixture
def w(tmp_path: Path) -> Any:
    with world(tmp_path) as built:
        yield built


def test_ancestors_descendants_and_links(w: World) -> None:
    graph = lineage_graph(w.guard.ledger, w.a_page)
    roles = {n.key: n.role for n in graph.nodes}
    assert roles[w.a_page] == "focus"
    assert {roles[w.a_summary], roles[w.a_mixed], roles[w.b_after]} == {"descendant"}
    links = {(x.parent, x.child, x.kind) for x in graph.links}
    assert (w.a_page, w.a_summary, "derived") in links
    assert (w.a_page, w.b_after, "context") in links and (w.a_page, w.a_mixed, "context") in links
    up = lineage_graph(w.guard.ledger, w.a_mixed)
    assert {n.key for n in up.nodes if n.role == "ancestor"} == {w.a_page, w.b_shared}
    assert not up.truncated and up.withheld_count == 0


def test_other_owners_are_withheld_without_ids(w: World) -> None:
    graph = lineage_graph(w.guard.ledger, w.a_page, visible=_owner("alice"))
    withheld = [n for n in graph.nodes if n.withheld]
    assert len(withheld) == 1 and withheld[0].role == "descendant"
    assert withheld[0].key.startswith("withheld-") and withheld[0].trust is None
    text = repr(graph) + to_dot(graph) + to_mermaid(graph) + render_svg(graph, lambda f: f"/f/{f}")
    assert w.b_after not in text and "Bob" not in text
    # the link to the withheld fact is kept: the shape of the lineage stays honest
    assert any(x.child == withheld[0].key for x in graph.links)


def test_a_failing_scope_check_withholds(w: World) -> None:
    def broken(record: LedgerRecord) -> bool:
        raise RuntimeError("policy engine down")

    graph = lineage_graph(w.guard.ledger, w.a_page, visible=broken)
    assert [n.fact_id for n in graph.nodes if not n.withheld] == [w.a_page]


def test_cut_at_max_nodes(w: World) -> None:
    graph = lineage_graph(w.guard.ledger, w.a_page, max_nodes=2)
    assert graph.truncated and len(graph.nodes) == 2


def test_dot_and_mermaid_escape_labels() -> None:
    evil = 'x" -> "y"; label="pwned'
    graph = LineageGraph(
        focus="f1",
        nodes=(Node(key="f1", role="focus", fact_id="f1", trust="web", source_kind="web",
                    source=evil, quarantined=True),
               Node(key="f2", role="descendant", fact_id="f2", trust="untrusted",
                    source_kind="<script>")),
        links=(Link("f1", "f2", "derived"),),
    )  # fmt: skip
    dot = to_dot(graph)
    assert '  "f1" -> "f2" [label="derived"];' in dot
    assert 'x\\" -> \\"y\\"; label=\\"pwned' in dot  # inside the quoted label, escaped
    assert sum(line.startswith('  "') and "] ;" not in line for line in dot.splitlines()) == 3
    mermaid = to_mermaid(graph)
    assert "<script>" not in mermaid and "#lt;script#gt;" in mermaid
    svg = render_svg(graph, lambda f: f"/facts/{f}")
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_svg_nodes_links_and_layout(w: World) -> None:
    graph = lineage_graph(w.guard.ledger, w.a_mixed, visible=_owner("alice"))
    svg = render_svg(graph, lambda f: f"/facts/{f}")
    nodes = re.findall(r'<(a|g) class="node ([a-z ]+)" data-key="([^"]+)"', svg)
    assert len(nodes) == len(graph.nodes) == 3
    assert sum(kind == "a" for kind, _, _ in nodes) == 2  # the withheld node is not a link
    assert f'href="/facts/{w.a_page}"' in svg and 'aria-current="page"' in svg
    xs = {key: int(x) for key, x in re.findall(r'data-key="([^"]+)"[^>]*>(?:<title>[^<]*</title>)?'
                                               r'<rect x="(\d+)"', svg)}  # fmt: skip
    for link in graph.links:  # every link points right: parents in an earlier column
        assert xs[link.parent] + NODE_W <= xs[link.child], link
    edges = re.findall(r'data-from="([^"]+)" data-to="([^"]+)"', svg)
    assert sorted(edges) == sorted((x.parent, x.child) for x in graph.links)


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """The WCAG 2.x contrast ratio of two #rrggbb colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_trust_colours_meet_wcag_aa() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    for level, (fill, ink) in {**TRUST_STYLE, "withheld": WITHHELD_STYLE}.items():
        assert contrast(fill, ink) >= 4.5, level
