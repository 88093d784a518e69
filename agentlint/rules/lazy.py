"""Importing LibCST only when a tree is needed.

LibCST costs about 0.3 s to import, most of a one-file run. Rule modules import it
through :func:`libcst_module`, which returns the real module if it is loaded and a lazy
one otherwise (``importlib.util.LazyLoader``): the first attribute access loads it, and
from then on the module is the real one (no overhead in the rules' hot loops). So
listing the rules (configuration, docs, SARIF) and checking files in which no rule can
fire never pay for LibCST.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Callable


def libcst_module() -> ModuleType:
    loaded = sys.modules.get("libcst")
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec("libcst")
    if spec is None or spec.loader is None:  # pragma: no cover - libcst is a dependency
        import libcst

        return libcst
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["libcst"] = module
    loader.exec_module(module)
    return module


def lazy_types(*names: str) -> Callable[[], tuple]:
    """A function returning the LibCST classes ``names`` as a tuple for `isinstance`,
    looked up on first call (a module-level tuple would load LibCST on import)."""
    found: list[tuple] = []

    def types() -> tuple:
        if not found:
            module = libcst_module()
            found.append(tuple(getattr(module, name) for name in names))
        return found[0]

    return types


def libcst_loaded() -> bool:
    """Whether LibCST has really been imported (not only its lazy stand-in)."""
    return "libcst._nodes" in sys.modules
