"""`check --add-noqa` (agentlint/add_noqa.py)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from agentlint.adopt.add_noqa import add_directives, add_noqa, merge_comment
from agentlint.rules.diagnostics import Diagnostic, Position, Span

ROOT = Path(__file__).resolve().parent.parent
SILENT = "try:\n    pass\nexcept Exception:\n    pass\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_demo_gets_directives_and_is_then_clean(run_cli, tmp_path):
    shutil.copytree(ROOT / "fixtures" / "demo", tmp_path / "demo")
    result = run_cli("check", "demo", "--add-noqa")
    assert result.exit_code == 0, result.output
    assert "added 4 `noqa` directives to 2 files" in result.stderr
    assert "All checks passed!" in result.stdout
    guard = (tmp_path / "demo" / "support_agent" / "guard.py").read_text()
    assert "def check_input(text: str) -> bool:  # noqa: AGL301\n" in guard
    assert "    except BaseException:  # noqa: AGL302\n" in guard
    tools = (tmp_path / "demo" / "support_agent" / "tools.py").read_text()
    assert "    except Exception:  # noqa: AGL302\n" in tools and "    except:  # noqa: AGL302\n" in tools
    before = {p: p.read_bytes() for p in (tmp_path / "demo").rglob("*.py")}
    result = run_cli("check", "demo", "--add-noqa")
    assert result.exit_code == 0 and "added 0 `noqa` directives to 0 files" in result.stderr
    assert before == {p: p.read_bytes() for p in (tmp_path / "demo").rglob("*.py")}
    # Nothing else changed: the directives are the whole difference.
    original = (ROOT / "fixtures" / "demo" / "support_agent" / "tools.py").read_text()
    assert tools.replace("  # noqa: AGL302", "") == original


def test_existing_comments_are_kept_and_noqa_merged(run_cli, tmp_path):
    write(
        tmp_path / "m.py",
        "def a():\n"
        "    try:\n        pass\n"
        "    except Exception:  # noqa: E722\n        pass\n"
        "    try:\n        pass\n"
        "    except Exception:   # legacy, see ticket 12\n        pass\n"
        "    try:\n        pass\n"
        "    except Exception:  # type: ignore  # noqa:E501 because long\n        pass\n"
        "    try:\n        pass\n"
        "    except Exception: pass\n",
    )
    result = run_cli("check", "m.py", "--add-noqa")
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "m.py").read_text().splitlines()
    assert lines[3] == "    except Exception:  # noqa: E722, AGL302"
    assert lines[7] == "    except Exception:   # legacy, see ticket 12  # noqa: AGL302"
    assert lines[11] == "    except Exception:  # type: ignore  # noqa:E501, AGL302 because long"
    assert lines[15] == "    except Exception: pass  # noqa: AGL302"
    assert run_cli("check", "m.py").exit_code == 0


def test_lines_that_cannot_take_a_comment_are_left_and_reported(run_cli, tmp_path):
    source = (
        "def f(flag):\n"
        "    try:\n        pass\n"
        '    except Exception: x = """a\n'
        'b"""\n'
        "    try:\n        pass\n"
        "    except Exception: y = 1 + \\\n"
        "        2\n"
        "    try:\n        pass\n"
        "    except Exception:\n        pass\n"
    )
    write(tmp_path / "m.py", source)
    result = run_cli("check", "m.py", "--add-noqa", "--output-format", "concise")
    assert result.exit_code == 1
    assert "m.py: no `# noqa` added on line 4, 8: the line ends inside a string or with a backslash" in result.stderr
    assert [line.split(" ")[0] for line in result.stdout.splitlines() if " AGL302 " in line] == ["m.py:4:5:", "m.py:8:5:"]
    text = (tmp_path / "m.py").read_text()
    assert text == source.replace("    except Exception:\n        pass\n", "    except Exception:  # noqa: AGL302\n        pass\n")


