"""One traversal of a LibCST tree that drives every selected rule.

LibCST's own ``node.visit(visitor)`` rebuilds every node on the way back up, which costs
about as much as the parse itself. Rules only read the tree, so this walker reads each
node's child fields directly (without rebuilding anything) and calls the rules'
``visit_<Type>``/``leave_<Type>`` methods from a dispatch table. Whitespace and
punctuation fields are not descended into: rules are about code, not layout.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

from agentlint.rules.api import Rule
from agentlint.rules.lazy import lazy_types, libcst_module

cst = libcst_module()

_SKIPPED_FIELDS = frozenset(
    {
        "lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer",
        "comma", "semicolon", "trailing_whitespace", "newline", "whitespace", "equal",
        "colon", "star", "dot", "default_indent", "default_newline", "encoding",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS[cls] = names
    return names


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The code-bearing children of ``node`` in field order (no rebuilding)."""
    out: list[cst.CSTNode] = []
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            out.append(value)
        elif type(value) in (tuple, list):
            out.extend(v for v in value if isinstance(v, cst.CSTNode))
    return out


def iter_subtree(node: cst.CSTNode, *, skip: tuple[type, ...] = ()) -> Iterable[cst.CSTNode]:
    """Every node under ``node`` (itself included), not descending into ``skip`` types
    below the root. Rules use this to inspect a handler or a body."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and skip and isinstance(current, skip):
            continue
        kids = children(current)
        kids.reverse()
        stack.extend(kids)


Handler = Callable[["cst.CSTNode"], object]

nested_scopes = lazy_types("FunctionDef", "ClassDef", "Lambda")
"""The nodes that open a scope of their own: what runs inside them does not run here."""

_STATEMENT_FRAME = frozenset({
    "Module", "IndentedBlock", "ClassDef", "FunctionDef", "If", "Else", "For", "While", "With", "Try",
    "TryStar", "ExceptHandler", "ExceptStarHandler", "Finally", "Match", "MatchCase",
})
"""The module, its compound statements and the parts of them that hold a body: every
path from the module to an `except` clause runs through these alone (no expression or
simple statement holds a compound statement)."""


def run_rules(
    module: cst.Module,
    rules: list[Rule],
    ancestors: list[cst.CSTNode],
    on_crash: Callable[[Rule, BaseException], None],
) -> None:
    """Walk ``module`` once, dispatching to every rule. A rule that raises is dropped for
    the rest of this file (``on_crash`` is told) and the others carry on."""
    visit: dict[str, list[tuple[Rule, Handler]]] = {}
    leave: dict[str, list[tuple[Rule, Handler]]] = {}
    for rule in rules:
        for attr in _handler_names(type(rule)):
            table = visit if attr.startswith("visit_") else leave
            table.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
    dead: set[int] = set()
    # Rules that visit only such nodes (AGL302's handlers) are not walked through
    # expressions and simple statements, most of a tree: the same nodes reach them, in
    # the same order and with the same ancestors.
    frame_only = _STATEMENT_FRAME.issuperset(visit) and _STATEMENT_FRAME.issuperset(leave)

    def dispatch(handlers: list[tuple[Rule, Handler]], node: cst.CSTNode) -> None:
        for rule, handler in handlers:
            if id(rule) in dead:
                continue
            try:
                handler(node)
            except Exception as exc:  # a crashing rule must not take the file down
                dead.add(id(rule))
                on_crash(rule, exc)

    _LEAVE = object()
    stack: list[object] = [module]
    while stack:
        item = stack.pop()
        if item is _LEAVE:
            node = ancestors.pop()
            handlers = leave.get(type(node).__name__)
            if handlers:
                dispatch(handlers, node)
            continue
        node = item  # type: ignore[assignment]
        name = type(node).__name__
        handlers = visit.get(name)
        if handlers:
            dispatch(handlers, node)  # type: ignore[arg-type]
        ancestors.append(node)  # type: ignore[arg-type]
        stack.append(_LEAVE)
        kids = children(node)  # type: ignore[arg-type]
        if frame_only:
            kids = [kid for kid in kids if type(kid).__name__ in _STATEMENT_FRAME]
        kids.reverse()
        stack.extend(kids)


_HANDLERS: dict[type, tuple[str, ...]] = {}


def _handler_names(cls: type) -> tuple[str, ...]:
    names = _HANDLERS.get(cls)
    if names is None:
        names = tuple(
            a for a in dir(cls) if (a.startswith("visit_") or a.startswith("leave_")) and callable(getattr(cls, a))
        )
        _HANDLERS[cls] = names
    return names
