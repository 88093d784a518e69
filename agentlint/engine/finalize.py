"""After the analysis: the project phase, `per-file-ignores`, `# noqa` suppressions, the
`tests` setting, notebook cells, sorting.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Iterable, Mapping

from agentlint.engine.boundaries import ProjectMap
from agentlint.engine.config import Settings
from agentlint.engine.notebook_cells import to_cells
from agentlint.engine.results import FileResult
from agentlint.engine.suppression import apply_suppressions
from agentlint.facts.types import FileFacts
from agentlint.knowledge.test_code import is_test_path
from agentlint.rules import registry
from agentlint.rules.builtin import ENGINE_CODE_SET, INTERNAL_ERROR
from agentlint.rules.diagnostics import Diagnostic, RuleMeta
from agentlint.rules.lazy import lazy_module

# Loaded when the project phase runs or a file is analysed: a run whose project findings
# are remembered (nothing changed) needs neither.
analysis = lazy_module("agentlint.engine.analyze")
project_rules = lazy_module("agentlint.engine.project")


def finalize(
    results: Mapping[str, FileResult],
    settings: Settings,
    rules: Mapping[str, RuleMeta],
    *,
    project: bool = True,
    context: Mapping[str, FileFacts] | None = None,
    project_diagnostics: list[Diagnostic] | None = None,
    on_project: Callable[[dict[str, list[Diagnostic]]], None] | None = None,
    projects: ProjectMap | None = None,
    project_reads: set[str] | None = None,
    known_parts: Mapping[str, list[Diagnostic]] | None = None,
) -> list[Diagnostic]:
    """Project phase (unless ``project`` is false), then per-file-ignores and
    suppressions, sorted. ``context`` holds the facts of project files that were not
    checked (a partial run): the project rules see them, but report only in
    ``results``. ``project_diagnostics`` are the project phase's findings when they are
    already known (a run in which nothing changed); ``known_parts``, those of some of its
    parts (``phase_parts``), which do not run; ``on_project`` is given the findings of
    each part. ``projects``: the run's project map, when it has one; ``project_reads``
    collects the paths of the modules whose text the project phase read."""
    by_path: dict[str, list[Diagnostic]] = {p: list(r.diagnostics) for p, r in results.items()}
    if project:
        if project_diagnostics is None:
            facts = {p: r.facts for p, r in results.items()}
            reported = None
            if context:
                facts = {**context, **facts}
                reported = frozenset(results)  # the others' findings are never reported
            by_part = project_rules.project_phase(facts, settings, projects, project_reads, known_parts, reported)
            if on_project is not None:
                on_project(by_part)
            project_diagnostics = [d for found in by_part.values() for d in found]
        for d in project_diagnostics:
            if d.path in by_path or d.path == "<project>":
                by_path.setdefault(d.path, []).append(d)
    out: list[Diagnostic] = []
    for path, diagnostics in by_path.items():
        result = results.get(path)
        if not diagnostics and not (result is not None and result.suppressions):
            continue  # nothing to filter and no suppression to check: most files
        ignored = settings.ignored_for(_relative(path, settings.root)) - ENGINE_CODE_SET
        enabled = settings.enabled - ignored
        diagnostics = [d for d in diagnostics if d.code in enabled]
        kept = apply_suppressions(
            diagnostics,
            result.suppressions if result else (),
            path=path,
            enabled=enabled,
            rules=rules,
        )
        if kept and is_test_path(_relative(path, settings.root)):
            kept = _in_test_code(kept, settings)
        out += kept
    out = to_cells(out, {p: r.cells for p, r in results.items() if r.cells})
    out.sort(key=Diagnostic.sort_key)
    return out


def _in_test_code(diagnostics: list[Diagnostic], settings: Settings) -> list[Diagnostic]:
    """The `tests` setting: findings in test code are reported, turned into notes, or
    skipped, per code or family. Engine diagnostics are always reported."""
    out = []
    for d in diagnostics:
        mode = "report" if d.code in ENGINE_CODE_SET else settings.test_mode(d.code)
        if mode == "skip":
            continue
        out.append(replace(d, severity="note") if mode == "note" else d)
    return out


def _relative(path: str, root: str) -> str:
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, root)
    return (os.path.basename(absolute) if rel.startswith("..") else rel).replace(os.sep, "/")


def has_internal_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.code == INTERNAL_ERROR.code for d in diagnostics)


def file_diagnostics(path: str, content: bytes, settings: Settings) -> list[Diagnostic]:
    """The per-file findings for ``content`` as the file ``path``, per-file-ignores and
    suppressions applied (no project phase, no cache): what each `--fix` round reads."""
    result = analysis.analyze_content(path, content, settings)
    return finalize({path: result}, settings, registry.all_rules(), project=False)
