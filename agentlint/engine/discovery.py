"""Which files to check: walk the paths, honour excludes and .gitignore (pathspec)."""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from agentlint.engine.config import Settings
from agentlint.engine.resolver import Resolver
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.lazy import lazy_module

pathspec = lazy_module("pathspec")
"""Loaded only where a pattern is compiled: most runs see plain-name excludes and no
`.gitignore` pattern."""


@dataclass
class PathProblem:
    path: str
    reason: str


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)
    problems: list[PathProblem] = field(default_factory=list)
    real_paths: list[str] = field(default_factory=list)
    """The resolved path of each of ``files`` (the walk knows it without asking again)."""
    folders: "dict[str, list[int] | None]" = field(default_factory=dict)
    """With ``discover(watch=True)``: each folder read (absolute) -> its ``stamp_of``."""
    ignore_files: "dict[str, list[int] | None]" = field(default_factory=dict)
    """...and each ignore file the walk looked for -> its ``stamp_of`` (None: there is
    none). See ``stamps_hold``."""


def stamp_of(path: str) -> list[int] | None:
    """A folder's or file's modification and change times (ns), or None when it is
    gone. The change time moves whenever the modification time does, and also when a
    tool puts the modification time back (`rsync -t`, `touch -d`); the modification
    time is kept for Windows, where the change time is the creation time."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns]


def stamps_hold(folders: "dict[str, list[int] | None]", ignore_files: "dict[str, list[int] | None]") -> bool:
    """Whether a walk that read ``folders`` and looked for ``ignore_files`` (with the
    stamps it saw) would find the same files now: a file added, removed or renamed
    changes its folder's times, and an ignore file written changes its own."""
    for path, stamp in (*folders.items(), *ignore_files.items()):
        if stamp_of(path) != stamp:
            return False
    return True


def ignore_files_of(matcher: "_Matcher | _TreeMatcher") -> dict[str, list[int] | None]:
    """The ignore files ``matcher`` looked for, with their stamps: the `.gitignore` of
    every folder it consulted (those above the walk's top too) and the repository's
    `info/exclude`."""
    found: dict[str, list[int] | None] = {}
    for folder in matcher._gitignores:
        gitignore = os.path.join(folder, ".gitignore")
        found[gitignore] = stamp_of(gitignore)
        if matcher._ignores.chain(folder)[0] == folder:
            exclude = _info_exclude(folder)
            if exclude is not None:
                found[exclude] = stamp_of(exclude)
    return found


