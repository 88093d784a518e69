"""`agentlint check [PATHS]`: find, analyse and report; the default job."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence

import click

from agentlint.adopt import check_modes as adoption
from agentlint.cli.common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, code_list, fail
from agentlint.cli.fix import fix_files, fix_stdin, print_fixed, show_diff
from agentlint.cli.options import caching, configuration, file_selection
from agentlint.cli.output import emit, errors, progress_printer
from agentlint.engine.analyze import unreadable
from agentlint.engine.config import (
    OUTPUT_FORMATS,
    ConfigError,
    Overrides,
    load_settings,
)
from agentlint.engine.discovery import discover, display_path
from agentlint.engine.finalize import has_internal_errors
from agentlint.engine.run import run
from agentlint.rules import registry


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--select", multiple=True, metavar="CODES", help="Rules to check (codes, prefixes such as AGL3, or ALL); replaces the configured selection.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules to switch off, on top of the configuration.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to add to the selection.")
@file_selection
@click.option("--force-exclude", is_flag=True, help="Apply excludes to paths given on the command line too (for pre-commit).")
@click.option("--stdin-filename", metavar="PATH", help="The name to report for source read from stdin (`-`).")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default=None, help="How to print findings (default: full).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=str), help="Write the report to this file instead of stdout.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of the findings.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@configuration
@caching
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no progress.")
@click.option("--fix", is_flag=True, help="Apply the safe fixes, then report what is left (exit 0 when nothing is left).")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix or --diff) or show as fixable the fixes that may change behaviour.")
@click.option("--diff", is_flag=True, help="Print a unified diff of what --fix would change and write nothing (exit 1 when there are changes).")
@click.option("--show-fixes", is_flag=True, help="With --fix, list the findings that were fixed, per file.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False, path_type=str), metavar="FILE", help="Report only findings that are not in this baseline file; list its stale entries.")
@click.option("--write-baseline", "write_baseline_file", type=click.Path(dir_okay=False, path_type=str), metavar="FILE", help="Record the current findings in FILE (entries of files not checked are kept) and exit 0.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to the lines of the current findings (keeping existing comments) instead of reporting them.")
def check(
    paths: tuple[str, ...],
    select: Sequence[str],
    ignore: Sequence[str],
    extend_select: Sequence[str],
    exclude: Sequence[str],
    extend_exclude: Sequence[str],
    respect_gitignore: bool | None,
    force_exclude: bool,
    stdin_filename: str | None,
    output_format: str | None,
    output_file: str | None,
    statistics: bool,
    exit_zero: bool,
    config_file: Path | None,
    isolated: bool,
    cache_dir: str | None,
    no_cache: bool,
    jobs: int | None,
    quiet: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    show_fixes: bool,
    baseline_file: str | None,
    write_baseline_file: str | None,
    add_noqa: bool,
) -> None:
    """Check PATHS (default: the current folder) for agent-code findings.

    Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error.
    """
    paths_list = list(paths) or ["."]
    use_stdin = paths_list == ["-"]
    if "-" in paths_list and not use_stdin:
        fail("`-` (read from stdin) cannot be combined with other paths")
    start = Path(stdin_filename or ".") if use_stdin else Path(paths_list[0])
    if not start.exists():
        start = Path(".")
    overrides = Overrides(
        select=code_list(select),
        ignore=code_list(ignore),
        extend_select=code_list(extend_select),
        exclude=list(exclude) or None,
        extend_exclude=list(extend_exclude) or None,
        respect_gitignore=respect_gitignore,
        output_format=output_format,
        cache_dir=cache_dir,
    )
    try:
        settings = load_settings(
            start=start, config_file=config_file, isolated=isolated, overrides=overrides, rules=registry.all_rules()
        )
    except ConfigError as exc:
        fail(str(exc))

    adopting = adoption.prepare(
        baseline_file, write_baseline_file, add_noqa, stdin=use_stdin, fix=fix, diff=diff, fail=fail
    )

    stdin = None
    files: list[str] = []
    problems = []
    if use_stdin:
        name = stdin_filename or "-"
        if stdin_filename and force_exclude and not discover([stdin_filename], settings, force_exclude=True).files and os.path.exists(stdin_filename):
            emit([], settings, output_file, statistics, quiet, files_checked=0)
            sys.exit(EXIT_CLEAN)
        stdin = (display_path(name) if name != "-" else "-", sys.stdin.buffer.read())
    else:
        found = discover(paths_list, settings, force_exclude=force_exclude)
        files, problems = found.files, found.problems

    progress = progress_printer() if not quiet else None
    result = run(
        files, settings, jobs=jobs, use_cache=not no_cache, stdin=stdin, progress=progress, keep_facts=None,
        paths=None if use_stdin else paths_list,
    )
    diagnostics = list(result.diagnostics)
    if progress is not None:
        progress(-1, -1)
    fixed: list = []
    if diff:
        changed = show_diff(result, settings, unsafe_fixes, stdin)
        sys.exit(EXIT_FINDINGS if changed else EXIT_CLEAN)
    if fix and stdin is not None:
        fix_stdin(settings, unsafe_fixes, stdin, output_file, statistics, quiet, exit_zero)
    if fix:
        diagnostics, fixed = fix_files(result, settings, unsafe_fixes, jobs=jobs, use_cache=not no_cache)
    for problem in problems:
        diagnostics += unreadable(problem.path, problem.reason).diagnostics
    diagnostics.sort(key=lambda d: d.sort_key())
    if adopting is not None:
        checked = [*result.results, *(p.path for p in problems)]
        diagnostics = adopting.run(diagnostics, settings, checked, stdin, quiet=quiet, fail=fail)
    emit(
        diagnostics,
        settings,
        output_file,
        statistics,
        quiet,
        files_checked=result.files_checked,
        unsafe_fixes=unsafe_fixes,
        fixed=len(fixed),
    )
    if show_fixes and fixed:
        print_fixed(fixed, settings)
    if adopting is not None:
        adopting.print_notes()
    if has_internal_errors(diagnostics):
        click.echo(
            "agentlint: error: a rule crashed (AGL003 above); the other rules and files were checked. "
            "Please report it with the file.",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if errors(diagnostics) and not exit_zero else EXIT_CLEAN)
