"""AGL302 read from the ``ast`` tree: which files can hold a finding at all.

The rule itself runs on LibCST, which costs about ten times an ``ast`` parse. Most files
whose bytes mention `except Exception` hold no silent handler: every broad handler in
them re-raises or logs. This module answers, from the tree the facts pass already has,
whether some broad handler may be silent; only then is the file parsed with LibCST.

It mirrors the rule's own tests, but only the ones that *clear* a handler and read
nothing but the handler's own code: a `raise`; a call that the rule counts as
recording (``SilentBroadExcept._call_records``); the caught exception read by a
`return`, a `yield`, an assignment's value or a call's argument where the rule counts
that as passing it on (``_passes_on``); an assignment to a name that states a failure
(`close_failed = True`) or counts one. Failure text in string literals is left to the
rule: LibCST reads a literal as written (escapes, implicitly joined parts), the ``ast``
tree as its value. Anything it does not recognise leaves the handler a candidate, so
the answer errs towards parsing. ``tests/test_cst_prefilter.py`` checks that no
finding is lost.
"""

from __future__ import annotations

import ast
from typing import Iterable

from agentlint.facts.ast_helpers import call_chain
from agentlint.knowledge import recording
from agentlint.knowledge.words import name_words
from agentlint.rules.api import REGION_CUTS, Region

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
"""What runs inside these does not run in the handler (the rule's ``nested_scopes``)."""


def candidate_statements(
    tree: ast.Module,
    imports: dict[str, str],
    logger_objects: frozenset[str],
    reporters: Iterable[str],
    *,
    first_only: bool = False,
) -> "list[Region]":
    """The module's top-level statements that hold a broad handler not cleared by a
    raise or a recording call: the only code the rule can report in. A class or function
    is given as (its index, the regions of its body that hold one) when not all of its
    members do, at any depth (a report needs the class and function names and decorators
    around the handler, nothing else). ``first_only``: the first such statement alone."""
    dotted_reporters = frozenset(r for r in reporters if "." in r)
    bare_reporters = frozenset(r for r in reporters if "." not in r)

    def holds(statement: ast.stmt) -> bool:
        for node in _handlers([statement]):
            if node.type is not None and not _broad(node.type, imports):
                continue
            if not _cleared(node.body, imports, logger_objects, dotted_reporters, bare_reporters, node.name):
                return True
        return False

    if first_only:
        for index, statement in enumerate(tree.body):
            if holds(statement):
                return [index]
        return []

    def regions(body: list[ast.stmt]) -> "list[Region]":
        found: "list[Region]" = []
        for index, statement in enumerate(body):
            if type(statement) in REGION_CUTS:
                # a class or function holds a handler where one of its members does
                inner = regions(statement.body)  # type: ignore[attr-defined]
                if inner:
                    whole = len(inner) == len(statement.body) and all(type(r) is int for r in inner)  # type: ignore[attr-defined]
                    found.append(index if whole else (index, tuple(inner)))
            elif holds(statement):
                found.append(index)
        return found

    return regions(tree.body)


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
_BODIES_OF: dict[type, tuple[str, ...]] = {}
"""Node type -> those of ``_BODIES`` it has (most statements have none)."""


def _handlers(body: list[ast.stmt]):
    """Every except handler of the module, through statements only: a handler is a part
    of a `try` statement, and statements sit only in other statements' bodies (expressions
    are never walked, which is most of a tree)."""
    stack: list[ast.AST] = list(body)
    bodies_of = _BODIES_OF
    while stack:
        node = stack.pop()
        cls = type(node)
        fields = bodies_of.get(cls)
        if fields is None:
            fields = bodies_of[cls] = tuple(f for f in _BODIES if f in cls._fields)
        if cls is ast.ExceptHandler:
            yield node
        for field in fields:
            inner = getattr(node, field)
            if inner:
                stack.extend(inner)


