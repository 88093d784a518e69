"""Jupyter notebooks: checked like the same code as a `.py` file, reported by cell and line.

fixtures/notebooks/as_py/agent_tools.py and fixtures/notebooks/as_notebook/agent_tools.ipynb
hold the same code (the notebook splits it into cells and adds markdown cells, IPython
magics, shell escapes and a `%%bash` cell); each folder also has the same billing.py, so
the project-wide rule AGL101 sees one duplicate in each.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from agentlint.facts import notebooks

from conftest import FIXTURES

NB_FIXTURES = FIXTURES / "notebooks"
NOTEBOOK = NB_FIXTURES / "as_notebook" / "agent_tools.ipynb"
PYFILE = NB_FIXTURES / "as_py" / "agent_tools.py"


def _json_findings(run_cli, *paths, cwd=None):
    result = run_cli("check", *map(str, paths), "--no-cache", "--output-format", "json", cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _is_ipython(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(("%", "!", "?")) or stripped.endswith("?") or bool(re.match(r"\w+ = !", stripped))


def _cell_to_py_line() -> dict[tuple[int, int], int]:
    """(cell, line in cell) -> line of agent_tools.py, worked out independently of
    agentlint: each code cell's Python lines are a contiguous block of the .py file."""
    py_lines = PYFILE.read_text(encoding="utf-8").split("\n")
    data = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    mapping: dict[tuple[int, int], int] = {}
    for number, cell in enumerate(data["cells"], 1):
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).split("\n")
        if lines[0].startswith("%%") and lines[0] != "%%time":
            continue
        # The fixture's IPython lines all lead their cell.
        first = next(i for i, line in enumerate(lines) if not _is_ipython(line))
        kept = list(enumerate(lines, 1))[first:]
        block = [line for _, line in kept]
        starts = [s for s in range(len(py_lines)) if py_lines[s : s + len(block)] == block]
        assert len(starts) == 1, f"cell {number} is not one block of the .py file"
        for offset, (in_cell, _) in enumerate(kept):
            mapping[(number, in_cell)] = starts[0] + offset + 1
    return mapping


def test_notebook_findings_match_the_same_code_as_a_python_file(run_cli):
    as_nb = _json_findings(run_cli, NOTEBOOK.parent)
    as_py = _json_findings(run_cli, PYFILE.parent)
    mapping = _cell_to_py_line()

    def key(f, line):
        return (f["code"], f["message"], line, f["location"]["column"], f["end_location"]["column"])

    nb_findings = [f for f in as_nb if f["filename"].endswith(".ipynb")]
    assert all(f["cell"] is not None for f in nb_findings)
    got = sorted(key(f, mapping[(f["cell"], f["location"]["row"])]) for f in nb_findings)
    want = sorted(key(f, f["location"]["row"]) for f in as_py if f["filename"].endswith("agent_tools.py"))
    assert got == want
    codes = {f["code"] for f in nb_findings}
    # A tool that calls a model, a silent broad except, a model-supplied id, a cost
    # formula duplicated in another file of the project (a project-wide rule).
    assert {"AGL501", "AGL302", "AGL201", "AGL101"} <= codes
    assert all(f["code"] != "AGL001" for f in as_nb), "IPython magics must not be syntax errors"

    # billing.py's AGL101 names the other copy: in the notebook, by cell and line.
    (billing,) = [f for f in as_nb if f["filename"].endswith("billing.py")]
    (other,) = billing["related"]
    assert other["filename"].endswith("agent_tools.ipynb")
    (py_billing,) = [f for f in as_py if f["filename"].endswith("billing.py")]
    assert mapping[(other["cell"], other["location"]["row"])] == py_billing["related"][0]["location"]["row"]


