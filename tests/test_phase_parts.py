"""The project phase in parts (``agentlint.engine.phase_parts``): what each part reads, which
remembered parts a partial run keeps, and partial runs through the CLI compared with the
whole phase run again."""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from agentlint.api import settings_for
from agentlint.engine import cross_module_tools, phase_parts
from agentlint.engine import run as engine
from agentlint.engine.cache import Cache, context_entry
from agentlint.engine.discovery import discover
from agentlint.facts.types import PROJECT_FACT_KEYS, FileFacts
from agentlint.rules import registry

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PROJECTS = FIXTURES / "projects"
DECLARE = phase_parts.DECLARE
EVERY_CODE = list(registry.all_rules())


# -- what each part reads -----------------------------------------------------------------


def test_every_part_declares_project_facts() -> None:
    declared = registry.project_fact_reads()
    assert declared.keys() == {cls.meta.code for cls in registry.project_rules()}
    for code, reads in declared.items():
        assert reads and reads <= PROJECT_FACT_KEYS, code
    assert phase_parts.DECLARE_READS <= PROJECT_FACT_KEYS
    assert phase_parts.DECLARE_WRITES <= phase_parts.DECLARE_READS


def test_a_part_that_reads_the_tools_reads_what_the_declaration_reads() -> None:
    reads = phase_parts.part_reads(EVERY_CODE)
    assert list(reads)[0] == DECLARE
    assert reads["AGL203"] >= phase_parts.DECLARE_READS  # it reads the tools
    assert not reads["AGL401"] & {"imports", "tools"}
    assert "AGL401" not in phase_parts.part_reads({"AGL203"})


def _reading_parts(monkeypatch) -> dict[str, set[str]]:
    """Part -> the fields of the project facts it read, while the phase runs. Copies that
    ``dataclasses.replace`` makes (the declaration adds tools to a file's facts) read every
    field without looking at it, and are not counted."""
    seen: dict[str, set[str]] = defaultdict(set)
    fields = set(FileFacts.__dataclass_fields__)
    state: dict[str, object] = {"part": None, "ids": None}

    def recording(self, name):
        part, ids = state["part"], state["ids"]
        if (part is not None and name in fields and (ids is None or id(self) in ids)
                and not sys._getframe(1).f_code.co_filename.endswith("dataclasses.py")):
            seen[part].add(name)
        return object.__getattribute__(self, name)

    monkeypatch.setattr(FileFacts, "__getattribute__", recording)
    declare = cross_module_tools.declare_in_projects

    def declaring(facts, *args, **kwargs):
        # only the facts it is given: it also extracts facts of the modules it reads again
        state["part"], state["ids"] = DECLARE, {id(f) for f in facts.values()}
        try:
            return declare(facts, *args, **kwargs)
        finally:
            state["part"], state["ids"] = None, None

    monkeypatch.setattr(cross_module_tools, "declare_in_projects", declaring)
    for cls in registry.project_rules():
        def checking(self, _check=cls.check, _code=cls.meta.code):
            state["part"] = _code
            try:
                return _check(self)
            finally:
                state["part"] = None

        monkeypatch.setattr(cls, "check", checking)
    return seen


def test_each_part_reads_only_the_project_facts_it_declares(monkeypatch) -> None:
    seen = _reading_parts(monkeypatch)
    roots = [*sorted(PROJECTS.iterdir()), FIXTURES / "demo", FIXTURES / "frameworks_demo"]
    for root in roots:
        settings = settings_for(EVERY_CODE, None, root=str(root))
        engine.run(discover([str(root)], settings).files, settings, use_cache=False, paths=[str(root)],
                   keep_facts=None)
    declared = {DECLARE: phase_parts.DECLARE_READS, **registry.project_fact_reads()}
    assert seen.keys() == declared.keys()  # each part ran and read facts: the check is not empty
    for part, fields in seen.items():
        assert fields <= declared[part] | phase_parts.ALWAYS, part


# -- which remembered parts a run keeps ---------------------------------------------------


READS = {DECLARE: frozenset({"module", "imports", "tools"}), "AGL401": frozenset({"module", "prompt_sites"}),
         "AGL203": frozenset({"module", "imports", "tools", "approved_names"})}


def _finding(path: str, line: int) -> list:
    return [path, {"code": "AGL401", "message": "copied", "span": [line, 1, line, 9]}]


def _record(files: dict, found: dict, others: str = "others") -> dict:
    return {"others": others, "parts": {
        part: {"files": {path: digests[part] for path, digests in files.items()}, "diagnostics": found.get(part, [])}
        for part in READS
    }}


def _digests(project: dict) -> dict:
    return {"app/chat.py": phase_parts.part_digests(project, READS)}


BEFORE = {"module": "app.chat", "imports": [{"local": "x", "qualified": "openai.x", "line": 1}],
          "prompt_sites": [{"line": 10, "text": "answer"}]}


