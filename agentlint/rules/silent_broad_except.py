"""AGL302 silent-broad-except: a broad handler that lets the failure vanish.

A handler is broad when it catches everything (`except:`, `except Exception`,
`except BaseException`, alone or in a tuple, `except*` too). It is silent when its body,
outside any function, class or lambda defined in it, neither raises, nor records the
failure (logging, warnings, error-reporting SDKs, spans, metrics and counters, the
user's own reporters), nor passes the failure on (the exception returned, stored,
yielded or handed to a call, or a value that says the operation failed). Only broad
handlers are inspected, so the cost is one small walk per broad handler.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any, Iterator

from agentlint.facts.ast_helpers import occurrences
from agentlint.facts.types import FileFacts
from agentlint.knowledge import guards, recording
from agentlint.knowledge.words import name_words
from agentlint.lazy_regex import lazy_compile
from agentlint.rules._silent_except_ast import candidate_statements
from agentlint.rules.api import Region, Rule, RuleContext, dotted_name
from agentlint.rules.catalog.errors import SILENT_BROAD_EXCEPT
from agentlint.rules.lazy import libcst_module
from agentlint.rules.traversal import nested_scopes

cst = libcst_module()

_SKIPPED_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "comma",
        "semicolon",
        "trailing_whitespace",
        "newline",
        "whitespace",
        "equal",
        "colon",
        "star",
        "dot",
        "operator",
        "default_indent",
        "default_newline",
    }
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The code-bearing children of ``node``, read from its fields (nothing rebuilt)."""
    names = _CHILD_FIELDS.get(type(node))
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node)  # type: ignore[arg-type]
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _CHILD_FIELDS[type(node)] = names
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif type(value) in (tuple, list):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


_FAILURE_TEXT = lazy_compile(
    r"(?<![a-z])"
    r"(?:errors?|errored|fail(?:s|ed|ure|ures)?|unable|cannot|could ?not|couldn't)"
    r"(?![a-z])"
)
"""Lower-cased text that states a failure: `"failed"`, `"<unable to render>"`,
`"bounded_read_failed"` (underscores separate words here)."""


def _passes_on(expr: cst.CSTNode, bound: str | None) -> bool:
    """Whether ``expr`` carries the failure on: it reads the caught exception (also
    from a lambda: `call_soon(lambda: fut.set_exception(e))`), or its own text states
    the failure (`"failed"`, `f"Error: {detail}"`; text inside a lambda is only said
    later, if ever)."""
    stack: list[tuple[cst.CSTNode, bool]] = [(expr, True)]
    while stack:
        node, own_text = stack.pop()
        if isinstance(node, cst.Name):
            if node.value == bound:
                return True
        elif isinstance(node, cst.Attribute):
            stack.append((node.value, own_text))
        elif isinstance(node, cst.Arg):
            stack.append((node.value, own_text))
        elif isinstance(node, (cst.SimpleString, cst.FormattedStringText)):
            if own_text and _FAILURE_TEXT.search(node.value.lower()):
                return True
        else:
            if isinstance(node, cst.Lambda):
                if bound is None:
                    continue
                own_text = False
            stack.extend((child, own_text) for child in _children(node))
    return False


def _call_chain(expr: cst.BaseExpression) -> tuple[list[str], bool]:
    """The names along a callee, calls and subscripts looked through:
    `logging.getLogger(__name__).error` -> (["logging", "getLogger", "error"], True).
    The flag says whether the chain starts at a plain name."""
    parts: list[str] = []
    while True:
        if isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        elif isinstance(expr, cst.Call):
            expr = expr.func
        elif isinstance(expr, cst.Subscript):
            expr = expr.value
        elif isinstance(expr, cst.Name):
            parts.append(expr.value)
            parts.reverse()
            return parts, True
        else:
            parts.reverse()
            return parts, False


