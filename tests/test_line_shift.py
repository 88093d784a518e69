"""A remembered project phase carried over an edit that only moved lines
(``agentlint.engine.line_shift``): the pieces, then partial runs through the CLI compared
with the project phase run again."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import dataclasses
import typing

import pytest

from agentlint.engine import cross_module_tools, line_shift
from agentlint.facts import types

PROJECTS = Path(__file__).resolve().parent.parent / "fixtures" / "projects"


def _site(line: int, column: int = 5, text: str = "", what: str = "text") -> dict:
    return {"scope": "answer", "line": line, "column": column, "end_line": line + 2, "what": what, "text": text}


# -- the digest without lines -----------------------------------------------------------


def test_facts_that_differ_in_their_lines_only_have_one_digest() -> None:
    before = {"module": "app.chat", "prompt_sites": [_site(10)], "imports": [{"local": "x", "line": 1}]}
    after = {"module": "app.chat", "prompt_sites": [_site(11)], "imports": [{"local": "x", "line": 2}]}
    (digest_before, lines_before), (digest_after, lines_after) = map(line_shift.free_digest, (before, after))
    assert digest_before == digest_after
    assert lines_before == [10, 12, 1] and lines_after == [11, 13, 2]


@pytest.mark.parametrize("change", [
    {"column": 9},  # a column is not a line: the digest keeps it
    {"text": "(line 12)"},  # a line in a description is text
    {"what": "render"},
])
def test_anything_but_a_line_changes_the_digest(change: dict) -> None:
    site = _site(10)
    assert line_shift.free_digest({"prompt_sites": [site]})[0] != line_shift.free_digest(
        {"prompt_sites": [{**site, **change}]})[0]


def test_the_lines_a_prompt_site_lists_are_lines() -> None:
    digest, lines = line_shift.free_digest({"prompt_sites": [_site(10, what="messages", text="4,8")]})
    assert lines == [10, 12, 4, 8]
    assert digest == line_shift.free_digest({"prompt_sites": [_site(11, what="messages", text="5,9")]})[0]
    # the same text in a site that does not list lines stays text, and so does a list
    # that is not one of lines (a cache entry broken or written by hand)
    assert line_shift.free_digest({"prompt_sites": [_site(10, text="4,8")]})[1] == [10, 12]
    assert line_shift.free_digest({"prompt_sites": [_site(10, what="blocks", text="4,\u00b2")]})[1] == [10, 12]


def test_every_line_of_the_project_facts_is_named_a_line() -> None:
    # a line field under another name would count as text: the digest would change with
    # every edit above it, and the phase would run again (safe, but never moved)
    named: set[str] = set()
    seen: set[type] = set()

    def walk(cls: type) -> None:
        if cls in seen:
            return
        seen.add(cls)
        hints = typing.get_type_hints(cls, vars(types))
        for field in dataclasses.fields(cls):
            if hints[field.name] is int and "line" in field.name:
                named.add(field.name)
            for inner in (hints[field.name], *typing.get_args(hints[field.name])):
                if isinstance(inner, str):  # `tuple["SinkFact", ...]`, left a string by 3.10
                    inner = getattr(types, inner)
                if dataclasses.is_dataclass(inner):
                    walk(inner)

    hints = typing.get_type_hints(types.FileFacts, vars(types))
    for key in types.PROJECT_FACT_KEYS:
        for inner in typing.get_args(hints[key]):
            if dataclasses.is_dataclass(inner):
                walk(inner)
    assert named == line_shift.LINE_FIELDS


# -- old lines to new lines ---------------------------------------------------------------


def test_lines_moved_in_order_map_old_to_new() -> None:
    assert line_shift.line_map([3, 10, 10, 0, 12], [3, 11, 11, 0, 14]) == {3: 3, 10: 11, 12: 14}


@pytest.mark.parametrize("old, new", [
    ([3, 10], [3, 10, 11]),  # a fact more
    ([3, 10], [12, 11]),  # two facts swapped
    ([3, 3], [3, 4]),  # one line become two
    ([3, 4], [5, 5]),  # two lines become one
    ([0, 4], [1, 5]),  # module level become a definition
    ([4, 5], [0, 5]),
])
def test_lines_that_did_not_only_move_give_no_map(old: list[int], new: list[int]) -> None:
    assert line_shift.line_map(old, new) is None


# -- the findings moved ---------------------------------------------------------------------


def _finding(path: str, line: int, message: str = "copied", **more) -> list:
    return [path, {"code": "AGL401", "name": "x", "message": message, "span": [line, 5, line + 2, 9], **more}]


MOVED = {"app/chat.py": {4: 5, 10: 11, 12: 14}}


def test_findings_in_a_moved_file_move_with_it() -> None:
    related = [{"path": "app/chat.py", "span": [4, 1, 4, 9], "message": "also here"},
               {"path": "app/other.py", "span": [7, 1, 7, 9], "message": "and there"}]
    remembered = [_finding("app/chat.py", 10, related=related), _finding("app/other.py", 10)]
    moved = line_shift.shifted(remembered, MOVED, ["app/chat.py"])
    assert moved == [
        _finding("app/chat.py", 11, related=[{**related[0], "span": [5, 1, 5, 9]}, related[1]])[:1]
        + [{**_finding("app/chat.py", 11)[1], "span": [11, 5, 14, 9],
            "related": [{**related[0], "span": [5, 1, 5, 9]}, related[1]]}],
        # not a checked file: not reported, kept as remembered
        _finding("app/other.py", 10),
    ]


@pytest.mark.parametrize("finding", [
    _finding("app/chat.py", 10, message="also copied at line 4"),  # names a moved line
    _finding("app/chat.py", 10, help="see line 12"),
    _finding("app/chat.py", 8),  # a line of no fact: it may have moved otherwise
    _finding("app/chat.py", 10, fix={"message": "m", "edits": [], "safe": True}),
    _finding("app/chat.py", 10, related=[{"path": "app/chat.py", "span": [6, 1, 6, 2], "message": ""}]),
    _finding("app/checked.py", 3, message="as in `answer` (line 10)"),  # another checked file naming it
])
def test_a_finding_that_cannot_be_moved_for_sure_gives_none(finding: list) -> None:
    assert line_shift.shifted([finding], MOVED, ["app/chat.py", "app/checked.py"]) is None


def test_without_a_moved_line_the_findings_stay() -> None:
    remembered = [_finding("app/chat.py", 8, message="line 4")]
    assert line_shift.shifted(remembered, {"app/chat.py": {4: 4, 10: 10}}, ["app/chat.py"]) == remembered


# -- partial runs ---------------------------------------------------------------------------


@pytest.fixture
def trusted_clock(monkeypatch):
    """Every file older than the stat index's racy window, as in a project whose files were
    not all written in the last seconds (the copy of a fixture was)."""
    monkeypatch.setattr("agentlint.engine.stat_index._clock", lambda: time.time() + 60)


@pytest.fixture
def context_reads(monkeypatch) -> list[int]:
    """How many times a run read the other files' facts (the project phase ran)."""
    import agentlint.engine.boundaries as boundaries

    reads: list[int] = []
    real = boundaries.load_context_facts

    def counting(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(boundaries, "load_context_facts", counting)
    return reads


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    return root


def _found(run_cli, root: Path, path: str, *more: str) -> list[dict]:
    result = run_cli("check", path, "--output-format", "json", "--exit-zero", *more, cwd=root)
    return [{k: d[k] for k in ("code", "filename", "location", "end_location", "message", "related")}
            for d in json.loads(result.output)]


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text(encoding="utf-8"), encoding="utf-8")


