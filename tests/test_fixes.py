"""`--fix`, `--unsafe-fixes`, `--diff`, `--show-fixes`: through the CLI, on copies.

Fix fixtures live in ``fixtures/fixes/``: ``NAME.py`` is the input and
``NAME.fixed.py.txt`` the expected result. A first line ``# agentlint-fix: unsafe``
runs with ``--unsafe-fixes`` (the sample application in ``maf_pre_ga_app/`` always
does); otherwise only safe fixes apply.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tokenize
from collections import Counter
from pathlib import Path

import libcst
import pytest

from agentlint.engine.fixes import apply_fixes, fix_content, line_starts
from agentlint.rules.diagnostics import Diagnostic, Edit, Fix, Position, Span

FIXES = Path(__file__).resolve().parent.parent / "fixtures" / "fixes"
APP = FIXES / "maf_pre_ga_app"
SELECT = ("--select", "AGL601,AGL602")


def fix_fixtures() -> list[Path]:
    return sorted(FIXES.rglob("*.py"))


def unsafe_mode(path: Path) -> bool:
    return path.parent == APP or "# agentlint-fix: unsafe" in path.read_text(encoding="utf-8")


def fix_flags(path: Path) -> list[str]:
    return ["--fix", "--unsafe-fixes"] if unsafe_mode(path) else ["--fix"]


def comments(text: str) -> Counter:
    found: Counter = Counter()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            found[token.string] += 1
    return found


def check(run_cli, *args, **kwargs):
    return run_cli("check", "--isolated", "--no-cache", *args, **kwargs)


# -- the fixtures: expected output, idempotence, comments --------------------------------


@pytest.mark.parametrize("source", fix_fixtures(), ids=lambda p: str(p.relative_to(FIXES)))
def test_fixed_code_is_the_expected_code(run_cli, tmp_path, source: Path) -> None:
    target = tmp_path / source.name
    shutil.copy(source, target)
    result = check(run_cli, source.name, *SELECT, *fix_flags(source), "-q")
    assert result.exit_code in (0, 1), result.output
    fixed = target.read_text(encoding="utf-8")
    expected = source.with_name(source.stem + ".fixed.py.txt").read_text(encoding="utf-8")
    assert fixed == expected
    libcst.parse_module(fixed)
    # Every comment of the input is still there.
    assert not comments(source.read_text(encoding="utf-8")) - comments(fixed)


@pytest.mark.parametrize("source", fix_fixtures(), ids=lambda p: str(p.relative_to(FIXES)))
def test_second_fix_changes_nothing(run_cli, tmp_path, source: Path) -> None:
    target = tmp_path / source.name
    shutil.copy(source, target)
    check(run_cli, source.name, *SELECT, *fix_flags(source))
    once = target.read_bytes()
    again = check(run_cli, source.name, *SELECT, *fix_flags(source), "--show-fixes")
    assert target.read_bytes() == once
    assert "Fixed" not in again.output
    diff = check(run_cli, source.name, *SELECT, "--diff", *fix_flags(source)[1:])
    assert diff.exit_code == 0 and diff.stdout == ""


def test_every_fix_fixture_has_its_expected_output() -> None:
    for source in fix_fixtures():
        assert source.with_name(source.stem + ".fixed.py.txt").is_file(), source


# -- acceptance: the pre-GA sample application -------------------------------------------


def test_pre_ga_application_is_migrated(run_cli, tmp_path) -> None:
    app = tmp_path / "app"
    shutil.copytree(APP, app)
    before = {p.name: p.read_text(encoding="utf-8") for p in app.glob("*.py")}
    first = check(run_cli, "app", *SELECT, "--fix", "--unsafe-fixes", "--show-fixes")
    assert "Fixed" in first.stdout
    after = {p.name: p.read_text(encoding="utf-8") for p in app.glob("*.py")}
    assert after != before
    for name, text in after.items():
        libcst.parse_module(text)  # still Python
        assert not comments(before[name]) - comments(text), name
    # Idempotent: a second run changes nothing.
    second = check(run_cli, "app", *SELECT, "--fix", "--unsafe-fixes")
    assert {p.name: p.read_text(encoding="utf-8") for p in app.glob("*.py")} == after
    # No AGL601 left; what AGL602 leaves has no mechanical rewrite (hosted tools).
    left = check(run_cli, "app", *SELECT, "--output-format", "concise")
    assert "AGL601" not in left.stdout
    assert all("no automatic fix" in line or "HostedWebSearchTool" in line
               for line in left.stdout.splitlines() if ": AGL602 " in line)
    assert second.exit_code == left.exit_code == 1


# -- exit codes and output ------------------------------------------------------------------

RENAMES = "from agent_framework import ChatAgent\n\nagent = ChatAgent(None)\n"
UNSAFE_ONLY = "from agent_framework import ChatAgent\n\nasync def f(agent: ChatAgent):\n    return agent.get_new_thread()\n"


def test_exit_zero_when_fix_leaves_nothing(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(RENAMES, encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--fix")
    assert result.exit_code == 0, result.output
    assert "(2 fixed, 0 remaining)" in result.stdout
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "from agent_framework import Agent\n\nagent = Agent(None)\n"


def test_exit_one_when_findings_remain_after_fix(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(UNSAFE_ONLY, encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--fix")
    assert result.exit_code == 1
    assert "(2 fixed, 1 remaining)" in result.stdout
    assert "1 hidden fix can be enabled with the --unsafe-fixes option" in result.stdout
    assert "get_new_thread" in (tmp_path / "a.py").read_text(encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--fix", "--unsafe-fixes")
    assert result.exit_code == 0, result.output
    assert "agent.create_session()" in (tmp_path / "a.py").read_text(encoding="utf-8")


def test_unsafe_fixes_without_fix_only_changes_the_display(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(UNSAFE_ONLY, encoding="utf-8")
    plain = check(run_cli, "a.py", *SELECT)
    shown = check(run_cli, "a.py", *SELECT, "--unsafe-fixes")
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == UNSAFE_ONLY
    assert "[*] 2 fixable with the --fix option (1 hidden fix" in plain.stdout
    assert "[*] 3 fixable with the --fix option." in shown.stdout
    assert shown.stdout.count("[*]") == 4  # three findings and the summary


def test_show_fixes_lists_what_was_fixed(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(RENAMES, encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--fix", "--show-fixes")
    assert "Fixed 2 findings:\n- a.py:\n    2 \u00d7 AGL602 (pre-ga-agent-framework-name)" in result.stdout


def test_show_fixes_keeps_json_output_parseable(run_cli, tmp_path) -> None:
    import json

    (tmp_path / "a.py").write_text(UNSAFE_ONLY, encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--fix", "--show-fixes", "--output-format", "json")
    assert len(json.loads(result.stdout)) == 1
    assert "Fixed 2 findings" in result.stderr


def test_fix_keeps_other_findings_and_rules(run_cli, tmp_path) -> None:
    source = RENAMES + "\ntry:\n    pass\nexcept Exception:\n    pass\n"
    (tmp_path / "a.py").write_text(source, encoding="utf-8")
    result = check(run_cli, "a.py", "--select", "AGL302,AGL602", "--fix", "--output-format", "concise")
    assert result.exit_code == 1
    assert "AGL302" in result.stdout and "AGL602" not in result.stdout


def test_noqa_findings_are_not_fixed(run_cli, tmp_path) -> None:
    source = "from agent_framework import ChatAgent  # noqa: AGL602\n"
    (tmp_path / "a.py").write_text(source, encoding="utf-8")
    assert check(run_cli, "a.py", *SELECT, "--fix").exit_code == 0
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == source


# -- --diff -----------------------------------------------------------------------------------


def test_diff_writes_nothing_and_exits_one(run_cli, tmp_path) -> None:
    path = tmp_path / "a.py"
    path.write_text(RENAMES, encoding="utf-8")
    stamp = path.stat().st_mtime_ns
    result = check(run_cli, "a.py", *SELECT, "--diff")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/a.py\n+++ b/a.py\n")
    assert "-agent = ChatAgent(None)\n+agent = Agent(None)\n" in result.stdout
    assert "Would fix 2 findings." in result.stderr
    assert path.read_text(encoding="utf-8") == RENAMES and path.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_diff_exits_zero_when_nothing_would_change(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(UNSAFE_ONLY.replace("ChatAgent", "Agent"), encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--diff")
    assert result.exit_code == 0 and result.stdout == ""


def test_diff_with_unsafe_fixes_shows_them(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(UNSAFE_ONLY, encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--diff", "--unsafe-fixes")
    assert "+    return agent.create_session()" in result.stdout
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == UNSAFE_ONLY


# -- what is never touched, and how files are written -----------------------------------------


def test_file_that_does_not_parse_is_never_touched(run_cli, tmp_path) -> None:
    broken = "from agent_framework import ChatAgent\nagent = ChatAgent(\n"
    path = tmp_path / "broken.py"
    path.write_text(broken, encoding="utf-8")
    stamp = path.stat().st_mtime_ns
    result = check(run_cli, "broken.py", "--fix", "--unsafe-fixes")
    assert result.exit_code == 1 and "AGL001" in result.stdout
    assert path.read_text(encoding="utf-8") == broken and path.stat().st_mtime_ns == stamp


def test_fix_result_that_would_not_parse_is_not_written() -> None:
    source = "x = 1\n"

    def bad_check(path, content):
        fix = Fix("break it", (Edit(Span(Position(1, 1), Position(1, 2)), "def"),))
        return [Diagnostic("AGL602", "n", "m", path, Span(Position(1, 1), Position(1, 2)), fix=fix)]

    outcome = fix_content("a.py", source.encode(), bad_check)
    assert not outcome.changed
    assert outcome.dropped == ["AGL602 fix at line 1 not applied: the code it produces would not compile (invalid syntax)"]


def test_a_fix_that_compiles_wrong_is_dropped_and_the_finding_stays(run_cli, tmp_path) -> None:
    """`ChatAgent(chat_client=a, client=b)` would become `Agent(client=a, client=b)`:
    it parses but does not compile (a repeated keyword). That fix is dropped with a
    message, the file keeps it, and the finding is still reported."""
    path = tmp_path / "a.py"
    source = "from agent_framework import ChatAgent\n\nagent = ChatAgent(chat_client=a, client=b)\n"
    path.write_text(source, encoding="utf-8")
    result = check(run_cli, "a.py", *SELECT, "--fix")
    assert "would not compile (keyword argument repeated" in result.stderr
    compile(path.read_text(encoding="utf-8"), "a.py", "exec")
    assert "chat_client=" in path.read_text(encoding="utf-8")
    assert result.exit_code == 1


def test_write_keeps_mode_and_leaves_no_temporary_file(run_cli, tmp_path) -> None:
    path = tmp_path / "a.py"
    path.write_text(RENAMES, encoding="utf-8")
    os.chmod(path, 0o640)
    check(run_cli, "a.py", *SELECT, "--fix")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_line_endings_bom_and_wide_characters_survive(run_cli, tmp_path) -> None:
    source = "\ufeff# -*- coding: utf-8 -*-\r\nfrom agent_framework import ChatAgent\r\n\r\nnote = '\u00e9\u00e8\U0001f600'; agent = ChatAgent(None)\r\n"
    path = tmp_path / "a.py"
    path.write_bytes(source.encode("utf-8"))
    assert check(run_cli, "a.py", *SELECT, "--fix").exit_code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data and b"\n\n" not in data.replace(b"\r\n", b"")
    assert data.decode("utf-8-sig").endswith("note = '\u00e9\u00e8\U0001f600'; agent = Agent(None)\r\n")


def test_fix_is_not_cached_wrongly(run_cli, tmp_path) -> None:
    (tmp_path / "a.py").write_text(RENAMES, encoding="utf-8")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    first = run_cli("check", "--isolated", "a.py", *SELECT, *cache)
    assert first.exit_code == 1
    fixed = run_cli("check", "--isolated", "a.py", *SELECT, *cache, "--fix")
    assert fixed.exit_code == 0
    again = run_cli("check", "--isolated", "a.py", *SELECT, *cache)
    assert again.exit_code == 0, again.output
    (tmp_path / "a.py").write_text(RENAMES, encoding="utf-8")  # back to the old content
    assert run_cli("check", "--isolated", "a.py", *SELECT, *cache).exit_code == 1


def test_stdin_fix_prints_the_fixed_source(run_cli, tmp_path) -> None:
    result = check(run_cli, "-", "--stdin-filename", "a.py", *SELECT, "--fix", input=RENAMES)
    assert result.exit_code == 0
    assert result.stdout == "from agent_framework import Agent\n\nagent = Agent(None)\n"


# -- applying edits -------------------------------------------------------------------------


def _fix(line: int, start: int, end: int, text: str, safe: bool = True) -> Fix:
    return Fix("f", (Edit(Span(Position(line, start), Position(line, end)), text),), safe)


def test_apply_fixes_skips_overlapping_and_applies_identical_once() -> None:
    text = "abcdef\nxyz\n"
    fixes = [_fix(1, 1, 4, "ABC"), _fix(1, 3, 5, "!"), _fix(1, 1, 4, "ABC"), _fix(2, 2, 3, "Y")]
    new, applied = apply_fixes(text, fixes)
    assert new == "ABCdef\nxYz\n"
    assert applied == [0, 2, 3]


def test_apply_fixes_insertion_and_multi_edit_fix() -> None:
    text = "f(a)\n"
    both = Fix("f", (Edit(Span(Position(1, 1), Position(1, 2)), "g"), Edit(Span(Position(1, 4), Position(1, 4)), ", b")))
    new, applied = apply_fixes(text, [both])
    assert (new, applied) == ("g(a, b)\n", [0])


def test_line_starts_count_lines_like_the_parser() -> None:
    assert line_starts("a\r\nb\rc\nd\x0ce") == [0, 3, 5, 7]


def test_symlink_target_is_fixed_and_link_kept(run_cli, tmp_path) -> None:
    real = tmp_path / "real.py"
    real.write_text(RENAMES, encoding="utf-8")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert check(run_cli, "link.py", *SELECT, "--fix").exit_code == 0
    assert link.is_symlink()
    assert "ChatAgent" not in real.read_text(encoding="utf-8")
