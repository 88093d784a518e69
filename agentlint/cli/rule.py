"""`agentlint rule CODE`: a rule's documentation in the terminal, or as JSON."""

from __future__ import annotations

import json

import click

from agentlint.cli.common import fail
from agentlint.engine.config import ConfigError, resolve_selector
from agentlint.report.rule_docs import render_rule
from agentlint.rules.diagnostics import RuleMeta
from agentlint.rules.registry import all_rules, rule_module


def rule_object(meta: RuleMeta) -> dict:
    """One rule as JSON (ruff's `rule --output-format json` keys where they apply:
    ``code``, ``name``, ``summary``, ``explanation``, ``fix``), plus its settings and
    whether it is on by default."""
    return {
        "code": meta.code,
        "default_selected": meta.default_selected,
        "explanation": render_rule(meta),
        "fix": "Fix is available" if meta.fixable else "Fix is not available",
        "fixable": meta.fixable,
        "help": meta.help,
        "module": rule_module(meta.code),
        "name": meta.name,
        "settings": meta.settings,
        "summary": meta.summary,
    }


@click.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print the documentation of every rule.")
@click.option(
    "--output-format",
    type=click.Choice(("text", "json")),
    default="text",
    help="text (the rule's page) or json (an object; with --all, a list of them).",
)
def rule(code: str | None, show_all: bool, output_format: str) -> None:
    """Print the documentation of rule CODE (for example AGL302)."""
    rules = all_rules()
    as_json = output_format == "json"
    if show_all:
        if as_json:
            click.echo(json.dumps([rule_object(m) for m in rules.values()], indent=2, sort_keys=True))
        else:
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
    if as_json:
        click.echo(json.dumps(rule_object(meta), indent=2, sort_keys=True))
    else:
        click.echo(render_rule(meta).rstrip())
