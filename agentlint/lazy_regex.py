"""Regular expressions compiled on first use.

The analysis has about a hundred module-level patterns (vocabularies, prefilters, text
scans). Compiling them all at import cost a one-file run (what pre-commit runs) about
15 ms, a tenth of its time, while a file uses a handful of them. So a module writes
``NAME = lazy_compile(r"...")`` where it would write ``re.compile``: the pattern is
compiled the first time one of its methods or attributes is read.

Then the stand-in takes the compiled pattern's methods and attributes as its own and
stops being a stand-in (its class changes to one without ``__getattr__``): from then on
``NAME.search(text)`` costs what it costs on a compiled pattern. A class that defines
``__getattr__`` makes every attribute read slower, found or not, and these patterns
are read in the analysis's hottest loops. It is not an ``re.Pattern``: give the `re`
module's functions and ``isinstance`` tests ``NAME.compiled`` instead.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr

_ATTRIBUTES = (
    "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
    "pattern", "flags", "groups", "groupindex",
)
"""What an ``re.Pattern`` offers."""


class _Pattern:
    """What a stand-in holds before and after its pattern is compiled."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = pattern
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern:
        found = self.__dict__.get("_compiled")
        if found is None:
            found = self.__dict__["_compiled"] = re.compile(self._source, self._flags)
        return found

    def __repr__(self) -> str:
        return f"lazy_compile({self._source!r}, {self._flags!r})"


class LazyPattern(_Pattern):
    """``re.compile(pattern, flags)``, done when an attribute is first read."""

    def __getattr__(self, name: str) -> Any:
        # Only called for a name the instance does not hold: the first read of any.
        if name.startswith("__"):  # copy, pickle and friends probing for hooks
            raise AttributeError(name)
        compiled = self.compiled
        for attribute in _ATTRIBUTES:
            self.__dict__[attribute] = getattr(compiled, attribute)
        self.__class__ = CompiledPattern
        return getattr(self, name)


class CompiledPattern(_Pattern):
    """A ``LazyPattern`` once compiled: the pattern's methods and attributes are its own."""


def lazy_compile(pattern: AnyStr, flags: int = 0) -> "re.Pattern[AnyStr]":
    """A stand-in for ``re.compile(pattern, flags)`` that compiles on first use (see
    the module's docstring). Typed as the pattern it stands for: it answers every
    method and attribute of one."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
