"""The `agentlint` command group. Each command lives in its own module, loaded when it
is run or listed: `agentlint check` on one file (what pre-commit runs on every commit)
does not pay for importing explain, the tool inventory or `init`."""

from __future__ import annotations

import importlib

import click

from agentlint import DISTRIBUTION, __version__

COMMANDS = {
    "check": "agentlint.cli.check",
    "explain": "agentlint.cli.explain",
    "init": "agentlint.cli.init",
    "rule": "agentlint.cli.rule",
    "tools": "agentlint.cli.tools",
}
"""Command name -> the module defining a click command of that name."""


class _Commands(click.Group):
    """A group whose commands are imported on first use (click's lazy-loading pattern)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        return getattr(importlib.import_module(module), cmd_name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name=DISTRIBUTION, message="%(prog)s %(version)s")
def main() -> None:
    """agentlint: a linter for Python AI-agent code."""


if __name__ == "__main__":
    main()
