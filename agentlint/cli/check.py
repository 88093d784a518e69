"""`agentlint check [PATHS]`: find, analyse and report; the default job."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import click

from agentlint.adopt import check_modes as adoption
from agentlint.cli.common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, code_list, fail
from agentlint.cli.options import caching, configuration, file_selection
from agentlint.cli.output import emit, errors, progress_printer
from agentlint.engine.config import OUTPUT_FORMATS, ConfigError, Overrides
from agentlint.engine.discovery import discover, display_path
from agentlint.engine.finalize import has_internal_errors
from agentlint.engine.resolver import Resolver
from agentlint.engine.results import unreadable
from agentlint.engine.run import run_groups
from agentlint.engine.suppression import reset_warnings
from agentlint.report._common import printable
from agentlint.rules import registry
from agentlint.rules.lazy import lazy_module

# Loaded for --fix and --diff only: fixes need LibCST and the analysis.
fixing = lazy_module("agentlint.cli.fix")


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--select", multiple=True, metavar="CODES", help="Rules to check (codes, prefixes such as AGL3, or ALL); replaces the configured selection.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules to switch off, on top of the configuration.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to add to the selection.")
@file_selection
@click.option("--force-exclude", is_flag=True, help="Apply excludes to paths given on the command line too (for pre-commit).")
@click.option("--stdin-filename", metavar="PATH", help="Read the source from stdin and report it as PATH (its configuration applies).")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default=None, help="How to print findings (default: full).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=str), help="Write the report to this file instead of stdout.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of the findings (JSON with --output-format json).")
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
@click.option("--show-settings", "show_settings", metavar="PATH", type=click.Path(path_type=str), help="Print the configuration file and the settings that hold for PATH, and exit.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked, and exit.")
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
    show_settings: str | None,
    show_files: bool,
) -> None:
    """Check PATHS (default: the current folder) for agent-code findings.

    Each file is checked with the nearest configuration at or above it (`--config`
    and `--isolated`: one for all). Exit status: 0 no findings (also when no file was
    found: a warning says so), 1 findings, 2 usage, configuration or internal error.
    """
    reset_warnings()
    paths_list = list(paths) or ["."]
    # `--stdin-filename` reads stdin, as ruff does; other paths are ignored then
    use_stdin = paths_list == ["-"] or stdin_filename is not None
    if "-" in paths_list and paths_list != ["-"]:
        fail("`-` (read from stdin) cannot be combined with other paths")
    if stdin_filename is not None and paths and paths_list != ["-"]:
        click.echo(f"agentlint: warning: ignoring {', '.join(paths_list)}: the source is read from stdin (--stdin-filename)", err=True)
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
        resolver = Resolver(rules=registry.all_rules(), overrides=overrides, config_file=config_file, isolated=isolated)
        if show_settings is not None:
            print_settings(resolver, show_settings)
            sys.exit(EXIT_CLEAN)
        settings = resolver.current
        stdin_settings = resolver.for_path(stdin_filename) if use_stdin and stdin_filename else settings
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
        if stdin_filename and force_exclude and not discover([stdin_filename], resolver, force_exclude=True).files and os.path.exists(stdin_filename):
            emit([], settings, output_file, statistics, quiet, files_checked=0)
            sys.exit(EXIT_CLEAN)
        stdin = (display_path(name) if name != "-" else "-", sys.stdin.buffer.read())
    else:
        try:
            found = discover(paths_list, resolver, force_exclude=force_exclude)
        except ConfigError as exc:
            fail(str(exc))
        files, problems = found.files, found.problems
        if show_files:
            for path in sorted(files):
                click.echo(printable(path))
            for problem in problems:
                click.echo(f"agentlint: warning: {printable(problem.path)}: {problem.reason}", err=True)
            sys.exit(EXIT_CLEAN)
        if not files and not problems:
            click.echo("agentlint: warning: No Python files or notebooks found under the given paths", err=True)

    try:
        groups = [(stdin_settings, [])] if stdin is not None else resolver.group(files)
    except ConfigError as exc:
        fail(str(exc))
    progress = progress_printer() if not quiet else None
    outcome = run_groups(
        groups, jobs=jobs, use_cache=not no_cache, stdin=stdin, progress=progress, keep_facts=None,
        paths=None if use_stdin else paths_list, settings_of=None if resolver.fixed else resolver.for_file,
        remember_partial=not fix,
    )
    if progress is not None:
        progress(-1, -1)
    files_checked = sum(r.files_checked for _, r in outcome)
    fixed: list = []
    if diff:
        changed = sum(fixing.show_diff(result, group, unsafe_fixes, stdin, summary=False) for group, result in outcome)
        if changed:
            click.echo(f"Would fix {changed} finding{'' if changed == 1 else 's'}.", err=True)
        sys.exit(EXIT_FINDINGS if changed else EXIT_CLEAN)
    if fix and stdin is not None:
        fixing.fix_stdin(replace(stdin_settings, output_format=settings.output_format, docs_url=settings.docs_url),
                  unsafe_fixes, stdin, output_file, statistics, quiet, exit_zero)
    diagnostics = []
    for group, result in outcome:
        if fix:
            left, group_fixed = fixing.fix_files(result, group, unsafe_fixes, jobs=jobs, use_cache=not no_cache)
            diagnostics += left
            fixed += group_fixed
        else:
            diagnostics += result.diagnostics
    for problem in problems:
        diagnostics += unreadable(problem.path, problem.reason).diagnostics
    diagnostics.sort(key=lambda d: d.sort_key())
    settings_for = _settings_of(resolver, stdin, stdin_settings)
    if adopting is not None:
        checked = [path for _, result in outcome for path in result.results] + [p.path for p in problems]
        diagnostics = adopting.run(
            diagnostics, settings, checked, stdin, quiet=quiet, fail=fail, settings_for=settings_for
        )
    emit(
        diagnostics,
        settings,
        output_file,
        statistics,
        quiet,
        files_checked=files_checked,
        unsafe_fixes=unsafe_fixes,
        fixed=len(fixed),
        settings_for=settings_for,
    )
    if show_fixes and fixed:
        fixing.print_fixed(fixed, settings)
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


def _settings_of(resolver: Resolver, stdin, stdin_settings):
    """A file's own settings (the source read from stdin has those of its name)."""

    def settings_for(path: str):
        if stdin is not None and path == stdin[0]:
            return stdin_settings
        return resolver.for_path(path)

    return settings_for


