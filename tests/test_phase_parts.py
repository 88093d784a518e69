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
