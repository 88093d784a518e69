"""Project and application boundaries, and the other files of a project (for partial runs).

An *application* is what the project-wide rules (AGL101, AGL401, ...) compare within:
two demo applications that sit side by side in one repository are not "duplicates" of
each other. The root of a file's application is, in order:

1. with `project-roots` configured: the deepest listed folder holding the file (the
   configuration's folder when none holds it); nothing below is split further;
2. else the *top*: the nearest folder, from the file's own upwards, holding a project
   marker (`pyproject.toml`, `setup.py`, `setup.cfg`, a `requirements*.txt`,
   `package.json`, `Pipfile`); the search stops at the repository top (the folder
   holding `.git`), which is then the top. Without either, the top is the
   configuration's folder when the file is below it, else the folder above the file's
   top-level package (the import root: `src/pkg/mod.py` with `src/pkg/__init__.py` ->
   `src`), or the file's own folder;
3. below the top, a repository of independent samples is split into its applications
   (sample folders have no marker of their own). Going up from the file's folder, the
   first folder that is not inside a package (its parent has no `__init__.py`) and that
   - sits in a *collection*: a folder with no code files of its own, no marker, no
     `__init__.py`, not a `src/` layout folder, with two or more sub-folders holding
     code (`samples/`, `tutorials/`, `examples/` of sample folders); the top itself is a
     collection only when it has no marker and no `src/` folder with code; or
   - is not a package itself, holds an entry point of its own (`app.py`, `main.py`,
     `__main__.py`, `run.py`, `server.py`, `streamlit_app.py`, a notebook, a script with
     an `if __name__ == "__main__":` guard), and has a sibling folder holding an entry
     point too (sample folders side by side), in a folder that holds no package and no
     `src/` layout (the tests, notebooks and scripts beside a package use it)
   is the application. Else the application is the top.

The rules see one application at a time. AGL401 also keeps notebooks apart from each
other (each notebook is an application of its own, while a notebook and the modules of
its application are compared); that is the rule's own reading of the files it is given.

Partial runs: when the paths given on the command line do not cover an application
(files passed one by one, as pre-commit does, or a sub-folder), the project rules still
see every file of that application. The facts of the files not passed come from the
cache: the file's full result when there is one, else a facts-only entry; when neither
exists the facts are computed with ``ast`` only (no LibCST, no rules) and stored as a
facts-only entry, under a key of its own so that it never stands in for a full
result. Only findings whose primary location is in a passed file are reported.
"""

from __future__ import annotations

import json
import os
import re
from typing import Callable, Iterable, Mapping, Sequence

from agentlint.engine.cache import Cache, cached_facts, context_entry
from agentlint.engine.config import DEFAULT_EXCLUDES, Settings
from agentlint.engine.discovery import discover, is_below, stamp_of
from agentlint.engine.stat_index import StatIndex
from agentlint.facts.types import FileFacts
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.lazy import lazy_module

# Loaded when another file's facts are not in the cache (most partial runs find them there).
analysis = lazy_module("agentlint.engine.analyze")

MARKER_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "Pipfile")
ENTRY_POINTS = frozenset({"app.py", "main.py", "__main__.py", "run.py", "server.py", "streamlit_app.py"})
"""File names that make a folder that is not a package an application's own folder."""
_CODE_SUFFIXES = (".py", ".ipynb")
_SKIPPED = frozenset(DEFAULT_EXCLUDES)
_MAIN_SCAN = 20
"""Modules of a folder looked into for a `__main__` guard, at most."""
_MAIN_BYTES = 256 * 1024
_SCAN_LIMIT = 400
"""Folders looked into, at most, to tell whether a folder holds code somewhere below
(a folder of data or documentation is not a sample); past it, it is taken to."""


def _has_marker(names: Iterable[str]) -> bool:
    for name in names:
        if name in MARKER_FILES or (name.startswith("requirements") and name.endswith(".txt")):
            return True
    return False


class _Folder:
    """What one `os.scandir` tells about a folder."""

    __slots__ = ("marker", "git", "init", "code", "entry", "subfolders", "modules", "stamp")

    def __init__(self, path: str) -> None:
        self.stamp = stamp_of(path)
        """Taken before the folder is read: a change while it is read shows next time."""
        files: list[str] = []
        self.subfolders: list[str] = []
        self.git = False
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    name = entry.name
                    if name == ".git":
                        self.git = True
                        continue
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        continue
                    if is_dir:
                        if not name.startswith(".") and name not in _SKIPPED:
                            self.subfolders.append(name)
                    else:
                        files.append(name)
        except OSError:
            pass
        self.marker = _has_marker(files)
        self.init = "__init__.py" in files
        self.code = any(f.endswith(_CODE_SUFFIXES) for f in files)
        self.entry = any(f in ENTRY_POINTS or f.endswith(".ipynb") for f in files)
        self.modules = [f for f in files if f.endswith(".py")] if not self.entry else []


