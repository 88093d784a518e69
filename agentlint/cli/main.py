"""The `agentlint` command group. Each command lives in its own module, loaded when it
is run or listed: `agentlint check` on one file (what pre-commit runs on every commit)
does not pay for importing explain, the tool inventory or `init`."""

from __future__ import annotations

import importlib
import sys
import traceback

import click

from agentlint import DISTRIBUTION, __version__
from agentlint.cli.common import EXIT_ERROR
from agentlint.engine.collector import start_up_done

COMMANDS = {
    "calls": "agentlint.cli.calls",
    "check": "agentlint.cli.check",
    "clean": "agentlint.cli.clean",
    "explain": "agentlint.cli.explain",
    "init": "agentlint.cli.init",
    "rule": "agentlint.cli.rule",
    "tools": "agentlint.cli.tools",
}
"""Command name -> the module defining a click command of that name."""


class _Commands(click.Group):
    """A group whose commands are imported on first use (click's lazy-loading pattern),
    and whose every unexpected error ends the run with exit status 2: 1 means "findings",
    and CI must be able to tell a lost run from a normal one."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            sys.exit(EXIT_ERROR)  # the reader went away (`| head`): nothing left to say
        except BaseException as exc:  # a bug: say so plainly, exit 2
            click.echo(
                f"agentlint: internal error: {type(exc).__name__}: {exc}\n"
                "Please report it with the command and, if you can, the file it was checking.\n"
                + "".join(traceback.format_exception(exc)).rstrip(),
                err=True,
            )
            sys.exit(EXIT_ERROR)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = getattr(importlib.import_module(module), cmd_name)
        start_up_done()  # most of what the command needs is loaded (see ``cli.entry``)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name=DISTRIBUTION, message="%(prog)s %(version)s")
def main() -> None:
    """agentlint: a linter for Python AI-agent code."""


if __name__ == "__main__":
    main()
