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

from agentlint.cli.main import main
from agentlint.knowledge.frameworks import FRAMEWORK_NAMES

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


CUSTOM = ROOT / "fixtures" / "projects" / "custom_tools"


def _expected(folder: Path) -> set[tuple[str, int, str]]:
    marker = re.compile(r"#\s*expect:\s*(AGL\d{3}(?:\s*,\s*AGL\d{3})*)")
    out = set()
    for path in folder.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found = marker.search(line)
            if found:
                out |= {(path.relative_to(folder).as_posix(), number, c.strip()) for c in found.group(1).split(",")}
    return out


def test_custom_decorators_and_base_classes_from_config(tmp_path: Path) -> None:
    """Without configuration the project's own `@register_tool` (it hands the function
    to LangChain's `StructuredTool.from_function`) is recognised from the code, but
    `BaseSkill._execute` is not (one subclass, no description); with the project's
    agentlint.toml the tool rules find exactly what the fixture marks."""
    shutil.copytree(CUSTOM, tmp_path / "p")
    project = tmp_path / "p"
    bare = run(["check", ".", "--isolated", "--no-cache", "--output-format", "json"], project)
    assert {(Path(d["filename"]).name, d["location"]["row"], d["code"]) for d in json.loads(bare.stdout)} == {
        ("tools.py", 9, "AGL201"), ("tools.py", 26, "AGL501")}
    inferred = json.loads(run(["tools", ".", "--isolated", "--no-cache", "--format", "json"], project).stdout)
    assert {(t["name"], t["framework"]) for t in inferred} == {("close_ticket", "project"), ("summarise_ticket", "project")}
    assert all("inferred from helpdesk.registry.register_tool" in t["declared_by"] for t in inferred)
    configured = run(["check", ".", "--no-cache", "--output-format", "json"], project)
    got = {
        (Path(d["filename"]).relative_to(project.resolve()).as_posix(), d["location"]["row"], d["code"])
        for d in json.loads(configured.stdout)
    }
    assert got == _expected(project)
    inventory = json.loads(run(["tools", ".", "--no-cache", "--format", "json"], project).stdout)
    assert {(t["name"], t["framework"]) for t in inventory} >= {
        ("close_ticket", "config"),
        ("RefundSkill._execute", "config"),
        ("summarise_ticket", "config"),
    }


def test_partial_run_sees_tools_of_unchanged_files(tmp_path: Path) -> None:
    """A pre-commit-style run on one file that declares no tool: the project's tools live
    in another, unchanged file, whose facts come from the cache or are computed, so
    AGL901 does not claim that no tool was recognised."""
    shutil.copytree(DEMO, tmp_path / "app")
    (tmp_path / "app" / "pyproject.toml").write_text('[project]\nname = "app"\n', encoding="utf-8")
    (tmp_path / "app" / "helpers.py").write_text("from agents import Runner\n\nRUNNER = Runner\n", encoding="utf-8")
    for cache in ([], ["--no-cache"]):
        result = run(["check", "app/helpers.py", *cache, "--output-format", "json"], tmp_path)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == []
    (tmp_path / "app" / "support.py").unlink()
    result = run(["check", "app/helpers.py", "--no-cache", "--output-format", "json"], tmp_path)
    assert [d["code"] for d in json.loads(result.stdout)] == ["AGL901"]


