"""`agentlint calls`: the inventory of model calls through click's runner, bypassing
calls first, as a table and as JSON, and the settings that name the instrumented path."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentlint.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "fixtures" / "projects" / "metered_calls"


def run(args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    shutil.copytree(PROJECT, tmp_path / "app_root")
    return tmp_path / "app_root"


def test_table_lists_bypassing_calls_first(project: Path) -> None:
    result = run(["calls", "--no-cache"], project)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["STATUS", "PROVIDER", "CALL", "LOCATION", "FUNCTION", "ACCOUNTING"]
    assert lines[1].split()[:5] == ["BYPASS", "openai", "client.chat.completions.create()", "app/agents/vision.py:8", "describe_page"]
    assert lines[2].split()[:5] == ["BYPASS", "openai", "client.responses.create()", "app/agents/vision.py:16", "make_title"]
    assert all(line.startswith("ok ") and "MeteredLLM." in line for line in lines[3:6])
    assert "reads the response's usage" in lines[3]
    assert lines[-1] == "5 model calls in 2 files, 2 outside the instrumented path."
    assert "tests/" not in result.stdout  # test code is not part of the inventory


def test_json_inventory(project: Path) -> None:
    for flag in ("--format", "--output-format"):
        result = run(["calls", "--no-cache", flag, "json"], project)
        assert result.exit_code == 0
        data = json.loads(result.stdout)
        assert [(c["status"], c["filename"], c["line"], c["function"]) for c in data] == [
            ("bypass", "app/agents/vision.py", 8, "describe_page"),
            ("bypass", "app/agents/vision.py", 16, "make_title"),
            ("instrumented", "app/llm.py", 12, "MeteredLLM.chat"),
            ("instrumented", "app/llm.py", 17, "MeteredLLM.extract"),
            ("instrumented", "app/llm.py", 22, "MeteredLLM.respond"),
        ]
        assert data[0]["provider"] == "openai" and data[0]["kind"] == "model" and data[0]["accounting"] is None
        assert data[2]["accounting"] == "reads the response's usage"


def test_listed_instrumented_callables_replace_the_detected_path(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.agentlint.rules.AGL106]\ninstrumented-callables = ["app.agents.vision.make_title"]\n'
    )
    data = json.loads(run(["calls", "--no-cache", "--format", "json"], project).stdout)
    by_function = {c["function"]: c["status"] for c in data}
    assert by_function["make_title"] == "instrumented"
    assert by_function["describe_page"] == "bypass"
    assert by_function["MeteredLLM.chat"] == "bypass"  # only the listed places count now


def test_no_instrumented_path_and_no_calls(tmp_path: Path) -> None:
    (tmp_path / "one.py").write_text(
        "from openai import OpenAI\nclient = OpenAI()\n\n\ndef ask(q):\n"
        "    return client.chat.completions.create(model='gpt-4o', messages=[])\n"
    )
    result = run(["calls", "--no-cache", "one.py"], tmp_path)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1].split()[0] == "-"
    assert "no instrumented path found" in result.stdout
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "plain.py").write_text("x = 1\n")
    result = run(["calls", "--no-cache", "empty"], tmp_path)
    assert result.exit_code == 1
    assert "No model calls found." in result.stderr


def test_a_notebook_call_is_located_in_its_cell(tmp_path: Path) -> None:
    shutil.copy(ROOT / "fixtures" / "notebooks" / "as_notebook" / "agent_tools.ipynb", tmp_path / "agent_tools.ipynb")
    result = run(["calls", "--no-cache", "agent_tools.ipynb"], tmp_path)
    assert "agent_tools.ipynb:cell 6:6 " in result.stdout
    data = json.loads(run(["calls", "--no-cache", "--format", "json", "agent_tools.ipynb"], tmp_path).stdout)
    assert (data[0]["cell"], data[0]["line"], data[0]["function"]) == (6, 6, "summarize_orders")
