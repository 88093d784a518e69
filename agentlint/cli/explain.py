"""`agentlint explain SYMBOL [PATHS]`: the blast radius of a prompt, a model alias or any symbol."""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path
from typing import Sequence

import click

from agentlint.cli.common import fail
from agentlint.cli.options import caching, configuration, file_selection
from agentlint.engine.config import ConfigError, Overrides, load_settings, locate, read
from agentlint.explain.answer import UsageError, parse_symbol
from agentlint.explain.answer import explain as run_explain
from agentlint.explain.index import load, read_memo, write_memo
from agentlint.explain.nodes import GRAPH_VERSION, memo_nodes
from agentlint.explain.render import render
from agentlint.rules import registry

EXIT_FOUND, EXIT_NOTHING = 0, 1


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("symbol")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--depth", type=click.IntRange(min=1), default=None, help="Follow callers this many steps up (default: up to the roots).")
@click.option("--format", "--output-format", "fmt", type=click.Choice(("text", "json", "dot", "mermaid")), default="text", show_default=True, help="How to print the answer.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=str), help="Write the answer to this file instead of stdout.")
@click.option("--no-grep", is_flag=True, help="Answer from the graph only: no text search of non-Python files and Python lines.")
@file_selection
@configuration
@caching
@click.option("--timings", is_flag=True, hidden=True, help="Print where the time went (stderr).")
def explain(
    symbol: str,
    paths: tuple[str, ...],
    depth: int | None,
    fmt: str,
    output_file: str | None,
    no_grep: bool,
    exclude: Sequence[str],
    extend_exclude: Sequence[str],
    respect_gitignore: bool | None,
    config_file: Path | None,
    isolated: bool,
    cache_dir: str | None,
    no_cache: bool,
    jobs: int | None,
    timings: bool,
) -> None:
    """Who reads SYMBOL, and who calls them, up to the tools, agents, entry points and
    tests: the blast radius of changing a prompt or a model alias.

    SYMBOL is a dotted name (app.prompts.SYSTEM_PROMPT), a bare name (SYSTEM_PROMPT),
    PATH.py:NAME, a quoted string such as a model alias ('"gpt-4.1"'), or a prompt file
    (prompts/triage.md). PATHS default to the current folder. Text files (YAML, JSON,
    TOML, Markdown, Jinja, .env examples) that mention SYMBOL or its value are listed as
    text matches.

    Exit status: 0 something was found, 1 nothing was, 2 usage or configuration error.
    """

    # A short run that allocates millions of small lists (decoded facts) and frees
    # nothing cyclic: the cycle collector would only rescan them (about a third of
    # the time of a warm answer on a big project).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        _explain(
            symbol, paths, depth, fmt, output_file, no_grep, exclude, extend_exclude, respect_gitignore,
            config_file, isolated, cache_dir, no_cache, jobs, timings,
        )
    finally:
        if gc_was_enabled:
            gc.enable()


def _explain(
    symbol, paths, depth, fmt, output_file, no_grep, exclude, extend_exclude, respect_gitignore,
    config_file, isolated, cache_dir, no_cache, jobs, timings,
) -> None:
    started = time.perf_counter()

    try:
        parse_symbol(symbol)
    except UsageError as exc:
        fail(str(exc))
    paths_list = list(paths) or ["."]
    if "-" in paths_list:
        fail("explain reads files, not stdin: give folders or files")
    for given in paths_list:
        if not os.path.exists(given):
            fail(f"`{given}`: no such file or folder")
    overrides = Overrides(
        exclude=list(exclude) or None,
        extend_exclude=list(extend_exclude) or None,
        respect_gitignore=respect_gitignore,
        cache_dir=cache_dir,
    )
    start = Path(paths_list[0])
    try:
        settings = _settings(start, config_file, isolated, overrides, with_rules=False)
    except ConfigError as exc:
        fail(str(exc))
    settings_done = time.perf_counter()
    if not paths:
        _note_project_above()


    def full_settings():
        return _settings(start, config_file, isolated, overrides, with_rules=True)

    files = load(paths_list, settings, use_cache=not no_cache, jobs=jobs, full_settings=full_settings)
    memo = read_memo(files, GRAPH_VERSION)
    loaded = time.perf_counter()
    try:
        answer = run_explain(files, symbol, depth=depth, grep=not no_grep, memo=memo)
    except UsageError as exc:
        fail(str(exc), exc.candidates)
    answered = time.perf_counter()
    text = render(answer, fmt)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False)
    for path, reason in files.problems:
        click.echo(f"agentlint: warning: {path}: {reason}", err=True)
    write_memo(files, GRAPH_VERSION, memo, answer.graph.memo_out)
    if timings:
        stats = files.stats
        click.echo(
            f"timings: settings {settings_done - started:.3f}s, facts {loaded - settings_done:.3f}s "
            f"(index {stats.get('index')}, {stats.get('reused')} reused, {stats.get('analysed')} analysed), "
            f"answer {answered - loaded:.3f}s, render {time.perf_counter() - answered:.3f}s; "
            f"{len(answer.graph._views)} of {len(files.entries)} files' facts decoded; "
            f"{memo_nodes(memo)} nodes' callers kept from earlier questions, {memo_nodes(answer.graph.memo_out)} resolved now",
            err=True,
        )
    code = EXIT_FOUND if answer.found else EXIT_NOTHING
    if sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__ and not os.environ.get("AGENTLINT_NO_HARD_EXIT"):
        # The answer is out. Freeing millions of small objects at interpreter exit
        # costs up to half a second on a big project, so skip it (as mypy does); only
        # when running as the command itself, never inside a test runner.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def _note_project_above() -> None:
    """Run in a sub-folder with no PATH, explain searches that folder only: readers
    elsewhere in the project would be missed without a word, so say where it starts."""
    here = Path.cwd().resolve()
    if any((here / marker).exists() for marker in _MARKERS):
        return
    for folder in here.parents:
        found = next((m for m in _MARKERS if (folder / m).exists()), None)
        if found:
            click.echo(
                f"agentlint: note: searching only this folder; the project ({found}) starts at "
                f"{os.path.relpath(folder, here)} — give that as PATH to search all of it",
                err=True,
            )
            return


_RULE_KEYS = frozenset({"select", "ignore", "extend-select", "per-file-ignores", "rules"})


def _settings(start: Path, config_file: Path | None, isolated: bool, overrides, with_rules: bool):
    """The run's settings. What explain itself needs (excludes, .gitignore, cache
    folder) does not depend on the rules, and loading the rules costs a LibCST import
    (about a third of a warm answer); they are loaded only when the configuration
    names rules (so it is validated as `check` validates it) or when files must be
    analysed (their per-file cache key includes the selected rules)."""

    if not with_rules:
        path = config_file if config_file is not None else (None if isolated else locate(start))
        table = read(path) if path is not None and path.is_file() else {}
        if not _RULE_KEYS & set(table):
            return load_settings(start=start, config_file=config_file, isolated=isolated, overrides=overrides, rules={})

    return load_settings(
        start=start, config_file=config_file, isolated=isolated, overrides=overrides, rules=registry.all_rules()
    )
