"""Hostile input and faults, through the real command line: nothing hangs, nothing of the
user's is damaged, a crash is one diagnostic and exits 2 (never 1, which means
"findings")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentlint.cli.main import main
from agentlint.engine import analyze

SILENT = "try:\n    x = 1\nexcept Exception:\n    pass\n"
POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs and symlinks")


def run(agentlint_exe: str, *args: str, cwd: Path, timeout: float = 60, input: bytes | None = None):
    """The console script as a subprocess with a bound: a hang fails the test."""
    return subprocess.run(
        [agentlint_exe, *args], cwd=cwd, capture_output=True, timeout=timeout, input=input,
        env={**os.environ, "NO_COLOR": "1"},
    )


def findings(proc) -> list[dict]:
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return json.loads(proc.stdout)


def codes_by_file(items: list[dict]) -> set[tuple[str, str]]:
    return {(os.path.basename(f["filename"]), f["code"]) for f in items}


# -- 1. hangs and unbounded reads ---------------------------------------------------------


@POSIX
def test_fifos_and_devices_are_not_read(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    os.mkfifo(tmp_path / "pipe.py")
    os.symlink(tmp_path / "pipe.py", tmp_path / "via_link.py")
    os.symlink("/dev/zero", tmp_path / "zero.py")
    for args in (["."], ["pipe.py", "good.py"], ["via_link.py", "good.py"], ["zero.py", "good.py"]):
        proc = run(agentlint_exe, "check", *args, "--no-cache", "--output-format", "json", cwd=tmp_path)
        found = codes_by_file(findings(proc))
        assert ("good.py", "AGL302") in found, args
    folder_run = findings(run(agentlint_exe, "check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path))
    reasons = {os.path.basename(f["filename"]): f["message"] for f in folder_run if f["code"] == "AGL002"}
    assert "regular file" in reasons["pipe.py"]
    # the link to /dev/zero points outside the project: never followed, never read
    assert "outside" in reasons["zero.py"]


@POSIX
def test_tools_and_fix_do_not_hang_on_a_fifo(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    os.mkfifo(tmp_path / "pipe.py")
    assert run(agentlint_exe, "tools", ".", "--no-cache", cwd=tmp_path).returncode in (0, 1)
    assert run(agentlint_exe, "calls", ".", "--no-cache", cwd=tmp_path).returncode in (0, 1)
    assert run(agentlint_exe, "check", ".", "--fix", "--no-cache", cwd=tmp_path).returncode in (0, 1)
    assert run(agentlint_exe, "check", "pipe.py", "--fix", "--no-cache", cwd=tmp_path).returncode in (0, 1)


@POSIX
def test_explain_does_not_hang_on_fifos(tmp_path, agentlint_exe):
    (tmp_path / "prompts.py").write_text('SYSTEM_PROMPT = "You are a helpful assistant."\n')
    os.mkfifo(tmp_path / "notes.md")
    os.mkfifo(tmp_path / "pipe.py")
    proc = run(agentlint_exe, "explain", "SYSTEM_PROMPT", "--no-cache", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr.decode()


def test_a_file_over_the_limit_is_not_read(tmp_path, agentlint_exe):
    (tmp_path / "agentlint.toml").write_text("max-file-size = 1000\n")
    (tmp_path / "big.py").write_text("x = 1\n" * 400)
    proc = run(agentlint_exe, "check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    [item] = findings(proc)
    assert item["code"] == "AGL002" and "max-file-size" in item["message"]


@POSIX
def test_a_cache_entry_that_is_not_a_regular_file_is_a_miss(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    first = run(agentlint_exe, "check", ".", "--cache-dir", "c", "--output-format", "json", cwd=tmp_path)
    entries = [p for p in (tmp_path / "c").rglob("*.json")]
    assert entries
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    again = run(agentlint_exe, "check", ".", "--cache-dir", "c", "--output-format", "json", cwd=tmp_path)
    assert findings(again) == findings(first)


# -- 7. symlinks out of the tree ------------------------------------------------------------


@POSIX
def test_symlinks_out_of_the_tree_are_not_followed(tmp_path, agentlint_exe):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("TOKEN = 'do not print me'\n" + SILENT)
    project = tmp_path / "project"
    project.mkdir()
    (project / "good.py").write_text(SILENT)
    os.symlink(outside / "secret.py", project / "leak.py")
    (project / "inner.py").write_text(SILENT)
    os.symlink(project / "inner.py", project / "alias.py")  # inside the tree: followed once
    for args in (["."], ["leak.py", "good.py"]):
        proc = run(agentlint_exe, "check", *args, "--no-cache", cwd=project)
        out = proc.stdout.decode()
        assert "do not print me" not in out
        assert "leak.py" in out and "outside" in out
        assert "good.py" in out


# -- 2. the user's files are never damaged --------------------------------------------------


@pytest.mark.parametrize("cache_dir", [".", "..", "src"])
def test_cache_never_writes_into_a_folder_it_does_not_own(tmp_path, agentlint_exe, cache_dir):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "good.py").write_text(SILENT)
    (project / ".gitignore").write_text("build/\n")
    (tmp_path / "keep.txt").write_text("mine\n")
    proc = run(agentlint_exe, "check", ".", "--cache-dir", cache_dir, "--output-format", "json", cwd=project)
    assert ("good.py", "AGL302") in codes_by_file(findings(proc))
    assert "is not an agentlint cache" in proc.stderr.decode()
    assert proc.stderr.decode().count("is not an agentlint cache") == 1
    assert (project / ".gitignore").read_text() == "build/\n"
    assert not (project / "CACHEDIR.TAG").exists() and not (tmp_path / "CACHEDIR.TAG").exists()
    assert not (project / "src" / "CACHEDIR.TAG").exists()
    again = run(agentlint_exe, "check", ".", "--cache-dir", cache_dir, "--output-format", "json", cwd=project)
    assert ("good.py", "AGL302") in codes_by_file(findings(again)), "a later run still checks the files"
    before = sorted(p.name for p in project.iterdir())
    answer = run(agentlint_exe, "explain", "x", ".", "--cache-dir", cache_dir, cwd=project)
    assert answer.returncode == 0, answer.stderr.decode()
    assert (project / ".gitignore").read_text() == "build/\n"
    assert sorted(p.name for p in project.iterdir()) == before, "explain keeps its index out of a folder it does not own"


def test_cache_claims_a_new_or_empty_folder(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    (tmp_path / "empty").mkdir()
    for folder in ("fresh", "empty"):
        proc = run(agentlint_exe, "check", "good.py", "--cache-dir", folder, cwd=tmp_path)
        assert proc.returncode == 1 and not proc.stderr
        assert "agentlint" in (tmp_path / folder / "CACHEDIR.TAG").read_text()


RENAMES = "from agent_framework import ChatAgent\n\nagent = ChatAgent(None)\n"


def _fix(agentlint_exe, cwd, *paths):
    return run(agentlint_exe, "check", *paths, "--fix", "--no-cache", "--isolated", "--select", "AGL602", cwd=cwd)


@POSIX
def test_fix_keeps_owner_mode_and_hard_links(tmp_path, agentlint_exe):
    path = tmp_path / "a.py"
    path.write_text(RENAMES)
    os.chmod(path, 0o640)
    os.link(path, tmp_path / "b_link.py")
    before = path.stat()
    _fix(agentlint_exe, tmp_path, "a.py")
    after = path.stat()
    assert "ChatAgent" not in path.read_text()
    assert (after.st_uid, after.st_gid, after.st_mode) == (before.st_uid, before.st_gid, before.st_mode)
    assert after.st_ino == before.st_ino and (tmp_path / "b_link.py").read_text() == path.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "b_link.py"]


@POSIX
def test_fix_skips_read_only_files_and_links_out_of_the_tree(tmp_path, agentlint_exe):
    project = tmp_path / "project"
    project.mkdir()
    ro = project / "ro.py"
    ro.write_text(RENAMES)
    os.chmod(ro, 0o444)
    outside = tmp_path / "elsewhere.py"
    outside.write_text(RENAMES)
    os.symlink(outside, project / "link.py")
    proc = _fix(agentlint_exe, project, "ro.py", "link.py")
    err = proc.stderr.decode()
    assert "ro.py: not fixed: the file is read-only" in err
    assert ro.read_text() == RENAMES and outside.read_text() == RENAMES
    assert "link.py" in proc.stdout.decode()  # reported, not followed


def test_fix_leaves_a_file_that_changed_meanwhile(run_cli, tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_text(RENAMES)
    import agentlint.engine.fixes as fixes

    real = fixes._current
    calls = []

    def edited_meanwhile(target):
        calls.append(target)
        if len(calls) == 2:  # just before the rename: someone saved the file
            path.write_text(RENAMES + "# edited\n")
        return real(target)

    monkeypatch.setattr(fixes, "_current", edited_meanwhile)
    result = run_cli("check", "a.py", "--fix", "--no-cache", "--isolated", "--select", "AGL602")
    assert "changed while it was being fixed" in result.stderr
    assert path.read_text() == RENAMES + "# edited\n"


# -- 4. never running the checked repository's code -------------------------------------------


def test_python_dash_m_does_not_import_the_checked_folder(tmp_path):
    for name in ("click", "json", "ast", "tokenize", "libcst", "pathspec", "tomllib", "networkx"):
        (tmp_path / f"{name}.py").write_text(f"open({str(tmp_path / ('MARKER-' + name))!r}, 'w').close()\n")
    (tmp_path / "agent.py").write_text(SILENT)
    for args in (["check", "."], ["tools", "."], ["calls", "."], ["explain", "SILENT", "."], ["rule", "AGL302"]):
        extra = [] if args[0] == "rule" else ["--no-cache"]
        proc = subprocess.run(
            [sys.executable, "-m", "agentlint", *args, *extra], cwd=tmp_path, capture_output=True, timeout=120
        )
        assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr, proc.stderr.decode()
        assert not list(tmp_path.glob("MARKER-*")), f"{args}: the checked folder's modules were imported"


# -- 5. output injection and file names that are not UTF-8 -----------------------------------


@POSIX
@pytest.mark.parametrize("fmt", ["full", "concise", "json", "json-lines", "sarif", "github", "gitlab"])
def test_hostile_file_names_are_escaped_and_never_crash(tmp_path, agentlint_exe, fmt):
    os.chdir(tmp_path)
    for name in (b"bad\xff.py", "new\nline.py".encode(), "esc\x1b[31mred.py".encode(), "::error file=x::y.py".encode()):
        with open(name, "wb") as fh:
            fh.write(SILENT.encode())
    proc = run(agentlint_exe, "check", ".", "--no-cache", "--output-format", fmt, "-o", "report.out", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr.decode()
    text = (tmp_path / "report.out").read_bytes().decode("utf-8")  # valid UTF-8
    assert "\x1b" not in text
    if fmt in ("full", "concise"):
        assert "bad\\xff.py" in text and "new\\nline.py" in text and "esc\\x1b[31mred.py" in text
        assert not [line for line in text.splitlines() if line.startswith("line.py")], "a name forged a line"
    if fmt == "github":
        assert all(line.startswith("::error ") for line in text.splitlines())
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(text)


@POSIX
def test_baseline_with_a_file_name_that_is_not_utf8(tmp_path, agentlint_exe):
    with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.py"), "wb") as fh:
        fh.write(b"PROMPT = 'x'\n" + SILENT.encode())
    assert run(agentlint_exe, "check", ".", "--no-cache", "--write-baseline", "b.json", cwd=tmp_path).returncode == 0
    proc = run(agentlint_exe, "check", ".", "--no-cache", "--baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    for extra in ((), ("--format", "json")):
        # twice: the second answer comes from the index the first one wrote
        for _ in range(2):
            proc = run(agentlint_exe, "explain", "PROMPT", ".", *extra, cwd=tmp_path)
            assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr.decode()
            assert b"bad" in proc.stdout


# -- 6. a crash is one diagnostic, and exits 2 ------------------------------------------------


def test_notebooks_that_python_cannot_load_are_agl002(tmp_path, agentlint_exe):
    huge = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x = 1", "execution_count": ' + "9" * 5000 + "}]}"
    (tmp_path / "huge.ipynb").write_text(huge)
    (tmp_path / "surrogate.ipynb").write_text('{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x = \\"\\ud800\\""}]}')
    (tmp_path / "good.py").write_text(SILENT)
    found = codes_by_file(findings(run(agentlint_exe, "check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)))
    assert {("huge.ipynb", "AGL002"), ("surrogate.ipynb", "AGL002"), ("good.py", "AGL302")} <= found


def test_explain_names_a_file_whose_facts_crashed_and_answers(tmp_path, monkeypatch):
    (tmp_path / "prompts.py").write_text('PROMPT = "You are a support agent"\n')
    (tmp_path / "agent.py").write_text("from prompts import PROMPT\n\ndef run():\n    return PROMPT\n")
    real = analyze.facts_only

    def broken(path, text, settings):
        if path.endswith("agent.py"):
            raise RuntimeError("boom")
        return real(path, text, settings)

    monkeypatch.setattr(analyze, "facts_only", broken)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "PROMPT", ".", "--no-cache", "-j", "1"])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    assert "agent.py: internal error" in result.stderr and "RuntimeError: boom" in result.stderr
    assert "prompts.py:1" in result.stdout, "the answer goes on with the other files"


def test_pyproject_shapes_are_config_errors_not_crashes(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    for text, message in (
        ("[tool]\nagentlint = 5\n", "must be a table"),
        ("[tool.agentlint]\nselect = [\n", "invalid TOML"),
    ):
        (tmp_path / "pyproject.toml").write_text(text)
        proc = run(agentlint_exe, "check", ".", "--no-cache", cwd=tmp_path)
        assert proc.returncode == 2 and message in proc.stderr.decode() and b"Traceback" not in proc.stderr
        assert "pyproject.toml" in proc.stderr.decode()
    (tmp_path / "pyproject.toml").write_text("tool = 5\n")  # no agentlint table: not ours
    assert run(agentlint_exe, "check", ".", "--no-cache", cwd=tmp_path).returncode == 1


def test_wrong_shaped_cache_entries_and_baselines(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    first = findings(run(agentlint_exe, "check", ".", "--cache-dir", "c", "--output-format", "json", cwd=tmp_path))
    for i, entry in enumerate(sorted((tmp_path / "c").rglob("*.json"))):
        if entry.name in ("stat-index.json", "project-phase.json"):
            entry.write_text("[" * 100000)
            continue
        key = json.loads(entry.read_text().split("\n")[0])["key"]  # the first line holds the key
        entry.write_text(["[" * 100000, json.dumps({"key": key, "diagnostics": 5, "facts": []})][i % 2])
    again = findings(run(agentlint_exe, "check", ".", "--cache-dir", "c", "--output-format", "json", cwd=tmp_path))
    assert again == first
    (tmp_path / "b.json").write_text("[" * 100000)
    proc = run(agentlint_exe, "check", ".", "--no-cache", "--baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 2 and "b.json" in proc.stderr.decode() and b"Traceback" not in proc.stderr


def test_output_file_into_a_missing_folder_and_onto_a_full_disk(tmp_path, agentlint_exe):
    (tmp_path / "good.py").write_text(SILENT)
    proc = run(agentlint_exe, "check", ".", "--no-cache", "--output-format", "sarif", "-o", "out/deep/report.sarif", cwd=tmp_path)
    assert proc.returncode == 1 and json.loads((tmp_path / "out" / "deep" / "report.sarif").read_text())
    if os.path.exists("/dev/full"):
        proc = run(agentlint_exe, "check", ".", "--no-cache", "-o", "/dev/full", cwd=tmp_path)
        assert proc.returncode == 2 and "cannot write the report" in proc.stderr.decode()


def test_a_crash_outside_any_rule_exits_2(run_cli, tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text(SILENT)
    import agentlint.engine.finalize as finalize_module

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(finalize_module, "apply_suppressions", broken)
    result = run_cli("check", ".", "--no-cache")
    assert result.exit_code == 2
    assert "internal error: RuntimeError: boom" in result.stderr


def test_a_fact_crash_in_a_file_not_given_is_reported_there(run_cli, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "a.py").write_text("PROMPT = 'You are a careful assistant who answers questions.'\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    import agentlint.engine.analyze as analyze

    real = analyze.extract_facts

    def crash_on_b(path, tree, source=None, **options):
        if path.endswith("b.py"):
            raise RuntimeError("boom")
        return real(path, tree, source, **options)

    monkeypatch.setattr(analyze, "extract_facts", crash_on_b)
    result = run_cli("check", "a.py", "--no-cache", "--output-format", "json")
    assert result.exit_code == 2, result.output
    items = json.loads(result.stdout)
    assert [(os.path.basename(i["filename"]), i["code"]) for i in items] == [("b.py", "AGL003")]


# -- 8. should be right too -------------------------------------------------------------------


def test_what_cpython_compiles_is_not_a_syntax_error(tmp_path, agentlint_exe):
    (tmp_path / "continued.py").write_bytes(b"try:\r\n    x = 1\r\nexcept Exception:\r\n    pass\r\ny = 2 \\\r\n")
    chain = "x = 0\nif x == 0:\n    pass\n" + "".join(f"elif x == {i}:\n    pass\n" for i in range(1, 1000))
    (tmp_path / "chain.py").write_text(chain)
    for name in ("continued.py", "chain.py"):
        try:
            compile((tmp_path / name).read_bytes(), name, "exec")
        except SyntaxError:
            # CPython 3.12+ rejects the final backslash continuation that 3.11 compiles;
            # agentlint reads the file the same way on every version (LibCST accepts it)
            assert name == "continued.py", name
    found = codes_by_file(findings(run(agentlint_exe, "check", ".", "--no-cache", "--select", "ALL", "--output-format", "json", cwd=tmp_path)))
    assert found == {("continued.py", "AGL302")}


def test_many_findings_in_one_module_cost_linear_time(tmp_path):
    """Reports are positioned with one pass per body, not one pass per report: the
    work counted here (statements visited to place every report) grows linearly."""
    import ast as stdlib_ast

    import libcst

    from agentlint.engine import cst_pass

    visited = []
    real = cst_pass._ast_indexes

    def counting(statements):
        visited.append(len(statements))
        return real(statements)

    cst_pass._ast_indexes = counting
    try:
        for n in (200, 800):
            text = "".join(f"try:\n    x{i} = 1\nexcept Exception:\n    pass\n" for i in range(n))
            module, tree = libcst.parse_module(text), stdlib_ast.parse(text)
            visited.clear()
            chains = [(module, stmt, stmt.handlers[0]) for stmt in module.body]
            positions = cst_pass._anchored_positions(module, tree, chains)
            assert len(positions) >= n
            assert sum(visited) == n  # the module body, indexed once
    finally:
        cst_pass._ast_indexes = real


def test_jobs_are_capped(tmp_path, agentlint_exe):
    (tmp_path / "a.py").write_text(SILENT)
    proc = run(agentlint_exe, "check", ".", "--no-cache", "-j", "100000", cwd=tmp_path)
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr


def test_init_keeps_a_crlf_pyproject_crlf(tmp_path, agentlint_exe):
    (tmp_path / "pyproject.toml").write_bytes(b'[project]\r\nname = "x"\r\n')
    (tmp_path / "a.py").write_text("import openai\n")
    assert run(agentlint_exe, "init", ".", cwd=tmp_path).returncode == 0
    data = (tmp_path / "pyproject.toml").read_bytes()
    assert b"[tool.agentlint]" in data and data.count(b"\n") == data.count(b"\r\n")


@pytest.mark.parametrize(
    "toml, message",
    [
        ("max-file-size = -1\n", "positive integer"),
        ("max-file-size = 1.5\n", "positive integer"),
        ("[rules.AGL302]\nlogger-objects = 3\n", "list of strings"),
        ("respect-gitignore = 'yes'\n", "true or false"),
    ],
)
def test_config_values_are_validated(tmp_path, agentlint_exe, toml, message):
    (tmp_path / "agentlint.toml").write_text(toml)
    (tmp_path / "a.py").write_text(SILENT)
    proc = run(agentlint_exe, "check", ".", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr.decode(), proc.stderr.decode()


def test_explain_names_the_notebook_cells_it_left_out(tmp_path, agentlint_exe):
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
        for source in ('PROMPT = "You are a careful travel agent"\n', "def broken(:\n", "def run():\n    return PROMPT\n")
    ]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}}, "cells": cells}
    (tmp_path / "agent.ipynb").write_text(json.dumps(notebook))
    proc = run(agentlint_exe, "explain", "PROMPT", ".", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert "agent.ipynb: cell 2 does not parse" in proc.stderr.decode()
    assert b"run" in proc.stdout, "the other cells are in the graph"