def test_the_parts_whose_facts_did_not_change_are_kept() -> None:
    record = _record(_digests(BEFORE), {"AGL401": [_finding("app/chat.py", 10)]})
    imported = {**BEFORE, "imports": [*BEFORE["imports"], {"local": "y", "qualified": "openai.y", "line": 2}]}
    kept = phase_parts.kept_parts(record, READS, _digests(imported), "others", True)
    assert kept == {"AGL401": [_finding("app/chat.py", 10)]}
    prompted = {**BEFORE, "prompt_sites": [{"line": 10, "text": "answer briefly"}]}
    assert phase_parts.kept_parts(record, READS, _digests(prompted), "others", True).keys() == {DECLARE, "AGL203"}


def test_kept_findings_move_with_the_lines_of_the_facts_their_part_reads() -> None:
    record = _record(_digests(BEFORE), {"AGL401": [_finding("app/chat.py", 10)]})
    moved = {**BEFORE, "imports": [{"local": "z", "qualified": "openai.z", "line": 1}],
             "prompt_sites": [{"line": 12, "text": "answer"}]}
    kept = phase_parts.kept_parts(record, READS, _digests(moved), "others", True)
    assert kept == {"AGL401": [_finding("app/chat.py", 12)]}


def test_nothing_is_kept_when_another_file_or_the_files_checked_changed() -> None:
    record = _record(_digests(BEFORE), {})
    assert phase_parts.kept_parts(record, READS, _digests(BEFORE), "other files changed", True) == {}
    two = {**_digests(BEFORE), "app/other.py": phase_parts.part_digests(BEFORE, READS)}
    assert phase_parts.kept_parts(record, READS, two, "others", True) == {}


def test_the_declaration_and_the_parts_that_read_tools_run_together() -> None:
    record = _record(_digests(BEFORE), {})
    # a module it read changed: it runs, and AGL203 reads the tools it adds
    assert phase_parts.kept_parts(record, READS, _digests(BEFORE), "others", False).keys() == {"AGL401"}
    # AGL203's own facts changed: it runs, and the declaration runs for the tools it adds
    approved = {**BEFORE, "approved_names": ["refund"]}
    assert phase_parts.kept_parts(record, READS, _digests(approved), "others", True).keys() == {"AGL401"}


# -- partial runs through the CLI ---------------------------------------------------------


@pytest.fixture
def trusted_clock(monkeypatch):
    """Every file older than the stat index's racy window (the copy of a fixture is new)."""
    monkeypatch.setattr("agentlint.engine.stat_index._clock", lambda: time.time() + 60)


@pytest.fixture
def runs(monkeypatch) -> dict[str, int]:
    """How many times each part of the project phase ran."""
    counts: dict[str, int] = defaultdict(int)
    declare = cross_module_tools.declare_in_projects

    def declaring(*args, **kwargs):
        counts[DECLARE] += 1
        return declare(*args, **kwargs)

    monkeypatch.setattr(cross_module_tools, "declare_in_projects", declaring)
    for cls in registry.project_rules():
        def checking(self, _check=cls.check, _code=cls.meta.code):
            counts[_code] += 1
            return _check(self)

        monkeypatch.setattr(cls, "check", checking)
    return counts


def _found(run_cli, root: Path, path: str, *more: str) -> list[dict]:
    result = run_cli("check", path, "--output-format", "json", "--exit-zero", *more, cwd=root)
    return [{k: d[k] for k in ("code", "filename", "location", "end_location", "message", "related")}
            for d in json.loads(result.output)]


def test_an_import_added_runs_the_tool_parts_and_keeps_the_prompt_comparison(
    tmp_path, run_cli, trusted_clock, runs
) -> None:
    root = tmp_path / "prompts_dup"
    shutil.copytree(PROJECTS / "prompts_dup", root)
    chat = root / "app/agents/chat.py"
    _found(run_cli, root, "app/agents/chat.py")
    chat.write_text("from langchain_core.prompts import PromptTemplate\n" + chat.read_text(encoding="utf-8"),
                    encoding="utf-8")
    runs.clear()
    after = _found(run_cli, root, "app/agents/chat.py")
    assert runs[DECLARE] == 1 and runs["AGL401"] == 0 and runs["AGL101"] == 0
    assert [d["location"]["row"] for d in after if d["code"] == "AGL401"] == [12]  # moved with the line added
    assert after == _found(run_cli, root, "app/agents/chat.py", "--no-cache")
    # a prompt changed: the comparison runs, the tool parts keep their findings
    chat.write_text(chat.read_text(encoding="utf-8").replace("Today: {date.today()}", "Date: {date.today()}"),
                    encoding="utf-8")
    runs.clear()
    again = _found(run_cli, root, "app/agents/chat.py")
    assert runs[DECLARE] == 0 and runs["AGL401"] == 1
    assert again == _found(run_cli, root, "app/agents/chat.py", "--no-cache")


