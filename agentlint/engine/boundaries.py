"""Project boundaries and the other files of a project (for partial runs).

A *project* is what the project-wide rules (AGL101, AGL401, ...) compare within: two
demo applications that sit side by side in one repository are not "duplicates" of each
other. The root of a file's project is, in order:

1. with `project-roots` configured: the deepest listed folder holding the file (the
   configuration's folder when none holds it);
2. the nearest folder, from the file's own upwards, holding a project marker:
   `pyproject.toml`, `setup.py`, `setup.cfg` or a `requirements*.txt`; the search
   stops at the repository top (the folder holding `.git`), which is then the root;
3. the folder above the file's top-level package (the import root: `src/pkg/mod.py`
   with `src/pkg/__init__.py` -> `src`), or the file's own folder.

Partial runs: when the paths given on the command line do not cover a project (files
passed one by one, as pre-commit does, or a sub-folder of the project), the project
rules still see every file of that project. The facts of the files not passed come from
the cache: the file's full result when there is one, else a facts-only entry; when
neither exists the facts are computed with ``ast`` only (no LibCST, no rules) and stored
as a facts-only entry, under a key of its own so that it never stands in for a full
result. Only findings whose primary location is in a passed file are reported.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

from agentlint.engine.analyze import facts_only_json
from agentlint.engine.cache import Cache, cached_facts
from agentlint.engine.config import Settings
from agentlint.engine.discovery import discover
from agentlint.facts.types import FileFacts

MARKER_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def _has_marker(names: Iterable[str]) -> bool:
    for name in names:
        if name in MARKER_FILES or (name.startswith("requirements") and name.endswith(".txt")):
            return True
    return False


class ProjectMap:
    """Which project each file belongs to; folder look-ups are memoised."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        root = os.path.abspath(settings.root)
        self.config_root = root
        self.roots = sorted(
            (os.path.normpath(os.path.join(root, r)) for r in getattr(settings, "project_roots", ()) or ()),
            key=len,
            reverse=True,
        )
        self._marker: dict[str, str | None] = {}

    def root_for(self, path: str) -> str:
        absolute = os.path.abspath(path)
        folder = os.path.dirname(absolute)
        if self.roots:
            for root in self.roots:
                if folder == root or folder.startswith(root + os.sep):
                    return root
            return self.config_root
        found = self._marked(folder)
        if found is not None:
            return found
        return _import_root(folder)

    def _marked(self, folder: str) -> str | None:
        """The nearest folder at or above ``folder`` with a project marker; the search
        stops at the repository top (the folder holding `.git`), which is then the root."""
        memo = self._marker
        chain: list[str] = []
        current = folder
        while True:
            if current in memo:
                result = memo[current]
                break
            chain.append(current)
            try:
                names = os.listdir(current)
            except OSError:
                names = []
            if _has_marker(names) or ".git" in names:
                result = current
                break
            parent = os.path.dirname(current)
            if parent == current:
                result = None
                break
            current = parent
        for seen in chain:
            memo[seen] = result
        return result

    def group(self, paths: Iterable[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for path in paths:
            out.setdefault(self.root_for(path), []).append(path)
        return out


def _import_root(folder: str) -> str:
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def _covers(given: Sequence[str], root: str) -> bool:
    """Whether one of the paths given is a folder at or above ``root``."""
    for path in given:
        absolute = os.path.abspath(path)
        if os.path.isdir(absolute) and (root == absolute or root.startswith(absolute.rstrip(os.sep) + os.sep)):
            return True
    return False


def context_files(
    passed: Iterable[str], given: Sequence[str], settings: Settings, projects: ProjectMap
) -> list[str]:
    """The files of the passed files' projects that were not passed (empty when the
    paths given cover every such project)."""
    passed = list(passed)
    seen = {os.path.realpath(p) for p in passed}
    roots = sorted(set(projects.root_for(p) for p in passed))
    out: list[str] = []
    for root in roots:
        if _covers(given, root):
            continue
        for path in discover([root], settings).files:
            real = os.path.realpath(path)
            if real not in seen and projects.root_for(path) == root:
                seen.add(real)
                out.append(path)
    return out


def load_context_facts(
    paths: Sequence[str], settings: Settings, cache, read, crashes: list[tuple[str, str]] | None = None
) -> dict[str, FileFacts]:
    """Facts of files that are not checked in this run: from the cache (a full result,
    else a facts-only entry), else computed with ``ast`` and stored facts-only. A file
    whose facts could not be extracted because of a bug is added to ``crashes``."""
    out: dict[str, FileFacts] = {}
    for path in paths:
        content = read(path)
        if isinstance(content, str) or len(content) > settings.max_file_size or b"\0" in content:
            continue
        key = Cache.key(path, content)
        data = cached_facts(cache, key) if cache is not None else None
        if data is not None:
            try:
                out[path] = FileFacts.project_from_json(data)
                continue
            except (KeyError, TypeError, ValueError, AttributeError):
                pass
        data = facts_only_json(path, content, key, settings, cache)
        if "crash" in data and crashes is not None:
            crashes.append((path, data["crash"]))
        out[path] = FileFacts.project_from_json(data)
    return out


def split_by_project(facts: Mapping[str, FileFacts], projects: ProjectMap) -> list[dict[str, FileFacts]]:
    groups: dict[str, dict[str, FileFacts]] = {}
    for path, file_facts in facts.items():
        groups.setdefault(projects.root_for(path), {})[path] = file_facts
    return [groups[root] for root in sorted(groups)]
