"""`agentlint rule CODE`: a rule's documentation in the terminal."""

from __future__ import annotations

import click

from agentlint.cli.common import fail
from agentlint.engine.config import ConfigError, resolve_selector
from agentlint.report.rule_docs import render_rule
from agentlint.rules.registry import all_rules


@click.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print the documentation of every rule.")
def rule(code: str | None, show_all: bool) -> None:
    """Print the documentation of rule CODE (for example AGL302)."""
    rules = all_rules()
    if show_all:
        click.echo("\n\n".join(render_rule(m).rstrip() for m in rules.values()))
        return
    if not code:
        fail("give a rule code (for example `agentlint rule AGL302`) or `--all`")
    wanted = code.upper()
    meta = rules.get(wanted) or next((m for m in rules.values() if m.name == code), None)
    if meta is None:
        try:
            resolve_selector(code, rules)
        except ConfigError as exc:
            fail(str(exc))
        fail(f"`{code}` is a prefix, not one rule; try `agentlint rule --all`")
    click.echo(render_rule(meta).rstrip())