def _target_words(target: cst.BaseExpression) -> Iterator[frozenset[str]]:
    """The words naming an assignment target: `self.fail_count` -> {fail, count};
    `stats["errors"]` -> {stats} and {errors}; tuples give one set per element."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_words(element.value)
    elif isinstance(target, cst.Name):
        yield name_words(target.value)
    elif isinstance(target, cst.Attribute):
        yield name_words(target.attr.value)
    elif isinstance(target, cst.Subscript):
        yield from _target_words(target.value)
        for element in target.slice:
            index = element.slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                yield name_words(index.value.raw_value)


def _is_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _is_stderr(expr: cst.BaseExpression) -> bool:
    dotted = dotted_name(expr)
    return dotted is not None and dotted.rpartition(".")[2] in ("stderr", "__stderr__")


class _BroadHandlerText:
    """The byte prefilter: can the file hold a broad handler? Every broad handler names
    `Exception`/`BaseException` in its clause (`except Exception`; `except (KeyError,
    Exception) as e` over two lines: the clause has no colon before its own), or is a
    bare `except:` (spaces or a line continuation before the colon allowed), or catches
    an alias, which
    the file binds by importing it (`from builtins import Exception as E`) or assigning
    it (`Broad = (Exception,)`). The clauses are tried only where `except` stands, and
    the aliases only in a file that says `Exception`: one expression of all four, tried
    at every `e`, `i` and `=` of the file, took four times as long."""

    _CLAUSE = lazy_compile(rb"except\b[^:]*?Exception|except[ \t\f\\\r\n]*:")
    _ALIAS = lazy_compile(rb"import\b[^\n]*\bException\b|=\s*\(?\s*(?:builtins\.)?(?:Base)?Exception\b")

    def search(self, content: bytes) -> bool:
        clause = self._CLAUSE.match
        if any(clause(content, at) for at in occurrences(content, b"except")):
            return True
        return b"Exception" in content and self._ALIAS.search(content) is not None


class SilentBroadExcept(Rule):
    """Broad `except` handlers that neither re-raise, record, nor pass on the failure."""

    meta = SILENT_BROAD_EXCEPT

    prefilter = _BroadHandlerText()

    @classmethod
    def needs_cst(cls, tree: ast.Module, facts: FileFacts, settings: dict[str, Any]) -> bool:
        # most broad handlers re-raise or log: those the ast tree clears are not parsed again
        return bool(cls._candidates(tree, facts, settings, first_only=True))

    @classmethod
    def cst_regions(cls, tree: ast.Module, facts: FileFacts, settings: dict[str, Any]) -> "list[Region] | None":
        # a report needs only the top-level statement around the handler (its function
        # and class names); imports come from the facts of the whole file
        return cls._candidates(tree, facts, settings)

    @staticmethod
    def _candidates(tree: ast.Module, facts: FileFacts, settings: dict[str, Any], *, first_only: bool = False) -> "list[Region]":
        imports = {i.local: i.qualified for i in facts.imports if i.local != "*"}
        loggers = frozenset(settings.get("logger-objects", recording.DEFAULT_LOGGER_OBJECTS))
        return candidate_statements(tree, imports, loggers, settings.get("reporter-callables", ()), first_only=first_only)

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        loggers = self.settings.get("logger-objects", recording.DEFAULT_LOGGER_OBJECTS)
        reporters = self.settings.get("reporter-callables", ())
        self._logger_objects = frozenset(loggers)
        self._reporters_dotted = frozenset(r for r in reporters if "." in r)
        self._reporters_bare = frozenset(r for r in reporters if "." not in r)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._check(node, "except")

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._check(node, "except*")

    def _check(self, node: cst.ExceptHandler | cst.ExceptStarHandler, keyword: str) -> None:
        if node.type is None:
            clause = "Bare `except:`"
        else:
            broad = self._broad_name(node.type)
            if broad is None:
                return
            clause = f"Broad `{keyword} {self._describe(node.type, broad)}`"
        bound = None
        if node.name is not None and isinstance(node.name.name, cst.Name):
            bound = node.name.name.value
        if self._escape(node.body, bound) is not None:
            return
        message = (
            f"{clause} swallows the failure: nothing re-raises, records or passes on "
            f"the exception{self._where()}"
        )
        self.report(node, message)

    # -- is the handler broad? ------------------------------------------------------------

    def _broad_name(self, expr: cst.BaseExpression) -> str | None:
        """`Exception`/`BaseException` if ``expr`` (or an element of it) names one."""
        if isinstance(expr, cst.Tuple):  # a list is not a valid `except` target
            for element in expr.elements:
                found = self._broad_name(element.value)
                if found is not None:
                    return found
            return None
        qualified = self.context.qualified_name(expr)
        if qualified in recording.BROAD_EXCEPTIONS:
            return qualified.rpartition(".")[2]
        return None

    @staticmethod
    def _describe(expr: cst.BaseExpression, broad: str) -> str:
        text = " ".join(cst.Module(body=[]).code_for_node(expr).split())
        if len(text) <= 60:
            return text
        return f"(..., {broad})" if isinstance(expr, cst.Tuple) else broad

    # -- does the handler let the failure vanish? -----------------------------------------

    def _escape(self, body: cst.BaseSuite, bound: str | None) -> cst.CSTNode | None:
        """The first node of the handler's own code through which the failure escapes
        (a raise, a recording call, the failure passed on), or None if it vanishes."""
        stack: list[cst.CSTNode] = [body]
        while stack:
            node = stack.pop()
            if isinstance(node, nested_scopes()):
                continue
            if isinstance(node, cst.Raise):
                return node
            if isinstance(node, cst.Call):
                if self._call_records(node, bound):
                    return node
            elif isinstance(node, (cst.Return, cst.Yield)):
                if node.value is not None and _passes_on(node.value, bound):
                    return node
            elif isinstance(node, cst.Assign):
                if self._assignment_records([t.target for t in node.targets], node.value, bound):
                    return node
            elif isinstance(node, cst.AnnAssign):
                if node.value is not None and self._assignment_records(
                    [node.target], node.value, bound
                ):
                    return node
            elif isinstance(node, cst.AugAssign):
                counter = any(w & recording.COUNTER_NAME_WORDS for w in _target_words(node.target))
                if counter or _passes_on(node.value, bound):
                    return node
            stack.extend(_children(node))
        return None

    def _assignment_records(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, bound: str | None
    ) -> bool:
        if _passes_on(value, bound):
            return True
        return any(
            words & recording.FAILURE_STATE_WORDS for t in targets for words in _target_words(t)
        )

    def _call_records(self, call: cst.Call, bound: str | None) -> bool:
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "exc_info":
                return True
            if keyword == "file" and _is_stderr(arg.value):
                return True
            if keyword == "err" and _is_true(arg.value):  # click.echo(..., err=True)
                return True

        parts, rooted = _call_chain(call.func)
        if not parts:
            return False
        final = parts[-1]
        if rooted:
            head = self.context.imports.get(parts[0], parts[0])
            resolved = ".".join([head, *parts[1:]])
            if resolved in recording.PROCESS_EXITS or recording.has_module_prefix(resolved):
                return True
            if resolved in self._reporters_dotted or ".".join(parts) in self._reporters_dotted:
                return True
            if not (len(parts) == 1 and resolved in recording.PURE_BUILTINS) and any(
                _passes_on(arg.value, bound) for arg in call.args
            ):
                return True
        elif any(_passes_on(arg.value, bound) for arg in call.args):
            return True
        if final in self._reporters_bare:
            return True

        if isinstance(call.func, cst.Attribute):
            receiver = parts[:-1]
            if receiver:
                if receiver[-1] in self._logger_objects or (
                    rooted and ".".join(receiver) in self._logger_objects
                ):
                    return True
                if final in recording.LOGGER_METHODS and any(
                    recording.is_logger_name(segment) for segment in receiver
                ):
                    return True
                counter_like = name_words(receiver[-1]) & recording.COUNTER_NAME_WORDS
                if final == "add" and counter_like:  # error_counter.add(1)
                    return True
            if final in recording.ERROR_LEVEL_METHODS and call.args:
                return True
            if final in recording.RECORDING_METHODS:
                return True
        return bool(name_words(final) & recording.REPORTING_CALL_WORDS)

    # -- where is it? ---------------------------------------------------------------------

    def _where(self) -> str:
        """` (inside tool `x`)` / ` (inside guard `x`)` for the nearest enclosing
        function that is one, else nothing."""
        tools: set[str] | None = None  # asked for inside a function only: it may build the agent model
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            ancestor = ancestors[index]
            if not isinstance(ancestor, cst.FunctionDef):
                continue
            if tools is None:
                tools = {t.name for t in self.context.tools() if t.schema != "inline"}
            name = ancestor.name.value
            owner = next((a for a in reversed(ancestors[:index]) if isinstance(a, (cst.ClassDef, cst.FunctionDef))), None)
            qualified = f"{owner.name.value}.{name}" if isinstance(owner, cst.ClassDef) else name
            if qualified in tools:
                return f" (inside tool `{name}`)"
            for decorator in ancestor.decorators:
                expr = decorator.decorator
                if isinstance(expr, cst.Call):
                    expr = expr.func
                dotted = self.context.qualified_name(expr)
                if dotted is None:
                    continue
                if guards.is_guard_decorator(dotted):
                    return f" (inside guard `{name}`)"
            if guards.is_guard_name(name):
                return f" (inside guard `{name}`)"
        return ""
