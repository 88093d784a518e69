"""SARIF, GitLab and GitHub reports as code scanning, merge requests and annotations read
them, through the CLI: paths relative to the repository's top (not the configuration's
folder nor the working folder), related locations linked from the message, notebook
findings on the `.ipynb` file's own lines, a warning above GitHub's 5,000 results, and
GitLab fingerprints that survive a third copy of a duplicate. Every SARIF log is validated against the 2.1.0 schema."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from test_reporters import assert_valid_sarif

SILENT = "try:\n    x()\nexcept Exception:\n    pass\n"
COST = (
    "def {name}(usage, prices):\n"
    "    return usage.prompt_tokens * prices.input + usage.completion_tokens * prices.output\n"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def sarif(run_cli, *args, cwd=None) -> dict:
    result = run_cli("check", "--no-cache", "--output-format", "sarif", *args, cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    return log


def uris(log: dict) -> list[str]:
    return sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"])


def test_paths_are_relative_to_the_repository_top(run_cli, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path / "services" / "api" / "pyproject.toml", "[tool.agentlint]\n")
    write(tmp_path / "services" / "api" / "app.py", SILENT)
    for cwd, given in ((tmp_path, "services/api"), (tmp_path / "services" / "api", ".")):
        log = sarif(run_cli, given, cwd=cwd)
        assert uris(log) == ["services/api/app.py"], cwd
        assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
        result = run_cli("check", "--no-cache", "--output-format", "gitlab", given, cwd=cwd)
        assert [i["location"]["path"] for i in json.loads(result.stdout)] == ["services/api/app.py"]
        github = run_cli("check", "--no-cache", "--output-format", "github", given, cwd=cwd)
        assert "file=services/api/app.py," in github.stdout, github.stdout


def test_outside_a_repository_paths_are_relative_to_the_working_folder(run_cli, tmp_path):
    write(tmp_path / "sub" / "agentlint.toml", "")
    write(tmp_path / "sub" / "app.py", SILENT)
    log = sarif(run_cli, "sub")
    assert uris(log) == ["sub/app.py"]
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"


def test_related_locations_are_linked_from_the_message(run_cli, tmp_path):
    write(tmp_path / "one.py", COST.format(name="one"))
    write(tmp_path / "two.py", COST.format(name="two"))
    log = sarif(run_cli, "--select", "AGL101", ".")
    results = log["runs"][0]["results"]
    assert len(results) == 2
    for result in results:
        related = result["relatedLocations"]
        assert [r["id"] for r in related] == [1]
        text = result["message"]["text"]
        # GitHub shows a related location only through a link to its id in the message
        assert re.fullmatch(r".+ \(\[[^\[\]]+\]\(1\)\)", text), text


def notebook(path: Path, cells: list[str]) -> None:
    body = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c.splitlines(True)}
        for c in cells
    ]
    body.insert(0, {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n"]})
    write(path, json.dumps({"cells": body, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n")


def test_notebook_findings_are_on_the_files_own_lines(run_cli, tmp_path):
    notebook(tmp_path / "explore.ipynb", ["import os\n", "value = 1\n" + SILENT])
    log = sarif(run_cli, "explore.ipynb")
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "AGL302"]
    location = result["locations"][0]
    assert location["properties"]["cell"] == 3
    assert location["properties"]["cellRegion"]["startLine"] == 4  # `except Exception:` in its cell
    region = location["physicalLocation"]["region"]
    line = (tmp_path / "explore.ipynb").read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
    assert line.strip() == '"except Exception:\\n",'
    assert line[region["startColumn"] - 1 :].startswith("except Exception")
    # GitLab shows the .ipynb file too: the same line
    issues = json.loads(run_cli("check", "--no-cache", "--output-format", "gitlab", "explore.ipynb").stdout)
    assert [i["location"]["lines"]["begin"] for i in issues if i["check_name"] == "AGL302"] == [region["startLine"]]


def test_more_results_than_github_shows_is_warned_about(run_cli, tmp_path):
    write(tmp_path / "many.py", "".join(f"x{i} = 1  # noqa: AGL302\n" for i in range(5001)))  # 5,001 AGL900
    result = run_cli("check", "--no-cache", "--output-format", "sarif", "-o", "out.sarif", "many.py")
    assert result.exit_code == 1
    assert "the SARIF report holds 5,001 results" in result.stderr
    assert len(json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"]) == 5001
    few = run_cli("check", "--no-cache", "--output-format", "sarif", "-o", "few.sarif", "many.py", "--ignore", "AGL900")
    assert "SARIF report holds" not in few.stderr


def test_gitlab_fingerprints_survive_a_third_copy(run_cli, tmp_path):
    write(tmp_path / "one.py", COST.format(name="one"))
    write(tmp_path / "two.py", COST.format(name="two"))

    def fingerprints() -> dict[str, str]:
        result = run_cli("check", "--no-cache", "--output-format", "gitlab", "--select", "AGL101", ".")
        return {i["location"]["path"]: i["fingerprint"] for i in json.loads(result.stdout)}

    before = fingerprints()
    assert set(before) == {"one.py", "two.py"}
    write(tmp_path / "three.py", COST.format(name="three"))  # the messages now count two others
    after = fingerprints()
    assert after["one.py"] == before["one.py"] and after["two.py"] == before["two.py"]
    assert len(set(after.values())) == 3