def test_text_output_locates_by_cell_and_shows_the_cells_lines(run_cli):
    result = run_cli("check", str(NOTEBOOK.parent), "--no-cache", cwd=NB_FIXTURES)
    out = result.stdout
    assert "agent_tools.ipynb:cell 4:7:5: AGL302" in out
    assert "agent_tools.ipynb:cell 6:6:17: AGL501" in out
    # The code frame shows the cell's own lines, the `%%time` magic included.
    frame = out.split("agent_tools.ipynb:cell 7:3:12: AGL101", 1)[1].split("\n\n", 1)[0]
    assert "1 | %%time" in frame and "3 |     return resp.usage.prompt_tokens" in frame
    assert "other place: as_notebook/billing.py:8:12" in frame
    concise = run_cli("check", str(NOTEBOOK), "--no-cache", "--output-format", "concise", cwd=NB_FIXTURES)
    assert "as_notebook/agent_tools.ipynb:cell 8:16:5: AGL302 Bare `except:`" in concise.stdout


def test_noqa_inside_a_cell(tmp_path, run_cli):
    findings = _json_findings(run_cli, NOTEBOOK)
    cell = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"][7]
    lines = "".join(cell["source"]).split("\n")
    noqa_line = next(i for i, line in enumerate(lines, 1) if "# noqa: AGL302" in line)
    assert not [f for f in findings if f["cell"] == 8 and f["location"]["row"] == noqa_line]
    assert not [f for f in findings if f["code"] == "AGL900"]
    # Without the noqa, the same except is reported there.
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert text.count("  # noqa: AGL302") == 1
    (tmp_path / "plain.ipynb").write_text(text.replace("  # noqa: AGL302", ""), encoding="utf-8")
    plain = _json_findings(run_cli, tmp_path / "plain.ipynb")
    assert [f["code"] for f in plain if f["cell"] == 8 and f["location"]["row"] == noqa_line] == ["AGL302"]


def test_noqa_in_a_cell_is_honoured_and_unused_one_is_reported(tmp_path, run_cli):
    source = "try:\n    run()\nexcept Exception:  # noqa: AGL302\n    pass\n"
    unused = "x = 1  # noqa: AGL302\n"
    _write_notebook(tmp_path / "nb.ipynb", [("markdown", "# t"), ("code", "%load_ext foo\n" + source), ("code", unused)])
    findings = _json_findings(run_cli, tmp_path / "nb.ipynb")
    assert [(f["code"], f["cell"], f["location"]["row"]) for f in findings] == [("AGL900", 3, 1)]


def _write_notebook(path: Path, cells, metadata=None, nbformat=4):
    data = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": text, **({"outputs": [], "execution_count": None} if kind == "code" else {})}
            for kind, text in cells
        ],
        "metadata": metadata if metadata is not None else {},
        "nbformat": nbformat,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def test_machine_formats_carry_the_cell(run_cli):
    from test_reporters import assert_valid_sarif

    findings = _json_findings(run_cli, NOTEBOOK)
    broad = [f for f in findings if f["code"] == "AGL302"]
    assert [(f["cell"], f["location"]["row"], f["noqa_row"]) for f in broad] == [(4, 7, 7), (8, 16, 16)]
    result = run_cli("check", str(NOTEBOOK.parent), "--no-cache", "--output-format", "sarif", cwd=NB_FIXTURES)
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    results = log["runs"][0]["results"]
    cells = sorted(
        (r["locations"][0]["properties"]["cell"], r["locations"][0]["properties"]["cellRegion"]["startLine"])
        for r in results
        if r["ruleId"] == "AGL302"
    )
    assert cells == [(4, 7), (8, 16)]
    # the region is in the .ipynb file's own lines (what code scanning shows)
    file_lines = NOTEBOOK.read_text(encoding="utf-8").splitlines()
    cell_sources = [c["source"] for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]]
    for r in results:
        if r["ruleId"] != "AGL302":
            continue
        location = r["locations"][0]
        cell, in_cell = location["properties"]["cell"], location["properties"]["cellRegion"]
        cell_line = "".join(cell_sources[cell - 1]).splitlines()[in_cell["startLine"] - 1]
        region = location["physicalLocation"]["region"]
        written = file_lines[region["startLine"] - 1]
        assert json.loads(written.strip().rstrip(","))[:-1] == cell_line or cell_line in written, (written, cell_line)
        assert written[region["startColumn"] - 1 :].startswith(cell_line[in_cell["startColumn"] - 1 :][:6])
    billing = next(r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("billing.py"))
    assert billing["relatedLocations"][0]["properties"]["cell"] == 7
    python = next(r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("billing.py"))
    assert "properties" not in python["locations"][0]


