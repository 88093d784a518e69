"""Module names from paths, as Python names them (packages, namespace portions)."""

from __future__ import annotations

import os
from functools import lru_cache

_NAMESPACE_DEPTH = 3
"""How many folders without `__init__.py` in a row may sit inside a regular package."""


def module_name_for(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`, climbing while the folder is a package: a
    regular one (`__init__.py`), or a folder without one inside a regular package (an
    implicit namespace portion: `app/processor/image/generate.py` with `app/__init__.py`
    and `app/processor/__init__.py` is `app.processor.image.generate`)."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts = ([] if stem == "__init__" else [stem]) + list(_packages(directory))
    return ".".join(reversed(parts)) or stem


@lru_cache(maxsize=4096)
def _packages(directory: str) -> tuple[str, ...]:
    """The names of ``directory`` and of the folders above it that are packages, innermost
    first (asked once per folder: a run names every file of a folder)."""
    parts: list[str] = []
    isfile, split, join = os.path.isfile, os.path.split, os.path.join
    while True:
        if not isfile(join(directory, "__init__.py")):
            # Folders named like identifiers, up to a regular package: their names count.
            probe, inside = directory, False
            for _ in range(_NAMESPACE_DEPTH):
                parent, name = split(probe)
                if not name or not name.isidentifier() or parent == probe:
                    break
                if isfile(join(parent, "__init__.py")):
                    inside = True
                    break
                probe = parent
            if not inside:
                break
        directory, package = split(directory)
        parts.append(package)
        if not package:
            break
    return tuple(parts)


def forget_packages() -> None:
    """Forget which folders are packages (each run asks the file system again)."""
    _packages.cache_clear()
