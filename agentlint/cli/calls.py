"""`agentlint calls [PATHS]`: the inventory of model calls, and which of them go through
the project's instrumented path (the written inventory the cost-and-budget standard
asks for). Read from the same cached facts as `check`; the statuses are AGL106's
(``rules.cost_calls``), per project."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

import click

from agentlint.cli.inventory_run import checked_paths, facts_of
from agentlint.cli.options import caching, configuration, file_selection
from agentlint.engine.boundaries import ProjectMap, split_by_project
from agentlint.engine.discovery import display_path
from agentlint.engine.project import rule_settings_of
from agentlint.facts.notebooks import CellMap
from agentlint.rules.cost_calls import CallBypassesCostAccounting, CallRow, inventory

EXIT_FOUND, EXIT_NOTHING = 0, 1
_STATUS = {"bypass": "BYPASS", "unaccounted": "-", "instrumented": "ok"}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--format", "--output-format", "fmt", type=click.Choice(("text", "json")), default="text",
              show_default=True, help="How to print the inventory.")
@file_selection
@configuration
@caching
def calls(
    paths: tuple[str, ...],
    fmt: str,
    exclude: Sequence[str],
    extend_exclude: Sequence[str],
    respect_gitignore: bool | None,
    config_file: Path | None,
    isolated: bool,
    cache_dir: str | None,
    no_cache: bool,
    jobs: int | None,
) -> None:
    """List the model calls and agent runs found in PATHS (default: the current folder):
    provider, call, file:line, the enclosing function, and whether the call goes through
    the project's instrumented path (the functions in AGL106's `instrumented-callables`
    or AGL101's `cost-functions`, or else the functions that account for their calls'
    usage). Calls that bypass it are listed first.

    Exit status: 0 calls were found, 1 none were, 2 usage or configuration error.
    """

    paths_list = checked_paths(paths)
    settings, found, result = facts_of(
        paths_list, exclude=exclude, extend_exclude=extend_exclude, respect_gitignore=respect_gitignore,
        config_file=config_file, isolated=isolated, cache_dir=cache_dir, no_cache=no_cache, jobs=jobs,
    )
    facts = {p: r.facts for p, r in result.results.items() if r.facts is not None}
    cells = {p: CellMap(r.cells) for p, r in result.results.items() if r.cells}
    rule_settings = rule_settings_of(CallBypassesCostAccounting, settings)
    rows: list[CallRow] = []
    for group in split_by_project(facts, ProjectMap(settings)):
        rows += inventory(group, rule_settings)
    order = {"bypass": 0, "unaccounted": 1, "instrumented": 2}
    rows.sort(key=lambda r: (order[r.status], r.path, r.call.line, r.call.column))
    for problem in found.problems:
        click.echo(f"agentlint: warning: {problem.path}: {problem.reason}", err=True)

    if fmt == "json":
        payload = [
            {
                "status": row.status,
                "provider": row.call.provider or None,
                "call": row.call.form,
                "kind": row.call.kind,
                "filename": display_path(row.path),
                "cell": _where(row, cells)[0],
                "line": _where(row, cells)[1],
                "column": row.call.column,
                "function": row.call.scope if row.call.scope != "<module>" else None,
                "accounting": row.why or None,
            }
            for row in rows
        ]
        click.echo(json.dumps(payload, indent=2))
    elif rows:
        click.echo(_table(rows, cells))
        bypass = sum(1 for r in rows if r.status == "bypass")
        files = len({r.path for r in rows})
        summary = f"\n{len(rows)} model call{'s' if len(rows) != 1 else ''} in {files} file{'s' if files != 1 else ''}"
        if bypass:
            summary += f", {bypass} outside the instrumented path"
        elif not any(r.status == "instrumented" for r in rows):
            summary += "; no instrumented path found (list it in `instrumented-callables`)"
        click.echo(summary + ".")
    if not rows:
        click.echo("No model calls found.", err=True)
    sys.exit(EXIT_FOUND if rows else EXIT_NOTHING)


def _where(row: CallRow, cells: dict[str, CellMap]) -> tuple[int | None, int]:
    """(cell, line) of a call: a notebook's facts are in virtual lines."""
    cell_map = cells.get(row.path)
    if cell_map is None:
        return None, row.call.line
    return cell_map.locate(row.call.line)


def _table(rows: list[CallRow], cells: dict[str, CellMap]) -> str:
    header = ("STATUS", "PROVIDER", "CALL", "LOCATION", "FUNCTION", "ACCOUNTING")
    lines = [header]
    for row in rows:
        call = row.call
        lines.append((
            _STATUS[row.status],
            call.provider or "?",
            call.form + ("()" if call.kind == "model" else "() [agent run]"),
            _location(row, cells),
            call.scope if call.scope != "<module>" else "(module)",
            row.why or "-",
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line[:-1])) + "  " + line[-1]
        for line in lines
    )


def _location(row: CallRow, cells: dict[str, CellMap]) -> str:
    cell, line = _where(row, cells)
    where = display_path(row.path)
    return f"{where}:cell {cell}:{line}" if cell is not None else f"{where}:{line}"