def test_malformed_notebook_is_reported_and_the_run_goes_on(run_cli):
    result = run_cli("check", str(NB_FIXTURES), "--no-cache", "--output-format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)
    (bad,) = [f for f in findings if f["filename"].endswith("malformed.ipynb")]
    assert bad["code"] == "AGL002" and "not valid notebook JSON" in bad["message"]
    assert any(f["filename"].endswith("agent_tools.ipynb") for f in findings)


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "not valid notebook JSON"),
        (b"[1, 2]", "no `cells` list"),
        (b'{"cells": [], "nbformat": 3}', "nbformat 3 notebooks are not supported"),
        (b'{"cells": []}', "no integer `nbformat`"),
        (b'{"cells": [{"cell_type": "code", "source": 3}], "nbformat": 4}', "cell 1 has a `source`"),
        (b'{"cells": ["x"], "nbformat": 4}', "cell 1 is not a JSON object"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"[" * 100000, "not valid notebook JSON"),
    ],
)
def test_unreadable_notebooks(tmp_path, run_cli, content, reason):
    (tmp_path / "bad.ipynb").write_bytes(content)
    (tmp_path / "ok.py").write_text("try:\n    x()\nexcept:\n    pass\n")
    result = run_cli("check", ".", "--no-cache", "--output-format", "json")
    findings = json.loads(result.stdout)
    (bad,) = [f for f in findings if f["filename"].endswith("bad.ipynb")]
    assert bad["code"] == "AGL002" and reason in bad["message"] and bad["cell"] is None
    assert any(f["filename"].endswith("ok.py") for f in findings)


def test_ipython_lines_are_neutral_and_keep_line_numbers():
    cell = (
        "%pip install x\n"
        "!ls \\\n"
        "  -la\n"
        "files = !ls\n"
        "out = %time f()\n"
        "len?\n"
        "?len\n"
        "x = 5 % 3\n"
        'PROMPT = """\n'
        "%(name)s asked:\n"
        "!important?\n"
        '"""\n'
        "y = (1\n"
        "     % 2)\n"
        "for f in files:\n"
        "    !echo $f\n"
    )
    lines = notebooks.python_lines(cell)
    assert lines == [
        "pass  # IPython",
        "pass  # IPython",
        "pass  # IPython",
        "files = ...  # IPython",
        "out = ...  # IPython",
        "pass  # IPython",
        "pass  # IPython",
        "x = 5 % 3",
        'PROMPT = """',
        "%(name)s asked:",
        "!important?",
        '"""',
        "y = (1",
        "     % 2)",
        "for f in files:",
        "    pass  # IPython",
    ]
    compile("\n".join(lines), "cell", "exec")
    assert notebooks.python_lines("%%bash\nls\n") is None
    assert notebooks.python_lines("\n%%writefile x.py\nimport os\n") is None
    assert notebooks.python_lines("%%time\nimport os\n") == ["pass  # IPython", "import os"]


@pytest.mark.parametrize(
    "cell",
    [
        'config = {\n    "model": "gpt-4.1",\n}\n',
        "history = [\n    {'role': 'user'},\n]\n",
        "system = (\n    'You are terse'\n)\n",
        "time.sleep(\n    1\n)\n",
    ],
)
def test_a_python_line_that_starts_with_a_magic_name_stays_python(cell):
    """`config`, `history`, `system` and `time` are magics too, but followed by `=`, `(`
    or `.` the line is Python, even when it opens a bracket that a later line closes."""
    lines = notebooks.python_lines(cell)
    assert lines == cell.splitlines()
    compile("\n".join(lines), "cell", "exec")
    assert notebooks.python_lines("pip install openai\n") == ["pass  # IPython"]


def test_cells_are_numbered_among_all_cells(tmp_path, run_cli):
    _write_notebook(
        tmp_path / "nb.ipynb",
        [
            ("markdown", "# Title"),
            ("code", "%%bash\nexcept: pass\n"),
            ("raw", "try:\nexcept:\n"),
            ("code", ["import os\n", "try:\n", "    os.remove('x')\n", "except Exception:\n", "    pass"]),
            ("code", ""),
        ],
    )
    findings = _json_findings(run_cli, tmp_path / "nb.ipynb")
    assert [(f["code"], f["cell"], f["location"]["row"]) for f in findings] == [("AGL302", 4, 4)]


