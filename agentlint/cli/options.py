"""Options shared by the commands (`check`, `explain`, `tools`): declared once, so
they read and behave the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import click


def _stack(*decorators: Callable) -> Callable:
    def apply(func: Callable) -> Callable:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


file_selection = _stack(
    click.option("--exclude", multiple=True, metavar="GLOB", help="Replace the default excludes with these patterns."),
    click.option("--extend-exclude", multiple=True, metavar="GLOB", help="Patterns to exclude on top of the defaults."),
    click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files ignored by .gitignore (default: yes)."),
)
"""--exclude, --extend-exclude, --respect-gitignore."""

configuration = _stack(
    click.option("--config", "config_file", type=click.Path(path_type=Path), help="Read this configuration file (pyproject.toml or agentlint.toml)."),
    click.option("--isolated", is_flag=True, help="Ignore all configuration files."),
)
"""--config, --isolated."""

caching = _stack(
    click.option("--cache-dir", type=click.Path(path_type=str), help="Where to keep the cache (default: .agentlint_cache)."),
    click.option("--no-cache", is_flag=True, help="Neither read nor write the cache."),
    click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes for files not in the cache (default: the number of CPUs)."),
)
"""--cache-dir, --no-cache, -j/--jobs."""
