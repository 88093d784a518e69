"""The LibCST pass of one file: one parse and one batched traversal for the selected rules
whose prefilter matched, then the reported nodes turned into spans and fixes.

LibCST comes through ``rules.lazy``: a run whose files give no rule a reason to parse
never pays for importing it (start-up matters for pre-commit).
"""

from __future__ import annotations

import ast
import copy
from functools import lru_cache
from typing import Callable, Mapping

from agentlint.engine.config import Settings
from agentlint.facts.ast_helpers import first_line
from agentlint.facts.types import FileFacts, ToolFact
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.api import REGION_CUTS, Region, RuleContext
from agentlint.rules.builtin import SYNTAX_ERROR, crash_diagnostic, engine_diagnostic
from agentlint.rules.diagnostics import Diagnostic, Edit, Fix, Position, Span
from agentlint.rules.lazy import libcst_module
from agentlint.rules.traversal import run_rules

cst = libcst_module()


_TRAILING_CONTINUATION = lazy_compile(r"\\(\r\n|\r|\n)\Z")


def for_libcst(text: str) -> str:
    """``text`` as LibCST's tokenizer accepts it. CPython compiles a file whose last line
    ends with a backslash continuation; LibCST rejects it. Dropping that one backslash
    keeps every line and column before it, so the reports' positions hold."""
    match = _TRAILING_CONTINUATION.search(text)
    return text[: match.start()] + match.group(1) if match else text


def too_deep(diagnostic: Diagnostic) -> bool:
    message = diagnostic.message
    return "nested too deeply" in message or "too many nested" in message or "too complex" in message


_LINE = lazy_compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
"""A line as Python and LibCST count them (only CR, LF and CRLF end one)."""


def run_on_statements(
    path: str, text: str, rule_classes: list, settings: Settings, facts: FileFacts, tree: ast.Module,
    regions: "list[Region]", find_tools: "Callable[[], tuple[ToolFact, ...]] | None" = None,
) -> list[Diagnostic] | None:
    """The rules run on the lines of some top-level statements only (``Rule.cst_regions``):
    LibCST parses those lines as a module of their own; the reports keep the file's line
    numbers because positions are anchored on the `ast` statements, which carry them. A
    class or function given with some members is its header lines and those members'
    lines, at any depth (the `ast` statement is a copy holding those members alone). None
    when that cannot be done here (the statements cover most of the file, the snippet does
    not parse, a position cannot be anchored): then the whole file is parsed."""
    lines = _LINE.findall(text)
    spans: list[tuple[int, int]] = []
    chosen = [_chosen(tree.body, region, spans) for region in regions]
    if not chosen or sum(end - start for start, end in spans) * 10 > len(lines) * 8:
        return None
    snippet = "".join("".join(lines[start:end]) for start, end in spans)
    return run_cst_rules(path, snippet, rule_classes, settings, None, facts, ast.Module(body=chosen, type_ignores=[]),
                         whole_text=text, find_tools=find_tools)


def _chosen(body: list[ast.stmt], region: "Region", spans: list[tuple[int, int]]) -> ast.stmt:
    """The statement of ``body`` that ``region`` names, a copy holding only the members
    it names when it names some, with the (0-based, end excluded) line spans it keeps
    appended to ``spans``."""
    index, members = (region, None) if isinstance(region, int) else region
    statement = body[index]
    if members is not None and type(statement) in REGION_CUTS:
        inner = statement.body  # type: ignore[attr-defined]
        header_end = first_line(inner[0]) - 1
        if header_end > statement.lineno - 1:  # the body starts on a line of its own
            clone = copy.copy(statement)
            spans.append((first_line(statement) - 1, header_end))
            clone.body = [_chosen(inner, member, spans) for member in members]  # type: ignore[attr-defined]
            return clone
    spans.append((first_line(statement) - 1, statement.end_lineno or statement.lineno))
    return statement


