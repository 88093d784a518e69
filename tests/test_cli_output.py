"""What `check` prints with -q and --statistics, and `rule --output-format json`,
through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

SILENT = "try:\n    x()\nexcept Exception:\n    pass\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_quiet_prints_findings_only(run_cli, tmp_path):
    write(tmp_path / "a.py", SILENT)
    for fmt in ("full", "concise"):
        result = run_cli("check", "-q", "--no-cache", "--output-format", fmt, "a.py")
        assert result.exit_code == 1
        assert "a.py:3:1: AGL302" in result.stdout
        assert "Found" not in result.stdout and "error" not in result.stdout.splitlines()[-1].lower()
    concise = run_cli("check", "-q", "--no-cache", "--output-format", "concise", "a.py")
    assert concise.stdout.splitlines() == [line for line in concise.stdout.splitlines() if line.startswith("a.py:")]
    write(tmp_path / "a.py", "x = 1\n")
    clean = run_cli("check", "-q", "--no-cache", "a.py")
    assert clean.exit_code == 0 and clean.stdout == ""


def test_statistics_honours_json(run_cli, tmp_path):
    write(tmp_path / "a.py", SILENT + SILENT)
    result = run_cli("check", "--no-cache", "--statistics", "--output-format", "json", "a.py")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {"code": "AGL302", "count": 2, "fixable": False, "fixable_count": 0, "name": "silent-broad-except"}
    ]
    lines = run_cli("check", "--no-cache", "--statistics", "--output-format", "json-lines", "a.py").stdout.splitlines()
    assert [json.loads(line)["count"] for line in lines] == [2]
    text = run_cli("check", "--no-cache", "--statistics", "a.py").stdout
    assert text.startswith("2\tAGL302\tsilent-broad-except\n")


def test_rule_as_json(run_cli):
    result = run_cli("rule", "AGL302", "--output-format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["code"] == "AGL302" and data["name"] == "silent-broad-except"
    assert data["explanation"].startswith("# AGL302 silent-broad-except")
    assert data["settings"]["reporter-callables"] == []
    assert data["default_selected"] is True and data["fixable"] is False
    every = json.loads(run_cli("rule", "--all", "--output-format", "json").stdout)
    assert "AGL302" in [r["code"] for r in every] and len(every) > 10
    assert run_cli("rule", "AGL302").stdout.startswith("# AGL302 silent-broad-except")
    assert run_cli("rule", "AGL3", "--output-format", "json").exit_code == 2


def test_notes_come_after_the_findings(run_cli, tmp_path):
    write(tmp_path / "app.py", "from crewai import Agent\n\nagent = Agent(role='r')\n" + SILENT)
    for fmt in ("full", "concise"):
        lines = run_cli("check", "--no-cache", "--output-format", fmt, "app.py").stdout.splitlines()
        heads = [line for line in lines if line.startswith("app.py:")]
        assert [h.split()[1] for h in heads] == ["AGL302", "AGL901"], lines


def test_explain_and_tools_take_output_format(run_cli, tmp_path):
    write(tmp_path / "app.py", "from agents import function_tool\n\nPROMPT = 'You are terse'\n\n"
          "@function_tool\ndef lookup(city: str) -> str:\n    return PROMPT + city\n")
    answer = run_cli("explain", "PROMPT", ".", "--no-cache", "--output-format", "json")
    assert answer.exit_code == 0 and json.loads(answer.stdout)
    tools = run_cli("tools", ".", "--no-cache", "--output-format", "json")
    assert tools.exit_code == 0 and isinstance(json.loads(tools.stdout), (list, dict))
