"""Small helpers on `ast` nodes that every facts module uses: dotted names, columns in
characters, node spans, and the names of the module and instance scopes."""

from __future__ import annotations

import ast
import bisect
import re
import sys
from typing import AnyStr, Iterable, Iterator

MODULE_SCOPE = "<module>"
SELF_NAMES = frozenset({"self", "cls"})
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"typing_extensions"}
"""Top-level names of the standard library: calls into it reach nothing a project defines."""

_Attribute, _Name = ast.Attribute, ast.Name

COMPOUND_STATEMENTS = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                                 getattr(ast, "TryStar", ast.Try), ast.Match})
"""The statements that hold other statements, defs and classes aside: a walk of bodies
passes every other statement over without looking for one."""


def walk_statements(body: "Iterable[ast.stmt]", *, cases: bool = True) -> Iterator[ast.stmt]:
    """The statements of ``body`` and of the blocks of its compound statements (a
    `match`'s cases too, unless ``cases`` is false), each before the statements it holds,
    nested defs and classes not entered. One generator and a stack: a generator per
    nested block would pass each statement up through every block around it."""
    stack = list(body)[::-1]
    while stack:
        stmt = stack.pop()
        yield stmt
        if type(stmt) not in COMPOUND_STATEMENTS:
            continue  # a def or a class, or a statement that holds none
        inner: list[ast.stmt] = []
        for name in ("body", "orelse", "finalbody"):
            part = getattr(stmt, name, None)
            if isinstance(part, list):
                inner += part
        for handler in getattr(stmt, "handlers", ()):
            inner += handler.body
        if cases:
            for case in getattr(stmt, "cases", ()):
                inner += case.body
        stack += inner[::-1]


def dotted(expr: ast.AST) -> str | None:
    parts: list[str] = []
    while type(expr) is _Attribute:
        parts.append(expr.attr)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is not _Name:
        return None
    if not parts:
        return expr.id  # type: ignore[attr-defined]
    parts.append(expr.id)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def last_name(expr: ast.AST) -> str | None:
    """The final name of a name or an attribute (`send` of `client.messages.send`), else None."""
    if type(expr) is _Attribute:
        return expr.attr  # type: ignore[attr-defined]
    if type(expr) is _Name:
        return expr.id  # type: ignore[attr-defined]
    return None


def call_chain(expr: ast.AST) -> tuple[list[str], bool]:
    """The names along a callee, outermost first, calls and subscripts looked through:
    `logging.getLogger(__name__).error` -> (["logging", "getLogger", "error"], True).
    The flag says whether the chain starts at a plain name."""
    parts: list[str] = []
    while True:
        if isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        elif isinstance(expr, ast.Call):
            expr = expr.func
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Name):
            parts.append(expr.id)
            parts.reverse()
            return parts, True
        else:
            parts.reverse()
            return parts, False


def callee_text(expr: ast.AST) -> str:
    """How a message names a callee: its dotted name, else its source cut to 60
    characters (`client.chat.completions.create`, `get_client().send(...)`)."""
    text = dotted(expr)
    if text is not None:
        return text
    try:
        text = ast.unparse(expr)
    except Exception:  # pragma: no cover - unparse of odd trees
        return "<call>"
    return text if len(text) <= 60 else text[:57] + "..."


def char_column(lines: list[str], line: int, byte_offset: int) -> int:
    """The 1-based character column of an `ast` offset (a UTF-8 byte offset) on
    ``line`` (1-based) of ``lines``."""
    if 0 < line <= len(lines):
        text = lines[line - 1]
        if not text.isascii():
            return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "ignore")) + 1
    return byte_offset + 1


def node_span(lines: list[str], node: ast.AST) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) of an `ast` node, columns in characters."""
    line = node.lineno  # type: ignore[attr-defined]
    start = char_column(lines, line, node.col_offset)  # type: ignore[attr-defined]
    end_line = getattr(node, "end_lineno", None) or line
    end_col = getattr(node, "end_col_offset", None)
    return line, start, end_line, char_column(lines, end_line, end_col) if end_col is not None else start


def first_line(stmt: ast.AST) -> int:
    """A statement's first line, its decorators included."""
    decorators = getattr(stmt, "decorator_list", None)
    return min(stmt.lineno, *(d.lineno for d in decorators)) if decorators else stmt.lineno  # type: ignore[attr-defined]