def run_cst_rules(
    path: str,
    text: str,
    rule_classes: list,
    settings: Settings,
    syntax_error: Diagnostic | None,
    facts: FileFacts,
    tree: ast.Module | None,
    whole_text: str | None = None,
    find_tools: "Callable[[], tuple[ToolFact, ...]] | None" = None,
) -> list[Diagnostic] | None:
    """The rules on the file's LibCST tree. With ``whole_text``, ``text`` holds some
    top-level statements of it only (``run_on_statements``), and None means "parse the
    whole file instead". ``find_tools``: see ``RuleContext.find_tools``."""
    try:
        module = cst.parse_module(for_libcst(text))
    except cst.ParserSyntaxError as exc:
        if whole_text is not None:
            return None
        if syntax_error is not None:
            return [syntax_error]
        return [
            engine_diagnostic(
                SYNTAX_ERROR, path, f"Syntax error: {exc.message}", exc.raw_line, exc.raw_column + 1
            )
        ]
    except (RecursionError, MemoryError):
        if whole_text is not None:
            return None
        return [engine_diagnostic(SYNTAX_ERROR, path, "Code is nested too deeply to analyse")]
    except Exception as exc:
        if whole_text is not None:
            return None
        return [engine_diagnostic(SYNTAX_ERROR, path, f"Cannot parse: {type(exc).__name__}: {exc}")]

    imports = {i.local: i.qualified for i in facts.imports if i.local != "*"}
    ancestors: list = []
    out: list[Diagnostic] = []
    pending = []
    rules = []
    for cls in rule_classes:
        context = RuleContext(
            path=path,
            source=text if whole_text is None else whole_text,
            settings=settings.rule_settings.get(cls.meta.code, {}),
            ancestors=ancestors,
            imports=imports,
            reports=pending,
            facts=facts,
            find_tools=find_tools,
        )
        try:
            rules.append(cls(context))
        except Exception as exc:
            out.append(crash_diagnostic(path, cls.meta, exc))

    def on_crash(rule, exc: BaseException) -> None:
        out.append(crash_diagnostic(path, rule.meta, exc))

    try:
        run_rules(module, rules, ancestors, on_crash)
    except RecursionError:
        return out + [engine_diagnostic(SYNTAX_ERROR, path, "Code is nested too deeply to analyse")]
    if pending:
        chains = [(*r.ancestors, r.node) for r in pending]
        for r in pending:
            if r.replacement is not None:
                chains += _edit_chains(r.replacement)
        if whole_text is None:
            positions = _positions(module, tree, chains)
        else:
            try:  # only anchored positions carry the file's line numbers
                positions = _anchored_positions(module, tree, chains) if tree is not None else None
            except Exception:
                return None
        lines = (text if whole_text is None else whole_text).splitlines()
        for report in pending:
            meta = report.meta
            code_range = positions.get(report.node) if positions else None
            if code_range is None:
                span = Span.at_line(1)
            else:
                start = Position(code_range.start.line, code_range.start.column + 1)
                end = Position(code_range.end.line, code_range.end.column + 1)
                if end.line > start.line and isinstance(getattr(report.node, "body", None), cst.BaseSuite):
                    # A compound statement is reported on its header line, not its body.
                    header = lines[start.line - 1] if start.line <= len(lines) else ""
                    end = Position(start.line, len(header.rstrip()) + 1)
                span = Span(start, end)
            fix = report.fix
            if report.replacement is not None and positions:
                fix = _node_fix(module, report.replacement, code_range, positions, report.ancestors)
            out.append(
                Diagnostic(
                    code=meta.code,
                    name=meta.name,
                    message=report.message,
                    path=path,
                    span=span,
                    help=meta.help,
                    related=report.related,
                    fix=fix,
                )
            )
    return out


def _positions(module, tree: ast.Module | None, chains: list[tuple]) -> Mapping | None:
    """Source ranges for the reported nodes; each chain is (module, ..., node).

    LibCST's PositionProvider regenerates the whole module (about two parses' worth of
    work). Here only the innermost function or class statement holding a report is
    regenerated, starting at the line and indentation that the `ast` tree gives for
    it; the whole-module provider is the fallback.
    """
    if tree is not None:
        try:
            return _anchored_positions(module, tree, chains)
        except Exception:
            pass  # fall through to the slow, general path
    try:
        return cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(cst.metadata.PositionProvider)
    except RecursionError:
        return None


