"""A small programmatic surface: lint a string (used by the tests and by editors)."""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from agentlint.engine.analyze import analyze_content
from agentlint.engine.config import Settings, resolve_selector
from agentlint.engine.finalize import finalize
from agentlint.rules import registry
from agentlint.rules.builtin import ENGINE_CODES
from agentlint.rules.diagnostics import Diagnostic


def settings_for(
    select: Sequence[str] | None = None,
    rule_settings: Mapping[str, Mapping[str, Any]] | None = None,
    root: str | None = None,
) -> Settings:
    rules = registry.all_rules()
    if select is None:
        enabled = {c for c, m in rules.items() if m.default_selected}
    else:
        enabled = set().union(*(resolve_selector(s, rules) for s in select)) if select else set()
    enabled |= {m.code for m in ENGINE_CODES}
    merged = {
        code: {**meta.settings, **(rule_settings or {}).get(code, {})}
        for code, meta in rules.items()
        if meta.settings
    }
    return Settings(root=root or os.getcwd(), enabled=frozenset(enabled), rule_settings=merged)


def check_source(
    source: str | bytes,
    path: str = "example.py",
    *,
    select: Sequence[str] | None = None,
    rule_settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[Diagnostic]:
    """Every finding agentlint reports for ``source`` as if it were the file ``path``,
    suppressions applied."""
    settings = settings_for(select, rule_settings)
    content = source.encode("utf-8") if isinstance(source, str) else source
    result = analyze_content(path, content, settings, all_facts=False)  # nothing keeps the facts
    return finalize({path: result}, settings, registry.all_rules())
