"""Identifiers as words: the name helpers the knowledge tables are matched with."""

from __future__ import annotations

from agentlint.lazy_regex import lazy_compile

_CAMEL_BOUNDARY = lazy_compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_parts(name: str) -> list[str]:
    """The lower-case words of an identifier, in order: `_reportFailure_v2` -> [report, failure, v2]."""
    if not name.islower():  # most names are snake_case: no case boundary to find, nothing to lower
        name = _CAMEL_BOUNDARY.sub("_", name).lower()
    return [w for w in name.split("_") if w]


def name_words(name: str) -> frozenset[str]:
    """The lower-case words of an identifier: `_reportFailure_v2` -> {report, failure, v2}."""
    return frozenset(name_parts(name))
