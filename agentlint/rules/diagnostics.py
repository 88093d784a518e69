"""What a rule reports: positions, spans, fixes, diagnostics and rule metadata.

Plain, frozen dataclasses that round-trip through JSON (``to_json``/``from_json``), so
per-file results can live in the cache and cross process boundaries without pickling
LibCST trees. Every later stage (engine, reporters, adoption) speaks in these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Position:
    """A place in a file: 1-based line, 1-based column (in characters)."""

    line: int
    column: int


@dataclass(frozen=True)
class Span:
    start: Position
    end: Position

    @staticmethod
    def at_line(line: int) -> "Span":
        return Span(Position(line, 1), Position(line, 1))

    def to_json(self) -> list[int]:
        return [self.start.line, self.start.column, self.end.line, self.end.column]

    @staticmethod
    def from_json(data: list[int]) -> "Span":
        return Span(Position(data[0], data[1]), Position(data[2], data[3]))


@dataclass(frozen=True)
class RelatedLocation:
    """Another place a diagnostic points at (the other copy, the other assembly site)."""

    path: str
    span: Span
    message: str = ""
    cell: int | None = None
    """For a notebook: the cell (1-based, among all cells); ``span`` is then in the cell."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "span": self.span.to_json(), "message": self.message}
        if self.cell is not None:
            data["cell"] = self.cell
        return data

    @staticmethod
    def from_json(data: dict[str, Any]) -> "RelatedLocation":
        return RelatedLocation(data["path"], Span.from_json(data["span"]), data.get("message", ""), data.get("cell"))


@dataclass(frozen=True)
class Edit:
    """Replace the text between ``span.start`` and ``span.end`` with ``content``."""

    span: Span
    content: str

    def to_json(self) -> dict[str, Any]:
        return {"span": self.span.to_json(), "content": self.content}

    @staticmethod
    def from_json(data: dict[str, Any]) -> "Edit":
        return Edit(Span.from_json(data["span"]), data["content"])


@dataclass(frozen=True)
class Fix:
    """A fix offered with a diagnostic. ``safe`` has ruff's meaning: no behaviour change."""

    message: str
    edits: tuple[Edit, ...]
    safe: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "edits": [e.to_json() for e in self.edits],
            "safe": self.safe,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> "Fix":
        return Fix(data["message"], tuple(Edit.from_json(e) for e in data["edits"]), data["safe"])


@dataclass(frozen=True)
class Diagnostic:
    """One finding: what every rule produces and every reporter consumes."""

    code: str
    name: str
    message: str
    path: str
    span: Span
    help: str = ""
    related: tuple[RelatedLocation, ...] = ()
    fix: Fix | None = None
    cell: int | None = None
    """For a notebook (`.ipynb`): the cell, 1-based among all the notebook's cells
    (markdown cells count); ``span`` and the fix's edits are then lines of that cell.
    None for a Python file."""
    severity: str = "error"
    """"error" (a finding: it fails the run) or "note" (information: shown, counted
    apart, never changes the exit status)."""

    @property
    def line(self) -> int:
        return self.span.start.line

    def sort_key(self) -> tuple[Any, ...]:
        return (self.path, self.cell or 0, self.span.start, self.code, self.message)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "span": self.span.to_json(),
        }
        if self.help:
            data["help"] = self.help
        if self.related:
            data["related"] = [r.to_json() for r in self.related]
        if self.fix is not None:
            data["fix"] = self.fix.to_json()
        if self.cell is not None:
            data["cell"] = self.cell
        if self.severity != "error":
            data["severity"] = self.severity
        return data

    @staticmethod
    def from_json(data: dict[str, Any], path: str) -> "Diagnostic":
        fix = data.get("fix")
        return Diagnostic(
            code=data["code"],
            name=data["name"],
            message=data["message"],
            path=path,
            span=Span.from_json(data["span"]),
            help=data.get("help", ""),
            related=tuple(RelatedLocation.from_json(r) for r in data.get("related", ())),
            fix=Fix.from_json(fix) if fix else None,
            cell=data.get("cell"),
            severity=data.get("severity", "error"),
        )


@dataclass(frozen=True)
class RuleMeta:
    """Rule metadata; the single source for `agentlint rule`, the docs pages and SARIF."""

    code: str
    name: str
    summary: str
    docs: str
    """Markdown body: What it does / Why is this bad? / Example / Use instead / ..."""
    fixable: bool = False
    default_selected: bool = True
    settings: dict[str, Any] = field(default_factory=dict)
    """Per-rule settings and their defaults (`[tool.agentlint.rules.CODE]`)."""
    help: str = ""
    """One line telling the user what to do, shown under each finding."""
