"""Regular expressions compiled on first use.

The analysis has about a hundred module-level patterns (vocabularies, prefilters, text
scans). Compiling them all at import cost a one-file run (what pre-commit runs) about
15 ms, a tenth of its time, while a file uses a handful of them. So a module writes
``NAME = lazy_compile(r"...")`` where it would write ``re.compile``: the pattern is
compiled the first time one of its methods or attributes is read.

Each attribute read is kept on the instance (the compiled pattern's bound method), so
from the second call on ``NAME.search(text)`` costs what it costs on a compiled
pattern: no wrapper runs in hot loops. It is not an ``re.Pattern``: give the `re`
module's functions and ``isinstance`` tests ``NAME.compiled`` instead.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    """``re.compile(pattern, flags)``, done when an attribute is first read."""

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self._source = pattern
        self._flags = flags

    @property
    def compiled(self) -> "re.Pattern[AnyStr]":
        found = self.__dict__.get("_compiled")
        if found is None:
            found = self.__dict__["_compiled"] = re.compile(self._source, self._flags)
        return found

    def __getattr__(self, name: str) -> Any:
        # Only called for a name the instance does not hold yet: ``search``, ``match``,
        # ``pattern``... The answer is kept, so the next read finds it directly.
        if name.startswith("__"):  # copy, pickle and friends probing for hooks
            raise AttributeError(name)
        value = getattr(self.compiled, name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy_compile({self._source!r}, {self._flags!r})"


def lazy_compile(pattern: AnyStr, flags: int = 0) -> "re.Pattern[AnyStr]":
    """A stand-in for ``re.compile(pattern, flags)`` that compiles on first use (see
    the module's docstring). Typed as the pattern it stands for: it answers every
    method and attribute of one."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
