"""Per-file result cache: one JSON file per (path, content, settings, version).

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
from typing import Any

from agentlint import __version__
from agentlint.engine.files import atomic_write
from agentlint.facts.source import read_regular

_TAG = "CACHEDIR.TAG"
MAX_ENTRY_BYTES = 1 << 28
"""A cache entry larger than this is not ours (the largest real ones are a few MB)."""


class Cache:
    def __init__(self, directory: str, settings_fingerprint: str) -> None:
        self.base = directory
        self.directory = os.path.join(directory, __version__, settings_fingerprint)
        self.enabled = True
        self._tagged = False

    @staticmethod
    def key(path: str, content: bytes) -> str:
        # The path is part of the key: facts (the module name) depend on where a file is.
        digest = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(content)
        return digest.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(read_regular(self._path(key), MAX_ENTRY_BYTES))
        except (OSError, ValueError, RecursionError):
            return None  # missing, not a regular file, corrupt or nested too deeply: a miss
        return data if isinstance(data, dict) and data.get("key") == key else None

    def put(self, key: str, data: dict[str, Any]) -> None:
        if not self.enabled or (not self._tagged and self.claim() is not None):
            return
        target = self._path(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            payload = json.dumps({**data, "key": key}, separators=(",", ":"))
            atomic_write(target, payload.encode("utf-8"))
        except OSError:
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


_WARNED: set[str] = set()


def open_cache(directory: str, settings_fingerprint: str) -> Cache | None:
    """The run's cache, claimed (see ``Cache.claim``), or None when it cannot be used;
    the reason is printed once on stderr and the run goes on without a cache."""
    cache = Cache(directory, settings_fingerprint)
    warning = cache.claim()
    if warning is None:
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
