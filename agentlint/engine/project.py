"""The project phase: tools declared in one module and passed as tools in another, then the
project rules, once per project (``boundaries``: a monorepo of independent applications
is several projects, which never see each other's facts).
"""

from __future__ import annotations

from typing import Mapping

from agentlint.engine import cross_module_tools
from agentlint.engine.boundaries import ProjectMap
from agentlint.engine.config import Settings
from agentlint.facts.types import FileFacts
from agentlint.rules import registry
from agentlint.rules.api import ProjectContext
from agentlint.rules.builtin import crash_diagnostic
from agentlint.rules.diagnostics import Diagnostic


def project_phase(
    facts: Mapping[str, FileFacts], settings: Settings, projects: ProjectMap | None = None,
    read: set[str] | None = None,
) -> list[Diagnostic]:
    """The project rules, run once per project (``boundaries``: a monorepo of independent
    applications is several projects, which never see each other's facts). ``projects``:
    the run's project map, when it has one; ``read`` collects the paths of the modules
    whose text the phase read (``cross_module_tools.read_module``)."""
    selected = [cls for cls in registry.project_rules() if cls.meta.code in settings.enabled]
    if not facts:
        return []
    # tools declared in one module and passed as tools in another, per project
    out, groups = cross_module_tools.declare_in_projects(facts, settings, projects=projects, read=read)
    for cls in selected:
        rule_settings = rule_settings_of(cls, settings)
        for group in groups:
            try:
                out += cls(ProjectContext(group, rule_settings)).check()
            except Exception as exc:
                out.append(crash_diagnostic("<project>", cls.meta, exc))
    return out


def rule_settings_of(cls: type, settings: Settings) -> dict:
    """A project rule's settings, with those it reads from other rules
    (``ProjectRule.borrowed_settings``: AGL106 honours AGL101's `cost-functions`)."""
    own = dict(settings.rule_settings.get(cls.meta.code, {}))
    for code, keys in getattr(cls, "borrowed_settings", {}).items():
        other = settings.rule_settings.get(code, {})
        for key in keys:
            if key in other and key not in own:
                own[key] = other[key]
    return own
