"""The rule API: the only module a rule needs to import (besides libcst and knowledge).

A per-file rule is a class with ``visit_<NodeType>`` / ``leave_<NodeType>`` methods,
like a LibCST visitor. The engine runs every selected rule in one traversal of the tree
(see ``traversal.py``); rules never walk the tree themselves. ``report`` is the only way
out. A project rule sees the facts of every file at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, Sequence

import libcst as cst

from agentlint.types import Diagnostic, FileFacts, Fix, RelatedLocation, RuleMeta

if TYPE_CHECKING:
    from agentlint.types import ImportFact


@dataclass
class PendingReport:
    """A report whose position is computed only if it survives (positions cost a walk)."""

    rule: "Rule"
    node: cst.CSTNode
    message: str
    fix: Fix | None
    related: tuple[RelatedLocation, ...]
    ancestors: tuple[cst.CSTNode, ...]
    """The ancestors of ``node`` when it was reported (positions are computed from them)."""
    replacement: "NodeFix | None" = None


@dataclass(frozen=True)
class NodeFix:
    """A fix expressed on the tree: replace the reported node's source with
    ``replacement`` (a node, rendered by LibCST, or source text). The engine turns it
    into a text `Fix` once the node's position is known."""

    replacement: "cst.CSTNode | str"
    message: str
    safe: bool = True


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


class Rule:
    """Base class of per-file rules."""

    meta: ClassVar[RuleMeta]
    prefilter: ClassVar[re.Pattern[bytes] | None] = None
    """When set, files whose bytes do not match are not given to this rule: a cheap
    way to skip work. It must never exclude a file in which the rule can fire."""

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
        fix_message: str = "",
        fix_safe: bool = True,
    ) -> None:
        """Report ``node``. With ``replace_with``, offer a fix that replaces the node's
        source text with that node (or text); ``fix_safe`` has ruff's meaning."""
        replacement = (
            NodeFix(replace_with, fix_message or "Apply the suggested fix", fix_safe)
            if replace_with is not None
            else None
        )
        self.context.reports.append(
            PendingReport(self, node, message, fix, tuple(related), tuple(self.context.ancestors), replacement)
        )


@dataclass(frozen=True)
class ProjectContext:
    """What a project rule sees: the facts of every file of the project."""

    facts: Mapping[str, FileFacts]
    """Path -> facts, for every file of the project (not only those passed)."""
    settings: Mapping[str, Any]


class ProjectRule:
    """Base class of project-wide rules: they read facts, never trees."""

    meta: ClassVar[RuleMeta]

    def __init__(self, context: ProjectContext) -> None:
        self.context = context
        self.settings = context.settings

    def check(self) -> Sequence[Diagnostic]:
        raise NotImplementedError

    def diagnostic(self, path: str, line: int, message: str, **kw: Any) -> Diagnostic:
        from agentlint.types import Span

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