def _ast_indexes(statements) -> dict[int, int]:
    """id(LibCST statement) -> the index of its first `ast` statement in the same body
    (a `SimpleStatementLine` holds as many `ast` statements as it has parts)."""
    out: dict[int, int] = {}
    index = 0
    for stmt in statements:
        out[id(stmt)] = index
        index += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
    return out


@lru_cache(maxsize=None)
def _ast_kinds() -> dict:
    """LibCST compound statement -> the `ast` statements it can be (`TryStar` only where
    both know it). Made on first use: reading LibCST's classes imports it."""
    kinds = {
        cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef), cst.ClassDef: (ast.ClassDef,),
        cst.If: (ast.If,), cst.For: (ast.For, ast.AsyncFor), cst.While: (ast.While,),
        cst.With: (ast.With, ast.AsyncWith), cst.Try: (ast.Try,),
    }
    if hasattr(ast, "TryStar") and hasattr(cst, "TryStar"):
        kinds[cst.TryStar] = (ast.TryStar,)
    return kinds


def _entered_block(child, node: ast.AST, below: tuple):
    """The indented block of the compound statement ``child`` (``node`` in `ast`) that
    the chain goes on into (``below``: the chain's nodes under ``child``), with that
    block's `ast` statements and how many nodes of the chain lead to it; None when the
    chain goes elsewhere: into the header, an `elif` (which LibCST writes as `if` when
    it is regenerated alone), a `match` case, or a body on the header's line."""
    if not below:
        return None
    step = below[0]
    if step is getattr(child, "body", None):
        block, statements, taken = step, node.body, 1  # type: ignore[attr-defined]
    else:
        if isinstance(step, cst.Else) and step is getattr(child, "orelse", None):
            statements = node.orelse  # type: ignore[attr-defined]
        elif isinstance(step, cst.Finally) and step is getattr(child, "finalbody", None):
            statements = node.finalbody  # type: ignore[attr-defined]
        elif isinstance(step, (cst.ExceptHandler, cst.ExceptStarHandler)):
            index = _handler_index(child, step)
            if index is None:
                return None
            statements = node.handlers[index].body  # type: ignore[attr-defined]
        else:
            return None
        if len(below) < 2 or below[1] is not step.body:
            return None
        block, taken = step.body, 2
    if not isinstance(block, cst.IndentedBlock):
        return None
    return block, statements, taken


def _reported_handler(child, node: ast.AST, below: tuple):
    """When the chain ends at an `except` clause of the `try` statement ``child``
    (``node`` in `ast`): that clause and its first line. Regenerating it alone gives its
    position, where regenerating the whole `try` would write every other clause too."""
    if len(below) != 1 or not isinstance(below[0], (cst.ExceptHandler, cst.ExceptStarHandler)):
        return None
    index = _handler_index(child, below[0])
    if index is None:
        return None
    return below[0], node.handlers[index].lineno  # type: ignore[attr-defined]


def _handler_index(child, handler) -> int | None:
    """Which of the `try` statement ``child``'s `except` clauses ``handler`` is (the same
    index in the `ast` statement), or None when it is none of them."""
    return next((i for i, clause in enumerate(getattr(child, "handlers", ())) if clause is handler), None)


