"""`agentlint tools [PATHS]`: the inventory of what agentlint takes for a tool.

Before trusting AGL201/AGL202/AGL501/AGL502, users need to see which defs agentlint
believes are tools, of which framework, and which parameters it thinks the model fills
(and why the others are injected). Read from the same cached facts as `check`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

import click

from agentlint.cli.common import fail
from agentlint.cli.inventory_run import checked_paths, facts_of
from agentlint.cli.options import caching, configuration, file_selection
from agentlint.engine import cross_module_tools
from agentlint.engine.discovery import display_path
from agentlint.knowledge.frameworks import FRAMEWORK_NAMES

EXIT_FOUND, EXIT_NOTHING = 0, 1


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--format", "--output-format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True, help="How to print the inventory.")
@click.option("--framework", "frameworks", multiple=True, metavar="NAME", help="Only tools of this framework (repeatable), e.g. langchain.")
@file_selection
@configuration
@caching
def tools(
    paths: tuple[str, ...],
    fmt: str,
    frameworks: Sequence[str],
    exclude: Sequence[str],
    extend_exclude: Sequence[str],
    respect_gitignore: bool | None,
    config_file: Path | None,
    isolated: bool,
    cache_dir: str | None,
    no_cache: bool,
    jobs: int | None,
) -> None:
    """List the tools found in PATHS (default: the current folder): framework, name,
    file:line, the parameters the model fills and the ones the framework injects, and
    the irreversible effects each reaches with what protects them (AGL203).

    Exit status: 0 tools were found, 1 none were, 2 usage or configuration error.
    """

    paths_list = checked_paths(paths)
    unknown = [f for f in frameworks if f not in FRAMEWORK_NAMES]
    if unknown:
        fail(f"unknown framework `{unknown[0]}`; one of: {', '.join(sorted(FRAMEWORK_NAMES))}")
    settings, found, result = facts_of(
        paths_list, exclude=exclude, extend_exclude=extend_exclude, respect_gitignore=respect_gitignore,
        config_file=config_file, isolated=isolated, cache_dir=cache_dir, no_cache=no_cache, jobs=jobs,
    )

    # functions of one module passed as tools in another become tools there
    all_facts: dict = {}
    for group in cross_module_tools.declare_in_projects(
        {p: r.facts for p, r in result.results.items()}, settings, with_rules=False
    )[1]:
        all_facts.update(group)
    rows = []
    seen_frameworks: set[str] = set()
    for path in sorted(result.results):
        facts = all_facts[path]
        seen_frameworks.update(facts.frameworks)
        for tool in facts.tools:
            if frameworks and tool.framework not in frameworks:
                continue
            rows.append((display_path(path), tool))
    for problem in found.problems:
        click.echo(f"agentlint: warning: {problem.path}: {problem.reason}", err=True)

    if fmt == "json":
        payload = [
            {
                "framework": tool.framework,
                "name": tool.name,
                "filename": path,
                "line": tool.line,
                "column": tool.column,
                "declared_by": tool.how,
                "schema": tool.schema or None,
                "approval": tool.approval or None,
                "irreversible": [
                    {"kind": s.kind, "call": s.text, "line": s.line, "through": list(s.steps),
                     "protected_by": s.protection or (f"approval {tool.approval}" if tool.approval else None)}
                    for s in tool.sinks
                ],
                "model_parameters": [p.name for p in tool.params if not p.injected],
                "injected_parameters": [{"name": p.name, "reason": p.injected} for p in tool.params if p.injected],
            }
            for path, tool in rows
        ]
        click.echo(json.dumps(payload, indent=2))
    elif rows:
        click.echo(_table(rows))
        files = len({p for p, _ in rows})
        click.echo(f"\n{len(rows)} tool{'s' if len(rows) != 1 else ''} in {files} file{'s' if files != 1 else ''}.")
    if not rows:
        hint = ""
        agent_frameworks = sorted(f for f in seen_frameworks if f not in ("openai", "anthropic", "litellm", "google-genai"))
        if agent_frameworks:
            names = ", ".join(FRAMEWORK_NAMES.get(f, f) for f in agent_frameworks)
            hint = (f" The code imports {names}, so tools may be declared in a way agentlint does not know: "
                    "add your decorators to `tool-decorators` and your base classes to `tool-base-classes` "
                    "(see docs/frameworks.md).")
        click.echo(f"No tools found.{hint}", err=True)
    sys.exit(EXIT_FOUND if rows else EXIT_NOTHING)


def _sinks(tool) -> str:
    """The irreversible effects a tool reaches and what protects each; a declared approval
    covers them all."""
    if not tool.sinks:
        return "-"
    if tool.approval:
        return "; ".join(s.describe() for s in tool.sinks) + f" (approval {tool.approval})"
    return "; ".join(f"{s.describe()}: {s.protection or 'unprotected'}" for s in tool.sinks)


def _framework(tool) -> str:
    """The framework column: a project's own framework says what it was inferred from
    (`project-defined (inferred from app.tools.base.Tool)`)."""
    if tool.framework == "project":
        start = tool.how.find("project-defined")
        return tool.how[start:] if start >= 0 else "project-defined"
    return tool.framework


def _table(rows) -> str:
    irreversible = any(tool.sinks for _, tool in rows)
    header: tuple[str, ...] = ("FRAMEWORK", "TOOL", "LOCATION", "MODEL FILLS", "INJECTED")
    if irreversible:
        header = (*header[:-1], "IRREVERSIBLE (PROTECTED BY)", header[-1])
    lines = [header]
    for path, tool in rows:
        model = ", ".join(p.name for p in tool.params if not p.injected) or ("(schema elsewhere)" if tool.schema and not tool.params else "-")
        injected = ", ".join(f"{p.name} ({p.injected})" for p in tool.params if p.injected) or "-"
        row: tuple[str, ...] = (_framework(tool), tool.name, f"{path}:{tool.line}", model)
        if irreversible:
            row += (_sinks(tool),)
        lines.append((*row, injected))
    widths = [max(len(row[i]) for row in lines) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1]
        for row in lines
    )