def _dotted(expr: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def _qualified(expr: ast.expr, imports: dict[str, str]) -> str | None:
    dotted = _dotted(expr)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    resolved = imports.get(head)
    if resolved is None:
        return dotted
    return f"{resolved}.{rest}" if rest else resolved


def _broad(expr: ast.expr, imports: dict[str, str]) -> bool:
    if isinstance(expr, ast.Tuple):
        return any(_broad(element, imports) for element in expr.elts)
    return _qualified(expr, imports) in recording.BROAD_EXCEPTIONS


def _cleared(
    body: list[ast.stmt],
    imports: dict[str, str],
    loggers: frozenset[str],
    dotted_reporters: frozenset[str],
    bare_reporters: frozenset[str],
    bound: str | None = None,
) -> bool:
    """Does the handler's own code (``body``; ``bound``: the name `as` gives the
    exception) let the failure escape in a way the rule's ``_escape`` also sees?"""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        cls = type(node)
        if cls in _NESTED:
            continue
        if cls is ast.Raise:
            return True
        if cls is ast.Call:
            if _records(node, imports, loggers, dotted_reporters, bare_reporters):  # type: ignore[arg-type]
                return True
            if bound is not None and _hands_on(node, bound, imports):  # type: ignore[arg-type]
                return True
        elif cls in _RETURNS:
            if bound is not None and node.value is not None and _reads(node.value, bound):  # type: ignore[attr-defined]
                return True
        elif cls is ast.Assign or (cls is ast.AnnAssign and node.value is not None):  # type: ignore[attr-defined]
            if bound is not None and _reads(node.value, bound):  # type: ignore[attr-defined]
                return True
            targets = node.targets if cls is ast.Assign else [node.target]  # type: ignore[attr-defined]
            if any(words & recording.FAILURE_STATE_WORDS for t in targets for words in _target_words(t)):
                return True
        elif cls is ast.AugAssign:
            if any(words & recording.COUNTER_NAME_WORDS for words in _target_words(node.target)):  # type: ignore[attr-defined]
                return True
            if bound is not None and _reads(node.value, bound):  # type: ignore[attr-defined]
                return True
        stack.extend(ast.iter_child_nodes(node))
    return False


_RETURNS = (ast.Return, ast.Yield, ast.YieldFrom)


def _reads(expr: ast.AST, bound: str) -> bool:
    """Does ``expr`` read the caught exception? (The rule's ``_passes_on`` finds every
    name of an expression, inside lambdas too; its failure text is not mirrored.)"""
    return any(type(node) is ast.Name and node.id == bound for node in ast.walk(expr))  # type: ignore[attr-defined]


def _hands_on(call: ast.Call, bound: str, imports: dict[str, str]) -> bool:
    """The caught exception handed to a named callee other than a builtin that only
    looks at it (`str(e)`), as the rule's ``_call_records`` counts it."""
    parts, rooted = call_chain(call.func)
    if not parts:
        return False
    if rooted and len(parts) == 1 and imports.get(parts[0], parts[0]) in recording.PURE_BUILTINS:
        return False
    return any(_reads(arg, bound) for arg in call.args) or any(_reads(k.value, bound) for k in call.keywords)


def _target_words(target: ast.AST):
    """The words naming an assignment target, as the rule's ``_target_words`` finds
    them, except the string keys of a subscript (the rule reads those as written)."""
    cls = type(target)
    if cls is ast.Name:
        yield name_words(target.id)  # type: ignore[attr-defined]
    elif cls is ast.Attribute:
        yield name_words(target.attr)  # type: ignore[attr-defined]
    elif cls is ast.Subscript:
        yield from _target_words(target.value)  # type: ignore[attr-defined]
    elif cls is ast.Tuple or cls is ast.List:
        for element in target.elts:  # type: ignore[attr-defined]
            yield from _target_words(element.value if type(element) is ast.Starred else element)


def _records(
    call: ast.Call,
    imports: dict[str, str],
    loggers: frozenset[str],
    dotted_reporters: frozenset[str],
    bare_reporters: frozenset[str],
) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "exc_info":
            return True
        if keyword.arg == "file":
            dotted = _dotted(keyword.value)
            if dotted is not None and dotted.rpartition(".")[2] in ("stderr", "__stderr__"):
                return True
        if keyword.arg == "err" and isinstance(keyword.value, ast.Constant) and keyword.value.value is True:
            return True
    parts, rooted = call_chain(call.func)
    if not parts:
        return False
    final = parts[-1]
    if rooted:
        head = imports.get(parts[0], parts[0])
        resolved = ".".join([head, *parts[1:]])
        if resolved in recording.PROCESS_EXITS or recording.has_module_prefix(resolved):
            return True
        if resolved in dotted_reporters or ".".join(parts) in dotted_reporters:
            return True
    if final in bare_reporters:
        return True
    if isinstance(call.func, ast.Attribute):
        receiver = parts[:-1]
        if receiver:
            if receiver[-1] in loggers or (rooted and ".".join(receiver) in loggers):
                return True
            if final in recording.LOGGER_METHODS and any(recording.is_logger_name(s) for s in receiver):
                return True
            if final == "add" and name_words(receiver[-1]) & recording.COUNTER_NAME_WORDS:
                return True
        if final in recording.ERROR_LEVEL_METHODS and (call.args or call.keywords):
            return True
        if final in recording.RECORDING_METHODS:
            return True
    return bool(name_words(final) & recording.REPORTING_CALL_WORDS)
