"""The project phase: tools declared in one module and passed as tools in another, then the
project rules (each a part of the phase: ``phase_parts``), once per project
(``boundaries``: a monorepo of independent applications is several projects, which never
see each other's facts).
"""

from __future__ import annotations

from typing import Mapping

from agentlint.engine import cross_module_tools
from agentlint.engine.boundaries import ProjectMap, split_by_project
from agentlint.engine.config import Settings
from agentlint.engine.phase_parts import DECLARE
from agentlint.facts.types import FileFacts
from agentlint.rules import registry
from agentlint.rules.api import ProjectContext
from agentlint.rules.builtin import crash_diagnostic
from agentlint.rules.diagnostics import Diagnostic


def project_phase(
    facts: Mapping[str, FileFacts], settings: Settings, projects: ProjectMap | None = None,
    read: set[str] | None = None, known: Mapping[str, list[Diagnostic]] | None = None,
    reported: frozenset[str] | None = None,
) -> dict[str, list[Diagnostic]]:
    """The findings of each part of the project phase (``phase_parts``: the tools declared
    across modules, then each enabled project rule), run once per project
    (``boundaries``: a monorepo of independent applications is several projects, which
    never see each other's facts). ``projects``: the run's project map, when it has one;
    ``read`` collects the paths of the modules whose text the phase read
    (``cross_module_tools.read_module``); ``known``: the findings of parts that need not
    run (a partial run whose edit left what they read unchanged); ``reported``: the
    files whose findings are reported, when not all (``ProjectContext.reported``)."""
    selected = [code for code in registry.project_fact_reads() if code in settings.enabled]
    if not facts:
        return {}
    known = known or {}
    out: dict[str, list[Diagnostic]] = {}
    if DECLARE in known:
        # no part that runs reads the tools it adds
        out[DECLARE] = list(known[DECLARE])
        groups = split_by_project(facts, projects or ProjectMap(settings))
    else:
        # tools declared in one module and passed as tools in another, per project
        out[DECLARE], groups = cross_module_tools.declare_in_projects(
            facts, settings, projects=projects, read=read)
    for code in selected:
        if code in known:
            out[code] = list(known[code])
            continue
        cls = registry.project_rule(code)  # only the rules that run are loaded
        found: list[Diagnostic] = []
        rule_settings = rule_settings_of(cls, settings)
        for group in groups:
            try:
                found += cls(ProjectContext(group, rule_settings, reported)).check()
            except Exception as exc:
                found.append(crash_diagnostic("<project>", cls.meta, exc))
        out[code] = found
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
