"""Findings in notebooks mapped from the virtual lines the analysis reads (every code
cell one after the other, see ``facts.notebooks``) to cells and their own lines, for
the finding, its fix and the related locations pointing into a notebook."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentlint.facts.notebooks import CellMap, from_disk, is_notebook
from agentlint.rules.diagnostics import Edit, Fix, Position, Span


def _span_in_cell(cells: CellMap, span) -> tuple[int, Any]:
    cell, start = cells.locate(span.start.line)
    end_cell, end = cells.locate(span.end.line)
    if end_cell != cell:
        # A span cannot cross cells (cells are separate statements); clamp it.
        end, end_column = start, span.start.column
    else:
        end_column = span.end.column
    return cell, Span(Position(start, span.start.column), Position(end, end_column))


def map_diagnostic(diagnostic, cells: CellMap | None, lookup=None):
    """``diagnostic`` with its span (and its fix's edits, and related locations in
    notebooks) turned from virtual lines into cell lines. ``lookup(path)`` gives the
    CellMap of another notebook a related location points into."""
    changes: dict[str, Any] = {}
    if cells is not None and diagnostic.cell is None:
        cell, span = _span_in_cell(cells, diagnostic.span)
        changes["cell"], changes["span"] = cell, span
        fix = diagnostic.fix
        if fix is not None:
            edits = []
            for edit in fix.edits:
                edit_cell, edit_span = _span_in_cell(cells, edit.span)
                if edit_cell != cell or cells.locate(edit.span.end.line)[0] != cell:
                    edits = None
                    break
                edits.append(Edit(edit_span, edit.content))
            changes["fix"] = Fix(fix.message, tuple(edits), fix.safe) if edits is not None else None
    related = []
    for r in diagnostic.related:
        other = cells if r.path == diagnostic.path else (lookup(r.path) if lookup and is_notebook(r.path) else None)
        if other is not None and r.cell is None:
            cell, span = _span_in_cell(other, r.span)
            r = replace(r, cell=cell, span=span)
        related.append(r)
    if any(a is not b for a, b in zip(related, diagnostic.related)):
        changes["related"] = tuple(related)
    return replace(diagnostic, **changes) if changes else diagnostic


def lookup_on_disk(path: str) -> CellMap | None:
    source = from_disk(path)
    return None if source is None else source.cells


def to_cells(diagnostics: list, cell_maps: dict[str, tuple[tuple[int, int, int], ...]]) -> list:
    """Findings in notebooks, or pointing into one, with cell lines (``engine.finalize``
    calls this last: suppressions and per-file-ignores work on virtual lines)."""
    maps = {path: CellMap(ranges) for path, ranges in cell_maps.items()}

    def lookup(path: str) -> CellMap | None:
        return maps.get(path) or lookup_on_disk(path)

    out = []
    for d in diagnostics:
        if d.path in maps or any(is_notebook(r.path) for r in d.related):
            d = map_diagnostic(d, maps.get(d.path), lookup)
        out.append(d)
    return out
