"""`check --baseline` / `--write-baseline` (agentlint/baseline.py, agentlint/adoption.py)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from agentlint.adopt import baseline as bl
from agentlint.report.identity import FindingKey, finding_keys
from agentlint.rules.diagnostics import Diagnostic, Position, Span

TOOLS = '''\
import httpx


def lookup_order(order_number: str) -> str:
    try:
        return httpx.get(f"https://shop.example/orders/{order_number}").text
    except Exception:
        return "Order not found."


def load_faq(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except:
        return ""
'''

GUARD = '''\
import requests


def check_input(text: str) -> bool:
    try:
        return not requests.post(MODERATION_URL, json={"text": text}).json()["flagged"]
    except BaseException:
        return True
'''

SILENT = "\n\ndef added_later():\n    try:\n        pass\n    except Exception:\n        pass\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.agentlint]\n")
    write(tmp_path / "app" / "tools.py", TOOLS)
    write(tmp_path / "app" / "guard.py", GUARD)
    return tmp_path


def concise(result) -> list[str]:
    return [line for line in result.stdout.splitlines() if re.match(r"\S+:\d+:\d+: AGL", line)]


def entries(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["findings"]


# -- the acceptance scenario -----------------------------------------------------------


def test_acceptance_scenario(run_cli, project):
    """Baseline today's findings; ten lines above a finding bring nothing back; a new
    silent except is reported; a fixed finding is listed as stale (and alone does not
    fail the run); --write-baseline then prunes it."""
    result = run_cli("check", "--write-baseline", "agentlint-baseline.json")
    assert result.exit_code == 0, result.output
    assert "wrote 4 findings to agentlint-baseline.json (4 added, 0 removed)" in result.stderr
    assert result.stdout == ""
    assert len(entries(project / "agentlint-baseline.json")) == 4

    result = run_cli("check", "--baseline", "agentlint-baseline.json", "--output-format", "concise")
    assert result.exit_code == 0, result.output
    assert concise(result) == []
    assert "4 findings are in the baseline agentlint-baseline.json and not shown" in result.stderr

    tools = project / "app" / "tools.py"
    tools.write_text("# a comment\n" * 10 + TOOLS, encoding="utf-8")
    result = run_cli("check", "--baseline", "agentlint-baseline.json", "--output-format", "concise")
    assert result.exit_code == 0, result.output
    assert concise(result) == []
    assert "warning" not in result.stderr

    tools.write_text("# a comment\n" * 10 + TOOLS + SILENT, encoding="utf-8")
    result = run_cli("check", "--baseline", "agentlint-baseline.json", "--output-format", "concise")
    assert result.exit_code == 1
    assert concise(result) == [
        "app/tools.py:32:5: AGL302 Broad `except Exception` swallows the failure: nothing re-raises, "
        "records or passes on the exception"
    ]

    # Fix the bare `except:` (baselined): its entry is stale, and reported as such.
    fixed = TOOLS.replace("    except:\n", "    except OSError:\n")
    tools.write_text("# a comment\n" * 10 + fixed, encoding="utf-8")
    result = run_cli("check", "--baseline", "agentlint-baseline.json", "--output-format", "concise")
    assert result.exit_code == 0, "stale entries alone do not fail a run"
    assert concise(result) == []
    assert "1 baseline entry in agentlint-baseline.json no longer matches a finding" in result.stderr
    assert "--write-baseline agentlint-baseline.json` removes it" in result.stderr
    stale_line = next(
        n for n, text in enumerate((project / "agentlint-baseline.json").read_text().splitlines(), 1) if '"except:"' in text
    )
    assert f"agentlint-baseline.json:{stale_line}: app/tools.py: AGL302 `except:`" in result.stderr

    result = run_cli("check", "--write-baseline", "agentlint-baseline.json")
    assert result.exit_code == 0
    assert "wrote 3 findings to agentlint-baseline.json (0 added, 1 removed)" in result.stderr
    assert all(e["source"] != "except:" for e in entries(project / "agentlint-baseline.json"))
    result = run_cli("check", "--baseline", "agentlint-baseline.json")
    assert result.exit_code == 0 and "warning" not in result.stderr


def test_identical_finding_in_another_file_is_new(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    write(project / "app" / "copy.py", TOOLS)
    result = run_cli("check", "--baseline", "b.json", "--output-format", "concise")
    assert result.exit_code == 1
    assert [line.split(" ")[0:2] for line in concise(result)] == [
        ["app/copy.py:7:5:", "AGL302"],
        ["app/copy.py:15:5:", "AGL302"],
    ]


def test_another_copy_in_the_same_file_is_new(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    guard = project / "app" / "guard.py"
    guard.write_text(GUARD + "\n\n" + GUARD.replace("check_input", "check_output"), encoding="utf-8")
    result = run_cli("check", "--baseline", "b.json", "--output-format", "concise")
    assert result.exit_code == 1
    assert {line.split(" ")[1] for line in concise(result)} == {"AGL301", "AGL302"}
    assert len(concise(result)) == 2


def test_noqa_and_per_file_ignores_apply_before_the_baseline(run_cli, project):
    (project / "app" / "guard.py").write_text(GUARD.replace("BaseException:", "BaseException:  # noqa").replace("-> bool:", "-> bool:  # noqa"), encoding="utf-8")
    write(project / "pyproject.toml", '[tool.agentlint]\nper-file-ignores = { "app/tools.py" = ["AGL302"] }\n')
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    assert entries(project / "b.json") == []
    assert (project / "b.json").read_text() == '{\n  "agentlint-baseline": 1,\n  "findings": []\n}\n'


def test_file_format_is_sorted_one_entry_per_line(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    text = (project / "b.json").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[:3] == ["{", '  "agentlint-baseline": 1,', '  "findings": [']
    assert lines[-2:] == ["  ]", "}"] and text.endswith("}\n")
    body = [json.loads(line.strip().rstrip(",")) for line in lines[3:-2]]
    assert body == entries(project / "b.json")
    assert [list(e) for e in body] == [["path", "code", "source", "occurrence"]] * len(body)
    keys = [(e["path"], e["code"], e["source"], e["occurrence"]) for e in body]
    assert keys == sorted(keys)
    # Writing again with nothing changed gives the same bytes.
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    assert (project / "b.json").read_text(encoding="utf-8") == text


# -- partial runs ------------------------------------------------------------------------


def test_partial_run_leaves_other_files_alone(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    (project / "app" / "guard.py").write_text("def check_input(text):\n    return True\n", encoding="utf-8")
    # pre-commit passes only the changed files: guard.py's entries are stale, tools.py's are not.
    result = run_cli("check", "app/tools.py", "--baseline", "b.json")
    assert result.exit_code == 0 and "warning" not in result.stderr
    result = run_cli("check", "app/guard.py", "--baseline", "b.json")
    assert result.exit_code == 0
    assert "2 baseline entries in b.json no longer match a finding" in result.stderr
    # Writing from a partial run keeps the entries of files it did not check.
    result = run_cli("check", "app/guard.py", "--write-baseline", "b.json")
    assert "wrote 2 findings to b.json (0 added, 2 removed, 2 kept for files or rules not checked in this run)" in result.stderr
    assert {e["path"] for e in entries(project / "b.json")} == {"app/tools.py"}


def test_codes_not_selected_are_not_stale(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    result = run_cli("check", "--select", "AGL301", "--baseline", "b.json")
    assert result.exit_code == 0 and "warning" not in result.stderr
    result = run_cli("check", "--select", "AGL301", "--write-baseline", "b.json")
    assert result.exit_code == 0
    assert len(entries(project / "b.json")) == 4


def test_paths_are_relative_to_the_project_root(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    assert {e["path"] for e in entries(project / "b.json")} == {"app/tools.py", "app/guard.py"}
    # Run from a subfolder: the root is still the folder of pyproject.toml.
    result = run_cli("check", ".", "--baseline", "../b.json", cwd=project / "app")
    assert result.exit_code == 0, result.output
    assert "4 findings are in the baseline" in result.stderr


def test_stdin_uses_the_stdin_filename(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    source = (project / "app" / "tools.py").read_text()
    result = run_cli("check", "-", "--stdin-filename", "app/tools.py", "--baseline", "b.json", input="\n" * 5 + source)
    assert result.exit_code == 0, result.output
    result = run_cli("check", "-", "--stdin-filename", "app/tools.py", "--baseline", "b.json", input=source + SILENT)
    assert result.exit_code == 1


def test_machine_formats_stay_clean(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    (project / "app" / "guard.py").write_text("def check_input(text):\n    return True\n" + SILENT, encoding="utf-8")
    for fmt in ("json", "sarif", "gitlab"):
        result = run_cli("check", "--baseline", "b.json", "--output-format", fmt)
        assert result.exit_code == 1
        json.loads(result.stdout)  # only the report on stdout
        assert "no longer match a finding" in result.stderr
    result = run_cli("check", "--baseline", "b.json", "--output-format", "json")
    assert [d["code"] for d in json.loads(result.stdout)] == ["AGL302"]


def test_quiet_hides_the_count_but_not_stale_entries(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    result = run_cli("check", "-q", "--baseline", "b.json")
    assert result.stderr == ""
    (project / "app" / "guard.py").write_text("x = 1\n", encoding="utf-8")
    result = run_cli("check", "-q", "--baseline", "b.json")
    assert "no longer match a finding" in result.stderr


def test_option_conflicts(run_cli, project):
    for args in (
        ("--baseline", "a.json", "--write-baseline", "a.json"),
        ("--write-baseline", "a.json", "--fix"),
        ("--add-noqa", "--diff"),
    ):
        result = run_cli("check", *args)
        assert result.exit_code == 2, args
        assert "cannot be combined" in result.stderr


# -- bad baseline files ------------------------------------------------------------------

GOOD = '{\n  "agentlint-baseline": 1,\n  "findings": [\n    {"path": "app/tools.py", "code": "AGL302", "source": "except:", "occurrence": 0}\n  ]\n}\n'


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "b.json:1: not valid JSON: Expecting value"),
        (GOOD.replace('"occurrence": 0}', '"occurrence": 0'), "b.json:5: not valid JSON"),
        ("<<<<<<< HEAD\n" + GOOD, "b.json:1: not valid JSON"),
        (GOOD[:-3], "b.json:5: not valid JSON"),
        ("[]\n", "b.json:1: expected a JSON object"),
        (GOOD.replace('"agentlint-baseline": 1,', '"agentlint-baseline": 7,'), "b.json:2: unsupported baseline version 7"),
        (GOOD.replace('"agentlint-baseline": 1,\n', ""), "b.json:1: not an agentlint baseline"),
        (GOOD.replace('"findings"', '"finding"'), "b.json:3: unknown key `finding`; did you mean `findings`?"),
        (GOOD.replace('"findings": [', '"findings": {"a": ['), "not valid JSON"),
        (GOOD.replace('"path": "app/tools.py", ', ""), "b.json:4: the finding has no `path`"),
        (GOOD.replace('"occurrence": 0', '"occurence": 0'), "b.json:4: unknown field `occurence`; did you mean `occurrence`?"),
        (GOOD.replace('"occurrence": 0', '"occurrence": -1'), "b.json:4: `occurrence` must be a whole number >= 0, got -1"),
        (GOOD.replace('"occurrence": 0', '"occurrence": "0"'), "b.json:4: `occurrence` must be a whole number >= 0, got '0'"),
        (GOOD.replace('"occurrence": 0', '"occurrence": true'), "b.json:4: `occurrence` must be a whole number"),
        (GOOD.replace('"occurrence": 0', '"occurrence": 0.5'), "b.json:4: `occurrence` must be a whole number >= 0, got 0.5"),
        (GOOD.replace('"AGL302"', '"agl 302"'), "b.json:4: `code` must be a rule code such as AGL302, got 'agl 302'"),
        (GOOD.replace('"source": "except:"', '"source": null'), "b.json:4: `source` must be a string, got None"),
        (GOOD.replace('"app/tools.py"', '""'), "b.json:4: `path` must be a non-empty string"),
        (GOOD.replace('    {"path', '    "x",\n    {"path'), "b.json:4: each finding must be an object"),
        (
            GOOD.replace("}\n  ]\n", "},\n  ]\n"),
            # Python 3.13's decoder points at the trailing comma itself, older ones at the `]`
            "b.json:4: not valid JSON: Illegal trailing comma" if sys.version_info >= (3, 13) else "b.json:5: not valid JSON",
        ),
        (
            GOOD.replace(
                "\n  ]\n",
                ',\n    {"path": "app/tools.py", "code": "AGL302", "source": "except:", "occurrence": 0}\n  ]\n',
            ),
            "b.json:5: duplicate entry (the same as line 4)",
        ),
    ],
)
def test_corrupt_baseline_names_the_line(run_cli, project, text, expected):
    write(project / "b.json", text)
    result = run_cli("check", "--baseline", "b.json")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("agentlint: error: ")
    assert expected in result.stderr
    assert "Traceback" not in result.output


def test_entry_lines_are_found_in_reformatted_files(run_cli, project):
    entry = {"path": "a.py", "code": "AGL302", "source": "except:", "occurrence": 0}
    data = {"findings": [entry, dict(entry, occurrence="x")], "agentlint-baseline": 1}
    write(project / "b.json", json.dumps(data, indent=4))
    result = run_cli("check", "--baseline", "b.json")
    assert result.exit_code == 2
    starts = [n for n, text in enumerate(json.dumps(data, indent=4).splitlines(), 1) if text == "        {"]
    line = starts[1]
    assert f"b.json:{line}: `occurrence` must be a whole number >= 0, got 'x'" in result.stderr


def test_not_utf8_and_missing(run_cli, project):
    (project / "b.json").write_bytes(GOOD.encode().replace(b"except:", b"except\xff:"))
    result = run_cli("check", "--baseline", "b.json")
    assert result.exit_code == 2 and "b.json:4: not UTF-8 text" in result.stderr
    result = run_cli("check", "--baseline", "missing.json")
    assert result.exit_code == 2 and "missing.json: baseline file not found" in result.stderr


def test_write_baseline_refuses_to_replace_a_corrupt_file(run_cli, project):
    write(project / "b.json", GOOD.replace("AGL302", "nope"))
    result = run_cli("check", "--write-baseline", "b.json")
    assert result.exit_code == 2
    assert "b.json:4: `code` must be a rule code" in result.stderr
    assert "delete the file to write a new one" in result.stderr
    assert "nope" in (project / "b.json").read_text()


def test_hand_edited_entry_that_matches_nothing_is_stale_and_the_finding_new(run_cli, project):
    assert run_cli("check", "--write-baseline", "b.json").exit_code == 0
    text = (project / "b.json").read_text().replace('"source": "except:"', '"source": "except :"')
    (project / "b.json").write_text(text)
    result = run_cli("check", "--baseline", "b.json", "--output-format", "concise")
    assert result.exit_code == 1
    assert [line.split(" ")[:2] for line in concise(result)] == [["app/tools.py:15:5:", "AGL302"]]
    assert "1 baseline entry in b.json no longer matches a finding" in result.stderr


# -- the key function ------------------------------------------------------------------


def diag(path: str, line: int, col: int, end_col: int, code: str = "AGL302", message: str = "m") -> Diagnostic:
    return Diagnostic(code, "n", message, path, Span(Position(line, col), Position(line, end_col)))


def test_finding_keys_and_fingerprints(tmp_path):
    source = "try:\n    pass\nexcept   Exception :\n    pass\ntry:\n    pass\nexcept Exception :\n    pass\n"
    path = str(write(tmp_path / "pkg" / "m.py", source))
    d1, d2 = diag(path, 3, 1, 21), diag(path, 7, 1, 19)
    keys = finding_keys([d2, d1], root=str(tmp_path), read_source=lambda p: source)
    assert keys == [
        FindingKey("pkg/m.py", "AGL302", "except Exception :", 1),
        FindingKey("pkg/m.py", "AGL302", "except Exception :", 0),
    ]
    assert keys[0].fingerprint() != keys[1].fingerprint()
    assert re.fullmatch(r"[0-9a-f]{32}", keys[0].fingerprint())
    # Lines above move nothing.
    moved = "\n\n\n" + source
    again = finding_keys(
        [diag(path, 6, 1, 21), diag(path, 10, 1, 19)], root=str(tmp_path), read_source=lambda p: moved
    )
    assert [k.fingerprint() for k in again] == [keys[1].fingerprint(), keys[0].fingerprint()]


def test_empty_span_uses_the_line_and_long_text_is_hashed(tmp_path):
    long_line = "x = " + " + ".join(f"name_{i}" for i in range(60))
    source = f"import os  # noqa: AGL302\n{long_line}\n"
    empty = Diagnostic("AGL900", "n", "m", "m.py", Span(Position(1, 12), Position(1, 12)))
    wide = Diagnostic("AGL302", "n", "m", "m.py", Span(Position(2, 1), Position(2, len(long_line) + 1)))
    unknown = Diagnostic("AGL002", "n", "m", "gone.py", Span.at_line(1))
    k1, k2, k3 = finding_keys(
        [empty, wide, unknown], root=str(tmp_path), read_source=lambda p: source if p == "m.py" else None
    )
    assert k1.source == "import os # noqa: AGL302"
    assert len(k2.source) < 200 and re.search(r"\.\.\. \[sha256:[0-9a-f]{16}\]$", k2.source)
    assert k3.source == ""


def test_render_parse_round_trip():
    keys = {FindingKey("a.py", "AGL302", 'except "ü":', 0), FindingKey("a.py", "AGL301", "x", 2)}
    text = bl.render(keys)
    assert "ü" in text
    assert set(bl.parse(text).entries) == keys
