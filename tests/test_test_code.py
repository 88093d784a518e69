"""Findings in test code: flagged as such in JSON and SARIF, and the `tests` setting
chooses between report, note and skip per rule or family (CLI through click's runner)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentlint.cli.main import main

SILENT = "def f():\n    try:\n        g()\n    except Exception:\n        pass\n"


def check(tmp_path: Path, *args: str):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        return CliRunner().invoke(main, ["check", ".", "--no-cache", *args])
    finally:
        os.chdir(old)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "app" / "core.py").write_text(SILENT, encoding="utf-8")
    (tmp_path / "tests" / "test_core.py").write_text(SILENT, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(SILENT, encoding="utf-8")
    return tmp_path


def test_json_and_sarif_mark_test_code(project: Path) -> None:
    result = check(project, "--select", "AGL302", "--output-format", "json")
    assert result.exit_code == 1
    marks = {Path(d["filename"]).relative_to(project).as_posix(): d["test"] for d in json.loads(result.stdout)}
    assert marks == {"app/core.py": False, "tests/test_core.py": True, "conftest.py": True}
    sarif = json.loads(check(project, "--select", "AGL302", "--output-format", "sarif").stdout)
    tagged = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r.get("properties", {}).get("tags", [])
        for r in sarif["runs"][0]["results"]
    }
    assert tagged == {"app/core.py": [], "tests/test_core.py": ["test-code"], "conftest.py": ["test-code"]}


def test_tests_setting_turns_findings_into_notes_or_skips_them(project: Path) -> None:
    (project / "agentlint.toml").write_text('[tests]\nAGL3 = "note"\n', encoding="utf-8")
    result = check(project, "--select", "AGL302", "--output-format", "json")
    found = {Path(d["filename"]).name: d["severity"] for d in json.loads(result.stdout)}
    assert found == {"core.py": "error", "test_core.py": "note", "conftest.py": "note"}
    assert result.exit_code == 1  # app/core.py still fails the run

    (project / "app" / "core.py").write_text("x = 1\n", encoding="utf-8")
    result = check(project, "--select", "AGL302")
    assert result.exit_code == 0, result.output  # notes never fail a run
    assert "All checks passed! (3 files checked, 2 notes)" in result.stdout

    (project / "agentlint.toml").write_text('[tests]\ndefault = "skip"\nAGL302 = "report"\n', encoding="utf-8")
    result = check(project, "--select", "AGL302", "--output-format", "concise")
    assert result.exit_code == 1 and "tests/test_core.py" in result.stdout  # the code beats the default


def test_bad_tests_setting_names_the_key(project: Path) -> None:
    (project / "agentlint.toml").write_text('[tests]\nAGL3 = "ignore"\n', encoding="utf-8")
    result = check(project)
    assert result.exit_code == 2
    assert "tests" in result.stderr and '"report", "note" or "skip"' in result.stderr


GUARD = (
    "import requests\n\n\n"
    "def check_input(text: str) -> bool:\n"
    "    try:\n"
    "        return requests.post('https://guard.example', json={'t': text}).json()['ok']\n"
    "    except Exception:\n"
    "        return True\n"
)


def test_guard_verdicts_in_test_code_are_skipped_by_default(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "app" / "guard.py").write_text(GUARD, encoding="utf-8")
    (tmp_path / "tests" / "test_guard.py").write_text(GUARD, encoding="utf-8")
    result = check(tmp_path, "--select", "AGL301", "--output-format", "json")
    assert [Path(d["filename"]).name for d in json.loads(result.stdout)] == ["guard.py"]
    # a family selector of the user's does not override the default for the code itself
    (tmp_path / "agentlint.toml").write_text('[tests]\nAGL3 = "note"\n', encoding="utf-8")
    result = check(tmp_path, "--select", "AGL301", "--output-format", "json")
    assert [Path(d["filename"]).name for d in json.loads(result.stdout)] == ["guard.py"]
    (tmp_path / "agentlint.toml").write_text('[tests]\nAGL301 = "note"\n', encoding="utf-8")
    result = check(tmp_path, "--select", "AGL301", "--output-format", "json")
    found = {Path(d["filename"]).name: d["severity"] for d in json.loads(result.stdout)}
    assert found == {"guard.py": "error", "test_guard.py": "note"}
