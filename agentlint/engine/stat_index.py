"""Which files are unchanged since the last run, from ``stat`` alone.

A warm run used to read and hash every file to find its cache entry. The index keeps,
per settings folder of the cache, each file's content key with the ``stat`` it had when
it was read (size, modification and change times in nanoseconds, inode); while they
stay the same the key is taken as it is, and the file is not read. A small findings
line of the file's cache entry is kept there too, so that a warm run whose project
phase is remembered opens no entry either. Any write to a file
changes its change time (``st_ctime`` cannot be set by a program), so a tool that keeps
the modification time (`cp -p`, `rsync -t`, `touch -d`) does not fool it either.

For a partial run (pre-commit passes the changed files), the index also keeps a digest
of each content key's project facts: when the project files' digests are those of a
remembered project phase, its findings hold and no other file's facts are read. It also
keeps the files of the project the walk found (a listing), with the times of the
folders it read and of the ignore files it looked for: while those hold, the project
is not walked again (a file added, removed or renamed changes its folder's times).

A file modified twice within one tick of the filesystem's clock keeps the same times:
an entry is recorded only for a file whose times are older than the start of the run by
more than ``RACY_SECONDS`` (as git does with its index), so such a file is read and
hashed until it has been left alone for a moment.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from agentlint.engine.discovery import stamps_hold
from agentlint.engine.files import absolute_path, atomic_write
from agentlint.facts.source import read_regular

INDEX_FILE = "stat-index.json"
RACY_SECONDS = 2
"""The coarsest clock tick of a common filesystem (FAT keeps even seconds)."""
MAX_KEPT_FINDINGS = 2048
"""Bytes of a findings line kept in the index, at most (most files have none)."""
MAX_ENTRIES = 200_000
"""Entries kept; the files of the run that writes the index come first."""
MAX_LISTINGS = 8
"""Project listings kept; the most recently kept first."""
_FORMAT = 1
_MAX_BYTES = 1 << 28

Stamp = tuple[int, int, int, int]
_clock = time.time


class StatIndex:
    def __init__(self, directory: str, now: float | None = None) -> None:
        self.path = os.path.join(directory, INDEX_FILE)
        self._trusted_before = int(((_clock() if now is None else now) - RACY_SECONDS) * 1e9)
        self._entries, self._digests, self._listings = _load(self.path)
        self._seen: set[str] = set()
        self._unchanged: set[str] = set()
        """Files whose entry matched their ``stat`` in this run."""
        self._recent_keys: set[str] = set()
        """The content keys of files read in this run but too recently changed to keep an
        entry for: their project facts' digests are kept all the same (a digest belongs
        to the content, not to the file's time stamps)."""
        self._dirty = False
        self._cwd = os.getcwd()
        """The working folder, which does not change during a run (``files.absolute_path``)."""

    @staticmethod
    def stamp(path: str) -> Stamp | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)

    def lookup(self, path: str) -> tuple[str | None, Stamp | None]:
        """The content key recorded for ``path`` when its ``stat`` has not changed (else
        None), and the stamp taken now: give it to ``record`` once the file is read
        (taken before the read, a change during the read only costs a hash next time)."""
        absolute = absolute_path(path, self._cwd)
        self._seen.add(absolute)
        stamp = self.stamp(absolute)
        entry = self._entries.get(absolute)
        if stamp is not None and entry is not None and tuple(entry[:4]) == stamp:
            self._unchanged.add(absolute)
            return entry[4], stamp
        return None, stamp

    def findings(self, path: str) -> dict[str, Any] | None:
        """The findings line of the cache entry of an unchanged file, when the index
        keeps it (``keep_findings``): a warm run then opens no cache entry at all."""
        absolute = absolute_path(path, self._cwd)
        if absolute not in self._unchanged:
            return None
        entry = self._entries[absolute]
        return entry[5] if len(entry) > 5 and isinstance(entry[5], dict) else None

    def keep_findings(self, path: str, key: str, head: dict[str, Any]) -> None:
        """Keep the findings line of the cache entry of ``path`` beside its key, when the
        index holds that key for it (only a small line: the index is read whole by
        every run)."""
        entry = self._entries.get(absolute_path(path, self._cwd))
        if entry is None or entry[4] != key or len(entry) > 5:
            return
        if len(json.dumps(head, separators=(",", ":"))) <= MAX_KEPT_FINDINGS:
            entry.append(head)
            self._dirty = True

    def digest(self, key: str | None) -> str | None:
        """The digest of the project facts of content ``key`` (``keep_digest``), or None."""
        return self._digests.get(key) if key is not None else None

    def keep_digest(self, key: str, digest: str) -> None:
        if self._digests.get(key) != digest:
            self._digests[key] = digest
            self._dirty = True

    def record(self, path: str, stamp: Stamp | None, key: str) -> None:
        absolute = absolute_path(path, self._cwd)
        if stamp is None or max(stamp[1], stamp[2]) >= self._trusted_before:
            # just written: read and hash it next time too (a pre-commit run's changed file,
            # most often, whose entry the run before already dropped: nothing to write then)
            if self._entries.pop(absolute, None) is not None:
                self._dirty = True
            self._recent_keys.add(key)
            return
        entry = [*stamp, key]
        if self._entries.get(absolute, [])[:5] != entry:
            self._entries[absolute] = entry
            self._dirty = True

    def listing(self, key: str) -> list[list[str]] | None:
        """The files a walk found under the listing ``key`` (``keep_listing``), when the
        folders it read and the ignore files it looked for are as they were; else None."""
        found = self._listings.get(key)
        if found is None:
            return None
        if not stamps_hold(found["folders"], found["ignores"]):
            del self._listings[key]
            self._dirty = True
            return None
        return found["files"]

    def keep_listing(
        self, key: str, files: list[list[str]], folders: "dict[str, list[int] | None]",
        ignores: "dict[str, list[int] | None]",
    ) -> None:
        """Keep what a walk found (``files``) under ``key``, with the stamps it saw
        (``discovery.stamp_of``): only when none is recent (a folder changed within one
        clock tick of the walk keeps its times, as a file does)."""
        stamps = [*folders.values(), *ignores.values()]
        if any(stamp is not None and max(stamp) >= self._trusted_before for stamp in stamps):
            return
        listings = {key: {"folders": folders, "ignores": ignores, "files": files}}
        listings.update((k, v) for k, v in self._listings.items() if k != key and len(listings) < MAX_LISTINGS)
        self._listings = listings
        self._dirty = True

    def save(self) -> None:
        """Write the index when it changed (atomically: a reader sees the old one or the
        new one). A failed write costs the next run its hashing, nothing else."""
        if not self._dirty:
            return
        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            kept = [p for p in entries if p in self._seen] + [p for p in entries if p not in self._seen]
            entries = {p: entries[p] for p in kept[:MAX_ENTRIES]}
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            keys = {entry[4] for entry in entries.values()} | self._recent_keys
            digests = {k: d for k, d in self._digests.items() if k in keys}
            payload = json.dumps(
                {"format": _FORMAT, "files": entries, "digests": digests, "listings": self._listings},
                separators=(",", ":"),
            )
            atomic_write(self.path, payload.encode("utf-8", "surrogatepass"))
            self._dirty = False
        except (OSError, ValueError):
            pass


def _load(path: str) -> tuple[dict[str, list[Any]], dict[str, str], dict[str, dict[str, Any]]]:
    try:
        data = json.loads(read_regular(path, _MAX_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}, {}, {}  # none yet, or unreadable: every file is read and hashed
    if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("files"), dict):
        return {}, {}, {}
    entries = {
        path: entry
        for path, entry in data["files"].items()
        if isinstance(entry, list) and len(entry) in (5, 6) and isinstance(entry[4], str)
    }
    digests = data.get("digests")
    digests = {k: d for k, d in digests.items() if isinstance(d, str)} if isinstance(digests, dict) else {}
    listings = data.get("listings")
    listings = {k: v for k, v in listings.items() if _is_listing(v)} if isinstance(listings, dict) else {}
    return entries, digests, listings


def _is_listing(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("folders"), dict)
        and isinstance(value.get("ignores"), dict)
        and isinstance(value.get("files"), list)
        and all(isinstance(f, list) and len(f) == 2 and all(isinstance(p, str) for p in f) for f in value["files"])
    )
