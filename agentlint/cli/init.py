"""`agentlint init`: write a [tool.agentlint] table of suggestions into pyproject.toml."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentlint.adopt.init import (
    COST_SETTING,
    MAX_SUGGESTIONS,
    PROMPT_SETTING,
    InitError,
    scan,
    table_text,
    write_table,
)


@click.command()
@click.argument("folder", required=False, default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace an existing [tool.agentlint] table.")
def init(folder: Path, force: bool) -> None:
    """Write a [tool.agentlint] table into FOLDER/pyproject.toml (default: here).

    The table holds commented suggestions from the code: the frameworks it imports,
    candidate cost formulas and prompt composers. Comments and layout of an existing
    pyproject.toml are kept.
    """

    if not folder.is_dir():
        click.echo(f"agentlint: error: {folder}: no such folder", err=True)
        sys.exit(2)
    found = scan(folder)
    try:
        written = write_table(folder, table_text(found), force=force)
    except InitError as exc:
        click.echo(f"agentlint: error: {exc}", err=True)
        sys.exit(2)
    action = "created" if written.created else "replaced the table in" if written.replaced else "added the table to"
    click.echo(f"agentlint init: {action} {written.path}")
    if found.frameworks:
        click.echo(f"  frameworks seen: {', '.join(sorted(found.frameworks))}")
    for setting, names in ((COST_SETTING, found.cost_functions), (PROMPT_SETTING, found.prompt_composers)):
        if names:
            click.echo(f"  suggested {setting} (commented out): {', '.join(names[:MAX_SUGGESTIONS])}")
    click.echo("Next: `agentlint check --write-baseline agentlint-baseline.json` records today's findings;")
    click.echo("then `agentlint check --baseline agentlint-baseline.json` reports only new ones.")