def test_a_comment_on_top_moves_the_remembered_findings(tmp_path, run_cli, trusted_clock, context_reads) -> None:
    root = _copy(tmp_path, "prompts_dup")
    before = _found(run_cli, root, "app/agents/chat.py")
    assert [d["location"]["row"] for d in before if d["code"] == "AGL401"] == [11]
    _prepend(root / "app/agents/chat.py", "# answers billing questions\n\n")
    context_reads.clear()
    after = _found(run_cli, root, "app/agents/chat.py")
    assert context_reads == []  # the other files' facts were not read
    assert [d["location"]["row"] for d in after if d["code"] == "AGL401"] == [13]
    assert after == _found(run_cli, root, "app/agents/chat.py", "--no-cache")
    # the next edit moves them from the same remembered phase
    _prepend(root / "app/agents/chat.py", "# and refunds\n")
    context_reads.clear()
    again = _found(run_cli, root, "app/agents/chat.py")
    assert context_reads == []
    assert again == _found(run_cli, root, "app/agents/chat.py", "--no-cache")


def test_an_edit_that_changes_a_fact_runs_the_project_phase(tmp_path, run_cli, trusted_clock, context_reads) -> None:
    root = _copy(tmp_path, "prompts_dup")
    _found(run_cli, root, "app/agents/chat.py")
    chat = root / "app/agents/chat.py"
    chat.write_text(chat.read_text(encoding="utf-8").replace("{BILLING_RULES}", "{BILLING_RULES} (v2)"), encoding="utf-8")
    context_reads.clear()
    after = _found(run_cli, root, "app/agents/chat.py")
    assert context_reads == [1]
    assert after == _found(run_cli, root, "app/agents/chat.py", "--no-cache")


def test_a_module_whose_text_the_phase_read_runs_it_again_on_any_edit(
    tmp_path, run_cli, trusted_clock, context_reads
) -> None:
    # tools.py's tools are found from agent.py, and their findings read tools.py's text
    root = _copy(tmp_path, "cross_module_tools")
    tools = root / "app/tools.py"
    assert {d["code"] for d in _found(run_cli, root, "app/tools.py")} == {"AGL201", "AGL202", "AGL501"}
    # the same facts, the same lines: only the body of the `except` changed
    tools.write_text(tools.read_text(encoding="utf-8").replace("str(exc)", '"failed"'), encoding="utf-8")
    context_reads.clear()
    assert {d["code"] for d in _found(run_cli, root, "app/tools.py")} == {"AGL201", "AGL501"}
    assert context_reads == [1]
    # lines moved only: read again too, and the findings moved
    _prepend(tools, "# the bank's tools\n")
    context_reads.clear()
    after = _found(run_cli, root, "app/tools.py")
    assert context_reads == [1]
    assert after == _found(run_cli, root, "app/tools.py", "--no-cache")
    assert sorted(d["location"]["row"] for d in after) == [7, 15]


def test_a_project_import_the_phase_follows_counts_as_a_module_read() -> None:
    # a checked file's facts keep its own imports, which its project-facts digest leaves
    # out (only framework imports are kept for the other files): following one is
    # reading the module
    facts = {
        "app/tools/__init__.py": types.FileFacts("app.tools", imports=(
            types.ImportFact("Tool", "app.tools.base.Tool", 1), types.ImportFact("tool", "langchain_core.tools.tool", 2))),
        "app/tools/base.py": types.FileFacts("app.tools.base"),
    }
    read: set[str] = set()
    names = cross_module_tools._Names(facts, None, read)
    assert names.reexported("app.tools.tool") == "langchain_core.tools.tool"
    assert read == set()  # a framework import: in the digest
    assert names.reexported("app.tools.Tool") == "app.tools.base.Tool"
    # and base.py's own imports, which no facts keep, were looked for in its text
    assert read == {"app/tools/__init__.py", "app/tools/base.py"}
