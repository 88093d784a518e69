"""Fixture-driven rule tests: findings are marked in the fixture files themselves.

A line ending in `# expect: CODE[, CODE]` must produce exactly those findings (on the
line where the finding starts); every other line must produce none. A fixture may set
`# agentlint-select: A, B` (default: the code of its folder) and
`# agentlint-settings: {json}` (per-rule settings) in its first lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentlint.api import check_source
from agentlint.rules.registry import all_rules, model_rules, per_file_rules, project_rules

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>AGL\d{3}(?:\s*,\s*AGL\d{3})*)")


def fixture_files():
    return sorted(FIXTURES.glob("AGL*/**/*.py"))


def expected_findings(text: str) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(text.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            out |= {(number, c.strip()) for c in match.group("codes").split(",")}
    return out


def header(text: str, key: str) -> str | None:
    for line in text.splitlines()[:5]:
        if line.startswith(f"# agentlint-{key}:"):
            return line.split(":", 1)[1].strip()
    return None


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    code = path.relative_to(FIXTURES).parts[0]
    select = header(text, "select")
    settings = header(text, "settings")
    found = check_source(
        text,
        str(path),
        select=[s.strip() for s in select.split(",")] if select else [code],
        rule_settings=json.loads(settings) if settings else None,
    )
    actual = {(d.line, d.code) for d in found}
    expected = expected_findings(text)
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    lines = text.splitlines()
    report = [f"missing {c} at line {n}: {lines[n - 1].strip()}" for n, c in missing]
    report += [
        f"unexpected {c} at line {n}: {lines[n - 1].strip()}  ({next(d.message for d in found if (d.line, d.code) == (n, c))})"
        for n, c in extra
    ]
    assert not report, "\n".join(report)


def test_fixture_markers_are_parsed() -> None:
    # The harness itself must be able to fail: a marker on a line with no finding.
    text = "x = 1  # expect: AGL302\n"
    assert expected_findings(text) == {(1, "AGL302")}
    assert {(d.line, d.code) for d in check_source(text, select=["AGL302"])} == set()


@pytest.mark.parametrize("rule", [*per_file_rules(), *model_rules(), *project_rules()], ids=lambda r: r.meta.code)
def test_every_rule_has_flagged_and_near_miss_fixtures(rule) -> None:
    folder = FIXTURES / rule.meta.code
    files = list(folder.glob("*.py"))
    assert files, f"{rule.meta.code} has no fixtures in {folder}"
    flagged = [f for f in files if any(c == rule.meta.code for _, c in expected_findings(f.read_text()))]
    assert flagged, f"{rule.meta.code}: no fixture expects a finding"
    near = [f for f in files if f.name.startswith("near_miss")]
    assert near, f"{rule.meta.code}: no near_miss*.py fixture"
    for f in near:
        assert not expected_findings(f.read_text()), f"{f} is a near-miss file but expects findings"


def test_every_code_with_fixtures_exists() -> None:
    codes = set(all_rules())
    for folder in FIXTURES.iterdir():
        assert folder.name in codes, f"fixtures for unknown rule {folder.name}"


@pytest.mark.parametrize("rule", per_file_rules(), ids=lambda r: r.meta.code)
def test_prefilter_lets_every_flagged_fixture_through(rule) -> None:
    """A prefilter must never exclude a file in which its rule fires: every fixture
    expecting the rule's code passes it."""
    if rule.prefilter is None:
        return
    for path in fixture_files():
        text = path.read_text(encoding="utf-8")
        if any(code == rule.meta.code for _, code in expected_findings(text)):
            assert rule.prefilter.search(text.encode("utf-8")), f"{rule.meta.code} prefilter skips {path}"
