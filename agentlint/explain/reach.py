"""The blast radius: a breadth-first search over predecessors from the targets, keeping
the class a subclass was reached through so a sibling's callers are not brought in."""

from __future__ import annotations

from typing import Iterable

from agentlint.explain.graph import Graph
from agentlint.explain.kinds import is_root, is_test
from agentlint.explain.nodes import DiGraph, Edge, NodeRef

_INCOMPATIBLE = object()
_NAMES = ("field", "keyed", "via")


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
    tags = edge.receivers
    if any(tag not in _NAMES for tag, _cls in tags):
        # A field read or a key condition says what is read, not who holds the object.
        tags = {(tag, cls) for tag, cls in tags if tag not in _NAMES}
    for tag, cls in tags:
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
        elif tag == "exact":
            # Made as exactly that class: it is a `constraint` only if that class is one.
            narrowed = None if constraint is None or constraint in graph.ancestors(cls) else _INCOMPATIBLE
        elif tag == "holder":
            # `super().__init__(agent)` in C keeps the value in an attribute of the base
            # class: who reads it reads it from a C.
            narrowed = _narrow(graph, constraint, cls)
        else:
            narrowed = None
        if narrowed is not _INCOMPATIBLE:
            out.add(narrowed)
    return out


def _other_field(edge: Edge, member: NodeRef) -> bool:
    """Does the edge only read other fields than ``member`` of what it reads
    (`config.llm.model` when the search is about `LLMConfig.api_key`)?"""
    name = member[1].rpartition(".")[2]
    others = [(tag, cls) for tag, cls in edge.receivers if tag != "self"]
    fields = [cls for tag, cls in others if tag == "field"]
    return bool(fields) and len(fields) == len(others) and name not in fields


def reverse_reach(graph: Graph, targets: Iterable[NodeRef], depth: int | None = None):
    """Breadth-first over predecessors from ``targets``: (DiGraph of the nodes
    reached, {node: distance}). The search carries a class constraint through methods
    (see ``_step``), so a base-class method that calls an overridden method does not
    bring in the callers that use a sibling subclass.

    The search stops at roots: entry points (a route handler, a CLI command, a
    `__main__` block) and tools (the framework calls them): only the tests that use them
    directly are added above them."""
    out = DiGraph()
    distance: dict[NodeRef, int] = {}
    seen: set = set()
    # (node, class constraint, member, holder): `member` is the attribute or method a
    # class was reached from through a `member` link (`B.attr` unread, so `B` uses it); a
    # subclass that overrides it does not use `B.attr`, so `inherits` links to it are not
    # followed. `holder`: a variable or attribute reached because its value is made by
    # what was reached (`self.coder = get_coder()`), holding an object of the project:
    # who reads it uses that object, and its methods are followed where they lead, so
    # its readers are not all brought in.
    # `keys`: the node reads what led here only for some values of a parameter (a table
    # looked up by it: `{"reviewer": REVIEW_PROMPT}[role]`); a caller passing another
    # constant for it is not followed.
    frontier: list[tuple] = []
    for target in targets:
        if target not in distance:
            distance[target] = 0
            frontier.append((target, None, None, False, None))
            seen.add((target, None, None, False, None))
            out.add_node(target)
    level = 0
    targets_set = set(distance)
    while frontier and (depth is None or level < depth):
        level += 1
        following: list[tuple] = []
        for node, constraint, member, holder, keys in frontier:
            root = node not in targets_set and is_root(graph, node)
            for source, edge in graph.predecessors(node).items():
                if root and not is_test(graph, source):
                    continue
                if holder and edge.kind in ("reads", "uses"):
                    continue
                if keys and edge.kind == "calls":
                    edge = graph.keyed_edge(source, node, edge, keys)
                    if edge is None:
                        continue  # passes another key: never reads what led here
                if member is not None and edge.kind == "inherits":
                    if graph.lookup_member(source, member[1].rpartition(".")[2]) not in ([member], []):
                        continue  # the subclass has its own: it never uses this one
                if member is not None and edge.kind == "reads" and _other_field(edge, member):
                    continue  # reads another field of the object that holds `member`
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
                elif edge.kind == "calls" and graph.kind(node) == "class" and graph.kind(source) in ("variable", "attribute"):
                    # `llm = LLMConfig()` holds the class whose unread `member` led here:
                    # its readers that read other fields of it do not use `member`.
                    carried = member
                else:
                    carried = None
                held = (
                    carried is None
                    and edge.kind == "calls"
                    and graph.kind(source) in ("variable", "attribute")
                    and graph.kind(node) in ("function", "method", "class")
                    and graph.holds_objects(source)
                )
                conditions = [cls for tag, cls in edge.receivers if tag == "keyed"]
                keyed = frozenset(conditions) if conditions and len(conditions) == len(edge.receivers) else None
                for state in states:
                    if (source, state, carried, held, keyed) not in seen:
                        seen.add((source, state, carried, held, keyed))
                        following.append((source, state, carried, held, keyed))
        frontier = following
    return out, distance
