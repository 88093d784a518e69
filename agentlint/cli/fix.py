"""`check --fix`, `--diff` and `--show-fixes`: plan the fixes of each file, write the
changed files atomically, and check them again."""

from __future__ import annotations

import sys
from collections import Counter

import click

from agentlint.cli.common import EXIT_CLEAN, EXIT_FINDINGS
from agentlint.cli.output import emit, errors
from agentlint.engine.config import Settings
from agentlint.engine.finalize import file_diagnostics, finalize
from agentlint.engine.fixes import NotWritten, fix_content, unified_diff, wanted, write_fixed
from agentlint.engine.run import run
from agentlint.facts.source import decode, read_regular
from agentlint.rules import registry


def _fixable_paths(result, unsafe: bool) -> list[str]:
    paths: list[str] = []
    for d in result.diagnostics:
        if wanted(d, unsafe) and d.path not in paths and d.path in result.results:
            paths.append(d.path)
    return paths


def _fix_one(path: str, content: bytes, settings: Settings, unsafe: bool):
    return fix_content(path, content, lambda p, c: file_diagnostics(p, c, settings), unsafe=unsafe)


def _read_bytes(path: str) -> bytes | None:
    try:
        return read_regular(path)
    except OSError:
        return None


def _warn(message: str) -> None:
    click.echo(f"agentlint: warning: {message}", err=True)


def fix_files(result, settings: Settings, unsafe: bool, *, jobs: int | None, use_cache: bool):
    """Fix every file that has a wanted fix, write the changed ones atomically, and
    check them again. Returns the findings left (in every file) and those fixed."""
    fixed: list = []
    changed: list[str] = []
    for path, original, outcome in _planned_fixes(result, settings, unsafe, _read_bytes, "not fixed: the file could not be read"):
        try:
            write_fixed(path, original, outcome.fixed_bytes(), settings.root)
        except NotWritten as exc:
            _warn(f"{path}: {exc}")
            continue
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
        for note in outcome.dropped:
            _warn(f"{path}: {note}; please report it")
        if outcome.changed:
            yield path, content, outcome


def show_diff(result, settings: Settings, unsafe: bool, stdin, *, summary: bool = True) -> int:
    """Print the unified diff of what --fix would change; the number of findings it
    would fix (``summary``: also say it on stderr)."""
    def read(path: str) -> bytes | None:
        return stdin[1] if stdin is not None and path == stdin[0] else _read_bytes(path)

    count = 0
    for path, content, outcome in _planned_fixes(result, settings, unsafe, read):
        click.echo(unified_diff(path, decode(content), outcome.fixed_text or ""), nl=False)
        count += len(outcome.fixed)
    if count and summary:
        click.echo(f"Would fix {count} finding{'' if count == 1 else 's'}.", err=True)
    return count


def fix_stdin(settings: Settings, unsafe: bool, stdin, output_file, statistics, quiet, exit_zero) -> None:
    """`check - --fix`: the fixed source goes to stdout, the report to stderr."""
    name, content = stdin
    outcome = _fix_one(name, content, settings, unsafe)
    if outcome.error:
        _warn(f"{name}: {outcome.error}")
    for note in outcome.dropped:
        _warn(f"{name}: {note}; please report it")
    data = outcome.fixed_bytes() if outcome.changed else content
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    remaining = file_diagnostics(name, data, settings)
    emit(
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
    sys.exit(EXIT_FINDINGS if errors(remaining) and not exit_zero else EXIT_CLEAN)


def print_fixed(fixed, settings: Settings) -> None:
    """`--show-fixes`: what was fixed, per file and rule (ruff's layout). Machine
    formats keep stdout to themselves, so the list goes to stderr for them."""
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
