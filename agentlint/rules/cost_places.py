"""Helpers shared by the cost rules (AGL101-AGL105): places, test files, spans."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from agentlint.facts.types import CostTermFact, FileFacts
from agentlint.knowledge.test_code import is_test_path
from agentlint.rules.diagnostics import (
    Diagnostic,
    Position,
    RelatedLocation,
    RuleMeta,
    Span,
)


def posix(path: str) -> str:
    return path.replace("\\", "/")


def span_of(item) -> Span:
    return Span(Position(item.line, item.column), Position(item.end_line, item.end_column))


def make(meta: RuleMeta, path: str, item, message: str, related: Sequence[RelatedLocation] = ()) -> Diagnostic:
    return Diagnostic(meta.code, meta.name, message, path, span_of(item), help=meta.help, related=tuple(related))


def places(facts: Mapping[str, FileFacts]) -> dict[tuple[str, str], list[CostTermFact]]:
    """(path, place) -> the cost terms computed there, test files left out."""
    out: dict[tuple[str, str], list[CostTermFact]] = defaultdict(list)
    for path, file_facts in facts.items():
        if not file_facts.cost_terms or is_test_path(path):
            continue
        for term in file_facts.cost_terms:
            out[(path, term.scope)].append(term)
    return out


def place_label(scope: str) -> str:
    return "module-level code" if scope == "<module>" else f"`{scope}`"


def sanctioned(path: str, module: str, scope: str, entries: Iterable[str]) -> bool:
    """Whether the place is listed in a `cost-functions`-style setting: a dotted name
    (`app.billing.compute_cost`, a class or a module covers what is inside it), a bare
    function or class name (`compute_cost`, `Meter`), or `path/to/file.py:func`."""
    dotted = f"{module}.{scope}"
    where = posix(path)
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        if ":" in entry:
            file_part, _, func = entry.partition(":")
            file_part = posix(file_part).lstrip("./") if file_part.startswith("./") else posix(file_part)
            if not (where == file_part or where.endswith("/" + file_part)):
                continue
            if not func or scope == func or scope.startswith(func + "."):
                return True
            continue
        if dotted == entry or dotted.startswith(entry + "."):
            return True
        if "." not in entry and (scope == entry or scope.endswith("." + entry) or scope.startswith(entry + ".")):
            return True
    return False
