"""The lineage graph of one fact: its ancestors up to the roots and its descendants, as nodes and
links, and its Graphviz DOT and Mermaid renderings (``memguard audit FACT --format dot|mermaid``).

The audit console draws the same graph as server-rendered SVG (:mod:`memguard.console.svg`).
A fact outside the viewer's scope (``visible`` says no) is a *withheld* node: it keeps its place
and its links, so the shape of the lineage is honest, but carries no id, text or label.
Links point the way information flowed: from a parent to the fact written from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from memguard.ledger import Ledger, LedgerRecord

__all__ = [
    "TRUST_STYLE",
    "LineageGraph",
    "Link",
    "Node",
    "lineage_graph",
    "to_dot",
    "to_mermaid",
]

#: Fill and text colour per trust level (WCAG AA: every pair has a contrast ratio of at least
#: 4.5:1, checked by tests/test_console_graph.py); the trust is also written in each node, so
#: colour is never the only signal.
TRUST_STYLE: dict[str, tuple[str, str]] = {
    "system": ("#1e40af", "#ffffff"),
    "verified": ("#065f46", "#ffffff"),
    "user": ("#166534", "#ffffff"),
    "derived": ("#5b21b6", "#ffffff"),
    "tool": ("#92400e", "#ffffff"),
    "untrusted": ("#991b1b", "#ffffff"),
    "quarantined": ("#1f2937", "#ffffff"),
}
WITHHELD_STYLE = ("#e5e7eb", "#111827")
QUARANTINE_STROKE = "#b91c1c"

Role = Literal["ancestor", "focus", "descendant"]


@dataclass(frozen=True, slots=True)
class Node:
    """One fact in the graph; a withheld node has ``fact_id`` ``None`` and no details."""

    key: str
    role: Role
    fact_id: str | None = None
    trust: str | None = None
    state: str | None = None
    quarantined: bool = False
    source_kind: str | None = None
    source: str | None = None
    session_id: str | None = None
    turn_index: int | None = None
    writer: str | None = None

    @property
    def withheld(self) -> bool:
        return self.fact_id is None

    @property
    def short(self) -> str:
        return self.fact_id[:8] if self.fact_id else "withheld"

    def lines(self) -> list[str]:
        """The text of the node's box, one entry per line."""
        if self.fact_id is None:
            return ["withheld", "outside your scope"]
        lines = [self.short, f"{self.trust} · {self.source_kind}"]
        if self.quarantined:
            lines.append("QUARANTINED")
        return lines

    def title(self) -> str:
        """A one-line description (tooltips, accessible names)."""
        if self.fact_id is None:
            return "a fact outside your scope (withheld)"
        parts = [
            f"fact {self.fact_id}",
            f"trust {self.trust}",
            f"source {self.source_kind} {self.source or ''}".rstrip(),
            f"turn {self.session_id}#{self.turn_index}",
            f"writer {self.writer}",
            f"state {self.state}",
        ]
        if self.quarantined:
            parts.append("quarantined")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Link:
    """``parent`` flowed into ``child``: ``derived`` (named in ``derived_from``) or ``context``
    (read in the same turn before the child was written)."""

    parent: str
    child: str
    kind: str


@dataclass(frozen=True, slots=True)
class LineageGraph:
    focus: str
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    #: the graph was cut at ``max_nodes``
    truncated: bool = False

    def node(self, key: str) -> Node:
        return next(n for n in self.nodes if n.key == key)

    @property
    def withheld_count(self) -> int:
        return sum(n.withheld for n in self.nodes)


def _node(key: str, role: Role, record: LedgerRecord | None) -> Node:
    if record is None:
        return Node(key=key, role=role)
    prov = record.provenance
    writer = " -> ".join([prov.writer.subject.subject, *(a.subject for a in prov.writer.actors)])
    return Node(
        key=key,
        role=role,
        fact_id=record.fact_id,
        trust=prov.trust.label,
        state=record.state.value,
        quarantined=record.quarantined,
        source_kind=prov.source.kind.value,
        source=prov.source.uri or prov.source.name,
        session_id=prov.turn.session_id,
        turn_index=prov.turn.turn_index,
        writer=writer,
    )


