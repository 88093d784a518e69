"""The blast radius: a breadth-first search over predecessors from the targets, keeping
the class a subclass was reached through so a sibling's callers are not brought in."""

from __future__ import annotations

from typing import Iterable

from agentlint.explain.graph import Graph
from agentlint.explain.nodes import Edge, NodeRef

_INCOMPATIBLE = object()


def _narrow(graph: Graph, a: NodeRef | None, b: NodeRef | None):
    """The more specific of two class constraints, or _INCOMPATIBLE when unrelated."""
    if a is None:
        return b
    if b is None:
        return a
    if b in graph.ancestors(a):
        return a
    if a in graph.ancestors(b):
        return b
    return _INCOMPATIBLE


def _step(graph: Graph, constraint: NodeRef | None, node: NodeRef, edge: Edge, source: NodeRef | None = None) -> set:
    """The class constraints under which a predecessor is reached through ``edge``.

    A constraint says "``self`` is an instance of this class": it appears when a
    ``self.m()`` call in a base class is followed down to an override (the base method
    reaches the override only for instances of the subclass), and it rules out callers
    whose receiver is an unrelated class (a sibling subclass)."""
    out: set = set()
    if constraint is not None and source is not None and edge.kind in ("member", "constructs", "inherits"):
        # From a method up to its class, or from a base class down to a subclass: the
        # instance is still a `constraint`; a sibling subclass is not one.
        narrowed = _narrow(graph, constraint, source)
        return set() if narrowed is _INCOMPATIBLE else {narrowed}
    for tag, cls in edge.receivers:
        if tag == "dispatch":
            owner = (node[0], node[1].rpartition(".")[0])
            narrowed = _narrow(graph, constraint, owner)
            if narrowed is not _INCOMPATIBLE and narrowed is not None and source is not None:
                # `Base.summarize` calls `self.act()`, reaching the override `C.act` only
                # when `self` is a C; if C overrides `summarize` too, the base one never
                # runs on a C.
                method = source[1].rpartition(".")[2]
                if graph.kind(source) == "method" and graph.lookup_member(narrowed, method) not in ([source], []):
                    narrowed = _INCOMPATIBLE
        elif tag == "self":
            narrowed = _narrow(graph, constraint, cls)
            if narrowed is not _INCOMPATIBLE and narrowed == cls and constraint is None:
                narrowed = None
        elif tag == "type":
            narrowed = None if _narrow(graph, constraint, cls) is not _INCOMPATIBLE else _INCOMPATIBLE
        else:
            narrowed = None
        if narrowed is not _INCOMPATIBLE:
            out.add(narrowed)
    return out


def reverse_reach(graph: Graph, targets: Iterable[NodeRef], depth: int | None = None):
    """Breadth-first over predecessors from ``targets``: (networkx DiGraph of the nodes
    reached, {node: distance}). The search carries a class constraint through methods
    (see ``_step``), so a base-class method that calls an overridden method does not
    bring in the callers that use a sibling subclass."""
    import networkx as nx  # imported on use: 0.1-0.2 s that an answer without a graph search never pays

    out = nx.DiGraph()
    distance: dict[NodeRef, int] = {}
    seen: set = set()
    # (node, class constraint, member): `member` is the attribute or method a class was
    # reached from through a `member` link (`B.attr` unread, so `B` uses it); a subclass
    # that overrides it does not use `B.attr`, so `inherits` links to it are not followed.
    frontier: list[tuple[NodeRef, NodeRef | None, NodeRef | None]] = []
    for target in targets:
        if target not in distance:
            distance[target] = 0
            frontier.append((target, None, None))
            seen.add((target, None, None))
            out.add_node(target)
    level = 0
    while frontier and (depth is None or level < depth):
        level += 1
        following: list[tuple[NodeRef, NodeRef | None, NodeRef | None]] = []
        for node, constraint, member in frontier:
            for source, edge in graph.predecessors(node).items():
                if member is not None and edge.kind == "inherits":
                    if graph.lookup_member(source, member[1].rpartition(".")[2]) not in ([member], []):
                        continue  # the subclass has its own: it never uses this one
                states = _step(graph, constraint, node, edge, source)
                if not states:
                    continue
                out.add_edge(source, node, kind=edge.kind, lines=sorted(edge.lines))
                if source not in distance:
                    distance[source] = level
                if edge.kind in ("calls", "reads", "uses") and graph.kind(source) == "class":
                    # Code in a class body (bases, a metaclass, class-level statements)
                    # runs once, when the class is defined: whoever constructs the
                    # class later does not run it again. The class is a root here.
                    continue
                if edge.kind == "member":
                    carried = node
                elif edge.kind == "inherits":
                    carried = member
                else:
                    carried = None
                for state in states:
                    if (source, state, carried) not in seen:
                        seen.add((source, state, carried))
                        following.append((source, state, carried))
        frontier = following
    return out, distance
