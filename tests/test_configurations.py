"""The nearest configuration holds for each file (as ruff does), through the real CLI:
the order of the paths never changes a result, nested excludes apply to their own
subtree, `--config`/`--isolated` mean one configuration for all, and a run that spans
several configurations still runs the project phase, `--fix`, baselines and
`--add-noqa`. `--show-settings` and `--show-files` say what a run uses."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

SILENT = "try:\n    x()\nexcept Exception:\n    pass\n"
COST = (
    "def {name}(usage, prices):\n"
    "    return usage.prompt_tokens * prices.input + usage.completion_tokens * prices.output\n"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """backend/ switches AGL302 off and excludes its generated/ folder; other/ has no
    configuration of its own (the defaults hold there)."""
    write(tmp_path / "backend" / "pyproject.toml", '[tool.agentlint]\nignore = ["AGL302"]\nextend-exclude = ["generated/"]\n')
    write(tmp_path / "backend" / "app.py", SILENT)
    write(tmp_path / "backend" / "generated" / "stub.py", SILENT)
    write(tmp_path / "other" / "job.py", SILENT)
    write(tmp_path / "other" / "generated" / "kept.py", SILENT)
    return tmp_path


def concise(run_cli, *args, cwd=None):
    result = run_cli("check", "--no-cache", "--output-format", "concise", *args, cwd=cwd)
    lines = [line.split(":")[0] for line in result.stdout.splitlines() if ": AGL" in line]
    return result, sorted(lines)


def test_the_order_of_the_paths_does_not_matter(run_cli, monorepo):
    expected = ["other/generated/kept.py", "other/job.py"]
    first, found = concise(run_cli, "backend", "other")
    assert found == expected, first.output
    second, found = concise(run_cli, "other", "backend")
    assert found == expected, second.output
    # one file at a time gives the same answers (what pre-commit passes)
    assert concise(run_cli, "backend/app.py", "other/job.py")[1] == ["other/job.py"]
    assert concise(run_cli, "other/job.py", "backend/app.py")[1] == ["other/job.py"]
    assert concise(run_cli, "backend/app.py")[0].exit_code == 0


def test_nested_excludes_apply_to_their_own_subtree(run_cli, monorepo):
    result = run_cli("check", "--show-files", cwd=monorepo)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["backend/app.py", "other/generated/kept.py", "other/job.py"]
    # run from inside backend/: its configuration is the working folder's too
    inside = run_cli("check", "--show-files", cwd=monorepo / "backend")
    assert inside.stdout.splitlines() == ["app.py"]


def test_config_and_isolated_mean_one_configuration(run_cli, monorepo):
    write(monorepo / "strict.toml", 'select = ["AGL302"]\n')
    _, found = concise(run_cli, "--config", "strict.toml", "backend", "other")
    assert found == ["backend/app.py", "backend/generated/stub.py", "other/generated/kept.py", "other/job.py"]
    _, found = concise(run_cli, "--isolated", "backend", "other")
    assert found == ["backend/app.py", "backend/generated/stub.py", "other/generated/kept.py", "other/job.py"]


def test_show_settings_names_the_configuration(run_cli, monorepo):
    result = run_cli("check", "--show-settings", "backend/app.py")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Settings for: backend/app.py"
    assert lines[1] == f"Configuration file: {(monorepo / 'backend' / 'pyproject.toml').resolve()}"
    enabled = json.loads(next(line for line in lines if line.startswith("enabled = ")).split(" = ", 1)[1])
    assert "AGL302" not in enabled and "AGL301" in enabled
    assert 'extend-exclude = ["generated/"]' in lines

    other = run_cli("check", "--show-settings", "other/job.py").stdout.splitlines()
    assert other[1] == "Configuration file: none (the defaults)"
    assert "AGL302" in next(line for line in other if line.startswith("enabled = "))
    isolated = run_cli("check", "--isolated", "--show-settings", "backend/app.py").stdout.splitlines()
    assert isolated[1] == "Configuration file: none (--isolated: the defaults)"


def test_output_format_comes_from_the_working_folder(run_cli, monorepo):
    write(monorepo / "backend" / "pyproject.toml", '[tool.agentlint]\noutput-format = "json"\n')
    # from the top (no configuration): the default format, whatever backend/ says
    top = run_cli("check", "--no-cache", "backend")
    assert top.stdout.startswith("backend/app.py:3:1: AGL302"), top.stdout
    inside = run_cli("check", "--no-cache", ".", cwd=monorepo / "backend")
    assert json.loads(inside.stdout)[0]["code"] == "AGL302"


def test_project_phase_runs_per_configuration(run_cli, tmp_path):
    # the same cost formula in two configurations' folders: not a duplicate across
    # them, a duplicate within one
    write(tmp_path / "a" / "agentlint.toml", "")
    write(tmp_path / "a" / "one.py", COST.format(name="one"))
    write(tmp_path / "a" / "two.py", COST.format(name="two"))
    write(tmp_path / "b" / "agentlint.toml", "")
    write(tmp_path / "b" / "three.py", COST.format(name="three"))
    result, found = concise(run_cli, "--select", "AGL101", "a", "b")
    assert found == ["a/one.py", "a/two.py"], result.output


def test_fix_baseline_and_add_noqa_span_configurations(run_cli, tmp_path):
    write(tmp_path / "a" / "agentlint.toml", 'select = ["AGL302"]\n')
    write(tmp_path / "a" / "x.py", SILENT)
    write(tmp_path / "b" / "agentlint.toml", 'select = ["AGL301", "AGL302"]\n')
    write(tmp_path / "b" / "y.py", SILENT)
    written = run_cli("check", "--no-cache", "a", "b", "--write-baseline", "base.json")
    assert written.exit_code == 0, written.output
    entries = json.loads((tmp_path / "base.json").read_text())["findings"]
    assert sorted(e["path"] for e in entries) == ["a/x.py", "b/y.py"]
    checked = run_cli("check", "--no-cache", "a", "b", "--baseline", "base.json")
    assert checked.exit_code == 0, checked.output
    assert "stale" not in checked.output

    # a baseline entry of a rule one configuration does not select is not stale there
    data = json.loads((tmp_path / "base.json").read_text())
    data["findings"].append({"path": "a/x.py", "code": "AGL301", "source": "except Exception:", "occurrence": 0})
    (tmp_path / "base.json").write_text(json.dumps(data))
    again = run_cli("check", "--no-cache", "a", "b", "--baseline", "base.json")
    assert "no longer match" not in again.output, again.output

    added = run_cli("check", "--no-cache", "a", "b", "--add-noqa")
    assert added.exit_code == 0, added.output
    assert "# noqa: AGL302" in (tmp_path / "a" / "x.py").read_text()
    assert "# noqa: AGL302" in (tmp_path / "b" / "y.py").read_text()


def test_fix_spans_configurations(run_cli, tmp_path):
    # AGL601 (pre-GA Agent Framework names) has a safe fix; each folder's own settings
    # decide whether it runs
    source = (
        "from agent_framework import FunctionApprovalRequestContent\n\n\n"
        "def label(request: FunctionApprovalRequestContent) -> str:\n"
        "    return request.function_call.name\n"
    )
    write(tmp_path / "a" / "agentlint.toml", 'select = ["AGL601"]\n')
    write(tmp_path / "a" / "m.py", source)
    write(tmp_path / "b" / "agentlint.toml", 'select = ["AGL302"]\n')
    write(tmp_path / "b" / "m.py", source)
    listed = run_cli("check", "--no-cache", "--output-format", "json", "a", "b")
    codes = {(Path(d["filename"]).parent.name, d["code"]) for d in json.loads(listed.stdout)}
    assert ("a", "AGL601") in codes and not any(folder == "b" for folder, _ in codes), listed.output
    fixed = run_cli("check", "--no-cache", "--fix", "a", "b")
    assert fixed.exit_code == 0, fixed.output
    assert (tmp_path / "a" / "m.py").read_text() != source
    assert (tmp_path / "b" / "m.py").read_text() == source


def test_configuration_lookup_is_cached_per_folder(tmp_path, monkeypatch):
    from agentlint.engine import resolver as resolver_module
    from agentlint.engine.resolver import Resolver
    from agentlint.rules import registry

    write(tmp_path / "pkg" / "agentlint.toml", "")
    for i in range(20):
        write(tmp_path / "pkg" / "deep" / f"m{i}.py", "x = 1\n")
    monkeypatch.chdir(tmp_path)
    looked: list[Path] = []
    real = resolver_module.config_in
    monkeypatch.setattr(resolver_module, "config_in", lambda folder: looked.append(folder) or real(folder))
    resolver = Resolver(rules=registry.all_rules())
    before = len(looked)
    settings = {id(resolver.for_path(f"pkg/deep/m{i}.py")) for i in range(20)}
    assert len(settings) == 1
    assert len(looked) - before == 2  # pkg/deep and pkg, once each (then kept for every file)


# -- paths given explicitly, .git/info/exclude, nothing found ---------------------------


def git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def test_a_folder_named_explicitly_is_walked_even_if_ignored(run_cli, tmp_path):
    git_init(tmp_path)
    write(tmp_path / ".gitignore", "scratch/\n*.log\n")
    write(tmp_path / "scratch" / "agent.py", SILENT)
    write(tmp_path / "scratch" / "deeper" / "more.py", SILENT)
    # not found from the top (ignored) ...
    assert "scratch" not in run_cli("check", "--show-files").stdout
    # ... but walked when named, as ruff does
    result = run_cli("check", "--no-cache", "scratch")
    assert result.exit_code == 1, result.output
    assert "scratch/agent.py:3:1: AGL302" in result.stdout
    assert "scratch/deeper/more.py:3:1: AGL302" in result.stdout
    # patterns that do not name the folder still apply below it
    write(tmp_path / "scratch" / ".gitignore", "deeper/\n")
    assert run_cli("check", "--show-files", "scratch").stdout.splitlines() == ["scratch/agent.py"]
    # --force-exclude (pre-commit) applies the ignores to the paths given too
    forced = run_cli("check", "--no-cache", "--force-exclude", "scratch/agent.py")
    assert forced.exit_code == 0 and "AGL302" not in forced.stdout


def test_an_excluded_folder_named_explicitly_is_walked(run_cli, tmp_path):
    write(tmp_path / "build" / "gen.py", SILENT)
    assert run_cli("check", "--show-files").stdout == ""
    assert run_cli("check", "--show-files", "build").stdout.splitlines() == ["build/gen.py"]
    assert run_cli("check", "--show-files", "--force-exclude", "build").stdout == ""


def test_git_info_exclude_is_honoured(run_cli, tmp_path):
    git_init(tmp_path)
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("local_only.py\n", encoding="utf-8")
    write(tmp_path / "local_only.py", SILENT)
    write(tmp_path / "shared.py", SILENT)
    assert run_cli("check", "--show-files").stdout.splitlines() == ["shared.py"]
    # a .gitignore in the tree wins over info/exclude
    write(tmp_path / ".gitignore", "!local_only.py\n")
    assert run_cli("check", "--show-files").stdout.splitlines() == ["local_only.py", "shared.py"]


def test_nothing_found_says_so(run_cli, tmp_path):
    (tmp_path / "empty").mkdir()
    result = run_cli("check", "empty")
    assert result.exit_code == 0  # as ruff: a warning, not a failure (see docs/ci.md)
    assert "No Python files or notebooks found under the given paths" in result.stderr
    assert "All checks passed!" not in result.stdout
    assert result.stdout == "No files checked.\n"
    # a path that does not exist is a finding (exit 1), as before
    typo = run_cli("check", "emtpy")
    assert typo.exit_code == 1 and "AGL002" in typo.stdout
    # a run that checks files says how many
    write(tmp_path / "empty" / "ok.py", "x = 1\n")
    passed = run_cli("check", "empty")
    assert passed.stdout == "All checks passed! (1 file checked)\n"
    assert "No Python files" not in passed.stderr


# -- stdin, symlinked roots ------------------------------------------------------------


def test_stdin_filename_reads_stdin(run_cli, monorepo):
    # without `-`: stdin is read (it used to lint the working folder instead)
    result = run_cli("check", "--no-cache", "--stdin-filename", "other/new.py", input=SILENT)
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("other/new.py:3:1: AGL302")
    assert "job.py" not in result.stdout
    # the configuration of the name holds
    quiet = run_cli("check", "--no-cache", "--stdin-filename", "backend/new.py", input=SILENT)
    assert quiet.exit_code == 0, quiet.output
    # paths given beside it are ignored, with a warning
    both = run_cli("check", "--no-cache", "--stdin-filename", "x.py", "other", input="x = 1\n")
    assert both.exit_code == 0 and "ignoring other" in both.stderr


def test_a_root_given_through_a_symlink_keeps_its_notebooks(run_cli, tmp_path):
    real = tmp_path / "store" / "analysis"
    write(real / "agent.py", SILENT)
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": SILENT.splitlines(True)}
    write(real / "nb" / "explore.ipynb", json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    project = tmp_path / "project"
    git_init(project)
    write(project / "agentlint.toml", "")
    write(project / ".gitignore", "analysis\n")  # a link to data is often ignored
    os.symlink(real, project / "analysis")
    for given in ("analysis", "analysis/", str(project / "analysis")):
        result = run_cli("check", "--no-cache", "--output-format", "json", given, cwd=project)
        found = sorted((Path(d["filename"]).name, d["cell"]) for d in json.loads(result.stdout))
        assert found == [("agent.py", None), ("explore.ipynb", 1)], (given, result.output)


def test_a_partial_run_compares_what_a_full_run_compares(run_cli, tmp_path):
    # one project (the repository), two configurations: the project rules compare the
    # files of one configuration, in a full run and when pre-commit passes one file
    git_init(tmp_path)
    write(tmp_path / "agentlint.toml", "")
    write(tmp_path / "one.py", COST.format(name="one"))
    write(tmp_path / "sub" / "agentlint.toml", "")
    write(tmp_path / "sub" / "two.py", COST.format(name="two"))
    full, found = concise(run_cli, "--select", "AGL101", ".")
    assert found == [], full.output
    partial, found = concise(run_cli, "--select", "AGL101", "one.py")
    assert found == [], partial.output
    # within one configuration the copies are compared, in a partial run too
    write(tmp_path / "three.py", COST.format(name="three"))
    partial, found = concise(run_cli, "--select", "AGL101", "one.py")
    assert found == ["one.py"], partial.output


def test_folders_resolve_through_links_as_realpath_does(tmp_path, monkeypatch):
    # the resolver builds a folder's real path from its parent's (one `lstat` per
    # folder); through links, chains of links and dangling parts it must say what
    # `os.path.realpath` says, or a configuration is looked up in the wrong place
    from agentlint.engine.resolver import Resolver
    from agentlint.rules import registry

    store = tmp_path / "store"
    (store / "deep" / "er").mkdir(parents=True)
    (tmp_path / "repo").mkdir()
    os.symlink(store, tmp_path / "repo" / "linked")
    os.symlink(tmp_path / "repo" / "linked" / "deep", tmp_path / "hop")  # a link to a path through a link
    os.symlink("store/deep", tmp_path / "relative")
    monkeypatch.chdir(tmp_path)
    resolver = Resolver(rules=registry.all_rules())
    folders = [
        tmp_path / "repo" / "linked" / "deep" / "er",
        tmp_path / "repo" / "linked",
        tmp_path / "hop" / "er",
        tmp_path / "relative" / "er",
        tmp_path / "repo" / "missing" / "below",
        tmp_path / "repo",
        Path(tmp_path.anchor),
    ]
    for folder in folders:
        assert resolver._real(str(folder)) == os.path.realpath(folder), folder
    # asked again (memoised), the answers hold
    assert [resolver._real(str(f)) for f in folders] == [os.path.realpath(f) for f in folders]


def test_a_configuration_behind_a_linked_folder_holds(run_cli, tmp_path):
    # the nearest configuration of a file in a linked folder is the one above its
    # real place, as before the resolver memoised real paths
    real = tmp_path / "store" / "quiet"
    write(real.parent / "agentlint.toml", 'ignore = ["AGL302"]\n')
    write(real / "agent.py", SILENT)
    project = tmp_path / "project"
    write(project / "agentlint.toml", "")
    os.symlink(real, project / "quiet")
    write(project / "loud" / "agent.py", SILENT)
    result = run_cli("check", "--no-cache", "--output-format", "concise", "quiet/agent.py", "loud/agent.py", cwd=project)
    assert "loud/agent.py" in result.stdout and "quiet/agent.py" not in result.stdout, result.output
