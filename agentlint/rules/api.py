"""The rule API: the only module a rule needs to import (besides libcst and knowledge).

A per-file rule is a class with ``visit_<NodeType>`` / ``leave_<NodeType>`` methods,
like a LibCST visitor. The engine runs every selected rule in one traversal of the tree
(see ``traversal.py``); rules never walk the tree themselves. ``report`` is the only way
out. A project rule sees the facts of every file at once.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Mapping, Protocol, Sequence, Tuple, Union

from agentlint.facts.types import FileFacts, ImportFact, ToolFact
from agentlint.rules.diagnostics import (
    Diagnostic,
    Fix,
    Position,
    RelatedLocation,
    RuleMeta,
    Span,
)
from agentlint.rules.lazy import libcst_module

cst = libcst_module()


@dataclass
class PendingReport:
    """A report whose position is computed only if it survives (positions cost a walk)."""

    meta: RuleMeta
    """The reporting rule's (not the rule: it holds the context that holds this report,
    a cycle that would keep the file's LibCST tree until a collection)."""
    node: cst.CSTNode
    message: str
    fix: Fix | None
    related: tuple[RelatedLocation, ...]
    ancestors: tuple[cst.CSTNode, ...]
    """The ancestors of ``node`` when it was reported (positions are computed from them)."""
    replacement: "NodeFix | None" = None


OPTIONAL_FACTS = frozenset({"prompts", "cost", "model_calls", "sinks"})
"""The facts only some project rules need: "prompts" (prompt sites and blocks), "cost"
(cost terms, None costs, prices), "model_calls" (the inventory of model calls), "sinks"
(the irreversible calls each tool reaches, and the approvals wired around them)."""

Region = Union[int, Tuple[int, Tuple["Region", ...]]]
"""A statement (its index in its body), or a class or function with some of its members
only (its index, and the regions of its body that are kept) (``Rule.cst_regions``)."""

REGION_CUTS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
"""The statements a region may give with some of their members only (a report needs
their headers: the class and function names and decorators around it)."""

Located = Tuple["cst.CSTNode", Tuple["cst.CSTNode", ...]]
"""A node with its ancestors (outermost first): enough for the engine to find its
position without a whole-module position pass."""


@dataclass(frozen=True)
class NodeEdit:
    """One edit of a fix, expressed on the tree: replace ``node``'s source with
    ``replacement`` (a node, rendered by LibCST, or source text).

    ``start_after`` / ``end_before`` widen or move the range to the end of another node
    or the start of another node: removing `B, ` from `import A, B, C` is the range
    from the start of `B` to the start of `C`."""

    node: cst.CSTNode
    replacement: "cst.CSTNode | str"
    ancestors: tuple[cst.CSTNode, ...]
    """The ancestors of ``node``, outermost first (``context.ancestors`` at its visit)."""
    start_after: "Located | None" = None
    end_before: "Located | None" = None


@dataclass(frozen=True)
class NodeFix:
    """A fix expressed on the tree: replace the reported node's source with
    ``replacement`` (a node, rendered by LibCST, or source text), or apply ``edits``.
    The engine turns it into a text `Fix` once the positions are known."""

    replacement: "cst.CSTNode | str | None"
    message: str
    safe: bool = True
    edits: tuple[NodeEdit, ...] = ()


