"""`agentlint tools`: the inventory of tools, through click's runner, and the
framework knowledge it reads (docs/frameworks.md must stay true)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentlint.cli import main
from agentlint.frameworks import FRAMEWORK_NAMES

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "frameworks_demo"


def run(args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    shutil.copytree(DEMO, tmp_path / "app")
    return tmp_path


def test_table_lists_tools_with_model_and_injected_parameters(project: Path) -> None:
    result = run(["tools", "app", "--no-cache"], project)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["FRAMEWORK", "TOOL", "LOCATION", "MODEL", "FILLS", "INJECTED"]
    assert lines[1].split()[:4] == ["openai-agents", "refund_order", "app/support.py:13", "order_id,"]
    assert "ctx (annotation RunContextWrapper)" in lines[1]
    assert "user_id (default TokenClaim(...))" in lines[2] and "thread_id" in lines[2]
    assert lines[-1] == "2 tools in 1 file."


def test_json_inventory(project: Path) -> None:
    result = run(["tools", "app", "--format", "json", "--no-cache"], project)
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [(t["framework"], t["name"], t["line"]) for t in data] == [
        ("openai-agents", "refund_order", 13),
        ("fastmcp", "delete_thread", 23),
    ]
    assert data[0]["model_parameters"] == ["order_id", "amount"]
    assert data[1]["injected_parameters"] == [
        {"name": "user_id", "reason": "default TokenClaim(...)"},
        {"name": "ctx", "reason": "annotation Context"},
    ]


def test_framework_filter_and_unknown_framework(project: Path) -> None:
    result = run(["tools", "app", "--framework", "fastmcp", "--format", "json", "--no-cache"], project)
    assert [t["name"] for t in json.loads(result.stdout)] == ["delete_thread"]
    bad = run(["tools", "app", "--framework", "langchian"], project)
    assert bad.exit_code == 2 and "unknown framework `langchian`" in bad.stderr


def test_no_tools_in_framework_code_prints_the_settings_hint(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "from langchain_core.tools import BaseTool\nfrom mylib import register_tool\n\n"
        "@register_tool\ndef lookup(customer_id: str) -> str:\n    return customer_id\n",
        encoding="utf-8",
    )
    result = run(["tools", "app.py", "--no-cache"], tmp_path)
    assert result.exit_code == 1
    assert "No tools found. The code imports LangChain" in result.stderr
    assert "`tool-decorators`" in result.stderr
    # the setting the hint names makes the tool visible, and AGL201 then sees it
    (tmp_path / "agentlint.toml").write_text('tool-decorators = ["mylib.register_tool"]\n', encoding="utf-8")
    result = run(["tools", "app.py", "--no-cache"], tmp_path)
    assert result.exit_code == 0 and "config" in result.stdout and "lookup" in result.stdout
    check = run(["check", "app.py", "--no-cache", "--select", "AGL201", "--output-format", "concise"], tmp_path)
    assert "app.py:5:12: AGL201" in check.stdout


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run(["tools", "nope"], tmp_path)
    assert result.exit_code == 2 and "`nope`: no such file or folder" in result.stderr


def test_docs_frameworks_page_shows_real_output_and_every_framework() -> None:
    page = (ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")
    block = re.search(r"project=fixtures/frameworks_demo -->\n```console\n\$ agentlint tools\n(.*?)```", page, re.S)
    assert block, "docs/frameworks.md lost its example"
    result = run(["tools", "--no-cache"], DEMO)
    assert block.group(1) == result.stdout
    for framework in FRAMEWORK_NAMES:
        if framework != "config":
            assert f"(`{framework}`)" in page, f"docs/frameworks.md does not list {framework}"
