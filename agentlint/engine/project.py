"""The project phase: tools declared in one module and passed as tools in another, then the
project rules, once per project (``boundaries``: a monorepo of independent applications
is several projects, which never see each other's facts).
"""

from __future__ import annotations

from typing import Mapping

from agentlint.engine import cross_module_tools
from agentlint.engine.config import Settings
from agentlint.facts.types import FileFacts
from agentlint.rules import registry
from agentlint.rules.api import ProjectContext
from agentlint.rules.builtin import crash_diagnostic
from agentlint.rules.diagnostics import Diagnostic


def project_phase(facts: Mapping[str, FileFacts], settings: Settings) -> list[Diagnostic]:
    """The project rules, run once per project (``boundaries``: a monorepo of independent
    applications is several projects, which never see each other's facts)."""
    selected = [cls for cls in registry.project_rules() if cls.meta.code in settings.enabled]
    if not facts:
        return []
    # tools declared in one module and passed as tools in another, per project
    out, groups = cross_module_tools.declare_in_projects(facts, settings)
    for cls in selected:
        for group in groups:
            try:
                out += cls(ProjectContext(group, settings.rule_settings.get(cls.meta.code, {}))).check()
            except Exception as exc:
                out.append(crash_diagnostic("<project>", cls.meta, exc))
    return out