def test_tools_passed_from_another_module(tmp_path: Path) -> None:
    """Functions defined in app/tools.py and passed in `tools=[...]` by app/agent.py are
    tools in app/tools.py: the tool rules find exactly what the fixture marks, also in a
    pre-commit-style run on tools.py alone, and `agentlint tools` lists them."""
    shutil.copytree(ROOT / "fixtures" / "projects" / "cross_module_tools", tmp_path / "p")
    project = tmp_path / "p"

    def found(*args: str) -> set[tuple[str, int, str]]:
        result = run(["check", *args, "--no-cache", "--output-format", "json"], project)
        return {
            (Path(d["filename"]).relative_to(project.resolve()).as_posix(), d["location"]["row"], d["code"])
            for d in json.loads(result.stdout)
        }

    assert found(".") == _expected(project)
    assert found("app/tools.py") == _expected(project)
    assert found("app/agent.py") == set()
    inventory = json.loads(run(["tools", "--no-cache", "--format", "json"], project).stdout)
    assert {(t["name"], t["filename"], t["injected_parameters"][0]["name"] if t["injected_parameters"] else None)
            for t in inventory} == {("get_balance", "app/tools.py", "tool_context"), ("summarise", "app/tools.py", None)}


def test_tools_in_test_code_are_not_reported_by_default(tmp_path: Path) -> None:
    """A tool defined in a test is a test double: AGL2/AGL5 findings there are skipped by
    default (the `tests` setting), and reported again when the project asks for it."""
    source = (
        "from agents import function_tool\n\n\n"
        "@function_tool\n"
        "def lookup(customer_id: str) -> str:\n"
        "    return customer_id\n"
    )
    (tmp_path / "app").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "app" / "tools.py").write_text(source, encoding="utf-8")
    (tmp_path / "tests" / "test_tools.py").write_text(source, encoding="utf-8")

    def found() -> set[str]:
        result = run(["check", ".", "--no-cache", "--select", "AGL201", "--output-format", "json"], tmp_path)
        return {Path(d["filename"]).as_posix().rpartition("/")[2] for d in json.loads(result.stdout)}

    assert found() == {"tools.py"}
    (tmp_path / "agentlint.toml").write_text('[tests]\nAGL2 = "report"\n', encoding="utf-8")
    assert found() == {"tools.py", "test_tools.py"}


def test_inventory_shows_irreversible_calls_and_what_protects_them(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(
        "import stripe\nfrom agents import function_tool\n\nLIMIT = 50\n\n"
        "@function_tool\ndef refund(order_id: str, amount: float) -> str:\n"
        "    if amount > LIMIT:\n        return 'too much'\n"
        "    stripe.Refund.create(payment_intent=order_id, amount=amount)\n    return 'ok'\n\n"
        "@function_tool\ndef close(order_id: str) -> str:\n"
        "    billing.close_account(order_id)\n    return 'ok'\n",
        encoding="utf-8",
    )
    data = json.loads(run(["tools", "shop.py", "--no-cache", "--format", "json"], tmp_path).stdout)
    by_name = {t["name"]: t for t in data}
    assert by_name["refund"]["irreversible"] == [{
        "kind": "payment", "call": "stripe.Refund.create", "line": 10, "through": [],
        "protected_by": "guard `if amount > LIMIT` (line 8)",
    }]
    assert by_name["close"]["irreversible"] == []
    text = run(["tools", "shop.py", "--no-cache"], tmp_path).stdout
    assert "IRREVERSIBLE (PROTECTED BY)" in text and "guard `if amount > LIMIT`" in text
    # a call of the project's own is added with `irreversible-callables`; AGL203 then sees it
    check = run(["check", "shop.py", "--no-cache", "--select", "AGL203", "--output-format", "concise"], tmp_path)
    assert "AGL203" not in check.stdout
    (tmp_path / "agentlint.toml").write_text('irreversible-callables = ["*.close_account"]\n', encoding="utf-8")
    data = json.loads(run(["tools", "shop.py", "--no-cache", "--format", "json"], tmp_path).stdout)
    assert [s["call"] for s in next(t for t in data if t["name"] == "close")["irreversible"]] == ["billing.close_account"]
    check = run(["check", "shop.py", "--no-cache", "--select", "AGL203", "--output-format", "concise"], tmp_path)
    assert "shop.py:15:5: AGL203 Tool `close` reaches an irreversible configured call `billing.close_account`" in check.stdout
