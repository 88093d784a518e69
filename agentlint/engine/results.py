"""A file's result as a run holds it, caches it and reads it back, and the few
questions a run asks before deciding whether any file needs analysing.

Apart from ``analyze`` on purpose: a run answered from the cache (pre-commit on an
unchanged file, a warm CI run) decodes results and never loads the analysis.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from agentlint.engine.config import Settings
from agentlint.engine.suppression import Suppression
from agentlint.facts.module_names import module_name_for
from agentlint.facts.source import UnreadableFile, read_regular
from agentlint.facts.types import FileFacts
from agentlint.rules import registry
from agentlint.rules.builtin import INTERNAL_ERROR, UNREADABLE_FILE, engine_diagnostic
from agentlint.rules.diagnostics import Diagnostic


@dataclass(frozen=True)
class FileResult:
    """The outcome of analysing one file: what the cache stores and the pool returns."""

    path: str
    diagnostics: tuple[Diagnostic, ...]
    facts: FileFacts
    suppressions: tuple["Suppression", ...] = ()
    cells: tuple[tuple[int, int, int], ...] = ()
    """For a notebook: (first virtual line, cell, line count) per code cell checked
    (notebooks.CellMap). Diagnostics, facts and suppressions of a notebook are in
    virtual lines until ``engine.finalize`` maps them to cells."""

    def to_json(self) -> dict[str, Any]:
        data = {
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "facts": self.facts.to_json(),
            "suppressions": [asdict(s) for s in self.suppressions],
        }
        if self.cells:
            data["cells"] = [list(c) for c in self.cells]
        return data

    @staticmethod
    def from_json(data: dict[str, Any], path: str, *, with_facts: "bool | str" = True) -> "FileResult":
        """``with_facts``: True (every fact), "project" (what project rules read, see
        ``FileFacts.project_from_json``) or False (the module name only)."""
        if "facts" not in data:
            # a cache entry read without its facts line, or one that has none (written by
            # a run of per-file rules alone), carries the module name itself
            decoded = FileFacts(data["module"], complete=False)
        elif with_facts == "project":
            decoded = FileFacts.project_from_json(data["facts"])
        elif with_facts:
            decoded = FileFacts.from_json(data["facts"])
        else:
            decoded = FileFacts(data["facts"]["module"], complete=False)
        return FileResult(
            path=path,
            diagnostics=tuple(Diagnostic.from_json(d, path) for d in data["diagnostics"]),
            facts=decoded,
            suppressions=tuple(
                Suppression(s["line"], s["column"], tuple(s["codes"])) for s in data["suppressions"]
            ),
            cells=tuple((c[0], c[1], c[2]) for c in data.get("cells", ())),
        )


def unreadable(path: str, reason: str) -> FileResult:
    return FileResult(
        path,
        (engine_diagnostic(UNREADABLE_FILE, path, f"Cannot read `{path}`: {reason}"),),
        FileFacts(module=module_name_for(path), complete=False),
    )


def read_source(path: str, limit: int) -> bytes | str:
    """The file's bytes, or the reason it cannot be read (only regular files are read,
    and none over ``limit`` bytes)."""
    try:
        return read_regular(path, limit)
    except UnreadableFile as exc:
        return str(exc)
    except OSError as exc:
        return exc.strerror or str(exc)


def cacheable(data: dict) -> bool:
    """A result is cached unless the analysis crashed on it (the next run tries again)."""
    return not any(d["code"] == INTERNAL_ERROR.code for d in data["diagnostics"])


def project_phase_wanted(settings: Settings) -> bool:
    """A project rule is selected, or a model rule (tools declared in one module and
    passed as tools in another are found in the project phase)."""
    return not (registry.codes_of("project") | registry.codes_of("model")).isdisjoint(settings.enabled)