class ProjectMap:
    """Which application each file belongs to; folder look-ups are memoised."""

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
        self._folders: dict[str, _Folder] = {}
        self._holds_code: dict[str, bool] = {}
        self._collection: dict[str, bool] = {}
        self._entries: dict[str, bool] = {}
        self._apps: dict[str, str] = {}
        self._by_written: dict[str, str] = {}

    def seed(self, paths: Iterable[str], root: str) -> None:
        """Take ``root`` as the project of ``paths`` without reading their folders: a
        kept project listing holds only files whose root it is, and its folders have
        not changed since (``context_files``)."""
        for path in paths:
            self._by_written.setdefault(os.path.dirname(path), root)

    def folders_read(self) -> "dict[str, list[int] | None]":
        """Every folder read so far (absolute) -> its ``stamp_of`` then: a project
        listing holds while they keep them (``StatIndex.listing``)."""
        return {path: folder.stamp for path, folder in self._folders.items()}

    def root_for(self, path: str) -> str:
        # by the folder as written: a project's files are asked for one by one, and the
        # working folder does not change during a run
        written = os.path.dirname(path)
        found = self._by_written.get(written)
        if found is None:
            found = self._by_written[written] = self._root_of(os.path.dirname(os.path.abspath(path)))
        return found

    def _root_of(self, folder: str) -> str:
        if self.roots:
            for root in self.roots:
                if folder == root or folder.startswith(root + os.sep):
                    return root
            return self.config_root
        found = self._apps.get(folder)
        if found is None:
            found = self._apps[folder] = self._application(folder, self._top(folder))
        return found

    # -- the top: markers, the repository, the configuration's folder ------------------
    def _top(self, folder: str) -> str:
        found = self._marked(folder)
        if found is not None:
            return found
        root = self.config_root
        if is_below(folder, root):
            return root
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
            info = self._folder(current)
            if info.marker or info.git:
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

    # -- applications below the top ----------------------------------------------------
    def _folder(self, path: str) -> _Folder:
        found = self._folders.get(path)
        if found is None:
            found = self._folders[path] = _Folder(path)
        return found

    def _application(self, folder: str, top: str) -> str:
        if folder == top or not is_below(folder, top):
            return top
        current = folder
        while current != top:
            parent = os.path.dirname(current)
            if not self._folder(parent).init:  # not inside a package
                if self._is_collection(parent, top):
                    return current
                if (self._entry(current) and not self._holds_package(parent)
                        and self._entry_sibling(parent, os.path.basename(current))):
                    return current
            if parent == current:
                break
            current = parent
        return top

    def _entry(self, path: str) -> bool:
        """A folder that is not a package and holds an entry point of its own: a file
        named like one, a notebook, or a script run as `__main__` (the first
        ``_MAIN_SCAN`` modules are looked into)."""
        found = self._entries.get(path)
        if found is None:
            info = self._folder(path)
            found = not info.init and (info.entry or any(
                _runs_as_main(os.path.join(path, name)) for name in sorted(info.modules)[:_MAIN_SCAN]
            ))
            self._entries[path] = found
        return found

    def _is_collection(self, path: str, top: str) -> bool:
        found = self._collection.get(path)
        if found is not None:
            return found
        info = self._folder(path)
        found = False
        if not info.code and not info.init and not info.marker:
            if path == top:
                src = os.path.join(path, "src")
                eligible = not ("src" in info.subfolders and self._holds(src, [0]))  # a src layout
            else:
                eligible = os.path.basename(path) != "src"
            if eligible:
                budget = [0]
                holding = 0
                for name in info.subfolders:
                    if self._holds(os.path.join(path, name), budget):
                        holding += 1
                        if holding >= 2:
                            found = True
                            break
        self._collection[path] = found
        return found

    def _holds_package(self, path: str) -> bool:
        """A project's folder: it holds a package or a `src/` layout, which its other
        folders (tests, notebooks, scripts) use."""
        info = self._folder(path)
        for name in info.subfolders:
            if name == "src" and self._holds(os.path.join(path, name), [0]):
                return True
            if self._folder(os.path.join(path, name)).init:
                return True
        return False

    def _entry_sibling(self, parent: str, name: str) -> bool:
        for sibling in self._folder(parent).subfolders:
            if sibling != name and self._entry(os.path.join(parent, sibling)):
                return True
        return False

    def _holds(self, path: str, budget: list[int]) -> bool:
        """Whether ``path`` holds code files somewhere below (looking into at most
        ``_SCAN_LIMIT`` folders per question; past that, it is taken to)."""
        found = self._holds_code.get(path)
        if found is not None:
            return found
        budget[0] += 1
        if budget[0] > _SCAN_LIMIT:
            return True
        info = self._folder(path)
        found = info.code or any(self._holds(os.path.join(path, s), budget) for s in info.subfolders)
        self._holds_code[path] = found
        return found

    def group(self, paths: Iterable[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for path in paths:
            out.setdefault(self.root_for(path), []).append(path)
        return out


_MAIN_GUARD = lazy_compile(rb"""^if\s+__name__\s*==\s*['"]__main__['"]""", re.MULTILINE)


def _runs_as_main(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(_MAIN_BYTES)
    except OSError:
        return False
    return b"__main__" in head and _MAIN_GUARD.search(head) is not None


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
        if os.path.isdir(absolute) and is_below(root, absolute):
            return True
    return False


def context_files(
    passed: Iterable[str], given: Sequence[str], settings: Settings, projects: ProjectMap,
    listings: "StatIndex | None" = None,
) -> list[str]:
    """The files of the passed files' projects that were not passed (empty when the
    paths given cover every such project). ``listings``: where the files a walk of a
    project found are kept, and taken from while its folders have not changed."""
    passed = list(passed)
    roots = [r for r in sorted(set(projects.root_for(p) for p in passed)) if not _covers(given, r)]
    if not roots:
        return []  # the usual case: resolving every passed path would cost more than the rest
    # The folders given were walked already (their files are among the passed ones):
    # only the rest of each project is walked, and the passed paths are resolved only
    # when that finds any file.
    walked = frozenset(os.path.realpath(g) for g in given if os.path.isdir(g))
    found: list[list[str]] = []
    for root in roots:
        key = _listing_key(root, walked, settings)
        files = listings.listing(key) if listings is not None else None
        if files is not None:
            projects.seed((path for path, _ in files), root)  # the project phase asks again
        else:
            here = discover([root], settings, skip_folders=walked, watch=listings is not None)
            files = [[path, real] for path, real in zip(here.files, here.real_paths) if projects.root_for(path) == root]
            if listings is not None:
                # the folders above the root are left out: one changes whenever a sibling
                # of the project does (a temporary folder), and a marker added there
                # would move the passed files' root, which is part of the key
                inside = {f: m for f, m in projects.folders_read().items() if is_below(f, root)}
                listings.keep_listing(key, files, {**here.folders, **inside}, here.ignore_files)
        found += files
    if not found:
        return []
    seen = {os.path.realpath(p) for p in passed}
    out: list[str] = []
    for path, real in found:
        if real not in seen:
            seen.add(real)
            out.append(path)
    return out


def _listing_key(root: str, walked: frozenset[str], settings: Settings) -> str:
    """What a project's walk depends on besides its folders: where it starts and where
    the run stands (display paths are relative to it), and the settings that exclude."""
    return json.dumps([
        root, os.getcwd(), sorted(walked), settings.root, list(settings.exclude), list(settings.extend_exclude),
        settings.respect_gitignore, list(settings.project_roots),
    ])


def load_context_facts(
    paths: Sequence[str], settings: Settings, cache, read, crashes: list[tuple[str, str]] | None = None,
    key_of: Callable[[str], str | None] | None = None,
    known: Mapping[str, dict] | None = None, kept: dict[str, dict] | None = None,
    only: frozenset[str] | None = None,
) -> dict[str, FileFacts]:
    """Facts of files that are not checked in this run: from ``known`` (project facts by
    cache key, as ``Cache.get_context`` gives them), else from the cache (a full result,
    else a facts-only entry), else computed with ``ast`` and stored facts-only. A file
    whose facts could not be extracted because of a bug is added to ``crashes``. ``key_of(path)`` gives a file's
    cache key without reading it when it can (the stat index); the file is read only on a
    miss. ``kept`` receives every file's project facts by key, for ``Cache.put_context``.
    ``only``: the project facts the caller reads, when not all (those from ``known`` keep
    only these; the others are kept whole)."""
    def code(path: str) -> bytes | None:
        content = read(path)
        if isinstance(content, str) or len(content) > settings.max_file_size or b"\0" in content:
            return None
        return content

    out: dict[str, FileFacts] = {}
    for path in paths:
        key = key_of(path) if key_of is not None and cache is not None else None
        content = None
        if key is None:
            content = code(path)
            if content is None:
                continue
            key = Cache.key(path, content)
        held = known.get(key) if known else None
        data = held if held is not None else cached_facts(cache, key) if cache is not None else None
        if data is not None:
            try:
                if held is not None:
                    out[path] = FileFacts.from_context(held, only)
                else:
                    out[path] = FileFacts.project_from_json(data)
                if kept is not None:
                    kept[key] = held if held is not None else context_entry(out[path].project_json())
                continue
            except (KeyError, TypeError, ValueError, AttributeError):
                pass
        if content is None:
            content = code(path)
            if content is None:
                continue
            key = Cache.key(path, content)  # the file as read now
        data = analysis.facts_only_json(path, content, key, settings, cache)
        if "crash" in data and crashes is not None:
            crashes.append((path, data["crash"]))
        out[path] = FileFacts.project_from_json(data)
        if kept is not None:
            kept[key] = context_entry(out[path].project_json())
    return out


def split_by_project(facts: Mapping[str, FileFacts], projects: ProjectMap) -> list[dict[str, FileFacts]]:
    groups: dict[str, dict[str, FileFacts]] = {}
    for path, file_facts in facts.items():
        groups.setdefault(projects.root_for(path), {})[path] = file_facts
    return [groups[root] for root in sorted(groups)]
