"""SARIF for code-scanning UIs: stable fingerprints across line moves, the enclosing
function or class as a logical location, the rule family as a tag, and a helpUri per
rule — through the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from agentlint.cli.main import main
from test_reporters import assert_valid_sarif

SOURCE = '''\
from agents import function_tool


class Billing:
    def refresh(self):
        try:
            self.load()
        except Exception:
            pass


@function_tool
def refund(customer_id: str) -> str:
    return customer_id
'''


def sarif(tmp_path: Path) -> dict:
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(main, ["check", "app.py", "--no-cache", "--output-format", "sarif"])
    finally:
        os.chdir(old)
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)


def by_rule(log: dict) -> dict[str, dict]:
    return {r["ruleId"]: r for r in log["runs"][0]["results"]}


def test_fingerprints_survive_line_moves_and_logical_locations_name_the_scope(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SOURCE, encoding="utf-8")
    first = sarif(tmp_path)
    assert_valid_sarif(first)
    results = by_rule(first)
    assert results["AGL302"]["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "Billing.refresh", "name": "refresh", "kind": "member"}
    ]
    assert results["AGL201"]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "refund"

    (tmp_path / "app.py").write_text("# a comment\n\n\n" + SOURCE, encoding="utf-8")
    moved = by_rule(sarif(tmp_path))
    for code in ("AGL302", "AGL201"):
        assert moved[code]["locations"][0]["physicalLocation"]["region"]["startLine"] == (
            results[code]["locations"][0]["physicalLocation"]["region"]["startLine"] + 3
        )
        assert moved[code]["partialFingerprints"] == results[code]["partialFingerprints"]
    assert results["AGL302"]["partialFingerprints"] != results["AGL201"]["partialFingerprints"]


def test_rules_carry_family_tags_and_help_uri(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SOURCE, encoding="utf-8")
    log = sarif(tmp_path)
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["AGL201"]["properties"]["tags"] == ["agentlint", "tool-boundary"]
    assert rules["AGL302"]["properties"]["tags"] == ["agentlint", "verdicts-and-fail-open"]
    assert rules["AGL101"]["properties"]["tags"] == ["agentlint", "cost"]
    # no page is linked unless `docs-url` says where the rule pages are
    assert not any("helpUri" in r for r in rules.values())
    assert "informationUri" not in log["runs"][0]["tool"]["driver"]
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentlint]\ndocs-url = "https://example.org/agentlint/docs/rules/{code}.md"\n', encoding="utf-8"
    )
    log = sarif(tmp_path)
    assert_valid_sarif(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/agentlint/docs/rules/"
    assert all(r["helpUri"] == f"https://example.org/agentlint/docs/rules/{r['id']}.md" for r in driver["rules"])
