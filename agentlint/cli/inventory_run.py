"""What the inventory commands (`tools`, `calls`) share: every file's facts under the
paths given, read through the same cache and settings as `check`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from agentlint.cli.common import fail
from agentlint.engine.config import ConfigError, Overrides, Settings, load_settings
from agentlint.engine.discovery import Discovery, discover
from agentlint.engine.run import RunResult, run
from agentlint.rules import registry


def checked_paths(paths: Sequence[str]) -> list[str]:
    """The paths given (default: the current folder); a missing one stops the command."""
    given = list(paths) or ["."]
    for path in given:
        if path == "-" or not os.path.exists(path):
            fail(f"`{path}`: no such file or folder")
    return given


def facts_of(
    paths: list[str],
    *,
    exclude: Sequence[str],
    extend_exclude: Sequence[str],
    respect_gitignore: bool | None,
    config_file: Path | None,
    isolated: bool,
    cache_dir: str | None,
    no_cache: bool,
    jobs: int | None,
) -> tuple[Settings, Discovery, RunResult]:
    """The settings of the first path, what discovery found (and could not read) and the
    run, with every file's facts, over ``paths``."""
    try:
        settings = load_settings(
            start=Path(paths[0]),
            config_file=config_file,
            isolated=isolated,
            overrides=Overrides(
                exclude=list(exclude) or None,
                extend_exclude=list(extend_exclude) or None,
                respect_gitignore=respect_gitignore,
                cache_dir=cache_dir,
            ),
            rules=registry.all_rules(),
        )
    except ConfigError as exc:
        fail(str(exc))
    found = discover(paths, settings)
    return settings, found, run(found.files, settings, jobs=jobs, use_cache=not no_cache, keep_facts=True)
