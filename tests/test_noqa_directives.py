"""`# noqa` directives are read as ruff reads them: a directive that is not a list of
upper-case codes is invalid, suppresses nothing, and is warned about on stderr (on every
run, cached or not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentlint.engine.suppression import parse_directive

BROAD = "try:\n    x()\nexcept Exception:{comment}\n    pass\n"


def write(folder: Path, comment: str) -> Path:
    path = folder / "agent.py"
    path.write_text(BROAD.format(comment=comment), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "comment",
    [
        "  # noqa: silent-broad-except",
        "  # noqa: see ticket 123",
        "  # noqa: agl302",
        "  # noqa:",
        "  # noqa: AGL3O2",
    ],
)
def test_an_invalid_directive_suppresses_nothing_and_is_warned_about(run_cli, tmp_path, comment):
    write(tmp_path, comment)
    for _ in range(2):  # the second run reads the cache: it still warns
        result = run_cli("check", "agent.py", "--output-format", "concise")
        assert result.exit_code == 1, result.output
        assert "agent.py:3:1: AGL302" in result.stdout
        assert result.stderr.count("invalid `# noqa` directive") == 1, result.stderr
        assert f"agent.py:3: invalid `# noqa` directive `{comment.strip()}`" in result.stderr


@pytest.mark.parametrize(
    "comment",
    [
        "  # noqa",
        "  # NOQA",
        "  # noqa because the caller retries",
        "  # noqa: AGL302",
        "  #noqa:AGL302",
        "  # noqa: AGL301, AGL302",
        "  # noqa: AGL302 the caller retries",
    ],
)
def test_valid_directives_suppress(run_cli, tmp_path, comment):
    write(tmp_path, comment)
    result = run_cli("check", "agent.py", "--no-cache", "--output-format", "concise", "--ignore", "AGL900")
    assert result.exit_code == 0, result.output
    assert "invalid" not in result.stderr


def test_other_tools_directives_are_not_ours(run_cli, tmp_path):
    write(tmp_path, "  # noqa: E501")
    result = run_cli("check", "agent.py", "--no-cache", "--output-format", "concise")
    assert result.exit_code == 1 and "AGL302" in result.stdout
    assert result.stderr == ""


def test_the_grammar():
    assert parse_directive("# noqa").codes is None
    assert parse_directive("# noqa: AGL302, AGL301 why").codes == ("AGL302", "AGL301")
    assert parse_directive("# type: ignore  # noqa: AGL302").codes == ("AGL302",)
    assert parse_directive("# noqa: agl302").invalid
    assert parse_directive("# noqa: silent-broad-except").invalid
    assert parse_directive("# noqa: AGL3O2").invalid
    assert parse_directive("# noqaish") is None
    assert parse_directive("# a comment") is None


def test_add_noqa_repairs_an_invalid_directive(run_cli, tmp_path):
    path = write(tmp_path, "  # noqa: see ticket 123")
    result = run_cli("check", "agent.py", "--no-cache", "--add-noqa")
    assert result.exit_code == 0, result.output
    assert "except Exception:  # noqa: AGL302  # see ticket 123\n" in path.read_text()
    assert run_cli("check", "agent.py", "--no-cache").exit_code == 0
