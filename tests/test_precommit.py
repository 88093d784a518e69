"""The pre-commit hook, exercised end to end with the real `pre-commit`.

A throwaway clone of this project (only the files pre-commit consumes) plays
the hook repository; a second throwaway git repository plays the user's
project.  Both `pre-commit try-repo` and the real flow (`.pre-commit-config.yaml`
+ `pre-commit install` + `git commit`) are shown to block a silent broad
`except` (AGL302) and to let it through once it carries `# noqa: AGL302`.

Nothing here depends on the state of this checkout's own git repository: the
clone is built from the files on disk, committed or not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

# Installing the hook environment (a virtualenv plus libcst, click, ... from
# PyPI) can take a while on a cold cache.
TIMEOUT = 900

# What pre-commit needs from the project to `pip install .` it and find the hook.
REQUIRED_FILES = ("pyproject.toml", ".pre-commit-hooks.yaml")
OPTIONAL_FILES = ("README.md", "LICENSE", "LICENSE.txt", "MANIFEST.in", "setup.cfg", "setup.py")
PACKAGE_DIR = "agentlint"

SILENT_EXCEPT = "try:\n    x()\nexcept Exception:\n    pass\n"
SUPPRESSED_EXCEPT = "try:\n    x()\nexcept Exception:  # noqa: AGL302\n    pass\n"

pytestmark = pytest.mark.skipif(
    not PRE_COMMIT.exists() or shutil.which("git") is None,
    reason="needs the pre-commit executable next to the interpreter and git on PATH",
)


# --------------------------------------------------------------------- helpers


def _run(args, cwd, env, check=True):
    """Run a command, returning the CompletedProcess with stdout+stderr merged."""
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=str(cwd),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"command {args!r} in {cwd} exited {proc.returncode}:\n{proc.stdout}"
        )
    return proc


def _git(env, cwd, *args, check=True):
    return _run(["git", *args], cwd, env, check=check)


def _head(env, repo: Path) -> str | None:
    proc = _git(env, repo, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _committed_files(env, repo: Path) -> set[str]:
    out = _git(env, repo, "ls-tree", "-r", "--name-only", "HEAD").stdout
    return set(out.split())


# -------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def env(tmp_path_factory) -> dict[str, str]:
    """An environment that isolates git and pre-commit from the developer's setup.

    * GIT_CONFIG_GLOBAL points at an empty file and GIT_CONFIG_NOSYSTEM is set,
      so global hooks (core.hooksPath), signing, templates etc. do not apply;
      settings that must hold even inside pre-commit's own git calls (which
      strip most GIT_* variables but keep GIT_CONFIG_COUNT/KEY/VALUE) are passed
      that way.
    * PRE_COMMIT_HOME is one session-wide directory, so the installed git hook
      builds the hook environment once and reuses it.
    * HOME is left alone so pip keeps its cache and any index configuration.
    """
    base = tmp_path_factory.mktemp("precommit-env")
    gitconfig = base / "gitconfig"
    gitconfig.write_text("")

    e = {
        k: v
        for k, v in os.environ.items()
        # Leftovers from running inside a git hook, or settings that would
        # change what pre-commit does.
        if not k.startswith(("GIT_", "PRE_COMMIT")) and k not in {"FORCE_COLOR", "SKIP"}
    }
    settings = {
        "commit.gpgsign": "false",
        "tag.gpgsign": "false",
        "init.defaultBranch": "main",
        "core.autocrlf": "false",
        "advice.detachedHead": "false",
    }
    e.update(
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_COUNT=str(len(settings)),
        GIT_AUTHOR_NAME="agentlint tests",
        GIT_AUTHOR_EMAIL="tests@agentlint.invalid",
        GIT_COMMITTER_NAME="agentlint tests",
        GIT_COMMITTER_EMAIL="tests@agentlint.invalid",
        GIT_TERMINAL_PROMPT="0",
        PRE_COMMIT_HOME=str(base / "pre-commit-home"),
        PRE_COMMIT_COLOR="never",
        NO_COLOR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    for i, (key, value) in enumerate(settings.items()):
        e[f"GIT_CONFIG_KEY_{i}"] = key
        e[f"GIT_CONFIG_VALUE_{i}"] = value
    return e


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory, env) -> tuple[Path, str]:
    """A fresh git repository holding this project as pre-commit consumes it.

    Returns (path, sha of HEAD).
    """
    missing = [name for name in (*REQUIRED_FILES, PACKAGE_DIR) if not (ROOT / name).exists()]
    if missing:
        pytest.fail(f"project files missing for the pre-commit hook: {missing}")

    clone = tmp_path_factory.mktemp("agentlint-hook-repo")
    for name in (*REQUIRED_FILES, *OPTIONAL_FILES):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, clone / name)
    shutil.copytree(
        ROOT / PACKAGE_DIR,
        clone / PACKAGE_DIR,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".agentlint_cache", "*.egg-info"),
    )
    if not (clone / "README.md").exists():
        # pyproject.toml names README.md as the readme; keep `pip install .`
        # working if it has not been written yet.
        (clone / "README.md").write_text("# agentlint\n")

    _git(env, clone, "init", "-q")
    _git(env, clone, "add", "-A")
    _git(env, clone, "commit", "-q", "--no-verify", "-m", "agentlint hook repo")
    return clone, _head(env, clone)


@pytest.fixture
def user_repo(tmp_path, env) -> Path:
    """An empty-ish user project: a git repository with one initial commit."""
    repo = tmp_path / "user-project"
    repo.mkdir()
    _git(env, repo, "init", "-q")
    (repo / ".gitignore").write_text(".agentlint_cache/\n")
    _git(env, repo, "add", ".gitignore")
    _git(env, repo, "commit", "-q", "--no-verify", "-m", "initial")
    return repo


def _install_hook(env, repo: Path, hook_repo: tuple[Path, str]) -> None:
    """Point the user repo at the hook repo and install the git hook."""
    path, sha = hook_repo
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {path.as_posix()}\n"
        f"    rev: {sha}\n"
        "    hooks:\n"
        "      - id: agentlint\n"
    )
    _git(env, repo, "add", ".pre-commit-config.yaml")
    _git(env, repo, "commit", "-q", "--no-verify", "-m", "add pre-commit config")
    _run([PRE_COMMIT, "install"], repo, env)
    assert (repo / ".git" / "hooks" / "pre-commit").is_file()


def _try_repo(env, repo: Path, hook_repo: tuple[Path, str], filename: str):
    path, _ = hook_repo
    return _run(
        [PRE_COMMIT, "try-repo", path, "agentlint", "--files", filename, "--color", "never", "--verbose"],
        repo,
        env,
        check=False,
    )


# ----------------------------------------------------------------------- tests


def test_silent_broad_except_is_blocked(env, hook_repo, user_repo):
    (user_repo / "agent.py").write_text(SILENT_EXCEPT)

    # pre-commit try-repo, as the project's README/issue documents.
    tried = _try_repo(env, user_repo, hook_repo, "agent.py")
    assert tried.returncode != 0, tried.stdout
    assert "AGL302" in tried.stdout, tried.stdout
    assert "agentlint" in tried.stdout and "Failed" in tried.stdout, tried.stdout

    # The real flow: config + `pre-commit install` + `git commit`.
    _install_hook(env, user_repo, hook_repo)
    before = _head(env, user_repo)
    _git(env, user_repo, "add", "agent.py")
    committed = _git(env, user_repo, "commit", "-m", "add agent", check=False)

    assert committed.returncode != 0, committed.stdout
    assert "AGL302" in committed.stdout, committed.stdout
    assert _head(env, user_repo) == before, "the commit went through despite the hook"
    assert "agent.py" not in _committed_files(env, user_repo)


def test_noqa_lets_the_commit_through(env, hook_repo, user_repo):
    (user_repo / "agent.py").write_text(SUPPRESSED_EXCEPT)

    tried = _try_repo(env, user_repo, hook_repo, "agent.py")
    assert tried.returncode == 0, tried.stdout
    assert "AGL302" not in tried.stdout, tried.stdout
    # The hook really ran on the file (not "(no files to check)Skipped").
    assert "Passed" in tried.stdout and "Skipped" not in tried.stdout, tried.stdout

    _install_hook(env, user_repo, hook_repo)
    before = _head(env, user_repo)
    _git(env, user_repo, "add", "agent.py")
    committed = _git(env, user_repo, "commit", "-m", "add agent", check=False)

    assert committed.returncode == 0, committed.stdout
    assert "agentlint" in committed.stdout and "Passed" in committed.stdout, committed.stdout
    assert "Skipped" not in committed.stdout, committed.stdout
    assert _head(env, user_repo) != before
    assert "agent.py" in _committed_files(env, user_repo)


COST_IN_BILLING = (
    "def invoice_cost(usage, prices):\n"
    "    return usage.prompt_tokens * prices.input + usage.completion_tokens * prices.output\n"
)
COST_IN_AGENT = (
    "def run(client, prices):\n"
    "    resp = client.chat.completions.create(model='gpt-4o', messages=[])\n"
    "    cost = resp.usage.prompt_tokens * prices.input + resp.usage.completion_tokens * prices.output\n"
    "    return resp, cost\n"
)


def test_changed_file_duplicating_an_unchanged_one_is_blocked(env, hook_repo, user_repo):
    # A project-wide rule on a partial run: pre-commit passes only agent.py, the copy
    # of the cost formula it duplicates is in billing.py, committed earlier.
    (user_repo / "billing.py").write_text(COST_IN_BILLING)
    _git(env, user_repo, "add", "billing.py")
    _git(env, user_repo, "commit", "-q", "--no-verify", "-m", "billing")
    _install_hook(env, user_repo, hook_repo)
    (user_repo / "agent.py").write_text(COST_IN_AGENT)
    before = _head(env, user_repo)
    _git(env, user_repo, "add", "agent.py")
    committed = _git(env, user_repo, "commit", "-m", "add agent", check=False)

    assert committed.returncode != 0, committed.stdout
    assert "agent.py:3:12: AGL101" in committed.stdout, committed.stdout
    assert "billing.py:2:12" in committed.stdout, committed.stdout  # the related location
    assert "billing.py:2:12: AGL101" not in committed.stdout, committed.stdout  # not reported there
    assert _head(env, user_repo) == before


def _notebook(source: str) -> str:
    import json

    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source.splitlines(True)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def test_notebooks_and_stubs_reach_the_hook(env, hook_repo, user_repo):
    # `types: [python]` would never pass a notebook or a stub: the hook would say
    # "(no files to check)Skipped" and the commit would go through unchecked.
    (user_repo / "analysis.ipynb").write_text(_notebook(SILENT_EXCEPT), encoding="utf-8")
    tried = _try_repo(env, user_repo, hook_repo, "analysis.ipynb")
    assert tried.returncode != 0, tried.stdout
    assert "analysis.ipynb:cell 1:3:1: AGL302" in tried.stdout, tried.stdout

    (user_repo / "api.pyi").write_text("def f() -> int: ...  # noqa: see ticket 12\n", encoding="utf-8")
    tried = _try_repo(env, user_repo, hook_repo, "api.pyi")
    assert "Skipped" not in tried.stdout and "Passed" in tried.stdout, tried.stdout
    assert "invalid `# noqa` directive" in tried.stdout, tried.stdout  # the hook did read the stub

    _install_hook(env, user_repo, hook_repo)
    before = _head(env, user_repo)
    _git(env, user_repo, "add", "analysis.ipynb")
    committed = _git(env, user_repo, "commit", "-m", "add notebook", check=False)
    assert committed.returncode != 0, committed.stdout
    assert "AGL302" in committed.stdout, committed.stdout
    assert _head(env, user_repo) == before


def test_each_file_gets_its_own_configuration_whatever_else_is_staged(env, hook_repo, user_repo):
    # backend/ switches AGL302 off; a file staged beside it (sorted first) must not
    # lend its (absent) configuration to backend/, nor the other way round.
    (user_repo / "backend").mkdir()
    (user_repo / "backend" / "pyproject.toml").write_text('[tool.agentlint]\nignore = ["AGL302"]\n')
    (user_repo / "backend" / "agent.py").write_text(SILENT_EXCEPT)
    (user_repo / "app.py").write_text("x = 1\n")
    _install_hook(env, user_repo, hook_repo)
    _git(env, user_repo, "add", "backend/pyproject.toml", "backend/agent.py", "app.py")
    committed = _git(env, user_repo, "commit", "-m", "backend and app", check=False)
    assert committed.returncode == 0, committed.stdout
    assert "Passed" in committed.stdout, committed.stdout

    # and the root's files are still held to the defaults when backend/ is staged too
    (user_repo / "app.py").write_text(SILENT_EXCEPT)
    (user_repo / "backend" / "agent.py").write_text(SILENT_EXCEPT + "\n")
    before = _head(env, user_repo)
    _git(env, user_repo, "add", "app.py", "backend/agent.py")
    committed = _git(env, user_repo, "commit", "-m", "silent app", check=False)
    assert committed.returncode != 0, committed.stdout
    assert "app.py:3:1: AGL302" in committed.stdout, committed.stdout
    assert "backend/agent.py" not in committed.stdout, committed.stdout
    assert _head(env, user_repo) == before