def occurrences(source: AnyStr, text: AnyStr) -> Iterator[int]:
    """The offsets in ``source`` where ``text`` starts (overlapping ones too), found with
    `str.find` (or `bytes.find`): much faster than a regular expression's search over a
    whole module."""
    at = source.find(text)
    while at != -1:
        yield at
        at = source.find(text, at + 1)


def match_starts(pattern: "re.Pattern[str]", source: str, anchors: "tuple[str, ...]") -> list[int]:
    """``[m.start() for m in pattern.finditer(source)]`` for a pattern every match of
    which begins with one of ``anchors``: the pattern is tried only where an anchor
    stands. A pattern that begins with an alternation is otherwise tried at every
    offset of the module, which costs several times the `str.find` of its anchors."""
    starts = sorted({at for anchor in anchors for at in occurrences(source, anchor)})
    found: list[int] = []
    end = 0
    for at in starts:
        if at < end:
            continue  # inside the last match: `finditer` resumes after it
        match = pattern.match(source, at)
        if match is not None:
            found.append(at)
            end = max(match.end(), at + 1)
    return found


def line_numbers(source: str, offsets: "list[int]") -> list[int]:
    """The numbers of the lines (1-based, lines ended by `\\n`) that hold ``offsets``,
    in order, each once; ``offsets`` sorted."""
    lines: list[int] = []
    line, counted = 1, 0
    for at in offsets:
        line += source.count("\n", counted, at)
        counted = at
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def holds_candidate(candidates: "list[int] | None", stmt: ast.AST) -> bool:
    """Whether ``stmt`` (with its decorators) spans one of the sorted ``candidates``
    lines (lines with the vocabulary a walk looks for); None means every line."""
    if candidates is None:
        return True
    start = first_line(stmt)
    end = getattr(stmt, "end_lineno", None) or stmt.lineno  # type: ignore[attr-defined]
    i = bisect.bisect_left(candidates, start)
    return i < len(candidates) and candidates[i] <= end


_SCALAR_FIELDS = frozenset({"ctx", "op", "ops", "kind", "type_comment", "id", "attr", "name", "arg",
                            "module", "level", "lineno", "is_async", "conversion", "simple", "tag"})
"""Fields that never hold a child node worth visiting (names, flags, the `Load` context)."""
CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_AST, _list = ast.AST, list
_LEAVES = frozenset({ast.Name, ast.Constant, ast.alias, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal})
"""Nodes without child nodes: not queued, unless asked for."""
_NONE_TYPE = frozenset({type(None)})


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of an `ast` node class that can hold a child worth visiting, found once
    per class (the walks read them from ``CHILD_FIELDS`` first: a call per node costs)."""
    fields = CHILD_FIELDS.get(cls)
    if fields is None:
        fields = CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SCALAR_FIELDS)  # type: ignore[attr-defined]
    return fields


def nodes_of(tree: ast.AST, kinds: "tuple[type, ...]") -> list[ast.AST]:
    """The nodes of ``tree`` whose type is one of ``kinds``, in the order of `ast.walk`
    (breadth first). One walk that reads only the fields that can hold nodes, for the
    model finders that would each walk the whole module."""
    wanted = frozenset(kinds)
    skipped = (_LEAVES - wanted) | _NONE_TYPE
    out: list[ast.AST] = []
    found = out.append
    todo = [tree]
    queue = todo.append
    fields_of = CHILD_FIELDS
    for node in todo:  # the queue grows as it is read: a list's iterator takes what is appended
        cls = type(node)
        if cls in wanted:
            found(node)
        fields = fields_of.get(cls) or child_fields(cls)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is _list:
                for item in value:  # a plain loop: cheaper than a filtered list to extend with
                    if type(item) not in skipped and isinstance(item, _AST):
                        queue(item)
            elif type(value) not in skipped and isinstance(value, _AST):
                queue(value)
    return out
