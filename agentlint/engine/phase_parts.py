"""The project phase in parts: the declaration of tools found across modules
(``cross_module_tools``) and each project rule, with the project facts each one reads.

A partial run whose edit changed some of a checked file's project facts keeps the
remembered findings of the parts that read none of them, and runs only the others: an
import added runs the tool parts again, not AGL401's comparison of every prompt of the
project. What a part reads is declared (``registry.Entry.project_facts``,
``DECLARE_READS``); a part that reads the tools also reads what the declaration reads,
since the declaration adds tools.

A part's remembered findings are kept when the project's other files have the same
project facts as when they were found (the run's ``others`` key), the same files were
checked, and each checked file's facts that the part reads are the same, or the same
with lines moved (``line_shift``: the findings move with them, or the part runs).
The declaration also reads modules' text: when one of those changed it runs again, and
so does every part that reads the tools.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping

from agentlint.engine import line_shift
from agentlint.rules import registry

DECLARE = "tools across modules"
"""The part that declares the tools found across modules, and checks them."""

DECLARE_READS = frozenset({
    "agents", "frameworks", "imports", "model_receivers", "module", "tool_frameworks", "tool_refs", "tool_uses",
    "tools",
})
"""The project facts ``cross_module_tools.declare_in_projects`` reads."""

DECLARE_WRITES = frozenset({"tools"})
"""The project facts it adds to: the tools it found."""

ALWAYS = frozenset({"module", "complete"})
"""Read by every part, with the paths: which file is which module, and whether it parsed."""

PartDigests = dict[str, list[Any]]
"""Part -> [digest, digest with lines left out, lines] of what it reads of one file."""


def part_reads(enabled: Collection[str]) -> dict[str, frozenset[str] | None]:
    """Each part of the project phase (the declaration first, then the enabled project
    rules in the registry's order) -> the project facts it reads (None: all)."""
    out: dict[str, frozenset[str] | None] = {DECLARE: DECLARE_READS | ALWAYS}
    for code, reads in registry.project_fact_reads().items():
        if code not in enabled:
            continue
        if reads is not None:
            reads = reads | ALWAYS
            if reads & DECLARE_WRITES:
                reads |= DECLARE_READS
        out[code] = reads
    return out


def part_digests(project: Mapping[str, Any], reads: Mapping[str, frozenset[str] | None]) -> PartDigests:
    """Of one file's project facts in JSON (``FileFacts.project_json``), each part's
    digests and lines of what it reads (parts that read the same facts share them)."""
    by_reads: dict[frozenset[str] | None, list[Any]] = {}
    out: PartDigests = {}
    for part, keys in reads.items():
        found = by_reads.get(keys)
        if found is None:
            read = project if keys is None else {k: v for k, v in project.items() if k in keys}
            found = by_reads[keys] = [line_shift.json_digest(read), *line_shift.free_digest(read)]
        out[part] = found
    return out


def kept_parts(
    record: Mapping[str, Any], reads: Mapping[str, frozenset[str] | None], checked: Mapping[str, PartDigests],
    others: str, texts_same: bool,
) -> dict[str, line_shift.Remembered]:
    """Part -> its remembered findings (JSON, as the cache keeps them), for each part of
    ``reads`` that ``record`` (a remembered partial phase) holds for the facts it reads
    now: ``checked`` has each checked file's digests, ``others`` the key of the other
    files' facts; ``texts_same``: whether the modules the declaration read are the same."""
    parts = record.get("parts")
    if record.get("others") != others or not isinstance(parts, dict):
        return {}
    kept: dict[str, line_shift.Remembered] = {}
    for part in reads:
        if part == DECLARE and not texts_same:
            continue
        found = _kept(parts.get(part), part, checked)
        if found is not None:
            kept[part] = found

    def needs_tools(part: str) -> bool:
        return reads[part] is None or bool(reads[part] & DECLARE_WRITES)  # type: ignore[operator]

    if DECLARE not in kept:
        # the tools it adds may differ: every part that reads them runs again
        return {part: found for part, found in kept.items() if not needs_tools(part)}
    if any(part not in kept and needs_tools(part) for part in reads):
        del kept[DECLARE]  # it runs for the tools it adds; it finds what it found before
    return kept


def _kept(entry: Any, part: str, checked: Mapping[str, PartDigests]) -> line_shift.Remembered | None:
    """A part's remembered findings, moved to the lines its facts hold now, or None."""
    if not isinstance(entry, dict):
        return None
    files, found = entry.get("files"), entry.get("diagnostics")
    if not isinstance(files, dict) or not isinstance(found, list) or files.keys() != checked.keys():
        return None
    try:
        if all(files[path][0] == digests[part][0] for path, digests in checked.items()):
            return found
        if not all(files[path][1] == digests[part][1] for path, digests in checked.items()):
            return None
        return line_shift.moved_with_lines(
            found, {path: files[path][2] for path in checked}, {path: d[part][2] for path, d in checked.items()})
    except (TypeError, ValueError, IndexError, KeyError):
        return None  # a record from a broken write
