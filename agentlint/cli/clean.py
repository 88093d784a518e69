"""`agentlint clean [PATHS]`: remove agentlint's cache folders.

It removes the cache folder of the working folder's configuration (or `--cache-dir`)
and every cache folder under PATHS (default: the working folder), as `ruff clean`
does. Only folders that are agentlint's own are removed: those holding the
`CACHEDIR.TAG` agentlint writes when it creates a cache (``engine.cache``); any other
folder, even one named `.agentlint_cache`, is left alone with a warning.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from agentlint.cli.common import EXIT_CLEAN
from agentlint.cli.options import configuration
from agentlint.engine.cache import is_cache_folder, remove_cache_folder
from agentlint.engine.config import DEFAULT_EXCLUDES, ConfigError, Overrides
from agentlint.engine.discovery import display_path
from agentlint.engine.resolver import Resolver
from agentlint.rules import registry

_SKIP = frozenset(DEFAULT_EXCLUDES)
"""Folders not searched for caches (virtualenvs, build output, ...): the default excludes."""


def _cache_folders(top: str):
    """Cache folders of ours under ``top`` (symlinked folders are not followed)."""
    if is_cache_folder(top):
        yield top
        return
    for folder, subdirs, _files in os.walk(top):
        keep = []
        for name in sorted(subdirs):
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            if is_cache_folder(path):
                yield path
            elif name not in _SKIP:
                keep.append(name)
        subdirs[:] = keep


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=str))
@configuration
@click.option("--cache-dir", type=click.Path(path_type=str), help="Also remove this cache folder.")
def clean(paths: tuple[str, ...], config_file: Path | None, isolated: bool, cache_dir: str | None) -> None:
    """Remove agentlint's cache folders: the configured one and every one under PATHS
    (default: the current folder)."""
    candidates: list[str] = []
    if cache_dir:
        candidates.append(os.path.abspath(cache_dir))
    try:
        resolver = Resolver(rules=registry.all_rules(), overrides=Overrides(), config_file=config_file, isolated=isolated)
        candidates.append(resolver.current.cache_dir)
    except ConfigError as exc:
        click.echo(f"agentlint: warning: {exc}; removing the cache folders found under the paths only", err=True)
    removed: set[str] = set()
    for candidate in candidates:
        if not os.path.exists(candidate):
            continue
        real = os.path.realpath(candidate)
        if real in removed:
            continue
        if remove_cache_folder(candidate):
            removed.add(real)
            click.echo(f"Removed {display_path(candidate)}")
        else:
            click.echo(
                f"agentlint: warning: not removing {display_path(candidate)}: it is not an agentlint cache "
                "(no agentlint CACHEDIR.TAG in it)",
                err=True,
            )
    for top in paths or (".",):
        for folder in _cache_folders(top):
            real = os.path.realpath(folder)
            if real not in removed and remove_cache_folder(folder):
                removed.add(real)
                click.echo(f"Removed {display_path(folder)}")
    if not removed:
        click.echo("No agentlint cache found.")
    raise SystemExit(EXIT_CLEAN)
