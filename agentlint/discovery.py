"""Which files to check: walk the paths, honour excludes and .gitignore (pathspec)."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field

from agentlint.config import Settings


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
        import pathspec

        self._pathspec = pathspec
        self.root = settings.root
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

    def add(path: str) -> None:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            out.files.append(display_path(path))

    for given in paths:
        try:
            st = os.stat(given)
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
            out.problems.append(PathProblem(display_path(given), reason))
            continue
        is_dir = os.path.isdir(given)
        if force_exclude and _any_excluded(matcher(), given, is_dir):
            continue
        if not is_dir:
            add(given)
            continue
        del st
        _walk(given, matcher(), add, out)
    return out


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


def _walk(top: str, matcher: _Matcher, add, out: Discovery) -> None:
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            out.problems.append(PathProblem(display_path(folder), exc.strerror or str(exc)))
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                if not matcher.excluded(entry.path, True):
                    subdirs.append(entry.path)
                continue
            if not entry.name.endswith((".py", ".pyi", ".ipynb")):
                continue
            if matcher.excluded(entry.path, False):
                continue
            if is_link:
                try:
                    os.stat(entry.path)
                except OSError as exc:
                    reason = "symlink loop" if exc.errno == errno.ELOOP else f"broken symlink ({exc.strerror})"
                    out.problems.append(PathProblem(display_path(entry.path), reason))
                    continue
                if os.path.isdir(entry.path):
                    continue  # symlinked folders are not followed
            add(entry.path)
        stack.extend(reversed(subdirs))