def display_path(path: str) -> str:
    """Relative to the working folder when below it, else absolute (as ruff does)."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute == cwd or absolute.startswith(cwd + os.sep):
        return os.path.relpath(absolute, cwd)
    return absolute


class _GitIgnores:
    """The `.gitignore` files of a run (each read once), the repository's
    `.git/info/exclude`, and which of them apply to a folder."""

    def __init__(self) -> None:
        self.specs: dict[str, object | None] = {}
        self._chains: dict[str, tuple[str, ...]] = {}
        self._applying: dict[str, tuple[str, ...]] = {}

    def applying(self, folder: str) -> tuple[str, ...]:
        """The folders of ``chain(folder)`` that hold ignore patterns: most folders of a
        walk have none, and their files are then decided without a look at each."""
        found = self._applying.get(folder)
        if found is None:
            found = self._applying[folder] = tuple(b for b in self.chain(folder) if self.spec(b) is not None)
        return found

    def spec(self, folder: str):
        if folder not in self.specs:
            lines: list[str] = []
            found = False
            if self.chain(folder)[0] == folder:
                # the repository top: `.git/info/exclude` first (the .gitignore wins)
                exclude = _info_exclude(folder)
                if exclude is not None:
                    lines += _read_lines(exclude) or []
                    found = True
            own = _read_lines(os.path.join(folder, ".gitignore"))
            if own is not None:
                lines += own
                found = True
            self.specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if found else None
        return self.specs[folder]

    def chain(self, folder: str) -> tuple[str, ...]:
        """Folders whose .gitignore applies to files in ``folder``, outermost first:
        from the repository top (the folder holding .git) or the filesystem root."""
        chain = self._chains.get(folder)
        if chain is None:
            parent = os.path.dirname(folder)
            if os.path.exists(os.path.join(folder, ".git")) or parent == folder:
                chain = (folder,)
            else:
                chain = (*self.chain(parent), folder)
            self._chains[folder] = chain
        return chain


def _read_lines(path: str) -> list[str] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return None


def _info_exclude(top: str) -> str | None:
    """`info/exclude` of the repository whose top is ``top``: in `.git/`, or for a
    worktree or submodule (`.git` is a file naming the git folder) in its common folder."""
    dotgit = os.path.join(top, ".git")
    if os.path.isdir(dotgit):
        return os.path.join(dotgit, "info", "exclude")
    lines = _read_lines(dotgit)
    if not lines or not lines[0].startswith("gitdir:"):
        return None
    gitdir = os.path.join(top, lines[0][len("gitdir:"):].strip())
    common = _read_lines(os.path.join(gitdir, "commondir"))
    if common:
        gitdir = os.path.join(gitdir, common[0].strip())
    return os.path.join(gitdir, "info", "exclude")


def is_below(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it (both absolute and normalised)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _pardoned(spec, names: tuple[str, ...]):
    """``spec`` without the patterns that match any of ``names`` (a folder given on the
    command line and the folders above it, as relative paths ending in `/`): a folder
    named explicitly is walked even when it, or a folder above it, is ignored."""
    patterns = [p for p in spec.patterns if not (p.include and any(p.match_file(n) for n in names))]
    return spec if len(patterns) == len(spec.patterns) else pathspec.GitIgnoreSpec(patterns)


def _folder_names(top: str, base: str) -> tuple[str, ...]:
    """``top`` and every folder between it and ``base`` (exclusive), relative to
    ``base``, each ending in `/`."""
    rel = os.path.relpath(top, base).replace(os.sep, "/")
    if rel == "." or rel.startswith(".."):
        return ()
    parts = rel.split("/")
    return tuple("/".join(parts[: i + 1]) + "/" for i in range(len(parts)))


_PLAIN_NAME = lazy_compile(r"(?!\.\.?$)[A-Za-z0-9_.][A-Za-z0-9_.+-]*")
"""An exclude that is a file or folder name alone (every default exclude is one)."""


def _any_name(lines: list[str]) -> "re.Pattern[str] | None":
    """For excludes that are all plain names, the expression of ``_any_pattern`` built
    from the names themselves (a name matches at any depth, as itself or as a folder
    above the path), without compiling a pattern per name (a tenth of a one-file run).
    None when some exclude is more than a name."""
    if not all(_PLAIN_NAME.fullmatch(line) for line in lines):
        return None
    if not lines:
        return re.compile(r"(?!)")
    return re.compile(r"^(?:.+/)?(?:" + "|".join(re.escape(line) for line in lines) + r")(?:/|$)")


def _any_pattern(spec) -> "re.Pattern[str] | None":
    """One regular expression that matches wherever any pattern of ``spec`` does: a path
    it does not match is decided with one search instead of one per pattern (most paths
    of a walk). None when the patterns are not regular expressions this can join."""
    parts = []
    for pattern in spec.patterns:
        if pattern.include is None:
            continue  # a blank line or a comment
        regex = getattr(pattern, "regex", None)
        if not isinstance(regex, re.Pattern):
            return None
        parts.append("(?:" + re.sub(r"\(\?P<\w+>", "(?:", regex.pattern) + ")")
    if not parts:
        return re.compile(r"(?!)")
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


class _Matcher:
    """The excludes of one configuration, and the `.gitignore` files (shared by every
    configuration of a run)."""

    def __init__(self, settings: Settings, gitignores: _GitIgnores | None = None) -> None:
        self.root = settings.root
        self.root_real = os.path.realpath(settings.root)
        self._exclude_lines = [*settings.exclude, *settings.extend_exclude]
        by_name = _any_name(self._exclude_lines)
        self._names_only = by_name is not None
        """The excludes are names alone: where none is pardoned, ``_any_exclude`` is their
        exact answer, and the spec is never compiled."""
        self._any_exclude = by_name or _any_pattern(self.excludes)
        self._pardons_any: dict[str, bool] = {}
        self.respect_gitignore = settings.respect_gitignore
        self._ignores = gitignores or _GitIgnores()
        self._pardons: dict[tuple[str, str], object] = {}

    @cached_property
    def excludes(self):
        """The excludes as a spec, compiled when a path may match one (``_any_exclude``)."""
        return pathspec.GitIgnoreSpec.from_lines(self._exclude_lines)

    @property
    def _gitignores(self) -> dict[str, object | None]:
        """Folder -> its `.gitignore` spec, for every folder consulted so far."""
        return self._ignores.specs

    def _rel(self, path: str, base: str) -> str | None:
        if path.startswith(base) and path[len(base) : len(base) + 1] == os.sep:
            rel = path[len(base) + 1 :]  # the usual case, without `relpath`'s work
        else:
            rel = os.path.relpath(path, base)
        return None if rel.startswith("..") else rel.replace(os.sep, "/")

    def in_folder(self, folder: str) -> "_Matcher":
        """The matcher of the files in ``folder``: this one (see ``_TreeMatcher``)."""
        return self

    def excluded(
        self, path: str, is_dir: bool, top: str | None = None, *, absolute: str | None = None, folder: str | None = None,
    ) -> bool:
        """Whether ``path`` is excluded, by the excludes or a `.gitignore`. ``top`` is
        a folder given on the command line that ``path`` was found under: patterns that
        exclude ``top`` itself (or a folder above it) do not apply below it.
        ``absolute``: ``path`` made absolute and normalised, and ``folder`` the folder
        holding it, when the caller has them (a walk does, for every entry)."""
        absolute = absolute or os.path.abspath(path)
        rel = self._rel(absolute, self.root) or os.path.basename(absolute)
        if is_dir:
            rel += "/"
        if self._any_exclude is None or self._any_exclude.search(rel):
            if self._names_only and (top is None or not self._may_pardon(top)):
                return True
            excludes = self.excludes if top is None else self._pardon(self.excludes, "", top, self.root)
            if excludes.match_file(rel):
                return True
        return self.respect_gitignore and self._gitignored(absolute, is_dir, top, folder)

    def _may_pardon(self, top: str) -> bool:
        """Whether an exclude may be pardoned below ``top``: it lies below the root."""
        found = self._pardons_any.get(top)
        if found is None:
            found = self._pardons_any[top] = bool(_folder_names(os.path.abspath(top), self.root))
        return found

    def _pardon(self, spec, base_key: str, top: str, base: str):
        key = (base_key or "<excludes>", top)
        found = self._pardons.get(key)
        if found is None:
            names = _folder_names(os.path.abspath(top), base)
            found = self._pardons[key] = _pardoned(spec, names) if names else spec
        return found

    def _gitignored(self, absolute: str, is_dir: bool, top: str | None = None, folder: str | None = None) -> bool:
        # Every .gitignore from the repository top (or the filesystem root) down applies.
        ignored = False
        top_abs = None
        for base in self._ignores.applying(folder or os.path.dirname(absolute)):
            spec = self._ignores.spec(base)
            if top is not None:
                top_abs = top_abs or os.path.abspath(top)
                if top_abs != base and is_below(top_abs, base):
                    spec = self._pardon(spec, base, top_abs, base)
            rel = (self._rel(absolute, base) or "") + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                ignored = result.include
        return ignored


class _TreeMatcher:
    """Excludes by folder: a file or folder is matched against the excludes of the
    configuration of the folder it sits in (a nested configuration's excludes apply
    to its own subtree), and every `.gitignore` above it."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._ignores = _GitIgnores()
        self._by_settings: dict[int, _Matcher] = {}
        self._by_folder: dict[str, _Matcher] = {}
        self.root = resolver.current.root
        self.root_real = os.path.realpath(resolver.current.root)

    @property
    def _gitignores(self) -> dict[str, object | None]:
        return self._ignores.specs

    def of(self, settings: Settings) -> _Matcher:
        matcher = self._by_settings.get(id(settings))
        if matcher is None:
            matcher = self._by_settings[id(settings)] = _Matcher(settings, self._ignores)
        return matcher

    def in_folder(self, folder: str) -> _Matcher:
        matcher = self._by_folder.get(folder)
        if matcher is None:
            matcher = self._by_folder[folder] = self.of(self.resolver.for_folder(folder))
        return matcher

    def excluded(self, path: str, is_dir: bool, top: str | None = None, *, absolute: str | None = None) -> bool:
        absolute = absolute or os.path.abspath(path)
        return self.in_folder(os.path.dirname(absolute)).excluded(path, is_dir, top, absolute=absolute)

    def explicitly_excluded(self, path: str, is_dir: bool) -> bool:
        """`--force-exclude`: a path given on the command line is excluded when it, or a
        folder above it inside its configuration's root, matches (each checked against
        the configuration of the folder holding it)."""
        current = os.path.abspath(path)
        first = True
        while True:
            folder = os.path.dirname(current)
            matcher = self.in_folder(folder)
            inside = current != matcher.root and is_below(current, matcher.root)
            if not inside and not first:
                return False
            if matcher.excluded(current, is_dir):
                return True
            if not inside or folder == current:
                return False
            current, is_dir, first = folder, True, False


