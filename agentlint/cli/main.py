"""The command line: `agentlint check`, `agentlint rule`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence

import click

from agentlint import DISTRIBUTION, __version__
from agentlint.cli.options import caching, configuration, file_selection
from agentlint.engine.config import OUTPUT_FORMATS, ConfigError, Overrides, Settings, load_settings

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(values: Sequence[str]) -> list[str] | None:
    """`--select A,B --select C` -> [A, B, C]; None when the option was not given."""
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def _fail(message: str) -> "NoReturn":  # type: ignore[name-defined]
    click.echo(f"agentlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name=DISTRIBUTION, message="%(prog)s %(version)s")
def main() -> None:
    """agentlint: a linter for Python AI-agent code."""


@main.command()
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
    from agentlint.rules import registry
    from agentlint.engine.discovery import discover, display_path
    from agentlint.engine.finalize import has_internal_errors
    from agentlint.engine.run import run
    from agentlint.engine.analyze import unreadable

    paths_list = list(paths) or ["."]
    use_stdin = paths_list == ["-"]
    if "-" in paths_list and not use_stdin:
        _fail("`-` (read from stdin) cannot be combined with other paths")
    start = Path(stdin_filename or ".") if use_stdin else Path(paths_list[0])
    if not start.exists():
        start = Path(".")
    overrides = Overrides(
        select=_codes(select),
        ignore=_codes(ignore),
        extend_select=_codes(extend_select),
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
        _fail(str(exc))

    from agentlint.adopt import check_modes as adoption

    adopting = adoption.prepare(
        baseline_file, write_baseline_file, add_noqa, stdin=use_stdin, fix=fix, diff=diff, fail=_fail
    )

    stdin = None
    files: list[str] = []
    problems = []
    if use_stdin:
        name = stdin_filename or "-"
        if stdin_filename and force_exclude and not discover([stdin_filename], settings, force_exclude=True).files and os.path.exists(stdin_filename):
            _emit([], settings, output_file, statistics, quiet, files_checked=0)
            sys.exit(EXIT_CLEAN)
        stdin = (display_path(name) if name != "-" else "-", sys.stdin.buffer.read())
    else:
        found = discover(paths_list, settings, force_exclude=force_exclude)
        files, problems = found.files, found.problems

    progress = _progress_printer() if not quiet else None
    result = run(
        files, settings, jobs=jobs, use_cache=not no_cache, stdin=stdin, progress=progress, keep_facts=None,
        paths=None if use_stdin else paths_list,
    )
    diagnostics = list(result.diagnostics)
    if progress is not None:
        progress(-1, -1)
    fixed: list = []
    if diff:
        changed = _show_diff(result, settings, unsafe_fixes, stdin)
        sys.exit(EXIT_FINDINGS if changed else EXIT_CLEAN)
    if fix and stdin is not None:
        _fix_stdin(settings, unsafe_fixes, stdin, output_file, statistics, quiet, exit_zero)
    if fix:
        diagnostics, fixed = _fix_files(result, settings, unsafe_fixes, jobs=jobs, use_cache=not no_cache)
    for problem in problems:
        diagnostics += unreadable(problem.path, problem.reason).diagnostics
    diagnostics.sort(key=lambda d: d.sort_key())
    if adopting is not None:
        checked = [*result.results, *(p.path for p in problems)]
        diagnostics = adopting.run(diagnostics, settings, checked, stdin, quiet=quiet, fail=_fail)
    _emit(
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
        _print_fixed(fixed, settings)
    if adopting is not None:
        adopting.print_notes()
    if has_internal_errors(diagnostics):
        click.echo(
            "agentlint: error: a rule crashed (AGL003 above); the other rules and files were checked. "
            "Please report it with the file.",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if _errors(diagnostics) and not exit_zero else EXIT_CLEAN)


def _errors(diagnostics) -> bool:
    """Whether any finding fails the run (notes never do)."""
    return any(d.severity == "error" for d in diagnostics)


def _emit(
    diagnostics,
    settings: Settings,
    output_file: str | None,
    statistics: bool,
    quiet: bool,
    files_checked: int,
    *,
    unsafe_fixes: bool = False,
    fixed: int = 0,
    stream=None,
) -> None:
    from agentlint.rules import registry
    from agentlint.report import Report, write_report

    def read_source(path: str) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError:
            return None

    if stream is None:
        stream = open(output_file, "w", encoding="utf-8") if output_file else sys.stdout
    try:
        report = Report(
            diagnostics=diagnostics,
            rules=registry.all_rules(),
            files_checked=files_checked,
            root=settings.root,
            read_source=read_source,
            color=_use_color(stream) and not output_file,
            statistics=statistics,
            tool_version=__version__,
            unsafe_fixes=unsafe_fixes,
            fixed=fixed,
        )
        write_report(settings.output_format, report, stream)
        stream.flush()
    finally:
        if output_file:
            stream.close()


# -- fixes ----------------------------------------------------------------------------


def _fixable_paths(result, unsafe: bool) -> list[str]:
    from agentlint.engine.fixes import wanted

    paths: list[str] = []
    for d in result.diagnostics:
        if wanted(d, unsafe) and d.path not in paths and d.path in result.results:
            paths.append(d.path)
    return paths


def _fix_one(path: str, content: bytes, settings: Settings, unsafe: bool):
    from agentlint.engine.finalize import file_diagnostics
    from agentlint.engine.fixes import fix_content

    return fix_content(path, content, lambda p, c: file_diagnostics(p, c, settings), unsafe=unsafe)


def _read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _warn(message: str) -> None:
    click.echo(f"agentlint: warning: {message}", err=True)


def _fix_files(result, settings: Settings, unsafe: bool, *, jobs: int | None, use_cache: bool):
    """Fix every file that has a wanted fix, write the changed ones atomically, and
    check them again. Returns the findings left (in every file) and those fixed."""
    from agentlint.rules import registry
    from agentlint.engine.finalize import finalize
    from agentlint.engine.run import run
    from agentlint.engine.fixes import write_atomic

    fixed: list = []
    changed: list[str] = []
    for path, _, outcome in _planned_fixes(result, settings, unsafe, _read_bytes, "not fixed: the file could not be read"):
        try:
            write_atomic(path, outcome.fixed_bytes())
        except OSError as exc:
            _warn(f"{path}: not fixed: cannot write it ({exc.strerror or exc})")
            continue
        changed.append(path)
        fixed += outcome.fixed
    if not changed:
        return list(result.diagnostics), fixed
    # The cache is keyed by content: the fixed files are analysed afresh.
    again = run(changed, settings, jobs=jobs, use_cache=use_cache, keep_facts=None)
    results = dict(result.results)
    results.update(again.results)
    return finalize(results, settings, registry.all_rules(), context=result.context), fixed


def _planned_fixes(result, settings: Settings, unsafe: bool, read, unreadable: str | None = None):
    """(path, original bytes, outcome) for every file whose wanted fixes change it;
    shared by --fix and --diff so both plan exactly the same edits."""
    for path in _fixable_paths(result, unsafe):
        content = read(path)
        if content is None:
            if unreadable:
                _warn(f"{path}: {unreadable}")
            continue
        outcome = _fix_one(path, content, settings, unsafe)
        if outcome.error:
            _warn(f"{path}: {outcome.error}")
        if outcome.changed:
            yield path, content, outcome


def _show_diff(result, settings: Settings, unsafe: bool, stdin) -> bool:
    """Print the unified diff of what --fix would change; True when there is any."""
    from agentlint.facts.source import decode
    from agentlint.engine.fixes import unified_diff

    def read(path: str) -> bytes | None:
        return stdin[1] if stdin is not None and path == stdin[0] else _read_bytes(path)

    count = 0
    for path, content, outcome in _planned_fixes(result, settings, unsafe, read):
        click.echo(unified_diff(path, decode(content), outcome.fixed_text or ""), nl=False)
        count += len(outcome.fixed)
    if count:
        click.echo(f"Would fix {count} finding{'' if count == 1 else 's'}.", err=True)
    return count > 0


def _fix_stdin(settings: Settings, unsafe: bool, stdin, output_file, statistics, quiet, exit_zero) -> None:
    """`check - --fix`: the fixed source goes to stdout, the report to stderr."""
    from agentlint.engine.finalize import file_diagnostics

    name, content = stdin
    outcome = _fix_one(name, content, settings, unsafe)
    if outcome.error:
        _warn(f"{name}: {outcome.error}")
    data = outcome.fixed_bytes() if outcome.changed else content
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    remaining = file_diagnostics(name, data, settings)
    _emit(
        remaining,
        settings,
        output_file,
        statistics,
        quiet,
        files_checked=1,
        unsafe_fixes=unsafe,
        fixed=len(outcome.fixed),
        stream=None if output_file else sys.stderr,
    )
    sys.exit(EXIT_FINDINGS if _errors(remaining) and not exit_zero else EXIT_CLEAN)


def _print_fixed(fixed, settings: Settings) -> None:
    """`--show-fixes`: what was fixed, per file and rule (ruff's layout). Machine
    formats keep stdout to themselves, so the list goes to stderr for them."""
    from collections import Counter

    from agentlint.rules import registry

    metas = registry.all_rules()
    by_path: dict[str, Counter] = {}
    for d in fixed:
        by_path.setdefault(d.path, Counter())[d.code] += 1
    total = len(fixed)
    lines = [f"Fixed {total} finding{'' if total == 1 else 's'}:"]
    for path in sorted(by_path):
        lines.append(f"- {path}:")
        for code, count in sorted(by_path[path].items()):
            name = metas[code].name if code in metas else ""
            lines.append(f"    {count} \u00d7 {code} ({name})")
    click.echo("\n".join(lines), err=settings.output_format not in ("full", "concise"))


def _progress_printer():
    """A one-line counter on stderr, for long runs on a terminal only."""
    if not sys.stderr.isatty() or os.environ.get("CI"):
        return None
    state = {"shown": False}

    def show(done: int, total: int) -> None:
        if done < 0:
            if state["shown"]:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            return
        if total >= 200 and (done % 50 == 0 or done == total):
            sys.stderr.write(f"\rChecking files: {done}/{total}")
            sys.stderr.flush()
            state["shown"] = True

    return show


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print the documentation of every rule.")
def rule(code: str | None, show_all: bool) -> None:
    """Print the documentation of rule CODE (for example AGL302)."""
    from agentlint.engine.config import resolve_selector
    from agentlint.report.rule_docs import render_rule
    from agentlint.rules.registry import all_rules

    rules = all_rules()
    if show_all:
        click.echo("\n\n".join(render_rule(m).rstrip() for m in rules.values()))
        return
    if not code:
        _fail("give a rule code (for example `agentlint rule AGL302`) or `--all`")
    wanted = code.upper()
    meta = rules.get(wanted) or next((m for m in rules.values() if m.name == code), None)
    if meta is None:
        try:
            resolve_selector(code, rules)
        except ConfigError as exc:
            _fail(str(exc))
        _fail(f"`{code}` is a prefix, not one rule; try `agentlint rule --all`")
    click.echo(render_rule(meta).rstrip())


def _register_optional_commands() -> None:
    """Commands that live in their own modules (kept out of this file's import cost)."""
    import importlib

    for module_name, attr in (
        ("agentlint.cli.explain", "explain"),
        ("agentlint.cli.tools", "tools"),
        ("agentlint.adopt.init", "init"),
    ):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        main.add_command(getattr(module, attr))


_register_optional_commands()

if __name__ == "__main__":
    main()