@dataclass
class RuleContext:
    """What a rule can see about the file it runs on."""

    path: str
    source: str
    settings: Mapping[str, Any]
    """This rule's settings, defaults filled in."""
    ancestors: list[cst.CSTNode] = field(default_factory=list)
    """Ancestors of the node being visited, outermost first (the node itself excluded)."""
    imports: dict[str, str] = field(default_factory=dict)
    """Local name -> qualified name, for the imports seen so far in this module."""
    reports: list[PendingReport] = field(default_factory=list)
    facts: FileFacts | None = None
    """The file's facts, when the engine has them (read its tools with ``tools()``)."""
    find_tools: "Callable[[], tuple[ToolFact, ...]] | None" = None
    """Set when the facts hold no tools yet (a run of per-file rules alone): finding them
    builds the file's agent model, so that is left until a rule asks (``tools()``)."""

    def tools(self) -> tuple[ToolFact, ...]:
        """The tools the file declares."""
        if self.find_tools is not None:
            return self.find_tools()
        return self.facts.tools if self.facts is not None else ()

    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        """The dotted name of a Name/Attribute chain, its first segment resolved through
        this module's imports (`np.zeros` with `import numpy as np` -> `numpy.zeros`)."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        resolved = self.imports.get(head)
        if resolved is None:
            return dotted
        return f"{resolved}.{rest}" if rest else resolved


def dotted_name(expr: cst.CSTNode) -> str | None:
    """`a.b.c` for a chain of Attribute/Name nodes, else None."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


class Prefilter(Protocol):
    """Anything with a regex-like ``search`` over a file's bytes."""

    def search(self, content: bytes, /) -> object: ...


class Rule:
    """Base class of per-file rules."""

    meta: ClassVar[RuleMeta]
    prefilter: ClassVar["re.Pattern[bytes] | Prefilter | None"] = None
    """When set, files whose bytes do not match (``prefilter.search(content)`` is
    falsy) are not given to this rule: a cheap way to skip work. A compiled bytes regex,
    or any object with such a ``search``. It must never exclude a file in which the rule
    can fire."""

    reads_agents: ClassVar[bool] = True
    """Whether the rule reads the agent model's facts (``facts.tools``...): when no
    project or model rule is selected, the model is built only for files such a rule
    is run on."""

    @classmethod
    def needs_cst(cls, tree: ast.Module, facts: FileFacts, settings: dict[str, Any]) -> bool:
        """Whether this file can hold a finding of the rule, decided from the file's ``ast``
        tree and facts after the byte ``prefilter`` matched. False spares the LibCST parse
        (most of the cost of a check); it must be False only where the rule, run on the
        LibCST tree, would report nothing. ``tests/test_cst_prefilter.py`` runs every rule
        with and without this decision and requires the same findings."""
        return True

    @classmethod
    def cst_regions(cls, tree: ast.Module, facts: FileFacts, settings: dict[str, Any]) -> "list[Region] | None":
        """The top-level statements (indexes into ``tree.body``) that the rule can report
        in and that hold everything its report needs, or None for the whole module (the
        default: a rule that reads imports from the tree, or offers fixes). A class or a
        function may be given as (its index, the regions of its body the rule can report
        in), at any depth: LibCST then sees its header with those members only. When
        every rule run on a file names its statements, LibCST parses only those lines."""
        return None

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.settings = context.settings

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        fix: Fix | None = None,
        related: Iterable[RelatedLocation] = (),
        replace_with: "cst.CSTNode | str | None" = None,
        edits: Sequence[NodeEdit] = (),
        fix_message: str = "",
        fix_safe: bool = True,
        ancestors: Sequence[cst.CSTNode] | None = None,
    ) -> None:
        """Report ``node``. With ``replace_with``, offer a fix that replaces the node's
        source text with that node (or text); with ``edits``, a fix made of those edits
        (all applied or none). ``fix_safe`` has ruff's meaning. ``ancestors`` are the
        node's ancestors when it is reported outside its own visit (by default, the
        ancestors of the node being visited)."""
        replacement = None
        if replace_with is not None or edits:
            replacement = NodeFix(replace_with, fix_message or "Apply the suggested fix", fix_safe, tuple(edits))
        chain = tuple(self.context.ancestors if ancestors is None else ancestors)
        self.context.reports.append(PendingReport(self.meta, node, message, fix, tuple(related), chain, replacement))


