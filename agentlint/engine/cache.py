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
from typing import Any

from agentlint import __version__
from agentlint.engine.files import atomic_write

_TAG = "CACHEDIR.TAG"


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
            with open(self._path(key), "rb") as fh:
                data = json.loads(fh.read())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("key") == key else None

    def put(self, key: str, data: dict[str, Any]) -> None:
        if not self.enabled:
            return
        target = self._path(key)
        try:
            folder = os.path.dirname(target)
            os.makedirs(folder, exist_ok=True)
            self._tag()
            payload = json.dumps({**data, "key": key}, separators=(",", ":"))
            atomic_write(target, payload.encode("utf-8"))
        except OSError:
            # A read-only or full disk must not fail the lint; stop trying this run.
            self.enabled = False

    def _tag(self) -> None:
        if self._tagged:
            return
        self._tagged = True
        tag = os.path.join(self.base, _TAG)
        if not os.path.exists(tag):
            try:
                with open(tag, "w", encoding="ascii") as fh:
                    fh.write("Signature: 8a477f597d28d172789f06886806bc55\n# agentlint cache; safe to delete.\n")
                with open(os.path.join(self.base, ".gitignore"), "w", encoding="ascii") as fh:
                    fh.write("*\n")
            except OSError:
                pass


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