def lineage_graph(
    ledger: Ledger,
    fact_id: str,
    *,
    visible: Callable[[LedgerRecord], bool] | None = None,
    max_nodes: int = 150,
) -> LineageGraph:
    """The lineage graph around ``fact_id`` (which the caller has already found visible).

    ``visible``: which other facts the viewer may see (default: all, the local operator's view).
    At most ``max_nodes`` nodes: the nearest ancestors and descendants first.
    """
    links: dict[tuple[str, str], str] = {}
    ancestors: list[str] = []
    for edge in ledger.lineage.ancestry(fact_id):
        links.setdefault((edge.parent_id, edge.child_id), edge.kind)
        ancestors.append(edge.parent_id)
    ancestors = list(dict.fromkeys(a for a in ancestors if a != fact_id))
    budget = max(max_nodes - 1, 0)
    truncated = len(ancestors) > budget // 2 + budget % 2
    ancestors = ancestors[: budget // 2 + budget % 2]
    room = budget - len(ancestors)
    descendants: list[str] = []
    frontier, seen = [fact_id], {fact_id, *ancestors}
    while frontier and not truncated:
        nxt: list[str] = []
        for parent in frontier:
            for edge in ledger.lineage.children(parent):
                if edge.child_id not in seen:
                    if len(descendants) >= room:
                        truncated = True
                        break
                    seen.add(edge.child_id)
                    descendants.append(edge.child_id)
                    nxt.append(edge.child_id)
                links.setdefault((parent, edge.child_id), edge.kind)
            if truncated:
                break
        frontier = nxt
    ids = [fact_id, *ancestors, *descendants]
    records = ledger.latest(ids)
    keys: dict[str, str] = {}
    nodes: list[Node] = []
    withheld = 0
    for fid in ids:
        role: Role = (
            "focus" if fid == fact_id else "ancestor" if fid in set(ancestors) else "descendant"
        )
        record = records.get(fid)
        shown = fid == fact_id or (
            record is not None and (visible is None or _safe(visible, record))
        )
        if shown:
            keys[fid] = fid
            nodes.append(_node(fid, role, record))
        else:
            withheld += 1
            keys[fid] = f"withheld-{withheld}"
            nodes.append(Node(key=keys[fid], role=role))
    kept = [
        Link(keys[p], keys[c], kind)
        for (p, c), kind in sorted(links.items())
        if p in keys and c in keys
    ]
    return LineageGraph(focus=fact_id, nodes=tuple(nodes), links=tuple(kept), truncated=truncated)


def _safe(visible: Callable[[LedgerRecord], bool], record: LedgerRecord) -> bool:
    """A scope check that fails closed: an error withholds the fact."""
    try:
        return visible(record) is True
    except Exception:
        return False


# -- text renderings ---------------------------------------------------------------------------------


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: LineageGraph) -> str:
    """Graphviz DOT (``dot -Tsvg``): nodes filled by trust, quarantined ones with a red double
    border, the audited fact in bold, withheld ones grey."""
    out = [
        "digraph lineage {",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for n in graph.nodes:
        fill, ink = TRUST_STYLE.get(n.trust or "", WITHHELD_STYLE)
        attrs = [
            f"label={_dot_quote(chr(10).join(n.lines()))}",
            f"tooltip={_dot_quote(n.title())}",
            f'fillcolor="{fill}"',
            f'fontcolor="{ink}"',
        ]
        if n.quarantined:
            attrs += [f'color="{QUARANTINE_STROKE}"', "peripheries=2", "penwidth=2"]
        if n.role == "focus":
            attrs.append('style="rounded,filled,bold"')
        out.append(f"  {_dot_quote(n.key)} [{', '.join(attrs)}];")
    for link in graph.links:
        style = ", style=dashed" if link.kind == "context" else ""
        out.append(
            f"  {_dot_quote(link.parent)} -> {_dot_quote(link.child)}"
            f" [label={_dot_quote(link.kind)}{style}];"
        )
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_text(text: str) -> str:
    return (
        text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    )


def to_mermaid(graph: LineageGraph) -> str:
    """A Mermaid flowchart (renders in GitHub, GitLab and most Markdown viewers)."""
    ids = {n.key: f"n{i}" for i, n in enumerate(graph.nodes)}
    out = ["flowchart LR"]
    for n in graph.nodes:
        text = "<br/>".join(_mermaid_text(line) for line in n.lines())
        cls = "withheld" if n.withheld else (n.trust or "withheld")
        shape = f'(["{text}"])' if n.role == "focus" else f'["{text}"]'
        out.append(f"  {ids[n.key]}{shape}:::{cls}")
    for link in graph.links:
        arrow = "-.->" if link.kind == "context" else "-->"
        out.append(f"  {ids[link.parent]} {arrow}|{link.kind}| {ids[link.child]}")
    for trust, (fill, ink) in TRUST_STYLE.items():
        out.append(f"  classDef {trust} fill:{fill},color:{ink},stroke:{ink}")
    out.append(f"  classDef withheld fill:{WITHHELD_STYLE[0]},color:{WITHHELD_STYLE[1]}")
    for n in graph.nodes:
        if n.quarantined:
            out.append(
                f"  style {ids[n.key]} stroke:{QUARANTINE_STROKE},stroke-width:3px,"
                "stroke-dasharray:6 3"
            )
    return "\n".join(out) + "\n"