def test_bytes_are_kept_crlf_bom_and_encoding_cookie(run_cli, tmp_path):
    (tmp_path / "crlf.py").write_bytes(SILENT.replace("\n", "\r\n").encode())
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + SILENT.encode())
    latin = "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n" + SILENT
    (tmp_path / "latin.py").write_bytes(latin.encode("latin-1"))
    os.chmod(tmp_path / "crlf.py", 0o750)
    result = run_cli("check", "--add-noqa")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "crlf.py").read_bytes() == b"try:\r\n    pass\r\nexcept Exception:  # noqa: AGL302\r\n    pass\r\n"
    assert stat.S_IMODE((tmp_path / "crlf.py").stat().st_mode) == 0o750
    assert (tmp_path / "bom.py").read_bytes().startswith(b"\xef\xbb\xbftry:")
    assert (tmp_path / "latin.py").read_bytes() == latin.replace("except Exception:", "except Exception:  # noqa: AGL302").encode("latin-1")


def test_files_that_do_not_parse_are_not_touched(run_cli, tmp_path):
    write(tmp_path / "broken.py", "def f(:\n" + SILENT)
    result = run_cli("check", "--add-noqa", "--output-format", "concise")
    assert result.exit_code == 1
    assert "AGL001" in result.stdout
    assert (tmp_path / "broken.py").read_text() == "def f(:\n" + SILENT


def test_with_a_baseline_only_new_findings_get_directives(run_cli, tmp_path):
    write(tmp_path / "old.py", SILENT)
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    write(tmp_path / "new.py", SILENT)
    result = run_cli("check", "--baseline", "b.json", "--add-noqa")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "old.py").read_text() == SILENT
    assert "# noqa: AGL302" in (tmp_path / "new.py").read_text()


def test_stdin_is_refused(run_cli, tmp_path):
    result = run_cli("check", "-", "--add-noqa", input=SILENT)
    assert result.exit_code == 2 and "--add-noqa edits files" in result.stderr


def test_a_file_changed_since_the_check_is_not_touched(tmp_path):
    from agentlint.engine.config import Settings
    from agentlint.engine.finalize import file_diagnostics

    path = write(tmp_path / "m.py", "\n\n" + SILENT)  # the finding is now on line 5
    stale = Diagnostic("AGL302", "n", "m", str(path), Span(Position(3, 1), Position(3, 18)))
    settings = Settings(root=str(tmp_path), enabled=frozenset({"AGL302", "AGL900"}))
    warnings: list[str] = []
    outcome = add_noqa([stale], lambda p, c: file_diagnostics(p, c, settings), warnings.append)
    assert outcome.added == 0 and outcome.left == [stale]
    assert warnings == [f"{path}: not changed: the file changed since it was checked; run again"]
    assert path.read_text() == "\n\n" + SILENT


@pytest.mark.parametrize(
    "comment, codes, expected",
    [
        ("# hello", {"AGL302"}, "# hello  # noqa: AGL302"),
        ("# noqa: E501", {"AGL302", "AGL301"}, "# noqa: E501, AGL301, AGL302"),
        ("# NOQA:AGL302", {"AGL302"}, None),
        # codes are upper case: `agl302` makes the directive invalid (it suppresses
        # nothing), so the codes are written and its text kept as a comment
        ("# NOQA:agl302", {"AGL302"}, "# noqa: AGL302  # agl302"),
        ("# noqa: see ticket 123", {"AGL302"}, "# noqa: AGL302  # see ticket 123"),
        ("# noqa", {"AGL302"}, None),
        ("# noqa: E501,AGL302 why", {"AGL302", "AGL301"}, "# noqa: E501,AGL302, AGL301 why"),
    ],
)
def test_merge_comment(comment, codes, expected):
    assert merge_comment(comment, codes) == expected


def test_add_directives_text_only():
    text, refused, changed = add_directives("x = 1\ny = 2 \t\n", {1: {"AGL302"}, 2: {"AGL301"}, 9: {"AGL302"}})
    assert text == "x = 1  # noqa: AGL302\ny = 2  # noqa: AGL301\n"
    assert refused == {9} and changed == 2


def test_json_output_after_add_noqa_is_clean(run_cli, tmp_path):
    write(tmp_path / "m.py", SILENT)
    result = run_cli("check", "--add-noqa", "--output-format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []
