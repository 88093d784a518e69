"""What every command shares: exit codes, how an error stops a run, colour, code lists."""

from __future__ import annotations

import os
import sys
from typing import NoReturn, Sequence

import click

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def code_list(values: Sequence[str]) -> list[str] | None:
    """`--select A,B --select C` -> [A, B, C]; None when the option was not given."""
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def fail(message: str, details: Sequence[str] = ()) -> NoReturn:
    """Print ``message`` (and each line of ``details``, indented) on stderr; exit 2."""
    click.echo(f"agentlint: error: {message}", err=True)
    for line in details:
        click.echo(f"  {line}", err=True)
    sys.exit(EXIT_ERROR)


def use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()
