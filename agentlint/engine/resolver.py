"""Which configuration holds for each file: the nearest one, as ruff does.

A file is checked with the settings of the nearest `agentlint.toml` or `pyproject.toml`
with a `[tool.agentlint]` table at or above its folder; a file with none above it gets
the settings of the working folder (its nearest configuration, else the defaults).
`--config FILE` and `--isolated` mean one configuration for every file. The working
folder's settings (``current``) also decide what belongs to the run as a whole: the
output format, `docs-url`, the root that baseline paths are relative to.

Each folder is looked up once (the answer is kept for the folder and every folder
passed on the way up), and each configuration file is read and validated once: one
``Settings`` object per configuration, shared by all of its files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from agentlint.engine.config import Overrides, Settings, config_in, load_settings, settings_from
from agentlint.rules.diagnostics import RuleMeta


class Resolver:
    """Settings per folder, each configuration read once."""

    def __init__(
        self,
        *,
        rules: Mapping[str, RuleMeta],
        overrides: Overrides | None = None,
        config_file: Path | None = None,
        isolated: bool = False,
    ) -> None:
        self._rules = rules
        self._overrides = overrides
        self._by_config: dict[str, Settings] = {}
        self._config_of: dict[str, str | None] = {}
        """Folder (absolute, as given) -> its configuration file, or None."""
        self._real_config_of: dict[str, str | None] = {}
        """Folder (real path) -> its nearest configuration file, or None."""
        self._reals: dict[str, str] = {}
        """Folder (absolute) -> its real path (``_real``)."""
        self.fixed: Settings | None = None
        """The one configuration of every file (`--config`, `--isolated`), or None."""
        if config_file is not None or isolated:
            self.fixed = load_settings(
                start=Path("."), config_file=config_file, isolated=isolated, overrides=overrides, rules=rules
            )
            self.current = self.fixed
        else:
            config = self._nearest(os.getcwd())
            self.current = self._settings(config) if config else settings_from(None, overrides=overrides, rules=rules)

    @classmethod
    def single(cls, settings: Settings) -> "Resolver":
        """A resolver that gives ``settings`` for every file."""
        resolver = cls.__new__(cls)
        resolver._by_config, resolver._config_of, resolver._real_config_of, resolver._reals = {}, {}, {}, {}
        resolver.fixed = resolver.current = settings
        return resolver

    def for_folder(self, folder: str) -> Settings:
        """The settings of the files in ``folder``."""
        if self.fixed is not None:
            return self.fixed
        config = self._config_of.get(folder)
        if config is None and folder not in self._config_of:
            config = self._config_of[folder] = self._nearest(os.path.abspath(folder))
        return self.current if config is None else self._settings(config)

    def for_path(self, path: str) -> Settings:
        """The settings of the file (or folder) ``path``."""
        if self.fixed is not None:
            return self.fixed
        if os.path.isdir(path):
            return self.for_folder(path)
        return self.for_folder(os.path.dirname(os.path.abspath(path)))

    def for_file(self, path: str) -> Settings:
        """The settings of the file ``path`` (known to be a file: no ``stat``), looked up
        once per folder as written (the working folder does not change during a run)."""
        if self.fixed is not None:
            return self.fixed
        return self.for_folder(os.path.dirname(path) or os.curdir)

    def config_of(self, settings: Settings) -> str:
        """How the settings were found, for people: the file, or why there is none."""
        if settings.config_path:
            return settings.config_path
        return "none (--isolated: the defaults)" if self.fixed is not None else "none (the defaults)"

    def group(self, files: Iterable[str]) -> list[tuple[Settings, list[str]]]:
        """``files`` by the settings that hold for them, in the order first seen."""
        groups: dict[int, tuple[Settings, list[str]]] = {}
        for path in files:
            settings = self.fixed or self.for_folder(os.path.dirname(os.path.abspath(path)))
            groups.setdefault(id(settings), (settings, []))[1].append(path)
        return list(groups.values())

    # -- lookups -----------------------------------------------------------------------

    def _settings(self, config: str) -> Settings:
        settings = self._by_config.get(config)
        if settings is None:
            settings = self._by_config[config] = settings_from(
                Path(config), overrides=self._overrides, rules=self._rules
            )
        return settings

    def _nearest(self, folder: str) -> str | None:
        """The nearest configuration file at or above ``folder`` (symlinks resolved, as
        the configuration of a single run is found); every folder passed is memoised."""
        memo = self._real_config_of
        chain: list[str] = []
        current = self._real(folder)
        while True:
            if current in memo:
                found = memo[current]
                break
            chain.append(current)
            config = config_in(Path(current))
            if config is not None:
                found = str(config)
                break
            parent = os.path.dirname(current)
            if parent == current:
                found = None
                break
            current = parent
        for seen in chain:
            memo[seen] = found
        return found

    def _real(self, folder: str) -> str:
        """``os.path.realpath`` of an absolute, normalised ``folder``, from its parent's
        (memoised): a folder that is not a link costs one `lstat`, where `realpath`
        takes one per part of the path (a partial run looks up every folder of its
        project, which cost a 150-folder project about 5 ms)."""
        found = self._reals.get(folder)
        if found is None:
            parent, name = os.path.split(folder)
            if os.name != "posix" or not name or os.path.islink(folder):
                found = os.path.realpath(folder)
            else:
                found = os.path.join(self._real(parent), name)
            self._reals[folder] = found
        return found
