"""`agentlint init` (agentlint/init_cmd.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from agentlint.rules import registry
from agentlint.engine.config import load_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PYPROJECT = """\
# The project's own comment, first line.
[project]
name = "support-bot"   # aligned comment
version = "1.0"

[tool.black]
line-length = 100  # keep

# a comment above another table
[tool.ruff]
select = ["E", "F"]
"""

BILLING = """\
PRICE_PER_TOKEN = 0.000002


def compute_cost(usage):
    return usage.prompt_tokens * PRICE_PER_TOKEN + usage.completion_tokens * PRICE_PER_TOKEN


def cost_center(department):
    return department.code * 2


class Meter:
    def request_cost(self, tokens, rate):
        total = tokens * rate
        return total
"""

PROMPTS = """\
from langchain_core.prompts import ChatPromptTemplate
import agents


def build_system_prompt(user):
    return f"You help {user.name}."


def compose_reply(parts):
    return "\\n".join(parts)


def build_index():
    return {}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def agentlint_table(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["agentlint"]


def test_creates_pyproject_and_check_finds_it(run_cli, tmp_path):
    write(tmp_path / "app" / "main.py", "import agents\n")
    result = run_cli("init")
    assert result.exit_code == 0, result.output
    assert "agentlint init: created pyproject.toml" in result.stdout
    assert agentlint_table(tmp_path / "pyproject.toml") == {}
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith("[tool.agentlint]\n# Written by `agentlint init` (agentlint-cst).")
    assert "# Frameworks seen in the code: OpenAI Agents SDK (1 file)." in text
    settings = load_settings(start=tmp_path / "app", rules=registry.all_rules())
    assert settings.config_path is not None and Path(settings.config_path).name == "pyproject.toml"
    assert run_cli("check").exit_code == 0


def test_keeps_the_users_comments_and_layout(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    result = run_cli("init")
    assert result.exit_code == 0, result.output
    assert "added the table to pyproject.toml" in result.stdout
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(PYPROJECT), "everything the user wrote stays, byte for byte"
    assert text[len(PYPROJECT) :].lstrip("\n").startswith("[tool.agentlint]\n")
    data = tomllib.loads(text)
    assert data["tool"]["agentlint"] == {} and data["tool"]["ruff"] == {"select": ["E", "F"]}
    load_settings(start=tmp_path, rules=registry.all_rules())  # validates


def test_refuses_an_existing_table_unless_forced(run_cli, tmp_path):
    original = PYPROJECT + '\n[tool.agentlint]\nignore = ["AGL900"]  # mine\n\n[tool.isort]\nprofile = "black"\n'
    write(tmp_path / "pyproject.toml", original)
    result = run_cli("init")
    assert result.exit_code == 2
    assert "already has a [tool.agentlint] table; `agentlint init --force` replaces it" in result.stderr
    assert (tmp_path / "pyproject.toml").read_text() == original
    result = run_cli("init", "--force")
    assert result.exit_code == 0, result.output
    assert "replaced the table in pyproject.toml" in result.stdout
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(PYPROJECT)
    data = tomllib.loads(text)
    assert data["tool"]["agentlint"] == {} and data["tool"]["isort"] == {"profile": "black"}
    assert "# mine" not in text


def test_an_agentlint_toml_stops_it(run_cli, tmp_path):
    write(tmp_path / "agentlint.toml", "select = []\n")
    result = run_cli("init")
    assert result.exit_code == 2 and "agentlint.toml already configures agentlint here" in result.stderr
    assert not (tmp_path / "pyproject.toml").exists()


def test_invalid_pyproject_names_the_line(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\nversion = \n')
    result = run_cli("init")
    assert result.exit_code == 2
    assert "pyproject.toml:3: not valid TOML" in result.stderr
    assert (tmp_path / "pyproject.toml").read_text() == '[project]\nname = "x"\nversion = \n'


def test_suggests_frameworks_cost_functions_and_prompt_composers(run_cli, tmp_path):
    write(tmp_path / "src" / "app" / "__init__.py", "")
    write(tmp_path / "src" / "app" / "billing.py", BILLING)
    write(tmp_path / "src" / "app" / "prompts.py", PROMPTS)
    write(tmp_path / "tests" / "test_billing.py", "def test_cost():\n    assert 2 * 3 == 6\n\ndef fake_cost(tokens):\n    return tokens * 2\n")
    write(tmp_path / "build" / "skipped.py", "import crewai\n")  # excluded like `check` does
    result = run_cli("init")
    assert result.exit_code == 0, result.output
    assert "frameworks seen: langchain, openai-agents" in result.stdout
    text = (tmp_path / "pyproject.toml").read_text()
    assert "# Frameworks seen in the code: LangChain (1 file), OpenAI Agents SDK (1 file)." in text
    assert '# cost-functions = ["app.billing.Meter.request_cost", "app.billing.compute_cost"]' in text
    assert '# prompt-composers = ["app.prompts.build_system_prompt", "app.prompts.compose_reply"]' in text
    assert "cost_center" not in text and "fake_cost" not in text and "build_index" not in text
    assert "# [tool.agentlint.rules.AGL101]" in text or "# [tool.agentlint.rules.AGL" in text
    assert agentlint_table(tmp_path / "pyproject.toml") == {}
    # Every line of the table is a comment: the suggestions parse once uncommented.
    table = text[text.index("[tool.agentlint]") :].splitlines()[1:]
    assert all(line.startswith("#") or not line for line in table)
    uncommented = "\n".join(line[2:] for line in table if line.startswith("# [") or line.startswith("# cost") or line.startswith("# prompt"))
    tomllib.loads(uncommented)
    # Once the rules that read them are registered, the uncommented suggestions are valid.
    declared = {name for meta in registry.all_rules().values() for name in meta.settings}
    if {"cost-functions", "prompt-composers"} <= declared:
        write(tmp_path / "pyproject.toml", "[tool.agentlint]\n" + uncommented + "\n")
        load_settings(start=tmp_path, rules=registry.all_rules())


def test_no_frameworks(run_cli, tmp_path):
    write(tmp_path / "m.py", "import os\n")
    result = run_cli("init")
    assert result.exit_code == 0
    assert "# No agent framework imports were seen in 1 Python file." in (tmp_path / "pyproject.toml").read_text()


def test_folder_argument(run_cli, tmp_path):
    write(tmp_path / "proj" / "m.py", "import os\n")
    result = run_cli("init", "proj")
    assert result.exit_code == 0
    assert (tmp_path / "proj" / "pyproject.toml").is_file()
    assert run_cli("init", "nope").exit_code == 2
