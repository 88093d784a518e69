"""Modules loaded on first use, for start-up time.

LibCST costs about 0.3 s to import, and the analysis (facts, agent model, rules) about
0.1 s more: most of a one-file run, which a warm cache answers without either. A module
that needs one of them names it at its top with :func:`lazy_module`, which returns the
real module if it is loaded and a stand-in otherwise (``importlib.util.LazyLoader``):
the first attribute access loads it, and from then on the module is the real one (no
overhead in hot loops). So listing the rules (configuration, docs, SARIF), answering
from the cache, and checking files in which no rule can fire never pay for them.
``tests/test_structure.py`` reads these names as imports (stages, circles).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Callable


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, loaded when one of its attributes is first read."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:  # pragma: no cover - our own modules and dependencies
        return importlib.import_module(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)  # as the import system does
    return module


def libcst_module() -> ModuleType:
    return lazy_module("libcst")


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