def _anchor(module, tree: ast.Module, chain: tuple, indexes: dict[int, dict[int, int]]):
    """The deepest statement of ``chain`` reachable through the indented blocks of the
    module's compound statements (def, class, `if`, `for`, `while`, `with`, `try`), with
    its first line (from `ast`) and the indentation around it: only that statement is
    regenerated for the positions of what it holds. ``indexes`` memoises
    ``_ast_indexes`` per body, so many reports in one module cost one pass over each
    body, not one pass each."""
    statements, nodes, indents = module.body, tree.body, []
    anchor = None
    position = 1
    while position < len(chain):
        child = chain[position]
        body_index = indexes.get(id(statements))
        if body_index is None:
            body_index = indexes[id(statements)] = _ast_indexes(statements)
        index = body_index.get(id(child))
        if index is None:
            break
        node = nodes[index]
        anchor = (child, first_line(node), tuple(indents))
        kinds = _ast_kinds().get(type(child))
        if kinds is None:
            break
        if not isinstance(node, kinds):
            raise ValueError("LibCST and ast disagree about a statement")
        entered = _entered_block(child, node, chain[position + 1:])
        if entered is None:
            handler = _reported_handler(child, node, chain[position + 1:])
            if handler is not None:  # an `except` clause alone, at its `try`'s indentation
                anchor = (*handler, tuple(indents))
            break
        block, nodes, taken = entered
        indents.append(block.indent if block.indent is not None else module.default_indent)
        statements = block.body
        position += 1 + taken
    if anchor is None:
        raise ValueError("no statement to anchor on")
    return anchor


def _anchored_positions(module, tree: ast.Module, chains: list[tuple]) -> dict:
    computed: dict = {}
    indexes: dict[int, dict[int, int]] = {}
    for chain in chains:
        if chain[-1] in computed:
            continue
        statement, first_line, indents = _anchor(module, tree, chain, indexes)
        provider = cst.metadata.PositionProvider()
        state = cst.metadata.position_provider.PositionProvidingCodegenState(
            default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
        )
        state.indent_tokens = list(indents)
        state.line = first_line - len(statement.leading_lines)
        statement._codegen(state)
        computed.update(provider._computed)
    return computed


def _edit_chains(node_fix) -> list[tuple]:
    chains = []
    for edit in node_fix.edits:
        chains.append((*edit.ancestors, edit.node))
        for located in (edit.start_after, edit.end_before):
            if located is not None:
                chains.append((*located[1], located[0]))
    return chains


def _render(module, content, ancestors=()) -> str:
    """The source of a replacement node, indented like the place it goes to (a call
    spread over several lines inside a function keeps its lines' indentation)."""
    if isinstance(content, str):
        return content

    if getattr(content, "comma", None) is not None and not isinstance(content.comma, cst.MaybeSentinel):
        # The source range of an argument, element or import alias stops before its
        # comma; so must the text that replaces it.
        content = content.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    state = cst._nodes.internal.CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    # The blocks and `match` statements around it each add one level (LibCST's
    # `increase_indent` is called by exactly these two).
    state.indent_tokens = [
        a.indent if a.indent is not None else module.default_indent
        for a in ancestors
        if isinstance(a, (cst.IndentedBlock, cst.Match))
    ]
    content._codegen(state)
    return "".join(state.tokens)


def _node_fix(module, node_fix, code_range, positions, ancestors=()) -> Fix | None:
    """Text edits over the nodes' exact source ranges (columns 1-based); None when a
    position is missing (the fix is then not offered)."""

    def start(pos) -> Position:
        return Position(pos.start.line, pos.start.column + 1)

    def end(pos) -> Position:
        return Position(pos.end.line, pos.end.column + 1)

    edits: list[Edit] = []
    if node_fix.replacement is not None:
        if code_range is None:
            return None
        edits.append(Edit(Span(start(code_range), end(code_range)), _render(module, node_fix.replacement, ancestors)))
    for edit in node_fix.edits:
        where = positions.get(edit.node)
        if where is None:
            return None
        first, last = start(where), end(where)
        if edit.start_after is not None:
            other = positions.get(edit.start_after[0])
            if other is None:
                return None
            first = end(other)
        if edit.end_before is not None:
            other = positions.get(edit.end_before[0])
            if other is None:
                return None
            last = start(other)
        edits.append(Edit(Span(first, last), _render(module, edit.replacement, edit.ancestors)))
    if not edits:
        return None
    edits.sort(key=lambda e: (e.span.start, e.span.end))
    for before, after in zip(edits, edits[1:]):
        if after.span.start < before.span.end:
            return None  # overlapping edits: not a fix that can be applied
    return Fix(node_fix.message, tuple(edits), node_fix.safe)