def test_the_parts_that_run_see_what_they_read_of_the_other_files(tmp_path, run_cli, trusted_clock, runs) -> None:
    # graph.py wires an approval before the tool node: AGL203 reads that of the file not checked
    root = tmp_path / "approval_wired"
    shutil.copytree(PROJECTS / "approval_wired", root)
    tools = root / "app/tools.py"
    assert _found(run_cli, root, "app/tools.py") == []
    tools.write_text("from openai import OpenAI\n" + tools.read_text(encoding="utf-8"), encoding="utf-8")
    runs.clear()
    assert _found(run_cli, root, "app/tools.py") == []
    assert runs["AGL203"] == 1 and runs["AGL401"] == 0
    assert _found(run_cli, root, "app/tools.py", "--no-cache") == []


# -- the other files' facts, as a partial run keeps them ----------------------------------


def _context_of(root: Path) -> dict[str, dict]:
    settings = settings_for(EVERY_CODE, None, root=str(root))
    result = engine.run(discover([str(root)], settings).files, settings, use_cache=False, paths=[str(root)])
    return {path: r.facts.project_json(framework_imports=True) for path, r in result.results.items()}


def test_the_context_reads_back_what_was_kept_and_decodes_as_the_facts_do(tmp_path) -> None:
    projects = _context_of(PROJECTS / "prompts_dup")
    assert any(p.get("prompt_sites") for p in projects.values()) and any(p["imports"] for p in projects.values())
    cache = Cache(str(tmp_path / "cache"), "settings")
    cache.put_context({path: context_entry(project) for path, project in projects.items()})
    whole = cache.get_context()
    for path, project in projects.items():
        assert FileFacts.from_context(whole[path]) == FileFacts.project_from_json(project, framework_imports=True)
    # only the facts asked for: the file of the prompt facts is not read for the imports
    imports = cache.get_context(frozenset({"module", "imports"}))
    assert all("prompt_sites" not in entry for entry in imports.values())
    assert {path: entry.get("imports", []) for path, entry in imports.items()} == \
        {path: entry.get("imports", []) for path, entry in whole.items()}
    prompts = cache.get_context(frozenset({"module", "prompt_sites"}))
    assert all("imports" not in entry for entry in prompts.values())
    assert any(entry.get("prompt_sites") for entry in prompts.values())


def test_context_files_of_two_writes_are_never_read_together(tmp_path) -> None:
    projects = _context_of(PROJECTS / "prompts_dup")
    cache = Cache(str(tmp_path / "cache"), "settings")
    cache.put_context({path: context_entry(project) for path, project in projects.items()})
    imports = Path(cache.directory) / "project-imports.json"
    first = imports.read_bytes()
    fewer = dict(list(projects.items())[1:])
    cache.put_context({path: context_entry(project) for path, project in fewer.items()})
    assert cache.get_context().keys() == fewer.keys()
    imports.write_bytes(first)  # a write cut short: the imports of the write before
    assert cache.get_context() == {}
    assert cache.get_context(frozenset({"module", "prompt_sites"})).keys() == fewer.keys()
    (Path(cache.directory) / "project-facts.json").write_text('{"facts": {}}')  # another layout
    assert cache.get_context() == {}


def _context_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.glob(".agentlint_cache/*/*/project-*.json")
            if p.name != "project-phase.json"}


def test_a_run_that_decodes_part_of_the_context_does_not_write_it(tmp_path, run_cli, trusted_clock, runs) -> None:
    root = tmp_path / "prompts_dup"
    shutil.copytree(PROJECTS / "prompts_dup", root)
    chat = root / "app/agents/chat.py"
    _found(run_cli, root, "app/agents/chat.py")
    kept = _context_files(root)
    assert len(kept) == 3
    chat.write_text("from langchain_core.prompts import PromptTemplate\n" + chat.read_text(encoding="utf-8"),
                    encoding="utf-8")
    runs.clear()
    _found(run_cli, root, "app/agents/chat.py")
    assert runs["AGL401"] == 0  # the prompt facts were not decoded
    assert _context_files(root) == kept


def test_context_facts_decoded_in_part_are_never_written_back(tmp_path, monkeypatch) -> None:
    root = tmp_path / "prompts_dup"
    shutil.copytree(PROJECTS / "prompts_dup", root)
    monkeypatch.chdir(root)
    projects = _context_of(root)
    keys = {path: Cache.key(path, Path(path).read_bytes()) for path in projects}
    cache = Cache(str(tmp_path / "cache"), "settings")
    cache.put_context({keys[path]: context_entry(project) for path, project in projects.items()})
    writes: list[dict] = []
    monkeypatch.setattr(cache, "put_context", writes.append)
    others = sorted(projects)[1:]  # the context holds one file more than the run reads
    settings = settings_for(EVERY_CODE, None, root=str(root))
    facts = engine._context_facts(others, settings, cache, [], None, {p: keys[p] for p in others},
                                  frozenset({"module", "prompt_sites"}))
    assert facts is not None and sorted(facts) == others
    assert all(f.imports == () for f in facts.values()) and any(f.prompt_sites for f in facts.values())
    assert writes == []
    engine._context_facts(others, settings, cache, [], None, {p: keys[p] for p in others})
    assert len(writes) == 1 and sorted(writes[0]) == sorted(keys[p] for p in others)