def print_settings(resolver: Resolver, path: str) -> None:
    """`--show-settings PATH`: which configuration holds for PATH, and what it says."""
    settings = resolver.for_path(path)
    click.echo(f"Settings for: {printable(display_path(path))}")
    click.echo(f"Configuration file: {resolver.config_of(settings)}")
    click.echo(f"Root (globs, per-file-ignores): {settings.root}")
    rules = registry.all_rules()
    selectable = [code for code in sorted(settings.enabled) if code in rules]
    lines = {
        "enabled": selectable,
        "per-file-ignores": {pattern: sorted(codes) for pattern, codes in settings.per_file_ignores},
        "exclude": list(settings.exclude),
        "extend-exclude": list(settings.extend_exclude),
        "respect-gitignore": settings.respect_gitignore,
        "output-format": settings.output_format,
        "cache-dir": settings.cache_dir,
        "max-file-size": settings.max_file_size,
        "project-roots": list(settings.project_roots),
        "tests": dict(settings.tests),
        "docs-url": settings.docs_url,
        **{key: list(values) for key, values in settings.knowledge},
    }
    for key, value in lines.items():
        click.echo(f"{key} = {json.dumps(value)}")
    for code, options in sorted(settings.rule_settings.items()):
        for name, value in options.items():
            click.echo(f"rules.{code}.{name} = {json.dumps(value)}")