def test_non_python_kernels_are_not_checked(tmp_path, run_cli):
    _write_notebook(
        tmp_path / "r.ipynb",
        [("code", "try:\n    x()\nexcept:\n    pass\n")],
        metadata={"kernelspec": {"language": "R", "name": "ir"}, "language_info": {"name": "R"}},
    )
    assert _json_findings(run_cli, tmp_path) == []


def test_syntax_error_in_a_cell_is_located_in_the_cell(tmp_path, run_cli):
    _write_notebook(tmp_path / "nb.ipynb", [("code", "import os\n"), ("markdown", "x"), ("code", "x = 1\ndef f(:\n")])
    findings = _json_findings(run_cli, tmp_path / "nb.ipynb")
    assert [(f["code"], f["cell"], f["location"]["row"]) for f in findings] == [("AGL001", 3, 2)]


def test_one_broken_cell_costs_only_that_cell(tmp_path, run_cli):
    """IPython compiles each cell apart: a cell that does not parse is reported as AGL001
    at its own line, and the findings of the other cells are still reported."""
    swallow = ["import os\n", "try:\n", "    os.remove('x')\n", "except Exception:\n", "    pass"]
    _write_notebook(
        tmp_path / "nb.ipynb",
        [("code", swallow), ("code", "x = 1\nprint(x\n"), ("code", swallow)],
    )
    findings = _json_findings(run_cli, tmp_path / "nb.ipynb")
    assert [(f["code"], f["cell"], f["location"]["row"]) for f in findings] == [
        ("AGL302", 1, 4),
        ("AGL001", 2, 2),
        ("AGL302", 3, 4),
    ]
    assert "other cells were" in findings[1]["message"]


def test_automagic_lines_are_ipython_not_syntax_errors(tmp_path, run_cli):
    """`pip install x` without `%` runs in IPython (automagic); `pip = 3` stays Python."""
    assert notebooks.python_lines("pip install openai\ncd data\nimport os\n") == [
        "pass  # IPython", "pass  # IPython", "import os",
    ]
    assert notebooks.python_lines("pip = 3\nls\ntime.sleep(1)\n") == ["pip = 3", "ls", "time.sleep(1)"]
    _write_notebook(
        tmp_path / "nb.ipynb",
        [("code", "pip install requests\n"), ("code", ["import os\n", "try:\n", "    os.remove('x')\n", "except:\n", "    pass"])],
    )
    findings = _json_findings(run_cli, tmp_path / "nb.ipynb")
    assert [(f["code"], f["cell"]) for f in findings] == [("AGL302", 2)]


def test_stdin_with_a_notebook_name(run_cli):
    result = run_cli(
        "check", "-", "--stdin-filename", "agent_tools.ipynb", "--no-cache", "--output-format", "concise",
        input=NOTEBOOK.read_bytes(),
    )
    assert "agent_tools.ipynb:cell 4:7:5: AGL302" in result.stdout


def test_cached_results_keep_the_cell(tmp_path, run_cli):
    shutil.copytree(NOTEBOOK.parent, tmp_path / "proj")
    first = run_cli("check", "proj", "--output-format", "json")
    second = run_cli("check", "proj", "--output-format", "json")
    assert (tmp_path / "proj" / ".agentlint_cache").exists() or (tmp_path / ".agentlint_cache").exists()
    assert first.stdout == second.stdout
    assert any(f["cell"] == 4 for f in json.loads(second.stdout))


def test_fix_declines_notebooks_and_leaves_them_untouched(tmp_path, run_cli):
    original = (NB_FIXTURES / "pre_ga_fixable.ipynb").read_bytes()
    (tmp_path / "nb.ipynb").write_bytes(original)
    shown = run_cli("check", "nb.ipynb", "--no-cache", "--select", "AGL601", "--output-format", "json")
    fixes = [f["fix"] for f in json.loads(shown.stdout)]
    assert fixes and all(f is not None for f in fixes)
    # The fix's edits are lines of the finding's cell.
    assert {e["location"]["row"] for f in fixes for e in f["edits"]} <= {2, 5}
    result = run_cli("check", "nb.ipynb", "--no-cache", "--select", "AGL601", "--fix")
    assert "nb.ipynb: not fixed: --fix does not rewrite notebooks yet" in result.stderr
    assert result.exit_code == 1
    assert (tmp_path / "nb.ipynb").read_bytes() == original
    diff = run_cli("check", "nb.ipynb", "--no-cache", "--select", "AGL601", "--diff")
    assert diff.stdout == "" and "not fixed" in diff.stderr