def discover(
    paths: list[str], settings: "Settings | Resolver", *, force_exclude: bool = False,
    skip_folders: frozenset[str] = frozenset(), watch: bool = False,
) -> Discovery:
    """The files to check under ``paths``. A folder given is walked even when an
    exclude or a `.gitignore` names it (as ruff does); with ``force_exclude`` the
    excludes apply to the paths given too (pre-commit passes every changed file).
    ``watch``: fill ``Discovery.folders`` and ``ignore_files``, to tell later whether the
    walk would find the same files (``stamps_hold``)."""
    resolver = settings if isinstance(settings, Resolver) else Resolver.single(settings)
    out = Discovery()
    seen: set[str] = set()
    matchers: list[_TreeMatcher] = []

    def matcher() -> _TreeMatcher:
        # Built on first use: `agentlint check one_file.py` needs no pathspec at all.
        if not matchers:
            matchers.append(_TreeMatcher(resolver))
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
            out.real_paths.append(real)

    for given in paths:
        try:
            st = os.stat(given)
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
            out.problems.append(PathProblem(display_path(given), reason))
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        if force_exclude and matcher().explicitly_excluded(given, is_dir):
            continue
        if is_dir:
            _walk(given, matcher(), add, out, skip_folders, watch)
            continue
        outside = outside_project(given, resolver.for_path(given).root)
        if outside is not None:
            out.problems.append(PathProblem(display_path(given), outside))
        elif not stat.S_ISREG(st.st_mode):
            out.problems.append(PathProblem(display_path(given), NOT_REGULAR))
        else:
            add(given)
    if watch and matchers:
        out.ignore_files = ignore_files_of(matchers[0])
    return out


