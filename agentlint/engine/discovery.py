"""Which files to check: walk the paths, honour excludes and .gitignore (pathspec)."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from typing import Callable

import pathspec

from agentlint.engine.config import Settings


@dataclass
class PathProblem:
    path: str
    reason: str


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)
    problems: list[PathProblem] = field(default_factory=list)


def display_path(path: str) -> str:
    """Relative to the working folder when below it, else absolute (as ruff does)."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute == cwd or absolute.startswith(cwd + os.sep):
        return os.path.relpath(absolute, cwd)
    return absolute


class _Matcher:
    def __init__(self, settings: Settings) -> None:
        self._pathspec = pathspec
        self.root = settings.root
        self.root_real = os.path.realpath(settings.root)
        self.excludes = pathspec.GitIgnoreSpec.from_lines([*settings.exclude, *settings.extend_exclude])
        self.respect_gitignore = settings.respect_gitignore
        self._gitignores: dict[str, object | None] = {}
        self._chains: dict[str, tuple[str, ...]] = {}

    def _rel(self, path: str, base: str) -> str | None:
        rel = os.path.relpath(path, base)
        return None if rel.startswith("..") else rel.replace(os.sep, "/")

    def excluded(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        rel = self._rel(absolute, self.root) or os.path.basename(absolute)
        if is_dir:
            rel += "/"
        if self.excludes.match_file(rel):
            return True
        return self.respect_gitignore and self._gitignored(absolute, is_dir)

    def _gitignore_spec(self, folder: str):
        if folder not in self._gitignores:
            spec = None
            try:
                with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
                    spec = self._pathspec.GitIgnoreSpec.from_lines(fh.read().splitlines())
            except OSError:
                pass
            self._gitignores[folder] = spec
        return self._gitignores[folder]

    def _chain(self, folder: str) -> tuple[str, ...]:
        """Folders whose .gitignore applies to files in ``folder``, outermost first:
        from the repository top (the folder holding .git) or the filesystem root."""
        chain = self._chains.get(folder)
        if chain is None:
            parent = os.path.dirname(folder)
            if os.path.isdir(os.path.join(folder, ".git")) or parent == folder:
                chain = (folder,)
            else:
                chain = (*self._chain(parent), folder)
            self._chains[folder] = chain
        return chain

    def _gitignored(self, absolute: str, is_dir: bool) -> bool:
        # Every .gitignore from the repository top (or the filesystem root) down applies.
        ignored = False
        for base in self._chain(os.path.dirname(absolute)):
            spec = self._gitignore_spec(base)
            if spec is None:
                continue
            rel = os.path.relpath(absolute, base).replace(os.sep, "/") + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                ignored = result.include
        return ignored


def discover(paths: list[str], settings: Settings, *, force_exclude: bool = False) -> Discovery:
    out = Discovery()
    seen: set[str] = set()
    matchers: list[_Matcher] = []

    def matcher() -> _Matcher:
        # Built on first use: `agentlint check one_file.py` needs no pathspec at all.
        if not matchers:
            matchers.append(_Matcher(settings))
        return matchers[0]

    def add(path: str, real: str | None = None) -> None:
        """A file given on the command line (``real`` None), or one found by the walk
        (``path`` already a display path)."""
        if real is None:
            real = os.path.realpath(path)
            path = display_path(path)
        if real not in seen:
            seen.add(real)
            out.files.append(path)

    for given in paths:
        try:
            st = os.stat(given)
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
            out.problems.append(PathProblem(display_path(given), reason))
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        if force_exclude and _any_excluded(matcher(), given, is_dir):
            continue
        if is_dir:
            _walk(given, matcher(), add, out)
            continue
        outside = outside_project(given, settings.root)
        if outside is not None:
            out.problems.append(PathProblem(display_path(given), outside))
        elif not stat.S_ISREG(st.st_mode):
            out.problems.append(PathProblem(display_path(given), NOT_REGULAR))
        else:
            add(given)
    return out


NOT_REGULAR = "not a regular file (a FIFO, socket or device); only regular files are read"


def outside_project(path: str, root: str) -> str | None:
    """Why a symlinked file is not followed: its target lies outside ``root`` (a link
    committed into a repository must not make a report print another file's lines)."""
    if not os.path.islink(path):
        return None
    target = os.path.realpath(path)
    base = os.path.realpath(root)
    if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
        return None
    return f"symlink to a file outside the project ({target}), not followed"


def _any_excluded(matcher: _Matcher, path: str, is_dir: bool) -> bool:
    """Explicit paths are excluded (with --force-exclude) when they or a parent folder
    below the root match."""
    if matcher.excluded(path, is_dir):
        return True
    absolute = os.path.abspath(path)
    parent = os.path.dirname(absolute)
    while parent.startswith(matcher.root) and parent != matcher.root:
        if matcher.excluded(parent, True):
            return True
        parent = os.path.dirname(parent)
    return False


PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")


def _python(name: str) -> bool | None:
    return True if name.endswith(PYTHON_SUFFIXES) else None


def walk_tree(
    top: str,
    matcher: _Matcher,
    add: Callable[[str, str, bool], None],
    problem: Callable[[str, str], None],
    *,
    kind: Callable[[str], "bool | None"] = _python,
    on_folder: Callable[[str], None] | None = None,
) -> None:
    """Walk ``top`` depth-first in name order, skipping excluded folders and files and
    not following symlinked folders. ``kind(name)`` says whether a file is wanted:
    True (Python), False (wanted, not Python), None (not wanted). ``add(display, real,
    python)`` receives each wanted file with its display path and real path;
    ``problem(display, reason)`` each unreadable folder or broken Python symlink;
    ``on_folder(folder)`` each folder read (the explain index keeps their mtimes)."""
    top_real = os.path.realpath(top)
    stack = [(top, top_real)]
    while stack:
        folder, real_folder = stack.pop()
        try:
            if on_folder is not None:
                on_folder(folder)
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            problem(display_path(folder), exc.strerror or str(exc))
            continue
        shown = display_path(folder)
        prefix = "" if shown == "." else shown + os.sep
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                if not matcher.excluded(entry.path, True):
                    subdirs.append((entry.path, os.path.join(real_folder, entry.name)))
                continue
            python = kind(entry.name)
            if python is None or matcher.excluded(entry.path, False):
                continue
            real = os.path.join(real_folder, entry.name)
            if is_link:
                try:
                    target = os.stat(entry.path)
                except OSError as exc:
                    if python:
                        reason = "symlink loop" if exc.errno == errno.ELOOP else f"broken symlink ({exc.strerror})"
                        problem(display_path(entry.path), reason)
                    continue
                if stat.S_ISDIR(target.st_mode):
                    continue  # symlinked folders are not followed
                real = os.path.realpath(entry.path)
                if not _inside(real, (top_real, matcher.root_real)):
                    if python:
                        problem(display_path(entry.path), f"symlink to a file outside the tree ({real}), not followed")
                    continue
                regular = stat.S_ISREG(target.st_mode)
            else:
                try:
                    regular = entry.is_file(follow_symlinks=False)
                except OSError:
                    continue
            if not regular:
                if python:
                    problem(display_path(entry.path), NOT_REGULAR)
                continue
            add(prefix + entry.name, real, python)
        stack.extend(reversed(subdirs))


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _walk(top: str, matcher: _Matcher, add, out: Discovery) -> None:
    walk_tree(
        top,
        matcher,
        lambda display, real, python: add(display, real),
        lambda display, reason: out.problems.append(PathProblem(display, reason)),
    )