def test_fix_across_cells_is_not_offered(tmp_path, run_cli):
    _write_notebook(
        tmp_path / "nb.ipynb",
        [
            ("code", "from agent_framework import FunctionApprovalRequestContent\n"),
            ("code", "def label(request: FunctionApprovalRequestContent) -> str:\n    return request.function_call.name\n"),
        ],
    )
    findings = _json_findings(run_cli, tmp_path / "nb.ipynb")
    assert [f["code"] for f in findings if f["code"] == "AGL601"] == ["AGL601", "AGL601"]
    assert all(f["fix"] is None for f in findings)


def test_folders_include_notebooks_but_not_checkpoints_or_ignored_ones(tmp_path, run_cli):
    cells = [("code", "try:\n    x()\nexcept:\n    pass\n")]
    (tmp_path / ".git").mkdir()
    for name in ("a.ipynb", ".ipynb_checkpoints/a-checkpoint.ipynb", "ignored/b.ipynb", "sub/c.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        _write_notebook(tmp_path / name, cells)
    (tmp_path / ".gitignore").write_text("ignored/\n")
    findings = _json_findings(run_cli, ".")
    assert sorted(Path(f["filename"]).relative_to(tmp_path).as_posix() for f in findings) == ["a.ipynb", "sub/c.ipynb"]
    excluded = _json_findings(run_cli, ".", "--extend-exclude", "sub")
    assert [Path(f["filename"]).name for f in excluded] == ["a.ipynb"]


def test_explain_finds_a_symbol_defined_in_a_notebook(run_cli):
    result = run_cli("explain", "lookup_order", "--no-cache", cwd=NOTEBOOK.parent)
    assert result.exit_code == 0, result.output
    assert "defined at agent_tools.ipynb:cell 4:2" in result.stdout
    assert "agent_tools.ipynb:cell 9:6" in result.stdout  # the agent that uses the tool
    data = json.loads(run_cli("explain", "chat_cost", "--no-cache", "--format", "json", cwd=NOTEBOOK.parent).stdout)
    (definition,) = data["definitions"]
    assert (definition["path"], definition["cell"], definition["line"]) == ("agent_tools.ipynb", 7, 2)
    scoped = run_cli("explain", "agent_tools.ipynb:summarize_orders", "--no-cache", cwd=NOTEBOOK.parent)
    assert "defined at agent_tools.ipynb:cell 6:2" in scoped.stdout


def test_add_noqa_declines_notebooks_and_baseline_keys_read_the_cell(tmp_path) -> None:
    import shutil

    from click.testing import CliRunner

    from agentlint.cli.main import main

    import os

    source = NB_FIXTURES / "as_notebook"
    shutil.copytree(source, tmp_path / "nb")
    before = {p.name: p.read_bytes() for p in (tmp_path / "nb").iterdir() if p.suffix == ".ipynb"}
    old = os.getcwd()
    os.chdir(tmp_path / "nb")
    try:
        result = CliRunner().invoke(main, ["check", ".", "--no-cache", "--add-noqa"])
        assert "does not edit notebooks" in result.stderr
        assert {p.name: p.read_bytes() for p in Path(".").iterdir() if p.suffix == ".ipynb"} == before
        written = CliRunner().invoke(main, ["check", ".", "--no-cache", "--write-baseline", "base.json"])
        assert written.exit_code == 0, written.output
        text = Path("base.json").read_text()
        # the keys hold the cells' code, not the notebook's JSON
        assert "agent_tools.ipynb" in text and "except Exception" in text and '\\"source\\"' not in text
        again = CliRunner().invoke(main, ["check", ".", "--no-cache", "--baseline", "base.json"])
        assert again.exit_code == 0, again.output
    finally:
        os.chdir(old)