def repository_root(start: str | None = None) -> str:
    """The top of the git repository holding ``start`` (the working folder by default):
    the nearest folder with a `.git` in it; else ``start`` itself. SARIF and GitLab
    paths are relative to it, as code scanning and merge requests expect."""
    here = os.path.abspath(start or os.getcwd())
    current = here
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return here
        current = parent


NOT_REGULAR = "not a regular file (a FIFO, socket or device); only regular files are read"


def outside_project(path: str, root: str) -> str | None:
    """Why a symlinked file is not followed: its target lies outside ``root`` (a link
    committed into a repository must not make a report print another file's lines)."""
    if not os.path.islink(path):
        return None
    target = os.path.realpath(path)
    base = os.path.realpath(root)
    if is_below(target, base):
        return None
    return f"symlink to a file outside the project ({target}), not followed"


PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")


def _python(name: str) -> bool | None:
    return True if name.endswith(PYTHON_SUFFIXES) else None


def walk_tree(
    top: str,
    matcher: "_Matcher | _TreeMatcher",
    add: Callable[[str, str, bool], None],
    problem: Callable[[str, str], None],
    *,
    kind: Callable[[str], "bool | None"] = _python,
    on_folder: Callable[[str], None] | None = None,
    skip_folders: frozenset[str] = frozenset(),
) -> None:
    """Walk ``top`` depth-first in name order, skipping excluded folders and files and
    not following symlinked folders. ``kind(name)`` says whether a file is wanted:
    True (Python), False (wanted, not Python), None (not wanted). ``add(display, real,
    python)`` receives each wanted file with its display path and real path;
    ``problem(display, reason)`` each unreadable folder or broken Python symlink;
    ``on_folder(folder)`` each folder read (the explain index keeps their mtimes).
    Folders whose real path is in ``skip_folders`` are not entered."""
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
        # made absolute, and its matcher found, once per folder, not once per entry
        absolute_folder = os.path.abspath(folder)
        absolute_prefix = os.path.join(absolute_folder, "")
        here = matcher.in_folder(absolute_folder)
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                real_sub = os.path.join(real_folder, entry.name)
                if real_sub not in skip_folders and not here.excluded(
                    entry.path, True, top, absolute=absolute_prefix + entry.name, folder=absolute_folder
                ):
                    subdirs.append((entry.path, real_sub))
                continue
            python = kind(entry.name)
            if python is None or here.excluded(
                entry.path, False, top, absolute=absolute_prefix + entry.name, folder=absolute_folder
            ):
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
                if not (is_below(real, top_real) or is_below(real, matcher.root_real)):
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


def _walk(
    top: str, matcher: "_Matcher | _TreeMatcher", add, out: Discovery, skip_folders: frozenset[str] = frozenset(),
    watch: bool = False,
) -> None:
    def read(folder: str) -> None:
        out.folders[os.path.abspath(folder)] = stamp_of(folder)

    walk_tree(
        top,
        matcher,
        lambda display, real, python: add(display, real),
        lambda display, reason: out.problems.append(PathProblem(display, reason)),
        on_folder=read if watch else None,
        skip_folders=skip_folders,
    )
