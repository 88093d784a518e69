"""Per-file result cache: one JSON file per (path, content, settings, version).

Entries live in ``<cache-dir>/<version>/<settings fingerprint>/``. Each run marks the
folder of its settings as used (at most once an hour: one ``stat`` otherwise), and
then removes the folders of other settings and other agentlint versions that have not
been used for ``STALE_DAYS`` days, keeping at most ``KEEP_SETTINGS`` of them (the most
recently used): changing a setting, or upgrading agentlint, does not leave the old
results behind for ever. ``agentlint clean`` removes a cache folder whole.

Two runs that write the same entry write the same bytes. Writes go to a temporary file
in the same folder and are renamed into place (atomic on POSIX and Windows), so a
reader never sees half an entry; a corrupt or unreadable entry is a miss and is
rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Any, Iterable

from agentlint import __version__
from agentlint.engine.files import atomic_write
from agentlint.facts.source import read_regular
from agentlint.lazy_regex import lazy_compile
from agentlint.rules.lazy import lazy_module

shutil = lazy_module("shutil")  # only to remove a stale folder

_TAG = "CACHEDIR.TAG"
_PROJECT_FILE = "project-phase.json"
_CONTEXT_FILE = "project-facts.json"
_CONTEXT_GROUPS = (("project-imports.json", frozenset({"imports"})),
                   ("project-prompts.json", frozenset({"prompt_sites", "prompt_blocks"})))
"""The project facts kept in files of their own beside ``_CONTEXT_FILE`` (which keeps the
others): a partial run whose project phase runs in part reads only those it needs."""
_CONTEXT_LAYOUT = 2
MAX_ENTRY_BYTES = 1 << 28
"""A cache entry larger than this is not ours (the largest real ones are a few MB)."""


class Cache:
    def __init__(self, directory: str, settings_fingerprint: str) -> None:
        self.base = directory
        self.directory = os.path.join(directory, __version__, settings_fingerprint)
        self.enabled = True
        self._tagged = False
        self._folders: set[str] = set()
        """Shard folders known to exist (asking the file system again costs as much as a write)."""

    @staticmethod
    def key(path: str, content: bytes) -> str:
        # The path is part of the key: facts (the module name) depend on where a file is.
        digest = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(content)
        return digest.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str, *, facts: bool = True) -> dict[str, Any] | None:
        """The entry stored under ``key``. An entry is two lines: the findings (with the
        module name), then the facts, which are most of its bytes; ``facts=False`` reads
        the first line alone (a warm run whose project phase is remembered needs no
        facts)."""
        try:
            raw = read_regular(self._path(key), MAX_ENTRY_BYTES)
            head, newline, rest = raw.partition(b"\n")
            data = json.loads(head)
            if not isinstance(data, dict) or data.get("key") != key:
                return None
            if facts and newline:
                data["facts"] = json.loads(rest)
        except (OSError, ValueError, RecursionError):
            return None  # missing, not a regular file, corrupt or nested too deeply: a miss
        return data

    def put(self, key: str, data: dict[str, Any]) -> None:
        if not self.enabled or (not self._tagged and self.claim() is not None):
            return
        target = self._path(key)
        try:
            folder = os.path.dirname(target)
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            facts = data.get("facts")
            lines = [json.dumps(self.findings_line(key, data), separators=(",", ":"))]
            if isinstance(facts, dict):
                lines.append(json.dumps(facts, separators=(",", ":")))
            # JSON text holds no raw newline: the first one ends the findings
            atomic_write(target, "\n".join(lines).encode("utf-8"))
        except OSError:
            # A read-only or full disk must not fail the lint; stop trying this run.
            self.enabled = False

    @staticmethod
    def findings_line(key: str, data: dict[str, Any]) -> dict[str, Any]:
        """The first line of the entry of result ``data``: all but the facts, with the
        module name (what ``get(key, facts=False)`` gives back)."""
        head = {k: v for k, v in data.items() if k != "facts"}
        head["key"] = key
        facts = data.get("facts")
        if isinstance(facts, dict):
            head["module"], head["complete"] = facts.get("module"), facts.get("complete", True)
        return head

    # -- the project phase of a run in which nothing changed ------------------------------

    def project_key(self, keys: "Iterable[tuple[str, str]]") -> str:
        """The key of a project phase over files (absolute path, content key)."""
        digest = hashlib.sha256(b"project\0")
        for path, key in sorted(keys):
            digest.update(path.encode("utf-8", "surrogatepass") + b"\0" + key.encode("ascii") + b"\n")
        return digest.hexdigest()

    def get_project(self, key: str) -> list[dict[str, Any]] | None:
        """The project rules' findings remembered for ``project_key``."""
        data = self.get_project_record()
        if data is None or data.get("key") != key or not isinstance(data.get("diagnostics"), list):
            return None
        return data["diagnostics"]

    def get_project_record(self) -> dict[str, Any] | None:
        """The last project phase remembered: its ``key``, its ``diagnostics`` and, for a
        partial run, more (``put_project``)."""
        return self._read_json(_PROJECT_FILE)

    def put_project(self, key: str, diagnostics: list[Any], **partial: Any) -> None:
        """Remember the last project phase (one per settings folder: the next run of the
        same files reads it instead of every file's facts). ``partial``, for a partial
        run (``engine.run``): ``moved_key``, its key without the lines of the checked
        files' project facts, and ``lines``, those lines (the phase holds, lines moved,
        after an edit that only moved them: ``line_shift``); ``texts``, the content key
        of each module whose text the phase read."""
        self._write_json(_PROJECT_FILE, {"key": key, "diagnostics": diagnostics, **partial})

    def get_context(self, only: frozenset[str] | None = None) -> dict[str, dict[str, Any]]:
        """The project facts of the files a partial run read last (by content key, as
        ``context_entry`` writes them): a few files to read instead of one entry per file
        of the project. ``only``: the project facts the caller reads (the files of the
        others are not read); {} when the files are missing, not ours, or not from one
        write."""
        data = self._read_json(_CONTEXT_FILE)
        if data is None or data.get("layout") != _CONTEXT_LAYOUT or not isinstance(data.get("facts"), dict):
            return {}
        out = {k: v for k, v in data["facts"].items() if isinstance(v, dict)}
        for name, keys in _CONTEXT_GROUPS:
            if only is not None and not only & keys:
                continue
            group = self._read_json(name)
            if group is None or group.get("token") != data.get("token") or not isinstance(group.get("facts"), dict):
                return {}  # another write's, or a write cut short
            for key, facts in group["facts"].items():
                entry = out.get(key)
                if entry is not None and isinstance(facts, dict):
                    entry.update(facts)
        return out

    def put_context(self, facts: "dict[str, dict[str, Any]]") -> None:
        """Keep ``facts`` (``context_entry``s by content key) for ``get_context``: the facts
        of each of ``_CONTEXT_GROUPS`` in its file (for the files that have some), the rest
        in ``_CONTEXT_FILE``, written last; the files carry a token of the keys, so that
        files of two writes are never read together."""
        token = hashlib.blake2b("\n".join(sorted(facts)).encode("ascii", "replace"), digest_size=16).hexdigest()
        rest = {key: dict(entry) for key, entry in facts.items()}
        for name, keys in _CONTEXT_GROUPS:
            group: dict[str, dict[str, Any]] = {}
            for key, entry in rest.items():
                found = {k: entry.pop(k) for k in keys if k in entry}
                if any(found.values()):
                    group[key] = found
            self._write_json(name, {"token": token, "facts": group})
        self._write_json(_CONTEXT_FILE, {"layout": _CONTEXT_LAYOUT, "token": token, "facts": rest})

    def _read_json(self, name: str) -> dict[str, Any] | None:
        """A JSON object the settings folder keeps beside the entries, or None (missing,
        unreadable or not ours)."""
        try:
            data = json.loads(read_regular(os.path.join(self.directory, name), MAX_ENTRY_BYTES))
        except (OSError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    def _write_json(self, name: str, data: dict[str, Any]) -> None:
        if not self.enabled or (not self._tagged and self.claim() is not None):
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            payload = json.dumps(data, separators=(",", ":"))
            atomic_write(os.path.join(self.directory, name), payload.encode("utf-8", "surrogatepass"))
        except (OSError, ValueError):
            # A read-only or full disk must not fail the lint; stop trying this run.
            self.enabled = False

    def claim(self) -> str | None:
        """Make the cache folder ours, or turn the cache off and say why. The cache writes
        only into a folder it creates, an empty one, or one holding its own
        ``CACHEDIR.TAG``: `--cache-dir .` must never drop a `.gitignore` of `*` (and a
        tag) into the user's project."""
        self._tagged = True
        base = self.base
        tag = os.path.join(base, _TAG)
        try:
            if os.path.isdir(base):
                if _is_ours(tag):
                    return None
                with os.scandir(base) as entries:
                    if any(True for _ in entries):
                        self.enabled = False
                        return (
                            f"not using `{base}` as the cache: the folder exists and is not an agentlint cache "
                            f"(no agentlint {_TAG} in it); give --cache-dir (or `cache-dir`) a new or empty folder"
                        )
            os.makedirs(base, exist_ok=True)
            with open(tag, "x", encoding="ascii") as fh:
                fh.write(_TAG_TEXT)
            with open(os.path.join(base, ".gitignore"), "x", encoding="ascii") as fh:
                fh.write("*\n")
        except FileExistsError:
            return None  # another run claimed it a moment ago
        except OSError as exc:
            self.enabled = False
            return f"cannot write the cache to `{base}` ({exc.strerror or exc}); running without it"
        return None


    def mark_used(self, now: float | None = None) -> bool:
        """Mark this run's settings folder as used and prune the others (see the module's
        docstring); at most once every ``MARK_EVERY`` seconds. True when it pruned."""
        now = time.time() if now is None else now
        stamp = os.path.join(self.directory, _STAMP)
        try:
            if now - os.stat(stamp).st_mtime < MARK_EVERY:
                return False
        except OSError:
            pass
        try:
            os.makedirs(self.directory, exist_ok=True)
            with open(stamp, "a", encoding="ascii"):
                pass
            os.utime(stamp, (now, now))
        except OSError:
            return False
        prune(self.base, keep=self.directory, now=now)
        return True


KEEP_SETTINGS = 8
"""Settings folders (of any version) kept besides the one in use."""
STALE_DAYS = 7
"""A settings folder not used for this many days is removed."""
MARK_EVERY = 3600
"""Seconds between two marks of a settings folder as used (and two prunes)."""
_STAMP = "last-used"
_VERSION_DIR = lazy_compile(r"^[0-9][0-9A-Za-z.+!_-]*$")
_SETTINGS_DIR = lazy_compile(r"^[0-9a-f]{16}$")


def prune(base: str, *, keep: str | None = None, now: float | None = None) -> list[str]:
    """Remove the settings folders of ``base`` (a cache folder of ours) not used for
    ``STALE_DAYS`` days, and all but the ``KEEP_SETTINGS`` most recently used; never
    ``keep``. Folders of other versions that end up empty go too. Only folders shaped
    like agentlint's (``<version>/<16 hex digits>``) are touched. Returns the removed."""
    if not _is_ours(os.path.join(base, _TAG)):
        return []
    now = time.time() if now is None else now
    found: list[tuple[float, str]] = []
    versions: list[str] = []
    try:
        with os.scandir(base) as entries:
            for version in entries:
                if not _VERSION_DIR.match(version.name) or not version.is_dir(follow_symlinks=False):
                    continue
                versions.append(version.path)
                with os.scandir(version.path) as settings_dirs:
                    for entry in settings_dirs:
                        if _SETTINGS_DIR.match(entry.name) and entry.is_dir(follow_symlinks=False):
                            found.append((_last_used(entry.path), entry.path))
    except OSError:
        return []
    keep_real = os.path.abspath(keep) if keep else None
    others = sorted((item for item in found if os.path.abspath(item[1]) != keep_real), reverse=True)
    removed = []
    for rank, (used, path) in enumerate(others):
        if rank >= KEEP_SETTINGS or now - used > STALE_DAYS * 86400:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    for version in versions:
        try:
            os.rmdir(version)  # only when empty
        except OSError:
            pass
    return removed


def _last_used(folder: str) -> float:
    try:
        return os.stat(os.path.join(folder, _STAMP)).st_mtime
    except OSError:
        try:
            return os.stat(folder).st_mtime
        except OSError:
            return 0.0


def is_cache_folder(path: str) -> bool:
    """Whether ``path`` is a cache folder of agentlint's (it holds our ``CACHEDIR.TAG``)."""
    return os.path.isdir(path) and not os.path.islink(path) and _is_ours(os.path.join(path, _TAG))


def remove_cache_folder(path: str) -> bool:
    """Remove a cache folder of ours whole (`agentlint clean`); False when ``path`` is
    not one, which is then left alone."""
    if not is_cache_folder(path):
        return False
    shutil.rmtree(path)
    return True


_WARNED: set[str] = set()


def open_cache(directory: str, settings_fingerprint: str) -> Cache | None:
    """The run's cache, claimed (see ``Cache.claim``) and marked as used (pruning other
    settings and versions), or None when it cannot be used; the reason is printed once
    on stderr and the run goes on without a cache."""
    cache = Cache(directory, settings_fingerprint)
    warning = cache.claim()
    if warning is None:
        cache.mark_used()
        return cache
    if warning not in _WARNED:
        _WARNED.add(warning)
        print(f"agentlint: warning: {warning}", file=sys.stderr)
    return None


_TAG_TEXT = "Signature: 8a477f597d28d172789f06886806bc55\n# agentlint cache; safe to delete.\n"


def _is_ours(tag: str) -> bool:
    try:
        return read_regular(tag, 4096).decode("ascii", "replace").startswith(_TAG_TEXT.splitlines()[0]) and b"agentlint" in read_regular(tag, 4096)
    except OSError:
        return False


def context_entry(project: dict[str, Any]) -> dict[str, Any]:
    """A file's project facts (``FileFacts.project_json``) as ``Cache.put_context`` keeps
    them: each import a row [local, qualified, line], which reads back in a third of the
    time of an object (``FileFacts.from_context``)."""
    return {**project, "imports": [[i["local"], i["qualified"], i["line"]] for i in project["imports"]]}


def cached_facts(cache: Cache, key: str) -> dict[str, Any] | None:
    """The facts (JSON) cached for content ``key``: `check`'s full result, else a
    facts-only entry (``facts_only_key``)."""
    for entry_key in (key, facts_only_key(key)):
        entry = cache.get(entry_key)
        facts = entry.get("facts") if isinstance(entry, dict) else None
        if isinstance(facts, dict) and "calls" in facts:
            return facts
    return None


def facts_only_key(key: str) -> str:
    """The cache key of a facts-only entry (never the key of a full result)."""
    return hashlib.sha256(b"facts-only\0" + key.encode("ascii")).hexdigest()