@dataclass
class ModelContext:
    """What a model rule sees: the file's agent model (tools, agents, model calls), read
    from the stdlib `ast` tree; no LibCST parse is needed."""

    path: str
    source: str
    settings: Mapping[str, Any]
    model: Any
    """An ``agentlint.facts.agents.model.FileModel``."""


class ModelRule:
    """Base class of per-file rules over the agent model (``facts.agents.model.FileModel``): tool
    boundary and composition rules. They return diagnostics with `ast` positions."""

    meta: ClassVar[RuleMeta]
    about_tools: ClassVar[bool] = True
    """Whether the rule looks at tools: the project phase runs it again on the tools it
    declares in one module for another (``engine.cross_module_tools``)."""

    def __init__(self, context: ModelContext) -> None:
        self.context = context
        self.settings = context.settings
        self.found: list[Diagnostic] = []

    @staticmethod
    def wants_file(tree: Any, facts: FileFacts, source: str, settings: Mapping[str, Any]) -> bool:
        """Whether a file without tool or agent vocabulary (which is not modelled by
        default) must be modelled for this rule: a cheap test over what is at hand."""
        return False

    def check(self) -> Sequence[Diagnostic]:
        raise NotImplementedError

    def report(
        self,
        line: int,
        column: int,
        message: str,
        *,
        end_line: int | None = None,
        end_column: int | None = None,
        related: Iterable[RelatedLocation] = (),
    ) -> None:
        """Report at 1-based ``line``/``column`` (characters)."""
        start = Position(line, column)
        end = Position(end_line or line, end_column if end_column is not None else column)
        self.found.append(
            Diagnostic(
                code=self.meta.code,
                name=self.meta.name,
                message=message,
                path=self.context.path,
                span=Span(start, end),
                help=self.meta.help,
                related=tuple(related),
            )
        )

    def report_node(self, node: Any, message: str, **kw: Any) -> None:
        """Report an `ast` node (its columns converted from UTF-8 bytes)."""
        model = self.context.model
        line = node.lineno
        end_line = getattr(node, "end_lineno", None) or line
        column = model.column(line, node.col_offset)
        end_column = model.column(end_line, node.end_col_offset) if getattr(node, "end_col_offset", None) is not None else column
        if end_line > line:
            # a multi-line construct is reported on its first line
            end_line, end_column = line, len(model.lines[line - 1].rstrip()) + 1 if line <= len(model.lines) else column
        self.report(line, column, message, end_line=end_line, end_column=end_column, **kw)


@dataclass(frozen=True)
class ProjectContext:
    """What a project rule sees: the facts of every file of the project."""

    facts: Mapping[str, FileFacts]
    """Path -> facts, for every file of the project (not only those passed)."""
    settings: Mapping[str, Any]
    reported: frozenset[str] | None = None
    """The files whose findings the run reports (a partial run's checked files), when
    not all: a rule may leave out the findings it would make only in other files."""


class ProjectRule:
    """Base class of project-wide rules: they read facts, never trees."""

    meta: ClassVar[RuleMeta]
    borrowed_settings: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """Settings of other rules this rule also reads (rule code -> keys)."""
    reads: ClassVar[frozenset[str]] = OPTIONAL_FACTS
    """Which of the ``OPTIONAL_FACTS`` this rule reads. A run without cache extracts them
    only for a selected rule that reads them (a cache keeps them all, for explain)."""

    def __init__(self, context: ProjectContext) -> None:
        self.context = context
        self.settings = context.settings

    def check(self) -> Sequence[Diagnostic]:
        raise NotImplementedError

    def diagnostic(self, path: str, line: int, message: str, **kw: Any) -> Diagnostic:
        return Diagnostic(
            code=self.meta.code,
            name=self.meta.name,
            message=message,
            path=path,
            span=Span.at_line(line),
            help=self.meta.help,
            **kw,
        )


def import_table(imports: "Iterable[ImportFact]") -> dict[str, str]:
    return {i.local: i.qualified for i in imports}
