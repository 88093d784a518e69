"""What kind of place a node of the graph is: a tool, an agent, an entry point, a test.

The names come from ``knowledge.frameworks`` (the one place for framework knowledge); here they
are matched on the last segment of the resolved dotted name, so ``agents.function_tool``,
``@function_tool`` and ``@agent.tool`` all count: explain groups callers, it does not
judge them, so the looser match is the right one.
"""

from __future__ import annotations

from agentlint.explain.nodes import MAIN, MODULE, NodeRef
from agentlint.explain.resolve import Resolution
from agentlint.knowledge.frameworks import (
    AGENT_BASES,
    CLI_DECORATORS,
    FRAMEWORK_BASES,
    ROUTE_DECORATORS,
    TEST_DECORATORS,
)
from agentlint.knowledge.frameworks import AGENT_CONSTRUCTOR_NAMES as AGENT_CONSTRUCTORS
from agentlint.knowledge.frameworks import TOOL_BASE_NAMES as TOOL_BASES
from agentlint.knowledge.frameworks import TOOL_CONSTRUCTOR_NAMES as TOOL_CONSTRUCTORS
from agentlint.knowledge.frameworks import TOOL_DECORATOR_NAMES as TOOL_DECORATORS
from agentlint.knowledge.test_code import is_test_path

GROUPS = ("tools and agents", "entry points", "tests")
"""The groups an answer is sorted into; everything else is "other"."""


def _last(dotted: str) -> str:
    return dotted.rpartition(".")[2]


def _is_mock(decorator: str) -> bool:
    """`@mock.patch(...)`, `@unittest.mock.patch.object(...)`: a test double, not the
    HTTP verb of a route."""
    return decorator.startswith("unittest.") or "mock" in decorator.split(".")[:-1]


def _class_kind(graph: Resolution, ref: NodeRef, framework: bool = False) -> str | None:
    """"tool" or "agent" when the class is a framework's own (`Agent`) or derives (in
    the project or from outside) from a known base; with ``framework``, also
    "framework" for the other framework-driven bases."""
    if _last(ref[1]) in AGENT_CONSTRUCTORS or _last(ref[1]) in AGENT_BASES:
        return "agent"
    for cls in graph.ancestors(ref):
        definition = graph.definition(cls)
        if definition is None:
            continue
        for base in definition.bases:
            last = _last(base)
            if last in TOOL_BASES:
                return "tool"
            if last in AGENT_BASES:
                return "agent"
            if framework and last in FRAMEWORK_BASES:
                return "framework"
    return None


def framework_class(graph: Resolution, ref: NodeRef) -> bool:
    """A class whose methods its framework calls (a tool, an agent, a graph node)."""
    return _class_kind(graph, ref, framework=True) is not None


def labels(graph: Resolution, ref: NodeRef) -> list[tuple[str, str]]:
    """``classify``, once per node of a question."""
    known = graph.labels_memo.get(ref)
    if known is None:
        known = graph.labels_memo[ref] = classify(graph, ref)
    return known


_ROOT_WHY = ("tool (@", "tool class", "method of tool class", "route handler", "CLI command", "`if __name__")


def is_root(graph: Resolution, ref: NodeRef) -> bool:
    """Where the blast radius stops: an entry point the outside calls (a route handler,
    a CLI command, a `__main__` block) or a tool (its framework calls it); not a
    function merely named `main`, which the project's own code may call."""
    return any(why.startswith(_ROOT_WHY) for _group, why in labels(graph, ref))


def is_test(graph: Resolution, ref: NodeRef) -> bool:
    return any(group == "tests" for group, _why in labels(graph, ref))


def classify(graph: Resolution, ref: NodeRef) -> list[tuple[str, str]]:
    """[(group, why)] for a node; empty for an ordinary function."""
    number, name = ref
    path = graph.entries[number].path
    out: list[tuple[str, str]] = []
    if name == MAIN:
        return [("entry points", "`if __name__ == \"__main__\":` block")]
    if name == MODULE:
        return [("tests", "test module code")] if is_test_path(path) else []
    definition = graph.definition(ref)
    if definition is None:
        return out
    last = _last(name)
    if definition.kind in ("function", "method") and (last.startswith("test") or is_test_path(path)):
        out.append(("tests", "test" if last.startswith("test") else "in a test file"))
    elif definition.kind == "class" and (last.startswith("Test") or is_test_path(path)):
        out.append(("tests", "test class" if last.startswith("Test") else "in a test file"))
    elif is_test_path(path):
        out.append(("tests", "in a test file"))
    for decorator in definition.decorators:
        tail = _last(decorator)
        short = decorator if "." not in decorator else ".".join(decorator.split(".")[-2:])
        if tail in TOOL_DECORATORS:
            out.append(("tools and agents", f"tool (@{short})"))
        elif tail in ROUTE_DECORATORS and "." in decorator and not _is_mock(decorator):
            out.append(("entry points", f"route handler (@{short})"))
        elif tail in CLI_DECORATORS and "." in decorator:
            out.append(("entry points", f"CLI command (@{short})"))
        elif tail in TEST_DECORATORS and decorator.startswith("pytest"):
            out.append(("tests", "pytest fixture"))
    if definition.kind == "class":
        kind = _class_kind(graph, ref)
        if kind:
            out.append(("tools and agents", f"{kind} class"))
    parent = name.rpartition(".")[0]
    if definition.kind in ("method", "attribute") and parent:
        owner = (number, parent)
        if graph.kind(owner) == "class":
            kind = _class_kind(graph, owner)
            if kind:
                out.append(("tools and agents", f"{'method' if definition.kind == 'method' else 'attribute'} of {kind} class `{_last(parent)}`"))
    if definition.kind in ("function", "method", "variable"):
        for callee in _own_calls(graph, ref):
            tail = _last(callee.replace("()", ""))
            if tail in AGENT_CONSTRUCTORS and not callee.endswith("()"):
                out.append(("tools and agents", f"constructs an agent ({_last(callee)}(...))"))
                break
            if tail in TOOL_CONSTRUCTORS or _last(callee.rpartition(".")[0]) + "." + tail in TOOL_CONSTRUCTORS:
                out.append(("tools and agents", f"makes a tool ({tail}(...))"))
                break
    if definition.kind == "function" and name == "main":
        out.append(("entry points", "main()"))
    seen: set[tuple[str, str]] = set()
    return [x for x in out if not (x in seen or seen.add(x))]


def _own_calls(graph: Resolution, ref: NodeRef) -> list[str]:
    number, name = ref
    view = graph.view(number)
    definition = view.defs.get(name)
    if definition is None:
        return []
    if definition.kind == "variable":
        calls = [c[1] for c in view.calls_in("<module>") if definition.line <= c[2] <= definition.end_line]
    else:
        calls = [c[1] for c in view.calls_in(name)]
    # Only calls the facts resolved through an import: a local `tool(...)` (a loop
    # variable, a parameter) is not the framework's `tool`.
    return [c for c in calls if c.partition(".")[0] in view.roots]


def group_of(labels: list[tuple[str, str]]) -> str:
    for group in GROUPS:
        if any(g == group for g, _ in labels):
            return group
    return "other"
